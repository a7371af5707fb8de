/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptp4l management client over its Unix datagram socket; see pmc-client.h. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "pmc-client.h"

typedef struct PmcSlot {
        uint16_t sequence_id;
        bool answered;
        PmcReply reply;                       /* answers/n_answers are filled at completion */
} PmcSlot;

struct PmcClient {
        sd_event *event;
        int fd;
        sd_event_source *io_source;
        sd_event_source *timer_source;
        sd_event_source *retry_source;  /* sends the rest of a query after a full queue */

        char *candidates[2];
        size_t n_candidates;
        size_t last_good;
        char local_path[sizeof(((struct sockaddr_un *) NULL)->sun_path)];

        uint8_t domain;
        uint8_t transport_specific;
        PtpPortIdentity source;
        uint16_t next_sequence_id;

        bool busy;
        PmcSlot slots[PMC_MAX_QUERY_IDS];
        uint8_t requests[PMC_MAX_QUERY_IDS][PTP_MGMT_SUBSCRIBE_LEN];
        size_t request_len[PMC_MAX_QUERY_IDS];
        size_t n_slots;
        size_t n_sent;                  /* requests of the slots sent so far */
        int send_error;                 /* why the rest is not sent yet (-EAGAIN), or 0 */
        PtpMgmtMessage answers[PMC_MAX_ANSWERS];
        uint8_t answer_slot[PMC_MAX_ANSWERS];
        size_t n_answers;
        pmc_client_done_fn cb;
        void *userdata;

        pmc_client_notify_fn notify;    /* datagrams that answer no request */
        void *notify_userdata;
        bool reached;                   /* a send succeeded once */
        uint64_t n_requests;            /* requests sent */
};

static unsigned client_counter;

static bool path_fits(const char *p) {
        return p && p[0] && strlen(p) < sizeof(((struct sockaddr_un *) NULL)->sun_path);
}

static void query_clear(PmcClient *c) {
        c->busy = false;
        c->n_slots = 0;
        c->n_sent = 0;
        c->send_error = 0;
        c->n_answers = 0;
        c->cb = NULL;
        c->userdata = NULL;
        c->timer_source = sd_event_source_disable_unref(c->timer_source);
        c->retry_source = sd_event_source_disable_unref(c->retry_source);
}

/* Hand the results to the callback. The callback may free c, so nothing
 * touches c after it. */
static void query_complete(PmcClient *c) {
        PmcReply replies[PMC_MAX_QUERY_IDS];
        PtpMgmtMessage answers[PMC_MAX_ANSWERS];
        pmc_client_done_fn cb = c->cb;
        void *userdata = c->userdata;
        size_t n = c->n_slots, answered = 0, k = 0;
        /* Nothing answered: a queue that stayed full says more than "no answer". */
        int none = c->send_error < 0 ? c->send_error : -ETIMEDOUT;

        for (size_t i = 0; i < n; i++) {
                replies[i] = c->slots[i].reply;
                if (c->slots[i].answered)
                        answered++;
                else
                        replies[i].error = i >= c->n_sent && c->send_error < 0 ? c->send_error : -ETIMEDOUT;

                /* this slot's answers, in arrival order, side by side */
                replies[i].answers = answers + k;
                replies[i].n_answers = 0;
                for (size_t j = 0; j < c->n_answers; j++)
                        if (c->answer_slot[j] == i) {
                                answers[k++] = c->answers[j];
                                replies[i].n_answers++;
                        }
        }
        query_clear(c);
        if (cb)
                cb(c, answered > 0 ? 0 : none, replies, n, userdata);
}

static PmcSlot *slot_for(PmcClient *c, uint16_t sequence_id) {
        for (size_t i = 0; i < c->n_slots; i++)
                if (c->slots[i].sequence_id == sequence_id)
                        return &c->slots[i];
        return NULL;
}

static void handle_datagram(PmcClient *c, const uint8_t *buf, size_t len) {
        PtpMgmtMessage m;
        PmcSlot *slot;
        int r;

        if (!c->busy && !c->notify)
                return;

        r = ptp_mgmt_unpack(buf, len, &m);
        if (r < 0) {
                /* Attribute a malformed answer by its sequenceId if it has one. */
                if (len >= PTP_MGMT_HEADER_LEN && c->busy && !c->notify) {
                        slot = slot_for(c, (uint16_t) (buf[30] << 8 | buf[31]));
                        if (slot && !slot->answered) {
                                slot->answered = true;
                                slot->reply.error = -EBADMSG;
                        }
                }
                log_debug("pmc: dropping malformed datagram of %zu bytes", len);
                return;
        }

        slot = slot_for(c, m.sequence_id);
        /* ptp4l numbers its notifications per subscriber from 0, so one may
         * share a request's sequenceId: its managementId tells them apart. */
        if (c->notify && slot && m.management_id != slot->reply.management_id)
                slot = NULL;
        if (!slot || m.action != PTP_MGMT_RESPONSE) {
                if (c->notify && m.action == PTP_MGMT_RESPONSE && m.tlv_type == PTP_TLV_MANAGEMENT &&
                    m.has_data && m.management_id != PTP_MID_SUBSCRIBE_EVENTS_NP)
                        c->notify(c, &m, c->notify_userdata);
                return;               /* not an answer of ours */
        }

        r = ptp_mgmt_check_response(&m, slot->reply.management_id);
        if (!slot->answered) {
                slot->answered = true;
                slot->reply.msg = m;
                slot->reply.error = r;
        } else if (slot->reply.error < 0 || r < 0)
                return;               /* keep the first verdict */

        /* the first answer, or another port's */
        if (r == 0 && c->n_answers < PMC_MAX_ANSWERS) {
                c->answers[c->n_answers] = m;
                c->answer_slot[c->n_answers] = (uint8_t) (slot - c->slots);
                c->n_answers++;
        }
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        PmcClient *c = userdata;
        uint8_t buf[PTP_MGMT_MAX_LEN + 1];

        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                break;
                        log_debug_errno(errno, "pmc: recv failed: %m");
                        break;
                }
                /* With MSG_TRUNC n is the datagram's real size; an oversized one
                 * is passed on with that size capped so unpack rejects it. */
                handle_datagram(c, buf, (size_t) n > sizeof(buf) ? sizeof(buf) : (size_t) n);
        }

        if (c->busy && c->n_sent == c->n_slots) {
                for (size_t i = 0; i < c->n_slots; i++)
                        if (!c->slots[i].answered)
                                return 0;
                query_complete(c);
        }
        return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        PmcClient *c = userdata;

        if (c->busy)
                query_complete(c);
        return 0;
}

static int make_dir(const char *dir) {
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

/* $RUNTIME_DIRECTORY (set by systemd's RuntimeDirectory=; the first of a
 * colon-separated list) or PMC_DEFAULT_RUNTIME_DIR. */
static const char *default_runtime_dir(char *buf, size_t size) {
        const char *e = getenv("RUNTIME_DIRECTORY");
        size_t n;

        if (!e || e[0] != '/')
                return PMC_DEFAULT_RUNTIME_DIR;
        n = strcspn(e, ":");
        if (n >= size)
                return PMC_DEFAULT_RUNTIME_DIR;
        memcpy(buf, e, n);
        buf[n] = '\0';
        return buf;
}

int pmc_client_new(sd_event *e, const char *socket_path, uint8_t domain, uint8_t transport_specific,
                   const char *runtime_dir, PmcClient **ret) {
        _cleanup_(pmc_client_freep) PmcClient *c = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char rt_buf[sizeof(sa.sun_path)];
        int r;

        if (!e || transport_specific > 0xf)
                return -EINVAL;
        if (socket_path && !path_fits(socket_path))
                return -EINVAL;
        if (!runtime_dir)
                runtime_dir = default_runtime_dir(rt_buf, sizeof(rt_buf));

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->fd = -1;
        c->event = sd_event_ref(e);
        c->domain = domain;
        c->transport_specific = transport_specific;
        /* ptp4l tells subscribers apart by this identity, so each client
         * has its own: the pid as the port, the client's number in the
         * clock identity. */
        c->source.port_number = (uint16_t) getpid();
        c->source.clock_identity[6] = (uint8_t) (client_counter >> 8);
        c->source.clock_identity[7] = (uint8_t) client_counter;

        if (socket_path)
                c->candidates[c->n_candidates++] = strdup(socket_path);
        else {
                c->candidates[c->n_candidates++] = strdup(PMC_DEFAULT_SOCKET);
                c->candidates[c->n_candidates++] = strdup(PMC_FALLBACK_SOCKET);
        }
        for (size_t i = 0; i < c->n_candidates; i++)
                if (!c->candidates[i])
                        return -ENOMEM;

        r = snprintf(c->local_path, sizeof(c->local_path), "%s/pmc.%d.%u", runtime_dir,
                     (int) getpid(), client_counter++);
        if (r < 0 || (size_t) r >= sizeof(c->local_path)) {
                c->local_path[0] = '\0';
                return -EINVAL;
        }

        r = make_dir(runtime_dir);
        if (r < 0) {
                c->local_path[0] = '\0';
                return r;
        }

        c->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (c->fd < 0)
                return negative_errno();

        strcpy(sa.sun_path, c->local_path);
        (void) unlink(c->local_path);         /* left over from a crashed run with our pid */
        if (bind(c->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                r = negative_errno();
                c->local_path[0] = '\0';
                return r;
        }

        r = sd_event_add_io(e, &c->io_source, c->fd, EPOLLIN, on_io, c);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(c->io_source, "pmc-client-io");

        *ret = TAKE_PTR(c);
        return 0;
}

PmcClient *pmc_client_free(PmcClient *c) {
        if (!c)
                return NULL;
        query_clear(c);
        c->io_source = sd_event_source_disable_unref(c->io_source);
        if (c->fd >= 0)
                close(c->fd);
        if (c->local_path[0])
                (void) unlink(c->local_path);
        for (size_t i = 0; i < c->n_candidates; i++)
                free(c->candidates[i]);
        sd_event_unref(c->event);
        free(c);
        return NULL;
}

/* Send one datagram to ptp4l, trying the candidate paths in order. */
static int send_request(PmcClient *c, const uint8_t *buf, size_t len) {
        int r = -ENOENT;

        for (size_t i = 0; i < c->n_candidates; i++) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };

                strcpy(sa.sun_path, c->candidates[i]);
                if (sendto(c->fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *) &sa, sizeof(sa)) >= 0) {
                        c->last_good = i;
                        c->reached = true;
                        c->n_requests++;
                        return 0;
                }
                int k = negative_errno();
                if (k != -ENOENT && k != -ECONNREFUSED)
                        return k;
                if (r != -ECONNREFUSED)
                        r = k;        /* "a socket but nobody listens" says more than "no socket" */
        }
        return r;
}

/* How long a request waits before it is sent again after ptp4l's socket
 * queue was full. */
#define PMC_SEND_RETRY_USEC (10 * 1000ULL)  /* 10 ms */

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata);

/* Send the requests not sent yet. ptp4l's socket queue (net.unix.
 * max_dgram_qlen, 10 by default) fills for a moment when several links ask
 * the same ptp4l at once: then the rest goes a little later, until the
 * query's timeout; only a queue that stays full is the query's result.
 * Returns 0 when all are sent, -EAGAIN when the rest waits, or -errno. */
static int send_pending(PmcClient *c) {
        int r;

        while (c->n_sent < c->n_slots) {
                r = send_request(c, c->requests[c->n_sent], c->request_len[c->n_sent]);
                if (r == -EAGAIN) {
                        c->send_error = r;
                        if (!c->retry_source) {
                                r = sd_event_add_time_relative(c->event, &c->retry_source, CLOCK_MONOTONIC,
                                                               PMC_SEND_RETRY_USEC, 0, on_retry, c);
                                if (r < 0)
                                        return r;
                                (void) sd_event_source_set_description(c->retry_source, "pmc-client-retry");
                        } else {
                                r = sd_event_source_set_time_relative(c->retry_source, PMC_SEND_RETRY_USEC);
                                if (r >= 0)
                                        r = sd_event_source_set_enabled(c->retry_source, SD_EVENT_ONESHOT);
                                if (r < 0)
                                        return r;
                        }
                        return -EAGAIN;
                }
                if (r < 0)
                        return r;
                c->n_sent++;
        }
        c->send_error = 0;
        return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        PmcClient *c = userdata;
        int r;

        if (!c->busy)
                return 0;
        r = send_pending(c);
        if (r < 0 && r != -EAGAIN) {
                /* The rest cannot be sent: the query ends with what came,
                 * the unsent requests carrying why. */
                c->send_error = r;
                query_complete(c);
        }
        return 0;
}

/* Begin a query: drop what is stale, clear the slots. */
static void query_begin(PmcClient *c) {
        /* Drain anything stale (late answers to an earlier query); a client
         * that takes notifications reads them instead, and tells stale
         * answers by their sequenceId. */
        while (!c->notify) {
                uint8_t junk[1];
                if (recv(c->fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_TRUNC) < 0)
                        break;
        }
        query_clear(c);
}

/* Put request *m into the next slot (its sequenceId is set here). */
static int query_add(PmcClient *c, PtpMgmtMessage *m) {
        size_t i = c->n_slots;
        PmcSlot *slot = &c->slots[i];
        int r;

        *slot = (PmcSlot) {
                .sequence_id = c->next_sequence_id++,
                .reply.management_id = m->management_id,
        };
        m->sequence_id = slot->sequence_id;
        r = ptp_mgmt_pack(m, c->requests[i], sizeof(c->requests[i]));
        if (r < 0)
                return r;
        c->request_len[i] = (size_t) r;
        c->n_slots++;
        return 0;
}

/* Send the slots filled by query_add() and wait for their answers. */
static int query_send(PmcClient *c, uint64_t timeout_usec, pmc_client_done_fn cb, void *userdata) {
        int r;

        r = send_pending(c);
        if (r < 0 && r != -EAGAIN) {
                query_clear(c);
                return r;
        }

        r = sd_event_add_time_relative(c->event, &c->timer_source, CLOCK_MONOTONIC, timeout_usec, 0,
                                       on_timeout, c);
        if (r < 0) {
                query_clear(c);
                return r;
        }
        (void) sd_event_source_set_description(c->timer_source, "pmc-client-timeout");

        c->busy = true;
        c->cb = cb;
        c->userdata = userdata;
        return 0;
}

int pmc_client_query(PmcClient *c, const uint16_t *ids, size_t n_ids, uint64_t timeout_usec,
                     pmc_client_done_fn cb, void *userdata) {
        int r;

        if (c->busy)
                return -EBUSY;
        if (n_ids == 0 || n_ids > PMC_MAX_QUERY_IDS)
                return -EINVAL;
        for (size_t i = 0; i < n_ids; i++)
                if (ptp_mgmt_data_len(ids[i]) < 0 || ids[i] == PTP_MID_SUBSCRIBE_EVENTS_NP)
                        return -EINVAL;

        query_begin(c);
        for (size_t i = 0; i < n_ids; i++) {
                PtpMgmtMessage m;

                ptp_mgmt_init_get(&m, ids[i], c->domain, c->transport_specific, 0, &c->source);
                r = query_add(c, &m);
                if (r < 0) {
                        query_clear(c);
                        return r;
                }
        }
        return query_send(c, timeout_usec, cb, userdata);
}

int pmc_client_subscribe(PmcClient *c, const PtpNotifyEvent *events, size_t n_events, uint16_t duration_s,
                         uint64_t timeout_usec, pmc_client_done_fn cb, void *userdata) {
        PtpMgmtMessage m;
        int r;

        if (c->busy)
                return -EBUSY;

        query_begin(c);
        ptp_mgmt_init_subscribe(&m, c->domain, c->transport_specific, 0, &c->source, duration_s, events,
                                n_events);
        r = query_add(c, &m);
        if (r < 0) {
                query_clear(c);
                return r;
        }
        return query_send(c, timeout_usec, cb, userdata);
}

void pmc_client_set_notify(PmcClient *c, pmc_client_notify_fn fn, void *userdata) {
        c->notify = fn;
        c->notify_userdata = userdata;
}

uint64_t pmc_client_requests(const PmcClient *c) {
        return c->n_requests;
}

const char *pmc_client_reached_path(const PmcClient *c) {
        return c->reached ? c->candidates[c->last_good] : NULL;
}

void pmc_client_cancel(PmcClient *c) {
        query_clear(c);
}

bool pmc_client_busy(const PmcClient *c) {
        return c->busy;
}

const char *pmc_client_server_path(const PmcClient *c) {
        return c->candidates[c->last_good];
}

const char *pmc_client_local_path(const PmcClient *c) {
        return c->local_path;
}

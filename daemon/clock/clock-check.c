/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-interface clock check: asks ptp4l (by notification or polling)
 * and the PHC, and judges with clock_evaluate() (clock-rules.c); see
 * clock-check.h for the rules. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock-check.h"
#include "log.h"
#include "pmc-client.h"
#include "time-util.h"

#define USEC_PER_MSEC 1000ULL
#define PHC_SAMPLES 9

/* Notifications (linuxptp's SUBSCRIBE_EVENTS_NP): how long one
 * subscription lasts, when it is renewed, and when a refused one is asked
 * for again. */
#define SUBSCRIBE_DURATION_S 60
#define SUBSCRIBE_RENEW_USEC (30 * USEC_PER_SEC)
#define SUBSCRIBE_RETRY_USEC (300 * USEC_PER_SEC)
/* While subscribed, every FULL_CHECK_EVERY-th check still asks for all the
 * data sets: the figures no notification carries (mean path delay, steps
 * removed) and a port state whose notification got lost. */
#define FULL_CHECK_EVERY 10

struct ClockCheck {
        sd_event *event;
        char *ifname;
        ClockSpec spec;                       /* ptp4l_socket owned */
        int phc_index;
        clock_check_changed_fn cb;
        void *userdata;

        PmcClient *pmc;
        PhcClock *phc;
        sd_event_source *timer;
        uint64_t interval_usec;
        uint64_t timeout_usec;

        bool checked_once;
        ClockStatus status;

        /* Notifications: a client of its own, the one ptp4l sends them to. */
        PmcClient *sub;
        bool subscribed;                      /* ptp4l took the last SET */
        bool refused_logged;
        uint64_t subscribe_at;                /* CLOCK_MONOTONIC: send the next SET */
        ClockInputs cache;                    /* what ptp4l said, kept up to date by notifications */
        bool have_cache;
        unsigned checks_since_full;
        uint64_t time_sync_at;                /* CLOCK_MONOTONIC of the last TIME_STATUS_NP notification */
        uint64_t n_notifications;
        char *socket_logged;                  /* the ptp4l socket last named in the log */
};

/* Port-level ids first: their answers (one per port) all arrive before the
 * clock-level ones (see pmc-client.h). */
static const uint16_t query_ids[] = {
        PTP_MID_PORT_DATA_SET,
        PTP_MID_PORT_PROPERTIES_NP,
        PTP_MID_TIME_STATUS_NP,
        PTP_MID_CURRENT_DATA_SET,
        PTP_MID_PARENT_DATA_SET,
        PTP_MID_TIME_PROPERTIES_DATA_SET,
};

static void measure_local(ClockCheck *cc, ClockInputs *in) {
        int r;

        in->tai_error = tai_offset_read(&in->tai_offset_s);
        in->phc_index = cc->phc_index;
        if (cc->phc_index < 0)
                return;

        if (!cc->phc) {
                r = phc_clock_open(cc->phc_index, &cc->phc);
                if (r < 0) {
                        in->phc_error = r;
                        return;
                }
        }
        in->phc_error = phc_clock_measure(cc->phc, in->tai_error == 0 ? in->tai_offset_s : 0, PHC_SAMPLES,
                                          &in->phc);
        if (in->phc_error < 0)
                cc->phc = phc_clock_free(cc->phc);    /* reopen next time: the device may have gone */
}

static void finish_check(ClockCheck *cc, ClockInputs *in) {
        ClockState old = cc->checked_once ? cc->status.state : _CLOCK_STATE_INVALID;
        char old_reason[sizeof(cc->status.reason)];
        bool changed;

        memcpy(old_reason, cc->status.reason, sizeof(old_reason));
        if (cc->spec.configured)
                measure_local(cc, in);
        in->now_usec = now_usec(CLOCK_REALTIME);
        clock_evaluate(&cc->spec, in, &cc->status);

        if (cc->status.state != old)
                log_debug("%s: clock %s -> %s: %s", cc->ifname, clock_state_to_string(old) ?: "unknown",
                          clock_state_to_string(cc->status.state), cc->status.reason);
        /* A new reason in the same state is a change too: whoever shows
         * the reason (the link's StateReason) must not keep a stale one. */
        changed = cc->status.state != old || strcmp(cc->status.reason, old_reason) != 0;
        cc->checked_once = true;
        if (changed && cc->cb)
                cc->cb(cc, old, &cc->status, cc->userdata);
}

/* This interface's port among ptp4l's answers: the only one, or the one
 * whose PORT_PROPERTIES_NP names ifname. Returns 0, the port set's error,
 * or -ENODEV when there are several ports and none is ifname's. */
static int select_port(const char *ifname, const PmcReply *ports, const PmcReply *props, ClockInputs *in) {
        if (!ports)
                return -ETIMEDOUT;
        if (ports->error < 0)
                return ports->error;

        in->n_ports = ports->n_answers;
        if (ports->n_answers <= 1) {
                in->port_ds = ports->msg.data.port_ds;
                return 0;
        }
        if (!props || props->error < 0)
                return -ENODEV;
        for (size_t i = 0; i < props->n_answers; i++) {
                const PtpPortPropertiesNp *pp = &props->answers[i].data.port_properties_np;

                if (strcmp(pp->interface, ifname) != 0)
                        continue;
                for (size_t j = 0; j < ports->n_answers; j++) {
                        const PtpPortDataSet *pd = &ports->answers[j].data.port_ds;

                        if (pd->port_identity.port_number == pp->port_identity.port_number) {
                                in->port_ds = *pd;
                                return 0;
                        }
                }
        }
        return -ENODEV;
}

/* Say in the log which socket ptp4l answered on, once per change. */
static void log_socket(ClockCheck *cc) {
        const char *p = pmc_client_reached_path(cc->pmc);

        if (!p || (cc->socket_logged && strcmp(p, cc->socket_logged) == 0))
                return;
        log_info("%s: clock check asks ptp4l on %s", cc->ifname, p);
        free(cc->socket_logged);
        cc->socket_logged = strdup(p);
}

/* What ptp4l said, for the checks that ask only part of it. A failed check
 * forgets it, and the subscription with it (a ptp4l that comes back is
 * another process, with no subscribers). */
static void keep_cache(ClockCheck *cc, const ClockInputs *in) {
        if (in->ptp4l_error < 0) {
                cc->have_cache = false;
                cc->subscribed = false;
                cc->subscribe_at = 0;
                return;
        }
        cc->cache = *in;
        cc->cache.ptp4l_socket = NULL;        /* set again by each check */
        cc->have_cache = in->port_ds_error == 0;
        log_socket(cc);
}

/* Fill in from the replies of one query (all ids or some). */
static void take_replies(ClockCheck *cc, const PmcReply *replies, size_t n, ClockInputs *in,
                         const PmcReply **ret_ports, const PmcReply **ret_props) {
        for (size_t i = 0; i < n; i++) {
                const PmcReply *r = &replies[i];

                switch (r->management_id) {
                case PTP_MID_PORT_DATA_SET:
                        if (ret_ports)
                                *ret_ports = r;
                        break;
                case PTP_MID_PORT_PROPERTIES_NP:
                        if (ret_props)
                                *ret_props = r;
                        break;
                case PTP_MID_TIME_STATUS_NP:
                        in->time_status_error = r->error;
                        if (r->error == 0)
                                in->time_status = r->msg.data.time_status_np;
                        break;
                case PTP_MID_CURRENT_DATA_SET:
                        in->current_ds_error = r->error;
                        if (r->error == 0)
                                in->current_ds = r->msg.data.current_ds;
                        break;
                case PTP_MID_TIME_PROPERTIES_DATA_SET:
                        in->time_properties_error = r->error;
                        if (r->error == 0)
                                in->time_properties = r->msg.data.time_properties_ds;
                        break;
                default:
                        break;
                }
                if (r->error < 0 && r->error != -ETIMEDOUT)
                        log_debug("%s: ptp4l %s: %s (error id 0x%04x)", cc->ifname,
                                  ptp_mgmt_id_to_string(r->management_id), strerror(-r->error),
                                  r->msg.error_code);
        }
}

static void on_pmc_done(PmcClient *c, int error, const PmcReply *replies, size_t n, void *userdata) {
        ClockCheck *cc = userdata;
        const PmcReply *ports = NULL, *props = NULL;
        ClockInputs in = {
                .ifname = cc->ifname,
                .ptp4l_error = error,
                .ptp4l_socket = pmc_client_server_path(c),
                .ptp4l_timeout_usec = cc->timeout_usec,
        };

        take_replies(cc, replies, n, &in, &ports, &props);
        in.port_ds_error = select_port(cc->ifname, ports, props, &in);
        cc->checks_since_full = 0;
        keep_cache(cc, &in);
        finish_check(cc, &in);
}

/* A check that asked only for what notifications do not bring: the rest
 * comes from the cache. */
static void on_pmc_part_done(PmcClient *c, int error, const PmcReply *replies, size_t n, void *userdata) {
        ClockCheck *cc = userdata;
        ClockInputs in = cc->cache;

        in.ifname = cc->ifname;
        in.ptp4l_error = error;
        in.ptp4l_socket = pmc_client_server_path(c);
        in.ptp4l_timeout_usec = cc->timeout_usec;
        take_replies(cc, replies, n, &in, NULL, NULL);
        keep_cache(cc, &in);
        finish_check(cc, &in);
}

int clock_check_run_now(ClockCheck *cc) {
        ClockInputs in = {};
        int r;

        if (!cc->spec.configured) {
                finish_check(cc, &in);
                return 0;
        }
        if (pmc_client_busy(cc->pmc))
                return 0;

        r = pmc_client_query(cc->pmc, query_ids, ELEMENTSOF(query_ids), cc->timeout_usec, on_pmc_done, cc);
        if (r < 0) {
                /* No ptp4l to send to: that is this check's result, not a failure. */
                in.ptp4l_error = r;
                in.ptp4l_socket = cc->spec.ptp4l_socket ?: PMC_DEFAULT_SOCKET " or " PMC_FALLBACK_SOCKET;
                in.ptp4l_timeout_usec = cc->timeout_usec;
                keep_cache(cc, &in);
                finish_check(cc, &in);
        }
        return 0;
}

/* A TIME_STATUS_NP notification is as new as an answer while Syncs keep
 * coming: ptp4l changes the data set only when it takes a Sync, and then
 * notifies. Two sync intervals (at least two checks) without one, and the
 * check asks. */
static bool time_sync_current(const ClockCheck *cc, uint64_t now) {
        int lsi = cc->cache.port_ds.log_sync_interval;
        uint64_t sync, window;

        lsi = lsi < -10 ? -10 : lsi > 10 ? 10 : lsi;    /* 1 ms .. 1024 s */
        sync = lsi >= 0 ? USEC_PER_SEC << lsi : USEC_PER_SEC >> -lsi;
        window = 2 * (sync > cc->interval_usec ? sync : cc->interval_usec);

        return cc->time_sync_at > 0 && now - cc->time_sync_at <= window;
}

static void on_subscribed(PmcClient *c, int error, const PmcReply *replies, size_t n, void *userdata) {
        ClockCheck *cc = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        int r = error < 0 ? error : n > 0 ? replies[0].error : -EBADMSG;

        if (r == 0) {
                if (!cc->subscribed)
                        log_info("%s: ptp4l on %s sends notifications (port state, time sync) for %d s, renewed every %llu s",
                                 cc->ifname, pmc_client_server_path(c), SUBSCRIBE_DURATION_S,
                                 (unsigned long long) (SUBSCRIBE_RENEW_USEC / USEC_PER_SEC));
                cc->subscribed = true;
                cc->refused_logged = false;
                cc->subscribe_at = now + SUBSCRIBE_RENEW_USEC;
                return;
        }
        if (cc->subscribed || !cc->refused_logged)
                log_info("%s: ptp4l on %s %s SUBSCRIBE_EVENTS_NP (%s): polling every check",
                         cc->ifname, pmc_client_server_path(c), r == -EREMOTEIO ? "refuses" : "does not answer",
                         r == -EREMOTEIO ? ptp_mgmt_error_to_string(replies[0].msg.error_code) ?: "error status"
                                         : strerror(-r));
        cc->refused_logged = true;
        cc->subscribed = false;
        /* Refused: ask again now and then (ptp4l may be replaced by one that
         * knows it). Unanswered: at the next renewal's pace. */
        cc->subscribe_at = now + (r == -EREMOTEIO ? SUBSCRIBE_RETRY_USEC : SUBSCRIBE_RENEW_USEC);
}

static void maybe_subscribe(ClockCheck *cc) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        static const PtpNotifyEvent events[] = { PTP_NOTIFY_PORT_STATE, PTP_NOTIFY_TIME_SYNC };

        if (!cc->sub || pmc_client_busy(cc->sub) || now < cc->subscribe_at || !cc->have_cache)
                return;
        if (pmc_client_subscribe(cc->sub, events, ELEMENTSOF(events), SUBSCRIBE_DURATION_S, cc->timeout_usec,
                                 on_subscribed, cc) < 0)
                cc->subscribe_at = now + cc->interval_usec;   /* no ptp4l to send to: the check says so */
}

/* ptp4l's notifications: a port state comes at once into the status (no
 * request); a TIME_STATUS_NP replaces the next check's request for it. */
static void on_notify(PmcClient *c, const PtpMgmtMessage *m, void *userdata) {
        ClockCheck *cc = userdata;
        ClockInputs in;

        cc->n_notifications++;
        if (!cc->have_cache)
                return;
        switch (m->management_id) {
        case PTP_MID_TIME_STATUS_NP:
                cc->cache.time_status = m->data.time_status_np;
                cc->cache.time_status_error = 0;
                cc->time_sync_at = now_usec(CLOCK_MONOTONIC);
                break;
        case PTP_MID_PORT_DATA_SET:
                if (cc->cache.n_ports > 1 &&
                    m->data.port_ds.port_identity.port_number != cc->cache.port_ds.port_identity.port_number)
                        break;                /* another port of this ptp4l */
                if (m->data.port_ds.port_state == cc->cache.port_ds.port_state)
                        break;
                cc->cache.port_ds = m->data.port_ds;
                log_debug("%s: ptp4l notifies port state %s", cc->ifname,
                          ptp_port_state_to_string(m->data.port_ds.port_state) ?: "unknown");
                in = cc->cache;
                in.ifname = cc->ifname;
                in.ptp4l_socket = pmc_client_server_path(cc->pmc);
                finish_check(cc, &in);
                break;
        default:
                break;
        }
}

/* The periodic check: all data sets while polling, and while subscribed
 * only what no notification brings (TIME_PROPERTIES_DATA_SET, and
 * TIME_STATUS_NP when no Sync was notified lately), all of them every
 * FULL_CHECK_EVERY-th time. */
static void check_periodic(ClockCheck *cc) {
        uint16_t ids[2];
        size_t n = 0;
        ClockInputs in = {};
        int r;

        maybe_subscribe(cc);
        if (!cc->spec.configured || !cc->subscribed || !cc->have_cache ||
            ++cc->checks_since_full >= FULL_CHECK_EVERY) {
                (void) clock_check_run_now(cc);
                return;
        }
        if (pmc_client_busy(cc->pmc))
                return;
        if (!time_sync_current(cc, now_usec(CLOCK_MONOTONIC)))
                ids[n++] = PTP_MID_TIME_STATUS_NP;
        ids[n++] = PTP_MID_TIME_PROPERTIES_DATA_SET;
        r = pmc_client_query(cc->pmc, ids, n, cc->timeout_usec, on_pmc_part_done, cc);
        if (r < 0) {
                in.ifname = cc->ifname;
                in.ptp4l_error = r;
                in.ptp4l_socket = pmc_client_server_path(cc->pmc);
                in.ptp4l_timeout_usec = cc->timeout_usec;
                keep_cache(cc, &in);
                finish_check(cc, &in);
        }
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        ClockCheck *cc = userdata;
        int r;

        check_periodic(cc);
        r = sd_event_source_set_time_relative(s, cc->interval_usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(s, SD_EVENT_ON);
        if (r < 0)
                log_warning_errno(r, "%s: cannot re-arm the clock check timer: %m", cc->ifname);
        return 0;
}

static uint64_t timeout_for(uint64_t interval_usec) {
        uint64_t t = interval_usec / 2;

        if (t > USEC_PER_SEC)
                t = USEC_PER_SEC;
        if (t < 100 * USEC_PER_MSEC)
                t = 100 * USEC_PER_MSEC;
        return t;
}

int clock_check_start(ClockCheck *cc, uint64_t interval_usec) {
        int r;

        if (interval_usec == 0)
                interval_usec = CLOCK_CHECK_DEFAULT_INTERVAL_USEC;
        cc->interval_usec = interval_usec;
        cc->timeout_usec = timeout_for(interval_usec);

        cc->timer = sd_event_source_disable_unref(cc->timer);
        r = sd_event_add_time_relative(cc->event, &cc->timer, CLOCK_MONOTONIC, interval_usec, 0, on_timer, cc);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(cc->timer, "clock-check");
        r = sd_event_source_set_enabled(cc->timer, SD_EVENT_ON);
        if (r < 0)
                return r;

        return clock_check_run_now(cc);
}

int clock_check_new(sd_event *e, const char *ifname, const ClockSpec *spec, int phc_index,
                    clock_check_changed_fn cb, void *userdata, ClockCheck **ret) {
        _cleanup_(clock_check_freep) ClockCheck *cc = NULL;
        int r;

        if (!e || !ifname || !spec)
                return -EINVAL;

        cc = calloc(1, sizeof(*cc));
        if (!cc)
                return -ENOMEM;
        cc->event = sd_event_ref(e);
        cc->spec = *spec;
        cc->spec.ptp4l_socket = NULL;
        cc->phc_index = phc_index < 0 ? -1 : phc_index;
        cc->cb = cb;
        cc->userdata = userdata;
        cc->interval_usec = CLOCK_CHECK_DEFAULT_INTERVAL_USEC;
        cc->timeout_usec = timeout_for(cc->interval_usec);
        cc->ifname = strdup(ifname);
        if (!cc->ifname)
                return -ENOMEM;
        if (spec->ptp4l_socket) {
                cc->spec.ptp4l_socket = strdup(spec->ptp4l_socket);
                if (!cc->spec.ptp4l_socket)
                        return -ENOMEM;
        }

        cc->status.phc_offset_method = _PHC_OFFSET_METHOD_INVALID;
        if (spec->configured) {
                clock_status_set(&cc->status, CLOCK_STATE_UNSYNCED, "not checked yet");
                r = pmc_client_new(e, cc->spec.ptp4l_socket, spec->domain, spec->transport_specific, NULL,
                                   &cc->pmc);
                if (r < 0)
                        return r;
                r = pmc_client_new(e, cc->spec.ptp4l_socket, spec->domain, spec->transport_specific, NULL,
                                   &cc->sub);
                if (r < 0)
                        return r;
                pmc_client_set_notify(cc->sub, on_notify, cc);
        } else
                clock_status_set(&cc->status, CLOCK_STATE_NOT_CONFIGURED, "the schedule has no clock section");

        *ret = TAKE_PTR(cc);
        return 0;
}

ClockCheck *clock_check_free(ClockCheck *cc) {
        if (!cc)
                return NULL;
        cc->timer = sd_event_source_disable_unref(cc->timer);
        if (cc->subscribed) {
                /* End the subscription (a SET without events), not waiting for
                 * the answer: else ptp4l keeps sending to a socket that is gone
                 * until the duration ends. */
                pmc_client_cancel(cc->sub);
                (void) pmc_client_subscribe(cc->sub, NULL, 0, 0, cc->timeout_usec, NULL, NULL);
        }
        pmc_client_free(cc->pmc);
        pmc_client_free(cc->sub);
        phc_clock_free(cc->phc);
        free(cc->socket_logged);
        free(cc->spec.ptp4l_socket);
        free(cc->ifname);
        sd_event_unref(cc->event);
        free(cc);
        return NULL;
}

const ClockStatus *clock_check_status(const ClockCheck *cc) {
        return &cc->status;
}

const char *clock_check_socket(const ClockCheck *cc) {
        return cc->pmc ? pmc_client_reached_path(cc->pmc) : NULL;
}

uint64_t clock_check_requests(const ClockCheck *cc) {
        return cc->pmc ? pmc_client_requests(cc->pmc) + pmc_client_requests(cc->sub) : 0;
}

uint64_t clock_check_notifications(const ClockCheck *cc) {
        return cc->n_notifications;
}

bool clock_check_subscribed(const ClockCheck *cc) {
        return cc->subscribed;
}

bool clock_check_running(const ClockCheck *cc) {
        return cc->pmc && pmc_client_busy(cc->pmc);
}

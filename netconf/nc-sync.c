/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd keeps, for the origin netconf, what a datastore says: the
 * documents tbsd keeps compared with the datastore's, the difference given
 * in one ApplySchedulesIfGeneration, which tbsd takes only while its kept
 * documents are those the module compared with (the module's copy of
 * them, else ListSchedulesGeneration). For a commit (the candidate,
 * nc-commit.c), at netconfd's start and in the reconcile of the heartbeat
 * (the running datastore). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-diff.h"
#include "nc-sil-internal.h"
#include "nc-tbsd.h"

/* The reconcile (below) is due: after an apply tbsd left unanswered, and
 * at next_reconcile_usec (CLOCK_MONOTONIC). */
static bool reconcile_pending;
static uint64_t next_reconcile_usec;

struct batch {
        const struct change *changes;
        uint64_t deadline_usec;
        uint64_t generation;
};

/* ApplySchedulesIfGeneration(documents, removed, "netconf", deadline,
 * generation): tbsd refuses it, changing nothing, once the deadline passed
 * (an apply this module stopped waiting for is never made later), and when
 * the documents it keeps are no longer those of the generation the
 * difference was made against (GenerationChanged). */
static int build_batch(sd_bus *bus, sd_bus_message **m, void *arg) {
        const struct batch *b = arg;
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_APPLY_SCHEDULES_IF_GENERATION);

        if (r >= 0)
                r = sd_bus_message_open_container(*m, 'a', "(ss)");
        for (const struct change *c = b->changes; r >= 0 && c; c = c->next)
                if (c->json)
                        r = sd_bus_message_append(*m, "(ss)", c->ifname, c->json);
        if (r >= 0)
                r = sd_bus_message_close_container(*m);
        if (r >= 0)
                r = sd_bus_message_open_container(*m, 'a', "s");
        for (const struct change *c = b->changes; r >= 0 && c; c = c->next)
                if (!c->json)
                        r = sd_bus_message_append(*m, "s", c->ifname);
        if (r >= 0)
                r = sd_bus_message_close_container(*m);
        if (r >= 0)
                r = sd_bus_message_append(*m, "stt", ORIGIN, b->deadline_usec, b->generation);
        return r;
}

static int build_list(sd_bus *bus, sd_bus_message **m, void *arg) {
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_LIST_SCHEDULES_GENERATION);

        (void) arg;
        return r < 0 ? r : sd_bus_message_append(*m, "s", ORIGIN);
}

/* tbsd's Peer.Ping, answered by sd-bus in tbsd without its methods'
 * work: whether tbsd answers within the answer time, before an apply
 * that may wait the apply time (a commit fails fast while tbsd is stopped). */
static int build_ping(sd_bus *bus, sd_bus_message **m, void *arg) {
        (void) arg;
        return sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, "org.freedesktop.DBus.Peer",
                                              "Ping");
}

/* The documents of origin netconf tbsd keeps and their generation
 * (ListSchedulesGeneration), waiting at most timeout_usec: 0 and *ret,
 * *ret_generation, or <0 and *error. */
static int kept_documents(uint64_t timeout_usec, struct doc **ret, uint64_t *ret_generation, char **error) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct doc *head = NULL, **tail = &head;
        int r = nc_tbsd_call(build_list, NULL, timeout_usec, &e, &reply);

        if (r < 0)
                nc_tbsd_error_text(&e, r, "netconf: ListSchedulesGeneration", timeout_usec, error);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sss)");
        while (r > 0) {
                const char *ifname, *json, *origin;
                struct doc *d;

                r = sd_bus_message_read(reply, "(sss)", &ifname, &json, &origin);
                if (r <= 0)
                        break;
                d = calloc(1, sizeof(*d));
                if (!d || !(d->ifname = strdup(ifname)) || !(d->json = strdup(json))) {
                        free_docs(d);
                        r = -ENOMEM;
                        break;
                }
                *tail = d;
                tail = &d->next;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
        if (r >= 0)
                r = sd_bus_message_read(reply, "t", ret_generation);
        if (r < 0 && !*error && asprintf(error, "netconf: cannot read tbsd's documents: %s", strerror(-r)) < 0)
                *error = NULL;
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        if (r < 0) {
                free_docs(head);
                return r;
        }
        *ret = head;
        return 0;
}

/* The documents of origin netconf tbsd kept at the generation seen, as
 * the last listing or the last apply this module made left them: what a
 * commit's difference is made against, without listing them again. tbsd
 * refuses the apply when its documents changed since (another caller of
 * the schedule group, a reload, a restart: its generation starts anew);
 * the module then lists them and tries once more. */
static struct doc *seen;
static uint64_t seen_generation;
static bool seen_known;

static void forget_seen(void) {
        free_docs(seen);
        seen = NULL;
        seen_known = false;
}

/* Give tbsd changes against the generation seen; on its answer, seen
 * becomes what tbsd keeps now. Returns 0, or -errno with e set by the
 * call. */
static int apply_changes(const struct change *changes, sd_bus_error *e) {
        sd_bus_message *reply = NULL;
        struct batch b = { changes, nc_now_usec() + nc_times.apply_usec, seen_generation };
        uint64_t t0 = nc_now_usec(), generation;
        int r;

        /* Waits a little past the deadline: tbsd's answer at the deadline
         * still arrives. */
        r = nc_tbsd_call(build_batch, &b, nc_times.apply_usec + nc_times.answer_usec, e, &reply);
        nc_last_match.apply_usec += nc_now_usec() - t0;
        if (r >= 0)
                r = sd_bus_message_skip(reply, "asas");
        if (r >= 0)
                r = sd_bus_message_read(reply, "t", &generation);
        if (r >= 0)
                r = nc_kept_take(&seen, changes);
        if (r >= 0)
                seen_generation = generation;
        else
                forget_seen();
        sd_bus_message_unref(reply);
        return r;
}

/* Make tbsd keep, for the origin netconf, exactly the documents of want
 * (a datastore's interfaces, none with a translation error): compare them
 * with what tbsd keeps (ListSchedules, answered within list_timeout_usec, or
 * nothing is sent) and give tbsd the difference in one
 * ApplySchedulesBefore (one load; all or nothing) with the deadline
 * the apply time from now. The one function for a commit (want: the
 * candidate), netconfd's start and the reconcile (want: the running
 * datastore). Returns the number of interfaces changed; -EAGAIN when tbsd
 * did not answer (an apply left unanswered is refused by tbsd past its
 * deadline, and a reconcile is due once it answers); another -errno when
 * tbsd refused (*error: its lines, newline-separated) or memory ran out
 * (*error NULL). */
/* Without a startup configuration (--no-startup, --factory-startup, and
 * so after every <restart> of such a server) the running datastore starts
 * empty because netconfd knows nothing, not because the controller removed
 * the schedules (issue 46). The documents of origin netconf tbsd keeps at
 * that start are then left alone, each until the datastore gives its
 * interface a schedule; one added behind the datastore later is taken
 * back as with a startup configuration. */
static bool unspoken_pending;           /* the next make_tbsd_match() notes what tbsd keeps */
static char **unspoken;                 /* interfaces whose kept document the datastore does not speak for */
static size_t n_unspoken;

static bool is_unspoken(const char *ifname) {
        for (size_t i = 0; i < n_unspoken; i++)
                if (strcmp(unspoken[i], ifname) == 0)
                        return true;
        return false;
}

static int note_unspoken(const struct doc *kept) {
        for (const struct doc *k = kept; k; k = k->next) {
                char **v = realloc(unspoken, (n_unspoken + 1) * sizeof(*v));

                if (!v)
                        return -ENOMEM;
                unspoken = v;
                v[n_unspoken] = strdup(k->ifname);
                if (!v[n_unspoken])
                        return -ENOMEM;
                n_unspoken++;
        }
        return 0;
}

/* The datastore speaks for ifname from now on. */
static void spoken_for(const char *ifname) {
        for (size_t i = 0; i < n_unspoken; i++)
                if (strcmp(unspoken[i], ifname) == 0) {
                        free(unspoken[i]);
                        unspoken[i] = unspoken[--n_unspoken];
                        return;
                }
}

static void forget_unspoken(void) {
        for (size_t i = 0; i < n_unspoken; i++)
                free(unspoken[i]);
        free(unspoken);
        unspoken = NULL;
        n_unspoken = 0;
        unspoken_pending = false;
}

struct nc_match_times nc_last_match;

static bool left_alone(const char *ifname) {
        return is_unspoken(ifname);
}

int make_tbsd_match(const struct doc *want, uint64_t list_timeout_usec, char **error) {
        struct change *changes = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t t0;
        int r = 0, n = 0;

        *error = NULL;
        nc_last_match = (struct nc_match_times) { 0, 0, 0 };
        for (int attempt = 0; attempt < 2; attempt++) {
                bool listed = !seen_known;

                if (listed) {
                        uint64_t generation;

                        t0 = nc_now_usec();
                        forget_seen();
                        r = kept_documents(list_timeout_usec, &seen, &generation, error);
                        nc_last_match.list_usec += nc_now_usec() - t0;
                        if (r < 0)
                                return nc_tbsd.answering ? r : -EAGAIN;
                        seen_generation = generation;
                        seen_known = true;
                        if (unspoken_pending) {
                                unspoken_pending = false;
                                r = note_unspoken(seen);
                        }
                } else if (attempt == 0) {
                        sd_bus_message *pong = NULL;

                        /* The first call waits at most list_timeout_usec,
                         * as a listing would. */
                        t0 = nc_now_usec();
                        r = nc_tbsd_call(build_ping, NULL, list_timeout_usec, &e, &pong);
                        nc_last_match.ping_usec = nc_now_usec() - t0;
                        sd_bus_message_unref(pong);
                        if (r < 0) {
                                nc_tbsd_error_text(&e, r, "netconf: Ping", list_timeout_usec, error);
                                sd_bus_error_free(&e);
                                return nc_tbsd.answering ? r : -EAGAIN;
                        }
                }
                nc_changes_free(changes);
                changes = NULL;
                if (r >= 0)
                        r = nc_diff(want, seen, left_alone, &changes, &n);
                /* Against a fresh listing nothing to change is nothing to
                 * send; against the copy, tbsd is asked whether it still
                 * keeps what the copy says (an empty apply at its generation). */
                if (r < 0 || (listed && !changes))
                        break;
                r = apply_changes(changes, &e);
                if (r >= 0 || listed || !sd_bus_error_has_name(&e, TBS_ERROR_GENERATION_CHANGED))
                        break;
                sd_bus_error_free(&e);          /* changed since the copy: listed, once more */
        }
        if (r < 0 && sd_bus_error_is_set(&e)) {
                nc_tbsd_error_text(&e, r, "netconf: " TBS_METHOD_APPLY_SCHEDULES_IF_GENERATION, nc_times.apply_usec,
                                   error);
                if (nc_tbsd_no_answer(r, &e)) {
                        reconcile_pending = true;
                        r = -EAGAIN;
                }
        } else if (r < 0 && !*error && r != -ENOMEM && asprintf(error, "netconf: tbsd's answer: %s", strerror(-r)) < 0)
                *error = NULL;
        /* tbsd has what the datastore has: from now on it speaks for these. */
        for (const struct doc *d = want; d && r >= 0; d = d->next)
                if (d->json)
                        spoken_for(d->ifname);
        sd_bus_error_free(&e);
        nc_changes_free(changes);
        return r < 0 ? r : n;
}

/* At netconfd's start the running datastore (its startup configuration,
 * or empty with --no-startup) is what tbsd must keep for the origin
 * netconf: make_tbsd_match() gives tbsd what differs. A refusal, or a
 * tbsd that does not answer, stops netconfd with the reason in its log: a
 * server whose running datastore is not what the interfaces run would
 * answer <get-config> falsely. */
static status_t match_at_start(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        bool oom;
        struct doc *docs = docs_of(running ? running->root : NULL, &oom);
        status_t res = oom ? ERR_INTERNAL_MEM : NO_ERR;
        char *error = NULL;
        int r;

        for (const struct doc *d = docs; d && res == NO_ERR; d = d->next)
                if (d->error) {
                        log_error("\ntbsd: the startup configuration: %s\n", d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                }
        if (res == NO_ERR) {
                /* tbsd may be busy starting: it has the apply's time. */
                r = make_tbsd_match(docs, nc_times.apply_usec, &error);
                if (r < 0) {
                        log_error("\ntbsd: the startup configuration refused: %s\n", error ? error : "out of memory");
                        res = ERR_NCX_OPERATION_FAILED;
                } else if (r > 0)
                        log_info("\ntbsd: %d interfaces given to tbsd as the running datastore has them\n", r);
        }
        free(error);
        free_docs(docs);
        return res;
}

/* The reconcile, from the heartbeat: after an apply tbsd left unanswered
 * (tbsd refuses it past its deadline, but may have finished it just
 * before), and every reconcile time (a rollback inside netconfd after the
 * commit check, a document of origin netconf changed over the bus): tbsd
 * is made to keep the running datastore's documents. */
static void reconcile(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        bool oom;
        struct doc *docs = docs_of(running ? running->root : NULL, &oom);
        char *error = NULL;
        int r = oom ? -ENOMEM : make_tbsd_match(docs, nc_times.answer_usec, &error);

        if (r == -EAGAIN)
                goto out;       /* once tbsd answers */
        if (r < 0)
                log_error("\ntbsd: tbsd does not take the running datastore's documents: %s\n",
                          error ? error : "out of memory");
        else if (r > 0 || reconcile_pending)
                log_info("\ntbsd: %d interfaces differed from the running datastore: tbsd has them as the "
                         "datastore does\n", r);
        reconcile_pending = false;
        next_reconcile_usec = nc_now_usec() + nc_times.reconcile_usec;
out:
        free(error);
        free_docs(docs);
}

/* netconfd rolled a confirmed commit back (nc-confirmed.c): tbsd is
 * given the running datastore now (tried again by the heartbeat while it
 * does not answer). */
void nc_sync_rolled_back(void) {
        reconcile_pending = true;
        reconcile();
}

/* The heartbeat, once a second from netconfd's timer: tbsd pinged
 * (nc_tbsd_ping()), and the reconcile when it is due and tbsd answers. */
void nc_sync_heartbeat(void) {
        nc_tbsd_ping();
        if (nc_tbsd.answering && (reconcile_pending || nc_now_usec() >= next_reconcile_usec))
                reconcile();
}


status_t nc_sync_start(bool no_startup) {
        status_t res;

        unspoken_pending = no_startup;
        if (unspoken_pending)
                log_info("\ntbsd: no startup configuration: tbsd's schedules of origin netconf are kept\n");
        res = match_at_start();

        next_reconcile_usec = nc_now_usec() + nc_times.reconcile_usec;
        return res;
}

void nc_sync_stop(void) {
        forget_unspoken();
        forget_seen();
}

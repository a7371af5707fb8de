/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd keeps, for the origin netconf, what a datastore says: the
 * documents tbsd keeps (ListSchedules) compared with the datastore's, the
 * difference given in one ApplySchedulesBefore. For a commit (the
 * candidate, nc-commit.c), at netconfd's start and in the reconcile of the
 * heartbeat (the running datastore). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-sil-internal.h"
#include "nc-tbsd.h"

/* What tbsd is to change: an interface's new document (json) or its
 * removal (json NULL). */
struct change {
        const char *ifname;
        const char *json;
        struct change *next;
};

static void free_changes(struct change *c) {
        while (c) {
                struct change *next = c->next;
                free(c);
                c = next;
        }
}

static bool add_change(struct change ***tail, const char *ifname, const char *json) {
        struct change *c = calloc(1, sizeof(*c));

        if (!c)
                return false;
        *c = (struct change) { ifname, json, NULL };
        **tail = c;
        *tail = &c->next;
        return true;
}

/* The reconcile (below) is due: after an apply tbsd left unanswered, and
 * at next_reconcile_usec (CLOCK_MONOTONIC). */
static bool reconcile_pending;
static uint64_t next_reconcile_usec;

struct batch {
        const struct change *changes;
        uint64_t deadline_usec;
};

/* ApplySchedulesBefore(documents, removed, "netconf", deadline): tbsd
 * refuses it, changing nothing, once the deadline passed, so an apply this
 * module stopped waiting for is never made later. */
static int build_batch(sd_bus *bus, sd_bus_message **m, void *arg) {
        const struct batch *b = arg;
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_APPLY_SCHEDULES_BEFORE);

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
                r = sd_bus_message_append(*m, "st", ORIGIN, b->deadline_usec);
        return r;
}

static int build_list(sd_bus *bus, sd_bus_message **m, void *arg) {
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_LIST_SCHEDULES);

        (void) arg;
        return r < 0 ? r : sd_bus_message_append(*m, "s", ORIGIN);
}

/* The documents of origin netconf tbsd keeps (ListSchedules), waiting at
 * most timeout_usec: 0 and *ret, or <0 and *error. */
static int kept_documents(uint64_t timeout_usec, struct doc **ret, char **error) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct doc *head = NULL, **tail = &head;
        int r = nc_tbsd_call(build_list, NULL, timeout_usec, &e, &reply);

        if (r < 0)
                nc_tbsd_error_text(&e, r, "netconf: ListSchedules", timeout_usec, error);
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

int make_tbsd_match(const struct doc *want, uint64_t list_timeout_usec, char **error) {
        struct doc *kept = NULL;
        struct change *changes = NULL, **tail = &changes;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct batch b = { NULL, 0 };
        uint64_t t0 = nc_now_usec();
        int r, n = 0;

        *error = NULL;
        nc_last_match = (struct nc_match_times) { 0, 0 };
        r = kept_documents(list_timeout_usec, &kept, error);
        nc_last_match.list_usec = nc_now_usec() - t0;
        if (r < 0)
                return nc_tbsd.answering ? r : -EAGAIN;
        if (unspoken_pending) {
                unspoken_pending = false;
                r = note_unspoken(kept);
        }
        for (const struct doc *d = want; d && r >= 0; d = d->next) {
                const struct doc *k = find_doc(kept, d->ifname);

                if (!d->json || (k && strcmp(k->json, d->json) == 0))
                        continue;
                r = add_change(&tail, d->ifname, d->json) ? 0 : -ENOMEM;
                n++;
        }
        for (const struct doc *k = kept; k && r >= 0; k = k->next) {
                const struct doc *d = find_doc(want, k->ifname);

                /* An entry the translation cannot say now (tbsd's probe or the
                 * TX queues not read) is not a removal: it keeps its document. */
                if ((d && (d->json || d->error)) || is_unspoken(k->ifname))
                        continue;
                r = add_change(&tail, k->ifname, NULL) ? 0 : -ENOMEM;
                n++;
        }
        if (r >= 0 && changes) {
                b = (struct batch) { changes, nc_now_usec() + nc_times.apply_usec };
                /* Waits a little past the deadline: tbsd's answer at the
                 * deadline still arrives. */
                t0 = nc_now_usec();
                r = nc_tbsd_call(build_batch, &b, nc_times.apply_usec + nc_times.answer_usec, &e, &reply);
                nc_last_match.apply_usec = nc_now_usec() - t0;
                if (r < 0) {
                        nc_tbsd_error_text(&e, r, "netconf: ApplySchedulesBefore", nc_times.apply_usec, error);
                        if (nc_tbsd_no_answer(r, &e)) {
                                reconcile_pending = true;
                                r = -EAGAIN;
                        }
                }
        }
        /* tbsd has what the datastore has: from now on it speaks for these. */
        for (const struct doc *d = want; d && r >= 0; d = d->next)
                if (d->json)
                        spoken_for(d->ifname);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        free_changes(changes);
        free_docs(kept);
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
}

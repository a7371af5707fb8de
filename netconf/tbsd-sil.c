/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module (SIL) of yuma123's netconfd for the YANG modules tbsd,
 * ieee802-dot1q-sched and ieee802-dot1dc-sched-if (the .yang files of netconf/, with
 * the deviations of netconf/tbsd-deviations.yang): netconfd loads it for
 * --module=tbsd from its --runpath as libtbsd.so and calls the three
 * functions below by the module's name (docs/netconf.md).
 *
 * On <commit> (target candidate, netconfd's default), before the
 * candidate becomes the running datastore, every interface whose
 * configuration of the two modules changed is turned into tbsd's schedule
 * document (nc-translate.c), and all of them (and the interfaces whose
 * schedule went) are given to tbsd in one call,
 * org.tsn.Tbs.Manager.ApplySchedules(documents, removed, "netconf"), over
 * one system bus connection kept open: tbsd checks every document, keeps
 * and applies them in one load, and puts every one back when any is
 * refused. A refusal ends the commit with one rpc-error per line of
 * tbsd's reason, and netconfd keeps the running datastore as it was. The
 * server never touches qdiscs itself: it needs no capability, only the
 * bus and tbsd's --schedule-group.
 *
 * The operational gate parameters (config false leaves of the gate
 * parameter table) are read from Link.Describe() when a client asks.
 * At netconfd's start the running datastore's documents are given to tbsd
 * (and its other netconf documents removed); <validate> asks tbsd
 * (nc-validate.c) and a confirmed commit rolled back gives tbsd the
 * running datastore again (nc-confirmed.c); tbsd's Event signal and the
 * links' State become notifications. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <xmlstring.h>

#include "agt.h"
#include "agt_commit_validate.h"
#include "agt_commit_complete.h"
#include "agt_not.h"
#include "agt_timer.h"
#include "agt_util.h"
#include "cfg.h"
#include "getcb.h"
#include "log.h"
#include "obj.h"
#include "ncxconst.h"
#include "ncxmod.h"
#include "ncx.h"
#include "dlq.h"
#include "rpc.h"
#include "ses.h"
#include "status.h"
#include "typ.h"
#include "val.h"
#include "val_util.h"
#include "xml_util.h"

#include "nc-confirmed.h"
#include "nc-doc.h"
#include "nc-oper.h"
#include "nc-tbsd.h"
#include "nc-validate.h"
#include "nc-translate.h"

#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define TBSD_MODULE "tbsd"
#define TBSD_REVISION "2026-12-07"
#define SCHED_MODULE "ieee802-dot1q-sched"
#define SCHED_REVISION "2026-12-07"
/* The published modules (issue 48): 802.1DC's table on each interface,
 * and what tbsd does otherwise than they say. */
#define DC_SCHED_MODULE "ieee802-dot1dc-sched-if"
#define DC_SCHED_REVISION "2024-09-26"
#define DEVIATIONS_MODULE "tbsd-deviations"
#define ORIGIN "netconf"

static ncx_module_t *tbsd_mod;
static ncx_module_t *sched_mod;

/* netconfd's value tree -> the translation's tree (defaults left out:
 * tbsd applies its own). */
static void free_nodes(struct nc_node *n) {
        while (n) {
                struct nc_node *next = n->next;
                free_nodes(n->child);
                free((char *) n->value);
                free(n);
                n = next;
        }
}

static struct nc_node *nodes_of(const val_value_t *val) {
        struct nc_node *n = calloc(1, sizeof(*n));
        struct nc_node **tail;

        if (!n)
                return NULL;
        n->name = (const char *) val->name;
        n->module = (const char *) val_get_mod_name(val);
        if (typ_is_simple(val->btyp)) {
                xmlChar *s = val_make_sprintf_string(val);
                if (!s) {
                        free(n);
                        return NULL;
                }
                n->value = strdup((const char *) s);
                m__free(s);
                if (!n->value) {
                        free(n);
                        return NULL;
                }
                return n;
        }
        tail = &n->child;
        for (val_value_t *c = val_get_first_child(val); c; c = val_get_next_child(c)) {
                if (val_is_virtual(c) || (c->obj && !obj_is_config(c->obj)))
                        continue;
                if (typ_is_simple(c->btyp) && val_set_by_default(c))
                        continue;
                *tail = nodes_of(c);
                if (!*tail) {
                        free_nodes(n);
                        return NULL;
                }
                tail = &(*tail)->next;
        }
        return n;
}

/* The documents of a datastore's interfaces (nc-doc.h). */
static void free_docs(struct doc *d) {
        while (d) {
                struct doc *next = d->next;
                free(d->ifname);
                free(d->json);
                free(d->error);
                free(d);
                d = next;
        }
}

static struct doc *docs_of(const val_value_t *root, bool *oom) {
        struct doc *head = NULL, **tail = &head;
        val_value_t *ifs = root ? val_find_child(root, (const xmlChar *) "ietf-interfaces",
                                                 (const xmlChar *) "interfaces") : NULL;

        *oom = false;
        for (val_value_t *e = ifs ? val_get_first_child(ifs) : NULL; e; e = val_get_next_child(e)) {
                struct nc_node *n;
                struct doc *d;
                const char *name = NULL;

                if (xmlStrcmp(e->name, (const xmlChar *) "interface") != 0)
                        continue;
                n = nodes_of(e);
                d = calloc(1, sizeof(*d));
                if (!n || !d) {
                        free_nodes(n);
                        free(d);
                        *oom = true;
                        break;
                }
                nc_translate_interface(n, &name, &d->json, &d->error);
                d->ifname = strdup(name ? name : "");
                free_nodes(n);
                *tail = d;
                tail = &d->next;
                if (!d->ifname) {
                        *oom = true;
                        break;
                }
        }
        return head;
}

static const struct doc *find_doc(const struct doc *d, const char *ifname) {
        for (; d; d = d->next)
                if (strcmp(d->ifname, ifname) == 0)
                        return d;
        return NULL;
}

/* The rpc-error of a refused commit: line, and the interface's path
 * (none when ifname is NULL). */
static void record(ses_cb_t *scb, xml_msg_hdr_t *msghdr, const char *ifname, const char *line) {
        ncx_errinfo_t info;
        char path[128];

        memset(&info, 0, sizeof(info));
        info.error_message = (xmlChar *) (line ? line : "out of memory");
        snprintf(path, sizeof(path), "/if:interfaces/if:interface[if:name='%s']", ifname ? ifname : "");
        agt_record_error_errinfo(scb, msghdr, NCX_LAYER_CONTENT, ERR_NCX_OPERATION_FAILED, NULL, NCX_NT_NONE,
                                 NULL, ifname ? NCX_NT_STRING : NCX_NT_NONE, ifname ? path : NULL, &info);
}

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
        int r = sd_bus_message_new_method_call(bus, m, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager",
                                               "ApplySchedulesBefore");

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
        int r = sd_bus_message_new_method_call(bus, m, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager",
                                               "ListSchedules");

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

static int make_tbsd_match(const struct doc *want, uint64_t list_timeout_usec, char **error) {
        struct doc *kept = NULL;
        struct change *changes = NULL, **tail = &changes;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        struct batch b = { NULL, 0 };
        int r, n = 0;

        *error = NULL;
        r = kept_documents(list_timeout_usec, &kept, error);
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

                if ((d && d->json) || is_unspoken(k->ifname))
                        continue;
                r = add_change(&tail, k->ifname, NULL) ? 0 : -ENOMEM;
                n++;
        }
        if (r >= 0 && changes) {
                b = (struct batch) { changes, nc_now_usec() + nc_times.apply_usec };
                /* Waits a little past the deadline: tbsd's answer at the
                 * deadline still arrives. */
                r = nc_tbsd_call(build_batch, &b, nc_times.apply_usec + nc_times.answer_usec, &e, &reply);
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

/* A refused ApplySchedules (or ValidateSchedules): one rpc-error per
 * line of tbsd's answer, each with the path of the interface the line
 * names ("ApplySchedules(IFACE) by ...", "ValidateSchedules(IFACE) by
 * ..."), when it names one. */
static void record_lines(ses_cb_t *scb, xml_msg_hdr_t *msghdr, char *text) {
        for (char *p = text; p && *p;) {
                char *e = strchr(p, '\n'), *close;
                char ifname[64] = "";
                size_t head = strncmp(p, "ApplySchedules(", 15) == 0      ? 15
                              : strncmp(p, "ValidateSchedules(", 18) == 0 ? 18
                                                                           : 0;

                if (e)
                        *e = 0;
                if (head && (close = strchr(p + head, ')')) && (size_t) (close - p) - head < sizeof(ifname))
                        snprintf(ifname, sizeof(ifname), "%.*s", (int) ((size_t) (close - p) - head), p + head);
                record(scb, msghdr, ifname[0] ? ifname : NULL, p);
                p = e ? e + 1 : NULL;
        }
}

/* <commit>: tbsd is given the candidate's documents (what differs from
 * what it keeps) before netconfd makes the candidate the running
 * datastore; a refusal ends the commit and changes nothing. <validate>
 * (dry_run): tbsd checks the documents of the root named and keeps
 * nothing. */
static status_t check_root(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate, bool dry_run) {
        bool oom;
        struct doc *now = docs_of(candidate, &oom);
        status_t res = NO_ERR;
        char *error = NULL, line[256];

        if (oom) {
                record(scb, msghdr, NULL, NULL);
                res = ERR_INTERNAL_MEM;
                goto out;
        }
        for (const struct doc *d = now; d; d = d->next)
                if (d->error) {
                        record(scb, msghdr, d->ifname, d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                        goto out;
                }
        /* Fail fast: netconfd would serve no one while it waited. */
        if (!nc_tbsd.answering) {
                snprintf(line, sizeof(line),
                         "netconf: tbsd has not answered for %llu s (stopped or busy): the %s is refused and "
                         "nothing was applied; %s again when it answers",
                         (unsigned long long) ((nc_now_usec() - nc_tbsd.since_usec) / 1000000),
                         dry_run ? "validate" : "commit", dry_run ? "validate" : "commit");
                record(scb, msghdr, NULL, line);
                res = ERR_NCX_OPERATION_FAILED;
                goto out;
        }
        /* One call, one load: all of them in force, or none changed. */
        if ((dry_run ? nc_validate_documents(now, &error) : make_tbsd_match(now, nc_times.answer_usec, &error)) < 0) {
                if (error)
                        record_lines(scb, msghdr, error);
                else
                        record(scb, msghdr, NULL, NULL);
                res = ERR_NCX_OPERATION_FAILED;
        }
out:
        free(error);
        free_docs(now);
        return res;
}

static status_t commit_validate(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate) {
        return check_root(scb, msghdr, candidate, false);
}

static status_t validate_check(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *root) {
        return check_root(scb, msghdr, root, true);
}

/* Operational state: the module's view of each interface, tbsd's last
 * Link.Describe() answer. A <get> reads several leaves of an interface:
 * a view younger than half a second is used as it is; an older one is
 * asked again, waiting at most the answer time, and only while tbsd answers:
 * a stopped or busy tbsd does not hold netconfd (and every other session)
 * up, the <get> answers from the last view and says how old it is
 * (tbsd:state's view-age-ms and view-stale). */
#define VIEW_FRESH_USEC 500000ULL

struct view {
        char *ifname;
        char *json;          /* NULL: tbsd has no such link, or never answered */
        uint64_t at_usec;    /* when tbsd gave it (CLOCK_MONOTONIC) */
        bool stale;          /* the last asking went unanswered */
        struct nc_oper oper; /* json parsed, when oper_ok */
        bool oper_ok;
        struct view *next;
};
static struct view *views;

static void free_views(void) {
        while (views) {
                struct view *next = views->next;
                free(views->ifname);
                free(views->json);
                free(views);
                views = next;
        }
}

static int build_describe(sd_bus *bus, sd_bus_message **m, void *arg) {
        char *path = NULL;
        int r = sd_bus_path_encode("/org/tsn/Tbs/link", arg, &path);

        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, m, "org.tsn.Tbs", path, "org.tsn.Tbs.Link", "Describe");
        free(path);
        return r;
}

/* The view of ifname, asked again when older than VIEW_FRESH_USEC and
 * tbsd answers; NULL when out of memory. */
static struct view *view_of(const char *ifname) {
        struct view *v;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *json = NULL;
        uint64_t now = nc_now_usec();
        int r;

        for (v = views; v; v = v->next)
                if (strcmp(v->ifname, ifname) == 0)
                        break;
        if (!v) {
                v = calloc(1, sizeof(*v));
                if (!v || !(v->ifname = strdup(ifname))) {
                        free(v);
                        return NULL;
                }
                v->next = views;
                views = v;
        }
        if (v->at_usec && now - v->at_usec < VIEW_FRESH_USEC)
                return v;
        if (!nc_tbsd.answering) {
                v->stale = true;
                return v;
        }
        r = nc_tbsd_call(build_describe, (void *) ifname, nc_times.answer_usec, &e, &reply);
        if (r < 0 && nc_tbsd_no_answer(r, &e))
                v->stale = true;
        else {
                if (r >= 0 && sd_bus_message_read(reply, "s", &json) < 0)
                        json = NULL;
                free(v->json);
                v->json = json ? strdup(json) : NULL;
                v->at_usec = now;
                v->stale = false;
                v->oper_ok = v->json && nc_oper_from_describe(v->json, &v->oper) >= 0;
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return v;
}

/* The gate parameters in force on ifname, from its view. */
static int describe(const char *ifname, struct nc_oper *o) {
        const struct view *v = view_of(ifname);

        if (!v || !v->oper_ok)
                return -1;
        *o = v->oper;
        return 0;
}

/* tbsd's container state of an interface (a virtual container, filled
 * from Describe() when a <get> reaches it). */
static status_t add_leaf(val_value_t *parent, const char *leaf, const char *value) {
        status_t res = NO_ERR;
        val_value_t *v;

        if (!value || !value[0])
                return NO_ERR;
        v = agt_make_leaf(parent->obj, (const xmlChar *) leaf, (const xmlChar *) value, &res);
        if (v)
                val_add_child(v, parent);
        return res;
}

static status_t add_number(val_value_t *parent, const char *leaf, bool is_signed, uint64_t n) {
        char buf[32];

        if (is_signed)
                snprintf(buf, sizeof(buf), "%lld", (long long) (int64_t) n);
        else
                snprintf(buf, sizeof(buf), "%llu", (unsigned long long) n);
        return add_leaf(parent, leaf, buf);
}

static status_t add_queue(val_value_t *dst, const struct nc_oper_queue *q) {
        status_t res = NO_ERR;
        val_value_t *entry = agt_make_list(dst->obj, (const xmlChar *) "txqueue", &res), *h;

        if (!entry)
                return res;
        val_add_child(entry, dst);
        res = add_number(entry, "queue", false, q->queue);
        if (res == NO_ERR && q->have_stats) {
                res = add_number(entry, "sent-packets", false, q->sent_packets);
                if (res == NO_ERR)
                        res = add_number(entry, "sent-bytes", false, q->sent_bytes);
                if (res == NO_ERR)
                        res = add_number(entry, "dropped", false, q->dropped);
                if (res == NO_ERR)
                        res = add_number(entry, "overlimits", false, q->overlimits);
        }
        if (res == NO_ERR && q->monitor) {
                h = agt_make_object(entry->obj, (const xmlChar *) "launch-histogram", &res);
                if (h) {
                        val_add_child(h, entry);
                        res = add_number(h, "count", false, q->launch_count);
                        if (res == NO_ERR)
                                res = add_number(h, "early", false, q->launch_early);
                        if (res == NO_ERR)
                                res = add_number(h, "late", false, q->launch_late);
                        if (res == NO_ERR && q->have_launch_minmax)
                                res = add_number(h, "min-ns", true, (uint64_t) q->launch_min_ns);
                        if (res == NO_ERR && q->have_launch_minmax)
                                res = add_number(h, "max-ns", true, (uint64_t) q->launch_max_ns);
                }
        }
        if (res == NO_ERR)
                res = val_gen_index_chain(entry->obj, entry);
        return res;
}

/* The interface name of a virtual node's interface entry: the entry is
 * the node's parent (up = 1) or grandparent (up = 2); NULL without one. */
static const char *entry_ifname(const val_value_t *virval, int up) {
        const val_value_t *iface = virval->parent;
        const val_value_t *name;

        if (up == 2 && iface)
                iface = iface->parent;
        name = iface ? val_find_child(iface, (const xmlChar *) "ietf-interfaces", (const xmlChar *) "name") : NULL;
        return name ? (const char *) VAL_STR(name) : NULL;
}

static status_t state_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        const char *ifname = entry_ifname(virval, 1);
        struct nc_oper_state *st;
        struct view *v;
        status_t res = NO_ERR;

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!ifname)
                return ERR_NCX_SKIPPED;
        v = view_of(ifname);
        if (!v)
                return ERR_INTERNAL_MEM;
        /* How old what follows is: said even when there is nothing. */
        if (v->at_usec)
                res = add_number(dstval, "view-age-ms", false, (nc_now_usec() - v->at_usec) / 1000);
        if (res == NO_ERR)
                res = add_leaf(dstval, "view-stale", v->stale ? "true" : "false");
        if (res != NO_ERR || !v->json)
                return res;
        st = malloc(sizeof(*st));
        if (!st)
                return ERR_INTERNAL_MEM;
        if (nc_oper_state_from_describe(v->json, st) < 0) {
                free(st);
                return res;
        }
        res = add_leaf(dstval, "link-state", st->link_state);
        if (res == NO_ERR)
                res = add_leaf(dstval, "link-state-reason", st->link_reason);
        if (res == NO_ERR)
                res = add_leaf(dstval, "clock-state", st->clock_state);
        if (res == NO_ERR)
                res = add_leaf(dstval, "clock-state-reason", st->clock_reason);
        for (unsigned i = 0; i < st->n_queues && res == NO_ERR; i++)
                res = add_queue(dstval, &st->queues[i]);
        free(st);
        return res;
}

static const char *const oper_leaves[] = {
        "oper-gate-states", "oper-cycle-time-extension", "config-pending", "supported-list-max",
        "supported-interval-max", "tick-granularity", NULL,
};

static status_t oper_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        const char *ifname = entry_ifname(virval, 2);
        const char *leaf = (const char *) virval->name;
        struct nc_oper o;
        struct timespec now;
        char buf[32];

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (strcmp(leaf, "supported-list-max") == 0)
                snprintf(buf, sizeof(buf), "%d", NC_OPER_MAX_ENTRIES);
        else if (strcmp(leaf, "supported-interval-max") == 0)
                snprintf(buf, sizeof(buf), "%d", 2147483647);
        else {
                if (!ifname || describe(ifname, &o) < 0 || !o.taprio)
                        return ERR_NCX_SKIPPED;
                if (strcmp(leaf, "oper-gate-states") == 0) {
                        clock_gettime(o.clockid, &now);
                        snprintf(buf, sizeof(buf), "%u",
                                 nc_oper_gate_states(&o, (int64_t) now.tv_sec * 1000000000LL + now.tv_nsec));
                } else if (strcmp(leaf, "oper-cycle-time-extension") == 0)
                        snprintf(buf, sizeof(buf), "%lld", (long long) o.cycle_time_extension_ns);
                else if (strcmp(leaf, "config-pending") == 0)
                        snprintf(buf, sizeof(buf), "%s", o.change_pending ? "true" : "false");
                else if (strcmp(leaf, "tick-granularity") == 0) {
                        /* The resolution of the schedule's clock, which
                         * taprio's timer runs on, in tenths of ns. */
                        struct timespec res;
                        if (clock_getres(o.clockid, &res) < 0 || res.tv_sec > 0 || res.tv_nsec > 429496729)
                                return ERR_NCX_SKIPPED;
                        snprintf(buf, sizeof(buf), "%ld", res.tv_nsec * 10);
                }
                else
                        return ERR_NCX_SKIPPED;
        }
        return val_set_simval_obj(dstval, dstval->obj, (const xmlChar *) buf);
}

/* The standard's oper-* containers of a gate parameter table (virtual
 * containers, filled from Describe() when a <get> reaches them). */
static const char *const oper_containers[] = {
        "oper-control-list", "oper-cycle-time", "oper-base-time", "config-change-time", "current-time", NULL,
};

/* operation-name, an identityref: its value made directly (a QName of
 * this module's namespace and the identity's local name). */
static status_t add_operation(val_value_t *entry, const char *name) {
        obj_template_t *obj = obj_find_child(entry->obj, obj_get_mod_name(entry->obj),
                                             (const xmlChar *) "operation-name");
        val_value_t *v;

        if (!obj || !sched_mod)
                return ERR_NCX_DEF_NOT_FOUND;
        v = val_new_value();
        if (!v)
                return ERR_INTERNAL_MEM;
        val_init_from_template(v, obj);
        v->v.idref.nsid = ncx_get_mod_nsid(sched_mod);
        v->v.idref.name = xml_strdup((const xmlChar *) name);
        v->v.idref.identity = ncx_find_identity(sched_mod, (const xmlChar *) name, FALSE);
        if (!v->v.idref.name) {
                val_free_value(v);
                return ERR_INTERNAL_MEM;
        }
        val_add_child(v, entry);
        return NO_ERR;
}

static status_t add_gate_entry(val_value_t *dst, const struct nc_oper *o, unsigned i) {
        status_t res = NO_ERR;
        val_value_t *entry = agt_make_list(dst->obj, (const xmlChar *) "gate-control-entry", &res);

        if (!entry)
                return res;
        val_add_child(entry, dst);
        res = add_number(entry, "index", false, i);
        if (res == NO_ERR)
                res = add_operation(entry, nc_oper_operation_name(o, i));
        if (res == NO_ERR)
                res = add_number(entry, "time-interval-value", false, o->interval_ns[i]);
        if (res == NO_ERR)
                res = add_number(entry, "gate-states-value", false, nc_oper_entry_gates(o, i));
        if (res == NO_ERR)
                res = val_gen_index_chain(entry->obj, entry);
        return res;
}

static status_t add_ptp_time(val_value_t *dst, int64_t ns) {
        uint64_t sec;
        uint32_t nsec;
        status_t res;

        if (nc_oper_ptp_time(ns, &sec, &nsec) < 0)
                return ERR_NCX_SKIPPED;
        res = add_number(dst, "seconds", false, sec);
        return res == NO_ERR ? add_number(dst, "nanoseconds", false, nsec) : res;
}

static status_t oper_container_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval,
                                   val_value_t *dstval) {
        const char *ifname = entry_ifname(virval, 2);
        const char *node = (const char *) virval->name;
        struct nc_oper *o;
        struct timespec now;
        int64_t now_ns, at;
        status_t res = NO_ERR;

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!ifname)
                return ERR_NCX_SKIPPED;
        o = malloc(sizeof(*o));
        if (!o)
                return ERR_INTERNAL_MEM;
        if (describe(ifname, o) < 0 || !o->taprio) {
                free(o);
                return ERR_NCX_SKIPPED;
        }
        clock_gettime(o->clockid, &now);
        now_ns = (int64_t) now.tv_sec * 1000000000LL + now.tv_nsec;
        if (strcmp(node, "oper-control-list") == 0) {
                for (unsigned i = 0; i < o->n_entries && res == NO_ERR; i++)
                        res = add_gate_entry(dstval, o, i);
        } else if (strcmp(node, "oper-cycle-time") == 0) {
                uint32_t num, den;

                if (o->n_entries == 0 || nc_oper_rational(o->cycle_time_ns, &num, &den) < 0)
                        res = ERR_NCX_SKIPPED;
                else if ((res = add_number(dstval, "numerator", false, num)) == NO_ERR)
                        res = add_number(dstval, "denominator", false, den);
        } else if (strcmp(node, "oper-base-time") == 0)
                res = o->n_entries > 0 ? add_ptp_time(dstval, o->base_time_ns) : ERR_NCX_SKIPPED;
        else if (strcmp(node, "config-change-time") == 0)
                res = nc_oper_config_change_time(o, now_ns, &at) < 0 ? ERR_NCX_SKIPPED : add_ptp_time(dstval, at);
        else if (strcmp(node, "current-time") == 0)
                res = add_ptp_time(dstval, now_ns);
        else
                res = ERR_NCX_SKIPPED;
        free(o);
        return res;
}

/* The operational nodes of one gate parameter table (tbsd's own, or
 * 802.1DC's: the same names in its module), read when asked. */
static const char *const table_modules[] = { SCHED_MODULE, DC_SCHED_MODULE, NULL };

static status_t add_table_oper(val_value_t *table, const char *module) {
        status_t res = NO_ERR;

        for (size_t i = 0; table && oper_containers[i] && res == NO_ERR; i++) {
                obj_template_t *obj = obj_find_child(table->obj, (const xmlChar *) module,
                                                     (const xmlChar *) oper_containers[i]);
                val_value_t *v;

                if (!obj || val_find_child(table, (const xmlChar *) module,
                                           (const xmlChar *) oper_containers[i]))
                        continue;
                v = val_new_value();
                if (!v)
                        return ERR_INTERNAL_MEM;
                val_init_virtual(v, oper_container_get, obj);
                val_add_child(v, table);
        }

        for (size_t i = 0; table && oper_leaves[i] && res == NO_ERR; i++) {
                val_value_t *v;

                if (val_find_child(table, (const xmlChar *) module, (const xmlChar *) oper_leaves[i]))
                        continue;
                v = agt_make_virtual_leaf(table->obj, (const xmlChar *) oper_leaves[i], oper_get, &res);
                if (v)
                        val_add_child(v, table);
        }
        return res;
}

/* Every gate parameter table of the running datastore gets the
 * operational leaves, read when asked: after each commit (a commit may
 * have put a table there, or replaced one), and after the startup. */
static status_t add_oper_leaves(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        val_value_t *ifs = running && running->root
                                   ? val_find_child(running->root, (const xmlChar *) "ietf-interfaces",
                                                    (const xmlChar *) "interfaces")
                                   : NULL;
        status_t res = NO_ERR;

        for (val_value_t *e = ifs ? val_get_first_child(ifs) : NULL; e && res == NO_ERR; e = val_get_next_child(e)) {
                obj_template_t *state_obj = obj_find_child(e->obj, (const xmlChar *) TBSD_MODULE,
                                                           (const xmlChar *) "state");

                if (state_obj && !val_find_child(e, (const xmlChar *) TBSD_MODULE, (const xmlChar *) "state")) {
                        val_value_t *v = val_new_value();

                        if (!v)
                                return ERR_INTERNAL_MEM;
                        val_init_virtual(v, state_get, state_obj);
                        val_add_child(v, e);
                }

                for (size_t m = 0; table_modules[m] && res == NO_ERR; m++)
                        res = add_table_oper(val_find_child(e, (const xmlChar *) table_modules[m],
                                                            (const xmlChar *) "gate-parameter-table"),
                                             table_modules[m]);
        }
        return res;
}

/* Phase 1: load the modules' definitions, take part in every commit. */
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision);
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision) {
        agt_profile_t *profile = agt_get_profile();
        status_t res;

        if (xmlStrcmp(modname, (const xmlChar *) TBSD_MODULE) != 0)
                return ERR_NCX_UNKNOWN_MODULE;
        if (nc_tbsd_settings() < 0)
                return ERR_NCX_INVALID_VALUE;
        if (revision && xmlStrcmp(revision, (const xmlChar *) TBSD_REVISION) != 0)
                return ERR_NCX_WRONG_VERSION;
        /* Edits reach tbsd at <commit> only: an edit-config written to
         * running directly would leave tbsd out. */
        if (profile->agt_targ != NCX_AGT_TARG_CANDIDATE) {
                log_error("\ntbsd: netconfd must run with --target=candidate (its default): tbsd applies the "
                          "schedules at <commit>\n");
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        }
        /* Saved first: netconfd applies it once every module is loaded. */
        res = ncxmod_load_deviation((const xmlChar *) DEVIATIONS_MODULE, &profile->agt_savedevQ);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) SCHED_MODULE, (const xmlChar *) SCHED_REVISION,
                                         &profile->agt_savedevQ, &sched_mod);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) DC_SCHED_MODULE, (const xmlChar *) DC_SCHED_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION,
                                         &profile->agt_savedevQ, &tbsd_mod);
        if (res == NO_ERR)
                res = agt_commit_validate_register((const xmlChar *) TBSD_MODULE, commit_validate);
        if (res == NO_ERR)
                res = agt_commit_complete_register((const xmlChar *) TBSD_MODULE, add_oper_leaves);
        return res;
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
 * does not answer), and its oper leaves are added to the restored tree. */
static void rolled_back(void) {
        reconcile_pending = true;
        reconcile();
        add_oper_leaves();
}

/* The heartbeat, once a second from netconfd's timer: tbsd pinged
 * (nc_tbsd_ping()), and the reconcile when it is due and tbsd answers. */
static void heartbeat(void) {
        nc_tbsd_ping();
        if (nc_tbsd.answering && (reconcile_pending || nc_now_usec() >= next_reconcile_usec))
                reconcile();
}

/* Notifications (RFC 5277): tbsd's Event signal becomes link-event, a
 * change of a Link's State property link-state-change. One bus connection
 * is kept for the signals; netconfd's timer reads it once a second (the
 * server's loop is not ours to add a descriptor to). */
static sd_bus *signal_bus;
static uint32 signal_timer;

/* The last State seen per interface: PropertiesChanged carries State at
 * every change of StateReason too. */
struct seen {
        char *ifname;
        char *state;
        struct seen *next;
};
static struct seen *seen_states;

/* Remember state for ifname; true when it differs from the last one. */
static bool state_changed(const char *ifname, const char *state) {
        struct seen *x;

        for (x = seen_states; x; x = x->next)
                if (strcmp(x->ifname, ifname) == 0)
                        break;
        if (x && strcmp(x->state, state) == 0)
                return false;
        if (!x) {
                x = calloc(1, sizeof(*x));
                if (!x || !(x->ifname = strdup(ifname))) {
                        free(x);
                        return true;
                }
                x->next = seen_states;
                seen_states = x;
        }
        free(x->state);
        x->state = strdup(state);
        return true;
}

static void free_seen(void) {
        while (seen_states) {
                struct seen *next = seen_states->next;
                free(seen_states->ifname);
                free(seen_states->state);
                free(seen_states);
                seen_states = next;
        }
}

/* Queue the notification name of module tbsd with leaves (name, value)
 * pairs, NULL-terminated. */
static void notify(const char *name, ...) {
        obj_template_t *obj = tbsd_mod ? ncx_find_object(tbsd_mod, (const xmlChar *) name) : NULL;
        agt_not_msg_t *n = obj ? agt_not_new_notification(obj) : NULL;
        const char *leaf;
        va_list ap;

        if (!n) {
                log_error("\ntbsd: cannot make notification %s\n", name);
                return;
        }
        va_start(ap, name);
        while ((leaf = va_arg(ap, const char *))) {
                const char *value = va_arg(ap, const char *);
                status_t res = NO_ERR;
                val_value_t *v = agt_make_leaf(obj, (const xmlChar *) leaf, (const xmlChar *) value, &res);

                if (v)
                        agt_not_add_to_payload(n, v);
                else
                        log_error("\ntbsd: notification %s: leaf %s '%s': %s\n", name, leaf, value,
                                  get_error_string(res));
        }
        va_end(ap);
        agt_not_queue_notification(n);
}

static int on_event(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *link, *kind, *message;

        (void) userdata;
        (void) ret_error;
        if (sd_bus_message_read(m, "sss", &link, &kind, &message) >= 0)
                notify("link-event", "interface", link, "kind", kind, "message", message, NULL);
        return 0;
}

static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *iface, *prop, *state = NULL, *reason = "";
        char *ifname = NULL;
        int r;

        (void) userdata;
        (void) ret_error;
        if (sd_bus_path_decode(sd_bus_message_get_path(m), "/org/tsn/Tbs/link", &ifname) <= 0)
                return 0;
        r = sd_bus_message_read(m, "s", &iface);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r > 0) {
                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r <= 0)
                        break;
                r = sd_bus_message_read(m, "s", &prop);
                if (r >= 0 && strcmp(prop, "State") == 0)
                        r = sd_bus_message_read(m, "v", "s", &state);
                else if (r >= 0 && strcmp(prop, "StateReason") == 0)
                        r = sd_bus_message_read(m, "v", "s", &reason);
                else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = 1;
        }
        if (r >= 0 && state && state_changed(ifname, state))
                notify("link-state-change", "interface", ifname, "state", state, "reason", reason, NULL);
        free(ifname);
        return 0;
}

static int read_signals(uint32 timer_id, void *cookie) {
        (void) timer_id;
        (void) cookie;
        while (signal_bus && sd_bus_process(signal_bus, NULL) > 0)
                ;
        heartbeat();
        return 0;
}

/* Subscribe, and learn each link's state now (a change is what is told). */
static status_t start_notifications(void) {
        sd_bus_message *reply = NULL;
        int r = sd_bus_open_system(&signal_bus);

        if (r >= 0)
                r = sd_bus_match_signal(signal_bus, NULL, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager", "Event",
                                        on_event, NULL);
        if (r >= 0)
                r = sd_bus_add_match(signal_bus, NULL,
                                     "type='signal',sender='org.tsn.Tbs',interface='org.freedesktop.DBus.Properties',"
                                     "member='PropertiesChanged',arg0='org.tsn.Tbs.Link'",
                                     on_properties, NULL);
        if (r >= 0)
                r = sd_bus_call_method(signal_bus, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager", "ListLinks",
                                       NULL, &reply, "");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        while (r > 0) {
                const char *name, *path, *state;

                r = sd_bus_message_read(reply, "(sos)", &name, &path, &state);
                if (r > 0)
                        state_changed(name, state);
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                log_error("\ntbsd: cannot subscribe to tbsd's signals: %s\n", strerror(-r));
                return ERR_NCX_OPERATION_FAILED;
        }
        return agt_timer_create(1, TRUE, read_signals, NULL, &signal_timer);
}

/* NACM for a user in no NACM group (issue 46). netconfd 2.13 applies its
 * exec-default (permit, RFC 8341's default) to such a user, and denies by
 * default only an operation it flagged "secure": it takes the flag from the
 * extensions nacm:secure and nacm:very-secure of yuma's old NACM draft and
 * not from RFC 8341's nacm:default-deny-all, so kill-session, restart,
 * shutdown, load and set-log-level ran for anyone (docs/netconf.md,
 * "netconfd's known faults"). Every operation of every module loaded gets
 * the flag here except those that only read: such an operation is then
 * denied unless a rule of one of the user's groups permits it (the package
 * ships the group cnc with a rule for each, netconf/nacm-startup.xml). */
static const char *const read_only_rpcs[] = {
        "get", "get-config", "get-schema", "get-data", "close-session", "create-subscription", "get-my-session",
        "no-op", NULL,
};

static bool rpc_reads_only(const obj_template_t *obj) {
        for (size_t i = 0; read_only_rpcs[i]; i++)
                if (xmlStrcmp(obj_get_name(obj), (const xmlChar *) read_only_rpcs[i]) == 0)
                        return true;
        return false;
}

static void deny_by_default_all_but_reads(void) {
        unsigned denied = 0;

        for (ncx_module_t *mod = ncx_get_first_module(); mod; mod = ncx_get_next_module(mod))
                for (obj_template_t *obj = (obj_template_t *) dlq_firstEntry(&mod->datadefQ); obj;
                     obj = (obj_template_t *) dlq_nextEntry(obj))
                        if (obj_is_rpc(obj) && !rpc_reads_only(obj) && !(obj->flags & OBJ_FL_VERY_SECURE)) {
                                obj->flags |= OBJ_FL_VERY_SECURE;
                                denied++;
                        }
        log_info("\ntbsd: %u operations denied by default to users without a NACM rule for them\n", denied);
}

/* netconfd 2.13 unlinks /tmp/ncxserver.sock when it stops serving, not the
 * --ncxserver-sockname it bound, so <restart> (and a start after a stop)
 * found its socket there and failed "Address already in use". At cleanup
 * (after netconfd closed its socket) the file is unlinked unless a server
 * still answers on it (another instance that owns it). */
static char *server_socket;

static void remember_server_socket(void) {
        const xmlChar *name = agt_get_profile()->agt_ncxserver_sockname;

        free(server_socket);
        server_socket = name ? strdup((const char *) name) : NULL;
}

static void unlink_stale_server_socket(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (!server_socket || strlen(server_socket) >= sizeof(sa.sun_path))
                goto out;
        strcpy(sa.sun_path, server_socket);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 && errno == ECONNREFUSED)
                unlink(server_socket);
        if (fd >= 0)
                close(fd);
out:
        free(server_socket);
        server_socket = NULL;
}

/* Phase 2, after the startup configuration. */
status_t y_tbsd_init2(void);
status_t y_tbsd_init2(void) {
        status_t res;

        deny_by_default_all_but_reads();
        remember_server_socket();
        unspoken_pending = !agt_get_profile()->agt_usestartup || agt_get_profile()->agt_factorystartup;
        if (unspoken_pending)
                log_info("\ntbsd: no startup configuration: tbsd's schedules of origin netconf are kept\n");
        res = match_at_start();

        next_reconcile_usec = nc_now_usec() + nc_times.reconcile_usec;
        if (res == NO_ERR)
                res = nc_validate_register(validate_check);
        if (res == NO_ERR)
                res = nc_confirmed_register(rolled_back);
        if (res == NO_ERR)
                res = start_notifications();
        return res == NO_ERR ? add_oper_leaves() : res;
}

void y_tbsd_cleanup(void);
void y_tbsd_cleanup(void) {
        unlink_stale_server_socket();
        nc_validate_unregister();
        nc_confirmed_unregister();
        agt_commit_validate_unregister((const xmlChar *) TBSD_MODULE);
        agt_commit_complete_unregister((const xmlChar *) TBSD_MODULE);
        if (signal_timer)
                agt_timer_delete(signal_timer);
        signal_timer = 0;
        signal_bus = sd_bus_flush_close_unref(signal_bus);
        nc_tbsd_close();
        free_seen();
        free_views();
        forget_unspoken();
        tbsd_mod = NULL;
        sched_mod = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module (SIL) of yuma123's netconfd for the YANG modules tbsd
 * and ieee802-dot1q-sched (netconf/tbsd.yang, netconf/ieee802-dot1q-sched.yang): netconfd loads it for
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
 * (and its other netconf documents removed); a confirmed commit is
 * refused; tbsd's Event signal and the links' State become notifications. */
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

#include "nc-oper.h"
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
#define ORIGIN "netconf"
/* An apply probes the device and installs a tree: give it time. */
#define CALL_TIMEOUT_USEC (120ULL * 1000000ULL)

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

/* The documents of a datastore's interfaces. */
struct doc {
        char *ifname;
        char *json; /* NULL: no schedule */
        char *error;
        struct doc *next;
};

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

/* The bus connection of the calls to tbsd, opened at the first call and
 * kept (a commit used to open one per interface); opened again when it
 * was closed under us (tbsd or the bus restarted). */
static sd_bus *call_bus;

static sd_bus *the_bus(int *r) {
        if (call_bus && sd_bus_is_open(call_bus) > 0) {
                *r = 0;
                return call_bus;
        }
        call_bus = sd_bus_flush_close_unref(call_bus);
        *r = sd_bus_open_system(&call_bus);
        return *r < 0 ? NULL : call_bus;
}

/* Whether a failed call failed on the connection (not an answer of
 * tbsd's or of the bus daemon): worth a new connection and one try more. */
static bool connection_lost(int r, const sd_bus_error *e) {
        return !sd_bus_error_is_set(e) &&
               (r == -ENOTCONN || r == -ECONNRESET || r == -EPIPE || r == -ESHUTDOWN || r == -ECONNREFUSED);
}

/* Send m (built by build on the bus given) and wait for the answer; a
 * connection found closed is opened again and the call sent once more. */
static int call_tbsd(int (*build)(sd_bus *bus, sd_bus_message **m, void *arg), void *arg, sd_bus_error *e,
                     sd_bus_message **reply) {
        int r = 0;

        for (int attempt = 0; attempt < 2; attempt++) {
                sd_bus_message *m = NULL;
                sd_bus *bus = the_bus(&r);

                if (bus)
                        r = build(bus, &m, arg);
                if (r >= 0)
                        r = sd_bus_call(bus, m, CALL_TIMEOUT_USEC, e, reply);
                sd_bus_message_unref(m);
                if (r >= 0 || !connection_lost(r, e))
                        break;
                call_bus = sd_bus_flush_close_unref(call_bus);
        }
        return r;
}

/* *error: the bus error's text, or "WHAT: cannot reach tbsd: ERRNO". */
static void error_text(const sd_bus_error *e, int r, const char *what, char **error) {
        const char *msg = sd_bus_error_is_set(e) ? e->message : strerror(-r);
        size_t len = strlen(msg) + strlen(what) + 64;

        *error = malloc(len);
        if (!*error)
                return;
        if (sd_bus_error_is_set(e))
                strcpy(*error, msg);
        else
                snprintf(*error, len, "%s: cannot reach tbsd: %s", what, msg);
}

struct one_call {
        const char *method, *ifname, *json;
};

static int build_one(sd_bus *bus, sd_bus_message **m, void *arg) {
        const struct one_call *c = arg;
        int r = sd_bus_message_new_method_call(bus, m, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager",
                                               c->method);

        if (r >= 0)
                r = c->json ? sd_bus_message_append(*m, "sss", c->ifname, c->json, ORIGIN)
                            : sd_bus_message_append(*m, "ss", c->ifname, ORIGIN);
        return r;
}

/* One call of org.tsn.Tbs.Manager for one interface (ApplySchedule with
 * json, RemoveSchedule without); *error gets the bus error's text. */
static int tbsd_call(const char *method, const char *ifname, const char *json, char **error) {
        struct one_call c = { method, ifname, json };
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char what[128];
        int r;

        *error = NULL;
        r = call_tbsd(build_one, &c, &e, &reply);
        if (r < 0) {
                snprintf(what, sizeof(what), "%s(%s)", method, ifname);
                error_text(&e, r, what, error);
                if (sd_bus_error_has_name(&e, "org.tsn.Tbs.Error.NoSuchLink") && !json)
                        r = 0; /* nothing to remove: what the commit wants */
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r;
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

/* A <commit> with <confirmed/>: netconfd's rollback of an unconfirmed
 * commit (timeout, <cancel-commit>) restores its copy of the running
 * datastore without asking the modules, so tbsd would keep the schedules
 * of a commit the datastore no longer has. Refused before anything is
 * applied. */
static bool is_confirmed_commit(xml_msg_hdr_t *msghdr) {
        rpc_msg_t *msg = (rpc_msg_t *) (void *) ((char *) msghdr - offsetof(rpc_msg_t, mhdr));

        return msg->rpc_input &&
               val_find_child(msg->rpc_input, val_get_mod_name(msg->rpc_input), NCX_EL_CONFIRMED) != NULL;
}

/* What one commit changes: an interface's new document (json) or its
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

static int build_batch(sd_bus *bus, sd_bus_message **m, void *arg) {
        const struct change *changes = arg;
        int r = sd_bus_message_new_method_call(bus, m, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager",
                                               "ApplySchedules");

        if (r >= 0)
                r = sd_bus_message_open_container(*m, 'a', "(ss)");
        for (const struct change *c = changes; r >= 0 && c; c = c->next)
                if (c->json)
                        r = sd_bus_message_append(*m, "(ss)", c->ifname, c->json);
        if (r >= 0)
                r = sd_bus_message_close_container(*m);
        if (r >= 0)
                r = sd_bus_message_open_container(*m, 'a', "s");
        for (const struct change *c = changes; r >= 0 && c; c = c->next)
                if (!c->json)
                        r = sd_bus_message_append(*m, "s", c->ifname);
        if (r >= 0)
                r = sd_bus_message_close_container(*m);
        if (r >= 0)
                r = sd_bus_message_append(*m, "s", ORIGIN);
        return r;
}

/* A refused ApplySchedules: one rpc-error per line of tbsd's answer, each
 * with the path of the interface the line names ("ApplySchedules(IFACE)
 * by ..."), when it names one. */
static void record_lines(ses_cb_t *scb, xml_msg_hdr_t *msghdr, char *text) {
        static const char head[] = "ApplySchedules(";

        for (char *p = text; p && *p;) {
                char *e = strchr(p, '\n'), *close;
                char ifname[64] = "";

                if (e)
                        *e = 0;
                if (strncmp(p, head, strlen(head)) == 0 && (close = strchr(p + strlen(head), ')')) &&
                    (size_t) (close - p) - strlen(head) < sizeof(ifname))
                        snprintf(ifname, sizeof(ifname), "%.*s", (int) ((size_t) (close - p) - strlen(head)),
                                 p + strlen(head));
                record(scb, msghdr, ifname[0] ? ifname : NULL, p);
                p = e ? e + 1 : NULL;
        }
}

/* Give tbsd every change of the commit in one ApplySchedules (one load);
 * refused, tbsd has changed nothing and the rpc-errors are recorded. */
static status_t apply_changes(ses_cb_t *scb, xml_msg_hdr_t *msghdr, struct change *changes) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *error = NULL;
        int r;

        if (!changes)
                return NO_ERR;
        r = call_tbsd(build_batch, changes, &e, &reply);
        if (r < 0) {
                error_text(&e, r, "ApplySchedules", &error);
                if (error)
                        record_lines(scb, msghdr, error);
                else
                        record(scb, msghdr, NULL, NULL);
                free(error);
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r < 0 ? ERR_NCX_OPERATION_FAILED : NO_ERR;
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

static status_t commit_validate(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        bool oom_new, oom_old;
        struct doc *now = docs_of(candidate, &oom_new);
        struct doc *before = docs_of(running ? running->root : NULL, &oom_old);
        struct change *changes = NULL, **tail = &changes;
        status_t res = NO_ERR;

        if (is_confirmed_commit(msghdr)) {
                record(scb, msghdr, NULL,
                       "netconf: a confirmed commit (<confirmed/>) is not supported: tbsd applies a schedule at "
                       "<commit> and netconfd's rollback would not reach it; commit without <confirmed/>");
                res = ERR_NCX_OPERATION_NOT_SUPPORTED;
                goto out;
        }
        if (oom_new || oom_old) {
                record(scb, msghdr, NULL, NULL);
                res = ERR_INTERNAL_MEM;
                goto out;
        }
        for (const struct doc *d = now; d && res == NO_ERR; d = d->next) {
                const struct doc *old = find_doc(before, d->ifname);
                const char *previous = old ? old->json : NULL;

                if (d->error) {
                        record(scb, msghdr, d->ifname, d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                        break;
                }
                if (!d->json && !previous)
                        continue;
                if (d->json && previous && strcmp(d->json, previous) == 0)
                        continue;
                if (!add_change(&tail, d->ifname, d->json))
                        res = ERR_INTERNAL_MEM;
        }
        /* Interfaces whose whole entry went. */
        for (const struct doc *old = before; old && res == NO_ERR; old = old->next)
                if (old->json && !find_doc(now, old->ifname) && !add_change(&tail, old->ifname, NULL))
                        res = ERR_INTERNAL_MEM;
        if (res == ERR_INTERNAL_MEM)
                record(scb, msghdr, NULL, NULL);
        /* One call, one load: all of them in force, or none changed. */
        if (res == NO_ERR)
                res = apply_changes(scb, msghdr, changes);
out:
        free_changes(changes);
        free_docs(now);
        free_docs(before);
        return res;
}

/* Operational state: Link.Describe() of the interface, kept for half a
 * second (one <get> reads several leaves). */
static struct {
        char ifname[64];
        struct timespec at;
        struct nc_oper oper;
        bool ok;
} described;

/* Link.Describe()'s JSON text for ifname, malloced; NULL when the bus
 * call failed. */
static char *describe_json(const char *ifname) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *path = NULL, *copy = NULL;
        const char *json = NULL;
        int r = sd_bus_path_encode("/org/tsn/Tbs/link", ifname, &path);

        for (int attempt = 0; r >= 0 && attempt < 2; attempt++) {
                sd_bus *bus = the_bus(&r);

                if (bus)
                        r = sd_bus_call_method(bus, "org.tsn.Tbs", path, "org.tsn.Tbs.Link", "Describe", &e, &reply,
                                               "");
                if (r >= 0 || !connection_lost(r, &e))
                        break;
                call_bus = sd_bus_flush_close_unref(call_bus);
                r = 0;
        }
        if (r >= 0)
                r = sd_bus_message_read(reply, "s", &json);
        if (r >= 0 && json)
                copy = strdup(json);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        free(path);
        return copy;
}

static int describe(const char *ifname, struct nc_oper *o) {
        struct timespec now;
        char *json;
        int r = 0;

        clock_gettime(CLOCK_MONOTONIC, &now);
        if (strcmp(described.ifname, ifname) == 0 &&
            (now.tv_sec - described.at.tv_sec) * 1000000000LL + (now.tv_nsec - described.at.tv_nsec) < 500000000LL) {
                *o = described.oper;
                return described.ok ? 0 : -1;
        }
        json = describe_json(ifname);
        if (!json || nc_oper_from_describe(json, o) < 0)
                r = -1;
        free(json);
        snprintf(described.ifname, sizeof(described.ifname), "%s", ifname);
        described.at = now;
        described.oper = *o;
        described.ok = r >= 0;
        return r;
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
        char *json;
        status_t res = NO_ERR;

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!ifname)
                return ERR_NCX_SKIPPED;
        json = describe_json(ifname);
        st = malloc(sizeof(*st));
        if (!st || !json || nc_oper_state_from_describe(json, st) < 0) {
                free(json);
                free(st);
                return ERR_NCX_SKIPPED;
        }
        free(json);
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
        "supported-interval-max", NULL,
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
        obj_template_t *obj = obj_find_child(entry->obj, (const xmlChar *) SCHED_MODULE,
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
                val_value_t *table = val_find_child(e, (const xmlChar *) SCHED_MODULE,
                                                    (const xmlChar *) "gate-parameter-table");
                obj_template_t *state_obj = obj_find_child(e->obj, (const xmlChar *) TBSD_MODULE,
                                                           (const xmlChar *) "state");

                if (state_obj && !val_find_child(e, (const xmlChar *) TBSD_MODULE, (const xmlChar *) "state")) {
                        val_value_t *v = val_new_value();

                        if (!v)
                                return ERR_INTERNAL_MEM;
                        val_init_virtual(v, state_get, state_obj);
                        val_add_child(v, e);
                }

                for (size_t i = 0; table && oper_containers[i] && res == NO_ERR; i++) {
                        obj_template_t *obj = obj_find_child(table->obj, (const xmlChar *) SCHED_MODULE,
                                                             (const xmlChar *) oper_containers[i]);
                        val_value_t *v;

                        if (!obj || val_find_child(table, (const xmlChar *) SCHED_MODULE,
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

                        if (val_find_child(table, (const xmlChar *) SCHED_MODULE, (const xmlChar *) oper_leaves[i]))
                                continue;
                        v = agt_make_virtual_leaf(table->obj, (const xmlChar *) oper_leaves[i], oper_get, &res);
                        if (v)
                                val_add_child(v, table);
                }
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
        if (revision && xmlStrcmp(revision, (const xmlChar *) TBSD_REVISION) != 0)
                return ERR_NCX_WRONG_VERSION;
        /* Edits reach tbsd at <commit> only: an edit-config written to
         * running directly would leave tbsd out. */
        if (profile->agt_targ != NCX_AGT_TARG_CANDIDATE) {
                log_error("\ntbsd: netconfd must run with --target=candidate (its default): tbsd applies the "
                          "schedules at <commit>\n");
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        }
        res = ncxmod_load_module((const xmlChar *) SCHED_MODULE, (const xmlChar *) SCHED_REVISION,
                                 &profile->agt_savedevQ, &sched_mod);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION,
                                         &profile->agt_savedevQ, &tbsd_mod);
        if (res == NO_ERR)
                res = agt_commit_validate_register((const xmlChar *) TBSD_MODULE, commit_validate);
        if (res == NO_ERR)
                res = agt_commit_complete_register((const xmlChar *) TBSD_MODULE, add_oper_leaves);
        return res;
}

/* The origin of the document tbsd keeps for ifname: 1 and *netconf set
 * when tbsd has one, 0 when it has none, <0 when the bus failed. */
static int kept_origin(sd_bus *bus, const char *ifname, bool *netconf) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *json, *origin, *path;
        int r;

        r = sd_bus_call_method(bus, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager", "GetSchedule", &e, &reply,
                               "s", ifname);
        if (r < 0 && sd_bus_error_has_name(&e, "org.tsn.Tbs.Error.NoSuchLink"))
                r = 0;
        else if (r >= 0 && sd_bus_message_read(reply, "sss", &json, &origin, &path) >= 0) {
                *netconf = strcmp(origin, ORIGIN) == 0;
                r = 1;
        } else {
                log_error("\ntbsd: GetSchedule(%s): %s\n", ifname, sd_bus_error_is_set(&e) ? e.message : strerror(-r));
                r = r < 0 ? r : -EIO;
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r;
}

/* At netconfd's start the running datastore (its startup configuration,
 * or empty with --no-startup) is what tbsd must have in force for the
 * origin netconf: every interface's document is given to tbsd
 * (ApplySchedule, which does nothing when that very document is in force
 * already), and a document of origin netconf that tbsd keeps for an
 * interface the datastore has no schedule for is removed. A refusal stops
 * netconfd, with tbsd's line in its log: a server whose running datastore
 * is not what the interfaces run would answer <get-config> falsely. */
static status_t reconcile(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        bool oom;
        struct doc *docs = docs_of(running ? running->root : NULL, &oom);
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        status_t res = NO_ERR;
        char *error = NULL;
        int r;

        if (oom) {
                res = ERR_INTERNAL_MEM;
                goto out;
        }
        for (const struct doc *d = docs; d && res == NO_ERR; d = d->next) {
                if (d->error) {
                        log_error("\ntbsd: the startup configuration: %s\n", d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                } else if (d->json && tbsd_call("ApplySchedule", d->ifname, d->json, &error) < 0) {
                        log_error("\ntbsd: the startup configuration's interface %s refused: %s\n", d->ifname,
                                  error ? error : "out of memory");
                        res = ERR_NCX_OPERATION_FAILED;
                }
                free(error);
                error = NULL;
        }
        if (res != NO_ERR)
                goto out;
        /* Without a startup configuration (--no-startup, --factory-startup,
         * and so after every <restart> of such a server) the running
         * datastore starts empty because netconfd knows nothing, not because
         * the controller removed the schedules: tbsd keeps them (issue 46). */
        if (!agt_get_profile()->agt_usestartup || agt_get_profile()->agt_factorystartup) {
                log_info("\ntbsd: no startup configuration: tbsd's schedules of origin netconf are kept\n");
                goto out;
        }
        bus = the_bus(&r);
        if (bus)
                r = sd_bus_call_method(bus, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager", "ListLinks", &e,
                                       &reply, "");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        while (r >= 0) {
                const char *name, *path, *state;
                const struct doc *d;
                bool netconf = false;

                r = sd_bus_message_read(reply, "(sos)", &name, &path, &state);
                if (r <= 0)
                        break;
                d = find_doc(docs, name);
                if (d && d->json)
                        continue;
                r = kept_origin(bus, name, &netconf);
                if (r > 0 && netconf) {
                        log_info("\ntbsd: %s: tbsd keeps a schedule of origin netconf the running datastore "
                                 "does not have: removed\n", name);
                        r = tbsd_call("RemoveSchedule", name, NULL, &error);
                        if (r < 0)
                                log_error("\ntbsd: %s\n", error ? error : "out of memory");
                        free(error);
                        error = NULL;
                }
        }
        if (r < 0) {
                log_error("\ntbsd: cannot read tbsd's schedules: %s\n",
                          sd_bus_error_is_set(&e) ? e.message : strerror(-r));
                res = ERR_NCX_OPERATION_FAILED;
        }
out:
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        free_docs(docs);
        return res;
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
        res = reconcile();

        if (res == NO_ERR)
                res = start_notifications();
        return res == NO_ERR ? add_oper_leaves() : res;
}

void y_tbsd_cleanup(void);
void y_tbsd_cleanup(void) {
        unlink_stale_server_socket();
        agt_commit_validate_unregister((const xmlChar *) TBSD_MODULE);
        agt_commit_complete_unregister((const xmlChar *) TBSD_MODULE);
        if (signal_timer)
                agt_timer_delete(signal_timer);
        signal_timer = 0;
        signal_bus = sd_bus_flush_close_unref(signal_bus);
        call_bus = sd_bus_flush_close_unref(call_bus);
        free_seen();
        tbsd_mod = NULL;
        sched_mod = NULL;
}

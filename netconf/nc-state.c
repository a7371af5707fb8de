/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational state: the config false nodes of each gate parameter
 * table (tbsd's ieee802-dot1q-sched and 802.1DC's) and tbsd:state, as
 * virtual nodes read when a <get> reaches them, from tbsd's
 * Link.Describe() (nc-oper.c reads its document). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/taprio-limits.h"
#include "nc-oper.h"
#include "nc-preemption-state.h"
#include "nc-sil-internal.h"
#include "nc-tbsd.h"

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

void free_views(void) {
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
        int r = sd_bus_path_encode(TBS_LINK_PATH_PREFIX, arg, &path);

        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, path, TBS_LINK_IFACE, TBS_METHOD_DESCRIBE);
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
        /* tbsd's limits, the ones its parser checks (lib/taprio-limits.h):
         * an interval longer than the longest cycle cannot run. */
        if (strcmp(leaf, "supported-list-max") == 0)
                snprintf(buf, sizeof(buf), "%d", TBS_TAPRIO_MAX_ENTRIES);
        else if (strcmp(leaf, "supported-interval-max") == 0)
                snprintf(buf, sizeof(buf), "%d", TBS_TAPRIO_MAX_CYCLE_NS);
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
        "oper-control-list", "oper-cycle-time", "oper-base-time", "config-change-time", "current-time",
        "supported-cycle-max", NULL,
};

/* ns as a rational-grouping (seconds). */
static status_t add_rational(val_value_t *dst, int64_t ns) {
        uint32_t num, den;
        status_t res;

        if (nc_oper_rational(ns, &num, &den) < 0)
                return ERR_NCX_SKIPPED;
        res = add_number(dst, "numerator", false, num);
        return res == NO_ERR ? add_number(dst, "denominator", false, den) : res;
}

/* operation-name, an identityref: its value made directly (a QName of
 * this module's namespace and the identity's local name). */
static status_t add_operation(val_value_t *entry, const char *name) {
        obj_template_t *obj = obj_find_child(entry->obj, obj_get_mod_name(entry->obj),
                                             (const xmlChar *) "operation-name");
        ncx_module_t *sched_mod = ncx_find_module((const xmlChar *) SCHED_MODULE, (const xmlChar *) SCHED_REVISION);
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
        /* The kernel's longest cycle, whatever the interface runs. */
        if (strcmp(node, "supported-cycle-max") == 0)
                return add_rational(dstval, TBS_TAPRIO_MAX_CYCLE_NS);
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
        } else if (strcmp(node, "oper-cycle-time") == 0)
                res = o->n_entries > 0 ? add_rational(dstval, o->cycle_time_ns) : ERR_NCX_SKIPPED;
        else if (strcmp(node, "oper-base-time") == 0)
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

/* Describe()'s document of ifname from its view, for the preemption
 * modules' nodes (nc-preemption-state.c). */
static const char *describe_json(const char *ifname) {
        const struct view *v = view_of(ifname);
        return v ? v->json : NULL;
}

/* Every gate parameter table of the running datastore gets the
 * operational leaves, read when asked: after each commit (a commit may
 * have put a table there, or replaced one), and after the startup. */
status_t add_oper_leaves(void) {
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
                if (res == NO_ERR)
                        res = nc_preemption_add_oper(e, describe_json);
        }
        return res;
}


/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational state of the standard: the config false nodes of each
 * gate parameter table (tbsd's ieee802-dot1q-sched and 802.1DC's), as
 * virtual nodes read when a <get> reaches them, from the view of tbsd's
 * Link.Describe() (nc-view.c; nc-oper.c reads its document); tbsd's own
 * state is nc-link-state.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../lib/taprio-limits.h"
#include "nc-cbsa-state.h"
#include "nc-oper.h"
#include "nc-preemption-state.h"
#include "nc-sil-internal.h"
#include "nc-tbsd.h"
#include "nc-view.h"

static const char *const oper_leaves[] = {
        "oper-gate-states", "oper-cycle-time-extension", "config-pending", "supported-list-max",
        "supported-interval-max", "tick-granularity", "config-change-error", NULL,
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
                if (!ifname || view_oper(ifname, &o) < 0 || !o.taprio)
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
                } else if (strcmp(leaf, "config-change-error") == 0 && o.have_change_errors)
                        /* the changes of the link tbsd refused or failed to apply */
                        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) o.change_errors);
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
        if (view_oper(ifname, o) < 0 || !o->taprio) {
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

/* transmission-overrun of a queue-max-sdu-table entry: the kernel's
 * transmit overruns of the entry's traffic class, summed over its TX
 * queues; absent where the kernel gives none (nc-oper.h). */
static status_t overrun_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        const char *ifname = entry_ifname(virval, 3);
        const val_value_t *tc = virval->parent ? val_find_child(virval->parent, val_get_mod_name(virval->parent),
                                                                (const xmlChar *) "traffic-class")
                                               : NULL;
        struct nc_oper o;
        char buf[32];

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!ifname || !tc || view_oper(ifname, &o) < 0 || !o.taprio || VAL_UINT(tc) >= NC_OPER_MAX_CLASSES ||
            !o.have_overruns[VAL_UINT(tc)])
                return ERR_NCX_SKIPPED;
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) o.overruns[VAL_UINT(tc)]);
        return val_set_simval_obj(dstval, dstval->obj, (const xmlChar *) buf);
}

/* Each class the controller listed in queue-max-sdu-table gets its
 * transmission-overrun (the standard puts it in that configurable list). */
static status_t add_overruns(val_value_t *table, const char *module) {
        status_t res = NO_ERR;

        for (val_value_t *e = val_get_first_child(table); e && res == NO_ERR; e = val_get_next_child(e)) {
                val_value_t *v;

                if (strcmp((const char *) e->name, "queue-max-sdu-table") != 0 ||
                    val_find_child(e, (const xmlChar *) module, (const xmlChar *) "transmission-overrun"))
                        continue;
                v = agt_make_virtual_leaf(e->obj, (const xmlChar *) "transmission-overrun", overrun_get, &res);
                if (v)
                        val_add_child(v, e);
        }
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
        return table && res == NO_ERR ? add_overruns(table, module) : res;
}

/* Every gate parameter table and interface of the running datastore gets
 * the operational nodes, read when asked, and the datastore tbsd:links:
 * after each commit (a commit may have put a table there, or replaced
 * one), and after the startup. */
status_t add_oper_leaves(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        val_value_t *ifs = running && running->root
                                   ? val_find_child(running->root, (const xmlChar *) "ietf-interfaces",
                                                    (const xmlChar *) "interfaces")
                                   : NULL;
        status_t res = NO_ERR;

        res = add_links_node();
        for (val_value_t *e = ifs ? val_get_first_child(ifs) : NULL; e && res == NO_ERR; e = val_get_next_child(e)) {
                res = add_link_state(e);
                if (res == NO_ERR)
                        res = nc_cbsa_add_oper(e);
                for (size_t m = 0; table_modules[m] && res == NO_ERR; m++)
                        res = add_table_oper(val_find_child(e, (const xmlChar *) table_modules[m],
                                                            (const xmlChar *) "gate-parameter-table"),
                                             table_modules[m]);
                if (res == NO_ERR)
                        res = nc_preemption_add_oper(e);
        }
        return res;
}


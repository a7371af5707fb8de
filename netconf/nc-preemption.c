/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An interface's frame preemption nodes -> root.fp and mac_merge
 * (nc-preemption.h). 802.1Q gives preemption per priority (0 to 7), Linux
 * per traffic class: a class is preemptable when its priorities are, and
 * priorities of one class that disagree have no class to give, so they
 * are refused naming both. A priority not written is express, the
 * table's default. */
#include "nc-preemption.h"

#include <stdio.h>
#include <string.h>

#define STATUS_TABLE "frame-preemption-status-table"
#define PREEMPT_PATH PREEMPT_IF_MODULE ":frame-preemption-parameters/" STATUS_TABLE
#define MAC_MERGE_PATH MAC_MERGE_MODULE ":mac-merge/admin-control"
#define PRIORITIES 8 /* 802.1Q's: priority0 to priority7 */

static const struct nc_node *status_table(const struct nc_node *iface) {
        return nc_child(nc_child(iface, "frame-preemption-parameters"), STATUS_TABLE);
}

static const struct nc_node *mac_merge_control(const struct nc_node *iface) {
        return nc_child(nc_child(nc_child(iface, "ethernet"), "mac-merge"), "admin-control");
}

int nc_preemption_unscheduled(struct ctx *ctx, const struct nc_node *iface) {
        const struct nc_node *t = status_table(iface), *m = mac_merge_control(iface);

        if (!(t && t->child) && !(m && m->child))
                return 0;
        return nc_fail(ctx, t && t->child ? PREEMPT_PATH : MAC_MERGE_PATH,
                       "tbsd sets preemption with the interface's schedule, and it has none (an enabled "
                       "gate-parameter-table, a cbsa table, or tbsd:schedule)");
}

/* The status table: preemptable[p] for p < 8; -1 with the line when a
 * value is neither of the enumeration's. *any: a leaf was written. */
static int read_status(struct ctx *ctx, const struct nc_node *table, bool preemptable[PRIORITIES], bool *any) {
        *any = false;
        for (unsigned p = 0; p < PRIORITIES; p++) {
                char name[16];
                snprintf(name, sizeof(name), "priority%u", p);
                const char *s = nc_leaf(table, name);
                preemptable[p] = s && strcmp(s, "preemptable") == 0;
                if (s && !preemptable[p] && strcmp(s, "express") != 0)
                        return nc_fail(ctx, PREEMPT_PATH, "%s: \"%s\" is neither express nor preemptable", name, s);
                *any |= s != NULL;
        }
        return 0;
}

/* root.fp: one "E" or "P" per class; -1 when two priorities of a class
 * disagree. *some_p: a class is preemptable. */
static int fp_of(struct ctx *ctx, const bool preemptable[PRIORITIES], json_object *root, bool *some_p) {
        json_object *v, *map = NULL;
        int num_tc = 0, first[MAX_TC];

        if (json_object_object_get_ex(root, "num_tc", &v))
                num_tc = json_object_get_int(v);
        if (num_tc < 1 || num_tc > MAX_TC)
                return nc_fail(ctx, PREEMPT_PATH, "tbsd gives preemption per traffic class and the interface's "
                               "number of classes is not known here (tbsd:schedule/root/num-tc, or the gate "
                               "table's classes)");
        json_object_object_get_ex(root, "priority_map", &map);
        for (int c = 0; c < num_tc; c++)
                first[c] = -1;
        *some_p = false;
        for (unsigned p = 0; p < PRIORITIES; p++) {
                /* A priority the map leaves out goes to class 0, as tc fills it. */
                json_object *e = map ? json_object_array_get_idx(map, p) : NULL;
                int c = e ? json_object_get_int(e) : 0;
                if (c < 0 || c >= num_tc)
                        continue; /* a map beyond the classes: tbsd's own check says so */
                if (first[c] >= 0 && preemptable[first[c]] != preemptable[p])
                        return nc_fail(ctx, PREEMPT_PATH, "priority%d is %s and priority%u %s, but both go to "
                                       "traffic class %d; give the priorities of one class the same status",
                                       first[c], preemptable[first[c]] ? "preemptable" : "express", p,
                                       preemptable[p] ? "preemptable" : "express", c);
                if (first[c] < 0)
                        first[c] = (int) p;
                *some_p |= preemptable[p];
        }
        json_object *fp = json_object_new_array();
        for (int c = 0; c < num_tc; c++)
                json_object_array_add(fp, json_object_new_string(first[c] >= 0 && preemptable[first[c]] ? "P" : "E"));
        json_object_object_add(root, "fp", fp);
        return 0;
}

/* admin-control (its leaves' YANG defaults where not written; force_tx:
 * merge-enable-tx taken as Enabled) -> mac_merge. aMACMergeVerifyDisableTx
 * (30.14.1.4) is 802.3's disableVerify: Enabled turns verification off,
 * the default Disabled leaves it on. */
static int mac_merge_of(struct ctx *ctx, const struct nc_node *control, bool force_tx, json_object *doc) {
        const char *tx = nc_leaf(control, "merge-enable-tx"), *vd = nc_leaf(control, "verify-disable-tx");
        const char *t = nc_leaf(control, "verify-time"), *f = nc_leaf(control, "frag-size");
        uint64_t time_ms = 10, frag = 0;

        if ((t && (nc_parse_u64(t, &time_ms) < 0 || time_ms < 1 || time_ms > 128)) ||
            (f && (nc_parse_u64(f, &frag) < 0 || frag > 3)))
                return nc_fail(ctx, MAC_MERGE_PATH, "verify-time must be 1 to 128 and frag-size 0 to 3");
        bool tx_on = force_tx || (tx && strcmp(tx, "Enabled") == 0);
        json_object *m = json_object_new_object();
        json_object_object_add(m, "tx_enabled", json_object_new_boolean(tx_on));
        json_object_object_add(m, "verify_enabled", json_object_new_boolean(tx_on && !(vd && strcmp(vd, "Enabled") == 0)));
        json_object_object_add(m, "verify_time_ms", json_object_new_int((int) time_ms));
        /* 802.3's minimum fragment, 64 * (1 + frag-size) - 4 octets. */
        json_object_object_add(m, "tx_min_frag_bytes", json_object_new_int((int) (64 * (1 + frag) - 4)));
        json_object_object_add(doc, "mac_merge", m);
        return 0;
}

int nc_preemption(struct ctx *ctx, const struct nc_node *iface, const struct nc_node *sched, json_object *doc,
                  json_object *root) {
        const struct nc_node *table = status_table(iface), *control = mac_merge_control(iface);
        const char *leave = nc_leaf(sched, "leave-mac-merge");
        bool preemptable[PRIORITIES], any, some_p = false;

        if (read_status(ctx, table, preemptable, &any) < 0)
                return -1;
        /* Only a table that was written sets fp: an interface without one
         * keeps a schedule a kernel without fp (Linux 6.1) takes. */
        if (any && fp_of(ctx, preemptable, root, &some_p) < 0)
                return -1;
        /* The kernel takes a preemptable class only from a root the NIC
         * runs: taprio's full offload, mqprio's hw 1, derived then unless
         * tbsd's module says. */
        json_object *qdisc = NULL;
        bool taprio = json_object_object_get_ex(root, "qdisc", &qdisc) &&
                      strcmp(json_object_get_string(qdisc), "taprio") == 0;
        const char *offload = taprio ? "mode" : "hw_offload";
        if (some_p && !json_object_object_get_ex(root, offload, NULL))
                json_object_object_add(root, offload, taprio ? json_object_new_string("full-offload")
                                                             : json_object_new_boolean(true));
        if (leave && strcmp(leave, "true") == 0) {
                if (control && control->child)
                        return nc_fail(ctx, MAC_MERGE_PATH, "tbsd:schedule/leave-mac-merge is true and this "
                                       "sets the MAC merge layer; give one of them");
                return 0;
        }
        if (control && control->child)
                return mac_merge_of(ctx, control, false, doc);
        /* Derived: a preemptable class needs the layer to transmit
         * preemptable frames; the rest as the standard's defaults. */
        return some_p ? mac_merge_of(ctx, NULL, true, doc) : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/net_tstamp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "qdisc-kind.h"
#include "txtime-map.h"

_printf_(2, 3) static void set_why(char *why, const char *fmt, ...) {
        va_list ap;

        if (!why)
                return;
        va_start(ap, fmt);
        vsnprintf(why, TXTIME_WHY_MAX, fmt, ap);
        va_end(ap);
}

static bool class_valid(const RootSpec *root, unsigned tc) {
        return tc < root->num_tc && tc < TBS_MAX_TC;
}

/* A single etf or cbs as the root: every frame of the interface passes
 * it, whatever its priority, so there is one queue (0) and no class. */
static int leaf_target_resolve(const RootSpec *root, TxtimeSelect by, uint32_t value, TxtimeTarget *ret,
                               char *why) {
        const char *kind = root_kind_to_string(root->kind);
        TxtimeTarget t = { .leaf = true, .n_queues = 1 };

        switch (by) {
        case TXTIME_BY_QUEUE:
                if (value != 0) {
                        set_why(why, "TX queue %" PRIu32 " is not the root's: the root is a single %s qdisc, "
                                "which every frame passes; name queue 0", value, kind);
                        return -ERANGE;
                }
                break;
        case TXTIME_BY_CLASS:
                set_why(why, "the root is a single %s qdisc and has no traffic classes; name queue 0 or a "
                        "priority", kind);
                return -ERANGE;
        default:
                /* Any priority reaches the root (checked for 0 to 15 as
                 * for the other roots, so a socket means the same under
                 * any of them). */
                t.priority = value;
                break;
        }
        *ret = t;
        return 0;
}

int txtime_target_resolve(const RootSpec *root, TxtimeSelect by, uint32_t value, TxtimeTarget *ret,
                          char *why) {
        TxtimeTarget t = {};
        int tc;

        if (by < 0 || by >= _TXTIME_SELECT_MAX) {
                set_why(why, "nothing names the queue");
                return -EINVAL;
        }
        /* mqprio and taprio read priority & 15 (TC_BITMASK); a larger
         * value would reach the same class, but a socket set to it means
         * something else to other qdiscs. */
        if (by == TXTIME_BY_PRIORITY && value >= TBS_PRIO_MAP_LEN) {
                set_why(why, "priority %" PRIu32 " is out of range: the root %s priorities 0 to %d", value,
                        root_is_leaf(root) ? "takes" : "maps", TBS_PRIO_MAP_LEN - 1);
                return -ERANGE;
        }
        if (root_is_leaf(root))
                return leaf_target_resolve(root, by, value, ret, why);

        switch (by) {
        case TXTIME_BY_QUEUE:
                tc = root_send_tc_of_queue(root, value);
                if (tc < 0) {
                        set_why(why, "TX queue %" PRIu32 " is in none of the root's traffic classes", value);
                        return -ERANGE;
                }
                t.queue = value;
                break;
        case TXTIME_BY_CLASS:
                if (value > INT32_MAX || !class_valid(root, value)) {
                        set_why(why, "traffic class %" PRIu32 " does not exist (the root has %u)", value,
                                (unsigned) root->num_tc);
                        return -ERANGE;
                }
                tc = (int) value;
                break;
        default:        /* TXTIME_BY_PRIORITY, in range */
                tc = root->priority_map[value];
                if (!class_valid(root, (unsigned) tc)) {
                        set_why(why, "priority %" PRIu32 " maps to traffic class %d, which does not exist", value, tc);
                        return -ERANGE;
                }
                t.priority = value;
                break;
        }

        t.tc = (unsigned) tc;
        t.first_queue = root->queues[tc].offset;
        t.n_queues = root->queues[tc].count;
        if (by != TXTIME_BY_QUEUE)
                t.queue = t.first_queue;
        if (by != TXTIME_BY_PRIORITY) {
                uint32_t p;

                for (p = 0; p < TBS_PRIO_MAP_LEN; p++)
                        if (root->priority_map[p] == t.tc)
                                break;
                if (p == TBS_PRIO_MAP_LEN) {
                        set_why(why, "no socket priority maps to traffic class %u", t.tc);
                        return -ENODATA;
                }
                t.priority = p;
        }
        *ret = t;
        return 0;
}

static void describe_queues(const TxtimeTarget *t, char buf[static 64]) {
        if (t->n_queues == 1)
                snprintf(buf, 64, "TX queue %" PRIu32, t->first_queue);
        else
                snprintf(buf, 64, "TX queues %" PRIu32 "-%" PRIu32 " (traffic class %u)", t->first_queue,
                         t->first_queue + t->n_queues - 1, t->tc);
}

/* The etf every frame passes: the root itself, or the etf under a root
 * cbs; a cbs without one takes no launch times. */
static int leaf_etf(const RootSpec *root, TxtimeEtf *ret, char *why) {
        const EtfOptions *e = etf_spec_etf(&root->leaf);

        if (!e) {
                *ret = (TxtimeEtf) {};
                set_why(why, "TX queue 0 (the root %s) has no etf qdisc", root_kind_to_string(root->kind));
                return -ENOENT;
        }
        *ret = (TxtimeEtf) {
                .has_etf = true,
                .clockid = e->clockid,
                .deadline_mode = e->deadline_mode,
                .delta_ns = e->delta_ns,
        };
        return 0;
}

int txtime_class_etf(const Schedule *s, const TxtimeTarget *t, TxtimeEtf *ret, char *why) {
        TxtimeEtf etf = {};
        size_t with = 0;
        char qs[64];

        if (t->leaf)
                return leaf_etf(&s->root, ret, why);
        describe_queues(t, qs);
        for (uint32_t i = 0; i < t->n_queues; i++) {
                const EtfSpec *q = schedule_find_txqueue(s, t->first_queue + i);
                const EtfOptions *e = q ? etf_spec_etf(q) : NULL;

                if (!e)   /* a cbs queue without an etf takes no launch times */
                        continue;
                if (with > 0 && (e->clockid != etf.clockid || e->deadline_mode != etf.deadline_mode)) {
                        set_why(why,
                                "the etf qdiscs of %s differ in clock or deadline mode; the kernel picks one "
                                "of the queues per flow, so no one socket setting fits them all", qs);
                        return -ENOTUNIQ;
                }
                etf.has_etf = true;
                etf.clockid = e->clockid;
                etf.deadline_mode = e->deadline_mode;
                if (e->delta_ns > etf.delta_ns)
                        etf.delta_ns = e->delta_ns;
                with++;
        }
        if (with == 0) {
                *ret = etf;
                set_why(why, "%s %s no etf qdisc", qs, t->n_queues == 1 ? "has" : "have");
                return -ENOENT;
        }
        if (with < t->n_queues) {
                set_why(why,
                        "only some of %s have an etf qdisc; the kernel picks one of the queues per flow, so "
                        "launch times would be kept on some and ignored on others", qs);
                return -ENOTUNIQ;
        }
        *ret = etf;
        return 0;
}

uint32_t txtime_flags_for(const TxtimeEtf *etf) {
        return SOF_TXTIME_REPORT_ERRORS | (etf->has_etf && etf->deadline_mode ? SOF_TXTIME_DEADLINE_MODE : 0);
}

/* The EtherTypes of network control: the link's own addressing, routing
 * and time sync, its port access control and encryption, its VLAN tags,
 * its redundancy and stream reservation protocols. A packet socket for one
 * of them would let its holder read and forge that protocol on the link
 * (PTP: the clock every launch time depends on), so tbsd opens one only
 * when the schedule, which root writes, names the EtherType in
 * sockets.ethertypes. The one list: docs/schedule-format.md shows it, and
 * tests/unit/test-txtime-map.c checks that the docs show all of it. */
static const TxtimeReservedEthertype reserved_ethertypes[] = {
        { 0x0800, "IPv4" },
        { 0x0806, "ARP" },
        { 0x22ea, "MSRP, stream reservation" },
        { 0x8035, "RARP" },
        { 0x8100, "VLAN tag, 802.1Q" },
        { 0x86dd, "IPv6" },
        { 0x8808, "Ethernet flow control (PAUSE, PFC)" },
        { 0x8809, "slow protocols (LACP, OAM)" },
        { 0x8847, "MPLS" },
        { 0x8848, "MPLS multicast" },
        { 0x8863, "PPPoE discovery" },
        { 0x8864, "PPPoE session" },
        { 0x888e, "802.1X port access control (EAPOL)" },
        { 0x88a8, "VLAN tag, 802.1ad" },
        { 0x88cc, "LLDP" },
        { 0x88e3, "MRP, media redundancy" },
        { 0x88e5, "MACsec" },
        { 0x88e7, "PBB, 802.1ah" },
        { 0x88f5, "MVRP" },
        { 0x88f6, "MMRP" },
        { 0x88f7, "PTP" },
        { 0x88fb, "PRP supervision" },
        { 0x8902, "CFM, 802.1ag" },
        { 0x892f, "HSR" },
        { 0x9100, "VLAN tag, QinQ" },
};

const TxtimeReservedEthertype *txtime_reserved_ethertypes(size_t *ret_n) {
        *ret_n = ELEMENTSOF(reserved_ethertypes);
        return reserved_ethertypes;
}

const char *txtime_reserved_ethertype(uint16_t type) {
        for (size_t i = 0; i < ELEMENTSOF(reserved_ethertypes); i++)
                if (reserved_ethertypes[i].type == type)
                        return reserved_ethertypes[i].name;
        return NULL;
}

int txtime_ethertype_allowed(const SocketsSpec *k, uint16_t type, char *why) {
        const char *name = txtime_reserved_ethertype(type);

        if (!name)
                return 0;
        for (size_t i = 0; k && i < k->n_ethertypes; i++)
                if (k->ethertypes[i] == type)
                        return 0;
        set_why(why,
                "EtherType 0x%04x (%s) is network control: tbsd opens packet sockets for it only where the "
                "schedule lists it in sockets.ethertypes", type, name);
        return -EACCES;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <linux/net_tstamp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

int txtime_target_resolve(const RootSpec *root, TxtimeSelect by, uint32_t value, TxtimeTarget *ret,
                          char *why) {
        TxtimeTarget t = {};
        int tc;

        switch (by) {
        case TXTIME_BY_QUEUE:
                tc = root_tc_of_queue(root, value);
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
        case TXTIME_BY_PRIORITY:
                /* mqprio and taprio read priority & 15 (TC_BITMASK); a
                 * larger value would reach the same class, but a socket
                 * set to it means something else to other qdiscs. */
                if (value >= TBS_PRIO_MAP_LEN) {
                        set_why(why, "priority %" PRIu32 " is out of range: the root maps priorities 0 to %d",
                                value, TBS_PRIO_MAP_LEN - 1);
                        return -ERANGE;
                }
                tc = root->priority_map[value];
                if (!class_valid(root, (unsigned) tc)) {
                        set_why(why, "priority %" PRIu32 " maps to traffic class %d, which does not exist", value, tc);
                        return -ERANGE;
                }
                t.priority = value;
                break;
        default:
                set_why(why, "nothing names the queue");
                return -EINVAL;
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

int txtime_class_etf(const Schedule *s, const TxtimeTarget *t, TxtimeEtf *ret, char *why) {
        TxtimeEtf etf = {};
        size_t with = 0;
        char qs[64];

        describe_queues(t, qs);
        for (uint32_t i = 0; i < t->n_queues; i++) {
                const EtfSpec *e = schedule_find_txqueue(s, t->first_queue + i);

                if (!e || e->kind != TXQ_ETF)   /* a cbs queue takes no launch times */
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
                if ((uint64_t) e->delta_ns > etf.delta_ns)
                        etf.delta_ns = (uint32_t) e->delta_ns;
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

/* What Linux (6.1, net/sched/sch_taprio.c) does with a launch time:
 * taprio_enqueue_one() checks every packet of a socket with SO_TXTIME
 * (is_valid_interval() -> find_entry_to_transmit()): it takes the cycle
 * that holds the launch time (base_time + k * cycle_time), lays the entries
 * end to end from its start, cuts each at the cycle's end
 * (get_interval_end_time()); an entry that starts at the cycle's end or
 * later holds no launch time of that cycle. The packet passes when one
 * entry opening its class holds it whole: the launch time strictly after
 * the entry's start, launch time plus the frame's transmission time at link
 * speed strictly before the entry's end; otherwise taprio drops it (the
 * send fails with ENOBUFS, nothing comes on the error queue). Hence one
 * window per entry, never merged with the next even when that opens the
 * class too: a frame across their boundary, or launched exactly on it, is
 * dropped (kernel-daemon-txtime-window sends such frames). By the cycle
 * time against the sum of the intervals:
 *  - shorter: the entry across the cycle's end is cut there, the entries
 *    after it never open (tbsd's own files cannot say this: the validator
 *    wants the cycle at least the sum, but a root may be dumped so);
 *  - longer: nothing is open from the end of the last entry to the end of
 *    the cycle; a launch time in that gap is dropped.
 * The software gates (advance_sched()) cut at the cycle's end as well, but
 * in the longer case start the next round of entries at once when the last
 * entry ends, not at the cycle's end: in software mode a packet then
 * leaves when those gates open, the launch-time check stays the one above.
 * In txtime-assist mode the gates are not consulted at dequeue: the etf
 * children send at the launch time, so the windows below are exactly when
 * the socket's packets may leave. cycle_time_extension only matters at a
 * schedule change and is left out. */
int txtime_windows(const RootSpec *root, unsigned tc, TxtimeWindow **ret) {
        _cleanup_free_ TxtimeWindow *w = NULL;
        uint64_t start = 0, cycle;
        size_t n = 0;

        if (root->kind != ROOT_TAPRIO || !class_valid(root, tc) || root->cycle_time_ns <= 0)
                return -EINVAL;
        cycle = (uint64_t) root->cycle_time_ns;
        for (size_t i = 0; i < root->n_entries && start < cycle; i++) {
                const GateEntry *e = &root->entries[i];
                uint64_t end = start + e->interval_ns;

                if (end > cycle)
                        end = cycle;
                if ((e->gate_mask & (UINT32_C(1) << tc)) && end > start) {
                        TxtimeWindow *nw = reallocarray(w, n + 1, sizeof(*w));

                        if (!nw)
                                return -ENOMEM;
                        w = nw;
                        w[n++] = (TxtimeWindow) { .offset_ns = start, .length_ns = end - start };
                }
                start = end;
        }
        *ret = TAKE_PTR(w);
        return (int) n;
}

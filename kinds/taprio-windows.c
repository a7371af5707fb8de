/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "macro.h"
#include "taprio-windows.h"

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

        if (tc >= root->num_tc || tc >= TBS_MAX_TC || root->taprio.cycle_time_ns <= 0)
                return -EINVAL;
        cycle = (uint64_t) root->taprio.cycle_time_ns;
        for (size_t i = 0; i < root->taprio.n_entries && start < cycle; i++) {
                const GateEntry *e = &root->taprio.entries[i];
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

void txtime_running_root(const RootSpec *dumped, int64_t now_ns, RootSpec *ret, int64_t *ret_until_ns) {
        RootSpec r = *dumped;
        int64_t until = INT64_MAX;

        /* Before the pending schedule's base time the running one gates;
         * the kernel switches at that time (advance_sched()), unasked. */
        if (dumped->taprio.admin_pending && dumped->taprio.oper.n_entries > 0 && now_ns < dumped->taprio.base_time_ns) {
                r.taprio.base_time_ns = dumped->taprio.oper.base_time_ns;
                r.taprio.cycle_time_ns = dumped->taprio.oper.cycle_time_ns;
                r.taprio.cycle_time_extension_ns = dumped->taprio.oper.cycle_time_extension_ns;
                r.taprio.entries = dumped->taprio.oper.entries;
                r.taprio.n_entries = dumped->taprio.oper.n_entries;
                until = dumped->taprio.base_time_ns;
        }
        r.taprio.admin_pending = false;
        r.taprio.oper = (GateSchedule) {};
        *ret = r;
        if (ret_until_ns)
                *ret_until_ns = until;
}

bool txtime_none_runs(const RootSpec *dumped, int64_t now_ns) {
        return dumped->taprio.admin_pending && dumped->taprio.oper.n_entries == 0 &&
               now_ns < dumped->taprio.base_time_ns;
}

uint64_t txtime_probe_guard_ns(uint32_t link_speed_mbps) {
        uint64_t bits = (uint64_t) TXTIME_PROBE_WIRE_BYTES * 8;
        uint64_t speed = link_speed_mbps > 0 ? link_speed_mbps : TXTIME_FALLBACK_SPEED_MBPS;

        /* bits / (Mbit/s) = us: * 1000 for ns */
        return (bits * 1000 + speed - 1) / speed;
}

uint64_t txtime_windows_longest(const TxtimeWindow *w, size_t n) {
        uint64_t longest = 0;

        for (size_t i = 0; i < n; i++)
                if (w[i].length_ns > longest)
                        longest = w[i].length_ns;
        return longest;
}

int txtime_window_slot(const RootSpec *root, const TxtimeWindow *w, size_t n, int64_t earliest_ns,
                       uint64_t guard_ns, int64_t until_ns, int64_t *ret_ns) {
        int64_t base = root->taprio.base_time_ns, cycle = root->taprio.cycle_time_ns, k = 0;

        if (cycle <= 0)
                return -EINVAL;
        if (txtime_windows_longest(w, n) <= 2 * guard_ns)
                return -ENOSPC;
        /* The cycle that holds earliest (the first one when it is before
         * the base time); the windows repeat every cycle, so a window that
         * fits is in this one or the next. */
        if (earliest_ns > base)
                k = (earliest_ns - base) / cycle;
        for (int c = 0; c < 2; c++, k++) {
                int64_t start;

                if (__builtin_mul_overflow(k, cycle, &start) || __builtin_add_overflow(start, base, &start))
                        return -EAGAIN;
                for (size_t i = 0; i < n; i++) {
                        int64_t lo, hi, t;

                        if (w[i].length_ns <= 2 * guard_ns)
                                continue;
                        lo = start + (int64_t) (w[i].offset_ns + guard_ns);
                        hi = start + (int64_t) (w[i].offset_ns + w[i].length_ns - guard_ns);
                        t = earliest_ns > lo ? earliest_ns : lo;
                        if (t > hi)
                                continue;
                        if (t >= until_ns || until_ns - t <= (int64_t) guard_ns)
                                return -EAGAIN;
                        *ret_ns = t;
                        return 0;
                }
        }
        return -EAGAIN;
}

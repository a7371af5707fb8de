/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stddef.h>

#include "launch-error.h"

#define NSEC_PER_SEC 1000000000LL

int launch_probe_error(const TxtimeProbe *p, const LaunchClockOffsets *o, LaunchStampSource *ret_source,
                       int64_t *ret_error_ns) {
        int64_t stamp;

        if (p->txtime_ns == 0 || p->txtime_ns > INT64_MAX)
                return -ENODATA;
        if (p->has_hw_tstamp) {
                *ret_source = LAUNCH_STAMP_HARDWARE;
                if (!o->has_phc)
                        return -ERANGE; /* a PHC time that cannot be placed */
                stamp = p->hw_tstamp_ns - o->phc_ns;
        } else if (p->has_sw_tstamp && p->sw_tstamp_ns != (int64_t) p->txtime_ns) {
                /* A report for a hardware stamp request that came back
                 * without one (hardware stamp 0, as QEMU's igb gives) has
                 * in ts[0] the skb's tstamp: the launch time itself, not
                 * a software stamp (seen on the emulated igb,
                 * tests/nic/test-launch-monitor-igb.sh). */
                *ret_source = LAUNCH_STAMP_SOFTWARE;
                if (!o->has_realtime)
                        return -ERANGE;
                stamp = p->sw_tstamp_ns + o->realtime_ns;
        } else
                return -ENODATA;
        *ret_error_ns = stamp - (int64_t) p->txtime_ns;
        return 0;
}

static int64_t read_ns(clockid_t c) {
        struct timespec ts;

        if (clock_gettime(c, &ts) < 0)
                return -1;
        return (int64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int launch_clock_offset_now(clockid_t clock, int64_t *ret_ns) {
        int64_t a = read_ns(CLOCK_REALTIME), c = read_ns(clock), b = read_ns(CLOCK_REALTIME);
        int64_t d;

        if (a < 0 || b < 0 || c < 0)
                return -errno;
        d = c - (a + (b - a) / 2);
        if (clock == CLOCK_TAI)
                d = (d >= 0 ? d + NSEC_PER_SEC / 2 : d - NSEC_PER_SEC / 2) / NSEC_PER_SEC * NSEC_PER_SEC;
        *ret_ns = d;
        return 0;
}

bool launch_stats_account(LaunchQueueStats *st, const TxtimeProbe *p, const LaunchClockOffsets *o, bool timed_out) {
        LaunchStampSource src;
        int64_t e;
        int r;

        if (p->outcome == TXTIME_OUTCOME_INVALID || p->dropped_at_enqueue) {
                st->invalid++;
                return true;
        }
        if (p->outcome == TXTIME_OUTCOME_MISSED) {
                st->missed++;
                return true;
        }
        r = launch_probe_error(p, o, &src, &e);
        if (r == 0 || r == -ERANGE)
                st->source = src;
        if (r == 0)
                launch_hist_add(&st->hist, e);
        else if (r == -ERANGE || timed_out)
                st->unstamped++;
        else
                return false;
        return true;
}

void launch_clock_offsets_now(clockid_t clock, const int64_t *phc_ns, LaunchClockOffsets *ret) {
        LaunchClockOffsets o = {};

        o.has_realtime = launch_clock_offset_now(clock, &o.realtime_ns) >= 0;
        if (phc_ns) {
                o.has_phc = true;
                o.phc_ns = *phc_ns;
        }
        *ret = o;
}

void launch_stats_from_probes(uint32_t queue, const TxtimeProbe *probes, size_t n, const LaunchClockOffsets *o,
                              LaunchQueueStats *ret) {
        LaunchQueueStats s = { .queue = queue };

        for (size_t i = 0; i < n; i++)
                if (probes[i].sent) {
                        s.sent++;
                        (void) launch_stats_account(&s, &probes[i], o, true);
                }
        *ret = s;
}

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
                stamp = p->hw_tstamp_ns - (o->has_phc ? o->phc_ns : 0);
                *ret_source = LAUNCH_STAMP_HARDWARE;
        } else if (p->has_sw_tstamp && p->sw_tstamp_ns != (int64_t) p->txtime_ns) {
                /* A report for a hardware stamp request that came back
                 * without one (hardware stamp 0, as QEMU's igb gives) has
                 * in ts[0] the skb's tstamp: the launch time itself, not
                 * a software stamp (seen on the emulated igb,
                 * tests/nic/test-launch-monitor-igb.sh). */
                stamp = p->sw_tstamp_ns + o->realtime_ns;
                *ret_source = LAUNCH_STAMP_SOFTWARE;
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

void launch_stats_from_probes(uint32_t queue, const TxtimeProbe *probes, size_t n, const LaunchClockOffsets *o,
                              LaunchQueueStats *ret) {
        LaunchQueueStats s = { .queue = queue };
        bool hw = false, sw = false;

        for (size_t i = 0; i < n; i++) {
                const TxtimeProbe *p = &probes[i];
                LaunchStampSource src;
                int64_t e;

                if (!p->sent)
                        continue;
                s.sent++;
                if (p->outcome == TXTIME_OUTCOME_MISSED)
                        s.missed++;
                else if (p->outcome == TXTIME_OUTCOME_INVALID || p->dropped_at_enqueue)
                        s.invalid++;
                else if (launch_probe_error(p, o, &src, &e) == 0) {
                        launch_hist_add(&s.hist, e);
                        hw = hw || src == LAUNCH_STAMP_HARDWARE;
                        sw = sw || src == LAUNCH_STAMP_SOFTWARE;
                } else
                        s.unstamped++;
        }
        s.source = hw ? LAUNCH_STAMP_HARDWARE : sw ? LAUNCH_STAMP_SOFTWARE : LAUNCH_STAMP_NONE;
        *ret = s;
}

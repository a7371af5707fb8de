/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/launch-error.c: a probe's launch error from a hardware stamp (PHC,
 * with and without the PHC offset) and from a software stamp (CLOCK_REALTIME
 * moved to the queue's clock), the hardware one preferred; the figures of a
 * burst (sent, missed, invalid, unstamped, source, histogram); the TAI
 * offset read from the running kernel is a whole number of seconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <time.h>

#include "launch-error.h"

#define SEC 1000000000LL

static void test_probe_error(void **state) {
        /* launch at TAI 1000 s; the kernel's TAI offset 37 s */
        LaunchClockOffsets o = { .realtime_ns = 37 * SEC };
        TxtimeProbe p = { .txtime_ns = 1000 * SEC, .has_sw_tstamp = true, .sw_tstamp_ns = 963 * SEC + 2500 };
        LaunchStampSource src;
        int64_t e;

        assert_int_equal(launch_probe_error(&p, &o, &src, &e), 0);
        assert_int_equal(src, LAUNCH_STAMP_SOFTWARE);
        assert_int_equal(e, 2500);

        /* early in software: negative */
        p.sw_tstamp_ns = 963 * SEC - 120000;
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), 0);
        assert_int_equal(e, -120000);

        /* a hardware stamp wins; without a PHC offset it is taken as is */
        p.has_hw_tstamp = true;
        p.hw_tstamp_ns = 1000 * SEC + 40;
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), 0);
        assert_int_equal(src, LAUNCH_STAMP_HARDWARE);
        assert_int_equal(e, 40);
        /* PHC 5 us ahead of the queue's clock */
        o.has_phc = true;
        o.phc_ns = 5000;
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), 0);
        assert_int_equal(e, 40 - 5000);

        /* ts[0] holding the launch time itself: the skb's tstamp echoed by
         * a hardware report without a hardware stamp, not a stamp */
        p = (TxtimeProbe) { .txtime_ns = 1000 * SEC, .has_sw_tstamp = true, .sw_tstamp_ns = 1000 * SEC };
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), -ENODATA);

        /* no stamp, or no launch time */
        p = (TxtimeProbe) { .txtime_ns = 1000 * SEC };
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), -ENODATA);
        p = (TxtimeProbe) { .has_sw_tstamp = true, .sw_tstamp_ns = 1 };
        assert_int_equal(launch_probe_error(&p, &o, &src, &e), -ENODATA);
}

static void test_stats_from_probes(void **state) {
        LaunchClockOffsets o = { .realtime_ns = 37 * SEC };
        TxtimeProbe probes[] = {
                { .seq = 0, .txtime_ns = 100 * SEC, .sent = true,
                  .has_sw_tstamp = true, .sw_tstamp_ns = 63 * SEC + 300 },
                { .seq = 1, .txtime_ns = 101 * SEC, .sent = true,
                  .has_sw_tstamp = true, .sw_tstamp_ns = 64 * SEC - 50 },
                { .seq = 2, .txtime_ns = 102 * SEC, .sent = true, .outcome = TXTIME_OUTCOME_MISSED },
                { .seq = 3, .txtime_ns = 103 * SEC, .sent = true, .outcome = TXTIME_OUTCOME_INVALID },
                { .seq = 4, .txtime_ns = 104 * SEC, .sent = true, .dropped_at_enqueue = true },
                { .seq = 5, .txtime_ns = 105 * SEC, .sent = true },
                { .seq = 6, .txtime_ns = 106 * SEC, .sent = false },
        };
        LaunchQueueStats s;

        launch_stats_from_probes(3, probes, 7, &o, &s);
        assert_int_equal(s.queue, 3);
        assert_int_equal(s.sent, 6);
        assert_int_equal(s.missed, 1);
        assert_int_equal(s.invalid, 2);
        assert_int_equal(s.unstamped, 1);
        assert_int_equal(s.source, LAUNCH_STAMP_SOFTWARE);
        assert_int_equal(s.hist.count, 2);
        assert_int_equal(s.hist.early, 1);
        assert_int_equal(s.hist.late, 1);
        assert_int_equal(s.hist.min_ns, -50);
        assert_int_equal(s.hist.max_ns, 300);
        assert_int_equal(s.hist.sum_ns, 250);

        /* one hardware stamp makes the source hardware */
        probes[5].has_hw_tstamp = true;
        probes[5].hw_tstamp_ns = 105 * SEC + 10;
        launch_stats_from_probes(3, probes, 7, &o, &s);
        assert_int_equal(s.source, LAUNCH_STAMP_HARDWARE);
        assert_int_equal(s.unstamped, 0);
        assert_int_equal(s.hist.count, 3);

        /* nothing stamped */
        launch_stats_from_probes(0, &probes[2], 3, &o, &s);
        assert_int_equal(s.source, LAUNCH_STAMP_NONE);
        assert_int_equal(s.hist.count, 0);
}

static void test_offset_now(void **state) {
        int64_t d, m;

        assert_int_equal(launch_clock_offset_now(CLOCK_TAI, &d), 0);
        assert_int_equal(d % SEC, 0);
        assert_true(d >= 0 && d < 100 * SEC);
        assert_int_equal(launch_clock_offset_now(CLOCK_REALTIME, &d), 0);
        assert_true(d > -SEC / 10 && d < SEC / 10);
        assert_int_equal(launch_clock_offset_now(CLOCK_MONOTONIC, &m), 0);
        assert_true(m < 0); /* CLOCK_MONOTONIC counts from boot, CLOCK_REALTIME from 1970 */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe_error),
                cmocka_unit_test(test_stats_from_probes),
                cmocka_unit_test(test_offset_now),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

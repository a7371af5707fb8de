/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/txtime-probe.c's pure parts: the probe payload round trip (found
 * with or without an Ethernet header before it, refused when damaged or
 * cut short) and the nearest-rank launch-time error distribution. The
 * socket side runs in the kernel test stats-traffic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "txtime-probe.h"

static void test_payload(void **state) {
        uint8_t frame[14 + TXTIME_PROBE_PAYLOAD] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x88, 0xb5 };
        uint64_t txtime = 0;
        uint32_t seq = 0;

        txtime_probe_payload(frame + 14, 0x01020304, 0x1122334455667788ull);
        /* Fixed layout: magic, big-endian seq and txtime, zero padding. */
        assert_memory_equal(frame + 14, "TBSP\x01\x02\x03\x04\x11\x22\x33\x44\x55\x66\x77\x88", 16);
        for (size_t i = 14 + 16; i < sizeof(frame); i++)
                assert_int_equal(frame[i], 0);

        assert_int_equal(txtime_probe_parse(frame + 14, TXTIME_PROBE_PAYLOAD, &seq, &txtime), 0);
        assert_int_equal(seq, 0x01020304);
        assert_true(txtime == 0x1122334455667788ull);
        seq = 0;
        txtime = 0;
        assert_int_equal(txtime_probe_parse(frame, sizeof(frame), &seq, &txtime), 0);
        assert_int_equal(seq, 0x01020304);
        assert_true(txtime == 0x1122334455667788ull);

        /* Cut short: the txtime is not all there. */
        seq = 7;
        assert_int_equal(txtime_probe_parse(frame, 14 + 15, &seq, &txtime), -EBADMSG);
        assert_int_equal(seq, 7);
        /* A damaged magic. */
        frame[14 + 3] = 'X';
        assert_int_equal(txtime_probe_parse(frame, sizeof(frame), &seq, &txtime), -EBADMSG);
        assert_int_equal(txtime_probe_parse(frame, 0, &seq, &txtime), -EBADMSG);
}

static void test_distribution(void **state) {
        int64_t v[100], one[1] = { -5 }, two[2] = { 9, 3 };
        TxtimeDistribution d = { .n = 42 };

        assert_int_equal(txtime_distribution(v, 0, &d), -ENODATA);
        assert_int_equal(d.n, 42);

        assert_int_equal(txtime_distribution(one, 1, &d), 0);
        assert_int_equal(d.n, 1);
        assert_true(d.min == -5 && d.median == -5 && d.p99 == -5 && d.max == -5);

        /* Even count: the lower median (rank ceil(n/2)). */
        assert_int_equal(txtime_distribution(two, 2, &d), 0);
        assert_true(d.min == 3 && d.median == 3 && d.p99 == 9 && d.max == 9);

        /* 100 values 1000, 999, ..., 901 (descending, sorted in place):
         * rank 50 is 950, rank 99 is 999. */
        for (int i = 0; i < 100; i++)
                v[i] = 1000 - i;
        assert_int_equal(txtime_distribution(v, 100, &d), 0);
        assert_int_equal(d.n, 100);
        assert_true(d.min == 901);
        assert_true(d.median == 950);
        assert_true(d.p99 == 999);
        assert_true(d.max == 1000);
        assert_true(v[0] == 901 && v[99] == 1000);

        /* 20 values (the selftest's default burst): p99 is the largest. */
        for (int i = 0; i < 20; i++)
                v[i] = i * 10 - 50;
        assert_int_equal(txtime_distribution(v, 20, &d), 0);
        assert_true(d.min == -50 && d.median == 40 && d.p99 == 140 && d.max == 140);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_payload),
                cmocka_unit_test(test_distribution),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

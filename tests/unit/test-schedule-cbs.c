/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The credit-based shaper's parameters from a bandwidth (IEEE 802.1Q
 * Annex L, lib/schedule-cbs.c), against examples computed by hand in the
 * comments; and how a cbs queue is checked and shown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json-util.h"
#include "cbs.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

static void expect(uint32_t bw, uint32_t frame, uint32_t interference, uint32_t speed,
                   int32_t idle, int32_t send, int32_t hi, int32_t lo) {
        CbsSpec c = {};

        assert_int_equal(cbs_compute(bw, frame, interference, speed, &c), 0);
        assert_int_equal(c.idle_slope_kbps, idle);
        assert_int_equal(c.send_slope_kbps, send);
        assert_int_equal(c.hi_credit_bytes, hi);
        assert_int_equal(c.lo_credit_bytes, lo);
}

static void test_compute(void **state) {
        /* tc-cbs(8)'s example: 20 Mbit/s on 1 Gbit/s, 1500-byte frames.
         *   portTransmitRate = 1000 * 1000         = 1000000 kbit/s
         *   idleSlope = 20000
         *   sendSlope = 20000 - 1000000            = -980000
         *   hiCredit  = 1500 * 20000 / 1000000     = 30      (exact)
         *   loCredit  = 1500 * -980000 / 1000000   = -1470   (exact)
         * The man page lists the same four. */
        expect(20000, 1500, 1500, 1000, 20000, -980000, 30, -1470);

        /* Class A of an i210 at 1 Gbit/s: 98688 kbit/s, frames of 1542
         * bytes (1522 + 20 of preamble, SFD and gap) on both sides:
         *   sendSlope = 98688 - 1000000            = -901312
         *   hiCredit  = 1542 * 98688 / 1000000     = 152.177 -> 153 (up)
         *   loCredit  = 1542 * -901312 / 1000000   = -1389.823 -> -1390 (away from 0) */
        expect(98688, 1542, 1542, 1000, 98688, -901312, 153, -1390);

        /* 100 Mbit/s link, 5 Mbit/s reserved, 256-byte frames, the default
         * interference of 1522 bytes:
         *   rate      = 100000 kbit/s
         *   sendSlope = 5000 - 100000              = -95000
         *   hiCredit  = 1522 * 5000 / 100000       = 76.1 -> 77
         *   loCredit  = 256 * -95000 / 100000      = -243.2 -> -244 */
        expect(5000, 256, TBS_CBS_DEFAULT_INTERFERENCE_BYTES, 100, 5000, -95000, 77, -244);

        /* 10 Gbit/s, 1 kbit/s, one-byte frames: the smallest credits are
         * still 1 and -1, never 0.
         *   hiCredit  = 1522 * 1 / 10000000        = 0.000152 -> 1
         *   loCredit  = 1 * -9999999 / 10000000    = -0.9999999 -> -1 */
        expect(1, 1, 1522, 10000, 1, -9999999, 1, -1);

        /* 400 Gbit/s, jumbo frames: 64-bit intermediates.
         *   rate      = 400000000 kbit/s, idle 300000000
         *   sendSlope = -100000000
         *   hiCredit  = 65535 * 300000000 / 400000000 = 49151.25 -> 49152
         *   loCredit  = 9000 * -100000000 / 400000000 = -2250 (exact) */
        expect(300000000, 9000, 65535, 400000, 300000000, -100000000, 49152, -2250);
}

static void test_compute_refused(void **state) {
        CbsSpec c = { .idle_slope_kbps = 7 };

        assert_int_equal(cbs_compute(1000000, 1500, 1500, 1000, &c), 0);     /* the whole link: send 0 */
        assert_int_equal(c.send_slope_kbps, 0);
        c = (CbsSpec) { .idle_slope_kbps = 7 };
        assert_int_equal(cbs_compute(1000001, 1500, 1500, 1000, &c), -ERANGE);
        assert_int_equal(cbs_compute(0, 1500, 1500, 1000, &c), -ERANGE);
        assert_int_equal(cbs_compute(100, 0, 1500, 1000, &c), -EINVAL);
        assert_int_equal(cbs_compute(100, 1500, 0, 1000, &c), -EINVAL);
        assert_int_equal(cbs_compute(100, 1500, 1500, 0, &c), -EINVAL);
        assert_int_equal(cbs_compute(100, 65536, 1500, 1000, &c), -ERANGE);
        assert_int_equal(cbs_compute(100, 1500, 1500, 3000000, &c), -ERANGE);  /* rate above INT32_MAX */
        assert_int_equal(c.idle_slope_kbps, 7);                                 /* untouched */
}

static void test_resolve(void **state) {
        CbsSpec raw = { .idle_slope_kbps = 1, .send_slope_kbps = -2, .hi_credit_bytes = 3, .lo_credit_bytes = -4 };
        CbsSpec bw = { .from_bandwidth = true, .bandwidth_kbps = 20000, .max_frame_bytes = 1500,
                       .max_interference_bytes = 1500 };
        CbsSpec r = {};

        /* Raw values are kept whatever the device says. */
        assert_int_equal(cbs_spec_resolve(&raw, 1000, &r), 0);
        assert_memory_equal(&r, &raw, sizeof(r));

        /* Without a speed nothing can be computed. */
        r = (CbsSpec) {};
        assert_int_equal(cbs_spec_resolve(&bw, 0, &r), -ENODATA);
        assert_int_equal(r.idle_slope_kbps, 0);

        /* The device's speed when the file has none ... */
        assert_int_equal(cbs_spec_resolve(&bw, 1000, &r), 0);
        assert_int_equal(r.send_slope_kbps, -980000);
        assert_int_equal(r.lo_credit_bytes, -1470);
        assert_true(r.from_bandwidth);
        assert_int_equal(r.bandwidth_kbps, 20000);

        /* ... the file's over the device's: 100 Mbit/s,
         *   sendSlope = 20000 - 100000 = -80000
         *   hiCredit  = 1500 * 20000 / 100000 = 300
         *   loCredit  = 1500 * -80000 / 100000 = -1200 */
        bw.link_speed_mbps = 100;
        assert_int_equal(cbs_spec_resolve(&bw, 1000, &r), 0);
        assert_int_equal(r.send_slope_kbps, -80000);
        assert_int_equal(r.hi_credit_bytes, 300);
        assert_int_equal(r.lo_credit_bytes, -1200);
        assert_int_equal(cbs_link_speed(&bw, 1000), 100);
}

static const char *const base =
        "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"
        " \"priority_map\": [0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
        " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1}]}, \"txqueues\": [%s]}";

static Schedule *load(const char *txqueues, const DeviceFacts *facts, DiagList *l) {
        char text[1024];
        Schedule *s = NULL;

        snprintf(text, sizeof(text), base, txqueues);
        if (schedule_parse_json("t.json", text, strlen(text), l, &s) < 0)
                return NULL;
        (void) schedule_verify(s, facts, l);
        return s;
}

static char *diag_lines(const DiagList *l) {
        char *all = strdup("");

        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *line = diag_format(&l->items[i]);
                char *n = NULL;

                assert_true(asprintf(&n, "%s%s%s", all, i ? "\n" : "", line) >= 0);
                free(all);
                all = n;
        }
        return all;
}

/* The file's link speed computes at parse time; the device's is used when
 * the file has none; the sum of reservations is checked against either. */
static void test_parse_and_verify(void **state) {
        DeviceFacts gig = { .link_speed_mbps = 1000 };
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *lines = NULL;
        DiagList l = {};

        s = load("{\"queue\": 0, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 20000, \"max_frame_bytes\": 1500,"
                 " \"max_interference_bytes\": 1500, \"link_speed_mbps\": 1000}", NULL, &l);
        assert_non_null(s);
        assert_int_equal(l.n, 0);
        assert_int_equal(s->txqueues[0].kind, TXQ_CBS);
        assert_int_equal(s->txqueues[0].offload, OFFLOAD_AUTO);
        assert_int_equal(s->txqueues[0].cbs.idle_slope_kbps, 20000);
        assert_int_equal(s->txqueues[0].cbs.send_slope_kbps, -980000);
        assert_int_equal(s->txqueues[0].cbs.hi_credit_bytes, 30);
        assert_int_equal(s->txqueues[0].cbs.lo_credit_bytes, -1470);
        schedule_free(TAKE_PTR(s));

        /* Without a speed the values wait for the device. */
        s = load("{\"queue\": 0, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 20000, \"max_frame_bytes\": 1500}", NULL, &l);
        assert_non_null(s);
        assert_int_equal(l.n, 0);
        assert_int_equal(s->txqueues[0].cbs.max_interference_bytes, TBS_CBS_DEFAULT_INTERFERENCE_BYTES);
        assert_int_equal(s->txqueues[0].cbs.idle_slope_kbps, 0);
        schedule_free(TAKE_PTR(s));

        /* A 1 Gbit/s device cannot carry 2 x 600 Mbit/s. */
        s = load("{\"queue\": 0, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 600000, \"max_frame_bytes\": 1500},"
                 "{\"queue\": 1, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 600000, \"max_frame_bytes\": 1500}", &gig, &l);
        assert_non_null(s);
        lines = diag_lines(&l);
        assert_string_equal(lines, "t.json: txqueues: the cbs queues reserve 1200000 kbit/s in all (the sum of "
                            "their idle slopes), more than the link's 1000000 kbit/s (1000 Mbit/s)");
        diag_list_clear(&l);
        schedule_free(TAKE_PTR(s));
        free(TAKE_PTR(lines));

        /* Raw values: sendSlope not idleSlope minus the rate is a warning;
         * offload on a queue the device cannot shape is refused. */
        gig.offload_known = true;
        gig.cbs_offload_mask = 0x3;
        s = load("{\"queue\": 0, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -900000,"
                 " \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470},"
                 "{\"queue\": 1, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
                 " \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470, \"offload\": true}", &gig, &l);
        assert_non_null(s);
        lines = diag_lines(&l);
        assert_string_equal(lines, "t.json: txqueues[0].send_slope_kbps: warning: is -900000 kbit/s, but "
                            "idle_slope_kbps minus the link's rate (1000 Mbit/s) is -980000 (IEEE 802.1Q "
                            "8.6.8.2); installed as given");
        assert_int_equal(diag_errors(&l), 0);
        diag_list_clear(&l);
        schedule_free(TAKE_PTR(s));
        free(TAKE_PTR(lines));

        gig.cbs_offload_mask = 0x1;
        s = load("{\"queue\": 1, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
                 " \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470, \"offload\": true}", &gig, &l);
        assert_non_null(s);
        lines = diag_lines(&l);
        assert_string_equal(lines, "t.json: txqueues[0].offload: cbs offload is not available on queue 1 of "
                            "this device (the NIC shapes only some of its queues)");
        diag_list_clear(&l);
}

/* --json shows a cbs queue as its file gave it, and that reads back. */
static void test_to_json(void **state) {
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList l = {};
        json_object *tx;

        s = load("{\"queue\": 0, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 20000, \"max_frame_bytes\": 1500,"
                 " \"offload\": false},"
                 "{\"queue\": 1, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
                 " \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470, \"link_speed_mbps\": 1000}", NULL, &l);
        assert_non_null(s);
        assert_int_equal(l.n, 0);
        _cleanup_json_ json_object *o = schedule_to_json(s);
        assert_non_null(o);
        tx = json_get(o, "txqueues");
        assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(tx, 0), 0),
                            "{\"queue\":0,\"qdisc\":\"cbs\",\"offload\":false,\"bandwidth_kbps\":20000,"
                            "\"max_frame_bytes\":1500,\"max_interference_bytes\":1522}");
        assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(tx, 1), 0),
                            "{\"queue\":1,\"qdisc\":\"cbs\",\"offload\":\"auto\",\"idle_slope_kbps\":20000,"
                            "\"send_slope_kbps\":-980000,\"hi_credit_bytes\":30,\"lo_credit_bytes\":-1470,"
                            "\"link_speed_mbps\":1000}");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_compute),
                cmocka_unit_test(test_compute_refused),
                cmocka_unit_test(test_resolve),
                cmocka_unit_test(test_parse_and_verify),
                cmocka_unit_test(test_to_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

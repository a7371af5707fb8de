/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A root's size table (lib/schedule-stab.c): the sizespec and table tc
 * would send for the same keys (worked out by hand below from tc-stab(8)'s
 * rules), the file's keys and their refusals, the comparison with a dump
 * and the JSON back. */
#include <linux/pkt_sched.h>
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
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

static void test_overhead_only(void **state) {
        /* tc ... stab overhead 24: no table, only the overhead goes */
        StabSpec s = { .given = true, .overhead = 24 };
        struct tc_sizespec z;

        stab_sizespec(&s, &z);
        assert_int_equal(z.overhead, 24);
        assert_int_equal(z.linklayer, 0);
        assert_int_equal(z.mtu, 0);
        assert_int_equal(z.tsize, 0);
        assert_int_equal(z.cell_log, 0);
        assert_int_equal(z.size_log, 0);
        assert_int_equal(z.cell_align, 0);
        assert_true(stab_needs_request(&s));

        /* linklayer ethernet alone needs no table either */
        s = (StabSpec) { .given = true, .linklayer = STAB_LINKLAYER_ETHERNET };
        stab_sizespec(&s, &z);
        assert_int_equal(z.linklayer, 1);
        assert_int_equal(z.tsize, 0);
}

static void test_table(void **state) {
        /* tc ... stab mpu 64 overhead 24: a table with tc's defaults, mtu
         * 2047 and 512 slots. cell_log: 2047 >> 1 = 1023 > 511, >> 2 = 511:
         * 2. The largest slot is 512 << 2 = 2048 bytes, within 16 bits:
         * size_log 0. Slot i covers (i + 1) * 4 bytes, at least 64. */
        StabSpec s = { .given = true, .overhead = 24, .mpu = 64 };
        struct tc_sizespec z;
        uint16_t t[TBS_STAB_TSIZE_MAX];

        stab_sizespec(&s, &z);
        assert_int_equal(z.mtu, 2047);
        assert_int_equal(z.tsize, 512);
        assert_int_equal(z.cell_log, 2);
        assert_int_equal(z.size_log, 0);
        assert_int_equal(z.cell_align, -1);
        assert_int_equal(z.mpu, 64);
        stab_table(&s, &z, t);
        assert_int_equal(t[0], 64);     /* 4 bytes count as the mpu */
        assert_int_equal(t[15], 64);    /* 64 */
        assert_int_equal(t[16], 68);
        assert_int_equal(t[511], 2048);

        /* ATM: 48 payload bytes per 53-byte cell. mtu 1500, 64 slots:
         * 1500 >> 4 = 93 > 63, >> 5 = 46: cell_log 5, slots of 32 bytes.
         * Slot 0: 32 bytes, one cell, 53; slot 1: 64 bytes, two, 106;
         * slot 63: 2048 bytes, 43 cells (2064 / 48), 2279. */
        s = (StabSpec) { .given = true, .linklayer = STAB_LINKLAYER_ATM, .mtu = 1500, .tsize = 64 };
        stab_sizespec(&s, &z);
        assert_int_equal(z.cell_log, 5);
        assert_int_equal(z.tsize, 64);
        stab_table(&s, &z, t);
        assert_int_equal(t[0], 53);
        assert_int_equal(t[1], 106);
        assert_int_equal(t[63], 2279);

        /* sizes above 16 bits move size_log up: mtu 65535 in 2 slots
         * gives cell_log 15 (65535 >> 15 = 1), slots up to 65536 bytes,
         * 65536 >> 1 fits: size_log 1 */
        s = (StabSpec) { .given = true, .mpu = 1, .mtu = 65535, .tsize = 2 };
        stab_sizespec(&s, &z);
        assert_int_equal(z.cell_log, 15);
        assert_int_equal(z.size_log, 1);
        stab_table(&s, &z, t);
        assert_int_equal(t[0], 16384);
        assert_int_equal(t[1], 32768);
}

static void test_equal(void **state) {
        StabSpec want = { .given = true, .overhead = 24, .mpu = 64 }, none = {};
        StabSpec dumped, other;
        struct tc_sizespec z;

        stab_sizespec(&want, &z);
        stab_from_sizespec(&z, &dumped);
        assert_true(dumped.dumped);
        assert_true(stab_equal(&want, &dumped));
        assert_true(stab_equal(&dumped, &want));
        assert_true(stab_equal(&dumped, &dumped));
        assert_false(stab_equal(&none, &dumped));
        assert_true(stab_equal(&none, &none));
        other = want;
        other.overhead = 20;
        assert_false(stab_equal(&other, &dumped));
        /* a dumped table tc's rules would not build is not the file's */
        z.cell_log = 3;
        stab_from_sizespec(&z, &other);
        assert_false(stab_equal(&want, &other));
        assert_non_null(stab_unexpressed(&other));
        assert_null(stab_unexpressed(&dumped));
}

static const char *const doc =
        "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"taprio\", \"num_tc\": 1, \"stab\": %s,"
        " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], \"queues\": [{\"count\": 1, \"offset\": 0}],"
        " \"entries\": [{\"command\": \"set-gates\", \"gate_mask\": 1, \"interval_ns\": 1000000}]}}";

/* The file's stab: the error lines of parse and verify, "" if none. */
static char *check(const char *stab, Schedule **ret) {
        _cleanup_(diag_list_clear) DiagList l = {};
        Schedule *s = NULL;
        char text[1024], *all = strdup("");

        snprintf(text, sizeof(text), doc, stab);
        if (schedule_parse_json("t.json", text, strlen(text), &l, &s) >= 0)
                (void) schedule_verify(s, NULL, &l);
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *line = diag_format(&l.items[i]);
                char *n = NULL;

                assert_true(asprintf(&n, "%s%s%s", all, i ? "\n" : "", line) >= 0);
                free(all);
                all = n;
        }
        if (ret)
                *ret = s;
        else
                schedule_free(s);
        return all;
}

static void expect_lines(const char *stab, const char *lines) {
        _cleanup_free_ char *got = check(stab, NULL);

        assert_string_equal(got, lines);
}

static void test_file(void **state) {
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *e = NULL;
        _cleanup_json_ json_object *o = NULL;

        e = check("{\"overhead\": 24, \"mpu\": 64, \"linklayer\": \"atm\", \"mtu\": 1500, \"tsize\": 64}", &s);
        assert_string_equal(e, "");
        assert_true(s->root.stab.given);
        assert_int_equal(s->root.stab.overhead, 24);
        assert_int_equal(s->root.stab.linklayer, STAB_LINKLAYER_ATM);
        o = schedule_to_json(s);
        assert_string_equal(json_object_to_json_string_ext(json_object_object_get(
                                    json_object_object_get(o, "root"), "stab"), JSON_C_TO_STRING_PLAIN),
                            "{\"overhead\":24,\"mpu\":64,\"mtu\":1500,\"tsize\":64,\"linklayer\":\"atm\"}");

        expect_lines("{}", "t.json: root.stab: changes nothing: give overhead, mpu or linklayer (the kernel gets "
                           "no size table without one of them)");
        expect_lines("{\"overhead\": 24, \"mtu\": 1500}",
                     "t.json: root.stab: mtu and tsize size a table, which only mpu or linklayer \"atm\" need: "
                     "with overhead alone (or linklayer \"ethernet\") every frame counts as its length plus "
                     "the overhead, for any length");
        expect_lines("{\"overhead\": 70000}", "t.json: root.stab.overhead: must be between -65535 and 65535, "
                                              "got 70000");
        expect_lines("{\"linklayer\": \"adsl\"}",
                     "t.json: root.stab.linklayer: unknown link layer \"adsl\"; expected \"ethernet\" or \"atm\"");
        expect_lines("{\"mpu\": 64, \"tsize\": 2048}", "t.json: root.stab.tsize: must be between 1 and 1024, "
                                                       "got 2048");
        expect_lines("{\"overhead\": 24, \"cell_log\": 2}",
                     "t.json: root.stab.cell_log: unknown key; known keys: overhead, mpu, mtu, tsize, linklayer");
}

/* A TX queue's table: parsed on etf and cbs, compared, and refused under
 * taprio (the kernel takes one only at the top of a TX queue). */
static void test_queue_tables(void **state) {
        static const char *const mq =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"%s\", \"num_tc\": 2,"
                " \"priority_map\": [0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"
                " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1}]%s},"
                " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000,"
                " \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470,"
                " \"stab\": {\"overhead\": 24}},"
                " {\"queue\": 1, \"delta_ns\": 300000, \"stab\": {\"mpu\": 64}}]}";
        _cleanup_(diag_list_clear) DiagList l = {};
        _cleanup_schedule_ Schedule *s = NULL;
        char text[1024];
        EtfSpec other;

        snprintf(text, sizeof(text), mq, "mqprio", "");
        assert_int_equal(schedule_parse_json("t.json", text, strlen(text), &l, &s), 0);
        assert_int_equal(schedule_verify(s, NULL, &l), 0);
        assert_int_equal(s->txqueues[0].stab.overhead, 24);
        assert_int_equal(s->txqueues[1].stab.mpu, 64);
        other = s->txqueues[0];
        other.stab.overhead = 20;
        assert_false(etf_spec_equal(&s->txqueues[0], &other));
        other.stab = (StabSpec) {};
        assert_false(etf_spec_equal(&s->txqueues[0], &other));
        schedule_free(TAKE_PTR(s));

        snprintf(text, sizeof(text), mq, "taprio",
                 ", \"entries\": [{\"command\": \"set-gates\", \"gate_mask\": 3, \"interval_ns\": 1000000}]");
        assert_int_equal(schedule_parse_json("t.json", text, strlen(text), &l, &s), 0);
        assert_true(schedule_verify(s, NULL, &l) < 0);
        assert_int_equal(l.n, 2);
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *line = diag_format(&l.items[i]);

                assert_non_null(strstr(line, i == 0 ? "txqueues[0].stab: a TX queue's size table needs an mqprio root"
                                                    : "txqueues[1].stab: a TX queue's size table needs an mqprio root"));
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_overhead_only),
                cmocka_unit_test(test_table),
                cmocka_unit_test(test_equal),
                cmocka_unit_test(test_file),
                cmocka_unit_test(test_queue_tables),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

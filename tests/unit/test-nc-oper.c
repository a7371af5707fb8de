/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational gate parameters from Describe() (netconf/nc-oper.c):
 * the schedule read from the document, the gate states at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../netconf/nc-oper.h"

#define DESCRIBE(kind, pending)                                                                         \
        "{\"interface\": \"vt0\", \"root\": {\"qdisc\": \"" kind "\", \"clockid\": \"CLOCK_TAI\","      \
        " \"change_pending\": " pending ", \"oper_schedule\": {\"base_time_ns\": 1000, \"cycle_time_ns\":" \
        " 1000000, \"cycle_time_extension_ns\": 7, \"entries\": ["                                       \
        "{\"command\": \"set-gates\", \"gate_mask\": \"0x1\", \"interval_ns\": 300000},"                 \
        "{\"command\": \"set-gates\", \"gate_mask\": \"0x106\", \"interval_ns\": 600000}]}}}"

static void test_taprio(void **state) {
        struct nc_oper o;
        (void) state;
        assert_int_equal(nc_oper_from_describe(DESCRIBE("taprio", "false"), &o), 0);
        assert_true(o.taprio);
        assert_false(o.change_pending);
        assert_int_equal(o.clockid, CLOCK_TAI);
        assert_int_equal(o.n_entries, 2);
        assert_int_equal(o.cycle_time_extension_ns, 7);
        assert_int_equal(nc_oper_gate_states(&o, 999), 0xff);          /* before the base time */
        assert_int_equal(nc_oper_gate_states(&o, 1000), 1);             /* the first entry */
        assert_int_equal(nc_oper_gate_states(&o, 1000 + 299999), 1);
        assert_int_equal(nc_oper_gate_states(&o, 1000 + 300000), 6);    /* bit 8 dropped */
        assert_int_equal(nc_oper_gate_states(&o, 1000 + 950000), 6);    /* after the entries, in the cycle */
        assert_int_equal(nc_oper_gate_states(&o, 1000 + 5 * 1000000 + 10), 1); /* a later cycle */
        assert_int_equal(nc_oper_from_describe(DESCRIBE("taprio", "true"), &o), 0);
        assert_true(o.change_pending);
}

/* The standard's oper-control-list, oper-cycle-time, oper-base-time. */
static void test_oper_schedule(void **state) {
        struct nc_oper o;
        uint32_t num = 0, den = 0, nsec = 0;
        uint64_t sec = 0;
        (void) state;
        assert_int_equal(nc_oper_from_describe(
                                 "{\"root\": {\"qdisc\": \"taprio\", \"clockid\": \"CLOCK_TAI\", \"change_pending\": false,"
                                 " \"oper_schedule\": {\"base_time_ns\": 1700000000123456789, \"cycle_time_ns\": 1000000,"
                                 " \"cycle_time_extension_ns\": 0, \"entries\": ["
                                 "{\"command\": \"set-gates\", \"gate_mask\": \"0x1\", \"interval_ns\": 300000},"
                                 "{\"command\": \"set-and-hold\", \"gate_mask\": \"0x1fe\", \"interval_ns\": 600000},"
                                 "{\"command\": \"set-and-release\", \"gate_mask\": 4, \"interval_ns\": 100000}]},"
                                 " \"admin_schedule\": null}}",
                                 &o),
                         0);
        assert_int_equal(o.n_entries, 3);
        assert_string_equal(nc_oper_operation_name(&o, 0), "set-gate-states");
        assert_string_equal(nc_oper_operation_name(&o, 1), "set-and-hold-mac");
        assert_string_equal(nc_oper_operation_name(&o, 2), "set-and-release-mac");
        assert_int_equal(nc_oper_entry_gates(&o, 0), 1);
        assert_int_equal(nc_oper_entry_gates(&o, 1), 0xfe); /* bit 8 dropped */
        assert_int_equal(nc_oper_entry_gates(&o, 2), 4);
        assert_int_equal(o.interval_ns[1], 600000);
        /* the cycle, reduced: 1 ms = 1/1000 s */
        assert_int_equal(nc_oper_rational(o.cycle_time_ns, &num, &den), 0);
        assert_int_equal(num, 1);
        assert_int_equal(den, 1000);
        assert_int_equal(nc_oper_rational(1500000000, &num, &den), 0);
        assert_int_equal(num, 3);
        assert_int_equal(den, 2);
        assert_int_equal(nc_oper_rational(333333, &num, &den), 0);
        assert_int_equal(num, 333333);
        assert_int_equal(den, 1000000000);
        assert_int_equal(nc_oper_rational(0, &num, &den), -1);
        assert_int_equal(nc_oper_rational(-5, &num, &den), -1);
        assert_int_equal(nc_oper_rational(INT64_MAX, &num, &den), -1); /* the numerator exceeds 32 bits */
        /* the base time as seconds and nanoseconds */
        assert_int_equal(nc_oper_ptp_time(o.base_time_ns, &sec, &nsec), 0);
        assert_int_equal(sec, 1700000000);
        assert_int_equal(nsec, 123456789);
        assert_int_equal(nc_oper_ptp_time(0, &sec, &nsec), 0);
        assert_int_equal(sec, 0);
        assert_int_equal(nsec, 0);
        assert_int_equal(nc_oper_ptp_time(-1, &sec, &nsec), -1);
        /* nothing pending: no config-change-time */
        int64_t at = 0;
        assert_int_equal(nc_oper_config_change_time(&o, 5, &at), -1);
}

/* A change waiting for its base time: config-change-time. */
#define PENDING(oper)                                                                                          \
        "{\"root\": {\"qdisc\": \"taprio\", \"change_pending\": true, \"oper_schedule\": " oper ","           \
        " \"admin_schedule\": {\"base_time_ns\": 10000, \"cycle_time_ns\": 1000, \"cycle_time_extension_ns\": 0," \
        " \"entries\": [{\"command\": \"set-gates\", \"gate_mask\": \"0x3\", \"interval_ns\": 1000}]}}}"

static void test_config_change_time(void **state) {
        struct nc_oper o;
        int64_t at = 0;
        (void) state;
        assert_int_equal(nc_oper_from_describe(PENDING("{\"base_time_ns\": 0, \"cycle_time_ns\": 500, \"entries\":"
                                                       " [{\"gate_mask\": \"0x1\", \"interval_ns\": 500}]}"),
                                               &o),
                         0);
        assert_true(o.taprio);
        assert_true(o.change_pending);
        assert_int_equal(o.n_entries, 1); /* the oper schedule's */
        assert_int_equal(nc_oper_config_change_time(&o, 4000, &at), 0);
        assert_int_equal(at, 10000); /* its base time, ahead */
        assert_int_equal(nc_oper_config_change_time(&o, 10000, &at), 0);
        assert_int_equal(at, 10000);
        assert_int_equal(nc_oper_config_change_time(&o, 12345, &at), 0);
        assert_int_equal(at, 13000); /* passed: the next start of its cycle */
        /* A first schedule waiting: no oper schedule, all gates open. */
        assert_int_equal(nc_oper_from_describe(PENDING("null"), &o), 0);
        assert_true(o.taprio);
        assert_int_equal(o.n_entries, 0);
        assert_int_equal(nc_oper_gate_states(&o, 20000), 0xff);
        assert_int_equal(nc_oper_config_change_time(&o, 0, &at), 0);
        assert_int_equal(at, 10000);
}

static void test_not_taprio(void **state) {
        struct nc_oper o;
        (void) state;
        assert_int_equal(nc_oper_from_describe(DESCRIBE("mqprio", "false"), &o), 0);
        assert_false(o.taprio);
        assert_int_equal(nc_oper_gate_states(&o, 5000), 0xff);
        assert_int_equal(nc_oper_from_describe("{\"interface\": \"vt0\", \"root\": null}", &o), 0);
        assert_false(o.taprio);
        assert_int_equal(nc_oper_from_describe("not json", &o), -1);
        assert_int_equal(nc_oper_from_describe("{\"root\": {\"qdisc\": \"taprio\"}}", &o), -1);
        assert_false(o.taprio);
}

static void test_state(void **state) {
        struct nc_oper_state st;
        (void) state;
        assert_int_equal(nc_oper_state_from_describe(
                                 "{\"interface\": \"ck0\", \"state\": \"degraded\", \"state_reason\": \"clock no-ptp4l\","
                                 " \"clock\": {\"state\": \"no-ptp4l\", \"reason\": \"no answer\"},"
                                 " \"txqueues\": [{\"queue\": 0, \"stats\": {\"packets\": 5, \"bytes\": 300,"
                                 " \"drops\": 2, \"overlimits\": 1}, \"monitor\": {\"running\": true, \"count\": 9,"
                                 " \"early\": 1, \"late\": 3, \"min_ns\": -40, \"max_ns\": 900}},"
                                 " {\"queue\": 3, \"stats\": null, \"monitor\": null}, {\"queue\": null}]}",
                                 &st),
                         0);
        assert_string_equal(st.origin, "");             /* no schedule kept: no origin */
        assert_string_equal(st.link_state, "degraded");
        assert_string_equal(st.link_reason, "clock no-ptp4l");
        assert_string_equal(st.clock_state, "no-ptp4l");
        assert_string_equal(st.clock_reason, "no answer");
        assert_int_equal(st.n_queues, 2); /* the entry without a queue number is left out */
        assert_int_equal(st.queues[0].queue, 0);
        assert_true(st.queues[0].have_stats);
        assert_int_equal(st.queues[0].sent_packets, 5);
        assert_int_equal(st.queues[0].sent_bytes, 300);
        assert_int_equal(st.queues[0].dropped, 2);
        assert_int_equal(st.queues[0].overlimits, 1);
        assert_true(st.queues[0].monitor);
        assert_int_equal(st.queues[0].launch_count, 9);
        assert_int_equal(st.queues[0].launch_early, 1);
        assert_int_equal(st.queues[0].launch_late, 3);
        assert_true(st.queues[0].have_launch_minmax);
        assert_int_equal(st.queues[0].launch_min_ns, -40);
        assert_int_equal(st.queues[0].launch_max_ns, 900);
        assert_int_equal(st.queues[1].queue, 3);
        assert_false(st.queues[1].have_stats);
        assert_false(st.queues[1].monitor);
        /* Without a clock check and queues: empty strings, no queues. */
        assert_int_equal(nc_oper_state_from_describe("{\"state\": \"configured\", \"state_reason\": null,"
                                                     " \"origin\": \"file\", \"clock\": null}", &st), 0);
        assert_string_equal(st.origin, "file");
        assert_string_equal(st.link_state, "configured");
        assert_string_equal(st.link_reason, "");
        assert_string_equal(st.clock_state, "");
        assert_int_equal(st.n_queues, 0);
        assert_int_equal(nc_oper_state_from_describe("[1]", &st), -1);
        assert_int_equal(nc_oper_state_from_describe(NULL, &st), -1);
}

/* The standard's counters: transmission-overrun per traffic class where
 * Describe()'s root.class_stats has tx_overruns (absent, not 0, where the
 * kernel gave none), config-change-error from the link's counters. */
static void test_counters(void **state) {
        struct nc_oper o;
        (void) state;
        assert_int_equal(nc_oper_from_describe(
                                 "{\"root\": {\"qdisc\": \"taprio\", \"oper_schedule\": {\"base_time_ns\": 0,"
                                 " \"cycle_time_ns\": 1000000, \"entries\": [{\"gate_mask\": \"0x7\", \"interval_ns\":"
                                 " 1000000}]}, \"class_stats\": [{\"class\": 0, \"tx_overruns\": 0,"
                                 " \"window_drops\": 4}, {\"class\": 1}, {\"class\": 2, \"tx_overruns\": 5000000000},"
                                 " {\"class\": 99, \"tx_overruns\": 1}, {\"tx_overruns\": 3}]},"
                                 " \"counters\": {\"applies\": 4, \"apply_failures\": 2, \"changes_refused\": 3}}",
                                 &o),
                         0);
        assert_true(o.taprio);
        assert_true(o.have_overruns[0]);
        assert_int_equal(o.overruns[0], 0);             /* a figure of 0 is a figure */
        assert_false(o.have_overruns[1]);               /* the kernel gave none for class 1 */
        assert_true(o.have_overruns[2]);
        assert_int_equal(o.overruns[2], UINT64_C(5000000000));
        for (unsigned tc = 3; tc < NC_OPER_MAX_CLASSES; tc++)
                assert_false(o.have_overruns[tc]);     /* beyond the classes, and no class number */
        assert_true(o.have_change_errors);
        assert_int_equal(o.change_errors, 5);
        /* A tbsd whose Describe() has neither (older): nothing is made up. */
        assert_int_equal(nc_oper_from_describe(DESCRIBE("taprio", "false"), &o), 0);
        for (unsigned tc = 0; tc < NC_OPER_MAX_CLASSES; tc++)
                assert_false(o.have_overruns[tc]);
        assert_false(o.have_change_errors);
        assert_int_equal(nc_oper_from_describe("{\"root\": {\"qdisc\": \"taprio\", \"oper_schedule\": {"
                                               "\"entries\": []}}, \"counters\": {\"apply_failures\": 1}}",
                                               &o),
                         0);
        assert_false(o.have_change_errors);             /* half of it is not the count */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_taprio),
                cmocka_unit_test(test_oper_schedule),
                cmocka_unit_test(test_config_change_time),
                cmocka_unit_test(test_not_taprio),
                cmocka_unit_test(test_state),
                cmocka_unit_test(test_counters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

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
                                                     " \"clock\": null}", &st), 0);
        assert_string_equal(st.link_state, "configured");
        assert_string_equal(st.link_reason, "");
        assert_string_equal(st.clock_state, "");
        assert_int_equal(st.n_queues, 0);
        assert_int_equal(nc_oper_state_from_describe("[1]", &st), -1);
        assert_int_equal(nc_oper_state_from_describe(NULL, &st), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_taprio),
                cmocka_unit_test(test_not_taprio),
                cmocka_unit_test(test_state),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

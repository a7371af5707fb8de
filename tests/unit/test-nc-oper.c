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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_taprio),
                cmocka_unit_test(test_not_taprio),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

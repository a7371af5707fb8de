/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame preemption's operational values from Describe()'s document
 * (netconf/nc-preemption-oper.c): what the MAC merge layer says, and
 * absent (not 0, not false) what it does not say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../netconf/nc-preemption-oper.h"

/* A layer that sends preemptable frames, verified, with four counters. */
static void test_layer(void **state) {
        struct nc_mm_oper o;
        (void) state;
        assert_int_equal(nc_mm_oper_from_describe(
                                 "{\"capabilities\":{\"mac_merge\":true},\"mac_merge\":{\"pmac_enabled\":true,"
                                 "\"tx_enabled\":true,\"tx_active\":true,\"verify_enabled\":true,\"verify_status\":"
                                 "\"succeeded\",\"counters\":{\"reassembly_errors\":1,\"smd_errors\":0,"
                                 "\"tx_fragments\":12345678901,\"hold\":7}}}",
                                 &o),
                         0);
        assert_string_equal(o.merge_support, "Supported");
        assert_string_equal(o.preemption_active, "true");
        assert_string_equal(o.status_tx, "active");
        assert_string_equal(o.verify_status, "succeeded");
        assert_int_equal(o.counters_present, 0x1 | 0x2 | 0x10 | 0x20);
        assert_int_equal(o.counters[0], 1);
        assert_int_equal(o.counters[1], 0);
        assert_true(o.counters[4] == 12345678901ULL);
        assert_int_equal(o.counters[5], 7);
        assert_string_equal(nc_mm_counter_leaves[4], "fragment-count-tx");
        /* Not active, a status the module does not name, no counters. */
        assert_int_equal(nc_mm_oper_from_describe("{\"mac_merge\":{\"tx_active\":false,\"verify_status\":\"odd\"}}", &o), 0);
        assert_string_equal(o.preemption_active, "false");
        assert_string_equal(o.status_tx, "inactive");
        assert_null(o.verify_status);
        assert_int_equal(o.counters_present, 0);
}

/* No layer (veth, igb): known, so NotSupported and not active; a layer
 * tbsd could not read (no capability said): nothing. */
static void test_no_layer(void **state) {
        struct nc_mm_oper o;
        (void) state;
        assert_int_equal(nc_mm_oper_from_describe("{\"capabilities\":{\"mac_merge\":false},\"mac_merge\":null}", &o), 0);
        assert_string_equal(o.merge_support, "NotSupported");
        assert_string_equal(o.preemption_active, "false");
        assert_null(o.status_tx);
        assert_null(o.verify_status);
        assert_int_equal(o.counters_present, 0);
        assert_int_equal(nc_mm_oper_from_describe("{\"capabilities\":{},\"mac_merge\":null}", &o), 0);
        assert_null(o.merge_support);
        assert_null(o.preemption_active);
        assert_int_equal(nc_mm_oper_from_describe("[1]", &o), -1);
        assert_int_equal(nc_mm_oper_from_describe("not json", &o), -1);
        assert_null(o.merge_support);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_layer),
                cmocka_unit_test(test_no_layer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

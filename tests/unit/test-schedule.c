/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "diag.h"
#include "qdisc-kind.h"
#include "schedule.h"

static void test_handles(void **state) {
        char buf[16];
        uint32_t h = 0;

        assert_int_equal(tc_handle_from_string("100:", &h), 0);
        assert_int_equal(h, 0x01000000);
        assert_string_equal(tc_handle_to_string(h, buf), "100:");
        assert_int_equal(tc_handle_from_string("100:4", &h), 0);
        assert_int_equal(h, 0x01000004);
        assert_string_equal(tc_handle_to_string(h, buf), "100:4");
        assert_int_equal(tc_handle_from_string("ffff:ffff", &h), 0);
        assert_int_equal(h, 0xffffffff);
        assert_string_equal(tc_handle_to_string(h, buf), "ffff:ffff");
        /* tc's notation ("%x:%x", no leading zeros, minor left out when 0) */
        assert_string_equal(tc_handle_to_string(0, buf), "0:");
        assert_string_equal(tc_handle_to_string(0x00010001, buf), "1:1");
        assert_string_equal(tc_handle_to_string(0xabc00010, buf), "abc0:10");
        assert_string_equal(tc_handle_to_string(0x0000f000, buf), "0:f000");
        assert_int_equal(tc_handle_from_string("10000:", &h), -EINVAL);
        assert_int_equal(tc_handle_from_string("0:", &h), -EINVAL);
        assert_int_equal(tc_handle_from_string("1x:", &h), -EINVAL);
        assert_int_equal(tc_handle_from_string("", &h), -EINVAL);
        assert_int_equal(h, 0xffffffff); /* untouched on failure */
}

static void test_tables(void **state) {
        assert_int_equal(root_kind_from_string("taprio"), ROOT_TAPRIO);
        assert_int_equal(root_kind_from_string("etf"), ROOT_ETF);
        assert_int_equal(root_kind_from_string("cbs"), ROOT_CBS);
        assert_int_equal(root_kind_from_string("tbs"), -EINVAL);
        assert_string_equal(taprio_mode_to_string(TAPRIO_MODE_TXTIME_ASSIST), "txtime-assist");
        assert_int_equal(gate_command_from_string("set-and-release"), GATE_SET_AND_RELEASE);
        assert_null(gate_command_to_string(_GATE_COMMAND_MAX));
        assert_int_equal(clockid_from_string("CLOCK_TAI"), CLOCK_TAI);
        assert_int_equal(clockid_from_string("tai"), CLOCK_TAI);
        assert_int_equal(clockid_from_string("CLOCK_FOO"), -EINVAL);
        assert_string_equal(clockid_to_string(CLOCK_MONOTONIC), "CLOCK_MONOTONIC");
}

static void test_tc_of_queue(void **state) {
        RootSpec r = {
                .num_tc = 3,
                .queues = { { 1, 0 }, { 1, 1 }, { 2, 2 } },
        };

        assert_int_equal(root_tc_of_queue(&r, 0), 0);
        assert_int_equal(root_tc_of_queue(&r, 1), 1);
        assert_int_equal(root_tc_of_queue(&r, 3), 2);
        assert_int_equal(root_tc_of_queue(&r, 4), -ENOENT);
        assert_int_equal(root_tcs_of_queue(&r, 3), 1U << 2);
        assert_int_equal(root_tcs_of_queue(&r, 4), 0);
        assert_int_equal(root_send_tc_of_queue(&r, 2), 2);
        assert_int_equal(root_send_tc_of_queue(&r, 4), -ENOENT);
        assert_true(root_tc_has_queue(&r, 2, 3));
        assert_false(root_tc_has_queue(&r, 1, 3));
        assert_false(root_tc_has_queue(&r, -1, 0));
        assert_false(root_tc_has_queue(&r, 3, 0));     /* past num_tc */
        assert_false(root_queues_may_overlap(&r));
}

/* taprio in txtime-assist mode may give one queue to several classes
 * (Linux 6.1 skips its overlap check there): every class holding the
 * queue is found, and a sender is sent through the lowest class that a
 * priority reaches and that holds the queue alone. */
static void test_tcs_of_shared_queue(void **state) {
        RootSpec r = {
                .kind = ROOT_TAPRIO,
                .taprio.mode = TAPRIO_MODE_TXTIME_ASSIST,
                .num_tc = 4,
                /* class 0: queues 0-1; classes 1, 2: queue 0; class 3: queue 1 */
                .queues = { { 2, 0 }, { 1, 0 }, { 1, 0 }, { 1, 1 } },
                /* priorities reach classes 0, 2 and 3; none reaches class 1 */
                .priority_map = { 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
        };

        assert_true(root_queues_may_overlap(&r));
        assert_int_equal(root_tcs_of_queue(&r, 0), 0x7);
        assert_int_equal(root_tcs_of_queue(&r, 1), 0x9);
        assert_int_equal(root_tcs_of_queue(&r, 2), 0);
        assert_int_equal(root_tc_of_queue(&r, 0), 0);
        assert_int_equal(root_tc_of_queue(&r, 1), 0);
        assert_true(root_tc_has_queue(&r, 1, 0));
        assert_true(root_tc_has_queue(&r, 2, 0));
        assert_false(root_tc_has_queue(&r, 3, 0));
        /* queue 0: class 1 holds it alone but no priority reaches it; class 2 */
        assert_int_equal(root_send_tc_of_queue(&r, 0), 2);
        /* queue 1: class 3 holds it alone */
        assert_int_equal(root_send_tc_of_queue(&r, 1), 3);

        /* No class of the queue alone: the lowest a priority reaches. */
        r.queues[2] = (QueueRange) { 2, 0 };
        r.queues[3] = (QueueRange) { 2, 0 };
        assert_int_equal(root_send_tc_of_queue(&r, 1), 0);
        /* No priority reaches any class of the queue: the lowest class. */
        memset(r.priority_map, 1, sizeof(r.priority_map));
        assert_int_equal(root_send_tc_of_queue(&r, 1), 0);

        /* Other roots never share queues. */
        r.taprio.mode = TAPRIO_MODE_SOFTWARE;
        assert_false(root_queues_may_overlap(&r));
        r.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        assert_false(root_queues_may_overlap(&r));
        r.kind = ROOT_MQPRIO;
        r.taprio.mode = TAPRIO_MODE_TXTIME_ASSIST;
        assert_false(root_queues_may_overlap(&r));
}

static void test_copy_equal(void **state) {
        _cleanup_schedule_ Schedule *s = calloc(1, sizeof(Schedule)), *c = NULL;
        GateEntry e[2] = { { GATE_SET_GATES, 0x1, 300000 }, { GATE_SET_GATES, 0x6, 700000 } };

        assert_non_null(s);
        s->source = strdup("x.json");
        s->root.kind = ROOT_TAPRIO;
        s->root.num_tc = 2;
        s->root.taprio.n_entries = 2;
        s->root.taprio.entries = malloc(sizeof(e));
        memcpy(s->root.taprio.entries, e, sizeof(e));
        s->txqueues = calloc(1, sizeof(EtfSpec));
        s->n_txqueues = 1;
        s->txqueues[0].etf.delta_ns = 200000;
        assert_int_equal(schedule_copy(s, &c), 0);
        assert_ptr_not_equal(c->root.taprio.entries, s->root.taprio.entries);
        assert_true(root_spec_equal(&s->root, &c->root));
        assert_true(etf_spec_equal(&s->txqueues[0], &c->txqueues[0]));
        c->root.taprio.entries[1].interval_ns++;
        assert_false(root_spec_equal(&s->root, &c->root));
        c->txqueues[0].etf.delta_ns++;
        assert_false(etf_spec_equal(&s->txqueues[0], &c->txqueues[0]));
}

static void test_diag_format(void **state) {
        DiagList l = {};
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;

        assert_int_equal(diag_error(&l, "eth0.json", "txqueues[1].delta_ns",
                                    "must be between 0 and %d, got %d", 2147483647, -5), 0);
        assert_int_equal(diag_warning(&l, "x.json", NULL, "odd"), 0);
        assert_int_equal(diag_error(&l, NULL, "", "bare"), 0);
        assert_int_equal(l.n, 3);
        assert_int_equal(diag_errors(&l), 2);
        a = diag_format(&l.items[0]);
        b = diag_format(&l.items[1]);
        c = diag_format(&l.items[2]);
        assert_string_equal(a, "eth0.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -5");
        assert_string_equal(b, "x.json: warning: odd");
        assert_string_equal(c, "bare");
        diag_list_clear(&l);
        assert_int_equal(l.n, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_handles),
                cmocka_unit_test(test_tables),
                cmocka_unit_test(test_tc_of_queue),
                cmocka_unit_test(test_tcs_of_shared_queue),
                cmocka_unit_test(test_copy_equal),
                cmocka_unit_test(test_diag_format),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

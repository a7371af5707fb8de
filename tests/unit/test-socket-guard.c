/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The socket guard's marks and filter plan (daemon/qdisc/socket-guard.c):
 * which mark a brokered socket gets, and what the egress filters of an
 * interface do to a packet of each mark, evaluated in preference order as
 * the kernel does (issue 46, point 6). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "socket-guard.h"

static void test_mark_layout(void **state) {
        uint32_t m;

        (void) state;
        assert_int_equal(socket_guard_mark(3, 7, &m), 0);
        assert_int_equal(m, 0x7b000037);
        assert_true(socket_guard_mark_is_tbsd(m));
        assert_int_equal(socket_guard_mark(SOCKET_GUARD_IFINDEX_MAX, 15, &m), 0);
        assert_int_equal(m, 0x7bffffff);
        /* Out of the mark's room: refused, not wrapped into another interface's. */
        assert_int_equal(socket_guard_mark(SOCKET_GUARD_IFINDEX_MAX + 1, 0, &m), -ERANGE);
        assert_int_equal(socket_guard_mark(3, 16, &m), -ERANGE);
        assert_int_equal(socket_guard_mark(0, 0, &m), -ERANGE);
        assert_int_equal(socket_guard_mark(-1, 0, &m), -ERANGE);
        /* Marks of other ranges are not tbsd's. */
        assert_false(socket_guard_mark_is_tbsd(0));
        assert_false(socket_guard_mark_is_tbsd(0x7a000037));
        assert_false(socket_guard_mark_is_tbsd(0x00000037));
}

static void test_plan_shape(void **state) {
        SocketGuardFilter plan[SOCKET_GUARD_FILTERS];

        (void) state;
        assert_int_equal(socket_guard_plan(5, plan), 0);
        for (unsigned i = 0; i < SOCKET_GUARD_FILTERS; i++)
                assert_int_equal(plan[i].pref, SOCKET_GUARD_PREF_FIRST + i);
        for (unsigned p = 0; p < SOCKET_GUARD_PRIORITIES; p++) {
                assert_int_equal(plan[p].action, SOCKET_GUARD_PIN);
                assert_int_equal(plan[p].priority, p);
                assert_int_equal(plan[p].shift, 0);
                assert_int_equal(plan[p].value, 0x7b000050 | p);
        }
        assert_int_equal(plan[16].action, SOCKET_GUARD_DROP);
        assert_int_equal(plan[16].shift, 24);
        assert_int_equal(plan[16].value, 0x7b);
        assert_int_equal(socket_guard_plan(SOCKET_GUARD_IFINDEX_MAX + 1, plan), -ERANGE);
}

/* Every mark of interface 5 gets its own priority on 5 and is dropped on 6;
 * marks outside tbsd's range go through both untouched. */
static void test_verdicts(void **state) {
        SocketGuardFilter on5[SOCKET_GUARD_FILTERS], on6[SOCKET_GUARD_FILTERS];
        uint32_t prio = 99, m;

        (void) state;
        assert_int_equal(socket_guard_plan(5, on5), 0);
        assert_int_equal(socket_guard_plan(6, on6), 0);
        for (uint32_t p = 0; p < SOCKET_GUARD_PRIORITIES; p++) {
                assert_int_equal(socket_guard_mark(5, p, &m), 0);
                assert_int_equal(socket_guard_verdict(on5, m, &prio), 1);
                assert_int_equal(prio, p);
                assert_int_equal(socket_guard_verdict(on6, m, NULL), -1);
        }
        /* An operator's marks, including ones that share low bits with ours. */
        assert_int_equal(socket_guard_verdict(on5, 0, NULL), 0);
        assert_int_equal(socket_guard_verdict(on5, 0x57, NULL), 0);
        assert_int_equal(socket_guard_verdict(on5, 0x7c000053, NULL), 0);
        /* tbsd's range with a mark tbsd never hands out on 5: dropped. */
        assert_int_equal(socket_guard_verdict(on5, 0x7b000000, NULL), -1);
        /* Interfaces whose indexes differ only above 20 bits cannot exist
         * here (refused above): 5 and 5 + 2^20 would share a mark. */
        assert_int_equal(socket_guard_plan(5 + (1 << 20), on6), -ERANGE);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mark_layout),
                cmocka_unit_test(test_plan_shape),
                cmocka_unit_test(test_verdicts),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPU budget of untrusted Validate() callers (daemon/bus/cpu-budget.c):
 * per user and for all together, debts, refill, the slots' reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "cpu-budget.h"

#define S 1000000ULL   /* a second in µs */

/* A user's burst goes, then it waits at its rate; another user still gets in. */
static void test_user_budget(void **state) {
        CpuBudget b = {};   /* zeroed: full */
        uint64_t wait = 0, t = 10 * S;
        bool all = true;
        unsigned n = 0;

        while (cpu_budget_admit(&b, 65534, t, NULL, NULL)) {
                cpu_budget_charge(&b, 65534, t, 10000);   /* 10 ms a call */
                n++;
                assert_true(n < 100);
        }
        assert_int_equal(n, CPU_BUDGET_USER_BURST_USEC / 10000);
        assert_false(cpu_budget_admit(&b, 65534, t, &wait, &all));
        assert_false(all);
        assert_int_equal(wait, 20);             /* level 0: 1 µs at 50 ms/s */
        assert_true(cpu_budget_admit(&b, 1000, t, NULL, NULL));
        /* one call of 500 ms leaves a debt of 400 ms: 8 s at 50 ms a second */
        cpu_budget_charge(&b, 1000, t, 500000);
        assert_false(cpu_budget_admit(&b, 1000, t + 7 * S, &wait, NULL));
        assert_int_equal(wait, 1 * S + 20);
        assert_true(cpu_budget_admit(&b, 1000, t + 8 * S + 1000, NULL, NULL));
        /* refilled up to the burst, not beyond */
        assert_true(cpu_budget_admit(&b, 65534, t + 3600 * S, NULL, NULL));
        cpu_budget_charge(&b, 65534, t + 3600 * S, CPU_BUDGET_USER_BURST_USEC);
        assert_false(cpu_budget_admit(&b, 65534, t + 3600 * S, NULL, NULL));
}

/* Many users together are held by the bucket of all callers. */
static void test_all_budget(void **state) {
        CpuBudget b;
        uint64_t wait = 0, t = 5 * S;
        bool all = false;
        uid_t uid = 2000;

        cpu_budget_init(&b);
        for (; cpu_budget_admit(&b, uid, t, NULL, NULL); uid++)
                cpu_budget_charge(&b, uid, t, 50000);
        assert_int_equal(uid - 2000, CPU_BUDGET_ALL_BURST_USEC / 50000);
        assert_false(cpu_budget_admit(&b, 99, t, &wait, &all));
        assert_true(all);
        assert_int_equal(wait, 10);              /* 1 µs at 100 ms/s */
        /* short steps add up: 1000 refills of 5 µs each give 0.5 ms */
        for (int i = 1; i <= 1000; i++)
                (void) cpu_budget_admit(&b, 99, t + (uint64_t) i * 5, NULL, NULL);
        assert_true(b.all.level_usec >= 499);
}

/* More users than slots: the longest idle one is forgotten (full again). */
static void test_slots(void **state) {
        CpuBudget b = {};

        for (uid_t u = 0; u < CPU_BUDGET_USERS; u++) {
                assert_true(cpu_budget_admit(&b, 3000 + u, S + u, NULL, NULL));
                cpu_budget_charge(&b, 3000 + u, S + u, 1);
        }
        cpu_budget_charge(&b, 3000, S + 100, 150000);          /* in debt, now the newest */
        assert_true(cpu_budget_admit(&b, 9999, S + 200, NULL, NULL));      /* takes 3001's slot */
        assert_false(cpu_budget_admit(&b, 3000, S + 300, NULL, NULL));
}

/* A connection's uid and trust are remembered for a while, per unique name. */
static void test_senders(void **state) {
        CpuBudget b = {};
        bool trusted = true;
        uid_t uid = 0;
        char name[16];

        assert_false(cpu_budget_sender_find(&b, ":1.7", S, &uid, &trusted));
        cpu_budget_sender_remember(&b, ":1.7", S, 65534, false);
        assert_true(cpu_budget_sender_find(&b, ":1.7", 2 * S, &uid, &trusted));
        assert_int_equal(uid, 65534);
        assert_false(trusted);
        assert_false(cpu_budget_sender_find(&b, ":1.70", 2 * S, &uid, &trusted));
        assert_false(cpu_budget_sender_find(&b, ":1.7", S + CPU_BUDGET_SENDER_USEC, &uid, &trusted));
        /* full: the oldest makes room */
        for (int i = 0; i < CPU_BUDGET_SENDERS; i++) {
                snprintf(name, sizeof(name), ":2.%d", i);
                cpu_budget_sender_remember(&b, name, 3 * S + (uint64_t) i, 1000 + (uid_t) i, i == 0);
        }
        assert_false(cpu_budget_sender_find(&b, ":1.7", 3 * S, &uid, &trusted));
        cpu_budget_sender_remember(&b, ":3.1", 4 * S, 0, true);
        assert_false(cpu_budget_sender_find(&b, ":2.0", 4 * S, &uid, &trusted));
        assert_true(cpu_budget_sender_find(&b, ":2.1", 4 * S, &uid, &trusted));
        assert_int_equal(uid, 1001);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_user_budget),
                cmocka_unit_test(test_all_budget),
                cmocka_unit_test(test_slots),
                cmocka_unit_test(test_senders),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

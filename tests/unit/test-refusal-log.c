/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/bus/refusal-log.c: the per-caller limit on refused-call log lines
 * (5000 refused calls once wrote 10 000 lines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "refusal-log.h"

#define SEC 1000000ULL

static void test_burst_then_count(void **state) {
        RefusalLimiter l;
        RefusalSummary s;
        unsigned logged = 0;

        refusal_limiter_init(&l, 10 * SEC, 5);
        assert_true(refusal_limiter_next_end(&l) == UINT64_MAX);
        for (unsigned i = 0; i < 5000; i++) {
                if (refusal_limiter_admit(&l, 65534, 100 * SEC + i, &s))
                        logged++;
                assert_true(s.suppressed == 0);         /* nothing ended yet */
        }
        assert_int_equal(logged, 5);
        assert_true(refusal_limiter_next_end(&l) == 110 * SEC);

        /* nothing is over before the window's end */
        assert_int_equal(refusal_limiter_expire(&l, 110 * SEC - 1, &s, 1), 0);
        /* at its end: one summary of the 4995 not logged */
        assert_int_equal(refusal_limiter_expire(&l, 110 * SEC, &s, 1), 1);
        assert_true(s.uid == 65534);
        assert_true(s.suppressed == 4995);
        assert_true(s.window_usec == 10 * SEC);
        assert_true(refusal_limiter_next_end(&l) == UINT64_MAX);
        assert_int_equal(refusal_limiter_expire(&l, 200 * SEC, &s, 1), 0);

        /* a new window logs again */
        assert_true(refusal_limiter_admit(&l, 65534, 120 * SEC, &s));
        assert_true(s.suppressed == 0);
}

/* Without the timer the next refusal after the window reports it. */
static void test_summary_on_next_refusal(void **state) {
        RefusalLimiter l;
        RefusalSummary s;

        refusal_limiter_init(&l, 10 * SEC, 2);
        assert_true(refusal_limiter_admit(&l, 1000, 0, &s));
        assert_true(refusal_limiter_admit(&l, 1000, 1, &s));
        assert_false(refusal_limiter_admit(&l, 1000, 2, &s));
        assert_false(refusal_limiter_admit(&l, 1000, 3, &s));
        assert_true(refusal_limiter_admit(&l, 1000, 10 * SEC, &s));
        assert_true(s.uid == 1000 && s.suppressed == 2);
        /* the new window started at 10 s */
        assert_true(refusal_limiter_admit(&l, 1000, 11 * SEC, &s));
        assert_true(s.suppressed == 0);
        assert_false(refusal_limiter_admit(&l, 1000, 12 * SEC, &s));
        assert_true(refusal_limiter_next_end(&l) == 20 * SEC);

        /* a window without suppressed refusals ends without a summary */
        assert_true(refusal_limiter_admit(&l, 7, 13 * SEC, &s));
        assert_int_equal(refusal_limiter_expire(&l, 30 * SEC, &s, 1), 1);
        assert_true(s.uid == 1000 && s.suppressed == 1);
        assert_true(refusal_limiter_admit(&l, 7, 31 * SEC, &s));
        assert_true(s.suppressed == 0);
}

/* Callers are limited apart: one flooding caller does not silence another. */
static void test_callers_apart(void **state) {
        RefusalLimiter l;
        RefusalSummary s;

        refusal_limiter_init(&l, 10 * SEC, 1);
        assert_true(refusal_limiter_admit(&l, 1, 0, &s));
        assert_false(refusal_limiter_admit(&l, 1, 1, &s));
        assert_true(refusal_limiter_admit(&l, 2, 2, &s));
        assert_false(refusal_limiter_admit(&l, 2, 3, &s));
        assert_false(refusal_limiter_admit(&l, 1, 4, &s));

        RefusalSummary sums[4];
        assert_int_equal(refusal_limiter_expire(&l, 10 * SEC + 2, sums, 4), 2);
        uint64_t total = sums[0].suppressed + sums[1].suppressed;
        assert_true(total == 3);
        assert_true(sums[0].uid != sums[1].uid);
}

/* More callers than slots: the oldest window ends early, with its summary,
 * so no count is lost and the table stays bounded. */
static void test_more_callers_than_slots(void **state) {
        RefusalLimiter l;
        RefusalSummary s;
        uint64_t reported = 0, refused = 0, logged = 0;

        refusal_limiter_init(&l, 10 * SEC, 1);
        for (uid_t u = 0; u < REFUSAL_LOG_CALLERS; u++)
                for (int k = 0; k < 3; k++) {
                        refused++;
                        logged += refusal_limiter_admit(&l, 1000 + u, u * 10 + (uint64_t) k, &s);
                        reported += s.suppressed;
                }
        assert_true(reported == 0);
        /* caller number 33: uid 1000's window (the oldest) ends now */
        refused++;
        logged += refusal_limiter_admit(&l, 5000, 1000, &s);
        assert_true(s.uid == 1000 && s.suppressed == 2);
        reported += s.suppressed;

        RefusalSummary sums[REFUSAL_LOG_CALLERS];
        size_t n = refusal_limiter_expire(&l, UINT64_MAX, sums, 4);
        assert_int_equal(n, 4);                  /* capped at max ... */
        for (size_t i = 0; i < n; i++)
                reported += sums[i].suppressed;
        n = refusal_limiter_expire(&l, UINT64_MAX, sums, REFUSAL_LOG_CALLERS);
        for (size_t i = 0; i < n; i++)           /* ... the rest come next time */
                reported += sums[i].suppressed;
        assert_true(logged + reported == refused);
        assert_true(logged == REFUSAL_LOG_CALLERS + 1);
        assert_true(refusal_limiter_next_end(&l) == UINT64_MAX);
}

static void test_defaults(void **state) {
        RefusalLimiter l;
        RefusalSummary s;
        unsigned logged = 0;

        refusal_limiter_init(&l, 0, 0);
        assert_true(l.window_usec == REFUSAL_LOG_WINDOW_USEC);
        for (int i = 0; i < 100; i++)
                logged += refusal_limiter_admit(&l, 65534, 5 * SEC, &s);
        assert_int_equal(logged, REFUSAL_LOG_BURST);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_then_count),
                cmocka_unit_test(test_summary_on_next_refusal),
                cmocka_unit_test(test_callers_apart),
                cmocka_unit_test(test_more_callers_than_slots),
                cmocka_unit_test(test_defaults),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/launch-hist.c: bucket edges (an error equal to a bound counts in that
 * bound's bucket, as Prometheus' "le" does), early and late errors, the
 * open-ended buckets, merging, and the quantile estimate against the exact
 * nearest-rank quantile of known distributions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>

#include "launch-hist.h"

static void test_bounds(void **state) {
        (void) state;
        /* ascending, symmetric, 1-2-5 per decade from 100 ns to 10 ms */
        for (unsigned i = 1; i < LAUNCH_HIST_BOUNDS; i++)
                assert_true(launch_hist_bounds_ns[i - 1] < launch_hist_bounds_ns[i]);
        for (unsigned i = 0; i < LAUNCH_HIST_BOUNDS; i++)
                assert_true(launch_hist_bounds_ns[i] == -launch_hist_bounds_ns[LAUNCH_HIST_BOUNDS - 1 - i]);
        assert_true(launch_hist_bounds_ns[0] == -10000000);
        assert_true(launch_hist_bounds_ns[LAUNCH_HIST_BOUNDS / 2] == 100);
        assert_true(launch_hist_bounds_ns[LAUNCH_HIST_BOUNDS - 1] == 10000000);
}

static void test_bucket_edges(void **state) {
        (void) state;
        for (unsigned i = 0; i < LAUNCH_HIST_BOUNDS; i++) {
                int64_t b = launch_hist_bounds_ns[i];
                assert_int_equal(launch_hist_bucket_of(b), i);
                assert_int_equal(launch_hist_bucket_of(b + 1), i + 1);
                assert_int_equal(launch_hist_bucket_of(b - 1), i);
        }
        /* -100 ns < e <= 100 ns is one bucket: "within 100 ns" */
        assert_int_equal(launch_hist_bucket_of(0), LAUNCH_HIST_BOUNDS / 2);
        assert_int_equal(launch_hist_bucket_of(-99), LAUNCH_HIST_BOUNDS / 2);
        assert_int_equal(launch_hist_bucket_of(-100), LAUNCH_HIST_BOUNDS / 2 - 1);
        assert_int_equal(launch_hist_bucket_of(INT64_MIN), 0);
        assert_int_equal(launch_hist_bucket_of(-10000001), 0);
        assert_int_equal(launch_hist_bucket_of(INT64_MAX), LAUNCH_HIST_BUCKETS - 1);
        assert_int_equal(launch_hist_bucket_of(10000001), LAUNCH_HIST_BUCKETS - 1);
}

static void test_add_signs(void **state) {
        LaunchHist h = {};
        int64_t q;

        (void) state;
        assert_int_equal(launch_hist_quantile(&h, 0.5, &q), -ENODATA);
        launch_hist_add(&h, -3000);
        launch_hist_add(&h, 0);
        launch_hist_add(&h, 250);
        launch_hist_add(&h, 20000000);
        assert_int_equal(h.count, 4);
        assert_int_equal(h.early, 1);
        assert_int_equal(h.late, 2);
        assert_true(h.min_ns == -3000);
        assert_true(h.max_ns == 20000000);
        assert_true(h.sum_ns == 20000000 - 3000 + 250);
        assert_int_equal(h.bucket[launch_hist_bucket_of(-3000)], 1);
        assert_int_equal(h.bucket[LAUNCH_HIST_BUCKETS - 1], 1);

        /* the sum saturates instead of overflowing */
        launch_hist_add(&h, INT64_MAX);
        assert_true(h.sum_ns == INT64_MAX);
        assert_int_equal(launch_hist_quantile(&h, 1.0, &q), 0);
        assert_true(q == INT64_MAX);
        assert_int_equal(launch_hist_quantile(&h, 0.0, &q), 0);
        assert_true(q == -3000);
        assert_int_equal(launch_hist_quantile(&h, 1.5, &q), -EINVAL);
        assert_int_equal(launch_hist_quantile(&h, -0.1, &q), -EINVAL);
}

static int cmp_i64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* The estimate lies in the same bucket as the exact nearest-rank quantile,
 * and within [min, max]. */
static void check_against_exact(int64_t *v, size_t n) {
        static const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0 };
        LaunchHist h = {};

        for (size_t i = 0; i < n; i++)
                launch_hist_add(&h, v[i]);
        qsort(v, n, sizeof(*v), cmp_i64);
        for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
                size_t rank = (size_t) (qs[k] * (double) n + 0.999999);
                int64_t exact = v[(rank ? rank : 1) - 1], est;

                assert_int_equal(launch_hist_quantile(&h, qs[k], &est), 0);
                assert_int_equal(launch_hist_bucket_of(est), launch_hist_bucket_of(exact));
                assert_true(est >= h.min_ns && est <= h.max_ns);
        }
}

static void test_quantile_uniform(void **state) {
        int64_t v[1000];
        LaunchHist h = {};
        int64_t est;

        (void) state;
        /* 1001..2000 ns, all in (1000, 2000]: interpolation gives the exact
         * median and p99 of a uniform distribution */
        for (int i = 0; i < 1000; i++)
                v[i] = 1001 + i;
        for (int i = 0; i < 1000; i++)
                launch_hist_add(&h, v[i]);
        assert_int_equal(launch_hist_quantile(&h, 0.5, &est), 0);
        assert_true(est >= 1499 && est <= 1501);
        assert_int_equal(launch_hist_quantile(&h, 0.99, &est), 0);
        assert_true(est >= 1989 && est <= 1991);
        check_against_exact(v, 1000);
}

static void test_quantile_spread(void **state) {
        int64_t v[5000];
        unsigned seed = 12345;

        (void) state;
        /* software etf on a busy host: mostly ~delta early, a long late tail */
        for (int i = 0; i < 5000; i++) {
                seed = seed * 1103515245u + 12345u;
                int64_t r = (int64_t) (seed >> 8) % 100000;
                v[i] = i % 50 == 0 ? 100000 + r * 30 : -200000 + r;
        }
        check_against_exact(v, 5000);
}

static void test_merge(void **state) {
        LaunchHist a = {}, b = {}, all = {};

        (void) state;
        for (int64_t e = -50000; e <= 50000; e += 777) {
                launch_hist_add(e < 0 ? &a : &b, e);
                launch_hist_add(&all, e);
        }
        launch_hist_merge(&a, &b);
        assert_memory_equal(&a, &all, sizeof(a));
        launch_hist_merge(&a, &(LaunchHist) {});
        assert_memory_equal(&a, &all, sizeof(a));
}

static void test_source_names(void **state) {
        (void) state;
        assert_string_equal(launch_stamp_source_to_string(LAUNCH_STAMP_NONE), "none");
        assert_string_equal(launch_stamp_source_to_string(LAUNCH_STAMP_SOFTWARE), "software");
        assert_string_equal(launch_stamp_source_to_string(LAUNCH_STAMP_HARDWARE), "hardware");
        assert_null(launch_stamp_source_to_string(_LAUNCH_STAMP_MAX));
        assert_null(launch_stamp_source_to_string(_LAUNCH_STAMP_INVALID));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_bucket_edges),
                cmocka_unit_test(test_add_signs),
                cmocka_unit_test(test_quantile_uniform),
                cmocka_unit_test(test_quantile_spread),
                cmocka_unit_test(test_merge),
                cmocka_unit_test(test_source_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

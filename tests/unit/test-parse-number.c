/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/parse-number.c: the strict parsers behind every numeric option of
 * tbsd and tbsctl (--watch, --count, --clock-interval, --stats-interval,
 * queue numbers, --log-level). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "log.h"
#include "parse-number.h"

#define S NSEC_PER_SEC

static void test_seconds(void **state) {
        static const struct {
                const char *s;
                int r;
                uint64_t ns;
        } cases[] = {
                { "1", 0, S },
                { "0.5", 0, S / 2 },
                { "3600", 0, 3600 * S },
                { "0.1", 0, S / 10 },
                { "2.000000001", 0, 2 * S + 1 },
                { "007", 0, 7 * S },
                /* the inputs: spin (inf, 1e30) or garbage accepted */
                { "inf", -EINVAL, 0 },
                { "INF", -EINVAL, 0 },
                { "infinity", -EINVAL, 0 },
                { "nan", -EINVAL, 0 },
                { "1e30", -EINVAL, 0 },
                { "1E2", -EINVAL, 0 },
                { "1abc", -EINVAL, 0 },
                { "0x10", -EINVAL, 0 },
                { "0x1p3", -EINVAL, 0 },
                { "-1", -EINVAL, 0 },
                { "+1", -EINVAL, 0 },
                { " 1", -EINVAL, 0 },
                { "1 ", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { ".5", -EINVAL, 0 },
                { "1.", -EINVAL, 0 },
                { "1.2.3", -EINVAL, 0 },
                { "1,5", -EINVAL, 0 },
                { "0.0000000001", -EINVAL, 0 },   /* finer than a nanosecond */
                /* bounds, and numbers beyond 64 bits of nanoseconds */
                { "0", -ERANGE, 0 },
                { "0.09", -ERANGE, 0 },
                { "3600.000000001", -ERANGE, 0 },
                { "18446744074", -ERANGE, 0 },
                { "99999999999999999999999999", -ERANGE, 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t ns = 42;
                int r = parse_seconds_ns(cases[i].s, S / 10, 3600 * S, &ns);

                if (r != cases[i].r)
                        print_error("'%s': %d\n", cases[i].s, r);
                assert_int_equal(r, cases[i].r);
                assert_int_equal(ns, r == 0 ? cases[i].ns : 42);
        }
        assert_int_equal(parse_seconds_ns(NULL, 0, 1, &(uint64_t) {0}), -EINVAL);
}

static void test_uint(void **state) {
        static const struct {
                const char *s;
                int r;
                uint64_t v;
        } cases[] = {
                { "0", 0, 0 },
                { "65534", 0, 65534 },
                { "0012", 0, 12 },
                { "65535", -ERANGE, 0 },
                { "18446744073709551615", -ERANGE, 0 },
                { "18446744073709551616", -ERANGE, 0 },
                { "-1", -EINVAL, 0 },
                { "+1", -EINVAL, 0 },
                { " 1", -EINVAL, 0 },
                { "1abc", -EINVAL, 0 },
                { "0x1", -EINVAL, 0 },
                { "1.0", -EINVAL, 0 },
                { "", -EINVAL, 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint64_t v = 42;
                int r = parse_uint64(cases[i].s, 0, 65534, &v);

                assert_int_equal(r, cases[i].r);
                assert_int_equal(v, r == 0 ? cases[i].v : 42);
        }
        assert_int_equal(parse_uint64("18446744073709551615", 0, UINT64_MAX, &(uint64_t) {0}), 0);
        assert_int_equal(parse_uint64("5", 6, 9, &(uint64_t) {0}), -ERANGE);
}

static void test_args(void **state) {
        uint64_t v = 0;

        /* zero_ok takes "0" besides the range, and only "0"-like text */
        assert_int_equal(parse_seconds_arg("--stats-interval", "0", true, S / 100, 3600 * S, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(parse_seconds_arg("--stats-interval", "0.000", true, S / 100, 3600 * S, &v), 0);
        assert_int_equal(parse_seconds_arg("--stats-interval", "0.001", true, S / 100, 3600 * S, &v), -EINVAL);
        assert_int_equal(parse_seconds_arg("--watch", "0", false, S / 10, 3600 * S, &v), -EINVAL);
        assert_int_equal(parse_seconds_arg("--watch", "0.25", false, S / 10, 3600 * S, &v), 0);
        assert_int_equal(v, S / 4);
        assert_int_equal(parse_uint_arg("--count", "1abc", 1, 100000, &v), -EINVAL);
        assert_int_equal(parse_uint_arg("--count", "100000", 1, 100000, &v), 0);
        assert_int_equal(v, 100000);
}

static void test_format(void **state) {
        char b[32];

        assert_string_equal(format_seconds_ns(S / 100, b), "0.01");
        assert_string_equal(format_seconds_ns(3600 * S, b), "3600");
        assert_string_equal(format_seconds_ns(S + 1, b), "1.000000001");
        assert_string_equal(format_seconds_ns(0, b), "0");
}

static void test_log_level(void **state) {
        assert_int_equal(log_level_from_string("7"), 7);
        assert_int_equal(log_level_from_string("0"), 0);
        assert_int_equal(log_level_from_string("Debug"), 7);
        assert_int_equal(log_level_from_string("error"), 3);
        assert_int_equal(log_level_from_string("8"), -EINVAL);
        assert_int_equal(log_level_from_string("+3"), -EINVAL);
        assert_int_equal(log_level_from_string(" 3"), -EINVAL);
        assert_int_equal(log_level_from_string("3x"), -EINVAL);
        assert_int_equal(log_level_from_string(""), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_seconds),
                cmocka_unit_test(test_uint),
                cmocka_unit_test(test_args),
                cmocka_unit_test(test_format),
                cmocka_unit_test(test_log_level),
        };

        /* parse_*_arg() log their refusals; keep the test output clean */
        log_set_max_level(-1);
        return cmocka_run_group_tests(tests, NULL, NULL);
}

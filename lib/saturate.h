/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Integer arithmetic on figures that come from outside (ptp4l's answers,
 * PHC ioctls, clock readings) without signed overflow: -INT64_MIN and
 * INT64_MAX + 1 are undefined in C, and a compiler may well turn
 * "abs(INT64_MIN) > limit" into false. Every offset compared with a limit
 * goes through offset_exceeds(). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/** |v| exactly, as an unsigned number: INT64_MIN gives 2^63. */
static inline uint64_t u64_magnitude(int64_t v) {
        return v < 0 ? (uint64_t) 0 - (uint64_t) v : (uint64_t) v;
}

/** Whether |offset| > limit (ns or s, any unit). A negative limit counts as
 *  0: every offset but 0 exceeds it. Defined for every int64_t, INT64_MIN
 *  included. */
static inline bool offset_exceeds(int64_t offset, int64_t limit) {
        return u64_magnitude(offset) > (limit < 0 ? 0 : (uint64_t) limit);
}

/** a + b, a - b and a * b clamped to [INT64_MIN, INT64_MAX]. */
static inline int64_t i64_sat_add(int64_t a, int64_t b) {
        int64_t r;

        if (!__builtin_add_overflow(a, b, &r))
                return r;
        return b > 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t i64_sat_sub(int64_t a, int64_t b) {
        int64_t r;

        if (!__builtin_sub_overflow(a, b, &r))
                return r;
        return b < 0 ? INT64_MAX : INT64_MIN;
}

static inline int64_t i64_sat_mul(int64_t a, int64_t b) {
        int64_t r;

        if (!__builtin_mul_overflow(a, b, &r))
                return r;
        return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

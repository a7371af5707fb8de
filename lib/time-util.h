/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The time now on a clock, in one unit. */
#pragma once

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC 1000000ULL

static inline uint64_t now_nsec(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static inline uint64_t now_usec(clockid_t clock) {
        return now_nsec(clock) / 1000;
}

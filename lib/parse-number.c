/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "parse-number.h"

/* Digits of s[0..n) into *ret; -ERANGE beyond 64 bits. */
static int digits(const char *s, size_t n, uint64_t *ret) {
        uint64_t v = 0;

        for (size_t i = 0; i < n; i++) {
                unsigned d = (unsigned) (s[i] - '0');

                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

int parse_uint64(const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        size_t n;
        uint64_t v;

        if (!s)
                return -EINVAL;
        n = strspn(s, "0123456789");
        if (n == 0 || s[n] != 0)
                return -EINVAL;
        if (digits(s, n, &v) < 0 || v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

int parse_seconds_ns(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *ret_ns) {
        uint64_t whole, frac = 0, ns;
        size_t n, f = 0;

        if (!s)
                return -EINVAL;
        n = strspn(s, "0123456789");
        if (n == 0)
                return -EINVAL;
        if (s[n] == '.') {
                f = strspn(s + n + 1, "0123456789");
                if (f == 0 || f > 9 || s[n + 1 + f] != 0)
                        return -EINVAL;
                (void) digits(s + n + 1, f, &frac);
                for (size_t i = f; i < 9; i++)
                        frac *= 10;
        } else if (s[n] != 0)
                return -EINVAL;
        if (digits(s, n, &whole) < 0 || whole > (UINT64_MAX - frac) / NSEC_PER_SEC)
                return -ERANGE;
        ns = whole * NSEC_PER_SEC + frac;
        if (ns < min_ns || ns > max_ns)
                return -ERANGE;
        *ret_ns = ns;
        return 0;
}

char *format_seconds_ns(uint64_t ns, char buf[static 32]) {
        int len = snprintf(buf, 32, "%" PRIu64, (uint64_t) (ns / NSEC_PER_SEC));

        if (ns % NSEC_PER_SEC) {
                snprintf(buf + len, (size_t) (32 - len), ".%09" PRIu64, (uint64_t) (ns % NSEC_PER_SEC));
                for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
                        *e = 0;
        }
        return buf;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one entry point every fuzz target defines. Built two ways
 * (fuzz/meson.build): with libFuzzer's main() (-Dfuzzing=true, clang), and
 * with replay-main.c, which runs each corpus file through the target once,
 * so the corpus is a regression test in every ordinary build.
 *
 * A target returns 0 for every input, good or bad; a broken invariant
 * (a result that contradicts the function's documented contract) calls
 * fuzz_fail(), which aborts, so libFuzzer records the input as a crash. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/** Run one input of size bytes through the target. Returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Report a broken invariant and abort. */
#define fuzz_fail(...)                                                          \
        do {                                                                    \
                fprintf(stderr, "%s:%d: invariant broken: ", __FILE__, __LINE__); \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
                abort();                                                        \
        } while (0)

/* fuzz_fail() with the failed expression in front of the message. */
#define fuzz_check(expr, fmt, ...)                                              \
        do {                                                                    \
                if (!(expr))                                                    \
                        fuzz_fail("%s: " fmt, #expr, ##__VA_ARGS__);            \
        } while (0)

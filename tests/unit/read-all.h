/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A whole text file as a NUL-terminated string, for unit tests (include
 * after cmocka.h; the test fails when the file cannot be read). */
#pragma once

#include <stdio.h>
#include <stdlib.h>

static inline char *read_all(const char *path) {
        FILE *f = fopen(path, "re");
        char *buf;
        long size;

        assert_non_null(f);
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        size = ftell(f);
        assert_true(size >= 0);
        rewind(f);
        buf = calloc(1, (size_t) size + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t) size, f), (size_t) size);
        fclose(f);
        return buf;
}

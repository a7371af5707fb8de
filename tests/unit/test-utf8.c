/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/utf8.c: strict UTF-8 decoding (what D-Bus accepts) and the escaping
 * of text from outside; diag_format() escapes file names with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "utf8.h"

static void test_decode(void **state) {
        static const struct {
                const char *s;
                int len;
                uint32_t cp;
        } cases[] = {
                { "A", 1, 0x41 },
                { "\xC2\x80", 2, 0x80 },
                { "\xDF\xBF", 2, 0x7FF },
                { "\xE0\xA0\x80", 3, 0x800 },
                { "\xED\x9F\xBF", 3, 0xD7FF },
                { "\xEE\x80\x80", 3, 0xE000 },
                { "\xEF\xBF\xBF", 3, 0xFFFF },
                { "\xF0\x90\x80\x80", 4, 0x10000 },
                { "\xF4\x8F\xBF\xBF", 4, 0x10FFFF },
                /* overlong forms */
                { "\xC0\xAF", -EILSEQ, 0 },
                { "\xC1\xBF", -EILSEQ, 0 },
                { "\xE0\x80\xAF", -EILSEQ, 0 },
                { "\xE0\x9F\xBF", -EILSEQ, 0 },
                { "\xF0\x80\x80\xAF", -EILSEQ, 0 },
                { "\xF0\x8F\xBF\xBF", -EILSEQ, 0 },
                /* surrogates */
                { "\xED\xA0\x80", -EILSEQ, 0 },
                { "\xED\xBF\xBF", -EILSEQ, 0 },
                /* above U+10FFFF, bytes that never occur */
                { "\xF4\x90\x80\x80", -EILSEQ, 0 },
                { "\xF5\x80\x80\x80", -EILSEQ, 0 },
                { "\xFF", -EILSEQ, 0 },
                /* a lone continuation byte, sequences cut short */
                { "\x80", -EILSEQ, 0 },
                { "\xC3", -EILSEQ, 0 },
                { "\xE2\x82", -EILSEQ, 0 },
                { "\xF0\x9F\x98", -EILSEQ, 0 },
                { "\xC3\x41", -EILSEQ, 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                uint32_t cp = 0xdeadbeef;
                int r = utf8_decode(cases[i].s, strlen(cases[i].s), &cp);

                assert_int_equal(r, cases[i].len);
                assert_int_equal(cp, r > 0 ? cases[i].cp : 0xdeadbeef);
        }
        assert_int_equal(utf8_decode("", 0, &(uint32_t) {0}), -EILSEQ);
        /* NUL is a character: a JSON string may hold it */
        assert_int_equal(utf8_invalid_at("a\0b", 3), 3);
        assert_int_equal(utf8_invalid_at("k\xC0\xAF", 3), 1);
        assert_int_equal(utf8_invalid_at("\xC3\xA9t\xC3\xA9\xFF", 6), 5);
        assert_true(utf8_is_valid_n("\xF0\x9F\x98\x80", 4));
        assert_false(utf8_is_valid_n("\xF0\x9F\x98\x80", 3));
}

static void test_escape(void **state) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "eth0", "eth0" },
                { "", "" },
                { "caf\xC3\xA9 \xE2\x82\xAC", "caf\xC3\xA9 \xE2\x82\xAC" },
                { "a\nb\tc\rd", "a\\nb\\tc\\rd" },
                { "\x1b[2J\x07\x7f", "\\x1b[2J\\x07\\x7f" },
                { "k\xC0\xAF", "k\\xc0\\xaf" },
                { "\xED\xA0\x80", "\\xed\\xa0\\x80" },
                { "x\xC2\x9B" "1m", "x\\u009b1m" },          /* C1 CSI */
                { "a\xE2\x80\xA8" "b\xE2\x80\xA9", "a\\u2028b\\u2029" },
                { "back\\slash \"q\"", "back\\slash \"q\"" }, /* kept: only what breaks a line or a terminal */
                { "\xC3", "\\xc3" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_free_ char *e = text_escape(cases[i].in), *b = NULL;
                const char *t;

                assert_non_null(e);
                assert_string_equal(e, cases[i].out);
                assert_true(text_is_safe(e));
                assert_int_equal(text_is_safe(cases[i].in), strcmp(cases[i].in, cases[i].out) == 0);
                t = text_safe(cases[i].in, &b);
                assert_string_equal(t, cases[i].out);
                /* no copy when nothing needs escaping */
                assert_true(b ? t == b : t == cases[i].in);
        }
}

static void test_cut(void **state) {
        /* "a" then 40 two-byte characters: byte 64 is inside one */
        char s[128] = "a";

        for (int i = 0; i < 40; i++)
                strcat(s, "\xC3\xA9");
        assert_int_equal(utf8_cut(s, 64), 63);
        assert_int_equal(utf8_cut(s, 63), 63);
        assert_int_equal(utf8_cut(s, 200), 81);
        assert_int_equal(utf8_cut(s, 0), 0);
        assert_int_equal(utf8_cut("\xF0\x9F\x98\x80x", 3), 0);
        assert_int_equal(utf8_cut("\xF0\x9F\x98\x80x", 4), 4);
        assert_int_equal(utf8_cut("abc", 3), 3);
        assert_true(utf8_is_valid_n(s, utf8_cut(s, 64)));
}

/* For JSON: only the bytes that are not UTF-8; JSON escapes the rest. */
static void test_escape_invalid_only(void **state) {
        _cleanup_free_ char *a = utf8_escape_invalid("a\n\x1b\xC3\xA9\xFF\xC0\xAF"), *b = utf8_escape_invalid("");

        assert_string_equal(a, "a\n\x1b\xC3\xA9\\xff\\xc0\\xaf");
        assert_string_equal(b, "");
}

/* The worst case of the escape's size: every byte a 4-byte "\xHH". */
static void test_escape_worst_case(void **state) {
        char in[257];
        _cleanup_free_ char *e = NULL;

        for (int i = 0; i < 256; i++)
                in[i] = (char) (0x80 | (i & 0x3f));   /* lone continuation bytes */
        in[256] = 0;
        e = text_escape(in);
        assert_non_null(e);
        assert_int_equal(strlen(e), 256 * 4);
}

/* A file name with a newline, an escape sequence and invalid UTF-8 stays
 * one line of valid UTF-8 in a diagnostic. */
static void test_diag_format_escapes(void **state) {
        _cleanup_free_ char *line = NULL, *warn = NULL;
        DiagList l = {};

        assert_int_equal(diag_error(&l, "schedules.d/a\nb\x1b[31m\xFF.json", "interface",
                                    "must be %s", "valid"), 0);
        assert_int_equal(diag_warning(&l, "x.json", NULL, "reason with\ra return"), 0);
        line = diag_format(&l.items[0]);
        warn = diag_format(&l.items[1]);
        assert_string_equal(line, "schedules.d/a\\nb\\x1b[31m\\xff.json: interface: must be valid");
        assert_string_equal(warn, "x.json: warning: reason with\\ra return");
        /* the list keeps the names as given */
        assert_string_equal(l.items[0].file, "schedules.d/a\nb\x1b[31m\xFF.json");
        diag_list_clear(&l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_escape_worst_case),
                cmocka_unit_test(test_cut),
                cmocka_unit_test(test_escape_invalid_only),
                cmocka_unit_test(test_diag_format_escapes),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every fuzz finding as a unit test (tests/unit/fixtures/fuzz/README.md
 * says what each input broke). Each test runs the recorded input the way
 * the fuzz target did and asserts the fixed behaviour exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "schedule.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/fuzz/"

/* Parse and verify text (no device facts) into d; returns the formatted
 * lines joined by '\n' (caller frees). */
static char *check_text(const char *text, size_t len, DiagList *d) {
        _cleanup_schedule_ Schedule *s = NULL;
        char *all = NULL;
        size_t n = 0;

        if (schedule_parse_json("fuzz.json", text, len, d, &s) == 0)
                (void) schedule_verify(s, NULL, d);
        for (size_t i = 0; i < d->n; i++) {
                _cleanup_free_ char *line = diag_format(&d->items[i]);
                size_t l;

                assert_non_null(line);
                /* The rule the finding broke: one diagnostic, one line. */
                assert_null(strchr(line, '\n'));
                l = strlen(line);
                all = realloc(all, n + l + 2);
                assert_non_null(all);
                memcpy(all + n, line, l);
                all[n + l] = '\n';
                n += l + 1;
                all[n] = 0;
        }
        return all;
}

static void test_ptp4l_socket_newline(void **state) {
        _cleanup_free_ char *text = NULL, *lines = NULL;
        DiagList d = {};
        size_t len;

        assert_int_equal(schedule_read_file(FIXTURES "schedule-ptp4l-socket-newline.json", "fuzz.json",
                                            &d, &text, &len), 0);
        lines = check_text(text, len, &d);
        assert_non_null(lines);
        /* Since the strict reader (lib/json-strict.c), a raw control
         * character inside a string is not JSON: a syntax error. */
        assert_string_equal(lines, "fuzz.json: line 27, column 29: syntax error: control character in a "
                                   "string; write it as an escape (\\n, \\t, \\u001b)\n");
        diag_list_clear(&d);
}

/* The same rule with a control character and a long value: escaped, and
 * cut at 64 bytes with "..." on a UTF-8 character boundary. */
static void test_ptp4l_socket_escaped_and_cut(void **state) {
        static const char doc[] =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"
                " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                " \"queues\": [{\"count\": 1, \"offset\": 0}]},"
                " \"txqueues\": [],"
                " \"clock\": {\"ptp4l_socket\": \"run\\tptp4l-\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
                "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"}}";
        _cleanup_free_ char *lines = NULL;
        DiagList d = {};

        lines = check_text(doc, strlen(doc), &d);
        assert_non_null(lines);
        /* The JSON text starts with 12 bytes ("run\tptp4l- and the quote);
         * 59 bytes fit before "...", so the cut keeps 23 two-byte characters
         * and drops the first byte of the 24th, to stay on a boundary. */
        assert_non_null(strstr(lines, "fuzz.json: clock.ptp4l_socket: must not contain control characters, got "
                                      "\"run\\tptp4l-"
                                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9...\n"));
        diag_list_clear(&d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ptp4l_socket_newline),
                cmocka_unit_test(test_ptp4l_socket_escaped_and_cut),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The strict reader's tree (lib/json-strict.c, lib/json-tree.c): what it
 * holds, how json_show() writes a value (as json-c's serialization, which
 * the messages were made with before), duplicate keys in large objects,
 * and a tree larger than its first block. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "json-strict.h"
#include "json-tree.h"

static int parse(const char *text, JsonTree **tree, const JsonNode **v, size_t *at, char why[JSON_STRICT_ERROR_MAX]) {
        return json_strict_parse(text, strlen(text), tree, v, at, why);
}

/* json-c's text of the string s[0..len), shown as the messages did. */
static const char *jsonc_show(const char *s, size_t len, char buf[static SHOW_MAX]) {
        json_object *o = json_object_new_string_len(s, (int) len);
        const char *r;

        assert_non_null(o);
        r = show_json_text(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE),
                           buf);
        json_object_put(o);
        return r;
}

static void test_show_string_as_jsonc(void **state) {
        char a[SHOW_MAX], b[SHOW_MAX], s[200];

        (void) state;
        /* Every byte alone, between others, and at the place of a cut. */
        for (int c = 0; c < 256; c++) {
                char one = (char) c;

                assert_string_equal(json_show_string(&one, 1, a), jsonc_show(&one, 1, b));
                snprintf(s, sizeof(s), "a%cb/c", c ? c : 'x');
                assert_string_equal(json_show_string(s, strlen(s), a), jsonc_show(s, strlen(s), b));
                for (size_t k = 50; k < 70; k++) {
                        memset(s, 'x', sizeof(s));
                        s[k] = one;
                        assert_string_equal(json_show_string(s, sizeof(s), a), jsonc_show(s, sizeof(s), b));
                }
        }
        /* Multi-byte characters across the cut, a NUL inside. */
        for (size_t k = 0; k < 80; k++) {
                size_t n = 0;

                memset(s, 0, sizeof(s));
                for (size_t i = 0; i < k; i++)
                        s[n++] = 'x';
                while (n + 3 < sizeof(s))
                        n += (size_t) snprintf(s + n, sizeof(s) - n, "\xE2\x82\xAC");
                assert_string_equal(json_show_string(s, n, a), jsonc_show(s, n, b));
                s[k] = 0;
                assert_string_equal(json_show_string(s, n, a), jsonc_show(s, n, b));
        }
}

/* Each value's json_show() is json-c's text of the same JSON (json-c's
 * tokener reads these alike), cut the same way. */
static void test_show_values(void **state) {
        static const char *const texts[] = {
                "0", "-0", "1", "-1", "123456789012345678", "9223372036854775807", "9223372036854775808",
                "-9223372036854775808", "18446744073709551615", "true", "false", "\"a\\u0001\\/\\\"\"",
                "\"\\u00e9\\ud83d\\ude00\"",
        };
        char a[SHOW_MAX], b[SHOW_MAX], why[JSON_STRICT_ERROR_MAX];

        (void) state;
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                _cleanup_json_tree_ JsonTree *tree = NULL;
                const JsonNode *v;
                json_object *o = json_tokener_parse(texts[i]);
                size_t at;

                assert_int_equal(parse(texts[i], &tree, &v, &at, why), 0);
                assert_non_null(o);
                assert_string_equal(json_show(v, a),
                                    show_json_text(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                                  JSON_C_TO_STRING_NOSLASHESCAPE), b));
                json_object_put(o);
        }
}

static void test_numbers(void **state) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        char why[JSON_STRICT_ERROR_MAX], sh[SHOW_MAX];
        const JsonNode *v;
        size_t at;

        (void) state;
        assert_int_equal(parse("[1, -0, 18446744073709551615, 18446744073709551616, -9223372036854775809, "
                               "9223372036854775807, 1.50e3, 123456789012345678901234567890]",
                               &tree, &v, &at, why), 0);
        assert_true(json_is(v, JSON_ARRAY));
        assert_int_equal(v->len, 8);
        assert_int_equal(json_index(v, 0)->i, 1);
        assert_int_equal(json_index(v, 1)->i, 0);
        assert_string_equal(json_show(json_index(v, 1), sh), "0");
        assert_true(json_index(v, 2)->above_int64);
        assert_false(json_index(v, 2)->overflowed);
        assert_int_equal(json_index(v, 2)->i, INT64_MAX);
        assert_true(json_index(v, 3)->overflowed);
        assert_string_equal(json_show(json_index(v, 3), sh), "18446744073709551616");
        assert_true(json_index(v, 4)->overflowed);
        assert_int_equal(json_index(v, 4)->i, INT64_MIN);
        assert_string_equal(json_show(json_index(v, 4), sh), "-9223372036854775809");
        assert_false(json_index(v, 5)->overflowed);
        assert_false(json_index(v, 5)->above_int64);
        assert_int_equal(json_index(v, 5)->i, INT64_MAX);
        assert_true(json_is(json_index(v, 6), JSON_DOUBLE));
        assert_true(json_index(v, 6)->d == 1500.0);
        assert_string_equal(json_show(json_index(v, 6), sh), "1.50e3");
        assert_string_equal(json_show(json_index(v, 7), sh), "123456789012345678901234567890");
}

static void test_members(void **state) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        char why[JSON_STRICT_ERROR_MAX], sh[SHOW_MAX];
        const JsonNode *v, *m;
        size_t at;

        (void) state;
        assert_int_equal(parse("{\"a\": null, \"ab\": \"x\\u0000y\", \"b\": {}, \"c\": [], \"\": true}",
                               &tree, &v, &at, why), 0);
        assert_int_equal(v->len, 5);
        assert_true(json_is(json_member(v, "a"), JSON_NULL));
        m = json_member(v, "ab");
        assert_true(json_is(m, JSON_STRING));
        assert_int_equal(m->len, 3);
        assert_memory_equal(m->text, "x\0y", 4);
        assert_string_equal(json_show(m, sh), "\"x\\u0000y\"");
        assert_true(json_is(json_member(v, "b"), JSON_OBJECT));
        assert_int_equal(json_member(v, "b")->len, 0);
        assert_true(json_is(json_member(v, "c"), JSON_ARRAY));
        assert_true(json_member(v, "")->b);
        assert_null(json_member(v, "d"));
        assert_null(json_member(json_member(v, "c"), "a"));
        /* Document order. */
        assert_string_equal(v->items[0].key, "a");
        assert_string_equal(v->items[4].key, "");
}

/* A duplicate is found wherever it is in an object of any size (past 16
 * members a hash set finds it), at the duplicate's offset. */
static void test_duplicates_in_large_objects(void **state) {
        (void) state;
        for (size_t n = 1; n <= 300; n += n < 40 ? 1 : 37) {
                size_t size = n * 16 + 64, off = 0, dup_at = 0;
                char *text = malloc(size), why[JSON_STRICT_ERROR_MAX];
                JsonTree *tree = NULL;
                const JsonNode *v;
                size_t at = 0;

                assert_non_null(text);
                off += (size_t) snprintf(text + off, size - off, "{");
                for (size_t i = 0; i < n; i++)
                        off += (size_t) snprintf(text + off, size - off, "%s\"k%zu\": %zu", i ? ", " : "", i, i);
                /* Unique: parses, every member found. */
                assert_int_equal(json_strict_parse(text, off, &tree, &v, &at, why), -EINVAL);    /* no '}' yet */
                text[off] = '}';
                assert_int_equal(json_strict_parse(text, off + 1, &tree, &v, &at, why), 0);
                assert_int_equal(v->len, n);
                for (size_t i = 0; i < n; i++) {
                        char k[16];

                        snprintf(k, sizeof(k), "k%zu", i);
                        assert_int_equal(json_member(v, k)->i, (int64_t) i);
                }
                tree = json_tree_free(tree);
                /* The first key again at the end. */
                dup_at = off + 2;
                off += (size_t) snprintf(text + off, size - off, ", \"k0\": 1}");
                assert_int_equal(json_strict_parse(text, off, &tree, &v, &at, why), -EINVAL);
                assert_null(tree);
                assert_int_equal(at, dup_at);
                assert_string_equal(why, "duplicate key \"k0\"");
                free(text);
        }
}

/* A tree larger than its first block (strings and nodes in later ones),
 * every value where it was written. */
static void test_large_tree(void **state) {
        size_t n = 20000, size = n * 40 + 16, off = 0, at;
        char *text = malloc(size), why[JSON_STRICT_ERROR_MAX], s[32];
        _cleanup_json_tree_ JsonTree *tree = NULL;
        const JsonNode *v;

        (void) state;
        assert_non_null(text);
        off += (size_t) snprintf(text + off, size - off, "[");
        for (size_t i = 0; i < n; i++)
                off += (size_t) snprintf(text + off, size - off, "%s[\"s%zu\\t\", %zu]", i ? "," : "", i, i);
        off += (size_t) snprintf(text + off, size - off, "]");
        assert_int_equal(json_strict_parse(text, off, &tree, &v, &at, why), 0);
        free(text);
        assert_int_equal(v->len, n);
        for (size_t i = 0; i < n; i++) {
                snprintf(s, sizeof(s), "s%zu\t", i);
                assert_string_equal(json_index(json_index(v, i), 0)->text, s);
                assert_int_equal(json_index(json_index(v, i), 1)->i, (int64_t) i);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_show_string_as_jsonc),
                cmocka_unit_test(test_show_values),
                cmocka_unit_test(test_numbers),
                cmocka_unit_test(test_members),
                cmocka_unit_test(test_duplicates_in_large_objects),
                cmocka_unit_test(test_large_tree),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

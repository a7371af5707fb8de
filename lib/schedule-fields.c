/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "schedule-fields.h"
#include "schedule-hints.h"
#include "utf8.h"

void perr(Parser *p, const char *path, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        if (diag_addv(p->diags, DIAG_ERROR, p->file, path, format, ap) < 0)
                p->oom = true;
        va_end(ap);
}

/* Append s[0..n) to buf[*at..JPATH_MAX), cutting it if need be (never in
 * practice: keys are known or checked to be short). A path is built for
 * every object parsed, so this stays clear of printf. */
static void put(char buf[static JPATH_MAX], size_t *at, const char *s, size_t n) {
        if (n > JPATH_MAX - 1 - *at)
                n = JPATH_MAX - 1 - *at;
        memcpy(buf + *at, s, n);
        *at += n;
        buf[*at] = 0;
}

void jpath_put(char buf[static JPATH_MAX], size_t *at, const char *s) {
        put(buf, at, s, strlen(s));
}

/* "prefix.key", or "key" at the top level. */
const char *jpath_key(char buf[static JPATH_MAX], const char *prefix, const char *key) {
        size_t at = 0;

        buf[0] = 0;
        if (prefix) {
                put(buf, &at, prefix, strlen(prefix));
                put(buf, &at, ".", 1);
        }
        put(buf, &at, key, strlen(key));
        return buf;
}

/* "prefix[i]" */
const char *jpath_index(char buf[static JPATH_MAX], const char *prefix, size_t i) {
        char num[24], *d = num + sizeof(num) - 1;
        size_t at = 0;

        *d = ']';
        do
                *--d = (char) ('0' + i % 10);
        while ((i /= 10) > 0);
        *--d = '[';
        buf[0] = 0;
        put(buf, &at, prefix, strlen(prefix));
        put(buf, &at, d, (size_t) (num + sizeof(num) - d));
        return buf;
}

/* Length of a JSON string, which may hold NUL characters. */
size_t str_len(const JsonNode *v) {
        return v->len;
}

/* How a JSON value appears in messages: scalars as their JSON text (long
 * strings cut short), containers as "an object" / "an array". */
const char *show(const JsonNode *v, char buf[static SHOW_MAX]) {
        return json_show(v, buf);
}

const char *type_with_article(JsonKind t) {
        switch (t) {
        case JSON_BOOLEAN:
                return "a boolean";
        case JSON_INTEGER:
                return "an integer";
        case JSON_STRING:
                return "a string";
        case JSON_OBJECT:
                return "an object";
        case JSON_ARRAY:
                return "an array";
        default:
                return "?";
        }
}

bool expect_type(Parser *p, const char *path, const JsonNode *v, JsonKind t) {
        char s[SHOW_MAX];

        if (json_is(v, t))
                return true;
        perr(p, path, "must be %s, got %s", type_with_article(t), show(v, s));
        return false;
}

/* Looks up prefix.key in o. Returns the value, or NULL when it is absent
 * (an error when required) or null (always an error). */
const JsonNode *member(Parser *p, const char *prefix, const JsonNode *o, const char *key,
                           bool required) {
        char path[JPATH_MAX];
        const JsonNode *v;

        v = json_member(o, key);
        if (v) {
                if (v->kind != JSON_NULL)
                        return v;
                perr(p, jpath_key(path, prefix, key), "must not be null%s",
                     required ? "" : "; leave the key out to get the default");
                return NULL;
        }
        if (required)
                perr(p, jpath_key(path, prefix, key), "required key is missing");
        return NULL;
}

/* Whether v is an integer in [min, max] (then *ret is set): what as_int()
 * accepts, without a path to report with. */
static bool int_in_range(const JsonNode *v, int64_t min, int64_t max, int64_t *ret) {
        int64_t x;

        if (!json_is(v, JSON_INTEGER) || v->overflowed || v->above_int64)
                return false;
        x = v->i;
        if (x < min || x > max)
                return false;
        *ret = x;
        return true;
}

/* Checks that v is an integer in [min, max]. Returns 0 and *ret, or -EINVAL
 * (reported). */
int as_int(Parser *p, const char *path, const JsonNode *v, int64_t min, int64_t max,
                  int64_t *ret) {
        char s[SHOW_MAX];
        int64_t x;

        if (!expect_type(p, path, v, JSON_INTEGER))
                return -EINVAL;
        x = v->i;
        /* Beyond 64 bits the value is saturated: out of every range, and
         * show() gives the number as written. */
        if (v->overflowed || v->above_int64 || x < min || x > max) {
                perr(p, path, "must be between %" PRIi64 " and %" PRIi64 ", got %s",
                     min, max, show(v, s));
                return -EINVAL;
        }
        *ret = x;
        return 0;
}

/* as_int() of element i of array a (whose path is prefix), the path
 * built only for an error. */
int as_int_index(Parser *p, const char *prefix, const JsonNode *a, size_t i, int64_t min, int64_t max,
                 int64_t *ret) {
        char path[JPATH_MAX];

        if (int_in_range(json_index(a, i), min, max, ret))
                return 0;
        return as_int(p, jpath_index(path, prefix, i), json_index(a, i), min, max, ret);
}

/* Optional or required integer member. Returns 1 when set, 0 when absent,
 * -EINVAL on a reported error. */
int get_int(Parser *p, const char *prefix, const JsonNode *o, const char *key, bool required,
                   int64_t min, int64_t max, int64_t *ret) {
        char path[JPATH_MAX];
        const JsonNode *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return required ? -EINVAL : 0;
        if (int_in_range(v, min, max, ret))
                return 1;       /* the path is built only for an error */
        if (as_int(p, jpath_key(path, prefix, key), v, min, max, ret) < 0)
                return -EINVAL;
        return 1;
}

int get_bool(Parser *p, const char *prefix, const JsonNode *o, const char *key, bool *ret) {
        char path[JPATH_MAX];
        const JsonNode *v;

        v = member(p, prefix, o, key, false);
        if (!v)
                return 0;
        if (!json_is(v, JSON_BOOLEAN) &&
            !expect_type(p, jpath_key(path, prefix, key), v, JSON_BOOLEAN))
                return -EINVAL;
        *ret = v->b;
        return 1;
}

/* Returns the string (owned by v) or NULL when absent or reported. A NUL
 * character is always refused; control characters unless controls_ok. */
const char *get_string_full(Parser *p, const char *prefix, const JsonNode *o, const char *key,
                                   bool required, bool controls_ok, const JsonNode **ret_value) {
        char path[JPATH_MAX], s[SHOW_MAX];
        const JsonNode *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return NULL;
        if (!json_is(v, JSON_STRING)) {
                (void) expect_type(p, jpath_key(path, prefix, key), v, JSON_STRING);
                return NULL;
        }
        /* No string field has a use for these; refusing them here keeps
         * every comparison below from stopping at a NUL, and every name
         * and path free of characters that would break a message. */
        if (has_nul(v)) {
                perr(p, jpath_key(path, prefix, key), "must not contain a NUL character, got %s", show(v, s));
                return NULL;
        }
        if (!controls_ok && !text_is_safe(v->text)) {
                perr(p, jpath_key(path, prefix, key), "must not contain control characters, got %s", show(v, s));
                return NULL;
        }
        if (ret_value)
                *ret_value = v;
        return v->text;
}

const char *get_string(Parser *p, const char *prefix, const JsonNode *o, const char *key,
                              bool required, const JsonNode **ret_value) {
        return get_string_full(p, prefix, o, key, required, false, ret_value);
}

const JsonNode *get_container(Parser *p, const char *prefix, const JsonNode *o, const char *key,
                                  bool required, JsonKind t) {
        char path[JPATH_MAX];
        const JsonNode *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return NULL;
        if (!json_is(v, t) && !expect_type(p, jpath_key(path, prefix, key), v, t))
                return NULL;
        return v;
}

bool key_is_simple(const char *k) {
        size_t n = 0;

        for (; k[n]; n++)
                if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= 'A' && k[n] <= 'Z') ||
                      (k[n] >= '0' && k[n] <= '9') || k[n] == '_' || k[n] == '-'))
                        return false;
        return n > 0 && n <= 64;
}

/* Reports every key of o that is not in keys (or not for the active kinds). */
void check_keys(Parser *p, const char *prefix, const JsonNode *o, const KeySpec *keys,
                       size_t n_keys, unsigned active) {
        check_keys_only(p, prefix, o, keys, n_keys, active, NULL);
}

void check_keys_only(Parser *p, const char *prefix, const JsonNode *o, const KeySpec *keys,
                     size_t n_keys, unsigned active, const char *const *only) {
        char known[512], path[JPATH_MAX], s[SHOW_MAX], hint[TC_HINT_MAX];

        known[0] = 0;
        for (uint32_t m = 0; m < o->len; m++) {
                const char *key = o->items[m].key;
                const JsonNode *val = &o->items[m];
                const KeySpec *k = NULL;

                /* A key is listed once in each table. */
                for (size_t i = 0; i < n_keys && !k; i++)
                        if (keys[i].name[0] == key[0] && strcmp(keys[i].name, key) == 0)
                                k = &keys[i];

                if (k && (k->kinds & active))
                        continue;
                /* An error from here on: the list of known keys for it
                 * (built once, only then). */
                if (!known[0])
                        for (size_t i = 0; i < n_keys; i++)
                                if (keys[i].kinds & active) {
                                        if (known[0])
                                                strcat(known, ", ");
                                        strcat(known, keys[i].name);
                                }
                if (k) {
                        /* Tables without only[] take every key of theirs in all kinds. */
                        perr(p, jpath_key(path, prefix, key), "%s",
                             only && only[__builtin_ctz(k->kinds)] ? only[__builtin_ctz(k->kinds)]
                                                                   : "not valid here");
                        continue;
                }
                if (key_is_simple(key) && tc_hint_key(key, val, keys, n_keys, active, hint))
                        perr(p, jpath_key(path, prefix, key), "unknown key%s", hint);
                else if (key_is_simple(key))
                        perr(p, jpath_key(path, prefix, key), "unknown key; known keys: %s", known);
                else
                        perr(p, prefix, "unknown key %s; known keys: %s", json_show_string(key, strlen(key), s),
                             known);
        }
}

void key_table_add(KeyTable *t, const char *name, unsigned kinds) {
        for (size_t i = 0; i < t->n; i++)
                if (strcmp(t->keys[i].name, name) == 0) {
                        t->keys[i].kinds |= kinds;
                        return;
                }
        assert(t->n < KEY_TABLE_MAX);
        t->keys[t->n++] = (KeySpec) { name, kinds };
}

void key_table_add_all(KeyTable *t, const KeySpec *keys, size_t n) {
        for (size_t i = 0; i < n; i++)
                key_table_add(t, keys[i].name, keys[i].kinds);
}

/* A qdisc's "clockid" (etf, taprio), into *ret. */
void parse_clockid(Parser *p, const char *prefix, const JsonNode *o, clockid_t *ret) {
        char path[JPATH_MAX], s[SHOW_MAX];
        const JsonNode *v = NULL;
        const char *t;
        int c;

        t = get_string(p, prefix, o, "clockid", false, &v);
        if (!t)
                return;
        c = clockid_from_string(t);
        if (c < 0 || has_nul(v)) {
                perr(p, jpath_key(path, prefix, "clockid"),
                     "unknown clock %s; expected \"CLOCK_TAI\", \"CLOCK_REALTIME\", "
                     "\"CLOCK_MONOTONIC\" or \"CLOCK_BOOTTIME\"", show(v, s));
                return;
        }
        *ret = c;
}

/* root.handle, into r->handle. */
void parse_handle(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX];
        const JsonNode *v = NULL;
        const char *t;
        uint32_t h;

        t = get_string(p, "root", root, "handle", false, &v);
        if (!t)
                return;
        if (has_nul(v) || tc_handle_from_string(t, &h) < 0) {
                perr(p, "root.handle", "must be a qdisc handle such as \"100:\", got %s", show(v, sh));
                return;
        }
        if ((h & 0xffffU) != 0) {
                perr(p, "root.handle", "must have minor number 0, such as \"100:\", got %s", show(v, sh));
                return;
        }
        if ((h >> 16) == 0xffffU) {
                perr(p, "root.handle", "major number ffff is reserved for the ingress and clsact qdiscs, got %s",
                     show(v, sh));
                return;
        }
        r->handle = h;
}

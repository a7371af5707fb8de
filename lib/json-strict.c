/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-strict.h"
#include "utf8.h"

typedef struct Reader {
        const char *s;
        size_t n, at;
        unsigned depth;
        JsonTree *tree;
        char *buf;              /* a string with escapes, being decoded */
        size_t buf_len, buf_size;
        JsonNode *stack;        /* the members of the open containers */
        size_t stack_len, stack_size;
        size_t error_at;
        char *error;            /* JSON_STRICT_ERROR_MAX bytes */
} Reader;

static int fail(Reader *p, size_t at, const char *why) {
        p->error_at = at;
        snprintf(p->error, JSON_STRICT_ERROR_MAX, "%s", why);
        return -EINVAL;
}

static int fail_here(Reader *p) {
        if (p->at >= p->n)
                return fail(p, p->n, "unexpected end of file");
        if (p->s[p->at] == '\'')
                return fail(p, p->at, "strings and keys must be in double quotes");
        return fail(p, p->at, "unexpected character");
}

/* Byte classes, so that the loops over white space and plain string
 * bytes (most of a schedule file) test one table entry a byte. */
enum {
        BLANK = 1,      /* space, tab, CR, LF */
        PLAIN = 2,      /* ASCII in a string as it is: not a control, '"' or '\\' */
};

static const uint8_t byte_class[256] = {
        [' '] = BLANK | PLAIN, ['\t'] = BLANK, ['\n'] = BLANK, ['\r'] = BLANK,
        ['!'] = PLAIN, ['#' ... '['] = PLAIN, [']' ... 0x7F] = PLAIN,
};

static void skip_blank(Reader *p) {
        const char *s = p->s;
        size_t at = p->at, n = p->n;

        /* In locals: a store through p could change what p points to. */
        while (at < n && (byte_class[(unsigned char) s[at]] & BLANK))
                at++;
        p->at = at;
}

static int buf_put(Reader *p, const char *b, size_t k) {
        if (p->buf_len + k + 1 > p->buf_size) {
                size_t size = (p->buf_len + k + 1) * 2;
                char *nb = realloc(p->buf, size);

                if (!nb)
                        return -ENOMEM;
                p->buf = nb;
                p->buf_size = size;
        }
        memcpy(p->buf + p->buf_len, b, k);
        p->buf_len += k;
        p->buf[p->buf_len] = 0;
        return 0;
}

static int hex4(const char *s, uint32_t *ret) {
        uint32_t v = 0;

        for (int i = 0; i < 4; i++) {
                char c = s[i];

                v <<= 4;
                if (c >= '0' && c <= '9')
                        v |= (uint32_t) (c - '0');
                else if (c >= 'a' && c <= 'f')
                        v |= (uint32_t) (c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        v |= (uint32_t) (c - 'A' + 10);
                else
                        return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int put_code_point(Reader *p, uint32_t cp) {
        char b[4];
        size_t k;

        if (cp < 0x80) {
                b[0] = (char) cp;
                k = 1;
        } else if (cp < 0x800) {
                b[0] = (char) (0xC0 | cp >> 6);
                b[1] = (char) (0x80 | (cp & 0x3F));
                k = 2;
        } else if (cp < 0x10000) {
                b[0] = (char) (0xE0 | cp >> 12);
                b[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
                b[2] = (char) (0x80 | (cp & 0x3F));
                k = 3;
        } else {
                b[0] = (char) (0xF0 | cp >> 18);
                b[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
                b[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
                b[3] = (char) (0x80 | (cp & 0x3F));
                k = 4;
        }
        return buf_put(p, b, k);
}

/* A "\uXXXX" escape at p->at (the backslash), with its low surrogate when
 * it is a high one. */
static int read_u_escape(Reader *p) {
        size_t start = p->at;
        uint32_t cp, lo;

        if (p->n - p->at < 6 || hex4(p->s + p->at + 2, &cp) < 0)
                return fail(p, start, "invalid \\u escape; expected four hex digits");
        p->at += 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
                return fail(p, start, "invalid \\u escape: a low surrogate without a high one");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (p->n - p->at < 6 || p->s[p->at] != '\\' || p->s[p->at + 1] != 'u' ||
                    hex4(p->s + p->at + 2, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
                        return fail(p, start, "invalid \\u escape: a high surrogate without a low one");
                p->at += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        return put_code_point(p, cp);
}

/* The string starting at p->at (its opening quote), decoded into p->buf. */
static int decode_string(Reader *p) {
        p->buf_len = 0;
        if (buf_put(p, "", 0) < 0)
                return -ENOMEM;
        p->at++;
        for (;;) {
                size_t run = p->at;
                unsigned char c;
                int r;

                /* The plain bytes up to the next quote, escape, control or
                 * non-ASCII byte, in one copy. */
                while (run < p->n && (unsigned char) p->s[run] >= 0x20 && (unsigned char) p->s[run] < 0x80 &&
                       p->s[run] != '"' && p->s[run] != '\\')
                        run++;
                if (run > p->at && buf_put(p, p->s + p->at, run - p->at) < 0)
                        return -ENOMEM;
                p->at = run;
                if (p->at >= p->n)
                        return fail(p, p->n, "unexpected end of file");
                c = (unsigned char) p->s[p->at];
                if (c == '"') {
                        p->at++;
                        return 0;
                }
                if (c < 0x20)
                        return fail(p, p->at, "control character in a string; write it as an escape (\\n, \\t, \\u001b)");
                if (c == '\\') {
                        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
                        const char *e;

                        if (p->at + 1 >= p->n)
                                return fail(p, p->n, "unexpected end of file");
                        if (p->s[p->at + 1] == 'u') {
                                r = read_u_escape(p);
                                if (r < 0)
                                        return r;
                                continue;
                        }
                        e = p->s[p->at + 1] ? strchr(from, p->s[p->at + 1]) : NULL;
                        if (!e)
                                return fail(p, p->at, "invalid escape sequence");
                        if (buf_put(p, &to[e - from], 1) < 0)
                                return -ENOMEM;
                        p->at += 2;
                        continue;
                }
                {
                        uint32_t cp;
                        int k = utf8_decode(p->s + p->at, p->n - p->at, &cp);

                        if (k < 0)
                                return fail(p, p->at, "invalid UTF-8 in a string");
                        if (buf_put(p, p->s + p->at, (size_t) k) < 0)
                                return -ENOMEM;
                        p->at += (size_t) k;
                }
        }
}

/* The string at p->at (its opening quote) into the tree: *ret, NUL-
 * terminated, of *ret_len bytes. One without escapes (nearly every string
 * of a schedule) is copied from the text as it is; another is decoded by
 * decode_string(), which also finds what is wrong with a bad one. */
static int read_string(Reader *p, const char **ret, uint32_t *ret_len) {
        const char *s = p->s;
        size_t run = p->at + 1, n = p->n, len;
        const char *from;
        char *t;
        int r;

        while (run < n) {
                uint32_t cp;
                int k;

                if (byte_class[(unsigned char) s[run]] & PLAIN) {
                        run++;
                        continue;
                }
                if ((unsigned char) s[run] < 0x80 || (k = utf8_decode(s + run, n - run, &cp)) < 0)
                        break;
                run += (size_t) k;
        }
        if (run < n && s[run] == '"') {
                from = p->s + p->at + 1;
                len = run - p->at - 1;
                p->at = run + 1;
        } else {
                r = decode_string(p);
                if (r < 0)
                        return r;
                from = p->buf;
                len = p->buf_len;
        }
        t = json_tree_alloc(p->tree, len + 1);
        if (!t)
                return -ENOMEM;
        memcpy(t, from, len);
        t[len] = 0;
        *ret = t;
        *ret_len = (uint32_t) len;
        return 0;
}

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static int read_number(Reader *p, JsonNode *ret) {
        _cleanup_free_ char *text = NULL;
        const char *s = p->s;
        size_t start = p->at, at = p->at, n = p->n;
        bool integer = true, negative = false;

        /* In locals, as in skip_blank(); p->at is set on every way out. */
        if (s[at] == '-') {
                negative = true;
                at++;
        }
        if (at >= n)
                return p->at = at, fail(p, n, "unexpected end of file");
        if (s[at] == '0') {
                at++;
                if (at < n && is_digit(s[at]))
                        return p->at = at, fail(p, at, "a number must not have leading zeros");
        } else if (is_digit(s[at])) {
                while (at < n && is_digit(s[at]))
                        at++;
        } else
                return p->at = at, fail(p, at, "number expected");
        if (at < n && s[at] == '.') {
                integer = false;
                at++;
                if (at >= n || !is_digit(s[at]))
                        return p->at = at, fail(p, at, "digit expected after the decimal point");
                while (at < n && is_digit(s[at]))
                        at++;
        }
        if (at < n && (s[at] == 'e' || s[at] == 'E')) {
                integer = false;
                at++;
                if (at < n && (s[at] == '+' || s[at] == '-'))
                        at++;
                if (at >= n || !is_digit(s[at]))
                        return p->at = at, fail(p, at, "digit expected in the exponent");
                while (at < n && is_digit(s[at]))
                        at++;
        }
        p->at = at;
        *ret = (JsonNode) {
                .kind = integer ? JSON_INTEGER : JSON_DOUBLE,
                .text = s + start,
                .len = (uint32_t) (at - start),
        };

        /* An integer of up to 18 digits (nearly every number of a
         * schedule) cannot overflow: its value without a copy and strtoll. */
        if (integer && at - start - negative <= 18) {
                int64_t x = 0;

                for (size_t i = start + negative; i < at; i++)
                        x = x * 10 + (s[i] - '0');
                ret->i = negative ? -x : x;
                return 0;
        }

        text = strndup(s + start, at - start);
        if (!text)
                return -ENOMEM;
        errno = 0;
        if (!integer)
                ret->d = strtod(text, NULL);
        else if (negative) {
                ret->i = strtoll(text, NULL, 10);
                ret->overflowed = errno == ERANGE;
        } else {
                unsigned long long x = strtoull(text, NULL, 10);

                ret->overflowed = errno == ERANGE;
                ret->above_int64 = x > INT64_MAX;
                ret->i = ret->above_int64 ? INT64_MAX : (int64_t) x;
        }
        return 0;
}

static int read_literal(Reader *p, JsonNode *ret) {
        static const char *const words[] = { "true", "false", "null" };

        for (size_t i = 0; i < ELEMENTSOF(words); i++) {
                size_t k = strlen(words[i]);

                if (p->s[p->at] != words[i][0])
                        continue;
                for (size_t j = 1; j < k; j++)
                        if (p->at + j >= p->n || p->s[p->at + j] != words[i][j])
                                return fail(p, p->at + j, p->at + j >= p->n ? "unexpected end of file" :
                                            "invalid literal; expected true, false or null");
                p->at += k;
                *ret = i == 2 ? (JsonNode) { .kind = JSON_NULL } : (JsonNode) { .kind = JSON_BOOLEAN, .b = i == 0 };
                return 0;
        }
        return fail_here(p);
}

static int read_value(Reader *p, JsonNode *ret);

/* After a member of an array or object: 1 on ',' (another follows), 0 on
 * close (the container ends), or the error of anything else. */
static int read_separator(Reader *p, char close) {
        skip_blank(p);
        if (p->at < p->n && (p->s[p->at] == ',' || p->s[p->at] == close)) {
                p->at++;
                return p->s[p->at - 1] == ',';
        }
        return fail_here(p);
}

static int push(Reader *p, const JsonNode *v) {
        if (p->stack_len == p->stack_size) {
                size_t size = p->stack_size ? p->stack_size * 2 : 64;
                JsonNode *s = reallocarray(p->stack, size, sizeof(JsonNode));

                if (!s)
                        return -ENOMEM;
                p->stack = s;
                p->stack_size = size;
        }
        p->stack[p->stack_len++] = *v;
        return 0;
}

/* The members pushed since base become the items of container c. */
static int close_container(Reader *p, size_t base, JsonKind kind, JsonNode *c) {
        size_t n = p->stack_len - base;
        JsonNode *items = NULL;

        if (n > 0) {
                items = json_tree_alloc(p->tree, n * sizeof(JsonNode));
                if (!items)
                        return -ENOMEM;
                memcpy(items, p->stack + base, n * sizeof(JsonNode));
        }
        p->stack_len = base;
        *c = (JsonNode) { .kind = kind, .items = items, .len = (uint32_t) n };
        return 0;
}

static int read_array(Reader *p, JsonNode *ret) {
        size_t base = p->stack_len;
        int r;

        p->at++;
        skip_blank(p);
        if (p->at < p->n && p->s[p->at] == ']') {
                p->at++;
                return close_container(p, base, JSON_ARRAY, ret);
        }
        for (;;) {
                JsonNode v;

                r = read_value(p, &v);
                if (r < 0)
                        return r;
                if (push(p, &v) < 0)
                        return -ENOMEM;
                r = read_separator(p, ']');
                if (r < 0)
                        return r;
                if (r == 0)
                        return close_container(p, base, JSON_ARRAY, ret);
        }
}

/* The keys of an object of many members, for finding a duplicate without
 * comparing every pair: open addressing of their places on the stack
 * (relative to the object's base, plus one: 0 is an empty slot). */
typedef struct KeySet {
        uint32_t *slots;
        size_t size, n;         /* size: a power of two, at least twice n */
} KeySet;

#define KEYS_SCANNED 16         /* objects up to this many members are scanned */

static size_t key_hash(const char *k) {
        size_t h = 5381;

        for (; *k; k++)
                h = h * 33 + (unsigned char) *k;
        return h;
}

/* Whether key is in set (the keys of p->stack[base...]); if not, adds it
 * as the member at place i. -ENOMEM, 1 (present), 0 (added). */
static int keyset_add(Reader *p, KeySet *set, size_t base, const char *key, size_t i) {
        size_t at;

        if (2 * (set->n + 1) > set->size) {
                size_t size = set->size ? set->size * 2 : 4 * KEYS_SCANNED;
                uint32_t *slots = calloc(size, sizeof(uint32_t));

                if (!slots)
                        return -ENOMEM;
                for (size_t j = 0; j < set->size; j++)
                        if (set->slots[j]) {
                                at = key_hash(p->stack[base + set->slots[j] - 1].key) & (size - 1);
                                while (slots[at])
                                        at = (at + 1) & (size - 1);
                                slots[at] = set->slots[j];
                        }
                free(set->slots);
                set->slots = slots;
                set->size = size;
        }
        for (at = key_hash(key) & (set->size - 1); set->slots[at]; at = (at + 1) & (set->size - 1))
                if (strcmp(p->stack[base + set->slots[at] - 1].key, key) == 0)
                        return 1;
        set->slots[at] = (uint32_t) i + 1;
        set->n++;
        return 0;
}

/* Whether the object's members so far (p->stack[base...]) have key. */
static int key_seen(Reader *p, KeySet *set, size_t base, const char *key) {
        size_t n = p->stack_len - base;
        int r;

        if (n < KEYS_SCANNED) {
                for (size_t i = base; i < p->stack_len; i++)
                        if (p->stack[i].key[0] == key[0] && strcmp(p->stack[i].key, key) == 0)
                                return 1;
                return 0;
        }
        /* Past KEYS_SCANNED the set takes every key seen so far (which
         * differ from each other), then each new one. */
        for (size_t i = set->n; i < n; i++) {
                r = keyset_add(p, set, base, p->stack[base + i].key, i);
                if (r < 0)
                        return r;
        }
        for (size_t at = key_hash(key) & (set->size - 1); set->slots[at]; at = (at + 1) & (set->size - 1))
                if (strcmp(p->stack[base + set->slots[at] - 1].key, key) == 0)
                        return 1;
        return 0;
}

static int read_object(Reader *p, JsonNode *ret) {
        size_t base = p->stack_len;
        KeySet set = {};
        int r;

        p->at++;
        skip_blank(p);
        if (p->at < p->n && p->s[p->at] == '}') {
                p->at++;
                return close_container(p, base, JSON_OBJECT, ret);
        }
        for (;;) {
                const char *key;
                uint32_t key_len;
                JsonNode v;
                size_t key_at;

                skip_blank(p);
                if (p->at >= p->n || p->s[p->at] != '"') {
                        r = fail_here(p);
                        goto out;
                }
                key_at = p->at;
                r = read_string(p, &key, &key_len);
                if (r < 0)
                        goto out;
                if (strlen(key) != key_len) {
                        r = fail(p, key_at, "a key must not contain a NUL character (\\u0000)");
                        goto out;
                }
                r = key_seen(p, &set, base, key);
                if (r < 0)
                        goto out;
                if (r > 0) {
                        char sh[SHOW_MAX], why[JSON_STRICT_ERROR_MAX];

                        snprintf(why, sizeof(why), "duplicate key %s", json_show_string(key, key_len, sh));
                        r = fail(p, key_at, why);
                        goto out;
                }
                skip_blank(p);
                if (p->at >= p->n || p->s[p->at] != ':') {
                        r = fail_here(p);
                        goto out;
                }
                p->at++;
                r = read_value(p, &v);
                if (r < 0)
                        goto out;
                v.key = key;
                if (push(p, &v) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                r = read_separator(p, '}');
                if (r < 0)
                        goto out;
                if (r == 0) {
                        r = close_container(p, base, JSON_OBJECT, ret);
                        goto out;
                }
        }
out:
        free(set.slots);
        return r;
}

static int read_value(Reader *p, JsonNode *ret) {
        int r;

        skip_blank(p);
        if (p->at >= p->n)
                return fail_here(p);
        switch (p->s[p->at]) {
        case '{':
        case '[':
                if (p->depth >= JSON_STRICT_MAX_DEPTH)
                        return fail(p, p->at, "nesting too deep");
                p->depth++;
                r = p->s[p->at] == '{' ? read_object(p, ret) : read_array(p, ret);
                p->depth--;
                return r;
        case '"':
                *ret = (JsonNode) { .kind = JSON_STRING };
                return read_string(p, &ret->text, &ret->len);
        case '-':
        case '0' ... '9':
                return read_number(p, ret);
        default:
                return read_literal(p, ret);
        }
}

int json_strict_parse(const char *text, size_t len, JsonTree **ret_tree, const JsonNode **ret_root,
                      size_t *ret_error_at, char ret_error[static JSON_STRICT_ERROR_MAX]) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        Reader p = { .s = text, .n = len, .error = ret_error };
        JsonNode *root;
        int r;

        ret_error[0] = 0;
        if (len > INT32_MAX)
                return -EFBIG;
        tree = p.tree = json_tree_new(len);
        if (!tree)
                return -ENOMEM;
        root = json_tree_alloc(tree, sizeof(JsonNode));
        if (!root)
                return -ENOMEM;
        if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
                r = fail(&p, 0, "a byte-order mark is not JSON; save the file as UTF-8 without it");
        else
                r = read_value(&p, root);
        if (r >= 0) {
                skip_blank(&p);
                if (p.at < p.n)
                        r = fail_here(&p);
        }
        free(p.buf);
        free(p.stack);
        if (r == -EINVAL)
                *ret_error_at = p.error_at;
        if (r < 0)
                return r;
        *ret_tree = TAKE_PTR(tree);
        *ret_root = root;
        return 0;
}

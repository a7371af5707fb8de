/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-strict.h"
#include "json-util.h"
#include "show.h"
#include "utf8.h"

typedef struct Reader {
        const char *s;
        size_t n, at;
        unsigned depth;
        char *buf;              /* the string being decoded */
        size_t buf_len, buf_size;
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

static void skip_blank(Reader *p) {
        while (p->at < p->n && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' ||
                                p->s[p->at] == '\r'))
                p->at++;
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
static int read_string(Reader *p) {
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

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

/* The serialization of v is text, as written in the file. */
static int keep_text(json_object *v, const char *text) {
        char *t = strdup(text);

        if (!t)
                return -ENOMEM;
        json_object_set_serializer(v, json_object_userdata_to_json_string, t, json_object_free_userdata);
        return 0;
}

static int read_number(Reader *p, json_object **ret) {
        _cleanup_free_ char *text = NULL;
        size_t start = p->at;
        bool integer = true, negative = false;
        json_object *v;

        if (p->s[p->at] == '-') {
                negative = true;
                p->at++;
        }
        if (p->at >= p->n)
                return fail(p, p->n, "unexpected end of file");
        if (p->s[p->at] == '0') {
                p->at++;
                if (p->at < p->n && is_digit(p->s[p->at]))
                        return fail(p, p->at, "a number must not have leading zeros");
        } else if (is_digit(p->s[p->at])) {
                while (p->at < p->n && is_digit(p->s[p->at]))
                        p->at++;
        } else
                return fail(p, p->at, "number expected");
        if (p->at < p->n && p->s[p->at] == '.') {
                integer = false;
                p->at++;
                if (p->at >= p->n || !is_digit(p->s[p->at]))
                        return fail(p, p->at, "digit expected after the decimal point");
                while (p->at < p->n && is_digit(p->s[p->at]))
                        p->at++;
        }
        if (p->at < p->n && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
                integer = false;
                p->at++;
                if (p->at < p->n && (p->s[p->at] == '+' || p->s[p->at] == '-'))
                        p->at++;
                if (p->at >= p->n || !is_digit(p->s[p->at]))
                        return fail(p, p->at, "digit expected in the exponent");
                while (p->at < p->n && is_digit(p->s[p->at]))
                        p->at++;
        }

        /* An integer of up to 18 digits (nearly every number of a
         * schedule) cannot overflow: its value without a copy and strtoll. */
        if (integer && p->at - start - negative <= 18) {
                int64_t x = 0;

                for (size_t i = start + negative; i < p->at; i++)
                        x = x * 10 + (p->s[i] - '0');
                v = json_object_new_int64(negative ? -x : x);
                if (!v)
                        return -ENOMEM;
                *ret = v;
                return 0;
        }

        text = strndup(p->s + start, p->at - start);
        if (!text)
                return -ENOMEM;
        errno = 0;
        if (!integer) {
                v = json_object_new_double_s(strtod(text, NULL), text);
                if (!v)
                        return -ENOMEM;
        } else if (negative) {
                long long x = strtoll(text, NULL, 10);
                bool overflow = errno == ERANGE;

                v = json_object_new_int64(x);
                if (!v)
                        return -ENOMEM;
                if (overflow && keep_text(v, text) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        } else {
                unsigned long long x = strtoull(text, NULL, 10);
                bool overflow = errno == ERANGE;

                v = x <= INT64_MAX ? json_object_new_int64((int64_t) x) : json_object_new_uint64(x);
                if (!v)
                        return -ENOMEM;
                if (overflow && keep_text(v, text) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
        }
        *ret = v;
        return 0;
}

static int read_literal(Reader *p, json_object **ret) {
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
                if (i == 2)
                        *ret = NULL;
                else if (!(*ret = json_object_new_boolean(i == 0)))
                        return -ENOMEM;
                return 0;
        }
        return fail_here(p);
}

static int read_value(Reader *p, json_object **ret);

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

static int read_array(Reader *p, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        int r;

        if (!a)
                return -ENOMEM;
        p->at++;
        skip_blank(p);
        if (p->at < p->n && p->s[p->at] == ']') {
                p->at++;
                *ret = TAKE_PTR(a);
                return 0;
        }
        for (;;) {
                json_object *v = NULL;

                r = read_value(p, &v);
                if (r < 0)
                        return r;
                if (json_object_array_add(a, v) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
                r = read_separator(p, ']');
                if (r < 0)
                        return r;
                if (r == 0) {
                        *ret = TAKE_PTR(a);
                        return 0;
                }
        }
}

static int read_object(Reader *p, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        int r;

        if (!o)
                return -ENOMEM;
        p->at++;
        skip_blank(p);
        if (p->at < p->n && p->s[p->at] == '}') {
                p->at++;
                *ret = TAKE_PTR(o);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *key_long = NULL;
                char key_short[64];
                const char *key;
                json_object *v = NULL;
                size_t key_at;

                skip_blank(p);
                if (p->at >= p->n || p->s[p->at] != '"')
                        return fail_here(p);
                key_at = p->at;
                r = read_string(p);
                if (r < 0)
                        return r;
                if (strlen(p->buf) != p->buf_len)
                        return fail(p, key_at, "a key must not contain a NUL character (\\u0000)");
                if (json_object_object_get_ex(o, p->buf, NULL)) {
                        _cleanup_json_ json_object *k = json_object_new_string(p->buf);
                        char sh[SHOW_MAX], why[JSON_STRICT_ERROR_MAX];

                        if (!k)
                                return -ENOMEM;
                        snprintf(why, sizeof(why), "duplicate key %s",
                                 show_json_text(json_object_to_json_string_ext(k, JSON_C_TO_STRING_PLAIN |
                                                                                   JSON_C_TO_STRING_NOSLASHESCAPE),
                                                sh));
                        return fail(p, key_at, why);
                }
                /* Kept apart from p->buf, which the value reuses; json-c
                 * copies it into the object. */
                if (p->buf_len < sizeof(key_short))
                        key = memcpy(key_short, p->buf, p->buf_len + 1);
                else if (!(key = key_long = strdup(p->buf)))
                        return -ENOMEM;
                skip_blank(p);
                if (p->at >= p->n || p->s[p->at] != ':')
                        return fail_here(p);
                p->at++;
                r = read_value(p, &v);
                if (r < 0)
                        return r;
                if (json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW) < 0) {
                        json_object_put(v);
                        return -ENOMEM;
                }
                r = read_separator(p, '}');
                if (r < 0)
                        return r;
                if (r == 0) {
                        *ret = TAKE_PTR(o);
                        return 0;
                }
        }
}

static int read_value(Reader *p, json_object **ret) {
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
                r = read_string(p);
                if (r < 0)
                        return r;
                *ret = json_object_new_string_len(p->buf, (int) p->buf_len);
                return *ret ? 0 : -ENOMEM;
        case '-':
        case '0' ... '9':
                return read_number(p, ret);
        default:
                return read_literal(p, ret);
        }
}

int json_strict_parse(const char *text, size_t len, json_object **ret, size_t *ret_error_at,
                      char ret_error[static JSON_STRICT_ERROR_MAX]) {
        Reader p = { .s = text, .n = len, .error = ret_error };
        json_object *v = NULL;
        int r;

        ret_error[0] = 0;
        if (len > INT32_MAX)
                return -EFBIG;
        if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
                r = fail(&p, 0, "a byte-order mark is not JSON; save the file as UTF-8 without it");
        else
                r = read_value(&p, &v);
        if (r >= 0) {
                skip_blank(&p);
                if (p.at < p.n) {
                        json_object_put(v);
                        r = fail_here(&p);
                }
        }
        free(p.buf);
        if (r == -EINVAL)
                *ret_error_at = p.error_at;
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

bool json_strict_int_overflowed(json_object *v) {
        return json_object_is_type(v, json_type_int) && json_object_get_userdata(v);
}

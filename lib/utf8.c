/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static bool is_cont(unsigned char c) {
        return (c & 0xC0) == 0x80;
}

int utf8_decode(const char *s, size_t n, uint32_t *ret_cp) {
        const unsigned char *u = (const unsigned char *) s;
        unsigned char lo = 0x80, hi = 0xBF;
        uint32_t cp;
        int len;

        if (n == 0)
                return -EILSEQ;
        if (u[0] < 0x80) {
                *ret_cp = u[0];
                return 1;
        }
        /* The second byte's range rules out overlong forms (E0, F0),
         * surrogates (ED) and code points above U+10FFFF (F4). */
        if (u[0] >= 0xC2 && u[0] <= 0xDF) {
                len = 2;
                cp = u[0] & 0x1F;
        } else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
                len = 3;
                cp = u[0] & 0x0F;
                if (u[0] == 0xE0)
                        lo = 0xA0;
                else if (u[0] == 0xED)
                        hi = 0x9F;
        } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
                len = 4;
                cp = u[0] & 0x07;
                if (u[0] == 0xF0)
                        lo = 0x90;
                else if (u[0] == 0xF4)
                        hi = 0x8F;
        } else
                return -EILSEQ;         /* a continuation byte, C0, C1, F5-FF */

        if (n < (size_t) len || u[1] < lo || u[1] > hi)
                return -EILSEQ;
        for (int i = 1; i < len; i++) {
                if (!is_cont(u[i]))
                        return -EILSEQ;
                cp = cp << 6 | (u[i] & 0x3F);
        }
        *ret_cp = cp;
        return len;
}

size_t utf8_invalid_at(const char *s, size_t n) {
        size_t i = 0;

        while (i < n) {
                uint32_t cp;
                int k;

                if ((unsigned char) s[i] < 0x80) {
                        i++;
                        continue;
                }
                k = utf8_decode(s + i, n - i, &cp);
                if (k < 0)
                        return i;
                i += (size_t) k;
        }
        return n;
}

size_t utf8_cut(const char *s, size_t max) {
        size_t n = strnlen(s, max + 1);

        if (n <= max)
                return n;
        /* s[max] exists: back off while it continues a character */
        n = max;
        while (n > 0 && is_cont((unsigned char) s[n]))
                n--;
        return n;
}

bool utf8_is_control(uint32_t cp) {
        return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029;
}

bool text_is_safe(const char *s) {
        size_t n = strlen(s);

        for (size_t i = 0; i < n;) {
                uint32_t cp;
                int k;

                /* Printable ASCII, nearly every byte of a name or message:
                 * no decoding needed. */
                if ((unsigned char) s[i] >= 0x20 && (unsigned char) s[i] < 0x7F) {
                        i++;
                        continue;
                }
                k = utf8_decode(s + i, n - i, &cp);

                if (k < 0 || utf8_is_control(cp))
                        return false;
                i += (size_t) k;
        }
        return true;
}

static char *escape(const char *s, bool controls) {
        size_t n = strlen(s), at = 0;
        char *out;

        /* Worst case: every byte becomes "\xHH" (4 bytes), or a 2-3 byte
         * control character becomes "\uHHHH" (6 bytes, at most 3 per byte). */
        out = malloc(n * 4 + 1);
        if (!out)
                return NULL;
        for (size_t i = 0; i < n;) {
                uint32_t cp;
                int k = utf8_decode(s + i, n - i, &cp);

                if (k < 0) {
                        at += (size_t) sprintf(out + at, "\\x%02x", (unsigned char) s[i]);
                        i++;
                        continue;
                }
                if (!controls || !utf8_is_control(cp)) {
                        memcpy(out + at, s + i, (size_t) k);
                        at += (size_t) k;
                } else if (cp == '\n')
                        at += (size_t) sprintf(out + at, "\\n");
                else if (cp == '\t')
                        at += (size_t) sprintf(out + at, "\\t");
                else if (cp == '\r')
                        at += (size_t) sprintf(out + at, "\\r");
                else if (cp <= 0x7F)
                        at += (size_t) sprintf(out + at, "\\x%02x", (unsigned) cp);
                else
                        at += (size_t) sprintf(out + at, "\\u%04x", (unsigned) cp);
                i += (size_t) k;
        }
        out[at] = 0;
        return out;
}

char *text_escape(const char *s) {
        return escape(s, true);
}

char *utf8_escape_invalid(const char *s) {
        return escape(s, false);
}

const char *text_safe(const char *s, char **buf) {
        *buf = NULL;
        if (!s || text_is_safe(s))
                return s;
        *buf = text_escape(s);
        return *buf ?: "(out of memory)";
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF), as D-Bus requires of every string, and the escaping that keeps
 * text from outside (file names, interface names, messages quoting them)
 * to one safe line on a terminal, in a log and on the bus. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Decode one UTF-8 character of s[0..n). Returns its length (1-4) and
 *  the code point in *ret_cp, or -EILSEQ when s does not start with a
 *  well-formed sequence (n == 0 included); *ret_cp untouched then. */
int utf8_decode(const char *s, size_t n, uint32_t *ret_cp);

/** Offset of the first byte of s[0..n) that does not start a well-formed
 *  UTF-8 character, or n when all of it is valid. */
size_t utf8_invalid_at(const char *s, size_t n);

/** s[0..n) is valid UTF-8 (NUL characters allowed). */
static inline bool utf8_is_valid_n(const char *s, size_t n) {
        return utf8_invalid_at(s, n) == n;
}

/** The length of the longest prefix of s, at most max bytes, that does not
 *  end inside a UTF-8 character (to cut a valid string and keep it valid:
 *  printf's "%.*s" cuts at a byte). */
size_t utf8_cut(const char *s, size_t max);

/** The code point would break a line or steer a terminal: C0 controls,
 *  DEL, C1 controls (U+0080-U+009F) and the line and paragraph separators
 *  U+2028, U+2029. */
bool utf8_is_control(uint32_t cp);

/** s needs no escaping: valid UTF-8 without control characters. */
bool text_is_safe(const char *s);

/** A copy of s safe to print on one line and to send over D-Bus: newline,
 *  tab and carriage return become \n \t \r, other C0 controls and DEL
 *  \xHH, C1 controls and U+2028/U+2029 \uHHHH, and each byte that is not
 *  part of valid UTF-8 \xHH. Everything else (backslash included) is kept.
 *  Returns a new string, or NULL when out of memory. */
char *text_escape(const char *s);

/** Like text_escape(), but only the bytes that are not valid UTF-8 are
 *  escaped (\xHH): for a string that goes into JSON, which escapes control
 *  characters itself but has no way to carry such bytes. Returns a new
 *  string, or NULL when out of memory. */
char *utf8_escape_invalid(const char *s);

/** text_escape() of s when it needs it, else s itself: *buf receives the
 *  new string (to be freed by the caller) or NULL. Out of memory gives a
 *  fixed placeholder. Never returns NULL for a non-NULL s. */
const char *text_safe(const char *s, char **buf);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A strict JSON reader (RFC 8259) that builds a JsonTree (json-tree.h). json-c's own
 * tokener, even with JSON_TOKENER_STRICT, takes single-quoted strings, raw
 * control characters inside strings, overlong UTF-8 and surrogates, NaN
 * and Infinity, keeps the last of duplicate keys, and saturates integers
 * beyond 64 bits silently. Schedule files are read with this instead:
 *
 * - strings: double quotes only, strict UTF-8 (utf8.h), no raw control
 *   characters (U+0000-U+001F), escapes as in RFC 8259 with surrogate
 *   escapes only in pairs; "\u0000" is allowed in values (callers refuse
 *   it where a NUL makes no sense) but not in keys;
 * - objects: no duplicate keys;
 * - numbers: the RFC's grammar (no leading zeros, no "+", no NaN or
 *   Infinity). Integers become JSON_INTEGER (int64, marked above_int64
 *   above INT64_MAX); an integer beyond the 64-bit ranges is saturated and
 *   marked overflowed; numbers with a fraction or an exponent become
 *   JSON_DOUBLE; every number keeps its text as written;
 * - nesting at most JSON_STRICT_MAX_DEPTH levels; only space, tab, CR and
 *   LF between tokens; nothing but white space after the value. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "json-tree.h"

#define JSON_STRICT_MAX_DEPTH 32
#define JSON_STRICT_ERROR_MAX 128   /* longest description of a problem */

/** Parse text[0..len) (which may hold NUL bytes: they are refused). Returns
 *  0, the tree in *ret_tree (json_tree_free() it) and its top-level value
 *  in *ret_root (a JSON_NULL node for the JSON text "null"); -EINVAL with
 *  the byte offset of the problem in *ret_error_at and a one-line
 *  description (valid UTF-8, no control characters) in ret_error; -EFBIG
 *  beyond INT32_MAX bytes; or -ENOMEM. */
int json_strict_parse(const char *text, size_t len, JsonTree **ret_tree, const JsonNode **ret_root,
                      size_t *ret_error_at, char ret_error[static JSON_STRICT_ERROR_MAX]);

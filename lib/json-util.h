/* SPDX-License-Identifier: GPL-2.0-or-later */
/* json-c helpers shared by tbsd and tbsctl. */
#pragma once

#include <json-c/json.h>
#include <stdint.h>

#include "macro.h"

static inline void json_object_putp(struct json_object **o) {
        if (*o)
                json_object_put(*o);
}
#define _cleanup_json_ _cleanup_(json_object_putp)

/** Member of an object, or NULL when o is not an object or has no such key. */
struct json_object *json_get(struct json_object *o, const char *key);
/** Member as a string; NULL when absent, null or not a string. */
const char *json_get_string(struct json_object *o, const char *key);
/** Member as int64; def when absent or not a number. */
int64_t json_get_int(struct json_object *o, const char *key, int64_t def);
/** Member as bool; def when absent or not a boolean. */
int json_get_bool(struct json_object *o, const char *key, int def);
/** Add key: value to an object, taking ownership of value (may be NULL = JSON null).
 *  Returns 0 or -ENOMEM. */
int json_add(struct json_object *o, const char *key, struct json_object *value);
/** json_add() of a value just made, where NULL means that making it failed:
 * -ENOMEM then, instead of a null member. */
int json_add_made(struct json_object *o, const char *key, struct json_object *value);
/** Add a string member; NULL becomes JSON null. */
int json_add_string(struct json_object *o, const char *key, const char *value);
/** Replace every string value inside o (keys are left alone) that is not
 *  safe to print by its text_escape() (utf8.h), for human output of
 *  documents that quote outside text (interface names, file names,
 *  reasons). Returns 0 or -ENOMEM (the strings done so far stay done). */
int json_escape_strings(struct json_object *o);

/** A JSON number holding v rounded to 3 decimals (milliseconds for a
 *  value in seconds), printed as such ("1.002", not "1.0019999999999"). */
struct json_object *json_new_double_ms(double v);

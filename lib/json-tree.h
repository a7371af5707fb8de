/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The value tree json_strict_parse() (json-strict.h) builds: every node,
 * key and decoded string of one document in an arena, freed at once by
 * json_tree_free(). Objects keep their members in document order (looked
 * up by a linear scan: schedule objects are small); arrays index in O(1).
 * Cheaper to build and free than json-c objects (no hash table, no
 * allocation per value), which the schedule parser walks once. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"
#include "show.h"

typedef enum JsonKind {
        JSON_NULL,
        JSON_BOOLEAN,
        JSON_INTEGER,
        JSON_DOUBLE,
        JSON_STRING,
        JSON_OBJECT,
        JSON_ARRAY,
} JsonKind;

typedef struct JsonNode JsonNode;
struct JsonNode {
        const char *key;        /* a member of an object: its key (no NUL inside) */
        /* JSON_STRING: the decoded bytes, NUL-terminated (a "\u0000"
         * may put NULs before the end); JSON_INTEGER, JSON_DOUBLE: the
         * number as written (len bytes, not NUL-terminated). */
        const char *text;
        union {
                int64_t i;      /* JSON_INTEGER: saturated to the int64 range */
                double d;       /* JSON_DOUBLE */
                bool b;         /* JSON_BOOLEAN */
                const JsonNode *items;  /* JSON_OBJECT, JSON_ARRAY: len of them */
        };
        uint32_t len;
        uint8_t kind;           /* JsonKind */
        bool above_int64;       /* JSON_INTEGER above INT64_MAX (i is INT64_MAX) */
        bool overflowed;        /* JSON_INTEGER beyond the 64-bit ranges */
};

typedef struct JsonTree JsonTree;

JsonTree *json_tree_free(JsonTree *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(JsonTree *, json_tree_free);
#define _cleanup_json_tree_ _cleanup_(json_tree_freep)

/* For the reader (json-strict.c): n bytes of the arena (8-aligned), NULL
 * when out of memory; and a new, empty tree. */
void *json_tree_alloc(JsonTree *t, size_t n);
JsonTree *json_tree_new(size_t size_hint);

static inline bool json_is(const JsonNode *v, JsonKind k) {
        return v && v->kind == k;
}

/** The member key of object o; NULL when o is not an object or has none. */
const JsonNode *json_member(const JsonNode *o, const char *key);

/** Element i of array a (i < a->len). */
static inline const JsonNode *json_index(const JsonNode *a, size_t i) {
        return &a->items[i];
}

/** v as JSON text in a message (show.h): its serialization as json-c's
 *  json_object_to_json_string_ext(PLAIN | NOSLASHESCAPE) made it (numbers
 *  as written but "-0" as "0"), cut by show_json_text(); "an object" and
 *  "an array" for containers. */
const char *json_show(const JsonNode *v, char buf[static SHOW_MAX]);

/** The JSON string of s[0..len) as show_json_text() shows it. */
const char *json_show_string(const char *s, size_t len, char buf[static SHOW_MAX]);

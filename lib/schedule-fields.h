/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The typed member readers of the schedule parser (schedule-fields.c):
 * each reads one JSON member, checks its type and range, and on a problem
 * adds a one-line diagnostic with the member's JSON path. Internal to
 * lib/schedule-parse.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json-tree.h"

#include "diag.h"
#include "schedule.h"
#include "show.h"

#define JPATH_MAX 256   /* longest JSON path we build ("root.entries[123].interval_ns") */

typedef struct Parser {
        const char *file;
        DiagList *diags;
        bool oom;
} Parser;

/* Key tables: which keys an object may have, and for the root, with which
 * qdisc kind. */
enum {
        K_ANY = (1U << _ROOT_KIND_MAX) - 1,
};

typedef struct KeySpec {
        const char *name;
        unsigned kinds;
} KeySpec;

void perr(Parser *p, const char *path, const char *format, ...) _printf_(3, 4);
void jpath_put(char buf[static JPATH_MAX], size_t *at, const char *s);
const char *jpath_key(char buf[static JPATH_MAX], const char *prefix, const char *key);
const char *jpath_index(char buf[static JPATH_MAX], const char *prefix, size_t i);
size_t str_len(const JsonNode *v);
/* The JSON string holds a NUL character ("\u0000") before its end. Inline:
 * schedule-hints.c uses it too, and schedule-fields.c calls the hints. */
static inline bool has_nul(const JsonNode *v) {
        return memchr(v->text, 0, v->len) != NULL;
}
const char *show(const JsonNode *v, char buf[static SHOW_MAX]);
const char *type_with_article(JsonKind t);
bool expect_type(Parser *p, const char *path, const JsonNode *v, JsonKind t);
const JsonNode *member(Parser *p, const char *prefix, const JsonNode *o, const char *key,
        bool required);
int as_int(Parser *p, const char *path, const JsonNode *v, int64_t min, int64_t max,
                  int64_t *ret);
int as_int_index(Parser *p, const char *prefix, const JsonNode *a, size_t i, int64_t min, int64_t max,
                 int64_t *ret);
int get_int(Parser *p, const char *prefix, const JsonNode *o, const char *key, bool required,
                   int64_t min, int64_t max, int64_t *ret);
int get_bool(Parser *p, const char *prefix, const JsonNode *o, const char *key, bool *ret);
const char *get_string_full(Parser *p, const char *prefix, const JsonNode *o, const char *key,
        bool required, bool controls_ok, const JsonNode **ret_value);
const char *get_string(Parser *p, const char *prefix, const JsonNode *o, const char *key,
        bool required, const JsonNode **ret_value);
const JsonNode *get_container(Parser *p, const char *prefix, const JsonNode *o, const char *key,
        bool required, JsonKind t);
bool key_is_simple(const char *k);
void check_keys(Parser *p, const char *prefix, const JsonNode *o, const KeySpec *keys,
        size_t n_keys, unsigned active);
/* check_keys() where a key of another kind than active is refused with
 * only[b] (b: the lowest bit of its kinds). */
void check_keys_only(Parser *p, const char *prefix, const JsonNode *o, const KeySpec *keys,
        size_t n_keys, unsigned active, const char *const *only);

/* A key table built from the kinds' own keys (kinds/qdisc-kind.h): the
 * common keys and each kind's, every key once with the bits of the kinds
 * that take it, in the order they were added; only[b] is what a key of
 * kind b alone is refused with (check_keys_only()). */
#define KEY_TABLE_MAX 48
#define KEY_TABLE_KINDS 8
typedef struct KeyTable {
        KeySpec keys[KEY_TABLE_MAX];
        size_t n;
        char only_text[KEY_TABLE_KINDS][96];
        const char *only[KEY_TABLE_KINDS];
} KeyTable;

void key_table_add(KeyTable *t, const char *name, unsigned kinds);
void key_table_add_all(KeyTable *t, const KeySpec *keys, size_t n);

/* A key "clockid" of o into *ret, and root.handle into r (lib/schedule-parse.c). */
void parse_clockid(Parser *p, const char *prefix, const JsonNode *o, clockid_t *ret);
void parse_handle(Parser *p, const JsonNode *root, RootSpec *r);

/* "txqueues" into s, and an etf or cbs root's keys into r
 * (lib/schedule-parse-txqueues.c). */
void parse_txqueues(Parser *p, const JsonNode *top, Schedule *s);
void parse_root_leaf(Parser *p, const JsonNode *root, RootSpec *r);


/* An etf queue's "monitor" into m (lib/schedule-parse-monitor.c). */
void parse_monitor(Parser *p, const char *path, const JsonNode *e, MonitorSpec *m);

/* A taprio root's "streams" and the keys that go with them, into s
 * (lib/schedule-parse-streams.c); after parse_root(). */
void parse_streams(Parser *p, const JsonNode *top, Schedule *s);
/* The top-level "allow" list into s->allow (lib/schedule-parse-allow.c). */
void parse_allow(Parser *p, const JsonNode *top, Schedule *s);

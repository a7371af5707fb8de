/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json-strict.h"
#include "json-util.h"
#include "schedule-parse.h"
#include "show.h"
#include "utf8.h"
#include "schedule-verify.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

#define JPATH_MAX 256   /* longest JSON path we build ("root.entries[123].interval_ns") */

typedef struct Parser {
        const char *file;
        DiagList *diags;
        bool oom;
} Parser;

static void perr(Parser *p, const char *path, const char *format, ...) _printf_(3, 4);
static void perr(Parser *p, const char *path, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        if (diag_addv(p->diags, DIAG_ERROR, p->file, path, format, ap) < 0)
                p->oom = true;
        va_end(ap);
}

/* Append s to buf[*at..JPATH_MAX), cutting it if need be (never in
 * practice: keys are known or checked to be short). A path is built for
 * every value parsed, so this stays clear of printf. */
static void jpath_put(char buf[static JPATH_MAX], size_t *at, const char *s) {
        size_t n = strlen(s);

        if (n > JPATH_MAX - 1 - *at)
                n = JPATH_MAX - 1 - *at;
        memcpy(buf + *at, s, n);
        *at += n;
        buf[*at] = 0;
}

/* "prefix.key", or "key" at the top level. */
static const char *jpath_key(char buf[static JPATH_MAX], const char *prefix, const char *key) {
        size_t at = 0;

        buf[0] = 0;
        if (prefix) {
                jpath_put(buf, &at, prefix);
                jpath_put(buf, &at, ".");
        }
        jpath_put(buf, &at, key);
        return buf;
}

/* "prefix[i]" */
static const char *jpath_index(char buf[static JPATH_MAX], const char *prefix, size_t i) {
        char num[24], *d = num + sizeof(num) - 1;
        size_t at = 0;

        *d = 0;
        do
                *--d = (char) ('0' + i % 10);
        while ((i /= 10) > 0);
        buf[0] = 0;
        jpath_put(buf, &at, prefix);
        jpath_put(buf, &at, "[");
        jpath_put(buf, &at, d);
        jpath_put(buf, &at, "]");
        return buf;
}

/* Length of a JSON string, which may hold NUL characters. */
static size_t str_len(json_object *v) {
        int n = json_object_get_string_len(v);

        return n < 0 ? 0 : (size_t) n;
}

/* The JSON string holds a NUL character ("\u0000") before its end. */
static bool has_nul(json_object *v) {
        return strlen(json_object_get_string(v)) != str_len(v);
}

/* How a JSON value appears in messages: scalars as their JSON text (long
 * strings cut short), containers as "an object" / "an array". */
static const char *show(json_object *v, char buf[static SHOW_MAX]) {
        const char *t;

        switch (json_object_get_type(v)) {
        case json_type_null:
                return "null";
        case json_type_object:
                return "an object";
        case json_type_array:
                return "an array";
        default:
                break;
        }
        t = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (!t)
                return "?";
        return show_json_text(t, buf);
}

static const char *type_with_article(json_type t) {
        switch (t) {
        case json_type_boolean:
                return "a boolean";
        case json_type_int:
                return "an integer";
        case json_type_string:
                return "a string";
        case json_type_object:
                return "an object";
        case json_type_array:
                return "an array";
        default:
                return "?";
        }
}

static bool expect_type(Parser *p, const char *path, json_object *v, json_type t) {
        char s[SHOW_MAX];

        if (json_object_is_type(v, t))
                return true;
        perr(p, path, "must be %s, got %s", type_with_article(t), show(v, s));
        return false;
}

/* Looks up prefix.key in o. Returns the value, or NULL when it is absent
 * (an error when required) or null (always an error). */
static json_object *member(Parser *p, const char *prefix, json_object *o, const char *key,
                           bool required) {
        char path[JPATH_MAX];
        json_object *v;

        if (json_object_object_get_ex(o, key, &v)) {
                /* json-c represents a JSON null as NULL */
                if (!v)
                        perr(p, jpath_key(path, prefix, key), "must not be null%s",
                             required ? "" : "; leave the key out to get the default");
                return v;
        }
        if (required)
                perr(p, jpath_key(path, prefix, key), "required key is missing");
        return NULL;
}

/* Checks that v is an integer in [min, max]. Returns 0 and *ret, or -EINVAL
 * (reported). */
static int as_int(Parser *p, const char *path, json_object *v, int64_t min, int64_t max,
                  int64_t *ret) {
        char s[SHOW_MAX];
        int64_t x;

        if (!expect_type(p, path, v, json_type_int))
                return -EINVAL;
        x = json_object_get_int64(v);
        /* Beyond 64 bits the value is saturated: out of every range, and
         * show() gives the number as written. */
        if (json_strict_int_overflowed(v) ||
            (x == INT64_MAX && json_object_get_uint64(v) > (uint64_t) INT64_MAX) ||
            x < min || x > max) {
                perr(p, path, "must be between %" PRIi64 " and %" PRIi64 ", got %s",
                     min, max, show(v, s));
                return -EINVAL;
        }
        *ret = x;
        return 0;
}

/* Optional or required integer member. Returns 1 when set, 0 when absent,
 * -EINVAL on a reported error. */
static int get_int(Parser *p, const char *prefix, json_object *o, const char *key, bool required,
                   int64_t min, int64_t max, int64_t *ret) {
        char path[JPATH_MAX];
        json_object *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return required ? -EINVAL : 0;
        if (as_int(p, jpath_key(path, prefix, key), v, min, max, ret) < 0)
                return -EINVAL;
        return 1;
}

static int get_bool(Parser *p, const char *prefix, json_object *o, const char *key, bool *ret) {
        char path[JPATH_MAX];
        json_object *v;

        v = member(p, prefix, o, key, false);
        if (!v)
                return 0;
        if (!expect_type(p, jpath_key(path, prefix, key), v, json_type_boolean))
                return -EINVAL;
        *ret = json_object_get_boolean(v);
        return 1;
}

/* Returns the string (owned by v) or NULL when absent or reported. A NUL
 * character is always refused; control characters unless controls_ok. */
static const char *get_string_full(Parser *p, const char *prefix, json_object *o, const char *key,
                                   bool required, bool controls_ok, json_object **ret_value) {
        char path[JPATH_MAX], s[SHOW_MAX];
        json_object *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return NULL;
        if (!expect_type(p, jpath_key(path, prefix, key), v, json_type_string))
                return NULL;
        /* No string field has a use for these; refusing them here keeps
         * every comparison below from stopping at a NUL, and every name
         * and path free of characters that would break a message. */
        if (has_nul(v)) {
                perr(p, path, "must not contain a NUL character, got %s", show(v, s));
                return NULL;
        }
        if (!controls_ok && !text_is_safe(json_object_get_string(v))) {
                perr(p, path, "must not contain control characters, got %s", show(v, s));
                return NULL;
        }
        if (ret_value)
                *ret_value = v;
        return json_object_get_string(v);
}

static const char *get_string(Parser *p, const char *prefix, json_object *o, const char *key,
                              bool required, json_object **ret_value) {
        return get_string_full(p, prefix, o, key, required, false, ret_value);
}

static json_object *get_container(Parser *p, const char *prefix, json_object *o, const char *key,
                                  bool required, json_type t) {
        char path[JPATH_MAX];
        json_object *v;

        v = member(p, prefix, o, key, required);
        if (!v)
                return NULL;
        if (!expect_type(p, jpath_key(path, prefix, key), v, t))
                return NULL;
        return v;
}

/* Key tables: which keys an object may have, and for the root, with which
 * qdisc kind. */
enum {
        K_MQPRIO = 1U << ROOT_MQPRIO,
        K_TAPRIO = 1U << ROOT_TAPRIO,
        K_ANY = K_MQPRIO | K_TAPRIO,
};

typedef struct KeySpec {
        const char *name;
        unsigned kinds;
} KeySpec;

static bool key_is_simple(const char *k) {
        size_t n = 0;

        for (; k[n]; n++)
                if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= 'A' && k[n] <= 'Z') ||
                      (k[n] >= '0' && k[n] <= '9') || k[n] == '_' || k[n] == '-'))
                        return false;
        return n > 0 && n <= 64;
}

/* Reports every key of o that is not in keys (or not for the active kinds). */
static void check_keys(Parser *p, const char *prefix, json_object *o, const KeySpec *keys,
                       size_t n_keys, unsigned active) {
        char known[512] = "", path[JPATH_MAX], s[SHOW_MAX];

        for (size_t i = 0; i < n_keys; i++)
                if (keys[i].kinds & active) {
                        if (known[0])
                                strcat(known, ", ");
                        strcat(known, keys[i].name);
                }

        json_object_object_foreach(o, key, val) {
                const KeySpec *k = NULL;

                (void) val;
                for (size_t i = 0; i < n_keys; i++)
                        if (strcmp(keys[i].name, key) == 0)
                                k = &keys[i];

                if (k && (k->kinds & active))
                        continue;
                if (k) {
                        perr(p, jpath_key(path, prefix, key), "only valid for a%s %s root",
                             k->kinds & K_MQPRIO ? "n" : "",
                             k->kinds & K_MQPRIO ? "mqprio" : "taprio");
                        continue;
                }
                if (key_is_simple(key))
                        perr(p, jpath_key(path, prefix, key), "unknown key; known keys: %s", known);
                else {
                        _cleanup_json_ json_object *ks = json_object_new_string(key);

                        if (!ks) {
                                p->oom = true;
                                return;
                        }
                        perr(p, prefix, "unknown key %s; known keys: %s", show(ks, s), known);
                }
        }
}

static void parse_clockid(Parser *p, const char *prefix, json_object *o, clockid_t *ret) {
        char path[JPATH_MAX], s[SHOW_MAX];
        json_object *v = NULL;
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

static void parse_interface(Parser *p, json_object *top, Schedule *s) {
        json_object *v = NULL;
        const char *name, *problem;
        size_t len;

        /* The kernel takes control characters other than whitespace in a
         * name; so do we (they are escaped wherever a name is printed). */
        name = get_string_full(p, NULL, top, "interface", true, true, &v);
        if (!name)
                return;
        len = str_len(v);
        problem = ifname_problem(name, len);
        if (problem) {
                char sh[SHOW_MAX];

                perr(p, "interface", "%s, got %s", problem, show(v, sh));
                return;
        }
        memcpy(s->ifname, name, len + 1);
}

static void parse_handle(Parser *p, json_object *root, RootSpec *r) {
        char sh[SHOW_MAX];
        json_object *v = NULL;
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

static void parse_priority_map(Parser *p, json_object *root, RootSpec *r) {
        char path[JPATH_MAX];
        json_object *a;
        size_t n;

        a = get_container(p, "root", root, "priority_map", true, json_type_array);
        if (!a)
                return;
        n = json_object_array_length(a);
        if (n != TBS_PRIO_MAP_LEN) {
                perr(p, "root.priority_map",
                     "must have %u entries (the traffic class of each priority 0-15), got %zu",
                     TBS_PRIO_MAP_LEN, n);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                int64_t x;

                if (as_int(p, jpath_index(path, "root.priority_map", i), json_object_array_get_idx(a, i),
                           0, TBS_MAX_TC - 1, &x) >= 0)
                        r->priority_map[i] = (uint8_t) x;
        }
}

static void parse_queues(Parser *p, json_object *root, RootSpec *r, bool num_tc_ok) {
        static const KeySpec keys[] = { { "count", K_ANY }, { "offset", K_ANY } };
        char path[JPATH_MAX];
        json_object *a;
        size_t n;

        a = get_container(p, "root", root, "queues", true, json_type_array);
        if (!a)
                return;
        n = json_object_array_length(a);
        if (n > TBS_MAX_TC) {
                perr(p, "root.queues", "must have at most %u entries (one per traffic class), got %zu",
                     TBS_MAX_TC, n);
                return;
        }
        if (num_tc_ok && n != r->num_tc)
                perr(p, "root.queues", "must have one entry per traffic class (num_tc is %u), got %zu",
                     r->num_tc, n);
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(a, i);
                int64_t x;

                jpath_index(path, "root.queues", i);
                if (!expect_type(p, path, e, json_type_object))
                        continue;
                check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);
                if (get_int(p, path, e, "count", true, 1, UINT16_MAX, &x) > 0)
                        r->queues[i].count = (uint16_t) x;
                if (get_int(p, path, e, "offset", true, 0, UINT16_MAX, &x) > 0)
                        r->queues[i].offset = (uint16_t) x;
        }
}

static int parse_gate_mask(Parser *p, const char *prefix, json_object *e, uint32_t *ret) {
        char path[JPATH_MAX], sh[SHOW_MAX];
        json_object *v;
        const char *t;
        int64_t x;

        v = member(p, prefix, e, "gate_mask", true);
        if (!v)
                return -EINVAL;
        jpath_key(path, prefix, "gate_mask");
        if (json_object_is_type(v, json_type_int)) {
                if (as_int(p, path, v, 0, UINT32_MAX, &x) < 0)
                        return -EINVAL;
                *ret = (uint32_t) x;
                return 0;
        }
        if (json_object_is_type(v, json_type_string)) {
                unsigned long long u;
                char *end;

                t = json_object_get_string(v);
                if ((t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) &&
                    strspn(t + 2, "0123456789abcdefABCDEF") == strlen(t + 2) && t[2] &&
                    !has_nul(v)) {
                        errno = 0;
                        u = strtoull(t + 2, &end, 16);
                        if (errno == 0 && u <= UINT32_MAX) {
                                *ret = (uint32_t) u;
                                return 0;
                        }
                        perr(p, path, "must be between 0x0 and 0xffffffff, got %s", show(v, sh));
                        return -EINVAL;
                }
        }
        perr(p, path, "must be an integer or a hex string such as \"0x3\", got %s", show(v, sh));
        return -EINVAL;
}

static void parse_entries(Parser *p, json_object *root, RootSpec *r) {
        static const KeySpec keys[] = {
                { "command", K_ANY }, { "gate_mask", K_ANY }, { "interval_ns", K_ANY },
        };
        char path[JPATH_MAX], cpath[JPATH_MAX], sh[SHOW_MAX];
        json_object *a;
        size_t n;

        a = get_container(p, "root", root, "entries", true, json_type_array);
        if (!a)
                return;
        n = json_object_array_length(a);
        if (n == 0)
                return;
        r->entries = calloc(n, sizeof(GateEntry));
        if (!r->entries) {
                p->oom = true;
                return;
        }
        r->n_entries = n;
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(a, i), *cv = NULL;
                GateEntry *g = &r->entries[i];
                const char *t;
                int64_t x;

                g->command = GATE_SET_GATES;
                jpath_index(path, "root.entries", i);
                if (!expect_type(p, path, e, json_type_object))
                        continue;
                check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);
                t = get_string(p, path, e, "command", false, &cv);
                if (t) {
                        GateCommand c = gate_command_from_string(t);

                        if (c < 0 || has_nul(cv))
                                perr(p, jpath_key(cpath, path, "command"),
                                     "unknown command %s; expected \"set-gates\", \"set-and-hold\" "
                                     "or \"set-and-release\"", show(cv, sh));
                        else
                                g->command = c;
                }
                (void) parse_gate_mask(p, path, e, &g->gate_mask);
                if (get_int(p, path, e, "interval_ns", true, 1, UINT32_MAX, &x) > 0)
                        g->interval_ns = (uint32_t) x;
        }
}

static void parse_taprio(Parser *p, json_object *root, RootSpec *r) {
        char sh[SHOW_MAX];
        json_object *v = NULL;
        const char *t;
        int64_t x;

        parse_clockid(p, "root", root, &r->clockid);
        if (get_int(p, "root", root, "base_time_ns", false, 0, INT64_MAX, &x) > 0)
                r->base_time_ns = x;
        if (get_int(p, "root", root, "cycle_time_ns", false, 1, INT64_MAX, &x) > 0) {
                r->cycle_time_ns = x;
                r->cycle_time_given = true;
        }
        if (get_int(p, "root", root, "cycle_time_extension_ns", false, 0, INT64_MAX, &x) > 0)
                r->cycle_time_extension_ns = x;
        t = get_string(p, "root", root, "mode", false, &v);
        if (t) {
                TaprioMode m = taprio_mode_from_string(t);

                if (m < 0 || has_nul(v))
                        perr(p, "root.mode", "unknown mode %s; expected \"software\", \"txtime-assist\" "
                             "or \"full-offload\"", show(v, sh));
                else
                        r->mode = m;
        }
        if (get_int(p, "root", root, "txtime_delay_ns", false, 0, UINT32_MAX, &x) > 0)
                r->txtime_delay_ns = (uint32_t) x;
        parse_entries(p, root, r);

        if (!r->cycle_time_given) {
                int64_t sum = 0;

                for (size_t i = 0; i < r->n_entries; i++)
                        sum += r->entries[i].interval_ns;
                r->cycle_time_ns = sum;
        }
}

static void parse_root(Parser *p, json_object *top, RootSpec *r) {
        static const KeySpec keys[] = {
                { "qdisc", K_ANY },
                { "handle", K_ANY },
                { "num_tc", K_ANY },
                { "priority_map", K_ANY },
                { "queues", K_ANY },
                { "hw_offload", K_MQPRIO },
                { "clockid", K_TAPRIO },
                { "base_time_ns", K_TAPRIO },
                { "cycle_time_ns", K_TAPRIO },
                { "cycle_time_extension_ns", K_TAPRIO },
                { "mode", K_TAPRIO },
                { "txtime_delay_ns", K_TAPRIO },
                { "entries", K_TAPRIO },
        };
        char sh[SHOW_MAX];
        json_object *root, *v = NULL;
        RootKind kind = _ROOT_KIND_INVALID;
        bool num_tc_ok = false;
        const char *t;
        int64_t x;

        root = get_container(p, NULL, top, "root", true, json_type_object);
        if (!root)
                return;

        t = get_string(p, "root", root, "qdisc", true, &v);
        if (t) {
                kind = root_kind_from_string(t);
                if (kind < 0 || has_nul(v))
                        perr(p, "root.qdisc", "unknown qdisc %s; expected \"mqprio\" or \"taprio\"%s",
                             show(v, sh),
                             (strcmp(t, "etf") == 0 || strcmp(t, "tbs") == 0) ? " (etf qdiscs go in \"txqueues\")" : "");
        }
        check_keys(p, "root", root, keys, ELEMENTSOF(keys), kind >= 0 ? 1U << kind : K_ANY);

        r->kind = kind >= 0 ? kind : ROOT_MQPRIO;
        parse_handle(p, root, r);
        if (get_int(p, "root", root, "num_tc", true, 1, TBS_MAX_TC, &x) > 0) {
                r->num_tc = (uint8_t) x;
                num_tc_ok = true;
        }
        parse_priority_map(p, root, r);
        parse_queues(p, root, r, num_tc_ok);

        if (kind == ROOT_MQPRIO)
                (void) get_bool(p, "root", root, "hw_offload", &r->hw_offload);
        else if (kind == ROOT_TAPRIO)
                parse_taprio(p, root, r);
}

static void parse_offload(Parser *p, const char *prefix, json_object *e, OffloadMode *ret) {
        char path[JPATH_MAX], sh[SHOW_MAX];
        json_object *v;

        v = member(p, prefix, e, "offload", false);
        if (!v)
                return;
        if (json_object_is_type(v, json_type_boolean)) {
                *ret = json_object_get_boolean(v) ? OFFLOAD_ON : OFFLOAD_OFF;
                return;
        }
        if (json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), "auto") == 0 &&
            str_len(v) == 4) {
                *ret = OFFLOAD_AUTO;
                return;
        }
        perr(p, jpath_key(path, prefix, "offload"), "must be true, false or \"auto\", got %s", show(v, sh));
}

static void parse_txqueue(Parser *p, const char *path, json_object *e, EtfSpec *q) {
        static const KeySpec keys[] = {
                { "queue", K_ANY },
                { "qdisc", K_ANY },
                { "clockid", K_ANY },
                { "delta_ns", K_ANY },
                { "offload", K_ANY },
                { "deadline_mode", K_ANY },
                { "skip_sock_check", K_ANY },
        };
        char qpath[JPATH_MAX], sh[SHOW_MAX];
        json_object *v = NULL;
        const char *t;
        int64_t x;

        if (!expect_type(p, path, e, json_type_object))
                return;
        check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);

        if (get_int(p, path, e, "queue", true, 0, TBS_MAX_QUEUE, &x) > 0)
                q->queue = (uint32_t) x;
        t = get_string(p, path, e, "qdisc", false, &v);
        if (t) {
                if (strcmp(t, "tbs") == 0 && str_len(v) == 3)
                        q->spelled_tbs = true;
                else if (strcmp(t, "etf") != 0 || str_len(v) != 3)
                        perr(p, jpath_key(qpath, path, "qdisc"),
                             "unknown qdisc %s; expected \"etf\" (or its old name \"tbs\")", show(v, sh));
        }
        parse_clockid(p, path, e, &q->clockid);
        if (get_int(p, path, e, "delta_ns", true, 0, INT32_MAX, &x) > 0)
                q->delta_ns = x;
        parse_offload(p, path, e, &q->offload);
        (void) get_bool(p, path, e, "deadline_mode", &q->deadline_mode);
        (void) get_bool(p, path, e, "skip_sock_check", &q->skip_sock_check);
}

static void parse_txqueues(Parser *p, json_object *top, Schedule *s) {
        char path[JPATH_MAX];
        json_object *a;
        size_t n;

        a = get_container(p, NULL, top, "txqueues", false, json_type_array);
        if (!a)
                return;
        n = json_object_array_length(a);
        if (n == 0)
                return;
        s->txqueues = calloc(n, sizeof(EtfSpec));
        if (!s->txqueues) {
                p->oom = true;
                return;
        }
        s->n_txqueues = n;
        for (size_t i = 0; i < n; i++) {
                s->txqueues[i] = (EtfSpec) {
                        .clockid = CLOCK_TAI,
                        .offload = OFFLOAD_AUTO,
                };
                parse_txqueue(p, jpath_index(path, "txqueues", i), json_object_array_get_idx(a, i),
                              &s->txqueues[i]);
        }
}

static void parse_clock(Parser *p, json_object *top, ClockSpec *c) {
        static const KeySpec keys[] = {
                { "ptp4l_socket", K_ANY },
                { "domain", K_ANY },
                { "transport_specific", K_ANY },
                { "max_master_offset_ns", K_ANY },
                { "max_phc_offset_ns", K_ANY },
        };
        char sh[SHOW_MAX];
        json_object *o, *v = NULL;
        const char *t;
        int64_t x;

        o = get_container(p, NULL, top, "clock", false, json_type_object);
        if (!o)
                return;
        c->configured = true;
        check_keys(p, "clock", o, keys, ELEMENTSOF(keys), K_ANY);

        t = get_string(p, "clock", o, "ptp4l_socket", false, &v);
        if (t) {
                if (has_nul(v))
                        perr(p, "clock.ptp4l_socket", "must not contain a NUL character, got %s", show(v, sh));
                else if (!(c->ptp4l_socket = strdup(t)))
                        p->oom = true;
        }
        if (get_int(p, "clock", o, "domain", false, 0, UINT8_MAX, &x) > 0)
                c->domain = (uint8_t) x;
        if (get_int(p, "clock", o, "transport_specific", false, 0, 15, &x) > 0)
                c->transport_specific = (uint8_t) x;
        if (get_int(p, "clock", o, "max_master_offset_ns", false, 1, INT64_MAX, &x) > 0)
                c->max_master_offset_ns = x;
        if (get_int(p, "clock", o, "max_phc_offset_ns", false, 1, INT64_MAX, &x) > 0)
                c->max_phc_offset_ns = x;
}

static void parse_drift(Parser *p, json_object *top, Schedule *s) {
        json_object *v = NULL;
        const char *t;
        char sh[SHOW_MAX];
        int d;

        t = get_string(p, NULL, top, "drift", false, &v);
        if (!t)
                return;
        d = drift_policy_from_string(t);
        if (d < 0) {
                perr(p, "drift", "unknown policy %s; expected \"enforce\" or \"report\"", show(v, sh));
                return;
        }
        s->drift = d;
}

static void parse_top(Parser *p, json_object *top, Schedule *s) {
        static const KeySpec keys[] = {
                { "interface", K_ANY },
                { "root", K_ANY },
                { "txqueues", K_ANY },
                { "clock", K_ANY },
                { "drift", K_ANY },
        };

        check_keys(p, NULL, top, keys, ELEMENTSOF(keys), K_ANY);
        parse_interface(p, top, s);
        parse_root(p, top, &s->root);
        parse_txqueues(p, top, s);
        parse_clock(p, top, &s->clock);
        parse_drift(p, top, s);
}

static void line_col(const char *text, size_t off, unsigned *ret_line, unsigned *ret_col) {
        unsigned line = 1;
        size_t bol = 0;

        for (size_t i = 0; i < off; i++)
                if (text[i] == '\n') {
                        line++;
                        bol = i + 1;
                }
        *ret_line = line;
        *ret_col = (unsigned) (off - bol + 1);
}

static bool is_blank(const char *text, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (!strchr(" \t\r\n", text[i]) || text[i] == 0)
                        return false;
        return true;
}

/* Reads text as strict JSON (json-strict.h). Returns 0 and the top-level
 * value (which may be NULL for the JSON text "null"), or -EINVAL with a
 * diagnostic if p is given, or -ENOMEM. */
static int tokenize(Parser *p, const char *text, size_t len, json_object **ret) {
        char why[JSON_STRICT_ERROR_MAX];
        const char *nul;
        unsigned line, col;
        size_t at = 0;
        int r;

        if (len > INT_MAX - 1) {
                if (p)
                        perr(p, NULL, "the file is too large");
                return -EINVAL;
        }
        if (is_blank(text, len)) {
                if (p)
                        perr(p, NULL, "the file is empty; expected a JSON object");
                return -EINVAL;
        }
        nul = memchr(text, 0, len);
        if (nul) {
                if (p) {
                        line_col(text, (size_t) (nul - text), &line, &col);
                        perr(p, NULL, "line %u, column %u: syntax error: NUL byte", line, col);
                }
                return -EINVAL;
        }

        r = json_strict_parse(text, len, ret, &at, why);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (p) {
                        line_col(text, at, &line, &col);
                        perr(p, NULL, "line %u, column %u: syntax error: %s", line, col, why);
                }
                return -EINVAL;
        }
        return 0;
}

int schedule_parse_json(const char *file, const char *text, size_t len, DiagList *diags,
                        Schedule **ret) {
        _cleanup_json_ json_object *top = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        Parser p = { .file = file, .diags = diags };
        size_t errors = diag_errors(diags);
        char sh[SHOW_MAX];
        int r;

        r = tokenize(&p, text, len, &top);
        if (p.oom)
                return -ENOMEM;
        if (r < 0)
                return r;
        if (!top || !json_object_is_type(top, json_type_object)) {
                perr(&p, NULL, "the file must hold a JSON object, got %s", top ? show(top, sh) : "null");
                return p.oom ? -ENOMEM : -EINVAL;
        }

        s = calloc(1, sizeof(Schedule));
        if (!s)
                return -ENOMEM;
        if (file && !(s->source = strdup(file)))
                return -ENOMEM;
        s->root = (RootSpec) {
                .kind = ROOT_MQPRIO,
                .handle = TBS_DEFAULT_ROOT_HANDLE,
                .clockid = CLOCK_TAI,
                .mode = TAPRIO_MODE_SOFTWARE,
        };
        s->clock = (ClockSpec) {
                .max_master_offset_ns = 100,
                .max_phc_offset_ns = 1000,
        };

        parse_top(&p, top, s);
        if (p.oom)
                return -ENOMEM;
        if (diag_errors(diags) > errors)
                return -EINVAL;
        *ret = TAKE_PTR(s);
        return 0;
}

int schedule_read_file(const char *path, const char *display_name, DiagList *diags,
                       char **ret_text, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        const char *name = display_name ?: path;

        /* O_NONBLOCK: a FIFO put in the folder must not hang us (it is
         * refused as not a regular file). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                int r = negative_errno();

                return diag_error(diags, name, NULL, "cannot open: %s", strerror(-r)) < 0 ? -ENOMEM : r;
        }
        return schedule_read_fd(fd, name, diags, ret_text, ret_len, NULL);
}

int schedule_read_fd(int fd, const char *name, DiagList *diags, char **ret_text, size_t *ret_len,
                     struct stat *ret_stat) {
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                return diag_error(diags, name, NULL, "cannot stat: %s", strerror(-r)) < 0 ? -ENOMEM : r;
        }
        r = schedule_read_opened(fd, &st, name, diags, ret_text, ret_len);
        if (r >= 0 && ret_stat)
                *ret_stat = st;
        return r;
}

int schedule_read_opened(int fd, const struct stat *stp, const char *name, DiagList *diags, char **ret_text,
                         size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        const struct stat st = *stp;
        size_t n = 0, want;

        if (!S_ISREG(st.st_mode))
                return diag_error(diags, name, NULL, "not a regular file") < 0 ? -ENOMEM : -EINVAL;
        if (st.st_size > (off_t) SCHEDULE_FILE_MAX)
                goto too_large;

        /* Ask for one byte more than fstat() said: a file that grew since
         * fills the request; a short read is the end of the file (the
         * fstat() below catches any other change). */
        want = (size_t) st.st_size + 1;
        buf = malloc(want + 1);
        if (!buf)
                return -ENOMEM;
        while (n < want) {
                ssize_t k = read(fd, buf + n, want - n);

                if (k < 0) {
                        int r = negative_errno();

                        if (r == -EINTR)
                                continue;
                        return diag_error(diags, name, NULL, "cannot read: %s", strerror(-r)) < 0 ? -ENOMEM : r;
                }
                n += (size_t) k;
                if ((size_t) k < want - (n - (size_t) k))
                        break;
        }
        if (n > SCHEDULE_FILE_MAX)
                goto too_large;
        /* A writer that is not done yet would give us half a file: refuse
         * it rather than act on it; the next reload reads it whole. */
        {
                struct stat after;

                if (fstat(fd, &after) < 0 || after.st_size != st.st_size ||
                    after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec ||
                    after.st_ctim.tv_sec != st.st_ctim.tv_sec || after.st_ctim.tv_nsec != st.st_ctim.tv_nsec ||
                    (off_t) n != st.st_size)
                        return diag_error(diags, name, NULL, "the file changed while it was read; not used") < 0 ?
                               -ENOMEM : -EAGAIN;
        }
        buf[n] = 0;
        *ret_text = TAKE_PTR(buf);
        *ret_len = n;
        return 0;

too_large:
        return diag_error(diags, name, NULL, "the file is larger than %u bytes; refusing to read it",
                          SCHEDULE_FILE_MAX) < 0 ? -ENOMEM : -EFBIG;
}

int schedule_load_file(const char *path, const char *display_name, DiagList *diags,
                       Schedule **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = schedule_read_file(path, display_name, diags, &text, &len);
        if (r < 0)
                return r;
        return schedule_parse_json(display_name ?: path, text, len, diags, ret);
}

int schedule_peek_ifname(const char *text, size_t len, char ret[static IFNAMSIZ]) {
        _cleanup_json_ json_object *top = NULL;
        json_object *v;
        size_t n;

        if (tokenize(NULL, text, len, &top) < 0)
                return -ENOENT;
        v = json_get(top, "interface");
        if (!v || !json_object_is_type(v, json_type_string))
                return -ENOENT;
        n = str_len(v);
        if (ifname_problem(json_object_get_string(v), n))
                return -ENOENT;
        memcpy(ret, json_object_get_string(v), n + 1);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One interface's NETCONF configuration -> tbsd's JSON schedule document.
 * The rules of the document (ranges, the relations of traffic classes,
 * queues and gates) are tbsd's, checked by ApplySchedule with its own
 * one-line reasons; this file only maps names and values, and refuses
 * what has no place in the document (a cycle time that is not a whole
 * number of nanoseconds, initial gate states Linux does not have). */
#include "nc-translate.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-cbsa.h"
#include "nc-derive.h"
#include "nc-origin.h"
#include "nc-preemption.h"
#include "nc-translate-internal.h"

#define NS_PER_S 1000000000ULL
#define MAX_PRIO 16

static int parse_i64(const char *s, int64_t *out) {
        char *end;

        if (!s || !*s)
                return -1;
        errno = 0;
        *out = strtoll(s, &end, 10);
        return errno || *end ? -1 : 0;
}

static int add_int(struct ctx *ctx, json_object *obj, const char *key, const char *node, const char *value) {
        int64_t v;

        if (parse_i64(value, &v) < 0)
                return nc_fail(ctx, node, "not an integer: \"%s\"", value);
        json_object_object_add(obj, key, json_object_new_int64(v));
        return 0;
}

static int add_bool(struct ctx *ctx, json_object *obj, const char *key, const char *node, const char *value) {
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
                return nc_fail(ctx, node, "not a boolean: \"%s\"", value);
        json_object_object_add(obj, key, json_object_new_boolean(value[0] == 't'));
        return 0;
}

/* The key of a node: '-' becomes '_' (num-tc -> num_tc). */
static char *key_of(const char *name) {
        char *k = strdup(name);
        for (char *p = k; p && *p; p++)
                if (*p == '-')
                        *p = '_';
        return k;
}

enum kind { K_INT, K_STR, K_BOOL, K_OFFLOAD };

static enum kind kind_of(const char *name) {
        static const char *const strs[] = { "handle", "clockid", "mode", "qdisc", "ptp4l-socket", "drift", NULL };
        static const char *const bools[] = { "hw-offload", "deadline-mode", "skip-sock-check", NULL };

        for (size_t i = 0; strs[i]; i++)
                if (strcmp(name, strs[i]) == 0)
                        return K_STR;
        for (size_t i = 0; bools[i]; i++)
                if (strcmp(name, bools[i]) == 0)
                        return K_BOOL;
        return strcmp(name, "offload") == 0 ? K_OFFLOAD : K_INT;
}

/* A leaf of tbsd's module into obj, named as the document names it. */
static int add_leaf(struct ctx *ctx, json_object *obj, const char *path, const struct nc_node *n) {
        char node[256];
        char *key = key_of(n->name);
        int r = 0;

        if (!key)
                return nc_fail(ctx, path, "out of memory");
        snprintf(node, sizeof(node), "%s/%s", path, n->name);
        switch (kind_of(n->name)) {
        case K_STR:
                json_object_object_add(obj, key, json_object_new_string(n->value));
                break;
        case K_BOOL:
                r = add_bool(ctx, obj, key, node, n->value);
                break;
        case K_OFFLOAD:
                if (strcmp(n->value, "auto") == 0)
                        json_object_object_add(obj, key, json_object_new_string("auto"));
                else
                        r = add_bool(ctx, obj, key, node, n->value);
                break;
        case K_INT:
                r = add_int(ctx, obj, key, node, n->value);
                break;
        }
        free(key);
        return r;
}

/* An indexed list (priority-map, queues, queue-max-sdu-table) into an
 * array: entry i of the array is the entry whose index is i. */
static int indexed_array(struct ctx *ctx, const struct nc_node *parent, const char *list, const char *index,
                         const char *path, size_t max, size_t min_len, bool fill_zero,
                         json_object *(*value)(struct ctx *, const struct nc_node *, const char *),
                         json_object **out) {
        json_object *slot[64] = { 0 };
        size_t len = min_len;
        int r = 0;

        for (const struct nc_node *e = parent->child; e && r == 0; e = e->next) {
                uint64_t i;
                char node[256];

                if (strcmp(e->name, list) != 0)
                        continue;
                snprintf(node, sizeof(node), "%s/%s[%s=%s]", path, list, index,
                         nc_leaf(e, index) ? nc_leaf(e, index) : "?");
                if (nc_parse_u64(nc_leaf(e, index), &i) < 0 || i >= max) {
                        r = nc_fail(ctx, node, "%s must be below %zu", index, max);
                        break;
                }
                json_object *v = value(ctx, e, node);
                if (!v) {
                        r = -1;
                        break;
                }
                json_object_put(slot[i]);
                slot[i] = v;
                if (i + 1 > len)
                        len = i + 1;
        }
        if (r == 0) {
                *out = json_object_new_array();
                for (size_t i = 0; i < len && r == 0; i++) {
                        if (!slot[i] && !fill_zero) {
                                r = nc_fail(ctx, path, "%s has no entry for %s %zu (entries 0 to %zu are needed)",
                                         list, index, i, len - 1);
                                break;
                        }
                        json_object_array_add(*out, slot[i] ? slot[i] : json_object_new_int(0));
                        slot[i] = NULL;
                }
                if (r < 0) {
                        json_object_put(*out);
                        *out = NULL;
                }
        }
        for (size_t i = 0; i < 64; i++)
                json_object_put(slot[i]);
        return r;
}

static json_object *int_of(struct ctx *ctx, const struct nc_node *e, const char *node, const char *name) {
        int64_t v;
        const char *s = nc_leaf(e, name);

        if (parse_i64(s, &v) < 0) {
                nc_fail(ctx, node, "%s: not an integer: \"%s\"", name, s ? s : "");
                return NULL;
        }
        return json_object_new_int64(v);
}

static json_object *prio_value(struct ctx *ctx, const struct nc_node *e, const char *node) {
        return int_of(ctx, e, node, "traffic-class");
}

static json_object *sdu_value(struct ctx *ctx, const struct nc_node *e, const char *node) {
        return nc_leaf(e, "queue-max-sdu") ? int_of(ctx, e, node, "queue-max-sdu") : json_object_new_int(0);
}

static json_object *queue_value(struct ctx *ctx, const struct nc_node *e, const char *node) {
        json_object *count = int_of(ctx, e, node, "count");
        json_object *offset = count ? int_of(ctx, e, node, "offset") : NULL;

        if (!offset) {
                json_object_put(count);
                return NULL;
        }
        json_object *q = json_object_new_object();
        json_object_object_add(q, "count", count);
        json_object_object_add(q, "offset", offset);
        return q;
}

/* schedule/root -> the document's root (without qdisc and the gates). */
static int root_from_tbsd(struct ctx *ctx, const struct nc_node *root, json_object *out) {
        const char *path = "tbsd:schedule/root";

        for (const struct nc_node *c = root ? root->child : NULL; c; c = c->next) {
                if (strcmp(c->name, "priority-map") == 0 || strcmp(c->name, "queues") == 0)
                        continue;
                if (add_leaf(ctx, out, path, c) < 0)
                        return -1;
        }
        if (nc_child(root, "priority-map")) {
                json_object *arr;
                if (indexed_array(ctx, root, "priority-map", "priority", path, MAX_PRIO, MAX_PRIO, true,
                                  prio_value, &arr) < 0)
                        return -1;
                json_object_object_add(out, "priority_map", arr);
        }
        if (nc_child(root, "queues")) {
                json_object *arr;
                if (indexed_array(ctx, root, "queues", "traffic-class", path, MAX_TC, 0, false,
                                  queue_value, &arr) < 0)
                        return -1;
                json_object_object_add(out, "queues", arr);
        }
        return 0;
}

struct gce {
        uint64_t index;
        const struct nc_node *node;
};

static int gce_cmp(const void *a, const void *b) {
        const struct gce *x = a, *y = b;
        return x->index < y->index ? -1 : x->index > y->index;
}

static const char *local_name(const char *s) {
        const char *colon = s ? strrchr(s, ':') : NULL;
        return colon ? colon + 1 : s;
}

/* Where root.entries[i] and its keys came from: gate-control-entry e
 * (named node) and its leaves. */
static int note_entry(struct ctx *ctx, const struct nc_node *e, const char *node, size_t i) {
        static const char *const leaves[][2] = {
                { "command", "operation-name" },
                { "gate_mask", "gate-states-value" },
                { "interval_ns", "time-interval-value" },
        };
        char leaf[300];

        if (nc_note(ctx, e, node, "root.entries[%zu]", i) < 0)
                return -1;
        for (size_t k = 0; k < sizeof(leaves) / sizeof(leaves[0]); k++) {
                snprintf(leaf, sizeof(leaf), "%s/%s", node, leaves[k][1]);
                if (nc_note(ctx, nc_child(e, leaves[k][1]), leaf, "root.entries[%zu].%s", i, leaves[k][0]) < 0)
                        return -1;
        }
        return 0;
}

/* gate-parameter-table -> root.entries, cycle, base time, max_sdu. */
static int gates(struct ctx *ctx, const struct nc_node *table, json_object *root) {
        const char *path = ctx->table;
        const char *s;
        char node[256];

        s = nc_leaf(table, "admin-gate-states");
        if (s && strcmp(s, "255") != 0)
                return nc_fail(ctx, nc_tpath(ctx, "/admin-gate-states"),
                            "%s: Linux's taprio has no initial gate states (all gates are open until the "
                            "list runs); only 255 is taken", s);

        const struct nc_node *list = nc_child(table, "admin-control-list");
        size_t n = 0;
        for (const struct nc_node *e = list ? list->child : NULL; e; e = e->next)
                n += strcmp(e->name, "gate-control-entry") == 0;
        struct gce *v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
                return nc_fail(ctx, path, "out of memory");
        n = 0;
        for (const struct nc_node *e = list ? list->child : NULL; e; e = e->next) {
                if (strcmp(e->name, "gate-control-entry") != 0)
                        continue;
                if (nc_parse_u64(nc_leaf(e, "index"), &v[n].index) < 0) {
                        free(v);
                        return nc_fail(ctx, path, "admin-control-list/gate-control-entry: index missing");
                }
                v[n++].node = e;
        }
        qsort(v, n, sizeof(*v), gce_cmp);
        json_object *entries = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                const struct nc_node *e = v[i].node;
                const char *op = local_name(nc_leaf(e, "operation-name"));
                const char *cmd = NULL;
                json_object *mask, *interval;

                snprintf(node, sizeof(node), "%s/admin-control-list/gate-control-entry[index=%" PRIu64 "]",
                         path, v[i].index);
                if (op && strcmp(op, "set-gate-states") == 0)
                        cmd = "set-gates";
                else if (op && strcmp(op, "set-and-hold-mac") == 0)
                        cmd = "set-and-hold";
                else if (op && strcmp(op, "set-and-release-mac") == 0)
                        cmd = "set-and-release";
                if (!cmd) {
                        json_object_put(entries);
                        free(v);
                        return nc_fail(ctx, node, "unknown operation-name \"%s\"", op ? op : "");
                }
                mask = int_of(ctx, e, node, "gate-states-value");
                if (mask && ctx->gate_limit)
                        json_object_set_int64(mask, json_object_get_int64(mask) & ((1 << ctx->gate_limit) - 1));
                interval = mask ? int_of(ctx, e, node, "time-interval-value") : NULL;
                if (!interval) {
                        json_object_put(mask);
                        json_object_put(entries);
                        free(v);
                        return -1;
                }
                json_object *o = json_object_new_object();
                json_object_object_add(o, "command", json_object_new_string(cmd));
                json_object_object_add(o, "gate_mask", mask);
                json_object_object_add(o, "interval_ns", interval);
                json_object_array_add(entries, o);
                if (note_entry(ctx, e, node, i) < 0) {
                        json_object_put(entries);
                        free(v);
                        return -1;
                }
        }
        free(v);
        json_object_object_add(root, "entries", entries);
        if (nc_note(ctx, list, nc_tpath(ctx, "/admin-control-list"), "root.entries") < 0 ||
            nc_note(ctx, nc_child(table, "admin-cycle-time"), nc_tpath(ctx, "/admin-cycle-time"),
                    "root.cycle_time_ns") < 0 ||
            nc_note(ctx, nc_child(table, "admin-cycle-time-extension"), nc_tpath(ctx, "/admin-cycle-time-extension"),
                    "root.cycle_time_extension_ns") < 0 ||
            nc_note(ctx, nc_child(table, "admin-base-time"), nc_tpath(ctx, "/admin-base-time"),
                    "root.base_time_ns") < 0 ||
            nc_note(ctx, nc_child(table, "queue-max-sdu-table"), nc_tpath(ctx, "/queue-max-sdu-table"),
                    "root.max_sdu") < 0)
                return -1;

        const struct nc_node *ct = nc_child(table, "admin-cycle-time");
        if (ct) {
                uint64_t num, den;
                if (nc_parse_u64(nc_leaf(ct, "numerator"), &num) < 0 || nc_parse_u64(nc_leaf(ct, "denominator"), &den) < 0 ||
                    den == 0)
                        return nc_fail(ctx, nc_tpath(ctx, "/admin-cycle-time"),
                                    "needs a numerator and a denominator above 0");
                /* numerator is 32 bits: numerator * 10^9 fits in 64. */
                if ((num * NS_PER_S) % den != 0)
                        return nc_fail(ctx, nc_tpath(ctx, "/admin-cycle-time"),
                                    "%" PRIu64 "/%" PRIu64 " s is not a whole number of nanoseconds", num, den);
                json_object_object_add(root, "cycle_time_ns", json_object_new_int64((int64_t) (num * NS_PER_S / den)));
        }
        s = nc_leaf(table, "admin-cycle-time-extension");
        if (s && add_int(ctx, root, "cycle_time_extension_ns",
                         nc_tpath(ctx, "/admin-cycle-time-extension"), s) < 0)
                return -1;
        const struct nc_node *bt = nc_child(table, "admin-base-time");
        if (bt && (nc_leaf(bt, "seconds") || nc_leaf(bt, "nanoseconds"))) {
                uint64_t sec = 0, ns = 0;
                if ((nc_leaf(bt, "seconds") && nc_parse_u64(nc_leaf(bt, "seconds"), &sec) < 0) ||
                    (nc_leaf(bt, "nanoseconds") && nc_parse_u64(nc_leaf(bt, "nanoseconds"), &ns) < 0) || ns >= NS_PER_S)
                        return nc_fail(ctx, nc_tpath(ctx, "/admin-base-time"),
                                    "nanoseconds must be below 1000000000");
                if (sec > ((uint64_t) INT64_MAX - ns) / NS_PER_S)
                        return nc_fail(ctx, nc_tpath(ctx, "/admin-base-time"),
                                    "%" PRIu64 " s is beyond the largest base time (9223372036854775807 ns)", sec);
                json_object_object_add(root, "base_time_ns", json_object_new_int64((int64_t) (sec * NS_PER_S + ns)));
        }
        if (nc_child(table, "queue-max-sdu-table")) {
                json_object *num_tc = NULL, *arr;
                size_t len = 0;
                if (json_object_object_get_ex(root, "num_tc", &num_tc) && json_object_get_int64(num_tc) > 0 &&
                    json_object_get_int64(num_tc) <= MAX_TC)
                        len = (size_t) json_object_get_int64(num_tc);
                if (indexed_array(ctx, table, "queue-max-sdu-table", "traffic-class", path, len ? len : MAX_TC,
                                  len, true, sdu_value, &arr) < 0)
                        return -1;
                json_object_object_add(root, "max_sdu", arr);
        }
        return 0;
}

static int txqueues(struct ctx *ctx, const struct nc_node *sched, json_object *doc) {
        json_object *arr = json_object_new_array();

        json_object_object_add(doc, "txqueues", arr);
        for (const struct nc_node *e = sched->child; e; e = e->next) {
                char path[128];

                if (strcmp(e->name, "txqueues") != 0)
                        continue;
                snprintf(path, sizeof(path), "tbsd:schedule/txqueues[queue=%s]",
                         nc_leaf(e, "queue") ? nc_leaf(e, "queue") : "?");
                json_object *q = json_object_new_object();
                json_object_array_add(arr, q);
                if (nc_note(ctx, e, path, "txqueues[%zu]", json_object_array_length(arr) - 1) < 0)
                        return -1;
                for (const struct nc_node *c = e->child; c; c = c->next)
                        if (add_leaf(ctx, q, path, c) < 0)
                                return -1;
        }
        return 0;
}

int nc_translate_interface(const struct nc_node *iface, const char **ifname, char **json, char **error) {
        return nc_translate_interface_origins(iface, ifname, json, error, NULL);
}

int nc_translate_interface_origins(const struct nc_node *iface, const char **ifname, char **json, char **error,
                                   struct nc_origin **origins) {
        struct ctx ctx = { .ifname = nc_leaf(iface, "name"), .iface = iface, .origins = origins };
        const struct nc_node *table;
        const struct nc_node *sched = nc_child(iface, "schedule");
        json_object *doc, *root;
        int r = 0;

        *json = NULL;
        *error = NULL;
        *ifname = ctx.ifname;
        if (origins)
                *origins = NULL;
        if (!ctx.ifname)
                ctx.ifname = "?";
        if (nc_gate_table(&ctx, iface, &table) < 0) {
                *error = ctx.error;
                return -1;
        }
        const char *enabled = nc_leaf(table, "gate-enabled");
        bool taprio = enabled && strcmp(enabled, "true") == 0;
        bool shaped = nc_cbsa_classes(iface) != 0;
        if (!sched && !taprio && !shaped) {
                if (nc_preemption_unscheduled(&ctx, iface) == 0)
                        return 0;
                *error = ctx.error;
                return -1;
        }
        doc = json_object_new_object();
        root = json_object_new_object();
        json_object_object_add(doc, "interface", json_object_new_string(ctx.ifname));
        json_object_object_add(doc, "root", root);
        json_object_object_add(root, "qdisc", json_object_new_string(taprio ? "taprio" : "mqprio"));
        if (sched)
                r = root_from_tbsd(&ctx, nc_child(sched, "root"), root);
        if (r == 0 && (taprio || shaped))
                r = nc_derive_root(&ctx, taprio ? table : NULL, root);
        if (r == 0 && taprio)
                r = gates(&ctx, table, root);
        if (r == 0)
                r = nc_preemption(&ctx, iface, sched, doc, root);
        if (r == 0 && sched)
                r = txqueues(&ctx, sched, doc);
        if (r == 0 && shaped)
                r = nc_cbsa_translate(&ctx, iface, doc);
        if (r == 0 && sched) {
                const struct nc_node *clock = nc_child(sched, "clock");
                if (clock) {
                        json_object *c = json_object_new_object();
                        json_object_object_add(doc, "clock", c);
                        for (const struct nc_node *l = clock->child; l && r == 0; l = l->next)
                                r = add_leaf(&ctx, c, "tbsd:schedule/clock", l);
                }
                if (r == 0 && nc_leaf(sched, "drift"))
                        json_object_object_add(doc, "drift", json_object_new_string(nc_leaf(sched, "drift")));
                json_object *allow = NULL;
                for (const struct nc_node *l = sched->child; l && r == 0; l = l->next) {
                        if (strcmp(l->name, "allow") != 0)
                                continue;
                        if (!allow) {
                                allow = json_object_new_array();
                                json_object_object_add(doc, "allow", allow);
                        }
                        json_object_array_add(allow, json_object_new_string(l->value));
                }
        }
        if (r == 0) {
                const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
                *json = text ? strdup(text) : NULL;
                if (!*json)
                        r = nc_fail(&ctx, "document", "out of memory");
        }
        json_object_put(doc);
        if (r < 0) {
                if (origins) {
                        nc_origin_free(*origins);
                        *origins = NULL;
                }
                *error = ctx.error;
                return -1;
        }
        return 1;
}

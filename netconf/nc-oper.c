/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Operational gate parameters from Link.Describe() (nc-oper.h). */
#include "nc-oper.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *get(json_object *o, const char *key) {
        json_object *v = NULL;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static clockid_t clock_of(const char *s) {
        if (!s)
                return CLOCK_TAI;
        if (strncasecmp(s, "CLOCK_", 6) == 0)
                s += 6;
        if (strcasecmp(s, "REALTIME") == 0)
                return CLOCK_REALTIME;
        if (strcasecmp(s, "MONOTONIC") == 0)
                return CLOCK_MONOTONIC;
        if (strcasecmp(s, "BOOTTIME") == 0)
                return CLOCK_BOOTTIME;
        return CLOCK_TAI;
}

static uint8_t operation_of(const char *s) {
        if (s && strcmp(s, "set-and-hold") == 0)
                return NC_OPER_SET_AND_HOLD;
        if (s && strcmp(s, "set-and-release") == 0)
                return NC_OPER_SET_AND_RELEASE;
        return NC_OPER_SET_GATES;
}

/* A counter of Describe(): whether it is there (a whole number, not
 * negative), and its value. */
static bool counter(json_object *v, uint64_t *ret) {
        if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
                return false;
        *ret = (uint64_t) json_object_get_int64(v);
        return true;
}

/* The standard's counters: per class from root.class_stats, and the
 * link's failed changes from counters. */
static void read_counters(json_object *doc, json_object *root, struct nc_oper *o) {
        json_object *cs = get(root, "class_stats"), *n = get(doc, "counters");
        uint64_t failed, refused;

        for (size_t i = 0; json_object_is_type(cs, json_type_array) && i < json_object_array_length(cs); i++) {
                json_object *c = json_object_array_get_idx(cs, i);
                uint64_t tc;

                if (counter(get(c, "class"), &tc) && tc < NC_OPER_MAX_CLASSES)
                        o->have_overruns[tc] = counter(get(c, "tx_overruns"), &o->overruns[tc]);
        }
        if (counter(get(n, "apply_failures"), &failed) && counter(get(n, "changes_refused"), &refused)) {
                o->have_change_errors = true;
                o->change_errors = failed + refused;
        }
}

int nc_oper_from_describe(const char *json, struct nc_oper *o) {
        json_object *doc = json ? json_tokener_parse(json) : NULL;
        json_object *root, *sched, *entries, *admin;
        const char *kind;
        int r = 0;

        memset(o, 0, sizeof(*o));
        o->clockid = CLOCK_TAI;
        if (!doc || !json_object_is_type(doc, json_type_object)) {
                json_object_put(doc);
                return -1;
        }
        root = get(doc, "root");
        kind = json_object_get_string(get(root, "qdisc"));
        if (!root || !kind || strcmp(kind, "taprio") != 0)
                goto out;
        read_counters(doc, root, o);
        sched = get(root, "oper_schedule");
        entries = get(sched, "entries");
        admin = get(root, "admin_schedule");
        o->change_pending = json_object_get_boolean(get(root, "change_pending"));
        if (o->change_pending && json_object_is_type(admin, json_type_object) &&
            json_object_is_type(get(admin, "base_time_ns"), json_type_int)) {
                o->have_admin = true;
                o->admin_base_time_ns = json_object_get_int64(get(admin, "base_time_ns"));
                o->admin_cycle_time_ns = json_object_get_int64(get(admin, "cycle_time_ns"));
        }
        o->clockid = clock_of(json_object_get_string(get(root, "clockid")));
        /* A first schedule waiting for its base time: no oper schedule yet. */
        if (!sched && o->have_admin) {
                o->taprio = true;
                goto out;
        }
        if (!sched || !json_object_is_type(entries, json_type_array)) {
                memset(o, 0, sizeof(*o));
                o->clockid = CLOCK_TAI;
                r = -1;
                goto out;
        }
        o->base_time_ns = json_object_get_int64(get(sched, "base_time_ns"));
        o->cycle_time_ns = json_object_get_int64(get(sched, "cycle_time_ns"));
        o->cycle_time_extension_ns = json_object_get_int64(get(sched, "cycle_time_extension_ns"));
        for (size_t i = 0; i < json_object_array_length(entries) && i < NC_OPER_MAX_ENTRIES; i++) {
                json_object *e = json_object_array_get_idx(entries, i);
                json_object *mask = get(e, "gate_mask");

                o->gate_mask[i] = json_object_is_type(mask, json_type_string)
                                          ? (uint32_t) strtoul(json_object_get_string(mask), NULL, 16)
                                          : (uint32_t) json_object_get_int64(mask);
                o->interval_ns[i] = (uint32_t) json_object_get_int64(get(e, "interval_ns"));
                o->operation[i] = operation_of(json_object_get_string(get(e, "command")));
                o->n_entries = (unsigned) i + 1;
        }
        o->taprio = o->n_entries > 0;
out:
        json_object_put(doc);
        return r;
}

uint8_t nc_oper_gate_states(const struct nc_oper *o, int64_t now_ns) {
        int64_t cycle = o->cycle_time_ns, at;

        if (!o->taprio || o->n_entries == 0 || now_ns < o->base_time_ns)
                return 0xff;
        if (cycle <= 0)
                for (unsigned i = 0; i < o->n_entries; i++)
                        cycle += o->interval_ns[i];
        if (cycle <= 0)
                return 0xff;
        at = (now_ns - o->base_time_ns) % cycle;
        for (unsigned i = 0; i < o->n_entries; i++) {
                if (at < o->interval_ns[i])
                        return (uint8_t) (o->gate_mask[i] & 0xff);
                at -= o->interval_ns[i];
        }
        /* The cycle is longer than the entries: the last one stays (taprio
         * keeps the last entry's gates until the cycle ends). */
        return (uint8_t) (o->gate_mask[o->n_entries - 1] & 0xff);
}

const char *nc_oper_operation_name(const struct nc_oper *o, unsigned i) {
        static const char *const names[] = {
                [NC_OPER_SET_GATES] = "set-gate-states",
                [NC_OPER_SET_AND_HOLD] = "set-and-hold-mac",
                [NC_OPER_SET_AND_RELEASE] = "set-and-release-mac",
        };

        return i < o->n_entries && o->operation[i] < sizeof(names) / sizeof(names[0]) ? names[o->operation[i]]
                                                                                      : names[0];
}

uint8_t nc_oper_entry_gates(const struct nc_oper *o, unsigned i) {
        return i < o->n_entries ? (uint8_t) (o->gate_mask[i] & 0xff) : 0;
}

static uint64_t gcd(uint64_t a, uint64_t b) {
        while (b) {
                uint64_t t = a % b;
                a = b;
                b = t;
        }
        return a;
}

int nc_oper_rational(int64_t ns, uint32_t *numerator, uint32_t *denominator) {
        uint64_t g, num, den = 1000000000;

        if (ns <= 0)
                return -1;
        g = gcd((uint64_t) ns, den);
        num = (uint64_t) ns / g;
        den /= g;
        if (num > UINT32_MAX)
                return -1;
        *numerator = (uint32_t) num;
        *denominator = (uint32_t) den;
        return 0;
}

int nc_oper_ptp_time(int64_t ns, uint64_t *seconds, uint32_t *nanoseconds) {
        if (ns < 0)
                return -1;
        *seconds = (uint64_t) ns / 1000000000u;
        *nanoseconds = (uint32_t) ((uint64_t) ns % 1000000000u);
        return 0;
}

int nc_oper_config_change_time(const struct nc_oper *o, int64_t now_ns, int64_t *at_ns) {
        int64_t base = o->admin_base_time_ns, cycle = o->admin_cycle_time_ns;

        if (!o->change_pending || !o->have_admin)
                return -1;
        if (base >= now_ns || cycle <= 0) {
                *at_ns = base;
                return 0;
        }
        *at_ns = base + ((now_ns - base + cycle - 1) / cycle) * cycle;
        return 0;
}

static void copy_string(char *dst, size_t size, json_object *v) {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

        snprintf(dst, size, "%s", s ? s : "");
}

static uint64_t count_of(json_object *v) {
        int64_t n = json_object_get_int64(v);

        return n > 0 ? (uint64_t) n : 0;
}

int nc_oper_state_from_describe(const char *json, struct nc_oper_state *st) {
        json_object *doc = json ? json_tokener_parse(json) : NULL;
        json_object *clock, *qs;

        memset(st, 0, sizeof(*st));
        if (!doc || !json_object_is_type(doc, json_type_object)) {
                json_object_put(doc);
                return -1;
        }
        copy_string(st->origin, sizeof(st->origin), get(doc, "origin"));
        copy_string(st->link_state, sizeof(st->link_state), get(doc, "state"));
        copy_string(st->link_reason, sizeof(st->link_reason), get(doc, "state_reason"));
        clock = get(doc, "clock");
        if (json_object_is_type(clock, json_type_object)) {
                copy_string(st->clock_state, sizeof(st->clock_state), get(clock, "state"));
                copy_string(st->clock_reason, sizeof(st->clock_reason), get(clock, "reason"));
        }
        qs = get(doc, "txqueues");
        for (size_t i = 0; json_object_is_type(qs, json_type_array) && i < json_object_array_length(qs) &&
                           st->n_queues < NC_OPER_MAX_QUEUES;
             i++) {
                json_object *q = json_object_array_get_idx(qs, i), *stats = get(q, "stats"),
                            *mon = get(q, "monitor");
                struct nc_oper_queue *o = &st->queues[st->n_queues];

                if (!json_object_is_type(get(q, "queue"), json_type_int))
                        continue;
                o->queue = (uint32_t) json_object_get_int64(get(q, "queue"));
                if (json_object_is_type(stats, json_type_object)) {
                        o->have_stats = true;
                        o->sent_packets = count_of(get(stats, "packets"));
                        o->sent_bytes = count_of(get(stats, "bytes"));
                        o->dropped = count_of(get(stats, "drops"));
                        o->overlimits = count_of(get(stats, "overlimits"));
                }
                if (json_object_is_type(mon, json_type_object) && json_object_get_boolean(get(mon, "running"))) {
                        o->monitor = true;
                        o->launch_count = count_of(get(mon, "count"));
                        o->launch_early = count_of(get(mon, "early"));
                        o->launch_late = count_of(get(mon, "late"));
                        o->have_launch_minmax = json_object_is_type(get(mon, "min_ns"), json_type_int) &&
                                                json_object_is_type(get(mon, "max_ns"), json_type_int);
                        if (o->have_launch_minmax) {
                                o->launch_min_ns = json_object_get_int64(get(mon, "min_ns"));
                                o->launch_max_ns = json_object_get_int64(get(mon, "max_ns"));
                        }
                }
                st->n_queues++;
        }
        json_object_put(doc);
        return 0;
}

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

int nc_oper_from_describe(const char *json, struct nc_oper *o) {
        json_object *doc = json ? json_tokener_parse(json) : NULL;
        json_object *root, *sched, *entries;
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
        sched = get(root, "oper_schedule");
        entries = get(sched, "entries");
        if (!sched || !json_object_is_type(entries, json_type_array)) {
                r = -1;
                goto out;
        }
        o->clockid = clock_of(json_object_get_string(get(root, "clockid")));
        o->change_pending = json_object_get_boolean(get(root, "change_pending"));
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

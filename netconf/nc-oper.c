/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Operational gate parameters from Link.Describe() (nc-oper.h). */
#include "nc-oper.h"

#include <json-c/json.h>
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

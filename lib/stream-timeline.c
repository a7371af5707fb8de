/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "json-util.h"
#include "stream-timeline.h"

static int add_i(json_object *o, const char *key, int64_t v) {
        return json_add_made(o, key, json_object_new_int64(v));
}

static json_object *streams_json(const Schedule *s, const StreamSchedule *c) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < s->streams.n; i++) {
                const StreamSpec *st = &s->streams.items[i];
                json_object *o = json_object_new_object();

                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
                if (json_add_string(o, "name", st->name) < 0 || add_i(o, "traffic_class", st->traffic_class) < 0 ||
                    add_i(o, "period_ns", st->period_ns) < 0 || add_i(o, "offset_ns", c->offsets_ns[i]) < 0 ||
                    json_add_made(o, "offset_given", json_object_new_boolean(st->offset_given)) < 0 ||
                    add_i(o, "window_ns", (int64_t) c->window_ns[i]) < 0 ||
                    json_add_string(o, "origin", st->from_bus ? "bus" : "file") < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

/* The streams whose windows overlap [from, to), each once. */
static json_object *entry_streams(const Schedule *s, const StreamSchedule *c, uint64_t from, uint64_t to) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < s->streams.n; i++) {
                bool in = false;

                for (size_t k = 0; k < c->n_windows && !in; k++)
                        in = c->windows[k].stream == i && c->windows[k].start_ns < to &&
                             c->windows[k].start_ns + c->windows[k].length_ns > from;
                if (in && json_object_array_add(a, json_object_new_string(s->streams.items[i].name)) < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

static json_object *entries_json(const Schedule *s, const StreamSchedule *c) {
        _cleanup_json_ json_object *a = json_object_new_array();
        uint64_t at = 0;

        if (!a)
                return NULL;
        for (size_t i = 0; i < c->n_entries; i++) {
                const GateEntry *e = &c->entries[i];
                json_object *o = json_object_new_object(), *classes = json_object_new_array(), *names;
                const char *kind;
                char mask[16];

                if (!o || !classes || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        json_object_put(classes);
                        return NULL;
                }
                for (unsigned tc = 0; tc < TBS_MAX_TC; tc++)
                        if (e->gate_mask & 1U << tc && json_object_array_add(classes, json_object_new_int(tc)) < 0) {
                                json_object_put(classes);
                                return NULL;
                        }
                names = entry_streams(s, c, at, at + e->interval_ns);
                kind = e->gate_mask == 0 ? "guard"
                       : names && json_object_array_length(names) > 0 ? "window" : "best-effort";
                snprintf(mask, sizeof(mask), "0x%x", e->gate_mask);
                if (add_i(o, "start_ns", (int64_t) at) < 0 || add_i(o, "interval_ns", e->interval_ns) < 0 ||
                    json_add_string(o, "gate_mask", mask) < 0 || json_add(o, "open_classes", classes) < 0 ||
                    json_add_string(o, "kind", kind) < 0 || json_add_made(o, "streams", names) < 0)
                        return NULL;
                at += e->interval_ns;
        }
        return TAKE_PTR(a);
}

json_object *stream_timeline_to_json(const Schedule *s, const StreamSchedule *c, uint32_t speed_mbps) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || json_add_string(o, "interface", s->ifname) < 0 || add_i(o, "cycle_ns", (int64_t) c->cycle_ns) < 0 ||
            add_i(o, "link_speed_mbps", speed_mbps) < 0 || add_i(o, "guard_ns", (int64_t) c->guard_ns) < 0 ||
            json_add_made(o, "utilisation_percent", json_object_new_double(c->utilisation_ppm / 10000.0)) < 0 ||
            json_add_made(o, "streams", streams_json(s, c)) < 0 ||
            json_add_made(o, "entries", entries_json(s, c)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

int stream_timeline_print(FILE *f, json_object *t) {
        json_object *streams = json_get(t, "streams"), *entries = json_get(t, "entries");

        fprintf(f, "%s: cycle %" PRIi64 " ns at %" PRIi64 " Mbit/s, guard band %" PRIi64 " ns, streams' windows "
                "%.1f %% of the cycle\n", json_get_string(t, "interface") ?: "?", json_get_int(t, "cycle_ns", 0),
                json_get_int(t, "link_speed_mbps", 0), json_get_int(t, "guard_ns", 0),
                json_object_get_double(json_get(t, "utilisation_percent")));
        for (size_t i = 0; i < json_object_array_length(streams); i++) {
                json_object *st = json_object_array_get_idx(streams, i);

                fprintf(f, "  stream %s: class %" PRIi64 ", every %" PRIi64 " ns at %" PRIi64 " ns (%s), window %"
                        PRIi64 " ns, from the %s\n", json_get_string(st, "name"),
                        json_get_int(st, "traffic_class", 0), json_get_int(st, "period_ns", 0),
                        json_get_int(st, "offset_ns", 0), json_get_bool(st, "offset_given", 0) ? "given" : "placed",
                        json_get_int(st, "window_ns", 0), json_get_string(st, "origin"));
        }
        fprintf(f, "  %12s %12s %-6s %-10s %s\n", "START_NS", "LENGTH_NS", "GATES", "CLASSES", "STREAMS");
        for (size_t i = 0; i < json_object_array_length(entries); i++) {
                json_object *e = json_object_array_get_idx(entries, i), *cl = json_get(e, "open_classes"),
                            *names = json_get(e, "streams");
                const char *kind = json_get_string(e, "kind");
                char classes[64] = "-";
                size_t at = 0;

                for (size_t k = 0; k < json_object_array_length(cl) && at + 4 < sizeof(classes); k++)
                        at += (size_t) snprintf(classes + at, sizeof(classes) - at, "%s%d", k ? "," : "",
                                                json_object_get_int(json_object_array_get_idx(cl, k)));
                fprintf(f, "  %12" PRIi64 " %12" PRIi64 " %-6s %-10s", json_get_int(e, "start_ns", 0),
                        json_get_int(e, "interval_ns", 0), json_get_string(e, "gate_mask"), classes);
                if (strcmp(kind, "guard") == 0)
                        fputs(" (guard band)", f);
                else if (strcmp(kind, "best-effort") == 0)
                        fputs(" (best effort)", f);
                for (size_t k = 0; k < json_object_array_length(names); k++)
                        fprintf(f, "%s%s", k ? ", " : " ", json_object_get_string(json_object_array_get_idx(names, k)));
                fputc('\n', f);
        }
        return ferror(f) ? -EIO : 0;
}

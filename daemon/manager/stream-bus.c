/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Link.AddStream() and Link.RemoveStream(): streams placed at run time in a
 * schedule given by streams (docs/streams.md), kept in the state directory
 * (stream-state.h), applied like a changed file. Privileged like Apply(). */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "bus-access.h"
#include "json-util.h"
#include "link.h"
#include "log.h"
#include "manager.h"
#include "schedule-streams.h"
#include "stream-bus.h"
#include "stream-state.h"

static Manager *bus_manager(sd_bus *bus) {
        return sd_bus_slot_get_userdata(sd_bus_get_current_slot(bus));
}

/* The a{sv} of AddStream() as the JSON object of a file's stream: strings
 * and integers of any D-Bus width. */
static int read_stream_dict(sd_bus_message *msg, json_object *o, sd_bus_error *error) {
        int r;

        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                const char *key, *contents, *str;
                json_object *v = NULL;
                union { uint8_t y; int16_t n; uint16_t q; int32_t i; uint32_t u; int64_t x; uint64_t t; } n;

                r = sd_bus_message_read(msg, "s", &key);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(msg, NULL, &contents);
                if (r < 0)
                        return r;
                r = sd_bus_message_enter_container(msg, 'v', contents);
                if (r < 0)
                        return r;
                switch (contents[0]) {
                case 's': r = sd_bus_message_read(msg, "s", &str); v = json_object_new_string(str); break;
                case 'y': r = sd_bus_message_read(msg, "y", &n.y); v = json_object_new_int64(n.y); break;
                case 'n': r = sd_bus_message_read(msg, "n", &n.n); v = json_object_new_int64(n.n); break;
                case 'q': r = sd_bus_message_read(msg, "q", &n.q); v = json_object_new_int64(n.q); break;
                case 'i': r = sd_bus_message_read(msg, "i", &n.i); v = json_object_new_int64(n.i); break;
                case 'u': r = sd_bus_message_read(msg, "u", &n.u); v = json_object_new_int64(n.u); break;
                case 'x': r = sd_bus_message_read(msg, "x", &n.x); v = json_object_new_int64(n.x); break;
                case 't': r = sd_bus_message_read(msg, "t", &n.t);
                        v = json_object_new_int64(n.t > INT64_MAX ? INT64_MAX : (int64_t) n.t); break;
                default:
                        return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                                 "stream.%s: must be a string or an integer, got D-Bus type '%s'",
                                                 key, contents);
                }
                if (r < 0)
                        return r;
                if (!v || json_add(o, key, v) < 0)
                        return -ENOMEM;
                r = sd_bus_message_exit_container(msg);
                if (r >= 0)
                        r = sd_bus_message_exit_container(msg);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        return sd_bus_message_exit_container(msg);
}

/* Make s the link's schedule, keep its bus streams and apply it (not on a
 * link set aside by Remove(): that lasts until Apply() or a reload); on
 * any failure the old schedule and state stay. Takes s. */
static int swap_and_apply(Link *l, Schedule *s, sd_bus_error *error) {
        _cleanup_free_ char *why = NULL;
        Schedule *old = l->schedule;
        int r;

        r = stream_state_save(l->ctx->state_dir, s);
        if (r < 0) {
                schedule_free(s);
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot keep the streams in %s: %s", l->name,
                                         l->ctx->state_dir, strerror(-r));
        }
        l->schedule = s;
        link_resolve_streams(l);
        if (l->removed) {
                schedule_free(old);
                return 0;
        }
        r = link_apply(l, &why);
        if (r < 0) {
                l->schedule = old;
                (void) stream_state_save(l->ctx->state_dir, old);
                schedule_free(s);
                return sd_bus_error_setf(error, TBS_ERROR_APPLY_FAILED, "%s: %s", l->name, why ?: strerror(-r));
        }
        schedule_free(old);
        return 0;
}

int stream_bus_add(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_(stream_schedule_done) StreamSchedule c = {};
        _cleanup_json_ json_object *o = json_object_new_object();
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *why = NULL;
        Manager *m = bus_manager(sd_bus_message_get_bus(msg));
        Link *l = userdata;
        DiagList diags = {};
        StreamSpec st, *items;
        uint32_t prio = UINT32_MAX;
        size_t idx;
        int r;

        r = bus_access_require(msg, m->admin_group, m->refusals, "AddStream", error);
        if (r < 0)
                return r;
        if (!o)
                return -ENOMEM;
        r = read_stream_dict(msg, o, error);
        if (r < 0 || sd_bus_error_is_set(error))
                return r;
        if (!l->ctx->state_dir)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: tbsd keeps no state here", l->name);
        if (l->removed)
                /* A stream is a window in the installed gate list: none
                 * is installed, and Remove() lasts until Apply() or a
                 * reload (which an AddStream must not stand in for). */
                return sd_bus_error_setf(error, TBS_ERROR_NOT_CONFIGURED,
                                         "%s: the schedule was removed (Remove(), tbsctl remove) and stays so until "
                                         "Apply() or a reload; no stream can be added before", l->name);
        if (!l->schedule || l->schedule->streams.n == 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "%s: the schedule gives no streams (only a taprio root given by "
                                         "\"streams\" takes more at run time)", l->name);
        r = stream_parse_object("AddStream", "stream", o, &l->schedule->root, &diags, &st);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                _cleanup_free_ char *line = diags.n > 0 ? diag_format(&diags.items[0]) : NULL;

                diag_list_clear(&diags);
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s", line ?: "invalid stream");
        }
        for (size_t i = 0; i < l->schedule->streams.n; i++)
                if (strcmp(l->schedule->streams.items[i].name, st.name) == 0) {
                        r = sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                              "%s: a stream named \"%s\" exists already (from the %s)", l->name,
                                              st.name, l->schedule->streams.items[i].from_bus ? "bus" : "file");
                        free(st.name);
                        return r;
                }
        r = schedule_copy(l->schedule, &s);
        if (r >= 0) {
                items = reallocarray(s->streams.items, s->streams.n + 1, sizeof(StreamSpec));
                r = items ? 0 : -ENOMEM;
        }
        if (r < 0) {
                free(st.name);
                return r;
        }
        st.from_bus = true;
        s->streams.items = items;
        idx = s->streams.n++;
        s->streams.items[idx] = st;
        s->streams.resolved_speed_mbps = 0;

        r = schedule_streams_compute(s, link_probed_speed_mbps(l), &c, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s: %s", l->name,
                                         why ?: "the stream cannot be scheduled");
        for (unsigned p = 0; p < TBS_PRIO_MAP_LEN && prio == UINT32_MAX; p++)
                if (s->root.priority_map[p] == st.traffic_class)
                        prio = p;
        r = swap_and_apply(l, TAKE_PTR(s), error);
        if (r < 0 || sd_bus_error_is_set(error))
                return r;
        link_emit_event(l, "stream-added", "stream %s: class %u, every %u ns at %u ns", st.name,
                        st.traffic_class, st.period_ns, c.offsets_ns[idx]);
        return sd_bus_reply_method_return(msg, "tuu", (uint64_t) c.offsets_ns[idx], (uint32_t) st.traffic_class,
                                          prio);
}

int stream_bus_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_schedule_ Schedule *s = NULL;
        Manager *m = bus_manager(sd_bus_message_get_bus(msg));
        Link *l = userdata;
        const char *name;
        size_t i;
        int r;

        r = bus_access_require(msg, m->admin_group, m->refusals, "RemoveStream", error);
        if (r < 0)
                return r;
        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return r;
        if (!l->ctx->state_dir)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: tbsd keeps no state here", l->name);
        for (i = 0; l->schedule && i < l->schedule->streams.n; i++)
                if (strcmp(l->schedule->streams.items[i].name, name) == 0)
                        break;
        if (!l->schedule || i == l->schedule->streams.n)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s: no stream named \"%s\"",
                                         l->name, name);
        if (!l->schedule->streams.items[i].from_bus)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                         "%s: stream \"%s\" comes from the schedule file; change the file",
                                         l->name, name);
        if (l->schedule->streams.n == 1)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s: \"%s\" is the last stream",
                                         l->name, name);
        r = schedule_copy(l->schedule, &s);
        if (r < 0)
                return r;
        free(s->streams.items[i].name);
        memmove(&s->streams.items[i], &s->streams.items[i + 1], (s->streams.n - i - 1) * sizeof(StreamSpec));
        s->streams.n--;
        s->streams.resolved_speed_mbps = 0;
        r = swap_and_apply(l, TAKE_PTR(s), error);
        if (r < 0 || sd_bus_error_is_set(error))
                return r;
        link_emit_event(l, "stream-removed", "stream %s", name);
        return sd_bus_reply_method_return(msg, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The "streams" of a taprio root (instead of "entries"), and the root keys
 * that go with them; the gate list is computed at once when the file gives
 * the link speed (docs/streams.md). Internal to lib/schedule-parse.c. */
#include <stdlib.h>
#include <string.h>

#include "json-strict.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-streams.h"

/* A stream's name: 1 to TBS_STREAM_NAME_MAX letters, digits, '_', '-' or
 * '.', so that it prints in one word in timelines and logs. */
static bool stream_name_ok(const char *t, size_t len) {
        if (len == 0 || len > TBS_STREAM_NAME_MAX || strlen(t) != len)
                return false;
        for (size_t i = 0; i < len; i++)
                if (!((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= '0' && t[i] <= '9') ||
                      t[i] == '_' || t[i] == '-' || t[i] == '.'))
                        return false;
        return true;
}

static void parse_stream(Parser *p, const char *path, const JsonNode *e, const RootSpec *r, StreamSpec *st) {
        static const KeySpec keys[] = {
                { "name", K_ANY }, { "traffic_class", K_ANY }, { "period_ns", K_ANY }, { "offset_ns", K_ANY },
                { "max_frame_bytes", K_ANY }, { "frames_per_period", K_ANY },
        };
        char kpath[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *v = NULL;
        const char *t;
        int64_t x;

        st->frames_per_period = 1;
        if (!expect_type(p, path, e, JSON_OBJECT))
                return;
        check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);
        t = get_string(p, path, e, "name", true, &v);
        if (t && !stream_name_ok(t, str_len(v)))
                perr(p, jpath_key(kpath, path, "name"), "must be 1 to %d letters, digits, '_', '-' or '.', got %s",
                     TBS_STREAM_NAME_MAX, show(v, sh));
        else if (t && !(st->name = strdup(t)))
                p->oom = true;
        if (get_int(p, path, e, "traffic_class", true, 0, TBS_MAX_TC - 1, &x) > 0) {
                st->traffic_class = (uint8_t) x;
                if (r->num_tc > 0 && x >= r->num_tc)
                        perr(p, jpath_key(kpath, path, "traffic_class"),
                             "must be below num_tc (%u), got %" PRIi64, r->num_tc, x);
        }
        if (get_int(p, path, e, "period_ns", true, 1, TBS_STREAM_MAX_CYCLE_NS, &x) > 0)
                st->period_ns = (uint32_t) x;
        if (get_int(p, path, e, "offset_ns", false, 0, TBS_STREAM_MAX_CYCLE_NS, &x) > 0) {
                st->offset_ns = (uint32_t) x;
                st->offset_given = true;
                if (st->period_ns > 0 && st->offset_ns >= st->period_ns)
                        perr(p, jpath_key(kpath, path, "offset_ns"),
                             "must be below period_ns (%" PRIu32 "): it is the window's start in its period, "
                             "got %" PRIi64, st->period_ns, x);
        }
        if (get_int(p, path, e, "max_frame_bytes", true, 1, TBS_ETH_MAX_FRAME_BYTES, &x) > 0)
                st->max_frame_bytes = (uint32_t) x;
        if (get_int(p, path, e, "frames_per_period", false, 1, UINT16_MAX, &x) > 0)
                st->frames_per_period = (uint32_t) x;
}

int stream_parse_node(const char *source, const char *path, const JsonNode *o, const RootSpec *r, DiagList *diags,
                      StreamSpec *ret) {
        Parser p = { .file = source, .diags = diags };
        size_t errors = diags->n_errors;
        StreamSpec st = {};

        parse_stream(&p, path, o, r, &st);
        if (p.oom || diags->n_errors > errors || !st.name) {
                free(st.name);
                return p.oom ? -ENOMEM : -EINVAL;
        }
        *ret = st;
        return 0;
}

int stream_parse_object(const char *source, const char *path, json_object *o, const RootSpec *r, DiagList *diags,
                        StreamSpec *ret) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        char why[JSON_STRICT_ERROR_MAX];
        const JsonNode *v;
        const char *t;
        size_t at;
        int k;

        t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        if (!t)
                return -ENOMEM;
        k = json_strict_parse(t, strlen(t), &tree, &v, &at, why);
        if (k == -ENOMEM)
                return k;
        if (k < 0)      /* json-c wrote what a strict reader refuses */
                return diag_add(diags, DIAG_ERROR, source, path, "cannot be read: %s", why) < 0 ? -ENOMEM : -EINVAL;
        return stream_parse_node(source, path, v, r, diags, ret);
}

void parse_streams(Parser *p, const JsonNode *top, Schedule *s) {
        static const char *const with[] = { "link_speed_mbps", "guard_frame_bytes" };
        size_t errors = p->diags->n_errors, n;
        char path[JPATH_MAX];
        const JsonNode *root, *a;
        int64_t x;

        /* The streams compute a gate list: a root without one (mqprio)
         * had the keys refused by parse_root(), as a bad root was. */
        if (!(root = json_member(top, "root")) || !json_is(root, JSON_OBJECT) || !root_gates(&s->root))
                return;
        if (!json_member(root, "streams")) {
                for (size_t i = 0; i < ELEMENTSOF(with); i++)
                        if (json_member(root, with[i]))
                                perr(p, jpath_key(path, "root", with[i]),
                                     "only valid with \"streams\" (the gate list is computed from them)");
                return;
        }
        if (json_member(root, "entries"))
                perr(p, "root.entries", "give either entries or streams, not both");
        if (s->root.taprio.cycle_time_given)
                perr(p, "root.cycle_time_ns",
                     "is computed from the streams (the least common multiple of their periods): leave it out");
        if (get_int(p, "root", root, "link_speed_mbps", false, 1, TBS_MAX_LINK_SPEED_MBPS, &x) > 0)
                s->streams.link_speed_mbps = (uint32_t) x;
        s->streams.guard_frame_bytes = TBS_STREAM_DEFAULT_GUARD_FRAME_BYTES;
        if (get_int(p, "root", root, "guard_frame_bytes", false, 1, TBS_ETH_MAX_FRAME_BYTES, &x) > 0)
                s->streams.guard_frame_bytes = (uint32_t) x;

        a = get_container(p, "root", root, "streams", true, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n == 0) {
                perr(p, "root.streams", "must have at least one stream");
                return;
        }
        if (n > TBS_TAPRIO_MAX_ENTRIES) {
                perr(p, "root.streams", "must have at most %d streams (each needs an entry), got %zu",
                     TBS_TAPRIO_MAX_ENTRIES, n);
                return;
        }
        s->streams.items = calloc(n, sizeof(StreamSpec));
        if (!s->streams.items) {
                p->oom = true;
                return;
        }
        s->streams.n = n;
        for (size_t i = 0; i < n; i++) {
                StreamSpec *st = &s->streams.items[i];

                parse_stream(p, jpath_index(path, "root.streams", i), json_index(a, i), &s->root, st);
                for (size_t j = 0; st->name && j < i; j++)
                        if (s->streams.items[j].name && strcmp(s->streams.items[j].name, st->name) == 0) {
                                char npath[JPATH_MAX];

                                perr(p, jpath_key(npath, path, "name"), "\"%s\" is also the name of root.streams[%zu]",
                                     st->name, j);
                                break;
                        }
        }

        /* With the speed in the file the gate list is known now (and shown
         * by --json, checked by --no-probe); else it waits for the device. */
        if (p->diags->n_errors == errors && s->streams.link_speed_mbps > 0) {
                _cleanup_free_ char *why = NULL;
                int k = schedule_resolve_streams(s, 0, &why);

                if (k == -ENOMEM)
                        p->oom = true;
                else if (k < 0)
                        perr(p, "root.streams", "%s", why ?: "cannot be scheduled");
        }
}

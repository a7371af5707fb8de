/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-json.h"
#include "schedule-safety.h"
#include "schedule-streams.h"
#include "taprio.h"

/* Adds a value that may be NULL because its allocation failed. */
static int add_owned(json_object *o, const char *key, json_object *v) {
        if (!v)
                return -ENOMEM;
        return json_add(o, key, v);
}

static int add_int(json_object *o, const char *key, int64_t v) {
        return add_owned(o, key, json_object_new_int64(v));
}

/* A string member; NULL (a value the model cannot name) becomes JSON null. */
static int add_str(json_object *o, const char *key, const char *v) {
        if (!v)
                return json_add(o, key, NULL);
        return add_owned(o, key, json_object_new_string(v));
}

static json_object *queues_to_json(const RootSpec *r) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (unsigned tc = 0; tc < r->num_tc && tc < TBS_MAX_TC; tc++) {
                json_object *q = json_object_new_object();

                if (!q || json_object_array_add(a, q) < 0) {
                        json_object_put(q);
                        return NULL;
                }
                if (add_int(q, "count", r->queues[tc].count) < 0 ||
                    add_int(q, "offset", r->queues[tc].offset) < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

static json_object *leaf_root_to_json(const RootSpec *r);

/* A root with traffic classes: the keys every one has, then its kind's. */
static json_object *root_to_json(const RootSpec *r) {
        _cleanup_json_ json_object *o = NULL, *map = NULL;
        const QDiscVTable *vt;
        char h[16];

        if (root_is_leaf(r))
                return leaf_root_to_json(r);
        o = json_object_new_object();
        map = json_object_new_array();

        if (!o || !map)
                return NULL;
        for (unsigned i = 0; i < TBS_PRIO_MAP_LEN; i++) {
                json_object *e = json_object_new_int(r->priority_map[i]);

                if (!e || json_object_array_add(map, e) < 0) {
                        json_object_put(e);
                        return NULL;
                }
        }
        if (add_str(o, "qdisc", root_kind_to_string(r->kind)) < 0 ||
            add_str(o, "handle", tc_handle_to_string(r->handle, h)) < 0 ||
            add_int(o, "num_tc", r->num_tc) < 0 ||
            json_add(o, "priority_map", TAKE_PTR(map)) < 0 ||
            add_owned(o, "queues", queues_to_json(r)) < 0)
                return NULL;
        if (r->stab.given && add_owned(o, "stab", stab_to_json(&r->stab)) < 0)
                return NULL;

        vt = qdisc_vtable_for_root(r->kind);
        if (vt && vt->root_to_json && vt->root_to_json(o, r) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* An etf or cbs as the root: its kind's keys. */
static json_object *leaf_root_to_json(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_child(r->leaf.kind);
        _cleanup_json_ json_object *o = json_object_new_object();
        char h[16];

        if (!o || !vt || add_str(o, "qdisc", root_kind_to_string(r->kind)) < 0 ||
            add_str(o, "handle", tc_handle_to_string(r->handle, h)) < 0 || vt->to_json(o, &r->leaf) < 0)
                return NULL;
        if (r->stab.given && add_owned(o, "stab", stab_to_json(&r->stab)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* A txqueues entry: queue, qdisc, then its kind's keys. */
static json_object *etf_to_json(const EtfSpec *q) {
        const QDiscVTable *vt = qdisc_vtable_for_child(q->kind);
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || !vt || add_int(o, "queue", q->queue) < 0 ||
            add_str(o, "qdisc", q->spelled_tbs ? "tbs" : vt->kind) < 0 || vt->to_json(o, q) < 0 ||
            (q->stab.given && add_owned(o, "stab", stab_to_json(&q->stab)) < 0))
                return NULL;
        return TAKE_PTR(o);
}

static json_object *clock_to_json(const ClockSpec *c) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        if ((c->ptp4l_socket && add_str(o, "ptp4l_socket", c->ptp4l_socket) < 0) ||
            add_int(o, "domain", c->domain) < 0 ||
            add_int(o, "transport_specific", c->transport_specific) < 0 ||
            add_int(o, "max_master_offset_ns", c->max_master_offset_ns) < 0 ||
            add_int(o, "max_phc_offset_ns", c->max_phc_offset_ns) < 0 ||
            (c->ptp_priority != 0 && add_int(o, "ptp_priority", c->ptp_priority) < 0))
                return NULL;
        return TAKE_PTR(o);
}

/* EtherTypes as the hex strings they are written in ("0x88f7"). */
static json_object *ethertypes_to_json(const SocketsSpec *k) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < k->n_ethertypes; i++) {
                char hex[8];
                json_object *t;

                snprintf(hex, sizeof(hex), "0x%04x", k->ethertypes[i]);
                t = json_object_new_string(hex);
                if (!t || json_object_array_add(a, t) < 0) {
                        json_object_put(t);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

static json_object *sockets_to_json(const SocketsSpec *k) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || (k->group && add_str(o, "group", k->group) < 0) ||
            (k->n_ethertypes > 0 && add_owned(o, "ethertypes", ethertypes_to_json(k)) < 0))
                return NULL;
        return TAKE_PTR(o);
}

/* The keys as the file gave them (left-out ones stay out: they mean
 * "as the device has it"). */
static json_object *mac_merge_to_json(const MacMergeSpec *m) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o ||
            (m->pmac_given && json_add_made(o, "pmac_enabled", json_object_new_boolean(m->pmac_enabled)) < 0) ||
            (m->tx_given && json_add_made(o, "tx_enabled", json_object_new_boolean(m->tx_enabled)) < 0) ||
            (m->verify_given && json_add_made(o, "verify_enabled", json_object_new_boolean(m->verify_enabled)) < 0) ||
            (m->verify_time_ms > 0 && add_int(o, "verify_time_ms", m->verify_time_ms) < 0) ||
            (m->tx_min_frag_bytes > 0 && add_int(o, "tx_min_frag_bytes", m->tx_min_frag_bytes) < 0))
                return NULL;
        return TAKE_PTR(o);
}

json_object *streams_spec_to_json(const StreamsSpec *t, bool bus_only) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < t->n; i++) {
                const StreamSpec *st = &t->items[i];
                json_object *o;

                if (bus_only && !st->from_bus)
                        continue;
                o = json_object_new_object();
                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
                if (add_str(o, "name", st->name) < 0 || add_int(o, "traffic_class", st->traffic_class) < 0 ||
                    add_int(o, "period_ns", st->period_ns) < 0 ||
                    (st->offset_given && add_int(o, "offset_ns", st->offset_ns) < 0) ||
                    add_int(o, "max_frame_bytes", st->max_frame_bytes) < 0 ||
                    add_int(o, "frames_per_period", st->frames_per_period) < 0 ||
                    (!bus_only && st->from_bus && add_str(o, "origin", "bus") < 0))
                        return NULL;
        }
        return TAKE_PTR(a);
}

static json_object *allow_to_json(uint32_t allow) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (int c = 0; c < _SAFETY_CHECK_MAX; c++) {
                json_object *n;

                if (!(allow & (1U << c)))
                        continue;
                n = json_object_new_string(safety_check_to_string(c));
                if (!n || json_object_array_add(a, n) < 0) {
                        json_object_put(n);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

/* A root given by streams shows them instead of the entries computed from
 * them (which depend on the link speed; tbsctl schedule shows those), so
 * that the text parses back to the same schedule. */
static json_object *root_with_streams(const Schedule *s) {
        _cleanup_json_ json_object *o = root_to_json(&s->root);

        if (!o)
                return NULL;
        if (s->streams.n == 0)
                return TAKE_PTR(o);
        json_object_object_del(o, "entries");
        if ((s->streams.link_speed_mbps && add_int(o, "link_speed_mbps", s->streams.link_speed_mbps) < 0) ||
            add_int(o, "guard_frame_bytes", s->streams.guard_frame_bytes) < 0 ||
            add_owned(o, "streams", streams_spec_to_json(&s->streams, false)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

json_object *schedule_to_json(const Schedule *s) {
        _cleanup_json_ json_object *o = json_object_new_object(), *tx = json_object_new_array();

        if (!o || !tx)
                return NULL;
        for (size_t i = 0; i < s->n_txqueues; i++) {
                json_object *q = etf_to_json(&s->txqueues[i]);

                if (!q || json_object_array_add(tx, q) < 0) {
                        json_object_put(q);
                        return NULL;
                }
        }
        if (add_str(o, "interface", s->ifname) < 0 ||
            add_owned(o, "root", root_with_streams(s)) < 0 ||
            json_add(o, "txqueues", TAKE_PTR(tx)) < 0 ||
            (s->clock.configured && add_owned(o, "clock", clock_to_json(&s->clock)) < 0) ||
            (s->drift != DRIFT_ENFORCE && add_str(o, "drift", drift_policy_to_string(s->drift)) < 0) ||
            ((s->sockets.group || s->sockets.n_ethertypes > 0) &&
             add_owned(o, "sockets", sockets_to_json(&s->sockets)) < 0) ||
            (s->allow && add_owned(o, "allow", allow_to_json(s->allow)) < 0) ||
            (s->mac_merge.configured && add_owned(o, "mac_merge", mac_merge_to_json(&s->mac_merge)) < 0))
                return NULL;
        return TAKE_PTR(o);
}

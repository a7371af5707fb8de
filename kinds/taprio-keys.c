/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio's schedule side (kinds/taprio.c holds its netlink side and
 * comparison, and its key table): the root keys' parsing, the rules
 * and the JSON. The gate list is "entries", or "streams" to compute it
 * from (lib/schedule-parse-streams.c, lib/schedule-streams.c: the streams
 * feature's own, parsed after the root). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-hints.h"
#include "schedule-verifier.h"
#include "taprio.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* ---- the schedule's keys ---- */

/* base_time_ns: nanoseconds of the schedule's clock, or "now". */
static void parse_base_time(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX];
        const JsonNode *v;
        int64_t x;

        v = member(p, "root", root, "base_time_ns", false);
        if (!v)
                return;
        if (json_is(v, JSON_STRING)) {
                if (strcmp(v->text, "now") != 0 || has_nul(v))
                        perr(p, "root.base_time_ns", "must be a time in nanoseconds or \"now\", got %s",
                             show(v, sh));
                else
                        r->taprio.base_time_now = true;
                return;
        }
        if (as_int(p, "root.base_time_ns", v, 0, INT64_MAX, &x) >= 0)
                r->taprio.base_time_ns = x;
}

/* max_sdu: bytes per traffic class (the count is checked against num_tc by
 * the rules); 0 is no limit. ETH_MAX_MTU is the largest MTU any device
 * has; the kernel refuses more than the device's own. */
static void parse_max_sdu(Parser *p, const JsonNode *root, RootSpec *r) {
        const JsonNode *a;
        size_t n;

        a = get_container(p, "root", root, "max_sdu", false, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n == 0 || n > TBS_MAX_TC) {
                perr(p, "root.max_sdu", "must have one entry per traffic class (1 to %u), got %zu",
                     TBS_MAX_TC, n);
                return;
        }
        r->taprio.max_sdu_given = true;
        r->taprio.n_max_sdu = (uint8_t) n;
        for (size_t i = 0; i < n; i++) {
                int64_t x;

                if (as_int_index(p, "root.max_sdu", a, i, 0, TBS_MAX_SDU, &x) >= 0)
                        r->taprio.max_sdu[i] = (uint32_t) x;
        }
}

/* A gate mask: an integer, or a hex string as tc writes it ("0x3"). */
static int parse_gate_mask(Parser *p, const char *prefix, const JsonNode *e, uint32_t *ret) {
        char path[JPATH_MAX], sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *v;
        int64_t x;

        v = member(p, prefix, e, "gate_mask", true);
        if (!v)
                return -EINVAL;
        jpath_key(path, prefix, "gate_mask");
        if (json_is(v, JSON_INTEGER)) {
                if (as_int(p, path, v, 0, UINT32_MAX, &x) < 0)
                        return -EINVAL;
                *ret = (uint32_t) x;
                return 0;
        }
        if (json_is(v, JSON_STRING)) {
                const char *t = v->text;

                if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && t[2] &&
                    strspn(t + 2, "0123456789abcdefABCDEF") == strlen(t + 2) && !has_nul(v)) {
                        unsigned long long u;

                        errno = 0;
                        u = strtoull(t + 2, NULL, 16);
                        if (errno == 0 && u <= UINT32_MAX) {
                                *ret = (uint32_t) u;
                                return 0;
                        }
                        perr(p, path, "must be between 0x0 and 0xffffffff, got %s", show(v, sh));
                        return -EINVAL;
                }
        }
        (void) tc_hint_gate_mask(v, hint);
        perr(p, path, "must be an integer or a hex string such as \"0x3\", got %s%s", show(v, sh), hint);
        return -EINVAL;
}

static void parse_entry(Parser *p, const char *path, const JsonNode *e, GateEntry *g) {
        static const KeySpec keys[] = {
                { "command", K_ANY }, { "gate_mask", K_ANY }, { "interval_ns", K_ANY },
        };
        char cpath[JPATH_MAX], sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *cv = NULL;
        const char *t;
        int64_t x;

        g->command = GATE_SET_GATES;
        if (!expect_type(p, path, e, JSON_OBJECT))
                return;
        check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);
        t = get_string(p, path, e, "command", false, &cv);
        if (t) {
                GateCommand c = gate_command_from_string(t);

                if (c < 0 && !has_nul(cv) && tc_hint_command(t, hint))
                        perr(p, jpath_key(cpath, path, "command"), "unknown command %s%s", show(cv, sh), hint);
                else if (c < 0 || has_nul(cv))
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

static void parse_entries(Parser *p, const JsonNode *root, RootSpec *r) {
        char path[JPATH_MAX];
        const JsonNode *a;

        a = get_container(p, "root", root, "entries", true, JSON_ARRAY);
        if (!a || a->len == 0)
                return;
        r->taprio.entries = calloc(a->len, sizeof(GateEntry));
        if (!r->taprio.entries) {
                p->oom = true;
                return;
        }
        r->taprio.n_entries = a->len;
        for (size_t i = 0; i < a->len; i++)
                parse_entry(p, jpath_index(path, "root.entries", i), json_index(a, i), &r->taprio.entries[i]);
}

void taprio_parse_root(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX];
        const JsonNode *v = NULL;
        const char *t;
        int64_t x;

        parse_clockid(p, "root", root, &r->taprio.clockid);
        parse_base_time(p, root, r);
        r->taprio.change_margin_ns = TBS_TAPRIO_CHANGE_MARGIN_NS;
        if (get_int(p, "root", root, "change_margin_ns", false, TBS_TAPRIO_CHANGE_MARGIN_MIN_NS,
                    TBS_TAPRIO_CHANGE_MARGIN_MAX_NS, &x) > 0)
                r->taprio.change_margin_ns = x;
        parse_max_sdu(p, root, r);
        kind_parse_fp(p, root, r);
        if (get_int(p, "root", root, "cycle_time_ns", false, 1, INT64_MAX, &x) > 0) {
                r->taprio.cycle_time_ns = x;
                r->taprio.cycle_time_given = true;
        }
        if (get_int(p, "root", root, "cycle_time_extension_ns", false, 0, INT64_MAX, &x) > 0)
                r->taprio.cycle_time_extension_ns = x;
        t = get_string(p, "root", root, "mode", false, &v);
        if (t) {
                TaprioMode m = taprio_mode_from_string(t);

                if (m < 0 || has_nul(v))
                        perr(p, "root.mode", "unknown mode %s; expected \"software\", \"txtime-assist\" "
                             "or \"full-offload\"", show(v, sh));
                else
                        r->taprio.mode = m;
        }
        if (get_int(p, "root", root, "txtime_delay_ns", false, 0, UINT32_MAX, &x) > 0)
                r->taprio.txtime_delay_ns = (uint32_t) x;
        if (!json_member(root, "streams"))
                parse_entries(p, root, r);      /* else parse_streams(), after the root */

        if (!r->taprio.cycle_time_given) {
                int64_t sum = 0;

                for (size_t i = 0; i < r->taprio.n_entries; i++)
                        sum += r->taprio.entries[i].interval_ns;
                r->taprio.cycle_time_ns = sum;
        }
}

/* ---- rules ---- */

static bool schedule_has_etf(const Schedule *s) {
        for (size_t i = 0; i < s->n_txqueues; i++)
                if (etf_spec_has_etf(&s->txqueues[i]))
                        return true;
        return false;
}

/* The gate list: entries within the kernel's limits, gates of existing
 * classes, a cycle that holds the intervals. */
static void verify_entries(Verifier *v, const RootSpec *r) {
        char path[VERIFY_PATH_MAX];
        int64_t sum = 0;

        if (r->taprio.n_entries == 0) {
                verr(v, "root.entries", "must have at least one entry");
                return;
        }
        if (r->taprio.n_entries > TBS_TAPRIO_MAX_ENTRIES)
                verr(v, "root.entries",
                     "must have at most %u entries: the kernel cannot report or notify a larger taprio "
                     "(docs/schedule-format.md, Limits), got %zu",
                     TBS_TAPRIO_MAX_ENTRIES, r->taprio.n_entries);
        for (size_t i = 0; i < r->taprio.n_entries; i++) {
                const GateEntry *e = &r->taprio.entries[i];

                if ((unsigned) e->command >= _GATE_COMMAND_MAX)
                        verr(v, pathf(path, "root.entries[%zu].command", i), "unknown gate command %d",
                             (int) e->command);
                if (r->num_tc >= 1 && r->num_tc <= TBS_MAX_TC && e->gate_mask >> r->num_tc != 0)
                        verr(v, pathf(path, "root.entries[%zu].gate_mask", i),
                             "opens the gate of a traffic class that does not exist: must be below 0x%x "
                             "(1 << num_tc, num_tc is %u), got 0x%x",
                             1U << r->num_tc, r->num_tc, e->gate_mask);
                /* Software entries under TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS:
                 * the "software-gate-interval" safety check. */
                if (e->interval_ns < 1 || e->interval_ns > TBS_TAPRIO_MAX_CYCLE_NS)
                        verr(v, pathf(path, "root.entries[%zu].interval_ns", i),
                             "must be between 1 and %d, got %" PRIu32, TBS_TAPRIO_MAX_CYCLE_NS, e->interval_ns);
                sum += e->interval_ns;
        }
        if (!r->taprio.cycle_time_given && r->taprio.cycle_time_ns == sum && sum > TBS_TAPRIO_MAX_CYCLE_NS)
                verr(v, "root.entries",
                     "the intervals add up to %" PRIi64 " ns; the cycle time may be at most %d ns",
                     sum, TBS_TAPRIO_MAX_CYCLE_NS);
        else if (r->taprio.cycle_time_ns <= 0 || r->taprio.cycle_time_ns > TBS_TAPRIO_MAX_CYCLE_NS)
                verr(v, "root.cycle_time_ns", "must be between 1 and %d, got %" PRIi64,
                     TBS_TAPRIO_MAX_CYCLE_NS, r->taprio.cycle_time_ns);
        else if (r->taprio.cycle_time_ns < sum)
                verr(v, "root.cycle_time_ns",
                     "must be at least the sum of the entries' intervals (%" PRIi64 "), got %" PRIi64,
                     sum, r->taprio.cycle_time_ns);
}

void taprio_verify_root(Verifier *v, const Schedule *s, const DeviceFacts *facts) {
        const RootSpec *r = &s->root;
        char cn[32];

        if ((unsigned) r->taprio.mode >= _TAPRIO_MODE_MAX)
                verr(v, "root.mode", "unknown taprio mode %d", (int) r->taprio.mode);
        if (!clockid_to_string(r->taprio.clockid))
                verr(v, "root.clockid",
                     "taprio accepts CLOCK_TAI, CLOCK_REALTIME, CLOCK_MONOTONIC or CLOCK_BOOTTIME, got %s",
                     clock_name(r->taprio.clockid, cn));
        else if (r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST && r->taprio.clockid != CLOCK_TAI)
                verr(v, "root.clockid",
                     "must be CLOCK_TAI in txtime-assist mode: taprio stamps launch times for its etf "
                     "children, and the kernel's etf accepts only CLOCK_TAI; got %s",
                     clock_name(r->taprio.clockid, cn));
        verify_at_least(v, "root.base_time_ns", r->taprio.base_time_ns, 0);
        verify_at_least(v, "root.cycle_time_extension_ns", r->taprio.cycle_time_extension_ns, 0);
        if (r->taprio.txtime_delay_ns != 0 && r->taprio.mode != TAPRIO_MODE_TXTIME_ASSIST)
                verr(v, "root.txtime_delay_ns", "only valid with mode \"txtime-assist\", got mode \"%s\"",
                     taprio_mode_to_string(r->taprio.mode) ?: "?");
        if (r->taprio.max_sdu_given && r->num_tc >= 1 && r->taprio.n_max_sdu != r->num_tc)
                verr(v, "root.max_sdu", "must have one entry per traffic class (num_tc is %u), got %u",
                     r->num_tc, r->taprio.n_max_sdu);
        kind_verify_fp(v, r);
        /* Linux 6.12: "Preemption only supported with full offload" */
        if (root_has_preemptible(r) && r->taprio.mode != TAPRIO_MODE_FULL_OFFLOAD)
                verr(v, "root.fp", "a preemptible traffic class needs mode \"full-offload\": the kernel takes "
                     "frame preemption only from a taprio the NIC runs, got mode \"%s\"",
                     taprio_mode_to_string(r->taprio.mode) ?: "?");
        if (r->taprio.change_margin_ns != 0 && (r->taprio.change_margin_ns < TBS_TAPRIO_CHANGE_MARGIN_MIN_NS ||
            r->taprio.change_margin_ns > TBS_TAPRIO_CHANGE_MARGIN_MAX_NS))
                verr(v, "root.change_margin_ns", "must be between %lld and %lld, got %" PRIi64,
                     TBS_TAPRIO_CHANGE_MARGIN_MIN_NS, TBS_TAPRIO_CHANGE_MARGIN_MAX_NS, r->taprio.change_margin_ns);
        if (r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST && !schedule_has_etf(s))
                verr(v, "root.mode",
                     "txtime-assist needs an etf qdisc on at least one TX queue, but txqueues %s",
                     s->n_txqueues == 0 ? "is empty" : "has no etf, on a queue or as a cbs's child");

        /* Without entries, streams are computed into them once the link
         * speed is known. */
        if (r->taprio.n_entries > 0 || s->streams.n == 0)
                verify_entries(v, r);

        if (r->taprio.mode == TAPRIO_MODE_FULL_OFFLOAD && facts && facts->offload_known && !facts->taprio_full_offload)
                verr(v, "root.mode",
                     "taprio full offload is not available on this device: its driver cannot run the gate "
                     "schedule itself; use mode \"software\" or \"txtime-assist\"");
}

/* ---- JSON ---- */

/* A name the model may not know (NULL: JSON null). */
static int add_name(struct json_object *o, const char *key, const char *name) {
        if (!name)
                return json_add(o, key, NULL);
        return json_add_made(o, key, json_object_new_string(name));
}

static struct json_object *max_sdu_to_json(const RootSpec *r) {
        _cleanup_json_ struct json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (unsigned tc = 0; tc < r->num_tc && tc < TBS_MAX_TC; tc++) {
                struct json_object *e = json_object_new_int64(r->taprio.max_sdu[tc]);

                if (!e || json_object_array_add(a, e) < 0) {
                        json_object_put(e);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

/* Defaults the file may leave out are left out (change margin, cycle
 * time, extension, txtime delay outside txtime-assist), so it reads back. */
int taprio_root_to_json(struct json_object *o, const RootSpec *r) {
        if (add_name(o, "clockid", clockid_to_string(r->taprio.clockid)) < 0 ||
            (r->taprio.base_time_now ? add_name(o, "base_time_ns", "now")
                              : json_add_made(o, "base_time_ns", json_object_new_int64(r->taprio.base_time_ns))) < 0 ||
            (r->taprio.change_margin_ns != 0 && r->taprio.change_margin_ns != TBS_TAPRIO_CHANGE_MARGIN_NS &&
             json_add_made(o, "change_margin_ns", json_object_new_int64(r->taprio.change_margin_ns)) < 0) ||
            ((r->taprio.max_sdu_given || root_has_max_sdu(r)) && json_add_made(o, "max_sdu", max_sdu_to_json(r)) < 0) ||
            kind_fp_to_json(o, r) < 0 ||
            (r->taprio.cycle_time_given && json_add_made(o, "cycle_time_ns", json_object_new_int64(r->taprio.cycle_time_ns)) < 0) ||
            (r->taprio.cycle_time_extension_ns != 0 &&
             json_add_made(o, "cycle_time_extension_ns", json_object_new_int64(r->taprio.cycle_time_extension_ns)) < 0) ||
            add_name(o, "mode", taprio_mode_to_string(r->taprio.mode)) < 0 ||
            ((r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST || r->taprio.txtime_delay_ns != 0) &&
             json_add_made(o, "txtime_delay_ns", json_object_new_int64(r->taprio.txtime_delay_ns)) < 0) ||
            json_add_made(o, "entries", gate_entries_to_json(r->taprio.entries, r->taprio.n_entries)) < 0)
                return -ENOMEM;
        return 0;
}

json_object *gate_entries_to_json(const GateEntry *entries, size_t n) {
        _cleanup_json_ json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                const GateEntry *e = &entries[i];
                json_object *o = json_object_new_object();
                char mask[16];

                if (!o || json_object_array_add(a, o) < 0) {
                        json_object_put(o);
                        return NULL;
                }
                snprintf(mask, sizeof(mask), "0x%x", e->gate_mask);
                if (json_add_string(o, "command", gate_command_to_string(e->command) ?: "set-gates") < 0 ||
                    json_add_string(o, "gate_mask", mask) < 0 ||
                    json_add_made(o, "interval_ns", json_object_new_int64(e->interval_ns)) < 0)
                        return NULL;
        }
        return TAKE_PTR(a);
}

/* A gate schedule of a dump: its times and entries. */
static json_object *gate_schedule_to_json(const GateSchedule *g) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o)
                return NULL;
        if (json_add_made(o, "base_time_ns", json_object_new_int64(g->base_time_ns)) < 0 ||
            json_add_made(o, "cycle_time_ns", json_object_new_int64(g->cycle_time_ns)) < 0 ||
            json_add_made(o, "cycle_time_extension_ns", json_object_new_int64(g->cycle_time_extension_ns)) < 0 ||
            json_add_made(o, "entries", gate_entries_to_json(g->entries, g->n_entries)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* taprio: the running ("oper") schedule and the one waiting for its base
 * time ("admin", null when no change is pending), as the kernel dumped
 * them; the root's own keys hold the newest of the two. */
void taprio_describe_root(struct json_object *o, const RootSpec *r) {
        GateSchedule newest = {
                .base_time_ns = r->taprio.base_time_ns,
                .cycle_time_ns = r->taprio.cycle_time_ns,
                .cycle_time_extension_ns = r->taprio.cycle_time_extension_ns,
                .entries = r->taprio.entries,
                .n_entries = r->taprio.n_entries,
        };

        json_add(o, "change_pending", json_object_new_boolean(r->taprio.admin_pending));
        if (r->taprio.admin_pending) {
                json_add(o, "oper_schedule", r->taprio.oper.n_entries > 0 ? gate_schedule_to_json(&r->taprio.oper) : NULL);
                json_add(o, "admin_schedule", gate_schedule_to_json(&newest));
        } else {
                json_add(o, "oper_schedule", gate_schedule_to_json(&newest));
                json_add(o, "admin_schedule", NULL);
        }
}

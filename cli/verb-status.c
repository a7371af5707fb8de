/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl status, list, caps, clock, stats: read-only views of Describe().
 * Human and JSON output come from the same document: the JSON is printed
 * as is, the human form is rendered from it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json-util.h"
#include "launch-print.h"
#include "log.h"
#include "qdisc-kind.h"
#include "sd-cleanup.h"
#include "utf8.h"
#include "verbs.h"

static void print_json(struct json_object *o) {
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
}

static const char *str_or(struct json_object *o, const char *key, const char *def) {
        const char *s = json_get_string(o, key);
        return s && *s ? s : def;
}

static void field(const char *label, const char *fmt, ...) _printf_(2, 3);
static void field(const char *label, const char *fmt, ...) {
        va_list ap;

        printf("%17s: ", label);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
}

static void int_list(char *buf, size_t size, struct json_object *arr) {
        size_t len = 0;

        buf[0] = 0;
        if (!arr || !json_object_is_type(arr, json_type_array) || json_object_array_length(arr) == 0) {
                snprintf(buf, size, "none");
                return;
        }
        for (size_t i = 0; i < json_object_array_length(arr) && len < size; i++)
                len += (size_t) snprintf(buf + len, size - len, "%s%" PRId64, i ? " " : "",
                                         json_object_get_int64(json_object_array_get_idx(arr, i)));
}

static void render_caps(struct json_object *c) {
        char queues[256];

        int_list(queues, sizeof(queues), json_get(c, "launch_time_queues"));
        field("Driver", "%s (%s)", str_or(c, "driver", "n/a"), str_or(c, "bus_info", "no bus address"));
        field("TX queues", "%" PRId64, json_get_int(c, "tx_queues", 0));
        field("Launch time", "queues %s (%s%s%s)", queues, str_or(c, "confidence", "unknown"),
              json_get_string(c, "reason") ? ": " : "", str_or(c, "reason", ""));
        if (json_get(c, "cbs_offload_queues")) {
                int_list(queues, sizeof(queues), json_get(c, "cbs_offload_queues"));
                field("CBS offload", "queues %s", queues);
        }
        if (json_get_int(c, "link_speed_mbps", 0) > 0)
                field("Link speed", "%" PRId64 " Mbit/s", json_get_int(c, "link_speed_mbps", 0));
        if (json_get(c, "mac_merge") && json_object_is_type(json_get(c, "mac_merge"), json_type_boolean))
                field("MAC merge", "%s", json_get_bool(c, "mac_merge", 0) ?
                      "yes (frame preemption's link side, ethtool netlink MM_GET)" : "none");
        if (json_get_bool(c, "resets_link_on_offload", 0))
                field("Offload reset", "switching an offload on resets the link (PTP must lock again)");
        if (json_get_int(c, "phc_index", -1) >= 0)
                field("Time stamping", "%s, PHC /dev/ptp%" PRId64,
                      json_get_bool(c, "hw_timestamping", 0) ? "hardware" : "software",
                      json_get_int(c, "phc_index", -1));
        else
                field("Time stamping", "%s, no PHC",
                      json_get_bool(c, "hw_timestamping", 0) ? "hardware" : "software only");
        if (json_get_int(c, "tx_stamp_slots", 0) > 0)
                field("TX stamp slots", "%" PRId64 " transmitted frame%s stamped at a time",
                      json_get_int(c, "tx_stamp_slots", 0), json_get_int(c, "tx_stamp_slots", 0) == 1 ? "" : "s");
}

/* Describe()'s "mac_merge": the MAC merge layer's state and counters
 * (only where the device has one). */
static void render_mac_merge(struct json_object *m) {
        struct json_object *n = json_get(m, "counters");

        if (!m || !json_object_is_type(m, json_type_object))
                return;
        field("MAC merge", "tx %s%s, pMAC %s, verify %s (%s, %" PRId64 " of max %" PRId64 " ms), fragments tx %" PRId64
              " rx %" PRId64 " bytes",
              json_get_bool(m, "tx_enabled", 0) ? "enabled" : "disabled",
              json_get_bool(m, "tx_active", 0) ? " and active" : "",
              json_get_bool(m, "pmac_enabled", 0) ? "enabled" : "disabled",
              json_get_bool(m, "verify_enabled", 0) ? "enabled" : "disabled", str_or(m, "verify_status", "unknown"),
              json_get_int(m, "verify_time_ms", 0), json_get_int(m, "max_verify_time_ms", 0),
              json_get_int(m, "tx_min_frag_bytes", 0), json_get_int(m, "rx_min_frag_bytes", 0));
        if (n && json_object_object_length(n) > 0)
                field("MAC merge counters", "fragments tx %" PRId64 " rx %" PRId64 ", reassembled %" PRId64
                      ", reassembly errors %" PRId64 ", SMD errors %" PRId64 ", holds %" PRId64,
                      json_get_int(n, "tx_fragments", 0), json_get_int(n, "rx_fragments", 0),
                      json_get_int(n, "reassembly_ok", 0), json_get_int(n, "reassembly_errors", 0),
                      json_get_int(n, "smd_errors", 0), json_get_int(n, "hold", 0));
}

static void render_clock(struct json_object *c) {
        const char *state = str_or(c, "state", "unknown");

        field("Clock", "%s%s%s", state, json_get_string(c, "reason") ? " - " : "", str_or(c, "reason", ""));
        if (json_get_string(c, "port_state")) {
                const char *port = json_get_string(c, "port_state");
                bool master = strcmp(port, "MASTER") == 0 || strcmp(port, "GRAND_MASTER") == 0;

                field("PTP port", "%s, master offset %" PRId64 " ns, grandmaster %s", port,
                      json_get_int(c, "master_offset_ns", 0),
                      json_get_bool(c, "gm_present", 0) ? str_or(c, "gm_identity", "present") :
                      master ? "this node" : "absent");
        }
        if (json_get(c, "phc_sys_offset_ns") && !json_object_is_type(json_get(c, "phc_sys_offset_ns"), json_type_null))
                field("PHC - TAI", "%" PRId64 " ns (%s)", json_get_int(c, "phc_sys_offset_ns", 0),
                      str_or(c, "phc_offset_method", "?"));
        if (json_get(c, "tai_offset_s"))
                field("TAI offset", "%" PRId64 " s", json_get_int(c, "tai_offset_s", 0));
        if (json_get_string(c, "checked_at"))
                field("Clock checked", "%s", json_get_string(c, "checked_at"));
        if (json_get_string(c, "ptp4l_socket_used"))
                field("ptp4l socket", "%s (%s, %" PRId64 " requests, %" PRId64 " notifications)",
                      json_get_string(c, "ptp4l_socket_used"), str_or(c, "ptp4l_updates", "?"),
                      json_get_int(c, "ptp4l_requests", 0), json_get_int(c, "ptp4l_notifications", 0));
}

/* The clock section the schedule declares (its limits), when it has one. */
static void render_declared_clock(struct json_object *c) {
        if (!c || !json_object_is_type(c, json_type_object))
                return;
        field("Clock declared", "ptp4l %s, domain %" PRId64 ", max master offset %" PRId64
              " ns, max PHC offset %" PRId64 " ns", str_or(c, "ptp4l_socket", "at the default socket"),
              json_get_int(c, "domain", 0), json_get_int(c, "max_master_offset_ns", 0),
              json_get_int(c, "max_phc_offset_ns", 0));
}

/* taprio's offload statistics of the root or of a queue (Linux 6.5+), only
 * those the kernel gives; NULL when it gives none. */
static const char *taprio_offload_stats(struct json_object *st, char *buf, size_t size) {
        int n = 0;

        buf[0] = 0;
        if (json_get(st, "window_drops"))
                n = snprintf(buf, size, "window drops %" PRId64, json_get_int(st, "window_drops", 0));
        if (json_get(st, "tx_overruns") && n >= 0 && (size_t) n < size)
                snprintf(buf + n, size - (size_t) n, "%stransmit overruns %" PRId64, n ? ", " : "",
                         json_get_int(st, "tx_overruns", 0));
        return buf[0] ? buf : NULL;
}

static void render_stats_line(const char *indent, struct json_object *st) {
        char offload[96];

        if (!st)
                return;
        printf("%s packets %" PRId64 ", bytes %" PRId64 ", drops %" PRId64 ", deadline misses %" PRId64
               ", invalid %" PRId64 ", backlog %" PRId64 " B\n", indent,
               json_get_int(st, "packets", 0), json_get_int(st, "bytes", 0), json_get_int(st, "drops", 0),
               json_get_int(st, "deadline_misses", 0), json_get_int(st, "invalid", 0),
               json_get_int(st, "backlog_bytes", 0));
        if (taprio_offload_stats(st, offload, sizeof(offload)))
                printf("%s offload: %s\n", indent, offload);
}

/* A monitored queue: its probe frames go through the qdisc, so they are in
 * the counters above (docs/fidelity.md). */
static void render_monitor(struct json_object *m) {
        if (!m || !json_object_is_type(m, json_type_object))
                return;
        printf("%19slaunch-time monitor every %" PRId64 " ms, %" PRId64 " frames: probe frames sent %" PRId64
               " (counted in the packets above)\n", "", json_get_int(m, "interval_ms", 0),
               json_get_int(m, "frames", 0), json_get_int(m, "sent", 0));
        printf("%19slaunch error: ", "");
        print_launch_figures(stdout, m);
        putchar('\n');
        if (json_get_string(m, "stamps_requested"))
                printf("%19stransmit stamps requested: %s (%s)\n", "", json_get_string(m, "stamps_requested"),
                       str_or(m, "stamps_reason", "no reason given"));
}

/* The offload a queue's schedule asks for: "on", "off" or "auto".
 * offload_requested_mode is always a string; older daemons send only
 * offload_requested, a boolean or the string "auto". */
static const char *offload_requested(struct json_object *q) {
        struct json_object *v = json_get(q, "offload_requested");

        if (json_get_string(q, "offload_requested_mode"))
                return json_get_string(q, "offload_requested_mode");
        if (v && json_object_is_type(v, json_type_boolean))
                return json_object_get_boolean(v) ? "on" : "off";
        return str_or(q, "offload_requested", "?");
}

/* The kind a Describe() object declares (its "declared_qdisc", else its
 * "qdisc"; etf when it names none the table knows). */
static const QDiscVTable *declared_kind(struct json_object *q) {
        const char *k = json_get_string(q, "declared_qdisc") ?: str_or(q, "qdisc", "etf");

        return qdisc_vtable_txq_by_name(k, strlen(k)) ?: qdisc_vtable_for_child(TXQ_ETF);
}

static void render_queue(struct json_object *q) {
        const QDiscVTable *vt = declared_kind(q);
        struct json_object *c = json_get(q, "child");
        char label[32], values[192];

        snprintf(label, sizeof(label), "Queue %" PRId64, json_get_int(q, "queue", -1));
        vt->status_text(q, values, sizeof(values));
        if (!json_get_bool(q, "installed", 1)) {
                /* Not in the kernel: what is there instead, and what the
                 * schedule declares for it (the state says why). */
                char kernel[96];

                if (json_get_string(q, "qdisc"))
                        snprintf(kernel, sizeof(kernel), "%s %s parent %s", json_get_string(q, "qdisc"),
                                 str_or(q, "handle", "-"), str_or(q, "parent", "-"));
                else
                        snprintf(kernel, sizeof(kernel), "no qdisc");
                field(label, "not installed (kernel: %s); declared %s, %s, offload requested %s", kernel, vt->kind,
                      values, offload_requested(q));
                if (json_get_string(q, "offload_reason"))
                        printf("%19s%s\n", "", json_get_string(q, "offload_reason"));
                return;
        }
        field(label, "%s %s parent %s, %s, offload %s (requested %s)", str_or(q, "qdisc", "?"),
              str_or(q, "handle", "-"), str_or(q, "parent", "-"), values,
              json_get_bool(q, "offload", 0) ? "on" : "off", offload_requested(q));
        if (json_get_string(q, "offload_reason"))
                printf("%19s%s\n", "", json_get_string(q, "offload_reason"));
        render_stats_line("                  ", json_get(q, "stats"));
        if (c && json_object_is_type(c, json_type_object)) {
                /* The etf under it: its settings are the queue's etf keys. */
                if (json_get_string(c, "qdisc")) {
                        qdisc_vtable_for_child(TXQ_ETF)->status_text(q, values, sizeof(values));
                        printf("%19sunder it: %s %s, %s, offload %s\n", "", json_get_string(c, "qdisc"),
                               str_or(c, "handle", "-"), values, json_get_bool(c, "offload", 0) ? "on" : "off");
                } else
                        printf("%19sunder it: no etf (declared one)\n", "");
                render_stats_line("                  ", json_get(c, "stats"));
        }
        render_monitor(json_get(q, "monitor"));
}

/* One of a taprio's two schedules while a change is pending: the running
 * one (null: none started yet) or the one waiting for its base time. */
static void render_gate_schedule(const char *label, struct json_object *g, struct json_object *r, const char *what) {
        if (!g || json_object_is_type(g, json_type_null)) {
                field(label, "%s: none yet", what);
                return;
        }
        field(label, "%s: %zu entries, cycle %" PRId64 " ns, base time %" PRId64 ", mode %s", what,
              json_object_array_length(json_get(g, "entries")), json_get_int(g, "cycle_time_ns", 0),
              json_get_int(g, "base_time_ns", 0), str_or(r, "mode", "software"));
}

static void render_root(struct json_object *r) {
        char queues[256] = "", map[128] = "";
        struct json_object *qs = json_get(r, "queues"), *m = json_get(r, "priority_map");
        size_t len = 0;

        if (!r || json_object_is_type(r, json_type_null)) {
                field("Root", "none installed");
                return;
        }
        if (!json_get(r, "num_tc")) {
                /* A single etf or cbs as the root: no classes to show. */
                struct json_object *c = json_get(r, "child");
                char values[192];

                declared_kind(r)->status_text(r, values, sizeof(values));
                field("Root", "%s %s, the only qdisc: %s, offload %s", str_or(r, "qdisc", "?"),
                      str_or(r, "handle", "?"), values, json_get_bool(r, "offload", 0) ? "on" : "off");
                if (c && json_object_is_type(c, json_type_object)) {
                        qdisc_vtable_for_child(TXQ_ETF)->status_text(c, values, sizeof(values));
                        field("Under it", "etf, %s, offload %s", values, json_get_bool(c, "offload", 0) ? "on" : "off");
                }
                return;
        }
        for (size_t i = 0; qs && i < json_object_array_length(qs) && len < sizeof(queues); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i);
                len += (size_t) snprintf(queues + len, sizeof(queues) - len, "%s%" PRId64 "@%" PRId64,
                                         i ? " " : "", json_get_int(q, "count", 0), json_get_int(q, "offset", 0));
        }
        int_list(map, sizeof(map), m);
        field("Root", "%s %s, %" PRId64 " traffic classes, queues %s", str_or(r, "qdisc", "?"),
              str_or(r, "handle", "?"), json_get_int(r, "num_tc", 0), queues);
        field("Priority map", "%s", map);
        if (json_get(r, "entries") && json_get_bool(r, "change_pending", 0)) {
                render_gate_schedule("Gate schedule", json_get(r, "oper_schedule"), r, "oper");
                render_gate_schedule("Pending schedule", json_get(r, "admin_schedule"), r, "admin");
        } else if (json_get(r, "entries"))
                field("Gate schedule", "%zu entries, cycle %" PRId64 " ns, mode %s",
                      json_object_array_length(json_get(r, "entries")), json_get_int(r, "cycle_time_ns", 0),
                      str_or(r, "mode", "software"));
        if (json_get(r, "max_sdu") && json_object_is_type(json_get(r, "max_sdu"), json_type_array)) {
                char sdu[160] = "";

                int_list(sdu, sizeof(sdu), json_get(r, "max_sdu"));
                field("Max SDU", "%s (bytes per traffic class, 0: no limit)", sdu);
        }
}

static void render_status(struct json_object *d) {
        struct json_object *qs = json_get(d, "txqueues");
        const char *state = str_or(d, "state", "unknown");
        char offload[96];

        /* An absent interface has no index (0 in the document; "-" in
         * list's IDX column), not "index 0". */
        if (json_get_int(d, "ifindex", 0) > 0)
                printf("%s %s (index %" PRId64 ")\n", strcmp(state, "configured") == 0 ? "●" : "○",
                       str_or(d, "interface", "?"), json_get_int(d, "ifindex", 0));
        else
                printf("○ %s (no index)\n", str_or(d, "interface", "?"));
        field("State", "%s%s%s", state, json_get_string(d, "state_reason") ? " - " : "",
              str_or(d, "state_reason", ""));
        field("Schedule", "%s", str_or(d, "schedule_file", "none"));
        if (json_get_string(d, "origin") && strcmp(json_get_string(d, "origin"), "file") != 0)
                field("Origin", "%s", json_get_string(d, "origin"));
        if (strcmp(state, "absent") == 0)
                return;   /* what the link had before it went away is stale: show none of it */
        if (json_get(d, "carrier") && json_object_is_type(json_get(d, "carrier"), json_type_boolean))
                field("Carrier", "%s (operstate %s)", json_get_bool(d, "carrier", 0) ? "yes" : "no",
                      str_or(d, "operstate", "unknown"));
        else if (json_get_string(d, "operstate"))
                field("Carrier", "unknown (operstate %s)", json_get_string(d, "operstate"));
        if (json_get(d, "capabilities"))
                render_caps(json_get(d, "capabilities"));
        render_mac_merge(json_get(d, "mac_merge"));
        render_root(json_get(d, "root"));
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), offload, sizeof(offload)))
                field("Offload stats", "%s", offload);
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++)
                render_queue(json_object_array_get_idx(qs, i));
        if (json_get(d, "clock"))
                render_clock(json_get(d, "clock"));
        render_declared_clock(json_get(json_get(d, "declared"), "clock"));
}

/* Describe every named link (or all of them) and render each document (or
 * its member `key`); with --json print them as one value: the document
 * itself when one link was named, an array otherwise. */
static int for_links(int argc, char *argv[], const char *key, void (*render)(struct json_object *)) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *docs = NULL, *out = NULL;
        size_t n;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_describe_links(bus, argc, argv, &docs);
        if (r < 0)
                return client_exit_status(r);
        if (!arg_json)
                (void) json_escape_strings(docs);  /* names and reasons quote outside text */
        n = json_object_array_length(docs);
        out = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                struct json_object *d = json_object_array_get_idx(docs, i);
                struct json_object *v = key ? json_get(d, key) : d;

                if (arg_json) {
                        json_object_array_add(out, json_object_get(v));
                        continue;
                }
                if (i > 0)
                        putchar('\n');
                if (key)
                        printf("%s:\n", str_or(d, "interface", "?"));
                render(v);
        }
        if (arg_json)
                print_json(argc == 1 && n == 1 ? json_object_array_get_idx(out, 0) : out);
        return TBSCTL_EXIT_OK;
}

int verb_status(int argc, char *argv[]) {
        return for_links(argc, argv, NULL, render_status);
}

int verb_caps(int argc, char *argv[]) {
        return for_links(argc, argv, "capabilities", render_caps);
}

int verb_clock(int argc, char *argv[]) {
        return for_links(argc, argv, "clock", render_clock);
}

static void render_stats(struct json_object *d) {
        struct json_object *qs = json_get(d, "txqueues");
        char offload[96];

        printf("%-6s %-8s %12s %14s %10s %10s %10s %10s\n", "QUEUE", "QDISC", "PACKETS", "BYTES",
               "DROPS", "MISSED", "INVALID", "BACKLOG");
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *st = json_get(q, "stats");
                printf("%-6" PRId64 " %-8s %12" PRId64 " %14" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64
                       " %10" PRId64 "\n",
                       json_get_int(q, "queue", -1), str_or(q, "qdisc", "?"), json_get_int(st, "packets", 0),
                       json_get_int(st, "bytes", 0), json_get_int(st, "drops", 0),
                       json_get_int(st, "deadline_misses", 0), json_get_int(st, "invalid", 0),
                       json_get_int(st, "backlog_bytes", 0));
        }
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), offload, sizeof(offload)))
                printf("root %s: %s\n", str_or(json_get(d, "root"), "qdisc", "?"), offload);
        print_launch_queues(stdout, qs);
}

static struct json_object *stats_document(struct json_object *d) {
        struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
        struct json_object *qs = json_get(d, "txqueues");
        char buf[96];

        json_add_string(o, "interface", json_get_string(d, "interface"));
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *e = json_object_new_object();
                json_add(e, "queue", json_object_new_int64(json_get_int(q, "queue", -1)));
                json_add_string(e, "qdisc", json_get_string(q, "qdisc"));
                json_add(e, "stats", json_object_get(json_get(q, "stats")));
                /* Describe()'s object as it is (monitored queues only) */
                if (json_get(q, "monitor"))
                        json_add(e, "monitor", json_object_get(json_get(q, "monitor")));
                json_object_array_add(arr, e);
        }
        json_add(o, "txqueues", arr);
        /* taprio's offload statistics, where the kernel gives them */
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), buf, sizeof(buf))) {
                struct json_object *r = json_object_new_object(), *st = json_get(json_get(d, "root"), "stats");

                if (json_get(st, "window_drops"))
                        json_add(r, "window_drops", json_object_get(json_get(st, "window_drops")));
                if (json_get(st, "tx_overruns"))
                        json_add(r, "tx_overruns", json_object_get(json_get(st, "tx_overruns")));
                json_add(o, "root_offload_stats", r);
        }
        return o;
}

int verb_stats(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *d = NULL, *s = NULL;
        int r;

        if (arg_watch >= 0 || argc > 1)
                return stats_watch(argc, argv);
        r = client_connect(&bus);
        if (r >= 0)
                r = client_describe(bus, argv[0], &d);
        if (r < 0)
                return client_exit_status(r);
        if (arg_json) {
                s = stats_document(d);
                print_json(s);
        } else {
                (void) json_escape_strings(d);
                render_stats(d);
        }
        return TBSCTL_EXIT_OK;
}

/* One row of tbsctl list, from a link's Describe() document. */
typedef struct ListRow {
        struct json_object *doc;
        const char *path;
        int64_t ifindex;
} ListRow;

/* The order of every listing (client_compare_names()): by name. */
static int list_row_compare(const void *a, const void *b) {
        const ListRow *x = a, *y = b;

        return client_compare_names(str_or(x->doc, "interface", ""), str_or(y->doc, "interface", ""));
}

/* Queues whose qdisc runs in the device, and queues with an etf (or cbs)
 * qdisc declared. */
static void offload_counts(struct json_object *d, int64_t *ret_offloaded, int64_t *ret_queues) {
        struct json_object *qs = json_get(d, "txqueues");

        *ret_offloaded = *ret_queues = 0;
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i);

                (*ret_queues)++;
                if (json_get_bool(q, "offload", 0))
                        (*ret_offloaded)++;
        }
}

int verb_list(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_json_ struct json_object *arr = json_object_new_array(), *docs = NULL;
        _cleanup_free_ ListRow *rows = NULL;
        const char *name, *path, *state;
        size_t n = 0;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return client_exit_status(r);
        r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "ListLinks",
                               &error, &reply, NULL);
        if (r < 0)
                return client_exit_status(client_call_failed("ListLinks", &error, r));
        r = client_describe_links(bus, 0, NULL, &docs);
        if (r < 0)
                return client_exit_status(r);
        rows = calloc(json_object_array_length(docs) + 1, sizeof(ListRow));
        if (!rows)
                return client_exit_status(log_error_errno(-ENOMEM, "list: %m"));
        r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        if (r < 0)
                return client_exit_status(log_error_errno(r, "ListLinks: bad reply: %m"));
        while ((r = sd_bus_message_read(reply, "(sos)", &name, &path, &state)) > 0)
                /* Pair each path with its document (a link that went away
                 * between the two calls has none and is left out). */
                for (size_t i = 0; i < json_object_array_length(docs); i++) {
                        struct json_object *d = json_object_array_get_idx(docs, i);

                        if (strcmp(str_or(d, "interface", ""), name) != 0 || n >= json_object_array_length(docs))
                                continue;
                        rows[n++] = (ListRow) { .doc = d, .path = path, .ifindex = json_get_int(d, "ifindex", 0) };
                        break;
                }
        if (r < 0)
                return client_exit_status(log_error_errno(r, "ListLinks: bad reply: %m"));
        qsort(rows, n, sizeof(ListRow), list_row_compare);

        if (!arg_json) {
                (void) json_escape_strings(docs);
                printf("%3s %-16s %-11s %-14s %s%s\n", "IDX", "LINK", "STATE", "CLOCK", "OFFLOAD",
                       arg_verbose ? " PATH" : "");
        }
        for (size_t i = 0; i < n; i++) {
                struct json_object *d = rows[i].doc;
                int64_t offloaded, queues;
                char idx[24], off[48];

                offload_counts(d, &offloaded, &queues);
                if (arg_json) {
                        struct json_object *e = json_object_new_object();
                        json_add_string(e, "interface", str_or(d, "interface", NULL));
                        json_add_string(e, "state", str_or(d, "state", NULL));
                        json_add_string(e, "path", rows[i].path);
                        json_add(e, "ifindex", json_object_new_int64(rows[i].ifindex));
                        json_add_string(e, "clock_state", json_get_string(json_get(d, "clock"), "state"));
                        json_add(e, "offloaded_queues", json_object_new_int64(offloaded));
                        json_add(e, "queues", json_object_new_int64(queues));
                        json_object_array_add(arr, e);
                        continue;
                }
                if (rows[i].ifindex > 0)
                        snprintf(idx, sizeof(idx), "%" PRId64, rows[i].ifindex);
                else
                        snprintf(idx, sizeof(idx), "-");
                snprintf(off, sizeof(off), "%" PRId64 "/%" PRId64, offloaded, queues);
                printf("%3s %-16s %-11s %-14s %-*s%s%s\n", idx, str_or(d, "interface", "?"),
                       str_or(d, "state", "?"), str_or(json_get(d, "clock"), "state", "-"),
                       arg_verbose ? 7 : 0, off, arg_verbose ? " " : "", arg_verbose ? rows[i].path : "");
        }
        if (arg_json)
                print_json(arr);
        else
                printf("\n%zu link%s listed.\n", n, n == 1 ? "" : "s");
        return TBSCTL_EXIT_OK;
}

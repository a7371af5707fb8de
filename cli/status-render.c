/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The human form of a Describe() document: status-render.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "launch-print.h"
#include "macro.h"
#include "qdisc-kind.h"
#include "status-render.h"

static bool streq(const char *a, const char *b) {
        return strcmp(a, b) == 0;
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

void render_caps(struct json_object *c) {
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

void render_clock(struct json_object *c) {
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
                      str_or(c, "phc_offset_method", "method not given"));
        if (json_get(c, "tai_offset_s"))
                field("TAI offset", "%" PRId64 " s", json_get_int(c, "tai_offset_s", 0));
        if (json_get_string(c, "checked_at"))
                field("Clock checked", "%s", json_get_string(c, "checked_at"));
        if (json_get_string(c, "ptp4l_socket_used"))
                field("ptp4l socket", "%s (%s, %" PRId64 " requests, %" PRId64 " notifications)",
                      json_get_string(c, "ptp4l_socket_used"), str_or(c, "ptp4l_updates", "updates not given"),
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

const char *taprio_offload_stats(struct json_object *st, char *buf, size_t size) {
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
        return str_or(q, "offload_requested", "not given");
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
        field(label, "%s %s parent %s, %s, offload %s (requested %s)", str_or(q, "qdisc", "no qdisc"),
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

/* Whether the root is a kind the schedule format describes, so that its
 * keys are in the document: "modeled" (a daemon without the key: a kind
 * of the table, and not the kernel's default). */
static bool root_modeled(struct json_object *r) {
        struct json_object *m = json_get(r, "modeled");
        const char *kind = json_get_string(r, "qdisc");

        if (m && json_object_is_type(m, json_type_boolean))
                return json_object_get_boolean(m);
        return kind && qdisc_vtable_root_by_kind(kind) && strcmp(str_or(r, "handle", "0:"), "0:") != 0;
}

/* "tbsd", "default" (the kernel's own root, handle 0) or "foreign"; a
 * daemon without "owner" gives only the handle to go by. */
static const char *root_owner(struct json_object *r) {
        if (json_get_string(r, "owner"))
                return json_get_string(r, "owner");
        return strcmp(str_or(r, "handle", "0:"), "0:") == 0 ? "default" : "tbsd";
}

/* Below the root's line when it is not tbsd's: why, and why the
 * schedule's tree is not there when the link failed. */
static void render_root_owner(struct json_object *r, struct json_object *d) {
        const char *owner = root_owner(r), *state = str_or(d, "state", "unknown");

        if (streq(owner, "tbsd"))
                return;
        if (json_get_string(r, "owner_reason"))
                field("Root owner", "%s", json_get_string(r, "owner_reason"));
        if (streq(state, "failed") && json_get_string(d, "state_reason"))
                field("Schedule tree", "not installed: %s", json_get_string(d, "state_reason"));
        else if (streq(state, "failed") || streq(state, "pending"))
                field("Schedule tree", "not installed (%s)", state);
}

/* A root the schedule format does not describe (the kernel's default
 * noqueue, pfifo_fast or mq, or anyone's fq_codel, htb, ...): its kind
 * and handle as the kernel dumps them, and its counters. */
static void render_unmodeled_root(struct json_object *r) {
        bool dflt = streq(root_owner(r), "default");

        field("Root", "%s %s, %s", str_or(r, "qdisc", "of an unknown kind"), str_or(r, "handle", "without a handle"),
              dflt ? "the kernel's default root (not tbsd's tree)" : "not tbsd's tree");
        render_stats_line("                  ", json_get(r, "stats"));
}

static void render_root(struct json_object *r) {
        char queues[256] = "", map[128] = "";
        struct json_object *qs = json_get(r, "queues"), *m = json_get(r, "priority_map");
        size_t len = 0;

        if (!r || json_object_is_type(r, json_type_null)) {
                field("Root", "none (no qdisc dump of the interface)");
                return;
        }
        if (!root_modeled(r)) {
                render_unmodeled_root(r);
                return;
        }
        if (!json_get(r, "num_tc")) {
                /* A single etf or cbs as the root: no classes to show. */
                struct json_object *c = json_get(r, "child");
                char values[192];

                declared_kind(r)->status_text(r, values, sizeof(values));
                field("Root", "%s %s, the only qdisc: %s, offload %s", str_or(r, "qdisc", "etf"),
                      str_or(r, "handle", "without a handle"), values, json_get_bool(r, "offload", 0) ? "on" : "off");
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
        field("Root", "%s %s, %" PRId64 " traffic classes, queues %s", str_or(r, "qdisc", "mqprio"),
              str_or(r, "handle", "without a handle"), json_get_int(r, "num_tc", 0), queues);
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

void render_status(struct json_object *d) {
        struct json_object *qs = json_get(d, "txqueues");
        const char *state = str_or(d, "state", "unknown");
        char offload[96];

        /* An absent interface has no index (0 in the document; "-" in
         * list's IDX column), not "index 0". */
        if (json_get_int(d, "ifindex", 0) > 0)
                printf("%s %s (index %" PRId64 ")\n", strcmp(state, "configured") == 0 ? "●" : "○",
                       str_or(d, "interface", "(no name)"), json_get_int(d, "ifindex", 0));
        else
                printf("○ %s (no index)\n", str_or(d, "interface", "(no name)"));
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
        if (json_get(d, "root") && !json_object_is_type(json_get(d, "root"), json_type_null))
                render_root_owner(json_get(d, "root"), d);
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), offload, sizeof(offload)))
                field("Offload stats", "%s", offload);
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++)
                render_queue(json_object_array_get_idx(qs, i));
        if (json_get(d, "clock"))
                render_clock(json_get(d, "clock"));
        render_declared_clock(json_get(json_get(d, "declared"), "clock"));
}


/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schedule file format: every bad input is refused with the exact
 * one-line error "FILE: JSON.PATH: REASON"; defaults; syntax error
 * positions; round trips through schedule_to_json(); the examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "json-util.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "schedule.h"

#define F "t.json"

/* Test documents use ' for " to stay readable. */
static char *dq(const char *s) {
        char *t = strdup(s);

        assert_non_null(t);
        for (char *c = t; *c; c++)
                if (*c == '\'')
                        *c = '"';
        return t;
}

/* A valid mqprio schedule and a valid taprio one; cases patch them. */
static const char *const MQ =
        "{'interface': 'eth0',"
        " 'root': {'qdisc': 'mqprio', 'num_tc': 3,"
        "          'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
        "          'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"
        "                     {'count': 2, 'offset': 2}]},"
        " 'txqueues': [{'queue': 0, 'delta_ns': 200000},"
        "              {'queue': 1, 'qdisc': 'tbs', 'delta_ns': 500000, 'offload': false}]}";

static const char *const TA =
        "{'interface': 'eth1',"
        " 'root': {'qdisc': 'taprio', 'num_tc': 3,"
        "          'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
        "          'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"
        "                     {'count': 2, 'offset': 2}],"
        "          'base_time_ns': 1000,"
        "          'entries': [{'gate_mask': 1, 'interval_ns': 300000},"
        "                      {'command': 'set-gates', 'gate_mask': '0x6', 'interval_ns': 700000}]},"
        " 'txqueues': [{'queue': 0, 'delta_ns': 200000}]}";

/* A root etf alone (single-queue devices). */
static const char *const LEAF =
        "{'interface': 'eth2',"
        " 'root': {'qdisc': 'etf', 'delta_ns': 300000, 'offload': false},"
        " 'allow': ['ptp-etf']}";

/* RFC 7396 JSON merge patch: objects merge, null deletes, the rest replaces. */
static void merge(json_object *target, json_object *patch) {
        json_object_object_foreach(patch, key, val) {
                json_object *t;

                if (json_object_is_type(val, json_type_null))
                        json_object_object_del(target, key);
                else if (json_object_is_type(val, json_type_object) &&
                         json_object_object_get_ex(target, key, &t) &&
                         json_object_is_type(t, json_type_object))
                        merge(t, val);
                else
                        assert_int_equal(json_object_object_add(target, key, json_object_get(val)), 0);
        }
}

/* base patched with patch, as JSON text. */
static char *patched(const char *base, const char *patch) {
        _cleanup_free_ char *b = dq(base), *p = dq(patch);
        _cleanup_json_ json_object *bo = json_tokener_parse(b), *po = json_tokener_parse(p);
        char *out;

        assert_non_null(bo);
        assert_non_null(po);
        merge(bo, po);
        out = strdup(json_object_to_json_string_ext(bo, JSON_C_TO_STRING_PLAIN));
        assert_non_null(out);
        return out;
}

static char *join_diags(const DiagList *l) {
        char *all = strdup("");

        assert_non_null(all);
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *line = diag_format(&l->items[i]), *prev = all;

                assert_non_null(line);
                assert_true(asprintf(&all, "%s%s%s", prev, i ? "\n" : "", line) >= 0);
        }
        return all;
}

/* Parse text as file F; when that succeeds, verify without device facts.
 * Returns every diagnostic line, joined by newlines. Checks that a failed
 * parse leaves *ret untouched and that errors and return codes agree. */
static char *diagnose_text(const char *file, const char *text, size_t len) {
        Schedule *sentinel = (Schedule *) (uintptr_t) 0x1, *s = sentinel;
        DiagList l = {};
        char *out;
        int r;

        r = schedule_parse_json(file, text, len, &l, &s);
        if (r < 0) {
                assert_int_equal(r, -EINVAL);
                assert_ptr_equal(s, sentinel);
                assert_true(diag_errors(&l) > 0);
        } else {
                assert_int_equal(diag_errors(&l), 0);
                r = schedule_verify(s, NULL, &l);
                assert_int_equal(r, diag_errors(&l) > 0 ? -EINVAL : 0);
                schedule_free(s);
        }
        out = join_diags(&l);
        diag_list_clear(&l);
        return out;
}

static char *diagnose(const char *base, const char *patch) {
        _cleanup_free_ char *text = base ? patched(base, patch) : dq(patch);

        return diagnose_text(F, text, strlen(text));
}

typedef struct BadCase {
        const char *base;       /* MQ, TA, or NULL: patch is the whole document */
        const char *patch;
        const char *expect;     /* every line, joined by newlines */
} BadCase;

static const BadCase bad_cases[] = {
        /* The file as a whole */
        { NULL, "", F ": the file is empty; expected a JSON object" },
        { NULL, " \n\t ", F ": the file is empty; expected a JSON object" },
        { NULL, "[1, 2]", F ": the file must hold a JSON object, got an array" },
        { NULL, "null", F ": the file must hold a JSON object, got null" },
        { NULL, "42", F ": the file must hold a JSON object, got 42" },
        { NULL, "{'interface': 'eth0',}", F ": line 1, column 22: syntax error: unexpected character" },
        { NULL, "{\n  'interface': 'eth0',\n  'root': {\n", F ": line 4, column 1: syntax error: unexpected end of file" },
        { NULL, "{\n  'interface': tru\n}", F ": line 2, column 19: syntax error: invalid literal; expected true, false or null" },
        { NULL, "{'interface': 'eth0'} x", F ": line 1, column 23: syntax error: unexpected character" },
        { NULL, "{'interface': 01}", F ": line 1, column 16: syntax error: a number must not have leading zeros" },
        { NULL, "{}", F ": interface: required key is missing\n" F ": root: required key is missing" },
        /* Unknown keys, with the list of known ones */
        { MQ, "{'extra': 1}", F ": extra: unknown key; known keys: interface, root, txqueues, clock, drift, sockets, allow, mac_merge" },
        /* mac_merge (MAC merge layer, ETHTOOL_MSG_MM_SET's ranges) */
        { MQ, "{'mac_merge': {'tx': true}}",
          F ": mac_merge.tx: unknown key; known keys: pmac_enabled, tx_enabled, verify_enabled, verify_time_ms, "
          "tx_min_frag_bytes" },
        { MQ, "{'mac_merge': {}}",
          F ": mac_merge: must set at least one of pmac_enabled, tx_enabled, verify_enabled, verify_time_ms, "
          "tx_min_frag_bytes" },
        { MQ, "{'mac_merge': true}", F ": mac_merge: must be an object, got true" },
        { MQ, "{'mac_merge': {'tx_enabled': 1}}", F ": mac_merge.tx_enabled: must be a boolean, got 1" },
        { MQ, "{'mac_merge': {'verify_time_ms': 0}}", F ": mac_merge.verify_time_ms: must be between 1 and 128, got 0" },
        { MQ, "{'mac_merge': {'verify_time_ms': 129}}", F ": mac_merge.verify_time_ms: must be between 1 and 128, got 129" },
        { MQ, "{'mac_merge': {'tx_min_frag_bytes': 64}}",
          F ": mac_merge.tx_min_frag_bytes: must be 60, 124, 188 or 252, got 64" },
        { MQ, "{'mac_merge': {'tx_min_frag_bytes': 256}}",
          F ": mac_merge.tx_min_frag_bytes: must be between 60 and 252, got 256" },
        { MQ, "{'mac_merge': {'tx_enabled': true, 'pmac_enabled': false}}",
          F ": mac_merge.pmac_enabled: must be true when tx_enabled is true (preemptible frames need the pMAC; "
          "the kernel refuses it)" },
        { MQ, "{'mac_merge': {'verify_enabled': true}}",
          F ": mac_merge.verify_enabled: needs \"tx_enabled\": true (verification is the transmit side's "
          "handshake with the link partner)" },
        { MQ, "{'root': {'hw_ofload': true}}",
          F ": root.hw_ofload: unknown key; known keys: qdisc, handle, num_tc, priority_map, queues, hw_offload, fp, stab" },
        { MQ, "{'root': {'base_time_ns': 0}}", F ": root.base_time_ns: only valid for a taprio root" },
        { TA, "{'root': {'hw_offload': false}}", F ": root.hw_offload: only valid for an mqprio root" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta': 5}]}",
          F ": txqueues[0].delta: unknown key (tc's notation; write \"delta_ns\")\n"
          F ": txqueues[0].delta_ns: required key is missing" },
        { MQ, "{'clock': {'max offset': 5}}",
          F ": clock: unknown key \"max offset\"; known keys: ptp4l_socket, domain, transport_specific, max_master_offset_ns, max_phc_offset_ns, ptp_priority" },
        { TA, "{'root': {'entries': [{'gate_mask': 1, 'interval_ns': 5, 'cmd': 'x'}]}}",
          F ": root.entries[0].cmd: unknown key (tc's notation; write \"command\")" },
        { TA, "{'root': {'entries': [{'gate_mask': 1, 'interval_ns': 5, 'cnd': 'x'}]}}",
          F ": root.entries[0].cnd: unknown key; known keys: command, gate_mask, interval_ns" },
        /* tc's notation: the error ends with what the format says instead */
        { MQ, "{'root': {'queues': ['1@0', {'count': 1, 'offset': 1}, '2@2']}}",
          F ": root.queues[0]: must be an object, got \"1@0\" (tc's notation; write {\"count\": 1, \"offset\": 0})\n"
          F ": root.queues[2]: must be an object, got \"2@2\" (tc's notation; write {\"count\": 2, \"offset\": 2})" },
        { MQ, "{'root': {'queues': '1@0 1@1  2@2'}}",
          F ": root.queues: must be an array, got \"1@0 1@1  2@2\" (tc's notation; write [{\"count\": 1, \"offset\": 0}, "
            "{\"count\": 1, \"offset\": 1}, {\"count\": 2, \"offset\": 2}])" },
        /* not tc's notation: the plain error */
        { MQ, "{'root': {'queues': ['1@', {'count': 1, 'offset': 1}, '0@2']}}",
          F ": root.queues[0]: must be an object, got \"1@\"\n"
          F ": root.queues[2]: must be an object, got \"0@2\"" },
        { MQ, "{'root': {'queues': '1@0,1@1'}}", F ": root.queues: must be an array, got \"1@0,1@1\"" },
        { MQ, "{'root': {'priority_map': '2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2'}}",
          F ": root.priority_map: must be an array, got \"2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2\" (tc's notation; write "
            "[2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2])" },
        { MQ, "{'root': {'priority_map': '1 0'}}",
          F ": root.priority_map: must be an array, got \"1 0\" (tc's notation; write "
            "[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])" },
        { TA, "{'root': {'entries': [{'command': 'S', 'gate_mask': 1, 'interval_ns': 5},"
              " {'command': 'H', 'gate_mask': 1, 'interval_ns': 5},"
              " {'command': 'R', 'gate_mask': 1, 'interval_ns': 5},"
              " {'command': 's', 'gate_mask': 1, 'interval_ns': 5}]}}",
          F ": root.entries[0].command: unknown command \"S\" (tc's notation; write \"set-gates\")\n"
          F ": root.entries[1].command: unknown command \"H\" (tc's notation; write \"set-and-hold\")\n"
          F ": root.entries[2].command: unknown command \"R\" (tc's notation; write \"set-and-release\")\n"
          F ": root.entries[3].command: unknown command \"s\"; expected \"set-gates\", \"set-and-hold\" or \"set-and-release\"" },
        { TA, "{'root': {'entries': [{'gate_mask': '01', 'interval_ns': 300000}, {'gate_mask': 'x1', 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be an integer or a hex string such as \"0x3\", got \"01\" (tc's notation; write \"0x01\")\n"
          F ": root.entries[1].gate_mask: must be an integer or a hex string such as \"0x3\", got \"x1\"" },
        { TA, "{'root': {'flags': '0x1'}}", F ": root.flags: unknown key (tc's notation; write \"mode\": \"txtime-assist\")" },
        { TA, "{'root': {'flags': 2}}", F ": root.flags: unknown key (tc's notation; write \"mode\": \"full-offload\")" },
        { TA, "{'root': {'flags': 0}}", F ": root.flags: unknown key (tc's notation; write \"mode\": \"software\")" },
        { TA, "{'root': {'flags': 7}}", F ": root.flags: unknown key (tc's notation; write \"mode\")" },
        { MQ, "{'root': {'hw': 0}}", F ": root.hw: unknown key (tc's notation; write \"hw_offload\": false)" },
        { MQ, "{'root': {'hw': 1}}", F ": root.hw: unknown key (tc's notation; write \"hw_offload\": true)" },
        { MQ, "{'root': {'hw_offload': 0}}", F ": root.hw_offload: must be a boolean, got 0 (tc's notation; write false)" },
        { MQ, "{'root': {'hw_offload': 2}}", F ": root.hw_offload: must be a boolean, got 2" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'offload': 1}]}",
          F ": txqueues[0].offload: must be true, false or \"auto\", got 1 (tc's notation; write true)" },
        { MQ, "{'txqueues': [{'queue': 2, 'qdisc': 'cbs', 'idleslope': 20000, 'sendslope': -980000,"
              " 'hicredit': 30, 'locredit': -1470, 'offload': 0}]}",
          F ": txqueues[0].idleslope: unknown key (tc's notation; write \"idle_slope_kbps\")\n"
          F ": txqueues[0].sendslope: unknown key (tc's notation; write \"send_slope_kbps\")\n"
          F ": txqueues[0].hicredit: unknown key (tc's notation; write \"hi_credit_bytes\")\n"
          F ": txqueues[0].locredit: unknown key (tc's notation; write \"lo_credit_bytes\")\n"
          F ": txqueues[0].offload: must be true, false or \"auto\", got 0 (tc's notation; write false)\n"
          F ": txqueues[0]: a cbs queue needs bandwidth_kbps and max_frame_bytes, or idle_slope_kbps, "
            "send_slope_kbps, hi_credit_bytes and lo_credit_bytes" },
        /* a tc name whose key the object does not take: the plain error */
        { TA, "{'root': {'hw': 0}}",
          F ": root.hw: unknown key; known keys: qdisc, handle, num_tc, priority_map, queues, fp, clockid, base_time_ns, "
            "change_margin_ns, max_sdu, cycle_time_ns, cycle_time_extension_ns, mode, txtime_delay_ns, entries, "
            "streams, link_speed_mbps, guard_frame_bytes, stab" },
        { TA, "{'root': {'base-time': 0, 'cycle_time': 5, 'txtime-delay': 5, 'sched-entry': []}}",
          F ": root.base-time: unknown key (tc's notation; write \"base_time_ns\")\n"
          F ": root.cycle_time: unknown key (tc's notation; write \"cycle_time_ns\")\n"
          F ": root.txtime-delay: unknown key (tc's notation; write \"txtime_delay_ns\")\n"
          F ": root.sched-entry: unknown key (tc's notation; write \"entries\")" },
        /* sockets */
        { MQ, "{'sockets': {'group': 'ctrl', 'mode': 432}}", F ": sockets.mode: unknown key; known keys: group, ethertypes" },
        { MQ, "{'sockets': 'ctrl-apps'}", F ": sockets: must be an object, got \"ctrl-apps\"" },
        { MQ, "{'sockets': {}}", F ": sockets.group: required key is missing" },
        { MQ, "{'sockets': {'group': 1000}}", F ": sockets.group: must be a string, got 1000" },
        { MQ, "{'sockets': {'group': ''}}",
          F ": sockets.group: must be a group name (1 to 32 bytes: a letter or '_', then letters, digits, '_', '-' "
            "or '.'), got \"\"" },
        { MQ, "{'sockets': {'group': '1000'}}",
          F ": sockets.group: must be a group name (1 to 32 bytes: a letter or '_', then letters, digits, '_', '-' "
            "or '.'), got \"1000\"" },
        { MQ, "{'sockets': {'group': 'ctrl apps'}}",
          F ": sockets.group: must be a group name (1 to 32 bytes: a letter or '_', then letters, digits, '_', '-' "
            "or '.'), got \"ctrl apps\"" },
        { MQ, "{'sockets': {'group': 'a23456789012345678901234567890123'}}",
          F ": sockets.group: must be a group name (1 to 32 bytes: a letter or '_', then letters, digits, '_', '-' "
            "or '.'), got \"a23456789012345678901234567890123\"" },
        { MQ, "{'sockets': {'group': 'ctrl\\napps'}}",
          F ": sockets.group: must not contain control characters, got \"ctrl\\napps\"" },
        /* sockets.ethertypes */
        { MQ, "{'sockets': {'ethertypes': '0x88f7'}}", F ": sockets.ethertypes: must be an array, got \"0x88f7\"" },
        { MQ, "{'sockets': {'ethertypes': [1500]}}",
          F ": sockets.ethertypes[0]: must be an EtherType, 0x0600 to 0xffff (below, the field is an 802.3 length), "
            "got 1500" },
        { MQ, "{'sockets': {'ethertypes': ['0x0003']}}",
          F ": sockets.ethertypes[0]: must be an EtherType, 0x0600 to 0xffff (below, the field is an 802.3 length), "
            "got \"0x0003\"" },
        { MQ, "{'sockets': {'ethertypes': [65536]}}",
          F ": sockets.ethertypes[0]: must be between 0 and 65535, got 65536" },
        { MQ, "{'sockets': {'ethertypes': ['88f7']}}",
          F ": sockets.ethertypes[0]: must be an EtherType, an integer or a hex string such as \"0x88f7\", got \"88f7\"" },
        { MQ, "{'sockets': {'ethertypes': ['0x188f7']}}",
          F ": sockets.ethertypes[0]: must be an EtherType, an integer or a hex string such as \"0x88f7\", got \"0x188f7\"" },
        { MQ, "{'sockets': {'ethertypes': [null]}}",
          F ": sockets.ethertypes[0]: must be an EtherType, an integer or a hex string such as \"0x88f7\", got null" },
        { MQ, "{'sockets': {'ethertypes': ['0x88f7', 35063]}}", F ": sockets.ethertypes[1]: lists 0x88f7 a second time" },
        { MQ, "{'sockets': {'ethertypes': [2048, 2049, 2050, 2051, 2052, 2053, 2054, 2055, 2056, 2057, 2058, 2059,"
              " 2060, 2061, 2062, 2063, 2064]}}",
          F ": sockets.ethertypes: lists 17 EtherTypes; at most 16" },
        /* interface */
        { MQ, "{'interface': 5}", F ": interface: must be a string, got 5" },
        { MQ, "{'interface': ''}", F ": interface: must not be empty, got \"\"" },
        { MQ, "{'interface': 'enp1s0f0-port-00'}",
          F ": interface: must be at most 15 bytes long (IFNAMSIZ - 1), got \"enp1s0f0-port-00\"" },
        { MQ, "{'interface': 'eth/0'}", F ": interface: must not contain '/', got \"eth/0\"" },
        { MQ, "{'interface': 'eth 0'}", F ": interface: must not contain whitespace, got \"eth 0\"" },
        { MQ, "{'interface': 'eth:0'}", F ": interface: must not contain ':', got \"eth:0\"" },
        { MQ, "{'interface': '..'}", F ": interface: must not be \".\" or \"..\", got \"..\"" },
        { MQ, "{'interface': 'eth\\u00000'}", F ": interface: must not contain a NUL character, got \"eth\\u00000\"" },
        /* root */
        { MQ, "{'root': 5}", F ": root: must be an object, got 5" },
        { MQ, "{'root': {'qdisc': null}}", F ": root.qdisc: required key is missing" },
        { MQ, "{'root': {'qdisc': 'prio'}}", F ": root.qdisc: unknown qdisc \"prio\"; expected \"mqprio\", \"taprio\", \"etf\" or \"cbs\"" },
        { MQ, "{'root': {'qdisc': 'etf'}}",
          F ": root.num_tc: only valid for an mqprio or taprio root (a single etf or cbs as the root has no traffic classes)\n"
          F ": root.priority_map: only valid for an mqprio or taprio root (a single etf or cbs as the root has no traffic classes)\n"
          F ": root.queues: only valid for an mqprio or taprio root (a single etf or cbs as the root has no traffic classes)\n"
          F ": root.delta_ns: required key is missing" },
        { MQ, "{'root': {'qdisc': 'tbs'}}",
          F ": root.qdisc: unknown qdisc \"tbs\"; expected \"mqprio\", \"taprio\", \"etf\" or \"cbs\" (a root etf "
          "is \"etf\"; \"tbs\" is only a txqueues entry's old name)" },
        /* etf or cbs as the root, an etf under a cbs */
        { LEAF, "{'root': {'delta_ns': -1, 'monitor': {}}}",
          F ": root.monitor: unknown key; known keys: qdisc, handle, clockid, delta_ns, offload, deadline_mode, "
          "skip_sock_check, stab\n"
          F ": root.delta_ns: must be between 0 and 2147483647, got -1" },
        { LEAF, "{'root': {'child': {'delta_ns': 1}}}", F ": root.child: only valid for a cbs root (\"qdisc\": \"cbs\")" },
        { LEAF, "{'root': {'clockid': 'CLOCK_MONOTONIC'}}",
          F ": root.clockid: must be CLOCK_TAI: the kernel's etf qdisc accepts only CLOCK_TAI, got CLOCK_MONOTONIC" },
        { LEAF, "{'txqueues': [{'queue': 0, 'delta_ns': 1}]}",
          F ": txqueues: must be left out under a root etf: a single qdisc as the root has no TX queues of its own "
          "to put qdiscs on (a cbs root takes an etf as its \"child\")" },
        { LEAF, "{'allow': null}",
          F ": root: ptp-etf: every packet of the interface passes this etf, and etf drops every packet without a "
          "launch time, ptp4l's included; PTP cannot run on this interface; to accept it, add \"ptp-etf\" to "
          "\"allow\"" },
        { LEAF, "{'root': {'qdisc': 'cbs', 'delta_ns': null, 'bandwidth_kbps': 1000, 'max_frame_bytes': 100,"
          " 'child': {'qdisc': 'pfifo', 'delta_ns': 'x', 'queue': 1}}}",
          F ": root.child.queue: unknown key; known keys: qdisc, clockid, delta_ns, offload, deadline_mode, "
          "skip_sock_check\n"
          F ": root.child.qdisc: unknown qdisc \"pfifo\"; the qdisc under a cbs can only be \"etf\"\n"
          F ": root.child.delta_ns: must be an integer, got \"x\"" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 1, 'child': {'delta_ns': 1}}]}",
          F ": txqueues[0].child: only valid for a cbs queue (\"qdisc\": \"cbs\")" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 1000,"
          " 'max_frame_bytes': 100, 'link_speed_mbps': 1000, 'child': []}]}",
          F ": txqueues[0].child: must be an object, got an array" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 1000,"
          " 'max_frame_bytes': 100, 'link_speed_mbps': 1000, 'child': {'offload': 'yes'}}]}",
          F ": txqueues[0].child.delta_ns: required key is missing\n"
          F ": txqueues[0].child.offload: must be true, false or \"auto\", got \"yes\"" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 1000,"
          " 'max_frame_bytes': 100, 'link_speed_mbps': 1000, 'child': {'delta_ns': 5, 'clockid': 'REALTIME'}}]}",
          F ": txqueues[0].child.clockid: must be CLOCK_TAI: the kernel's etf qdisc accepts only CLOCK_TAI, got "
          "CLOCK_REALTIME" },
        { MQ, "{'root': {'handle': '100:1'}}", F ": root.handle: must have minor number 0, such as \"100:\", got \"100:1\"" },
        { MQ, "{'root': {'handle': 'root'}}", F ": root.handle: must be a qdisc handle such as \"100:\", got \"root\"" },
        { MQ, "{'root': {'handle': 'ffff:'}}",
          F ": root.handle: major number ffff is reserved for the ingress and clsact qdiscs, got \"ffff:\"" },
        { MQ, "{'root': {'handle': 256}}", F ": root.handle: must be a string, got 256" },
        { MQ, "{'root': {'num_tc': 0}}", F ": root.num_tc: must be between 1 and 16, got 0" },
        { MQ, "{'root': {'num_tc': 17}}", F ": root.num_tc: must be between 1 and 16, got 17" },
        { MQ, "{'root': {'num_tc': '3'}}", F ": root.num_tc: must be an integer, got \"3\"" },
        { MQ, "{'root': {'num_tc': 3.0}}", F ": root.num_tc: must be an integer, got 3.0" },
        { MQ, "{'root': {'num_tc': null}}", F ": root.num_tc: required key is missing" },
        { MQ, "{'root': {'priority_map': [0, 1, 2]}}",
          F ": root.priority_map: must have 16 entries (the traffic class of each priority 0-15), got 3" },
        { MQ, "{'root': {'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 16]}}",
          F ": root.priority_map[15]: must be between 0 and 15, got 16" },
        { MQ, "{'root': {'priority_map': [2, 2, 1, 0, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]}}",
          F ": root.priority_map[4]: traffic class 3 does not exist (num_tc is 3)" },
        { MQ, "{'root': {'hw_offload': 'yes'}}", F ": root.hw_offload: must be a boolean, got \"yes\"" },
        /* root.queues */
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}]}}",
          F ": root.queues: must have one entry per traffic class (num_tc is 3), got 1" },
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"
              " {'count': 1, 'offset': 2}, {'count': 1, 'offset': 3}, {'count': 1, 'offset': 4},"
              " {'count': 1, 'offset': 5}, {'count': 1, 'offset': 6}, {'count': 1, 'offset': 7},"
              " {'count': 1, 'offset': 8}, {'count': 1, 'offset': 9}, {'count': 1, 'offset': 10},"
              " {'count': 1, 'offset': 11}, {'count': 1, 'offset': 12}, {'count': 1, 'offset': 13},"
              " {'count': 1, 'offset': 14}, {'count': 1, 'offset': 15}, {'count': 1, 'offset': 16}]}}",
          F ": root.queues: must have at most 16 entries (one per traffic class), got 17" },
        { MQ, "{'root': {'queues': [{'count': 0, 'offset': 0}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 2}]}}",
          F ": root.queues[0].count: must be between 1 and 65535, got 0" },
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1}, {'count': 2, 'offset': 2}]}}",
          F ": root.queues[1].offset: required key is missing" },
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, 1, {'count': 2, 'offset': 2}]}}",
          F ": root.queues[1]: must be an object, got 1" },
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': -1}, {'count': 2, 'offset': 2}]}}",
          F ": root.queues[1].offset: must be between 0 and 65535, got -1" },
        { MQ, "{'root': {'queues': [{'count': 2, 'offset': 0}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 2}]}}",
          F ": root.queues[1].offset: overlaps traffic class 0 (queues 0-1); must be 2, got 1" },
        { MQ, "{'root': {'queues': [{'count': 2, 'offset': 2}, {'count': 1, 'offset': 4}, {'count': 2, 'offset': 0}]}}",
          F ": root.queues[2].offset: must start where traffic class 1 ends; traffic classes must use contiguous "
          "queues in order, so it must be 5, got 0" },
        { MQ, "{'root': {'queues': [{'count': 2, 'offset': 0}, {'count': 1, 'offset': 2}, {'count': 2, 'offset': 1}]}}",
          F ": root.queues[2].offset: overlaps traffic class 0 (queues 0-1); must be 3, got 1" },
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 4}]}}",
          F ": root.queues[2].offset: leaves queues 2-3 in no traffic class; traffic classes must use "
          "contiguous queues, so it must be 2, got 4" },
        /* Queue ranges overlap only under taprio in txtime-assist mode (Linux 6.1) */
        { MQ, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 2, 'offset': 0}]}}",
          F ": root.queues[1].offset: overlaps traffic class 0 (queue 0); must be 1, got 0\n"
          F ": root.queues[2].offset: overlaps traffic class 0 (queue 0); must be 1, got 0" },
        { TA, "{'root': {'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}]}}",
          F ": root.queues[1].offset: overlaps traffic class 0 (queue 0); must be 1, got 0\n"
          F ": root.queues[2].offset: overlaps traffic class 0 (queue 0); must be 1, got 0" },
        { TA, "{'root': {'mode': 'full-offload',"
              " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 1}]}}",
          F ": root.queues[1].offset: overlaps traffic class 0 (queue 0); must be 1, got 0" },
        { TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
              " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 2}]},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}]}",
          F ": root.queues[2].offset: leaves queue 1 in no traffic class; the queues of all traffic classes "
          "together must be contiguous, so it must be at most 1, got 2" },
        { TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
              " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 0, 'offset': 0}]},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}]}",
          F ": root.queues[2].count: must be between 1 and 65535, got 0" },
        /* PTP's class (priority 0 -> class 2) shares queue 0 with classes 0 and 1: its etf is PTP's */
        { TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
              " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}]}}",
          F ": txqueues[0]: ptp-etf: queue 0 carries PTP (traffic class 2, clock.ptp_priority 0); taprio stamps "
          "ptp4l's frames with a launch time, but this etf drops them since ptp4l's socket has no SO_TXTIME; set "
          "skip_sock_check to true; to accept it, add \"ptp-etf\" to \"allow\"" },
        /* A monitor on a queue of several classes is probed through the lowest class a priority reaches
         * (here class 1: none reaches class 0), and that class must open */
        { TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
              " 'priority_map': [2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
              " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}],"
              " 'entries': [{'gate_mask': 1, 'interval_ns': 300000}, {'gate_mask': 4, 'interval_ns': 700000}]},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true, 'monitor': {}}]}",
          F ": txqueues[0].monitor: traffic class 1 of queue 0 never opens in the gate list (root.entries): taprio "
          "drops every launch time of the class, so no probe frame can pass" },
        { TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
              " 'queues': [{'count': 2, 'offset': 0}, {'count': 2, 'offset': 0}, {'count': 2, 'offset': 0}]},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true, 'monitor': {}}]}",
          F ": txqueues[0].monitor: queue 0 shares traffic class 0 with 1 other queue; the kernel spreads a class's "
          "flows over its queues, so probe frames cannot be aimed at one of them; give the monitored queue a "
          "traffic class of its own" },
        /* txqueues */
        { MQ, "{'txqueues': {'queue': 0}}", F ": txqueues: must be an array, got an object" },
        { MQ, "{'txqueues': [7]}", F ": txqueues[0]: must be an object, got 7" },
        { MQ, "{'txqueues': [{'delta_ns': 5}]}", F ": txqueues[0].queue: required key is missing" },
        { MQ, "{'txqueues': [{'queue': 65535, 'delta_ns': 5}]}", F ": txqueues[0].queue: must be between 0 and 65534, got 65535" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'fq', 'delta_ns': 5}]}",
          F ": txqueues[0].qdisc: unknown qdisc \"fq\"; expected \"etf\" (or its old name \"tbs\") or \"cbs\"" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5}, {'queue': 1, 'delta_ns': 2147483648}]}",
          F ": txqueues[1].delta_ns: must be between 0 and 2147483647, got 2147483648" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 99999999999999999999}]}",
          F ": txqueues[0].delta_ns: must be between 0 and 2147483647, got 18446744073709551615" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'offload': 'yes'}]}",
          F ": txqueues[0].offload: must be true, false or \"auto\", got \"yes\"" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'offload': 1}]}",
          F ": txqueues[0].offload: must be true, false or \"auto\", got 1 (tc's notation; write true)" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'clockid': 'CLOCK_FOO'}]}",
          F ": txqueues[0].clockid: unknown clock \"CLOCK_FOO\"; expected \"CLOCK_TAI\", \"CLOCK_REALTIME\", "
          "\"CLOCK_MONOTONIC\" or \"CLOCK_BOOTTIME\"" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'clockid': 'CLOCK_REALTIME'}]}",
          F ": txqueues[0].clockid: must be CLOCK_TAI: the kernel's etf qdisc accepts only CLOCK_TAI, got CLOCK_REALTIME" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'deadline_mode': 1}]}",
          F ": txqueues[0].deadline_mode: must be a boolean, got 1" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'skip_sock_check': null}]}",
          F ": txqueues[0].skip_sock_check: must not be null; leave the key out to get the default" },
        { MQ, "{'txqueues': [{'queue': null, 'delta_ns': 5}]}", F ": txqueues[0].queue: must not be null" },
        { MQ, "{'txqueues': [null]}", F ": txqueues[0]: must be an object, got null" },
        /* A null element where a null member would be left out, and
         * integers past INT64_MAX, in an array whose paths are built only
         * for an error. */
        { MQ, "{'allow': [null]}", F ": allow[0]: must be a check name, got null" },
        { MQ, "{'root': {'priority_map': [null, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0, 18446744073709551615, "
              "-1]}}",
          F ": root.priority_map[0]: must be an integer, got null\n"
          F ": root.priority_map[14]: must be between 0 and 15, got 18446744073709551615\n"
          F ": root.priority_map[15]: must be between 0 and 15, got -1" },
        { MQ, "{'txqueues': [{'queue': 1, 'delta_ns': 5}, {'queue': 1, 'delta_ns': 6}]}",
          F ": txqueues[1].queue: queue 1 is already configured by txqueues[0]" },
        { MQ, "{'txqueues': [{'queue': 4, 'delta_ns': 5}]}",
          F ": txqueues[0].queue: queue 4 is in no traffic class of root.queues" },
        /* taprio */
        { TA, "{'root': {'entries': null}}", F ": root.entries: required key is missing" },
        { TA, "{'root': {'entries': []}}", F ": root.entries: must have at least one entry" },
        { TA, "{'root': {'entries': [{'gate_mask': '0x', 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be an integer or a hex string such as \"0x3\", got \"0x\"" },
        { TA, "{'root': {'entries': [{'gate_mask': '3', 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be an integer or a hex string such as \"0x3\", got \"3\" (tc's notation; write \"0x3\")" },
        { TA, "{'root': {'entries': [{'gate_mask': true, 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be an integer or a hex string such as \"0x3\", got true" },
        { TA, "{'root': {'entries': [{'gate_mask': '0x100000000', 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be between 0x0 and 0xffffffff, got \"0x100000000\"" },
        { TA, "{'root': {'entries': [{'gate_mask': -1, 'interval_ns': 5}]}}",
          F ": root.entries[0].gate_mask: must be between 0 and 4294967295, got -1" },
        { TA, "{'root': {'entries': [{'gate_mask': 1, 'interval_ns': 100000}, {'gate_mask': '0x8', 'interval_ns': 100000}]}}",
          F ": root.entries[1].gate_mask: opens the gate of a traffic class that does not exist: must be below 0x8 "
          "(1 << num_tc, num_tc is 3), got 0x8" },
        { TA, "{'root': {'entries': [{'gate_mask': 1, 'interval_ns': 0}]}}",
          F ": root.entries[0].interval_ns: must be between 1 and 4294967295, got 0" },
        { TA, "{'root': {'entries': [{'gate_mask': 1}]}}", F ": root.entries[0].interval_ns: required key is missing" },
        { TA, "{'root': {'entries': [{'command': 'open', 'gate_mask': 1, 'interval_ns': 5}]}}",
          F ": root.entries[0].command: unknown command \"open\"; expected \"set-gates\", \"set-and-hold\" or \"set-and-release\"" },
        { TA, "{'root': {'entries': ['S 01 300000']}}", F ": root.entries[0]: must be an object, got \"S 01 300000\"" },
        { TA, "{'root': {'cycle_time_ns': 999999}}",
          F ": root.cycle_time_ns: must be at least the sum of the entries' intervals (1000000), got 999999" },
        { TA, "{'root': {'cycle_time_ns': 0}}", F ": root.cycle_time_ns: must be between 1 and 9223372036854775807, got 0" },
        { TA, "{'root': {'cycle_time_extension_ns': -1}}",
          F ": root.cycle_time_extension_ns: must be between 0 and 9223372036854775807, got -1" },
        { TA, "{'root': {'base_time_ns': -1}}", F ": root.base_time_ns: must be between 0 and 9223372036854775807, got -1" },
        { TA, "{'root': {'base_time_ns': 'later'}}", F ": root.base_time_ns: must be a time in nanoseconds or \"now\", got \"later\"" },
        { TA, "{'root': {'change_margin_ns': 999999}}",
          F ": root.change_margin_ns: must be between 1000000 and 3600000000000, got 999999" },
        { MQ, "{'root': {'change_margin_ns': 1000000}}", F ": root.change_margin_ns: only valid for a taprio root" },
        { TA, "{'root': {'max_sdu': 1500}}", F ": root.max_sdu: must be an array, got 1500" },
        { TA, "{'root': {'max_sdu': []}}", F ": root.max_sdu: must have one entry per traffic class (1 to 16), got 0" },
        { TA, "{'root': {'max_sdu': [0, 1500]}}", F ": root.max_sdu: must have one entry per traffic class (num_tc is 3), got 2" },
        { TA, "{'root': {'max_sdu': [0, 65536, 0]}}", F ": root.max_sdu[1]: must be between 0 and 65535, got 65536" },
        { TA, "{'root': {'max_sdu': [0, -1, 0]}}", F ": root.max_sdu[1]: must be between 0 and 65535, got -1" },
        { MQ, "{'root': {'max_sdu': [0, 0, 0]}}", F ": root.max_sdu: only valid for a taprio root" },
        /* root.fp: frame preemption per traffic class */
        { TA, "{'root': {'fp': 'E'}}", F ": root.fp: must be an array, got \"E\"" },
        { TA, "{'root': {'fp': []}}", F ": root.fp: must have one entry per traffic class (1 to 16), got 0" },
        { TA, "{'root': {'fp': ['E', 'E']}}", F ": root.fp: must have one entry per traffic class (num_tc is 3), got 2" },
        { TA, "{'root': {'fp': ['E', 'X', 'e']}}",
          F ": root.fp[1]: must be \"E\" (express) or \"P\" (preemptible), got \"X\"\n"
          F ": root.fp[2]: must be \"E\" (express) or \"P\" (preemptible), got \"e\"" },
        { TA, "{'root': {'fp': ['E', 1, 'E']}}",
          F ": root.fp[1]: must be \"E\" (express) or \"P\" (preemptible), got 1" },
        { TA, "{'root': {'fp': ['E', 'P', 'E']}}",
          F ": root.fp: a preemptible traffic class needs mode \"full-offload\": the kernel takes frame "
            "preemption only from a taprio the NIC runs, got mode \"software\"" },
        { MQ, "{'root': {'fp': ['E', 'P', 'E']}}",
          F ": root.fp: needs \"hw_offload\": true on an mqprio: the kernel takes per-class frame preemption "
            "only from an mqprio offloaded to the NIC" },
        { MQ, "{'root': {'hw_offload': true, 'fp': ['E', 'P']}}",
          F ": root.fp: must have one entry per traffic class (num_tc is 3), got 2" },
        { TA, "{'root': {'base_time_ns': '2024-01-01'}}", F ": root.base_time_ns: must be a time in nanoseconds or \"now\", got \"2024-01-01\"" },
        { TA, "{'root': {'mode': 'fast'}}",
          F ": root.mode: unknown mode \"fast\"; expected \"software\", \"txtime-assist\" or \"full-offload\"" },
        { TA, "{'root': {'clockid': 'CLOCK_PTP'}}",
          F ": root.clockid: unknown clock \"CLOCK_PTP\"; expected \"CLOCK_TAI\", \"CLOCK_REALTIME\", "
          "\"CLOCK_MONOTONIC\" or \"CLOCK_BOOTTIME\"" },
        { TA, "{'root': {'txtime_delay_ns': 500000}}",
          F ": root.txtime_delay_ns: only valid with mode \"txtime-assist\", got mode \"software\"" },
        { TA, "{'root': {'mode': 'txtime-assist'}, 'txqueues': []}",
          F ": root.mode: txtime-assist needs an etf qdisc on at least one TX queue, but txqueues is empty" },
        { TA, "{'root': {'mode': 'txtime-assist', 'clockid': 'CLOCK_REALTIME'},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 5, 'skip_sock_check': true}]}",
          F ": root.clockid: must be CLOCK_TAI in txtime-assist mode: taprio stamps launch times for its etf "
          "children, and the kernel's etf accepts only CLOCK_TAI; got CLOCK_REALTIME" },
        /* cbs */
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs'}]}",
          F ": txqueues[0]: a cbs queue needs bandwidth_kbps and max_frame_bytes, or idle_slope_kbps, "
          "send_slope_kbps, hi_credit_bytes and lo_credit_bytes" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 20000, 'max_frame_bytes': 1500,"
              " 'idle_slope_kbps': 20000}]}",
          F ": txqueues[0].bandwidth_kbps: give either bandwidth_kbps (with max_frame_bytes) or the four values "
          "idle_slope_kbps, send_slope_kbps, hi_credit_bytes and lo_credit_bytes, not both" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 20000, 'max_frame_bytes': 1500,"
              " 'delta_ns': 5}]}",
          F ": txqueues[0].delta_ns: only valid for an etf queue (\"qdisc\": \"etf\")" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'bandwidth_kbps': 20000}]}",
          F ": txqueues[0].bandwidth_kbps: only valid for a cbs queue (\"qdisc\": \"cbs\")" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 20000}]}",
          F ": txqueues[0].max_frame_bytes: required key is missing" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'idle_slope_kbps': 20000, 'send_slope_kbps': 980000,"
              " 'hi_credit_bytes': 30, 'lo_credit_bytes': -1470}]}",
          F ": txqueues[0].send_slope_kbps: must be between -2147483648 and -1, got 980000" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'idle_slope_kbps': 20000, 'send_slope_kbps': -980000,"
              " 'hi_credit_bytes': 30}]}",
          F ": txqueues[0].lo_credit_bytes: required key is missing" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'idle_slope_kbps': 0, 'send_slope_kbps': -980000,"
              " 'hi_credit_bytes': 30, 'lo_credit_bytes': -1470, 'max_frame_bytes': 1500}]}",
          F ": txqueues[0].max_frame_bytes: only valid with bandwidth_kbps (the raw values need no frame sizes)\n"
          F ": txqueues[0].idle_slope_kbps: must be between 1 and 2147483647, got 0" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 1000000, 'max_frame_bytes': 1500,"
              " 'link_speed_mbps': 1000}]}",
          F ": txqueues[0].bandwidth_kbps: must be below the link's rate of 1000000 kbit/s (link speed 1000 Mbit/s), "
          "got 1000000" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 600000, 'max_frame_bytes': 1500,"
              " 'link_speed_mbps': 1000},"
              " {'queue': 1, 'qdisc': 'cbs', 'idle_slope_kbps': 500000, 'send_slope_kbps': -500000,"
              " 'hi_credit_bytes': 750, 'lo_credit_bytes': -750}]}",
          F ": txqueues: the cbs queues reserve 1100000 kbit/s in all (the sum of their idle slopes), more than the "
          "link's 1000000 kbit/s (1000 Mbit/s)" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 100, 'max_frame_bytes': 1500,"
              " 'link_speed_mbps': 1000},"
              " {'queue': 1, 'qdisc': 'cbs', 'bandwidth_kbps': 100, 'max_frame_bytes': 1500,"
              " 'link_speed_mbps': 100}]}",
          F ": txqueues[1].link_speed_mbps: is 100, but txqueues[0] says 1000: a link has one speed" },
        { TA, "{'root': {'mode': 'txtime-assist'}, 'txqueues': [{'queue': 0, 'qdisc': 'cbs',"
              " 'bandwidth_kbps': 100, 'max_frame_bytes': 1500}]}",
          F ": root.mode: txtime-assist needs an etf qdisc on at least one TX queue, but txqueues has no etf, on a queue or as a cbs's child" },
        /* monitor (launch-time monitoring of an etf queue) */
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': true}]}",
          F ": txqueues[0].monitor: must be an object, got true" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'interval_ms': 99}}]}",
          F ": txqueues[0].monitor.interval_ms: must be between 100 and 3600000, got 99" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'interval_ms': 3600001}}]}",
          F ": txqueues[0].monitor.interval_ms: must be between 100 and 3600000, got 3600001" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'frames': 0}}]}",
          F ": txqueues[0].monitor.frames: must be between 1 and 64, got 0" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'frames': 65}}]}",
          F ": txqueues[0].monitor.frames: must be between 1 and 64, got 65" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'frames': 1.5}}]}",
          F ": txqueues[0].monitor.frames: must be an integer, got 1.5" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'interval_ms': null}}]}",
          F ": txqueues[0].monitor.interval_ms: must not be null; leave the key out to get the default" },
        { MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {'interval': 1000}}]}",
          F ": txqueues[0].monitor.interval: unknown key; known keys: interval_ms, frames" },
        { MQ, "{'txqueues': [{'queue': 0, 'qdisc': 'cbs', 'bandwidth_kbps': 20000, 'max_frame_bytes': 1500,"
              " 'monitor': {}}]}",
          F ": txqueues[0].monitor: only valid for an etf queue (\"qdisc\": \"etf\")" },
        { MQ, "{'txqueues': [{'queue': 2, 'delta_ns': 5, 'monitor': {}}]}",
          F ": txqueues[0].monitor: queue 2 shares traffic class 2 with 1 other queue; the kernel spreads a "
          "class's flows over its queues, so probe frames cannot be aimed at one of them; give the monitored "
          "queue a traffic class of its own" },
        { MQ, "{'root': {'priority_map': [2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]},"
              " 'txqueues': [{'queue': 1, 'delta_ns': 5, 'monitor': {}}]}",
          F ": txqueues[0].monitor: no socket priority maps to traffic class 1 of queue 1 (root.priority_map), so "
          "no probe frame can reach it" },
        { TA, "{'root': {'entries': [{'gate_mask': 6, 'interval_ns': 300000}, {'gate_mask': 6, 'interval_ns': 700000}]},"
              " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'monitor': {}}]}",
          F ": txqueues[0].monitor: traffic class 0 of queue 0 never opens in the gate list (root.entries): taprio "
          "drops every launch time of the class, so no probe frame can pass" },
        /* streams (docs/streams.md) */
#define ST_A "{'name': 'a', 'traffic_class': 0, 'period_ns': 1000000, 'offset_ns': 0, 'max_frame_bytes': 128}"
        { TA, "{'root': {'streams': [" ST_A "]}}", F ": root.entries: give either entries or streams, not both" },
        { TA, "{'root': {'entries': null, 'cycle_time_ns': 1000000, 'streams': [" ST_A "]}}",
          F ": root.cycle_time_ns: is computed from the streams (the least common multiple of their periods): "
          "leave it out" },
        { TA, "{'root': {'link_speed_mbps': 1000}}",
          F ": root.link_speed_mbps: only valid with \"streams\" (the gate list is computed from them)" },
        { TA, "{'root': {'entries': null, 'guard_frame_bytes': 0, 'streams': [" ST_A "]}}",
          F ": root.guard_frame_bytes: must be between 1 and 65535, got 0" },
        { MQ, "{'root': {'streams': [" ST_A "]}}", F ": root.streams: only valid for a taprio root" },
        { TA, "{'root': {'entries': null, 'streams': []}}", F ": root.streams: must have at least one stream" },
        { TA, "{'root': {'entries': null, 'streams': {}}}", F ": root.streams: must be an array, got an object" },
        { TA, "{'root': {'entries': null, 'streams': [" ST_A ", {'name': 'a b', 'traffic_class': 3,"
              " 'period_ns': 0, 'offset_ns': 5, 'frames_per_period': 0, 'size': 1}]}}",
          F ": root.streams[1].size: unknown key; known keys: name, traffic_class, period_ns, offset_ns, "
          "max_frame_bytes, frames_per_period\n"
          F ": root.streams[1].name: must be 1 to 64 letters, digits, '_', '-' or '.', got \"a b\"\n"
          F ": root.streams[1].traffic_class: must be below num_tc (3), got 3\n"
          F ": root.streams[1].period_ns: must be between 1 and 2147483647, got 0\n"
          F ": root.streams[1].max_frame_bytes: required key is missing\n"
          F ": root.streams[1].frames_per_period: must be between 1 and 65535, got 0" },
        { TA, "{'root': {'entries': null, 'streams': [" ST_A ", {'name': 'a', 'traffic_class': 1,"
              " 'period_ns': 1000, 'offset_ns': 1000, 'max_frame_bytes': 64}]}}",
          F ": root.streams[1].offset_ns: must be below period_ns (1000): it is the window's start in its period, "
          "got 1000\n"
          F ": root.streams[1].name: \"a\" is also the name of root.streams[0]" },
        /* software mode: windows of at least 100 us, so b at 50 us runs into a */
        { TA, "{'root': {'entries': null, 'link_speed_mbps': 1000, 'streams': [" ST_A ", {'name': 'b',"
              " 'traffic_class': 1, 'period_ns': 2000000, 'offset_ns': 50000, 'max_frame_bytes': 64}]}}",
          F ": root.streams: streams \"a\" and \"b\" overlap at 50000 ns of the cycle, for 50000 ns" },
        { TA, "{'root': {'entries': null, 'link_speed_mbps': 10, 'streams': [{'name': 'v', 'traffic_class': 1,"
              " 'period_ns': 1000000, 'max_frame_bytes': 1500, 'frames_per_period': 10}]}}",
          F ": root.streams: the streams' windows take 1219.2 % of the cycle of 1000000 ns (above 100 % at "
          "10 Mbit/s)" },
#undef ST_A
        /* clock */
        { MQ, "{'clock': 'ptp4l'}", F ": clock: must be an object, got \"ptp4l\"" },
        { MQ, "{'clock': {'domain': 256}}", F ": clock.domain: must be between 0 and 255, got 256" },
        { MQ, "{'clock': {'transport_specific': 16}}", F ": clock.transport_specific: must be between 0 and 15, got 16" },
        { MQ, "{'clock': {'max_master_offset_ns': 0}}",
          F ": clock.max_master_offset_ns: must be between 1 and 9223372036854775807, got 0" },
        { MQ, "{'clock': {'max_phc_offset_ns': -1000}}",
          F ": clock.max_phc_offset_ns: must be between 1 and 9223372036854775807, got -1000" },
        { MQ, "{'clock': {'ptp4l_socket': 5}}", F ": clock.ptp4l_socket: must be a string, got 5" },
        { MQ, "{'clock': {'ptp4l_socket': ''}}", F ": clock.ptp4l_socket: must not be empty" },
        { MQ, "{'clock': {'ptp4l_socket': 'var/run/ptp4l'}}",
          F ": clock.ptp4l_socket: must be an absolute path, got \"var/run/ptp4l\"" },
};

static void test_bad_inputs(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(bad_cases); i++) {
                _cleanup_free_ char *got = diagnose(bad_cases[i].base, bad_cases[i].patch);

                if (strcmp(got, bad_cases[i].expect) != 0)
                        print_error("case %zu (%s):\n  expected: %s\n  got:      %s\n", i,
                                    bad_cases[i].patch, bad_cases[i].expect, got);
                assert_string_equal(got, bad_cases[i].expect);
        }
        /* The issue asks for at least 40 distinct refused inputs. */
        assert_true(ELEMENTSOF(bad_cases) >= 40);
}

static void test_bases_valid(void **state) {
        _cleanup_free_ char *a = diagnose(MQ, "{}"), *b = diagnose(TA, "{}");

        assert_string_equal(a, "");
        assert_string_equal(b, "");
}

/* taprio in txtime-assist mode: classes may share queues, in any order
 * and partly, as Linux 6.1 lets them (taprio_parse_mqprio_opt() skips
 * its overlap check for the mode). */
static void test_assist_overlap_valid(void **state) {
        static const char *const patches[] = {
                /* the i210 shape: every class on queue 0 */
                "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
                " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}]},"
                " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}]}",
                /* partly overlapping, out of order */
                "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
                " 'queues': [{'count': 2, 'offset': 1}, {'count': 2, 'offset': 0}, {'count': 1, 'offset': 0}]},"
                " 'txqueues': [{'queue': 2, 'delta_ns': 200000, 'skip_sock_check': true}]}",
                /* a monitor on the shared queue: class 0 (priority 3) has it alone and opens */
                "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
                " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}, {'count': 1, 'offset': 0}]},"
                " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true, 'monitor': {}}]}",
                /* the usual contiguous ranges stay valid */
                "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000},"
                " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}]}",
        };

        for (size_t i = 0; i < ELEMENTSOF(patches); i++) {
                _cleanup_free_ char *got = diagnose(TA, patches[i]);

                if (strcmp(got, "") != 0)
                        print_error("case %zu: %s\n", i, got);
                assert_string_equal(got, "");
        }

        /* Against a device: the ranges within its queues, and no more
         * classes than it has queues (the kernel's "Number of traffic
         * classes is greater than number of HW queues"). */
        {
                _cleanup_free_ char *text = patched(TA, patches[0]);
                _cleanup_schedule_ Schedule *s = NULL;
                DeviceFacts two = { .tx_queues = 2 }, three = { .tx_queues = 3 };
                DiagList l = {};
                _cleanup_free_ char *got = NULL;

                assert_int_equal(schedule_parse_json(F, text, strlen(text), &l, &s), 0);
                assert_int_equal(schedule_verify(s, &three, &l), 0);
                assert_int_equal(l.n, 0);
                assert_int_equal(schedule_verify(s, &two, &l), -EINVAL);
                got = join_diags(&l);
                assert_string_equal(got, F ": root.num_tc: is 3, but the device has 2 TX queues; taprio takes at "
                                    "most one traffic class per TX queue, also where classes share queues");
                diag_list_clear(&l);
        }
}

/* The example line of the issue, with its file name. */
static void test_issue_example_line(void **state) {
        _cleanup_free_ char *text = patched(MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 1}, {'queue': 1, 'delta_ns': -5}]}");
        _cleanup_free_ char *got = diagnose_text("schedules.d/eth0.json", text, strlen(text));

        assert_string_equal(got, "schedules.d/eth0.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -5");
}

/* Every error of a file is reported, in file order, not only the first. */
static void test_all_errors_reported(void **state) {
        _cleanup_free_ char *parse_errors = diagnose(MQ,
                "{'interface': 'a/b', 'colour': 'red',"
                " 'root': {'num_tc': 99, 'hw_offload': 0},"
                " 'txqueues': [{'queue': -1, 'delta_ns': -5, 'offload': 'maybe'}],"
                " 'clock': {'domain': 'x'}}");
        _cleanup_free_ char *rule_errors = diagnose(TA,
                "{'root': {'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 5],"
                "          'queues': [{'count': 1, 'offset': 1}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 2}],"
                "          'cycle_time_ns': 10, 'mode': 'txtime-assist'},"
                " 'txqueues': [{'queue': 0, 'delta_ns': 5, 'clockid': 'TAI'}, {'queue': 0, 'delta_ns': 5,"
                "               'skip_sock_check': true}]}");

        assert_string_equal(parse_errors,
                F ": colour: unknown key; known keys: interface, root, txqueues, clock, drift, sockets, allow, mac_merge\n"
                F ": interface: must not contain '/', got \"a/b\"\n"
                F ": root.num_tc: must be between 1 and 16, got 99\n"
                F ": root.hw_offload: must be a boolean, got 0 (tc's notation; write false)\n"
                F ": txqueues[0].queue: must be between 0 and 65534, got -1\n"
                F ": txqueues[0].delta_ns: must be between 0 and 2147483647, got -5\n"
                F ": txqueues[0].offload: must be true, false or \"auto\", got \"maybe\"\n"
                F ": clock.domain: must be an integer, got \"x\"");
        assert_string_equal(rule_errors,
                F ": root.priority_map[15]: traffic class 5 does not exist (num_tc is 3)\n"
                F ": root.cycle_time_ns: must be at least the sum of the entries' intervals (1000000), got 10\n"
                F ": txqueues[0].queue: queue 0 is in no traffic class of root.queues\n"
                F ": txqueues[0].skip_sock_check: warning: taprio in txtime-assist mode stamps every packet with a "
                "launch time, and etf drops stamped packets from sockets without SO_TXTIME; set skip_sock_check "
                "to true unless every sender uses SO_TXTIME\n"
                F ": txqueues[1].queue: queue 0 is already configured by txqueues[0]");
}

/* Warnings alone do not make a schedule invalid. */
static void test_warning_only(void **state) {
        _cleanup_free_ char *text = patched(TA, "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 300000}}");
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, text, strlen(text), &l, &s), 0);
        assert_int_equal(schedule_verify(s, NULL, &l), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.items[0].severity, DIAG_WARNING);
        assert_string_equal(l.items[0].path, "txqueues[0].skip_sock_check");
        assert_int_equal(diag_errors(&l), 0);
        diag_list_clear(&l);
}

/* A preemptible class without the MAC merge layer's transmit side is a
 * warning (files with fp stay valid; docs/schedule-format.md). */
static void test_fp_without_mac_merge(void **state) {
        _cleanup_free_ char *text = patched(MQ, "{'root': {'hw_offload': true, 'fp': ['E', 'E', 'P']}}");
        _cleanup_free_ char *ok = patched(MQ, "{'root': {'hw_offload': true, 'fp': ['E', 'E', 'P']},"
                                              " 'mac_merge': {'tx_enabled': true}}");
        _cleanup_schedule_ Schedule *s = NULL, *t = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, text, strlen(text), &l, &s), 0);
        assert_int_equal(schedule_verify(s, NULL, &l), 0);
        assert_int_equal(l.n, 1);
        assert_int_equal(l.items[0].severity, DIAG_WARNING);
        assert_string_equal(l.items[0].path, "root.fp");
        diag_list_clear(&l);
        assert_int_equal(schedule_parse_json(F, ok, strlen(ok), &l, &t), 0);
        assert_int_equal(schedule_verify(t, NULL, &l), 0);
        assert_int_equal(l.n, 0);
        assert_true(t->mac_merge.configured && t->mac_merge.tx_given && t->mac_merge.tx_enabled);
        assert_false(t->mac_merge.pmac_given);
}

/* Text with a NUL byte, and text that is not NUL-terminated. */
static void test_raw_bytes(void **state) {
        static const char with_nul[] = "{\"interface\":\n \"eth0\"\0}";
        static const char no_nul[] = { '{', '}', 'X' };
        _cleanup_free_ char *a = diagnose_text(F, with_nul, sizeof(with_nul) - 1);
        _cleanup_free_ char *b = diagnose_text(F, no_nul, 2);
        _cleanup_free_ char *c = diagnose_text(NULL, "[]", 2);
        _cleanup_free_ char *d = diagnose_text(F, "{\"interface\": \"\xff\"}", 18);

        assert_string_equal(a, F ": line 2, column 8: syntax error: NUL byte");
        assert_string_equal(b, F ": interface: required key is missing\n" F ": root: required key is missing");
        assert_string_equal(c, "the file must hold a JSON object, got an array");
        assert_string_equal(d, F ": line 1, column 16: syntax error: invalid UTF-8 in a string");
}

/* What json-c's tokener took and a strict reader (lib/json-strict.c) and
 * the field checks refuse (issue 21): each raw document, byte for byte,
 * with its exact line. Documents are written with real double quotes. */
#define RAW_ROOT "\"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1, \"priority_map\": " \
                 "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], \"queues\": [{\"count\": 1, \"offset\": 0}]}"
#define RAW(members) "{" RAW_ROOT ", " members "}"
#define RAW_IF(name) RAW("\"interface\": \"" name "\"")

static const struct {
        const char *text;
        const char *expect;
} strict_cases[] = {
        /* Interface names: strict UTF-8 (overlong, surrogate, above
         * U+10FFFF, cut short), the kernel's whitespace */
        { RAW_IF("k\xC0\xAF"), F ": line 1, column 149: syntax error: invalid UTF-8 in a string" },
        { RAW_IF("k\xE0\x80\xAF"), F ": line 1, column 149: syntax error: invalid UTF-8 in a string" },
        { RAW_IF("k\xED\xA0\x80"), F ": line 1, column 149: syntax error: invalid UTF-8 in a string" },
        { RAW_IF("k\xF4\x90\x80\x80"), F ": line 1, column 149: syntax error: invalid UTF-8 in a string" },
        { RAW_IF("k\xC3"), F ": line 1, column 149: syntax error: invalid UTF-8 in a string" },
        { RAW_IF("k\\uD800"), F ": line 1, column 149: syntax error: invalid \\u escape: a high surrogate without a low one" },
        { RAW_IF("k\\uDC00x"), F ": line 1, column 149: syntax error: invalid \\u escape: a low surrogate without a high one" },
        { RAW_IF("k\\u12"), F ": line 1, column 149: syntax error: invalid \\u escape; expected four hex digits" },
        { RAW_IF("k\\x41"), F ": line 1, column 149: syntax error: invalid escape sequence" },
        { RAW_IF("\\u00e0"), F ": interface: must not contain the byte 0xa0 (the kernel counts it as whitespace), got \"\xc3\xa0\"" },
        { RAW_IF("a\\u000bb"), F ": interface: must not contain whitespace, got \"a\\u000bb\"" },
        { RAW_IF("e\\u0000"), F ": interface: must not contain a NUL character, got \"e\\u0000\"" },
        /* Not JSON: single quotes, raw control characters, comments,
         * trailing commas, NaN and friends, a plus sign, BOM */
        { "{'interface': \"eth0\", " RAW_ROOT "}", F ": line 1, column 2: syntax error: strings and keys must be in double quotes" },
        { RAW("\"interface\": 'eth0'"), F ": line 1, column 147: syntax error: strings and keys must be in double quotes" },
        { RAW_IF("et\th0"), F ": line 1, column 150: syntax error: control character in a string; write it as an escape (\\n, \\t, \\u001b)" },
        { RAW_IF("e\x1b[2Jth0"), F ": line 1, column 149: syntax error: control character in a string; write it as an escape (\\n, \\t, \\u001b)" },
        { RAW("\"interface\": \"eth0\" /* c */"), F ": line 1, column 154: syntax error: unexpected character" },
        { RAW("\"interface\": \"eth0\", \"txqueues\": [{\"queue\": 0, \"delta_ns\": 5},]"),
          F ": line 1, column 196: syntax error: unexpected character" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": NaN}"), F ": line 1, column 175: syntax error: unexpected character" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": -Infinity}"), F ": line 1, column 176: syntax error: number expected" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": +1}"), F ": line 1, column 175: syntax error: unexpected character" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 1.}"), F ": line 1, column 177: syntax error: digit expected after the decimal point" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 1e}"), F ": line 1, column 177: syntax error: digit expected in the exponent" },
        { "\xEF\xBB\xBF" RAW_IF("eth0"),
          F ": line 1, column 1: syntax error: a byte-order mark is not JSON; save the file as UTF-8 without it" },
        /* Duplicate keys (json-c kept the last one), a NUL in a key */
        { RAW("\"interface\": \"eth0\", \"interface\": \"eth1\""), F ": line 1, column 155: syntax error: duplicate key \"interface\"" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 1, \"domain\": 2}"),
          F ": line 1, column 178: syntax error: duplicate key \"domain\"" },
        { RAW("\"interface\": \"eth0\", \"dri\\u0000ft\": 1"),
          F ": line 1, column 155: syntax error: a key must not contain a NUL character (\\u0000)" },
        /* Nesting */
        { RAW("\"interface\": \"eth0\", \"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"),
          F ": line 1, column 191: syntax error: nesting too deep" },
        /* Integers beyond 64 bits: the field, its range and the number as
         * written (json-c showed 18446744073709551615 for all of them) */
        /* Up to 18 digits the reader takes the value itself, from 19 on
         * through strtoll/strtoull: the same values either side. */
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 999999999999999999}"),
          F ": clock.domain: must be between 0 and 255, got 999999999999999999" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": -999999999999999999}"),
          F ": clock.domain: must be between 0 and 255, got -999999999999999999" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 1000000000000000000}"),
          F ": clock.domain: must be between 0 and 255, got 1000000000000000000" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"max_phc_offset_ns\": 9223372036854775807, \"domain\": -0}"),
          "" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 18446744073709551616}"),
          F ": clock.domain: must be between 0 and 255, got 18446744073709551616" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"max_phc_offset_ns\": 100000000000000000000000000000}"),
          F ": clock.max_phc_offset_ns: must be between 1 and 9223372036854775807, got 100000000000000000000000000000" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"max_phc_offset_ns\": -9223372036854775809}"),
          F ": clock.max_phc_offset_ns: must be between 1 and 9223372036854775807, got -9223372036854775809" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"max_phc_offset_ns\": 18446744073709551615}"),
          F ": clock.max_phc_offset_ns: must be between 1 and 9223372036854775807, got 18446744073709551615" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 1e400}"), F ": clock.domain: must be an integer, got 1e400" },
        /* Strings with a restricted syntax: handles, enums, paths */
        { RAW("\"interface\": \"eth0\", \"drift\": \"report\\u0000x\""),
          F ": drift: must not contain a NUL character, got \"report\\u0000x\"" },
        { RAW("\"interface\": \"eth0\", \"drift\": \"report\\n\""), F ": drift: must not contain control characters, got \"report\\n\"" },
        { RAW("\"interface\": \"eth0\", \"clock\": {\"ptp4l_socket\": \"/run/\\u009b2J\"}"),
          F ": clock.ptp4l_socket: must not contain control characters, got \"/run/\\u009b2J\"" },
};

/* Root handles: exactly MAJ:[MIN] in hex (strtoul() took " 100:",
 * "+100:", "0x100:", and tc's "100" without the colon). */
static const char *const bad_handles[] = {
        " 100:", "100: ", "+100:", "-1:", "0x100:", "100", "10000:", "1:2:3", ":", "100:x", "100:12345", "1 00:",
};

static void test_strict_json(void **state) {
        size_t failed = 0;

        for (size_t i = 0; i < ELEMENTSOF(strict_cases); i++) {
                _cleanup_free_ char *got = diagnose_text(F, strict_cases[i].text, strlen(strict_cases[i].text));

                if (strcmp(got, strict_cases[i].expect) != 0) {
                        print_error("case %zu:\n  expected: %s\n  got:      %s\n", i, strict_cases[i].expect, got);
                        failed++;
                }
        }
        assert_int_equal(failed, 0);
        for (size_t i = 0; i < ELEMENTSOF(bad_handles); i++) {
                _cleanup_free_ char *patch = NULL, *got = NULL, *expect = NULL;

                assert_true(asprintf(&patch, "{'root': {'handle': '%s'}}", bad_handles[i]) > 0);
                assert_true(asprintf(&expect, F ": root.handle: must be a qdisc handle such as \"100:\", got \"%s\"",
                                     bad_handles[i]) > 0);
                got = diagnose(MQ, patch);
                assert_string_equal(got, expect);
        }
}

/* What the strict reader still takes: every escape, a surrogate pair, an
 * interface name with a control character the kernel allows (ESC), the
 * handle forms, numbers at the edges of the ranges. */
static void test_strict_json_accepts(void **state) {
        static const char *const good[] = {
                RAW_IF("k\\uD83D\\uDE00"),
                RAW_IF("e\\u001b[1m"),
                RAW_IF("a\\\"\\\\\\u0041\\b"),
                RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": 255, \"max_phc_offset_ns\": 9223372036854775807}"),
                RAW("\"interface\": \"eth0\", \"clock\": {\"domain\": -0}"),
                "\r\n\t " RAW_IF("eth0") " \r\n\t",
        };
        static const char *const handles[] = { "100:", "A:", "ffFe:", "0001:", "1:0", "1:0000" };

        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                _cleanup_free_ char *got = diagnose_text(F, good[i], strlen(good[i]));

                if (*got)
                        print_error("case %zu: %s\n", i, got);
                assert_string_equal(got, "");
        }
        for (size_t i = 0; i < ELEMENTSOF(handles); i++) {
                _cleanup_free_ char *patch = NULL, *text = NULL;
                _cleanup_schedule_ Schedule *s = NULL;
                DiagList l = {};

                assert_true(asprintf(&patch, "{'root': {'handle': '%s'}}", handles[i]) > 0);
                text = patched(MQ, patch);
                assert_int_equal(schedule_parse_json(F, text, strlen(text), &l, &s), 0);
                assert_int_equal(s->root.handle >> 16, strtoul(handles[i], NULL, 16));
                diag_list_clear(&l);
        }
}

static void test_defaults(void **state) {
        _cleanup_free_ char *mq = patched(MQ, "{'clock': {}}"), *ta = dq(TA);
        _cleanup_schedule_ Schedule *m = NULL, *t = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, mq, strlen(mq), &l, &m), 0);
        assert_int_equal(schedule_parse_json(F, ta, strlen(ta), &l, &t), 0);
        assert_int_equal(l.n, 0);

        assert_string_equal(m->source, F);
        assert_string_equal(m->ifname, "eth0");
        assert_int_equal(m->root.kind, ROOT_MQPRIO);
        assert_int_equal(m->root.handle, TBS_DEFAULT_ROOT_HANDLE);
        assert_int_equal(m->root.num_tc, 3);
        assert_int_equal(m->root.priority_map[3], 0);
        assert_int_equal(m->root.priority_map[2], 1);
        assert_int_equal(m->root.queues[2].count, 2);
        assert_int_equal(m->root.queues[2].offset, 2);
        assert_false(m->root.mqprio.hw_offload);
        assert_int_equal(m->n_txqueues, 2);
        assert_int_equal(m->txqueues[0].etf.clockid, CLOCK_TAI);
        assert_int_equal(m->txqueues[0].offload, OFFLOAD_AUTO);
        assert_int_equal(m->txqueues[0].etf.delta_ns, 200000);
        assert_false(m->txqueues[0].spelled_tbs);
        assert_true(m->txqueues[1].spelled_tbs);
        assert_int_equal(m->txqueues[1].offload, OFFLOAD_OFF);
        assert_false(m->txqueues[0].monitor.enabled);
        assert_true(m->clock.configured);
        assert_null(m->clock.ptp4l_socket);
        assert_int_equal(m->clock.max_master_offset_ns, 100);
        assert_int_equal(m->clock.max_phc_offset_ns, 1000);

        assert_int_equal(t->root.kind, ROOT_TAPRIO);
        assert_int_equal(t->root.taprio.clockid, CLOCK_TAI);
        assert_int_equal(t->root.taprio.mode, TAPRIO_MODE_SOFTWARE);
        assert_int_equal(t->root.taprio.base_time_ns, 1000);
        assert_int_equal(t->root.taprio.cycle_time_ns, 1000000);
        assert_false(t->root.taprio.cycle_time_given);
        assert_int_equal(t->root.taprio.n_entries, 2);
        assert_int_equal(t->root.taprio.entries[0].command, GATE_SET_GATES);
        assert_int_equal(t->root.taprio.entries[1].gate_mask, 0x6);
        assert_int_equal(t->root.taprio.entries[1].interval_ns, 700000);
        assert_false(t->clock.configured);
}

/* "monitor": {} takes both defaults; the written form names them; the
 * setting is no part of the installed tree (etf_spec_equal ignores it). */
static void test_monitor(void **state) {
        _cleanup_free_ char *t = patched(MQ, "{'txqueues': [{'queue': 0, 'delta_ns': 5, 'monitor': {}},"
                                             " {'queue': 1, 'delta_ns': 5, 'monitor': {'frames': 8}}]}");
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_json_ json_object *j = NULL;
        json_object *q, *m;
        MonitorSpec off = {}, a, b;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, t, strlen(t), &l, &s), 0);
        assert_int_equal(l.n, 0);
        assert_true(s->txqueues[0].monitor.enabled);
        assert_int_equal(s->txqueues[0].monitor.interval_ms, 1000);
        assert_int_equal(s->txqueues[0].monitor.frames, 4);
        assert_int_equal(s->txqueues[1].monitor.interval_ms, 1000);
        assert_int_equal(s->txqueues[1].monitor.frames, 8);

        j = schedule_to_json(s);
        assert_non_null(j);
        assert_true(json_object_object_get_ex(j, "txqueues", &q));
        assert_true(json_object_object_get_ex(json_object_array_get_idx(q, 0), "monitor", &m));
        assert_string_equal(json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN),
                            "{\"interval_ms\":1000,\"frames\":4}");

        a = s->txqueues[0].monitor;
        b = a;
        assert_true(monitor_spec_equal(&a, &b));
        b.frames = 5;
        assert_false(monitor_spec_equal(&a, &b));
        assert_false(monitor_spec_equal(&a, &off));
        /* off: the numbers do not matter */
        a = (MonitorSpec) { .interval_ms = 7 };
        assert_true(monitor_spec_equal(&a, &off));
        s->txqueues[1].monitor = off;
        s->txqueues[1].queue = 0;
        assert_true(etf_spec_equal(&s->txqueues[0], &s->txqueues[1]));
}

static bool schedules_equal(const Schedule *a, const Schedule *b) {
        if (a->root.taprio.base_time_now != b->root.taprio.base_time_now || a->root.taprio.change_margin_ns != b->root.taprio.change_margin_ns ||
            a->root.taprio.max_sdu_given != b->root.taprio.max_sdu_given || a->root.fp_given != b->root.fp_given ||
            a->root.n_fp != b->root.n_fp)
                return false;
        if (strcmp(a->ifname, b->ifname) != 0 || !root_spec_equal(&a->root, &b->root) ||
            a->root.taprio.cycle_time_given != b->root.taprio.cycle_time_given || a->n_txqueues != b->n_txqueues)
                return false;
        for (size_t i = 0; i < a->n_txqueues; i++)
                if (!etf_spec_equal(&a->txqueues[i], &b->txqueues[i]) ||
                    a->txqueues[i].spelled_tbs != b->txqueues[i].spelled_tbs ||
                    !monitor_spec_equal(&a->txqueues[i].monitor, &b->txqueues[i].monitor))
                        return false;
        return a->clock.configured == b->clock.configured &&
               (a->clock.ptp4l_socket ? b->clock.ptp4l_socket && strcmp(a->clock.ptp4l_socket, b->clock.ptp4l_socket) == 0
                                      : !b->clock.ptp4l_socket) &&
               a->clock.domain == b->clock.domain && a->clock.transport_specific == b->clock.transport_specific &&
               a->clock.max_master_offset_ns == b->clock.max_master_offset_ns &&
               a->clock.max_phc_offset_ns == b->clock.max_phc_offset_ns &&
               a->clock.ptp_priority == b->clock.ptp_priority && a->allow == b->allow &&
               (a->sockets.group ? b->sockets.group && strcmp(a->sockets.group, b->sockets.group) == 0
                                 : !b->sockets.group) &&
               a->sockets.n_ethertypes == b->sockets.n_ethertypes &&
               memcmp(a->sockets.ethertypes, b->sockets.ethertypes, sizeof(a->sockets.ethertypes)) == 0 &&
               memcmp(&a->mac_merge, &b->mac_merge, sizeof(a->mac_merge)) == 0;
}

/* parse -> verify clean -> to_json -> parse again -> equal model. */
static void round_trip(const char *name, const char *text, size_t len) {
        _cleanup_schedule_ Schedule *a = NULL, *b = NULL;
        _cleanup_json_ json_object *j = NULL;
        _cleanup_free_ char *lines = NULL;
        const char *out;
        DiagList l = {};

        (void) schedule_parse_json(name, text, len, &l, &a);
        if (a)
                (void) schedule_verify(a, NULL, &l);
        lines = join_diags(&l);
        assert_string_equal(lines, "");      /* no warnings either */
        j = schedule_to_json(a);
        assert_non_null(j);
        out = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY);
        assert_int_equal(schedule_parse_json("out.json", out, strlen(out), &l, &b), 0);
        assert_true(schedules_equal(a, b));
        assert_int_equal(l.n, 0);
}

static void test_round_trip_cases(void **state) {
        static const char *const patches[] = {
                "{}",
                "{'root': {'hw_offload': true, 'fp': ['P', 'E', 'P']}, 'mac_merge': {'tx_enabled': true}}",
                "{'mac_merge': {'pmac_enabled': true, 'tx_enabled': true, 'verify_enabled': true,"
                "               'verify_time_ms': 128, 'tx_min_frag_bytes': 252}}",
                "{'mac_merge': {'tx_enabled': false, 'verify_time_ms': 1, 'tx_min_frag_bytes': 60}}",
                "{'mac_merge': {'pmac_enabled': false}}",
                "{'root': {'handle': '8001:', 'hw_offload': true},"
                " 'clock': {'ptp4l_socket': '/run/ptp4l-eth0', 'domain': 24, 'transport_specific': 1,"
                "           'max_master_offset_ns': 50, 'max_phc_offset_ns': 500, 'ptp_priority': 4}}",
                "{'txqueues': [{'queue': 3, 'qdisc': 'etf', 'clockid': 'TAI', 'delta_ns': 0, 'offload': true,"
                "               'deadline_mode': true, 'skip_sock_check': true}], 'allow': ['ptp-etf']}",
                "{'sockets': {'group': 'ctrl-apps'}}",
                "{'sockets': {'group': '_tsn.app$'}}",
                "{'sockets': {'group': 'ctrl-apps', 'ethertypes': ['0x88f7', 2054, '0X88CC']}}",
                "{'sockets': {'ethertypes': [34997]}}",
                "{'txqueues': [{'queue': 0, 'delta_ns': 200000, 'monitor': {}},"
                "              {'queue': 1, 'delta_ns': 300000, 'monitor': {'interval_ms': 100, 'frames': 64}}]}",
                "{'txqueues': [{'queue': 1, 'delta_ns': 300000, 'monitor': {'interval_ms': 3600000, 'frames': 1}}]}",
        };
        static const char *const taprio_patches[] = {
                "{}",
                "{'root': {'cycle_time_ns': 2147483647, 'cycle_time_extension_ns': 1000, 'clockid': 'CLOCK_MONOTONIC',"
                "          'entries': [{'command': 'set-and-hold', 'gate_mask': 7, 'interval_ns': 100000},"
                "                      {'command': 'set-and-release', 'gate_mask': '0X0', 'interval_ns': 2147383647}]},"
                " 'allow': ['base-time']}",
                "{'root': {'mode': 'txtime-assist', 'txtime_delay_ns': 0},"
                " 'txqueues': [{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}],"
                " 'allow': ['delta-cycle', 'assist-delay']}",
                "{'root': {'mode': 'full-offload'}}",
                "{'root': {'base_time_ns': 'now', 'change_margin_ns': 2000000000, 'max_sdu': [0, 1500, 300]}}",
                "{'root': {'fp': ['E', 'E', 'E']}}",
                "{'root': {'mode': 'full-offload', 'max_sdu': [0, 1500, 300], 'fp': ['E', 'P', 'P']},"
                " 'mac_merge': {'tx_enabled': true, 'verify_enabled': true, 'verify_time_ms': 10}}",
        };

        for (size_t i = 0; i < ELEMENTSOF(patches); i++) {
                _cleanup_free_ char *t = patched(MQ, patches[i]);
                round_trip(F, t, strlen(t));
        }
        for (size_t i = 0; i < ELEMENTSOF(taprio_patches); i++) {
                _cleanup_free_ char *t = patched(TA, taprio_patches[i]);
                round_trip(F, t, strlen(t));
        }
}

/* The written form: handle "100:", hex gate masks, CLOCK_TAI, tbs kept. */
static void test_to_json_form(void **state) {
        _cleanup_free_ char *ta = dq(TA), *mq = dq(MQ);
        _cleanup_schedule_ Schedule *t = NULL, *m = NULL;
        _cleanup_json_ json_object *tj = NULL, *mj = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, ta, strlen(ta), &l, &t), 0);
        assert_int_equal(schedule_parse_json(F, mq, strlen(mq), &l, &m), 0);
        tj = schedule_to_json(t);
        mj = schedule_to_json(m);
        assert_non_null(tj);
        assert_non_null(mj);
        assert_string_equal(json_object_to_json_string_ext(tj, JSON_C_TO_STRING_PLAIN),
                "{\"interface\":\"eth1\",\"root\":{\"qdisc\":\"taprio\",\"handle\":\"100:\",\"num_tc\":3,"
                "\"priority_map\":[2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "\"queues\":[{\"count\":1,\"offset\":0},{\"count\":1,\"offset\":1},{\"count\":2,\"offset\":2}],"
                "\"clockid\":\"CLOCK_TAI\",\"base_time_ns\":1000,\"mode\":\"software\","
                "\"entries\":[{\"command\":\"set-gates\",\"gate_mask\":\"0x1\",\"interval_ns\":300000},"
                "{\"command\":\"set-gates\",\"gate_mask\":\"0x6\",\"interval_ns\":700000}]},"
                "\"txqueues\":[{\"queue\":0,\"qdisc\":\"etf\",\"clockid\":\"CLOCK_TAI\",\"delta_ns\":200000,"
                "\"offload\":\"auto\",\"deadline_mode\":false,\"skip_sock_check\":false}]}");
        assert_string_equal(json_object_to_json_string_ext(json_get(json_get(mj, "root"), "handle"), 0), "\"100:\"");
        assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(json_get(mj, "txqueues"), 1), 0),
                "{\"queue\":1,\"qdisc\":\"tbs\",\"clockid\":\"CLOCK_TAI\",\"delta_ns\":500000,"
                "\"offload\":false,\"deadline_mode\":false,\"skip_sock_check\":false}");
        assert_null(json_get(mj, "clock"));
        assert_int_equal(l.n, 0);
}

static void test_examples(void **state) {
        static const char *const names[] = {
                "i210-mqprio-launchtime.json",
                "i210-mqprio-cbs.json",
                "i210-mqprio-cbs-etf.json",
                "i210-taprio-txtime-assist.json",
                "i225-taprio-txtime-assist.json",
                "single-queue-etf.json",
                "veth-software.json",
                "veth-streams.json",
                "veth-taprio-short-gates.json",
        };

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                _cleanup_free_ char *path = NULL, *text = NULL;
                _cleanup_schedule_ Schedule *s = NULL;
                DiagList l = {};
                size_t len;

                assert_true(asprintf(&path, "%s/examples/%s", TBS_SOURCE_DIR, names[i]) >= 0);
                assert_int_equal(schedule_read_file(path, names[i], &l, &text, &len), 0);
                round_trip(names[i], text, len);

                /* Short enough for the demo's "IFACE-peer" veth peers. */
                assert_int_equal(schedule_load_file(path, NULL, &l, &s), 0);
                assert_string_equal(s->source, path);
                assert_true(strlen(s->ifname) <= 11);
                assert_int_equal(l.n, 0);
        }
}

/* The example in docs/schedule-format.md (the issue's) is valid and round-trips. */
static void test_doc_example(void **state) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        const char *start, *end;
        DiagList l = {};
        size_t len;

        assert_true(asprintf(&path, "%s/docs/schedule-format.md", TBS_SOURCE_DIR) >= 0);
        assert_int_equal(schedule_read_file(path, NULL, &l, &text, &len), 0);
        start = strstr(text, "```json\n");
        assert_non_null(start);
        start += strlen("```json\n");
        end = strstr(start, "```");
        assert_non_null(end);
        round_trip("schedule-format.md", start, (size_t) (end - start));
}

/* Randomly damaged examples (fixed seed): the parser never fails without a
 * diagnostic, every diagnostic is one line, and what parses round-trips. */
static void test_mutations(void **state) {
        static const char *const names[] = {
                "i210-mqprio-launchtime.json", "i210-mqprio-cbs.json", "i210-taprio-txtime-assist.json",
                "i225-taprio-txtime-assist.json", "veth-software.json", "veth-streams.json",
                "i210-mqprio-cbs-etf.json", "single-queue-etf.json",
        };
        static const char *const tokens[] = {
                "\"", "{", "}", "[", "]", ",", ":", "0", "-1", "99999999999", "null", "true", "\"0x\"",
                "1.5", "\\u0000", "\"tbs\"", "\"taprio\"", "\"txtime-assist\"", "\n", "\xc3",
        };
        unsigned seed = 42, parsed = 0;

        for (size_t f = 0; f < ELEMENTSOF(names); f++) {
                _cleanup_free_ char *path = NULL, *orig = NULL;
                DiagList l = {};
                size_t n;

                assert_true(asprintf(&path, "%s/examples/%s", TBS_SOURCE_DIR, names[f]) >= 0);
                assert_int_equal(schedule_read_file(path, NULL, &l, &orig, &n), 0);
                assert_true(n < 4096);
                for (unsigned it = 0; it < 500; it++) {
                        _cleanup_schedule_ Schedule *s = NULL;
                        char buf[8192];
                        size_t len = n;

                        memcpy(buf, orig, n);
                        for (int m = 1 + rand_r(&seed) % 3; m > 0; m--) {
                                size_t pos = (size_t) rand_r(&seed) % (len + 1);
                                int op = rand_r(&seed) % 3;

                                if (op == 0 && pos < len) {
                                        memmove(buf + pos, buf + pos + 1, len - pos - 1);
                                        len--;
                                } else if (op == 1) {
                                        const char *t = tokens[rand_r(&seed) % ELEMENTSOF(tokens)];
                                        size_t tl = strlen(t);

                                        memmove(buf + pos + tl, buf + pos, len - pos);
                                        memcpy(buf + pos, t, tl);
                                        len += tl;
                                } else if (pos < len)
                                        buf[pos] = (char) (rand_r(&seed) & 0xff);
                        }
                        if (schedule_parse_json("m.json", buf, len, &l, &s) == 0) {
                                _cleanup_json_ json_object *j = schedule_to_json(s);
                                _cleanup_schedule_ Schedule *s2 = NULL;
                                const char *t;

                                (void) schedule_verify(s, NULL, &l);
                                assert_non_null(j);
                                t = json_object_to_json_string(j);
                                assert_int_equal(schedule_parse_json("r.json", t, strlen(t), &l, &s2), 0);
                                assert_true(schedules_equal(s, s2));
                                parsed++;
                        } else
                                assert_true(diag_errors(&l) > 0);
                        for (size_t i = 0; i < l.n; i++) {
                                _cleanup_free_ char *line = diag_format(&l.items[i]);

                                assert_non_null(line);
                                assert_null(strchr(line, '\n'));
                        }
                        diag_list_clear(&l);
                }
        }
        /* Some mutations (whitespace, digits) leave a valid file: both paths ran. */
        assert_true(parsed > 0);
}

static void test_load_file(void **state) {
        char dir[] = "/tmp/tbs-test-parse-XXXXXX", *big = NULL, path[64];
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL;
        DiagList l = {};
        FILE *f;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/big.json", dir);
        f = fopen(path, "we");
        assert_non_null(f);
        big = malloc(SCHEDULE_FILE_MAX + 1);
        assert_non_null(big);
        memset(big, ' ', SCHEDULE_FILE_MAX + 1);
        assert_int_equal(fwrite(big, 1, SCHEDULE_FILE_MAX + 1, f), SCHEDULE_FILE_MAX + 1);
        free(big);
        assert_int_equal(fclose(f), 0);

        assert_int_equal(schedule_load_file(path, "big.json", &l, &s), -EFBIG);
        assert_int_equal(schedule_load_file("/nonexistent/x.json", NULL, &l, &s), -ENOENT);
        assert_int_equal(schedule_load_file(dir, "a-dir", &l, &s), -EINVAL);
        assert_null(s);
        a = join_diags(&l);
        assert_string_equal(a, "big.json: the file is larger than 1048576 bytes; refusing to read it\n"
                               "/nonexistent/x.json: cannot open: No such file or directory\n"
                               "a-dir: not a regular file");
        diag_list_clear(&l);

        /* Exactly at the limit is read (and then refused as empty). */
        assert_int_equal(truncate(path, SCHEDULE_FILE_MAX), 0);
        assert_int_equal(schedule_load_file(path, "big.json", &l, &s), -EINVAL);
        b = join_diags(&l);
        assert_string_equal(b, "big.json: the file is empty; expected a JSON object");
        diag_list_clear(&l);

        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

static int peek(const char *text, char name[static IFNAMSIZ]) {
        return schedule_peek_ifname(text, strlen(text), name);
}

static void test_peek_ifname(void **state) {
        char name[IFNAMSIZ] = "untouched";

        assert_int_equal(peek("{\"interface\": \"eth7\", \"root\": 1}", name), 0);
        assert_string_equal(name, "eth7");
        assert_int_equal(peek("{\"interface\": \"a/b\"}", name), -ENOENT);
        assert_int_equal(peek("{\"interface\": 5}", name), -ENOENT);
        assert_int_equal(peek("{\"interface\": \"eth8\"", name), -ENOENT);
        assert_int_equal(peek("[]", name), -ENOENT);
        assert_string_equal(name, "eth7");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bases_valid),
                cmocka_unit_test(test_assist_overlap_valid),
                cmocka_unit_test(test_bad_inputs),
                cmocka_unit_test(test_issue_example_line),
                cmocka_unit_test(test_all_errors_reported),
                cmocka_unit_test(test_warning_only),
                cmocka_unit_test(test_fp_without_mac_merge),
                cmocka_unit_test(test_raw_bytes),
                cmocka_unit_test(test_strict_json),
                cmocka_unit_test(test_strict_json_accepts),
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_monitor),
                cmocka_unit_test(test_round_trip_cases),
                cmocka_unit_test(test_to_json_form),
                cmocka_unit_test(test_examples),
                cmocka_unit_test(test_doc_example),
                cmocka_unit_test(test_mutations),
                cmocka_unit_test(test_load_file),
                cmocka_unit_test(test_peek_ifname),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

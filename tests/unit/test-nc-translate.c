/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NETCONF side's translation (netconf/nc-translate.c): an interface's
 * nodes of ieee802-dot1q-sched and tbsd -> the schedule document, which
 * tbsd's own parser and verifier then accept (or refuse with their line);
 * the values that have no place in a document are refused with a line
 * naming the interface and the node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../netconf/nc-derive.h"
#include "../../netconf/nc-translate.h"
#include "read-all.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

/* A tree from a short text: "a=1 b{c=2 d{}}" (no spaces in values). */
static struct nc_node *parse(const char **p);

static struct nc_node *parse_one(const char **p) {
        struct nc_node *n = calloc(1, sizeof(*n));
        const char *s = *p;
        size_t len;

        assert_non_null(n);
        /* "dc:" names a node of ieee802-dot1dc-sched-if. */
        if (strncmp(s, "dc:", 3) == 0) {
                s += 3;
                n->module = "ieee802-dot1dc-sched-if";
        }
        len = strcspn(s, "={} ");
        n->name = strndup(s, len);
        assert_non_null(n->name);
        s += len;
        if (*s == '=') {
                s++;
                len = strcspn(s, "} ");
                n->value = strndup(s, len);
                s += len;
        } else {
                assert_int_equal(*s, '{');
                s++;
                n->child = parse(&s);
                assert_int_equal(*s, '}');
                s++;
        }
        *p = s;
        return n;
}

static struct nc_node *parse(const char **p) {
        struct nc_node *head = NULL, **tail = &head;

        for (;;) {
                while (**p == ' ')
                        (*p)++;
                if (**p == '\0' || **p == '}')
                        return head;
                *tail = parse_one(p);
                tail = &(*tail)->next;
        }
}

static void free_tree(struct nc_node *n) {
        while (n) {
                struct nc_node *next = n->next;
                free_tree(n->child);
                free((char *) n->name);
                free((char *) n->value);
                free(n);
                n = next;
        }
}

/* translate(TEXT) on the interface entry TEXT; returns the rc. */
static int translate(const char *text, char **json, char **error) {
        struct nc_node iface = { .name = "interface" };
        const char *ifname, *p = text;
        int r;

        iface.child = parse(&p);
        r = nc_translate_interface(&iface, &ifname, json, error);
        free_tree(iface.child);
        return r;
}

/* The document passes tbsd's parser and verifier (without a device). */
static void assert_valid(const char *json) {
        DiagList l = { 0 };
        Schedule *s = NULL;

        int r = schedule_parse_json("nc", json, strlen(json), &l, &s);
        if (r == 0)
                r = schedule_verify(s, NULL, &l);
        for (size_t i = 0; i < l.n; i++) {
                char *line = diag_format(&l.items[i]);
                if (l.items[i].severity == DIAG_ERROR)
                        fprintf(stderr, "%s\n", line);
                free(line);
        }
        assert_int_equal(r, 0);
        assert_int_equal(diag_errors(&l), 0);
        diag_list_clear(&l);
        schedule_free(s);
}

#define TBSD_ROOT3                                                                                     \
        "schedule{root{num-tc=3 priority-map{priority=2 traffic-class=2} priority-map{priority=1 "     \
        "traffic-class=1} queues{traffic-class=0 count=1 offset=0} queues{traffic-class=1 count=1 "   \
        "offset=1} queues{traffic-class=2 count=2 offset=2}"

static void test_taprio(void **state) {
        char *json, *error;
        int r = translate("name=va type=ianaift:ethernetCsmacd "
                          "gate-parameter-table{gate-enabled=true admin-gate-states=255 config-change=true "
                          "admin-control-list{"
                          "gate-control-entry{index=2 operation-name=sched:set-gate-states gate-states-value=4 "
                          "time-interval-value=300000} "
                          "gate-control-entry{index=1 operation-name=sched:set-gate-states gate-states-value=3 "
                          "time-interval-value=700000}} "
                          "admin-cycle-time{numerator=1 denominator=1000} admin-cycle-time-extension=1000 "
                          "admin-base-time{seconds=2 nanoseconds=5} "
                          "queue-max-sdu-table{traffic-class=1 queue-max-sdu=1500}} " TBSD_ROOT3
                          " clockid=CLOCK_TAI mode=software} "
                          "txqueues{queue=2 delta-ns=200000 offload=false skip-sock-check=true}}",
                          &json, &error);
        (void) state;
        assert_int_equal(r, 1);
        assert_null(error);
        assert_string_equal(
                json,
                "{\"interface\":\"va\",\"root\":{\"qdisc\":\"taprio\",\"num_tc\":3,\"clockid\":\"CLOCK_TAI\","
                "\"mode\":\"software\",\"priority_map\":[0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                "\"queues\":[{\"count\":1,\"offset\":0},{\"count\":1,\"offset\":1},{\"count\":2,\"offset\":2}],"
                "\"entries\":[{\"command\":\"set-gates\",\"gate_mask\":3,\"interval_ns\":700000},"
                "{\"command\":\"set-gates\",\"gate_mask\":4,\"interval_ns\":300000}],\"cycle_time_ns\":1000000,"
                "\"cycle_time_extension_ns\":1000,\"base_time_ns\":2000000005,\"max_sdu\":[0,1500,0]},"
                "\"txqueues\":[{\"queue\":2,\"delta_ns\":200000,\"offload\":false,\"skip_sock_check\":true}]}");
        assert_valid(json);
        free(json);
}

static void test_mqprio_etf_cbs_clock(void **state) {
        char *json, *error;
        int r = translate("name=vb " TBSD_ROOT3 " hw-offload=false handle=200:} "
                          "txqueues{queue=0 qdisc=etf clockid=CLOCK_TAI delta-ns=300000 offload=auto "
                          "deadline-mode=true} "
                          "txqueues{queue=1 qdisc=cbs idle-slope-kbps=20000 send-slope-kbps=-980000 "
                          "hi-credit-bytes=30 lo-credit-bytes=-1470 offload=false} "
                          "clock{domain=0 transport-specific=1 max-master-offset-ns=200 ptp4l-socket=/run/p} "
                          "drift=report allow=ptp-etf allow=delta-cycle}",
                          &json, &error);
        (void) state;
        assert_int_equal(r, 1);
        assert_string_equal(
                json,
                "{\"interface\":\"vb\",\"root\":{\"qdisc\":\"mqprio\",\"num_tc\":3,\"hw_offload\":false,"
                "\"handle\":\"200:\",\"priority_map\":[0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                "\"queues\":[{\"count\":1,\"offset\":0},{\"count\":1,\"offset\":1},{\"count\":2,\"offset\":2}]},"
                "\"txqueues\":[{\"queue\":0,\"qdisc\":\"etf\",\"clockid\":\"CLOCK_TAI\",\"delta_ns\":300000,"
                "\"offload\":\"auto\",\"deadline_mode\":true},{\"queue\":1,\"qdisc\":\"cbs\","
                "\"idle_slope_kbps\":20000,\"send_slope_kbps\":-980000,\"hi_credit_bytes\":30,"
                "\"lo_credit_bytes\":-1470,\"offload\":false}],\"clock\":{\"domain\":0,\"transport_specific\":1,"
                "\"max_master_offset_ns\":200,\"ptp4l_socket\":\"/run/p\"},\"drift\":\"report\","
                "\"allow\":[\"ptp-etf\",\"delta-cycle\"]}");
        assert_valid(json);
        free(json);
}

/* No schedule: neither tbsd's container nor an enabled gate table. */
static void test_none(void **state) {
        char *json, *error;
        (void) state;
        assert_int_equal(translate("name=vc type=x gate-parameter-table{gate-enabled=false}", &json, &error), 0);
        assert_null(json);
        assert_null(error);
        assert_int_equal(translate("name=vc", &json, &error), 0);
}

static void expect_error(const char *text, const char *line) {
        char *json, *error;
        assert_int_equal(translate(text, &json, &error), -1);
        assert_null(json);
        assert_non_null(error);
        assert_string_equal(error, line);
        assert_null(strchr(error, '\n'));
        free(error);
}

static void test_refused(void **state) {
        (void) state;
        /* A name with a newline and a control character: escaped, one line
         * (issue 46: it split into two rpc-errors). */
        expect_error("name=v\nd\x01 gate-parameter-table{gate-enabled=true admin-gate-states=1}",
                     "netconf: interface v\\nd\\x01: ieee802-dot1q-sched:gate-parameter-table/admin-gate-states: "
                     "1: Linux's taprio has no initial gate states (all gates are open until the list runs); "
                     "only 255 is taken");
        expect_error("name=vd gate-parameter-table{gate-enabled=true admin-cycle-time{numerator=1 denominator=3}}",
                     "netconf: interface vd: ieee802-dot1q-sched:gate-parameter-table/admin-cycle-time: "
                     "1/3 s is not a whole number of nanoseconds");
        expect_error("name=vd gate-parameter-table{gate-enabled=true admin-gate-states=1}",
                     "netconf: interface vd: ieee802-dot1q-sched:gate-parameter-table/admin-gate-states: 1: "
                     "Linux's taprio has no initial gate states (all gates are open until the list runs); "
                     "only 255 is taken");
        expect_error("name=vd gate-parameter-table{gate-enabled=true admin-base-time{seconds=9223372037 "
                     "nanoseconds=0}}",
                     "netconf: interface vd: ieee802-dot1q-sched:gate-parameter-table/admin-base-time: "
                     "9223372037 s is beyond the largest base time (9223372036854775807 ns)");
        expect_error("name=vd schedule{root{num-tc=2 queues{traffic-class=1 count=1 offset=1}}}",
                     "netconf: interface vd: tbsd:schedule/root: queues has no entry for traffic-class 0 "
                     "(entries 0 to 1 are needed)");
        expect_error("name=vd gate-parameter-table{gate-enabled=true admin-control-list{gate-control-entry{"
                     "index=0 operation-name=x:other gate-states-value=1 time-interval-value=1}}}",
                     "netconf: interface vd: ieee802-dot1q-sched:gate-parameter-table/admin-control-list/"
                     "gate-control-entry[index=0]: unknown operation-name \"other\"");
}

/* What tbsd refuses is tbsd's to say: the document is passed on as is. */
static void test_left_to_tbsd(void **state) {
        char *json, *error;
        (void) state;
        assert_int_equal(translate("name=ve gate-parameter-table{gate-enabled=true admin-control-list{"
                                   "gate-control-entry{index=0 operation-name=sched:set-gate-states "
                                   "gate-states-value=1 time-interval-value=600000}} "
                                   "admin-cycle-time{numerator=1 denominator=2000}} " TBSD_ROOT3 "}}",
                                   &json, &error),
                         1);
        DiagList l = { 0 };
        Schedule *s = NULL;
        int r = schedule_parse_json("nc", json, strlen(json), &l, &s);
        if (r == 0)
                r = schedule_verify(s, NULL, &l);
        assert_int_not_equal(r, 0);
        char *line = diag_format(&l.items[0]);
        assert_non_null(strstr(line, "root.cycle_time_ns"));
        free(line);
        diag_list_clear(&l);
        schedule_free(s);
        free(json);
}

/* The interfaces of these tests have 4 TX queues; "none0" has none. */
static int tx_queues(const char *ifname) {
        return strcmp(ifname, "none0") == 0 ? -ENOENT : 4;
}

#define DC_GATES(g0, g1)                                                                                    \
        "dc:gate-parameter-table{gate-enabled=true admin-control-list{gate-control-entry{index=0 "          \
        "operation-name=sched:set-gate-states gate-states-value=" g0 " time-interval-value=300000} "        \
        "gate-control-entry{index=1 operation-name=sched:set-gate-states gate-states-value=" g1 " "         \
        "time-interval-value=700000}} admin-cycle-time{numerator=1 denominator=1000}}"

/* issue 48: a standard-only table gets its root derived: classes from the
 * gate list (at most the queues), Table 8-5's priorities, one queue per
 * class and the rest on the last; tbsd's nodes override each. */
static void test_standard_only(void **state) {
        char *json, *error;
        (void) state;
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6"), &json, &error), 1);
        assert_string_equal(json, "{\"interface\":\"v3\",\"root\":{\"qdisc\":\"taprio\",\"num_tc\":3,"
                                  "\"priority_map\":[0,0,0,0,1,1,2,2,0,0,0,0,0,0,0,0],\"queues\":[{\"count\":1,"
                                  "\"offset\":0},{\"count\":1,\"offset\":1},{\"count\":2,\"offset\":2}],"
                                  "\"entries\":[{\"command\":\"set-gates\",\"gate_mask\":1,\"interval_ns\":300000},"
                                  "{\"command\":\"set-gates\",\"gate_mask\":6,\"interval_ns\":700000}],"
                                  "\"cycle_time_ns\":1000000}}");
        assert_valid(json);
        free(json);
        /* All gates open (255) on 4 queues: 4 classes, the other bits dropped. */
        assert_int_equal(translate("name=v4 " DC_GATES("255", "1"), &json, &error), 1);
        assert_non_null(strstr(json, "\"num_tc\":4,\"priority_map\":[0,0,1,1,2,2,3,3,0,"));
        assert_non_null(strstr(json, "\"gate_mask\":15,"));
        assert_valid(json);
        free(json);
        /* tbsd's module overrides: its num-tc, then the map and queues for it. */
        assert_int_equal(translate("name=v2 " DC_GATES("1", "2") " schedule{root{num-tc=2}}", &json, &error), 1);
        assert_non_null(strstr(json, "\"num_tc\":2,\"priority_map\":[0,0,0,0,1,1,1,1,"));
        assert_non_null(strstr(json, "\"queues\":[{\"count\":1,\"offset\":0},{\"count\":3,\"offset\":1}]"));
        assert_valid(json);
        free(json);
        expect_error("name=none0 " DC_GATES("1", "6"),
                     "netconf: interface none0: ieee802-dot1dc-sched-if:gate-parameter-table: tbsd derives the "
                     "traffic classes from the gate list and the interface's TX queues, and finds no TX queues of "
                     "the interface here: No such file or directory");
        expect_error("name=v3 " DC_GATES("1", "6") " gate-parameter-table{gate-enabled=true}",
                     "netconf: interface v3: ieee802-dot1dc-sched-if:gate-parameter-table: the interface has "
                     "ieee802-dot1q-sched:gate-parameter-table too; give one of them");
        expect_error("name=v3 dc:gate-parameter-table{gate-enabled=true admin-cycle-time{numerator=1 denominator=3}}",
                     "netconf: interface v3: ieee802-dot1dc-sched-if:gate-parameter-table/admin-cycle-time: "
                     "1/3 s is not a whole number of nanoseconds");
}

/* IEEE 802.1Q Table 8-5, spot checks; the queue split. */
static void test_derive(void **state) {
        static const uint8_t gates[] = { 0x01, 0x20 };
        unsigned count[8], offset[8];
        (void) state;
        assert_int_equal(nc_derive_num_tc(gates, 2, 8), 6);
        assert_int_equal(nc_derive_num_tc(gates, 2, 4), 4);
        assert_int_equal(nc_derive_num_tc(NULL, 0, 4), 1);
        assert_int_equal(nc_derive_class_of(0, 8), 1);
        assert_int_equal(nc_derive_class_of(1, 8), 0);
        assert_int_equal(nc_derive_class_of(7, 8), 7);
        assert_int_equal(nc_derive_class_of(0, 5), 0);
        assert_int_equal(nc_derive_class_of(5, 6), 3);
        assert_int_equal(nc_derive_class_of(6, 5), 3);
        assert_int_equal(nc_derive_class_of(3, 7), 3);
        assert_int_equal(nc_derive_class_of(12, 8), 1);
        assert_int_equal(nc_derive_class_of(7, 1), 0);
        nc_derive_queues(3, 8, count, offset);
        assert_int_equal(count[2], 6);
        assert_int_equal(offset[2], 2);
        assert_int_equal(nc_derive_tx_queues("a/b"), -EINVAL);
        assert_int_equal(nc_derive_tx_queues(".."), -EINVAL);
}

/* issue 48 point 3: 802.1DC's status table per priority -> root.fp per
 * class (3 classes: priorities 4 and 5 are class 1); mac_merge from
 * 802.3's admin-control, or derived "transmit enabled" with verification
 * (the standard's defaults) unless tbsd:schedule/leave-mac-merge. */
#define FP_TABLE(s4, s5)                                                                                   \
        " frame-preemption-parameters{frame-preemption-status-table{priority4=" s4 " priority5=" s5 "}}"

static void test_preemption(void **state) {
        char *json, *error;
        (void) state;
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") FP_TABLE("preemptable", "preemptable"), &json, &error), 1);
        assert_non_null(strstr(json, "\"fp\":[\"E\",\"P\",\"E\"],\"mode\":\"full-offload\""));
        assert_non_null(strstr(json, "\"mac_merge\":{\"tx_enabled\":true,\"verify_enabled\":true,"
                                     "\"verify_time_ms\":10,\"tx_min_frag_bytes\":60}"));
        assert_valid(json);
        free(json);
        /* tbsd's override: root.fp alone. */
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") FP_TABLE("preemptable", "preemptable")
                                   " schedule{leave-mac-merge=true root{mode=software}}", &json, &error), 1);
        assert_non_null(strstr(json, "\"mode\":\"software\""));
        assert_non_null(strstr(json, "\"fp\":[\"E\",\"P\",\"E\"]"));
        assert_null(strstr(json, "mac_merge"));
        free(json);
        /* Written express: fp all E, nothing derived. */
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") FP_TABLE("express", "express"), &json, &error), 1);
        assert_non_null(strstr(json, "\"fp\":[\"E\",\"E\",\"E\"]"));
        assert_null(strstr(json, "mac_merge"));
        assert_null(strstr(json, "\"mode\""));
        free(json);
        /* An mqprio root (tbsd's module): hw_offload derived, as the kernel wants. */
        assert_int_equal(translate("name=v3 " TBSD_ROOT3 "}} frame-preemption-parameters{"
                                   "frame-preemption-status-table{priority2=preemptable}}", &json, &error), 1);
        assert_non_null(strstr(json, "\"qdisc\":\"mqprio\""));
        assert_non_null(strstr(json, "\"fp\":[\"E\",\"E\",\"P\"],\"hw_offload\":true"));
        assert_valid(json);
        free(json);
        /* The MAC merge module's admin-control, its defaults where not written. */
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") " ethernet{mac-merge{admin-control{"
                                   "merge-enable-tx=Enabled verify-disable-tx=Enabled frag-size=2}}}", &json, &error), 1);
        assert_null(strstr(json, "\"fp\""));
        assert_non_null(strstr(json, "\"mac_merge\":{\"tx_enabled\":true,\"verify_enabled\":false,"
                                     "\"verify_time_ms\":10,\"tx_min_frag_bytes\":188}"));
        assert_valid(json);
        free(json);
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") " ethernet{mac-merge{admin-control{verify-time=20}}}",
                                   &json, &error), 1);
        assert_non_null(strstr(json, "\"mac_merge\":{\"tx_enabled\":false,\"verify_enabled\":false,"
                                     "\"verify_time_ms\":20,\"tx_min_frag_bytes\":60}"));
        assert_valid(json);
        free(json);
        /* No table, or an empty one: neither key. */
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6") " frame-preemption-parameters{"
                                   "frame-preemption-status-table{}} ethernet{}", &json, &error), 1);
        assert_null(strstr(json, "\"fp\""));
        assert_null(strstr(json, "mac_merge"));
        free(json);
        expect_error("name=v3 " DC_GATES("1", "6") FP_TABLE("preemptable", "express"),
                     "netconf: interface v3: ieee802-dot1dc-preemption-if:frame-preemption-parameters/"
                     "frame-preemption-status-table: priority4 is preemptable and priority5 express, but both go "
                     "to traffic class 1; give the priorities of one class the same status");
        /* Priority 0 (express by default) and 1 share class 0 under tbsd's map. */
        expect_error("name=v3 " DC_GATES("1", "6") " frame-preemption-parameters{frame-preemption-status-table{"
                     "priority1=preemptable}}",
                     "netconf: interface v3: ieee802-dot1dc-preemption-if:frame-preemption-parameters/"
                     "frame-preemption-status-table: priority0 is express and priority1 preemptable, but both go "
                     "to traffic class 0; give the priorities of one class the same status");
        expect_error("name=v3 " DC_GATES("1", "6") FP_TABLE("preemptable", "preemptable")
                     " ethernet{mac-merge{admin-control{merge-enable-tx=Enabled}}} schedule{leave-mac-merge=true}",
                     "netconf: interface v3: ieee802-ethernet-mac-merge:mac-merge/admin-control: "
                     "tbsd:schedule/leave-mac-merge is true and this sets the MAC merge layer; give one of them");
        expect_error("name=v3" FP_TABLE("preemptable", "preemptable"),
                     "netconf: interface v3: ieee802-dot1dc-preemption-if:frame-preemption-parameters/"
                     "frame-preemption-status-table: tbsd sets preemption with the interface's schedule, and it "
                     "has none (an enabled gate-parameter-table, a cbsa table, or tbsd:schedule)");
        expect_error("name=v3 schedule{root{qdisc=mqprio}}" FP_TABLE("preemptable", "preemptable"),
                     "netconf: interface v3: ieee802-dot1dc-preemption-if:frame-preemption-parameters/"
                     "frame-preemption-status-table: tbsd gives preemption per traffic class and the interface's "
                     "number of classes is not known here (tbsd:schedule/root/num-tc, or the gate table's classes)");
}

/* A device profile of examples/devices (caps_to_json()'s object, what
 * tbsd's GetCapabilities() answers for that NIC), read whole. */
static char *profile(const char *name) {
        char path[512];

        snprintf(path, sizeof(path), "%s/examples/devices/%s.json", TBS_SOURCE_DIR, name);
        return read_all(path);
}

static void expect_mode(const char *name, const char *want) {
        char *caps = profile(name);
        assert_string_equal(nc_derive_mode(caps), want);
        free(caps);
}

/* The mode from the device's answer: the NIC's own gates where the
 * table knows it runs them. */
static void test_mode(void **state) {
        (void) state;
        expect_mode("i225", "full-offload");  /* igc, recorded (tests/unit/fixtures/caps/i225) */
        expect_mode("enetc", "full-offload"); /* fsl_enetc */
        expect_mode("i210", "software");      /* igb: launch time, no taprio offload */
        /* veth as the probe answers it in the kernel tests; a device the
         * table does not know says nothing; not an object. */
        assert_string_equal(nc_derive_mode("{\"driver\":\"veth\",\"taprio_full_offload\":false,"
                                           "\"confidence\":\"unsupported\"}"), "software");
        assert_string_equal(nc_derive_mode("{\"driver\":\"x\",\"taprio_full_offload\":true,"
                                           "\"confidence\":\"unknown\"}"), "software");
        assert_string_equal(nc_derive_mode("{\"taprio_full_offload\":\"true\",\"confidence\":\"known\"}"),
                            "software");
        assert_string_equal(nc_derive_mode("[true]"), "software");
        assert_string_equal(nc_derive_mode("not json"), "software");
        assert_string_equal(nc_derive_mode(NULL), "software");
}

/* What the hook answers in the tests: i225's profile for "offload0", a
 * bus error for "silent0", veth's otherwise. */
static int mode_of(const char *ifname, const char **mode, char **why) {
        if (strcmp(ifname, "silent0") == 0) {
                *why = strdup("GetCapabilities: tbsd did not answer within 2000 ms (stopped or busy): nothing "
                              "was applied");
                return -ETIMEDOUT;
        }
        char *caps = profile(strcmp(ifname, "offload0") == 0 ? "i225" : "i210");
        *mode = nc_derive_mode(caps);
        free(caps);
        return 0;
}

static void test_standard_mode(void **state) {
        char *json, *error;
        (void) state;
        nc_translate_set_mode_of(mode_of);
        assert_int_equal(translate("name=offload0 " DC_GATES("1", "6"), &json, &error), 1);
        assert_non_null(strstr(json, "\"mode\":\"full-offload\""));
        assert_valid(json);
        free(json);
        /* software: tbsd's default, left out. */
        assert_int_equal(translate("name=v3 " DC_GATES("1", "6"), &json, &error), 1);
        assert_null(strstr(json, "\"mode\""));
        free(json);
        /* tbsd's module's mode overrides the device's. */
        assert_int_equal(translate("name=offload0 " DC_GATES("1", "6") " schedule{root{mode=software}}", &json,
                                   &error), 1);
        assert_non_null(strstr(json, "\"mode\":\"software\""));
        assert_null(strstr(json, "full-offload"));
        free(json);
        /* tbsd's own older table: tbsd's default, as before. */
        assert_int_equal(translate("name=offload0 gate-parameter-table{gate-enabled=true admin-control-list{"
                                   "gate-control-entry{index=0 operation-name=sched:set-gate-states "
                                   "gate-states-value=1 time-interval-value=1000}}} schedule{root{num-tc=1 "
                                   "queues{traffic-class=0 count=1 offset=0}}}", &json, &error), 1);
        assert_null(strstr(json, "\"mode\""));
        free(json);
        /* Not a taprio root: no mode. */
        assert_int_equal(translate("name=offload0 schedule{root{num-tc=2}}", &json, &error), 1);
        assert_null(strstr(json, "\"mode\""));
        free(json);
        expect_error("name=silent0 " DC_GATES("1", "6"),
                     "netconf: interface silent0: ieee802-dot1dc-sched-if:gate-parameter-table: tbsd derives the "
                     "root's mode from the device's capabilities, and cannot say them now: GetCapabilities: tbsd "
                     "did not answer within 2000 ms (stopped or busy): nothing was applied");
        nc_translate_set_mode_of(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_taprio),
                cmocka_unit_test(test_mqprio_etf_cbs_clock),
                cmocka_unit_test(test_none),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_left_to_tbsd),
                cmocka_unit_test(test_standard_only),
                cmocka_unit_test(test_derive),
                cmocka_unit_test(test_preemption),
                cmocka_unit_test(test_mode),
                cmocka_unit_test(test_standard_mode),
        };
        nc_translate_set_tx_queues(tx_queues);
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* 802.1DC's cbsa table in the NETCONF translation (netconf/nc-cbsa.c,
 * issue 48): a shaped class becomes a cbs (bandwidth form) on the class's
 * first queue, with an etf of tbsd's module as its child; what has no
 * place in a document is refused with a line naming the interface and
 * the node; the idle slope in force comes from Describe()'s installed cbs.
 * And the way back (netconf/nc-origin.c): a key tbsd's line names to the
 * node of the cbsa or gate table it came from, for the rpc-error. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../netconf/nc-cbsa.h"
#include "../../netconf/nc-origin.h"
#include "../../netconf/nc-translate.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

/* N(name, module, value, children..., NULL): a node; names and values are
 * the caller's literals, the nodes freed by drop(). */
static struct nc_node *N(const char *name, const char *module, const char *value, ...) {
        struct nc_node *n = calloc(1, sizeof(*n)), **tail;
        va_list ap;

        assert_non_null(n);
        n->name = name;
        n->module = module;
        n->value = value;
        n->source = n; /* netconfd's value, here the node itself */
        tail = &n->child;
        va_start(ap, value);
        for (struct nc_node *c; (c = va_arg(ap, struct nc_node *));) {
                *tail = c;
                tail = &c->next;
        }
        va_end(ap);
        return n;
}

#define LEAF(name, value) N(name, NULL, value, NULL)

static void drop(struct nc_node *n) {
        while (n) {
                struct nc_node *next = n->next;
                drop(n->child);
                free(n);
                n = next;
        }
}

#define DC "ieee802-dot1dc-sched-if"

/* 802.1DC's gate table: two entries opening gates a, then b. */
static struct nc_node *gates(const char *a, const char *b) {
        return N("gate-parameter-table", DC, NULL, LEAF("gate-enabled", "true"),
                 N("admin-control-list", DC, NULL,
                   N("gate-control-entry", DC, NULL, LEAF("index", "0"),
                     LEAF("operation-name", "q-sched:set-gate-states"), LEAF("gate-states-value", a),
                     LEAF("time-interval-value", "300000"), NULL),
                   N("gate-control-entry", DC, NULL, LEAF("index", "1"),
                     LEAF("operation-name", "q-sched:set-gate-states"), LEAF("gate-states-value", b),
                     LEAF("time-interval-value", "700000"), NULL),
                   NULL),
                 N("admin-cycle-time", DC, NULL, LEAF("numerator", "1"), LEAF("denominator", "1000"), NULL), NULL);
}

/* The cbsa table with one entry (slope NULL: admin-idle-slope left out). */
static struct nc_node *cbsa(const char *tc, const char *slope) {
        return N("cbsa", CBSA_IF_MODULE, NULL,
                 N("cbsa-parameter-table", CBSA_IF_MODULE, NULL, LEAF("traffic-class", tc),
                   slope ? LEAF("admin-idle-slope", slope) : NULL, NULL),
                 NULL);
}

/* Translate the interface entry made of the nodes given; takes them. */
static int translate(char **json, char **error, ...) {
        struct nc_node *iface = N("interface", NULL, NULL, NULL), **tail = &iface->child;
        const char *ifname;
        va_list ap;
        int r;

        va_start(ap, error);
        for (struct nc_node *c; (c = va_arg(ap, struct nc_node *));) {
                *tail = c;
                tail = &c->next;
        }
        va_end(ap);
        r = nc_translate_interface(iface, &ifname, json, error);
        drop(iface);
        return r;
}

/* The document's errors from tbsd's parser and verifier (facts: a link
 * of speed_mbps, 0: none known); the first error line in *line. */
static size_t check(const char *json, uint32_t speed_mbps, char **line) {
        DeviceFacts facts = { .link_speed_mbps = speed_mbps };
        DiagList l = { 0 };
        Schedule *s = NULL;
        size_t errors;

        *line = NULL;
        if (schedule_parse_json("nc", json, strlen(json), &l, &s) == 0)
                (void) schedule_verify(s, speed_mbps ? &facts : NULL, &l);
        errors = diag_errors(&l);
        for (size_t i = 0; i < l.n && !*line; i++)
                if (l.items[i].severity == DIAG_ERROR)
                        *line = diag_format(&l.items[i]);
        diag_list_clear(&l);
        schedule_free(s);
        return errors;
}

static int tx_queues(const char *ifname) {
        (void) ifname;
        return 4;
}

static void test_shaped_class(void **state) {
        char *json, *error, *line;
        (void) state;
        /* Gates of classes 0 to 2: 3 classes; class 2 shaped at 20 Mbit/s on its queue 2. */
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), gates("1", "6"), cbsa("2", "20000000"), NULL), 1);
        assert_non_null(strstr(json, "\"num_tc\":3,"));
        assert_non_null(strstr(json, "\"txqueues\":[{\"queue\":2,\"qdisc\":\"cbs\",\"bandwidth_kbps\":20000,"
                                     "\"max_frame_bytes\":1522}]"));
        assert_int_equal(check(json, 0, &line), 0);
        /* tbsd computes the four values with the link's speed, and refuses
         * an idle slope at or above its rate with its own line. */
        assert_int_equal(check(json, 10000, &line), 0);
        assert_int_equal(check(json, 20, &line), 1);
        assert_non_null(strstr(line, "txqueues[0].bandwidth_kbps"));
        free(line);
        free(json);
}

static void test_classes_and_queues(void **state) {
        char *json, *error, *line;
        (void) state;
        /* A class the gate list leaves closed but the table shapes is one of the root's. */
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), gates("1", "2"), cbsa("3", "1000"), NULL), 1);
        assert_non_null(strstr(json, "\"num_tc\":4,"));
        assert_non_null(strstr(json, "{\"queue\":3,\"qdisc\":\"cbs\",\"bandwidth_kbps\":1,"));
        assert_int_equal(check(json, 0, &line), 0);
        free(json);
        /* Without a gate table: an mqprio root derived for the classes. */
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), cbsa("1", "5000000"), NULL), 1);
        assert_non_null(strstr(json, "\"root\":{\"qdisc\":\"mqprio\",\"num_tc\":2,"));
        assert_non_null(strstr(json, "\"queues\":[{\"count\":1,\"offset\":0},{\"count\":3,\"offset\":1}]"));
        assert_non_null(strstr(json, "{\"queue\":1,\"qdisc\":\"cbs\",\"bandwidth_kbps\":5000,"));
        assert_int_equal(check(json, 0, &line), 0);
        free(json);
        /* A gate table not enabled is not read: its gates name no class. */
        struct nc_node *off = gates("1", "255");
        off->child->value = "false";
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), off, cbsa("0", "1000"), NULL), 1);
        assert_non_null(strstr(json, "\"root\":{\"qdisc\":\"mqprio\",\"num_tc\":1,"));
        assert_int_equal(check(json, 0, &line), 0);
        free(json);
        /* tbsd's root: the class's first queue. */
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), gates("1", "2"), cbsa("1", "3000"),
                                   N("schedule", "tbsd", NULL,
                                     N("root", "tbsd", NULL, LEAF("num-tc", "2"),
                                       N("queues", "tbsd", NULL, LEAF("traffic-class", "0"), LEAF("count", "2"),
                                         LEAF("offset", "0"), NULL),
                                       N("queues", "tbsd", NULL, LEAF("traffic-class", "1"), LEAF("count", "2"),
                                         LEAF("offset", "2"), NULL),
                                       NULL),
                                     NULL),
                                   NULL),
                         1);
        assert_non_null(strstr(json, "{\"queue\":2,\"qdisc\":\"cbs\",\"bandwidth_kbps\":3,"));
        assert_int_equal(check(json, 0, &line), 0);
        free(json);
}

static void test_under_etf(void **state) {
        char *json, *error, *line;
        (void) state;
        /* tbsd's etf on the class's queue: the cbs's child. */
        assert_int_equal(translate(&json, &error, LEAF("name", "v"), gates("1", "6"), cbsa("1", "20000000"),
                                   N("schedule", "tbsd", NULL,
                                     N("txqueues", "tbsd", NULL, LEAF("queue", "1"), LEAF("delta-ns", "500000"),
                                       LEAF("offload", "false"), NULL),
                                     NULL),
                                   NULL),
                         1);
        assert_non_null(strstr(json, "\"txqueues\":[{\"queue\":1,\"child\":{\"qdisc\":\"etf\",\"delta_ns\":500000,"
                                     "\"offload\":false},\"qdisc\":\"cbs\",\"bandwidth_kbps\":20000,"
                                     "\"max_frame_bytes\":1522}]"));
        assert_int_equal(check(json, 0, &line), 0);
        free(json);
}

static void expect_error(const char *want, struct nc_node *a, struct nc_node *b, struct nc_node *c) {
        char *json, *error;

        assert_int_equal(translate(&json, &error, LEAF("name", "v"), a, b, c, NULL), -1);
        assert_null(json);
        assert_string_equal(error, want);
        free(error);
}

static void test_refused(void **state) {
        (void) state;
        expect_error("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=1]: "
                     "admin-idle-slope: 0 bit/s reserves nothing and a cbs without an idle slope never sends; give "
                     "the class's bandwidth, or leave the class out of the table",
                     gates("1", "6"), cbsa("1", NULL), NULL);
        expect_error("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=1]: "
                     "admin-idle-slope: 1500 bit/s is not a whole number of kbit/s (Linux's cbs takes the idle "
                     "slope in kbit/s)",
                     gates("1", "6"), cbsa("1", "1500"), NULL);
        /* Class 5 on 4 TX queues: no queue of its own. */
        expect_error("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=5]: "
                     "the interface's root has 4 traffic classes (0 to 3): class 5 has no queue to shape",
                     gates("1", "6"), cbsa("5", "1000"), NULL);
        expect_error("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=1]: "
                     "the class's queue 1 has a cbs of tbsd's module (tbsd:schedule/txqueues[queue=1]): give the "
                     "class's shaper in one of them",
                     gates("1", "6"), cbsa("1", "1000"),
                     N("schedule", "tbsd", NULL,
                       N("txqueues", "tbsd", NULL, LEAF("queue", "1"), LEAF("qdisc", "cbs"),
                         LEAF("bandwidth-kbps", "1"), LEAF("max-frame-bytes", "1522"), NULL),
                       NULL));
}

static void test_oper(void **state) {
        uint64_t bps = 0;
        (void) state;
        const char *doc = "{\"root\":{\"qdisc\":\"taprio\",\"queues\":[{\"count\":1,\"offset\":0},"
                          "{\"count\":1,\"offset\":1},{\"count\":2,\"offset\":2}]},\"txqueues\":["
                          "{\"queue\":2,\"qdisc\":\"cbs\",\"installed\":true,\"idle_slope_kbps\":20000},"
                          "{\"queue\":1,\"qdisc\":\"cbs\",\"installed\":false,\"idle_slope_kbps\":7000},"
                          "{\"queue\":0,\"qdisc\":\"etf\",\"installed\":true}]}";

        assert_int_equal(nc_cbsa_oper_idle_slope(doc, 2, &bps), 0);
        assert_int_equal(bps, 20000000);
        /* Declared, not installed: the device cannot say it. */
        assert_int_equal(nc_cbsa_oper_idle_slope(doc, 1, &bps), -1);
        assert_int_equal(nc_cbsa_oper_idle_slope(doc, 0, &bps), -1);
        assert_int_equal(nc_cbsa_oper_idle_slope(doc, 3, &bps), -1);
        assert_int_equal(nc_cbsa_oper_idle_slope("{\"root\":null,\"txqueues\":[]}", 0, &bps), -1);
        assert_int_equal(nc_cbsa_oper_idle_slope("not json", 0, &bps), -1);
        assert_int_equal(nc_cbsa_oper_idle_slope(NULL, 0, &bps), -1);
}

/* The node key came from (nc-origin.h): its name in a line, and the
 * source noted (want: the node expected, NULL: none noted). */
static void expect_origin(const struct nc_origin *origins, const char *key, const char *node,
                          const struct nc_node *want) {
        const struct nc_origin *o = nc_origin_find(origins, key);

        if (!node) {
                assert_null(o);
                return;
        }
        assert_non_null(o);
        assert_string_equal(o->node, node);
        assert_ptr_equal(o->source, want);
}

#define CBSA_ENTRY "ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=2]"
#define GCE(i) "ieee802-dot1dc-sched-if:gate-parameter-table/admin-control-list/gate-control-entry[index=" #i "]"

static void test_origins(void **state) {
        struct nc_node *iface = N("interface", NULL, NULL, LEAF("name", "v"), gates("1", "6"),
                                  cbsa("2", "20000000"), NULL);
        const struct nc_node *table = nc_child(iface, "gate-parameter-table");
        const struct nc_node *entry = nc_child(nc_child(iface, "cbsa"), "cbsa-parameter-table");
        const struct nc_node *gce1 = nc_child(table, "admin-control-list")->child->next;
        struct nc_origin *origins = NULL;
        char *json, *error, *line, *tbsd, key[128];
        const char *ifname;
        (void) state;

        assert_int_equal(nc_translate_interface_origins(iface, &ifname, &json, &error, &origins), 1);
        /* tbsd refuses 20 Mbit/s on a 20 Mbit/s link; its line, as a commit gets it. */
        assert_int_equal(check(json, 20, &line), 1);
        assert_non_null(strstr(line, "nc: txqueues[0].bandwidth_kbps: "));
        assert_true(asprintf(&tbsd, "ApplySchedules(v) by uid 64999: %s", line + strlen("nc: ")) > 0);
        assert_string_equal(nc_origin_line_key(tbsd, key, sizeof(key)), "txqueues[0].bandwidth_kbps");
        expect_origin(origins, key, CBSA_ENTRY "/admin-idle-slope", nc_child(entry, "admin-idle-slope"));
        /* A key of the cbs the table alone gave: the entry. */
        expect_origin(origins, "txqueues[0].max_frame_bytes", CBSA_ENTRY, entry);
        expect_origin(origins, "txqueues[0]", CBSA_ENTRY, entry);
        /* The gate table's, in the order of index. */
        expect_origin(origins, "root.entries[1].interval_ns", GCE(1) "/time-interval-value",
                      nc_child(gce1, "time-interval-value"));
        expect_origin(origins, "root.entries[1].gate_mask", GCE(1) "/gate-states-value",
                      nc_child(gce1, "gate-states-value"));
        expect_origin(origins, "root.entries[1]", GCE(1), gce1);
        expect_origin(origins, "root.entries", "ieee802-dot1dc-sched-if:gate-parameter-table/admin-control-list",
                      nc_child(table, "admin-control-list"));
        expect_origin(origins, "root.cycle_time_ns", "ieee802-dot1dc-sched-if:gate-parameter-table/admin-cycle-time",
                      nc_child(table, "admin-cycle-time"));
        /* Derived, or not a part of a key noted: no node. */
        expect_origin(origins, "root.num_tc", NULL, NULL);
        expect_origin(origins, "root.queues[2]", NULL, NULL);
        expect_origin(origins, "root.entries_x", NULL, NULL);
        expect_origin(origins, "txqueues[1]", NULL, NULL);
        expect_origin(origins, NULL, NULL, NULL);
        nc_origin_free(origins);
        free(tbsd);
        free(line);
        free(json);
        drop(iface);
}

static void test_origins_under_etf(void **state) {
        struct nc_node *iface = N("interface", NULL, NULL, LEAF("name", "v"), gates("1", "6"), cbsa("1", "20000000"),
                                  N("schedule", "tbsd", NULL,
                                    N("txqueues", "tbsd", NULL, LEAF("queue", "1"), LEAF("delta-ns", "500000"), NULL),
                                    NULL),
                                  NULL);
        const struct nc_node *own = nc_child(nc_child(iface, "schedule"), "txqueues");
        const struct nc_node *entry = nc_child(nc_child(iface, "cbsa"), "cbsa-parameter-table");
        struct nc_origin *origins = NULL;
        char *json, *error;
        const char *ifname;
        (void) state;

        assert_int_equal(nc_translate_interface_origins(iface, &ifname, &json, &error, &origins), 1);
        /* The cbs from the cbsa table, its etf child from tbsd's module. */
        expect_origin(origins, "txqueues[0].bandwidth_kbps",
                      "ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=1]/admin-idle-slope",
                      nc_child(entry, "admin-idle-slope"));
        expect_origin(origins, "txqueues[0].child.delta_ns", "tbsd:schedule/txqueues[queue=1]", own);
        expect_origin(origins, "txqueues[0]", "ieee802-dot1dc-cbsa-if:cbsa/cbsa-parameter-table[traffic-class=1]",
                      entry);
        nc_origin_free(origins);
        free(json);
        /* A refused translation leaves no origins. */
        drop(iface);
        iface = N("interface", NULL, NULL, LEAF("name", "v"), gates("1", "6"), cbsa("1", "1500"), NULL);
        origins = (struct nc_origin *) 1;
        assert_int_equal(nc_translate_interface_origins(iface, &ifname, &json, &error, &origins), -1);
        assert_null(origins);
        free(error);
        drop(iface);
}

static void test_line_key(void **state) {
        char key[32];
        (void) state;
        assert_string_equal(nc_origin_line_key("ValidateSchedules(v) by uid 0: root.cycle_time_ns: must be", key,
                                               sizeof(key)),
                            "root.cycle_time_ns");
        /* The interface name may hold ": " and ")": the key follows "by WHO". */
        assert_string_equal(nc_origin_line_key("ApplySchedules(a: b) by uid 7: txqueues[3]: x", key, sizeof(key)),
                            "txqueues[3]");
        assert_null(nc_origin_line_key("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa: x", key, sizeof(key)));
        assert_null(nc_origin_line_key("ApplySchedules(v) by uid 7: no reason", key, sizeof(key)));
        assert_null(nc_origin_line_key("ApplySchedules(v) by uid 7: a.very.long.key.beyond.the.buffer.given: x",
                                       key, sizeof(key)));
        assert_null(nc_origin_line_key(NULL, key, sizeof(key)));
}

static int no_tx_queues(const char *ifname) {
        (void) ifname;
        return -ENOENT;
}

/* The cbsa table alone, no TX queues found: the line names what was sent. */
static void test_no_queues(void **state) {
        (void) state;
        nc_translate_set_tx_queues(no_tx_queues);
        expect_error("netconf: interface v: ieee802-dot1dc-cbsa-if:cbsa: tbsd derives the traffic classes from the "
                     "classes it shapes and the interface's TX queues, and finds no TX queues of the interface here: "
                     "No such file or directory",
                     cbsa("1", "1000"), NULL, NULL);
        nc_translate_set_tx_queues(tx_queues);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_shaped_class),
                cmocka_unit_test(test_classes_and_queues),
                cmocka_unit_test(test_under_etf),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_oper),
                cmocka_unit_test(test_origins),
                cmocka_unit_test(test_origins_under_etf),
                cmocka_unit_test(test_line_key),
                cmocka_unit_test(test_no_queues),
        };
        nc_translate_set_tx_queues(tx_queues);
        return cmocka_run_group_tests(tests, NULL, NULL);
}

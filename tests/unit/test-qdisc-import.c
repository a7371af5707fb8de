/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A dumped tree back to a schedule file (qdisc-import.c): the trees
 * recorded in the test kernel (tests/unit/fixtures/qdisc/, *.tc.json is the
 * oracle of the expected values) and trees built here for what the test
 * kernel cannot install (shapers, offloads, other clocks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "qdisc-import.h"
#include "qdisc.h"

#include "qdisc-fixture-roots.h"



/* Import tree t and compare the text, as JSON, with expect (""
 * accepted, whatever the text); expect NULL: the import must be refused
 * with reason. */
static void check_tree(const QDiscTree *t, const char *expect, const char *reason) {
        char *text = NULL, *why = NULL;
        int k;

        k = qdisc_tree_import(t, "va", "pfifo_fast", &text, &why);
        if (!expect) {
                assert_int_equal(k, -EOPNOTSUPP);
                assert_null(text);
                assert_non_null(why);
                assert_string_equal(why, reason);
                free(why);
                return;
        }
        if (k < 0)
                fail_msg("refused: %s", why ?: "(no reason)");
        assert_null(why);
        assert_non_null(text);
        assert_int_equal(text[strlen(text) - 1], '\n');
        if (!expect[0]) {               /* accepted; the text is checked elsewhere */
                free(text);
                return;
        }
        {
                json_object *got = json_tokener_parse(text), *want = json_tokener_parse(expect);

                assert_non_null(got);
                assert_non_null(want);
                if (!json_object_equal(got, want))
                        fail_msg("got:\n%s", text);
                json_object_put(got);
                json_object_put(want);
        }
        free(text);
}

static void check_fixture(const char *name, const char *expect, const char *reason) {
        QDiscTree t = {};

        load_fixture_tree(name, &t);
        check_tree(&t, expect, reason);
        qdisc_tree_done(&t);
}

static void test_mqprio_etf(void **state) {
        /* mqprio-etf.tc.json: mqprio 100: tc 3 map 2 2 1 0 2... queues 1@0
         * 1@1 2@2; etf on 100:1 delta 300000; etf on 100:2 delta 500000
         * deadline_mode skip_sock_check; pfifo_fast 0: on 100:3 and 100:4. */
        check_fixture("mqprio-etf.bin",
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ], \"hw_offload\": false },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": false },"
                "   { \"queue\": 1, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 500000,"
                "     \"offload\": false, \"deadline_mode\": true, \"skip_sock_check\": true } ] }",
                NULL);
}

static void test_taprio_txtime(void **state) {
        /* taprio-txtime.tc.json: flags 0x1 txtime_delay 200000 base_time
         * 1000, cycle 1000000 (the sum: not written), S 0x1 300000, S 0x2
         * 300000, S 0x4 400000; etf on 100:1 delta 300000 skip_sock_check;
         * pfifo 0: (taprio's own default) on the other queues. The delay
         * is below the etf's delta, so the file allows assist-delay. */
        check_fixture("taprio-txtime.bin",
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"taprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ],"
                "  \"clockid\": \"CLOCK_TAI\", \"base_time_ns\": 1000, \"mode\": \"txtime-assist\","
                "  \"txtime_delay_ns\": 200000, \"entries\": ["
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x1\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x2\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x4\", \"interval_ns\": 400000 } ] },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": true } ],"
                "  \"allow\": [\"assist-delay\"] }",
                NULL);
}

static void test_foreign_mqprio(void **state) {
        /* mqprio-foreign.tc.json: an administrator's mqprio 100: tc 2 map 0 1
         * queues 1@0 3@1, pfifo_fast children: a schedule without txqueues. */
        check_fixture("mqprio-foreign.bin",
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 2, \"priority_map\": [0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1} ],"
                "  \"hw_offload\": false }, \"txqueues\": [] }",
                NULL);
}

static void test_refused_roots(void **state) {
        check_fixture("htb.bin", NULL, "root qdisc htb 1: is none of mqprio, taprio, etf and cbs, the roots a schedule declares");
        check_fixture("default.bin", NULL, "the root is the kernel's default qdisc (noqueue), not an "
                      "mqprio, taprio, etf or cbs tree: nothing to import");
        check_tree(&(QDiscTree) {}, NULL, "no root qdisc in the kernel's dump (is the interface up?)");
}

/* A child other than etf or the root's default kind. */
static void test_refused_child(void **state) {
        QDiscTree t = {};

        load_fixture_tree("mqprio-foreign.bin", &t);
        assert_true(t.n_queues >= 4);
        strcpy(t.queues[2].qdisc.kind, "fq_codel");
        t.queues[2].qdisc.handle = 0x80030000;
        check_tree(&t, NULL, "txqueue 2: fq_codel 8003: on 100:3: a schedule puts etf, cbs or the root's "
                   "default (pfifo_fast) on a TX queue");
        /* pfifo under mqprio is not mqprio's default (the sysctl's is) */
        strcpy(t.queues[2].qdisc.kind, "pfifo");
        check_tree(&t, NULL, "txqueue 2: pfifo 8003: on 100:3: a schedule puts etf, cbs or the root's "
                   "default (pfifo_fast) on a TX queue");
        qdisc_tree_done(&t);
}

/* An etf on a clock a schedule refuses: the validator's line says why. */
static void test_refused_etf_clock(void **state) {
        QDiscTree t = {};

        load_fixture_tree("mqprio-etf.bin", &t);
        assert_true(t.queues[0].is_etf);
        t.queues[0].etf.etf.clockid = CLOCK_REALTIME;
        check_tree(&t, NULL, "the installed tree is not a valid schedule: txqueues[0].clockid: "
                   "must be CLOCK_TAI: the kernel's etf qdisc accepts only CLOCK_TAI, got CLOCK_REALTIME");
        qdisc_tree_done(&t);
}

/* mqprio options after the struct: mode, shaper, rates. */
static void test_refused_mqprio_shaper(void **state) {
        QDiscTree t = {};
        uint8_t *opt;
        size_t head = NLA_ALIGN(sizeof(struct tc_mqprio_qopt));
        struct nlattr *a;
        uint16_t v = TC_MQPRIO_SHAPER_BW_RATE;

        load_fixture_tree("mqprio-foreign.bin", &t);
        opt = calloc(1, head + NLA_HDRLEN + 4);
        assert_non_null(opt);
        memcpy(opt, t.root.options, sizeof(struct tc_mqprio_qopt));
        a = (struct nlattr *) (opt + head);
        a->nla_type = TCA_MQPRIO_SHAPER;
        a->nla_len = NLA_HDRLEN + sizeof(v);
        memcpy(opt + head + NLA_HDRLEN, &v, sizeof(v));
        free(t.root.options);
        t.root.options = opt;
        t.root.options_len = head + NLA_HDRLEN + 4;
        check_tree(&t, NULL, "root mqprio 100: has mqprio shaper bw_rlimit, which a schedule cannot express");

        a->nla_type = TCA_MQPRIO_MODE;
        v = TC_MQPRIO_MODE_CHANNEL;
        memcpy(opt + head + NLA_HDRLEN, &v, sizeof(v));
        check_tree(&t, NULL, "root mqprio 100: has mqprio mode channel, which a schedule cannot express");

        /* mode dcb, given explicitly, is the default: expressible */
        v = TC_MQPRIO_MODE_DCB;
        memcpy(opt + head + NLA_HDRLEN, &v, sizeof(v));
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 2, \"priority_map\": [0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1} ],"
                "  \"hw_offload\": false }, \"txqueues\": [] }", NULL);
        qdisc_tree_done(&t);
}

/* What the kernel shows beyond the defaults comes back exactly: a cycle
 * time that is not the sum, an extension, other commands, hw offload. */
static void test_taprio_cycle_and_commands(void **state) {
        QDiscTree t = {};

        load_fixture_tree("taprio-txtime.bin", &t);
        t.root_spec.taprio.cycle_time_ns = 1200000;
        t.root_spec.taprio.cycle_time_extension_ns = 5000;
        t.root_spec.taprio.entries[1].command = GATE_SET_AND_HOLD;
        t.root_spec.taprio.entries[2].command = GATE_SET_AND_RELEASE;
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"taprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ],"
                "  \"clockid\": \"CLOCK_TAI\", \"base_time_ns\": 1000, \"cycle_time_ns\": 1200000,"
                "  \"cycle_time_extension_ns\": 5000, \"mode\": \"txtime-assist\","
                "  \"txtime_delay_ns\": 200000, \"entries\": ["
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x1\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-and-hold\", \"gate_mask\": \"0x2\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-and-release\", \"gate_mask\": \"0x4\", \"interval_ns\": 400000 } ] },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": true } ],"
                "  \"allow\": [\"assist-delay\"] }",
                NULL);
        qdisc_tree_done(&t);
}

/* Per-class max SDUs the kernel dumps come back as root.max_sdu (zeros,
 * taprio's default, are left out). */
static void test_taprio_max_sdu(void **state) {
        QDiscTree t = {};

        load_fixture_tree("taprio-txtime.bin", &t);
        t.root_spec.taprio.max_sdu_dumped = true;
        t.root_spec.taprio.max_sdu[1] = 200;
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"taprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ],"
                "  \"clockid\": \"CLOCK_TAI\", \"base_time_ns\": 1000, \"max_sdu\": [0, 200, 0],"
                "  \"mode\": \"txtime-assist\", \"txtime_delay_ns\": 200000, \"entries\": ["
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x1\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x2\", \"interval_ns\": 300000 },"
                "   { \"command\": \"set-gates\", \"gate_mask\": \"0x4\", \"interval_ns\": 400000 } ] },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": true } ],"
                "  \"allow\": [\"assist-delay\"] }",
                NULL);
        qdisc_tree_done(&t);
}

/* Full offload: the kernel dumps no clock (the NIC's runs the schedule)
 * and no txtime delay. */
static void test_taprio_full_offload(void **state) {
        QDiscTree t = {};
        char *text = NULL, *why = NULL;
        json_object *o, *root, *v;

        load_fixture_tree("taprio-txtime.bin", &t);
        t.root_spec.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        t.root_spec.taprio.txtime_delay_ns = 0;
        t.root_spec.taprio.clockid = CLOCK_TAI;        /* the parser's default when the dump has none */
        assert_int_equal(qdisc_tree_import(&t, "va", "pfifo_fast", &text, &why), 0);
        assert_null(why);
        o = json_tokener_parse(text);
        assert_non_null(o);
        assert_true(json_object_object_get_ex(o, "root", &root));
        assert_true(json_object_object_get_ex(root, "mode", &v));
        assert_string_equal(json_object_get_string(v), "full-offload");
        assert_false(json_object_object_get_ex(root, "txtime_delay_ns", &v));
        json_object_put(o);
        free(text);
        qdisc_tree_done(&t);
}

static void test_mqprio_offloads(void **state) {
        QDiscTree t = {};

        load_fixture_tree("mqprio-etf.bin", &t);
        t.root_spec.mqprio.hw_offload = true;
        t.queues[1].etf.offload = OFFLOAD_ON;
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ], \"hw_offload\": true },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": false },"
                "   { \"queue\": 1, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 500000,"
                "     \"offload\": true, \"deadline_mode\": true, \"skip_sock_check\": true } ] }",
                NULL);
        qdisc_tree_done(&t);
}

/* A cbs child comes back with its four kernel values (tc's idleslope,
 * sendslope, hicredit, locredit) and offload. */
static void test_mqprio_cbs(void **state) {
        QDiscTree t = {};

        load_fixture_tree("mqprio-etf.bin", &t);
        assert_int_equal(t.queues[2].queue, 2);
        assert_false(t.queues[2].is_etf);
        strcpy(t.queues[2].qdisc.kind, "cbs");
        t.queues[2].is_cbs = true;
        t.queues[2].etf = (EtfSpec) {
                .queue = 2, .kind = TXQ_CBS, .offload = OFFLOAD_OFF,
                .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                         .hi_credit_bytes = 30, .lo_credit_bytes = -1470 },
        };
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ], \"hw_offload\": false },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000,"
                "     \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": false },"
                "   { \"queue\": 1, \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 500000,"
                "     \"offload\": false, \"deadline_mode\": true, \"skip_sock_check\": true },"
                "   { \"queue\": 2, \"qdisc\": \"cbs\", \"offload\": false, \"idle_slope_kbps\": 20000,"
                "     \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470 } ] }",
                NULL);
        /* a named qdisc inside the cbs (its inner pfifo replaced) */
        {
                uint32_t *h = reallocarray(t.handles, t.n_handles + 2, sizeof(uint32_t));

                assert_non_null(h);
                t.handles = h;
                t.handles[t.n_handles++] = 0xffff0000;  /* an ingress qdisc: not in the way */
                check_tree(&t, "", NULL);
                t.handles[t.n_handles++] = 0x02030000;
                check_tree(&t, NULL, "qdisc 203: is neither the root nor on a TX queue of it (a qdisc inside a "
                           "TX queue's qdisc, such as cbs's), which a schedule cannot express");
                t.n_handles -= 2;
        }
        /* a cbs the validator refuses (a positive send slope): its line */
        t.queues[2].etf.cbs.send_slope_kbps = 5;
        {
                char *text = NULL, *why = NULL;

                assert_int_equal(qdisc_tree_import(&t, "va", "pfifo_fast", &text, &why), -EOPNOTSUPP);
                assert_null(text);
                assert_non_null(why);
                assert_non_null(strstr(why, "the installed tree is not a valid schedule: "
                                            "txqueues[2].send_slope_kbps: "));
                assert_null(strchr(why, '\n'));
                free(why);
        }
        qdisc_tree_done(&t);
}

/* The recorded mqprio+cbs dump (mqprio-cbs.tc.json): two cbs children
 * with their own pfifo 0: inside. */
static void test_recorded_cbs(void **state) {
        check_fixture("mqprio-cbs.bin",
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ], \"hw_offload\": false },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"cbs\", \"offload\": false, \"idle_slope_kbps\": 20000,"
                "     \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470 },"
                "   { \"queue\": 1, \"qdisc\": \"cbs\", \"offload\": false, \"idle_slope_kbps\": 98688,"
                "     \"send_slope_kbps\": -901312, \"hi_credit_bytes\": 153, \"lo_credit_bytes\": -1390 } ] }",
                NULL);
}

/* An etf under a cbs (mqprio-cbs-etf.tc.json): cbs 101: on 100:1 with etf
 * 201: on 101:1, cbs 102: on 100:2 with its own pfifo. */
static void test_recorded_cbs_etf(void **state) {
        QDiscTree t = {};

        load_fixture_tree("mqprio-cbs-etf.bin", &t);
        assert_int_equal(t.n_queues, 4);
        assert_true(t.queues[0].is_cbs);
        assert_true(t.queues[0].etf.etf_child);
        assert_string_equal(t.queues[0].child.kind, "etf");
        assert_int_equal(t.queues[0].child.handle, 0x02010000);
        assert_int_equal(t.queues[0].child.parent, 0x01010001);
        assert_int_equal(t.queues[0].etf.etf.delta_ns, 500000);
        assert_int_equal(t.queues[0].etf.child_offload, OFFLOAD_OFF);
        assert_true(t.queues[1].is_cbs);
        assert_false(t.queues[1].etf.etf_child);
        assert_string_equal(t.queues[1].child.kind, "");
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"mqprio\", \"handle\": \"100:\","
                "  \"num_tc\": 3, \"priority_map\": [2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2],"
                "  \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                "                {\"count\": 2, \"offset\": 2} ], \"hw_offload\": false },"
                "  \"txqueues\": ["
                "   { \"queue\": 0, \"qdisc\": \"cbs\", \"offload\": false, \"idle_slope_kbps\": 20000,"
                "     \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470,"
                "     \"child\": { \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 500000,"
                "                \"offload\": false, \"deadline_mode\": false, \"skip_sock_check\": false } },"
                "   { \"queue\": 1, \"qdisc\": \"cbs\", \"offload\": false, \"idle_slope_kbps\": 20000,"
                "     \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470 } ] }",
                NULL);
        /* Another kind under the cbs has no key: refused by its handle. */
        strcpy(t.queues[0].child.kind, "fq_codel");
        t.queues[0].child.handle = 0x02020000;
        t.queues[0].etf.etf_child = false;
        check_tree(&t, NULL, "qdisc 201: is neither the root nor on a TX queue of it (a qdisc inside a TX "
                   "queue's qdisc, such as cbs's), which a schedule cannot express");
        qdisc_tree_done(&t);
}

/* An etf as the root (root-etf.tc.json), the kernel's handle kept; the
 * file accepts what it fails of the safety checks. */
static void test_recorded_root_etf(void **state) {
        QDiscTree t = {};

        load_fixture_tree("root-etf.bin", &t);
        assert_true(t.root_known);
        assert_int_equal(t.root_spec.kind, ROOT_ETF);
        assert_int_equal(t.root_spec.leaf.kind, TXQ_ETF);
        assert_int_equal(t.root_spec.leaf.etf.delta_ns, 300000);
        assert_true(t.root_spec.leaf.etf.skip_sock_check);
        assert_int_equal(t.n_queues, 0);
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"etf\", \"handle\": \"100:\","
                "  \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 300000, \"offload\": false,"
                "  \"deadline_mode\": false, \"skip_sock_check\": true },"
                "  \"txqueues\": [], \"allow\": [\"ptp-etf\"] }",
                NULL);
        qdisc_tree_done(&t);
}

/* A cbs as the root with an etf on its class 1 (root-cbs-etf.tc.json): the
 * etf is the root's "child", no TX queue of its own. */
static void test_recorded_root_cbs_etf(void **state) {
        QDiscTree t = {};

        load_fixture_tree("root-cbs-etf.bin", &t);
        assert_true(t.root_known);
        assert_int_equal(t.root_spec.kind, ROOT_CBS);
        assert_true(t.root_spec.leaf.etf_child);
        assert_true(t.root_spec.leaf.etf.deadline_mode);
        assert_int_equal(t.root_spec.leaf.etf.delta_ns, 400000);
        assert_int_equal(t.n_queues, 1);
        assert_false(installed_queue_is_declarable(&t.queues[0]));
        check_tree(&t,
                "{ \"interface\": \"va\", \"root\": { \"qdisc\": \"cbs\", \"handle\": \"100:\","
                "  \"offload\": false, \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
                "  \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470,"
                "  \"child\": { \"qdisc\": \"etf\", \"clockid\": \"CLOCK_TAI\", \"delta_ns\": 400000,"
                "             \"offload\": false, \"deadline_mode\": true, \"skip_sock_check\": false } },"
                "  \"txqueues\": [], \"allow\": [\"ptp-etf\"] }",
                NULL);
        qdisc_tree_done(&t);
}

/* The Schedule itself, before rendering: defaults the parser fills are the
 * ones the kernel showed. */
static void test_to_schedule(void **state) {
        QDiscTree t = {};
        Schedule *s = NULL;
        char *why = NULL;

        load_fixture_tree("taprio-txtime.bin", &t);
        assert_int_equal(qdisc_tree_to_schedule(&t, "va", "pfifo_fast", &s, &why), 0);
        assert_null(why);
        assert_string_equal(s->ifname, "va");
        assert_true(root_spec_equal(&s->root, &t.root_spec));
        assert_false(s->root.taprio.cycle_time_given);
        assert_false(s->clock.configured);
        assert_int_equal(s->n_txqueues, 1);
        assert_true(etf_spec_equal(&s->txqueues[0], &t.queues[0].etf));
        schedule_free(s);
        qdisc_tree_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mqprio_etf),
                cmocka_unit_test(test_taprio_txtime),
                cmocka_unit_test(test_foreign_mqprio),
                cmocka_unit_test(test_recorded_cbs_etf),
                cmocka_unit_test(test_recorded_root_etf),
                cmocka_unit_test(test_recorded_root_cbs_etf),
                cmocka_unit_test(test_refused_roots),
                cmocka_unit_test(test_refused_child),
                cmocka_unit_test(test_refused_etf_clock),
                cmocka_unit_test(test_refused_mqprio_shaper),
                cmocka_unit_test(test_taprio_cycle_and_commands),
                cmocka_unit_test(test_taprio_max_sdu),
                cmocka_unit_test(test_taprio_full_offload),
                cmocka_unit_test(test_mqprio_offloads),
                cmocka_unit_test(test_mqprio_cbs),
                cmocka_unit_test(test_recorded_cbs),
                cmocka_unit_test(test_to_schedule),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

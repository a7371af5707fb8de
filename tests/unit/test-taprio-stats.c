/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio's offload statistics (Linux 6.5+: window drops, transmit
 * overruns). No emulated NIC offloads taprio (a veth, igb in the QEMU bed:
 * the kernel dumps none), so the dumps here are built byte by byte in the
 * kernel's format, read from Linux 6.12's sch_taprio.c
 * (taprio_dump_stats() -> taprio_dump_xstats()): inside TCA_STATS2, after
 * the basic and queue counters, a TCA_STATS_APP nest with
 * TCA_TAPRIO_OFFLOAD_STATS_WINDOW_DROPS (2) and _TX_OVERRUNS (3), u64
 * each, each only when the driver filled it in (taprio_put_stat() leaves
 * out a counter the driver left at ~0), a PAD (1) where the architecture
 * aligns 64-bit values. They are parsed with the dump (qdisc-tree.c),
 * shown in the status document's root "stats" and rendered as
 * tbs_taprio_*_total only where they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "json-util.h"
#include "metrics.h"
#include "qdisc-tree.h"

enum { WINDOW_DROPS = 1, TX_OVERRUNS = 2, PAD = 4, APP_NOT_NESTED = 8 };

/* One RTM_NEWQDISC of ifindex 3: a root of kind with a taprio's options
 * (two classes, one entry), its counters, and the offload statistics
 * what asks for. */
static struct nl_msg *root_message(const char *kind, unsigned what) {
        struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = 3, .tcm_handle = 0x1000000,
                             .tcm_parent = TC_H_ROOT };
        struct tc_mqprio_qopt qopt = { .num_tc = 2, .prio_tc_map = { 0, 1 }, .count = { 1, 1 }, .offset = { 0, 1 } };
        struct gnet_stats_basic basic = { .bytes = 64000, .packets = 1000 };
        struct gnet_stats_queue queue = { .drops = 3 };
        struct nlattr *opts, *list, *e, *st, *app;
        struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWQDISC, NLM_F_MULTI);

        assert_non_null(m);
        assert_int_equal(nlmsg_append(m, &tcm, sizeof(tcm), NLMSG_ALIGNTO), 0);
        assert_int_equal(nla_put_string(m, TCA_KIND, kind), 0);
        opts = nla_nest_start(m, TCA_OPTIONS);
        assert_int_equal(nla_put(m, TCA_TAPRIO_ATTR_PRIOMAP, sizeof(qopt), &qopt), 0);
        assert_int_equal(nla_put_s32(m, TCA_TAPRIO_ATTR_SCHED_CLOCKID, CLOCK_TAI), 0);
        assert_int_equal(nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_BASE_TIME, 1000), 0);
        assert_int_equal(nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME, 1000000), 0);
        list = nla_nest_start(m, TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST);
        e = nla_nest_start(m, TCA_TAPRIO_SCHED_ENTRY);
        assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_INDEX, 0), 0);
        assert_int_equal(nla_put_u8(m, TCA_TAPRIO_SCHED_ENTRY_CMD, 0), 0);
        assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_GATE_MASK, 0x3), 0);
        assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_INTERVAL, 1000000), 0);
        nla_nest_end(m, e);
        nla_nest_end(m, list);
        nla_nest_end(m, opts);

        st = nla_nest_start(m, TCA_STATS2);
        assert_int_equal(nla_put(m, TCA_STATS_BASIC, sizeof(basic), &basic), 0);
        assert_int_equal(nla_put(m, TCA_STATS_QUEUE, sizeof(queue), &queue), 0);
        if (what & APP_NOT_NESTED) {
                /* another kind's TCA_STATS_APP: a struct of its own */
                static const uint8_t xstats[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

                assert_int_equal(nla_put(m, TCA_STATS_APP, sizeof(xstats), xstats), 0);
        } else if (what & (WINDOW_DROPS | TX_OVERRUNS)) {
                app = nla_nest_start(m, TCA_STATS_APP);
                app->nla_type |= NLA_F_NESTED;  /* nla_nest_start() of the kernel */
                if (what & PAD)
                        assert_int_equal(nla_put(m, 1, 0, NULL), 0);
                if (what & WINDOW_DROPS)
                        assert_int_equal(nla_put_u64(m, 2, 17), 0);
                if (what & TX_OVERRUNS)
                        assert_int_equal(nla_put_u64(m, 3, UINT64_C(5000000000)), 0);
                nla_nest_end(m, app);
        }
        nla_nest_end(m, st);
        return m;
}

static void parse(struct nl_msg *m, QDiscTree *t) {
        struct nlmsghdr *h = nlmsg_hdr(m);

        *t = (QDiscTree) {};
        assert_int_equal(qdisc_tree_parse_dump(h, h->nlmsg_len, 3, t), 0);
        assert_true(t->has_root);
        assert_int_equal(t->root.stats.packets, 1000);
        assert_int_equal(t->root.stats.drops, 3);
}

static void test_parse(void **state) {
        static const struct {
                const char *kind;
                unsigned what;
                bool window, overruns;
        } cases[] = {
                { "taprio", WINDOW_DROPS | TX_OVERRUNS, true, true },
                { "taprio", WINDOW_DROPS | TX_OVERRUNS | PAD, true, true },
                { "taprio", TX_OVERRUNS, false, true },         /* a driver that counts overruns only */
                { "taprio", WINDOW_DROPS, true, false },
                { "taprio", 0, false, false },                  /* software taprio, or no driver counters */
                { "fq_codel", APP_NOT_NESTED, false, false },   /* another kind's xstats are not read */
                { "taprio", APP_NOT_NESTED, false, false },     /* an APP taprio cannot have: ignored */
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct nl_msg *m = root_message(cases[i].kind, cases[i].what);
                QDiscTree t;

                parse(m, &t);
                assert_int_equal(t.root.stats.offload.has_window_drops, cases[i].window);
                assert_int_equal(t.root.stats.offload.has_tx_overruns, cases[i].overruns);
                assert_int_equal(t.root.stats.offload.window_drops, cases[i].window ? 17 : 0);
                assert_int_equal(t.root.stats.offload.tx_overruns, cases[i].overruns ? UINT64_C(5000000000) : 0);
                qdisc_tree_done(&t);
                nlmsg_free(m);
        }
}

/* buf[*len..) += message m (NLMSG_ALIGNed), as a dump has them back to back. */
static void append(uint8_t *buf, size_t *len, struct nl_msg *m) {
        struct nlmsghdr *h = nlmsg_hdr(m);

        memcpy(buf + *len, h, h->nlmsg_len);
        *len += NLMSG_ALIGN(h->nlmsg_len);
        nlmsg_free(m);
}

/* A child qdisc (pfifo, kernel-chosen handle) on TX queue queue of root 100:. */
static struct nl_msg *child_message(uint32_t queue) {
        struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = 3, .tcm_handle = 0x80010000 + (queue << 16),
                             .tcm_parent = 0x01000000 | (queue + 1) };
        struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWQDISC, NLM_F_MULTI);

        assert_non_null(m);
        assert_int_equal(nlmsg_append(m, &tcm, sizeof(tcm), NLMSG_ALIGNTO), 0);
        assert_int_equal(nla_put_string(m, TCA_KIND, "pfifo"), 0);
        return m;
}

/* taprio_dump_class() and taprio_dump_class_stats() of TX queue queue:
 * handle 100:(queue + 1), parent root, the child's counters, and the
 * queue's offload statistics (TAPRIO_CMD_QUEUE_STATS) what asks for. */
static struct nl_msg *class_message(int ifindex, uint32_t queue, unsigned what) {
        struct tcmsg tcm = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_handle = 0x01000000 | (queue + 1),
                             .tcm_parent = TC_H_ROOT, .tcm_info = 0x80010000 + (queue << 16) };
        struct gnet_stats_basic basic = { .bytes = 640, .packets = 10 };
        struct gnet_stats_queue q = {};
        struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWTCLASS, NLM_F_MULTI);
        struct nlattr *st, *app;

        assert_non_null(m);
        assert_int_equal(nlmsg_append(m, &tcm, sizeof(tcm), NLMSG_ALIGNTO), 0);
        assert_int_equal(nla_put_string(m, TCA_KIND, "taprio"), 0);
        st = nla_nest_start(m, TCA_STATS2);
        assert_int_equal(nla_put(m, TCA_STATS_BASIC, sizeof(basic), &basic), 0);
        assert_int_equal(nla_put(m, TCA_STATS_QUEUE, sizeof(q), &q), 0);
        if (what) {
                app = nla_nest_start(m, TCA_STATS_APP);
                app->nla_type |= NLA_F_NESTED;
                if (what & WINDOW_DROPS)
                        assert_int_equal(nla_put_u64(m, 2, 100 + queue), 0);
                if (what & TX_OVERRUNS)
                        assert_int_equal(nla_put_u64(m, 3, 200 + queue), 0);
                nla_nest_end(m, app);
        }
        nla_nest_end(m, st);
        return m;
}

/* The class dump of an offloaded taprio adds each queue's statistics;
 * classes of another interface or without them add nothing. */
static void test_class_stats(void **state) {
        static uint8_t dump[8192] __attribute__((aligned(4))), classes[8192] __attribute__((aligned(4)));
        size_t dlen = 0, clen = 0;
        QDiscTree t = {};

        (void) state;
        append(dump, &dlen, root_message("taprio", WINDOW_DROPS | TX_OVERRUNS));
        for (uint32_t i = 0; i < 3; i++)
                append(dump, &dlen, child_message(i));
        assert_int_equal(qdisc_tree_parse_dump(dump, dlen, 3, &t), 0);
        assert_int_equal(t.n_queues, 3);

        append(classes, &clen, class_message(3, 0, WINDOW_DROPS | TX_OVERRUNS));
        append(classes, &clen, class_message(3, 1, TX_OVERRUNS));
        append(classes, &clen, class_message(3, 2, 0));
        append(classes, &clen, class_message(4, 2, WINDOW_DROPS));      /* another interface's */
        append(classes, &clen, class_message(3, 7, WINDOW_DROPS));      /* a queue the tree lacks */
        assert_int_equal(qdisc_tree_add_class_stats(&t, classes, clen), 0);
        assert_true(t.queues[0].offload.has_window_drops);
        assert_int_equal(t.queues[0].offload.window_drops, 100);
        assert_int_equal(t.queues[0].offload.tx_overruns, 200);
        assert_false(t.queues[1].offload.has_window_drops);
        assert_true(t.queues[1].offload.has_tx_overruns);
        assert_int_equal(t.queues[1].offload.tx_overruns, 201);
        assert_false(t.queues[2].offload.has_window_drops);
        assert_false(t.queues[2].offload.has_tx_overruns);

        /* Per traffic class (root: class 0 on queue 0, class 1 on queue 1):
         * a counter is there when every queue of the class has it. */
        TaprioOffloadStats c;
        qdisc_tree_class_offload_stats(&t, 0, &c);
        assert_true(c.has_window_drops && c.has_tx_overruns);
        assert_int_equal(c.window_drops, 100);
        assert_int_equal(c.tx_overruns, 200);
        qdisc_tree_class_offload_stats(&t, 1, &c);
        assert_false(c.has_window_drops);
        assert_true(c.has_tx_overruns);
        assert_int_equal(c.tx_overruns, 201);
        qdisc_tree_class_offload_stats(&t, 2, &c);      /* no such class */
        assert_false(c.has_window_drops || c.has_tx_overruns);
        /* One class over queues 0 and 1: the sum of both; window drops, which
         * queue 1 lacks, unknown. Over queues 1 and 2: queue 2 has none. */
        t.root_spec.num_tc = 2;
        t.root_spec.queues[0] = (QueueRange) { .count = 2, .offset = 0 };
        t.root_spec.queues[1] = (QueueRange) { .count = 2, .offset = 1 };
        qdisc_tree_class_offload_stats(&t, 0, &c);
        assert_false(c.has_window_drops);
        assert_int_equal(c.window_drops, 0);
        assert_true(c.has_tx_overruns);
        assert_int_equal(c.tx_overruns, 401);
        qdisc_tree_class_offload_stats(&t, 1, &c);
        assert_false(c.has_tx_overruns);
        assert_int_equal(c.tx_overruns, 0);
        /* A queue the tree does not have (class beyond its queues). */
        t.root_spec.queues[1] = (QueueRange) { .count = 1, .offset = 7 };
        qdisc_tree_class_offload_stats(&t, 1, &c);
        assert_false(c.has_tx_overruns || c.has_window_drops);
        qdisc_tree_done(&t);
}

static char *render(const char *doc_text) {
        struct json_object *doc = json_tokener_parse(doc_text);
        char *s = NULL;

        assert_non_null(doc);
        assert_int_equal(metrics_render_string(&doc, 1, &s), 0);
        json_object_put(doc);
        return s;
}

/* The metrics from status documents (what tbsctl renders): a family has a
 * sample only where the root's stats have the key. */
static void test_metrics(void **state) {
        char *s;

        (void) state;
        s = render("{\"interface\": \"sw0\", \"state\": \"configured\", \"root\": {\"qdisc\": \"taprio\","
                   " \"stats\": {\"packets\": 1, \"window_drops\": 17}}, \"txqueues\": []}");
        assert_non_null(strstr(s, "\ntbs_taprio_window_drops_total{interface=\"sw0\",device=\"sw0\"} 17\n"));
        assert_null(strstr(s, "\ntbs_taprio_tx_overruns_total{"));
        free(s);
        s = render("{\"interface\": \"sw0\", \"state\": \"configured\", \"root\": {\"qdisc\": \"taprio\","
                   " \"stats\": {\"packets\": 1, \"window_drops\": 0, \"tx_overruns\": 5000000000}},"
                   " \"txqueues\": []}");
        assert_non_null(strstr(s, "\ntbs_taprio_window_drops_total{interface=\"sw0\",device=\"sw0\"} 0\n"));
        assert_non_null(strstr(s, "\ntbs_taprio_tx_overruns_total{interface=\"sw0\",device=\"sw0\"} 5000000000\n"));
        free(s);
        s = render("{\"interface\": \"sw0\", \"state\": \"configured\", \"root\": {\"qdisc\": \"taprio\","
                   " \"stats\": {\"packets\": 1, \"tx_overruns\": 3}}, \"txqueues\": [{\"queue\": 1, \"qdisc\": \"pfifo\","
                   " \"stats\": {\"packets\": 1, \"tx_overruns\": 2}}, {\"queue\": 2, \"qdisc\": \"pfifo\","
                   " \"stats\": {\"packets\": 1}}]}");
        assert_non_null(strstr(s, "\ntbs_queue_tx_overruns_total{interface=\"sw0\",device=\"sw0\",queue=\"1\","
                               "qdisc=\"pfifo\"} 2\n"));
        assert_null(strstr(s, "\ntbs_queue_tx_overruns_total{interface=\"sw0\",device=\"sw0\",queue=\"2\""));
        assert_null(strstr(s, "\ntbs_queue_window_drops_total{"));
        free(s);
        s = render("{\"interface\": \"sw0\", \"state\": \"configured\", \"root\": {\"qdisc\": \"taprio\","
                   " \"stats\": {\"packets\": 1}}, \"txqueues\": []}");
        assert_null(strstr(s, "\ntbs_taprio_window_drops_total{"));
        assert_null(strstr(s, "\ntbs_taprio_tx_overruns_total{"));
        free(s);
}

/* The typed samples (the daemon's metrics file): the same rule. */
static void test_metrics_typed(void **state) {
        MetricsLink l = { .interface = "sw0", .state = "configured",
                          .has_taprio_stats = 1u << METRICS_TAPRIO_TX_OVERRUNS,
                          .taprio_stats = { [METRICS_TAPRIO_WINDOW_DROPS] = 9, [METRICS_TAPRIO_TX_OVERRUNS] = 4 } };
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);

        (void) state;
        assert_non_null(f);
        assert_int_equal(metrics_render_links(&l, 1, f), 0);
        assert_int_equal(fclose(f), 0);
        assert_non_null(strstr(s, "\ntbs_taprio_tx_overruns_total{interface=\"sw0\",device=\"sw0\"} 4\n"));
        assert_null(strstr(s, "\ntbs_taprio_window_drops_total{"));
        free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_class_stats),
                cmocka_unit_test(test_metrics),
                cmocka_unit_test(test_metrics_typed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

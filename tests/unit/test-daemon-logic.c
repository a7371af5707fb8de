/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure parts of the daemon core: who may call privileged methods, how
 * rtnetlink notifications are read, how drift is described, and how rates
 * come out of statistics samples across sampling pauses. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "bus-access.h"
#include "diag.h"
#include "drift.h"
#include "link-watch.h"
#include "link.h"
#include "manager.h"
#include "schedule-parse.h"

static void test_access(void **state) {
        gid_t gids[] = { 100, 4242 };

        assert_true(bus_access_decide(0, NULL, 0, false, 0, false));
        assert_false(bus_access_decide(65534, NULL, 0, false, 4242, true));
        assert_true(bus_access_decide(1000, gids, 2, true, 4242, true));
        /* Groups the bus did not vouch for do not count. */
        assert_false(bus_access_decide(1000, gids, 2, false, 4242, true));
        /* No admin group configured: root only. */
        assert_false(bus_access_decide(1000, gids, 2, true, 4242, false));
        assert_false(bus_access_decide(1000, gids, 1, true, 4242, true));
}

typedef struct Seen {
        LinkWatchEvent ev[8];
        int n;
} Seen;

static void collect(const LinkWatchEvent *ev, void *userdata) {
        Seen *s = userdata;
        if (s->n < 8)
                s->ev[s->n++] = *ev;
}

/* Appends one netlink message of the given type and payload to buf. */
static size_t put_msg(uint8_t *buf, size_t off, uint16_t type, const void *payload, size_t len,
                      const char *ifname) {
        struct nlmsghdr *h = (struct nlmsghdr *) (buf + off);
        size_t total = NLMSG_LENGTH(len);

        memset(h, 0, NLMSG_SPACE(len) + (ifname ? RTA_SPACE(IFNAMSIZ) : 0));
        memcpy(NLMSG_DATA(h), payload, len);
        if (ifname) {
                struct rtattr *a = (struct rtattr *) (buf + off + NLMSG_ALIGN(total));
                a->rta_type = IFLA_IFNAME;
                a->rta_len = RTA_LENGTH(strlen(ifname) + 1);
                memcpy(RTA_DATA(a), ifname, strlen(ifname) + 1);
                total = NLMSG_ALIGN(total) + RTA_ALIGN(a->rta_len);
        }
        h->nlmsg_len = (uint32_t) total;
        h->nlmsg_type = type;
        return off + NLMSG_ALIGN(total);
}

static void test_watch_parse(void **state) {
        _Alignas(4) uint8_t buf[1024];
        struct ifinfomsg ifi = { .ifi_index = 7 };
        struct tcmsg tcm = { .tcm_ifindex = 9 };
        struct rtmsg rtm = {};
        Seen seen = {};
        size_t len = 0;

        len = put_msg(buf, len, RTM_NEWLINK, &ifi, sizeof(ifi), "eth7");
        len = put_msg(buf, len, RTM_NEWROUTE, &rtm, sizeof(rtm), NULL); /* ignored */
        len = put_msg(buf, len, RTM_DELQDISC, &tcm, sizeof(tcm), NULL);
        ifi.ifi_index = 8;
        len = put_msg(buf, len, RTM_DELLINK, &ifi, sizeof(ifi), NULL);
        /* A filter deleted (the socket guard's drift) wakes the link too. */
        tcm.tcm_ifindex = 10;
        len = put_msg(buf, len, RTM_DELTFILTER, &tcm, sizeof(tcm), NULL);

        assert_int_equal(link_watch_parse(buf, len, collect, &seen), 4);
        assert_int_equal(seen.ev[0].kind, LINK_WATCH_LINK_NEW);
        assert_int_equal(seen.ev[0].ifindex, 7);
        assert_string_equal(seen.ev[0].ifname, "eth7");
        assert_int_equal(seen.ev[1].kind, LINK_WATCH_QDISC);
        assert_int_equal(seen.ev[1].ifindex, 9);
        assert_int_equal(seen.ev[2].kind, LINK_WATCH_LINK_DEL);
        assert_int_equal(seen.ev[2].ifindex, 8);
        assert_string_equal(seen.ev[2].ifname, "");
        assert_int_equal(seen.ev[3].kind, LINK_WATCH_QDISC);
        assert_int_equal(seen.ev[3].ifindex, 10);

        /* A link message too short for its header is malformed. */
        ((struct nlmsghdr *) buf)->nlmsg_len = NLMSG_LENGTH(4);
        assert_int_equal(link_watch_parse(buf, NLMSG_LENGTH(4), collect, &seen), -EBADMSG);
}

static const char schedule_text[] =
        "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"
        " \"priority_map\": [1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1],"
        " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1}]},"
        " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"etf\", \"delta_ns\": 200000, \"offload\": false}],"
        " \"drift\": \"report\"}";

/* The tree tbsd would install for the schedule above. */
static void tree_for(const Schedule *s, QDiscTree *t, InstalledQueue *q) {
        *t = (QDiscTree) {
                .has_root = true,
                .root_known = true,
                .root = { .kind = "mqprio", .handle = TBS_DEFAULT_ROOT_HANDLE },
                .root_spec = s->root,
                .queues = q,
                .n_queues = 1,
        };
        t->root_spec.handle = TBS_DEFAULT_ROOT_HANDLE;
        *q = (InstalledQueue) {
                .queue = 0,
                .qdisc = { .kind = "etf", .handle = 0x01010000, .parent = TBS_DEFAULT_ROOT_HANDLE | 1 },
                .is_etf = true,
                .etf = s->txqueues[0],
        };
        q->etf.offload = OFFLOAD_OFF;
}

static void test_drift(void **state) {
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;
        DiagList d = {};
        InstalledQueue q;
        QDiscTree t;

        assert_int_equal(schedule_parse_json("x.json", schedule_text, strlen(schedule_text), &d, &s), 0);
        assert_int_equal(s->drift, DRIFT_REPORT);

        tree_for(s, &t, &q);
        assert_int_equal(drift_describe(&t, s, NULL, NULL), 0);

        q.etf.etf.delta_ns = 250000;
        assert_int_equal(drift_describe(&t, s, NULL, &a), 1);
        assert_string_equal(a, "txqueue 0: etf 101: delta 250000 ns instead of 200000 ns");

        tree_for(s, &t, &q);
        q.is_etf = false;
        strcpy(q.qdisc.kind, "pfifo_fast");
        q.qdisc.handle = 0;
        assert_int_equal(drift_describe(&t, s, NULL, &b), 1);
        assert_string_equal(b, "txqueue 0: pfifo_fast 0: instead of etf");

        tree_for(s, &t, &q);
        t.root_known = false;
        strcpy(t.root.kind, "noqueue");
        t.root.handle = 0;
        assert_int_equal(drift_describe(&t, s, NULL, &c), 1);
        assert_string_equal(c, "root is noqueue 0: instead of mqprio 100:");
        diag_list_clear(&d);
}

/* A cbs queue given by bandwidth: compared after the link speed resolves
 * it (1000 Mbit/s: 20000 kbit/s, 1500-byte frames give -980000, 30, -1470);
 * which value differs is named; an etf where a cbs is declared is another
 * kind; without any speed the four values are unknown and that is said. */
static void test_drift_cbs(void **state) {
        static const char text[] =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"
                " \"priority_map\": [1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1],"
                " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1}]},"
                " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"cbs\", \"bandwidth_kbps\": 20000,"
                " \"max_frame_bytes\": 1500, \"max_interference_bytes\": 1500, \"offload\": false}]}";
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;
        DeviceFacts gig = { .link_speed_mbps = 1000 };
        DiagList d = {};
        InstalledQueue q;
        QDiscTree t;

        assert_int_equal(schedule_parse_json("c.json", text, strlen(text), &d, &s), 0);
        tree_for(s, &t, &q);
        strcpy(q.qdisc.kind, "cbs");
        q.is_etf = false;
        q.is_cbs = true;
        q.etf.cbs.idle_slope_kbps = 20000;
        q.etf.cbs.send_slope_kbps = -980000;
        q.etf.cbs.hi_credit_bytes = 30;
        q.etf.cbs.lo_credit_bytes = -1470;
        assert_int_equal(drift_describe(&t, s, &gig, NULL), 0);

        q.etf.cbs.hi_credit_bytes = 31;
        assert_int_equal(drift_describe(&t, s, &gig, &a), 1);
        assert_string_equal(a, "txqueue 0: cbs 101: hicredit 31 bytes instead of 30");

        q.etf.cbs.hi_credit_bytes = 30;
        q.is_cbs = false;
        q.is_etf = true;
        q.etf.kind = TXQ_ETF;
        strcpy(q.qdisc.kind, "etf");
        assert_int_equal(drift_describe(&t, s, &gig, &b), 1);
        assert_string_equal(b, "txqueue 0: etf 101: instead of cbs");

        assert_int_equal(drift_describe(&t, s, NULL, &c), 1);
        assert_string_equal(c, "txqueue 0 (cbs): bandwidth_kbps needs the link speed, which the device does not "
                            "report (is the link down?); give link_speed_mbps");
}

/* An etf under a cbs: the etf's settings are compared (named "etf under
 * it"), and an etf missing or not declared under the cbs is said. */
static void test_drift_cbs_etf(void **state) {
        static const char text[] =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"
                " \"priority_map\": [1,1,1,0,1,1,1,1,1,1,1,1,1,1,1,1],"
                " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1}]},"
                " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000,"
                " \"send_slope_kbps\": -980000, \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470,"
                " \"offload\": false, \"child\": {\"delta_ns\": 500000, \"offload\": \"auto\"}}],"
                " \"allow\": [\"ptp-etf\"]}";
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;
        DiagList d = {};
        InstalledQueue q;
        QDiscTree t;

        assert_int_equal(schedule_parse_json("c.json", text, strlen(text), &d, &s), 0);
        tree_for(s, &t, &q);
        strcpy(q.qdisc.kind, "cbs");
        q.is_etf = false;
        q.is_cbs = true;
        q.etf.child_offload = OFFLOAD_OFF;      /* "auto" without facts: software */
        q.child = (InstalledQDisc) { .kind = "etf", .handle = 0x02010000, .parent = 0x01010001 };
        assert_int_equal(drift_describe(&t, s, NULL, NULL), 0);

        q.etf.etf.delta_ns = 400000;
        assert_int_equal(drift_describe(&t, s, NULL, &a), 1);
        assert_string_equal(a, "txqueue 0: cbs 101: etf under it: delta 400000 ns instead of 500000 ns");

        q.etf.etf.delta_ns = 500000;
        q.etf.etf_child = false;
        q.child = (InstalledQDisc) {};
        assert_int_equal(drift_describe(&t, s, NULL, &b), 1);
        assert_string_equal(b, "txqueue 0: cbs 101: has no etf under it");

        s->txqueues[0].etf_child = false;
        q.etf.etf_child = true;
        assert_int_equal(drift_describe(&t, s, NULL, &c), 1);
        assert_string_equal(c, "txqueue 0: cbs 101: has an etf under it, which is not declared");
        diag_list_clear(&d);
}

/* An etf as the root: equal, other options, another kind. */
static void test_drift_leaf_root(void **state) {
        static const char text[] =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"etf\", \"delta_ns\": 300000},"
                " \"allow\": [\"ptp-etf\"]}";
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *a = NULL, *b = NULL;
        DiagList d = {};
        QDiscTree t;

        assert_int_equal(schedule_parse_json("r.json", text, strlen(text), &d, &s), 0);
        t = (QDiscTree) {
                .has_root = true,
                .root_known = true,
                .root = { .kind = "etf", .handle = TBS_DEFAULT_ROOT_HANDLE },
                .root_spec = s->root,
        };
        t.root_spec.leaf.offload = OFFLOAD_OFF;
        assert_int_equal(drift_describe(&t, s, NULL, NULL), 0);
        t.root_spec.leaf.etf.delta_ns = 1;
        assert_int_equal(drift_describe(&t, s, NULL, &a), 1);
        assert_string_equal(a, "root etf 100: delta 1 ns instead of 300000 ns");
        t.root_spec.kind = ROOT_CBS;
        strcpy(t.root.kind, "cbs");
        assert_int_equal(drift_describe(&t, s, NULL, &b), 1);
        assert_string_equal(b, "root is cbs 100: instead of etf 100:");
        diag_list_clear(&d);
}

static void test_drift_key(void **state) {
        static const char bad[] =
                "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"
                " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
                " \"queues\": [{\"count\": 1, \"offset\": 0}]}, \"drift\": \"ignore\"}";
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *line = NULL;
        DiagList d = {};

        assert_int_equal(schedule_parse_json("y.json", bad, strlen(bad), &d, &s), -EINVAL);
        assert_null(s);
        assert_int_equal(d.n, 1);
        line = diag_format(&d.items[0]);
        assert_string_equal(line, "y.json: drift: unknown policy \"ignore\"; expected \"enforce\" or \"report\"");
        diag_list_clear(&d);
}

/* A one-queue sample as qdisc_tree_set_take_slim() gives it. */
static QDiscTree one_queue_tree(uint32_t handle, const char *kind, uint64_t packets) {
        QDiscTree t = { .ifindex = 7, .has_root = true };

        t.queues = calloc(1, sizeof(InstalledQueue));
        assert_non_null(t.queues);
        t.n_queues = 1;
        t.queues[0].queue = 0;
        t.queues[0].qdisc.handle = handle;
        snprintf(t.queues[0].qdisc.kind, sizeof(t.queues[0].qdisc.kind), "%s", kind);
        t.queues[0].qdisc.stats.packets = packets;
        t.queues[0].qdisc.stats.bytes = packets * 100;
        return t;
}

static void sample(Link *l, uint32_t handle, const char *kind, uint64_t packets, uint64_t sec) {
        QDiscTree t = one_queue_tree(handle, kind, packets);

        link_take_sample(l, &t, sec * 1000000, sec * 1000000);
}

static void assert_rate(Link *l, double interval_s, double pps) {
        QueueRates r;

        assert_int_equal(link_queue_rates(l, 0, &r), 0);
        assert_true(r.interval_s > interval_s - 1e-9 && r.interval_s < interval_s + 1e-9);
        assert_true(r.packets_per_second > pps - 1e-9 && r.packets_per_second < pps + 1e-9);
        assert_true(r.bytes_per_second > 100 * pps - 1e-6 && r.bytes_per_second < 100 * pps + 1e-6);
}

/* The first rate after a pause spans the pause, also for a link that took
 * no sample between two pauses (its counters move to the new block). */
static void test_rates_across_pauses(void **state) {
        LinkContext ctx = {};
        QueueCounters *kept = NULL;
        Link *a = NULL, *b = NULL, *links[2];
        QueueRates r;

        assert_int_equal(link_new(&ctx, "x0", &a), 0);
        assert_int_equal(link_new(&ctx, "x1", &b), 0);
        links[0] = a;
        links[1] = b;

        sample(a, 0x10001, "etf", 100, 1);
        sample(b, 0x10001, "etf", 50, 1);
        assert_int_equal(link_queue_rates(a, 0, &r), -ENODATA);        /* one sample: no rate */
        sample(a, 0x10001, "etf", 300, 2);
        assert_rate(a, 1, 200);

        links_drop_samples(links, 2, &kept);      /* pause 1 */
        assert_null(link_last_sample(a, NULL));
        assert_int_equal(link_queue_rates(a, 0, &r), -ENODATA);

        sample(a, 0x10001, "etf", 1300, 12);
        assert_rate(a, 10, 100);                                        /* from 2 s to 12 s */

        links_drop_samples(links, 2, &kept);      /* pause 2: b took none */
        sample(b, 0x10001, "etf", 250, 21);
        assert_rate(b, 20, 10);                                         /* from 1 s to 21 s */
        sample(a, 0x10001, "etf", 1500, 32);
        assert_rate(a, 20, 10);                                         /* from 12 s to 32 s */

        /* The same handle with another kind: a new qdisc, no rate across it. */
        sample(a, 0x10001, "pfifo", 2000, 33);
        assert_int_equal(link_queue_rates(a, 0, &r), -ENODATA);
        sample(a, 0x10001, "pfifo", 2100, 34);
        assert_rate(a, 1, 100);

        link_free(a);
        link_free(b);
        free(kept);
}

/* manager_find_link() finds every link by name in any order, after
 * removals from the middle too; the links keep the order they were made
 * in; manager_free() frees them all. */
static void test_find_link(void **state) {
        Manager *m = calloc(1, sizeof(Manager));
        enum { N = 1024 };
        char name[32];
        Link *made[N], *l;

        assert_non_null(m);
        assert_null(manager_find_link(m, "b0"));        /* no link made yet */
        for (size_t i = 0; i < N; i++) {
                snprintf(name, sizeof(name), "b%zu", i);
                assert_int_equal(manager_new_link(m, name, &made[i]), 0);
        }
        assert_int_equal(m->n_links, N);
        for (size_t k = 0; k < N; k++) {
                size_t i = (k * 7919) % N;      /* a scattered order */

                snprintf(name, sizeof(name), "b%zu", i);
                assert_ptr_equal(manager_find_link(m, name), made[i]);
        }
        assert_null(manager_find_link(m, "b1024"));
        /* Every third link goes: the others are found, in their order. */
        for (size_t i = 0; i < N; i += 3)
                manager_free_link(m, made[i]);
        for (size_t i = 0, at = 0; i < N; i++) {
                snprintf(name, sizeof(name), "b%zu", i);
                if (i % 3 == 0) {
                        assert_null(manager_find_link(m, name));
                        continue;
                }
                assert_ptr_equal(manager_find_link(m, name), made[i]);
                assert_ptr_equal(m->links[at++], made[i]);
        }
        /* By index: the first link in order with it; a change of the
         * links' indexes (link_set_ifindex() tells the manager, which
         * marks its index stale) is seen at the next lookup. */
        for (size_t i = 0; i < m->n_links; i++)
                m->links[i]->ifindex = (int) i + 2;
        m->links_by_ifindex_stale = true;
        for (size_t i = m->n_links; i > 0; i--)
                assert_ptr_equal(manager_find_link_by_ifindex(m, (int) i + 1), m->links[i - 1]);
        assert_null(manager_find_link_by_ifindex(m, (int) m->n_links + 2));
        m->links[5]->ifindex = 3;               /* the same index as links[1] */
        m->links[1]->ifindex = 0;
        m->links_by_ifindex_stale = true;
        assert_ptr_equal(manager_find_link_by_ifindex(m, 3), m->links[5]);
        assert_null(manager_find_link_by_ifindex(m, 7));
        assert_ptr_equal(manager_find_link_by_ifindex(m, 0), m->links[1]);   /* as a plain search */
        m->links[1]->ifindex = 3;
        m->links_by_ifindex_stale = true;
        assert_ptr_equal(manager_find_link_by_ifindex(m, 3), m->links[1]);   /* the first wins */
        manager_free_link(m, m->links[1]);
        assert_ptr_equal(manager_find_link_by_ifindex(m, 3), m->links[4]);   /* was links[5] */

        /* A name made again is a new link, found. */
        assert_int_equal(manager_new_link(m, "b0", &l), 0);
        assert_ptr_equal(manager_find_link(m, "b0"), l);
        assert_ptr_equal(m->links[m->n_links - 1], l);
        manager_free(m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_access),
                cmocka_unit_test(test_watch_parse),
                cmocka_unit_test(test_drift),
                cmocka_unit_test(test_drift_cbs),
                cmocka_unit_test(test_drift_cbs_etf),
                cmocka_unit_test(test_drift_leaf_root),
                cmocka_unit_test(test_drift_key),
                cmocka_unit_test(test_rates_across_pauses),
                cmocka_unit_test(test_find_link),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

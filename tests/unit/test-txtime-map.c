/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/broker/txtime-map.c on parsed schedules: which priority reaches a TX
 * queue, a traffic class or stays as given; the etf settings a class's
 * socket must have and when no one setting fits; the SO_TXTIME flags; the
 * open windows of a taprio class as the kernel checks launch times
 * against them (cut at the cycle's end, gap after the last entry, adjacent
 * entries kept apart), the first launch time a window holds with a guard,
 * which schedule a dumped root runs; a root without classes (a single etf,
 * a cbs with or without an etf under it); the network-control EtherTypes a
 * packet socket needs the schedule's word for (and that the docs list
 * them all); daemon/broker/txtime-socket.c's kind names, time-stamping flags and
 * the receive filter of a packet socket, run on frames. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "read-all.h"
#include "schedule-parse.h"
#include "txtime-map.h"
#include "txtime-socket.h"

/* Priority 0 -> class 3, 1 -> 2, 2 -> 1, 3 -> 0, 4 -> 4 (queues 4-5), the
 * rest -> 3; class 5 has no priority. */
static const char MQ[] =
        "{\"interface\": \"eth0\","
        " \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 6,"
        "  \"priority_map\": [3, 2, 1, 0, 4, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],"
        "  \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
        "             {\"count\": 2, \"offset\": 2}, {\"count\": 1, \"offset\": 4},"
        "             {\"count\": 2, \"offset\": 5}, {\"count\": 1, \"offset\": 7}]},"
        " \"txqueues\": [{\"queue\": 0, \"delta_ns\": 200000},"
        "   {\"queue\": 1, \"delta_ns\": 300000, \"deadline_mode\": true},"
        "   {\"queue\": 2, \"delta_ns\": 100000}, {\"queue\": 3, \"delta_ns\": 400000},"
        "   {\"queue\": 5, \"delta_ns\": 100000}]}";

static Schedule *parse(const char *text) {
        Schedule *s = NULL;
        DiagList d = {};

        assert_int_equal(schedule_parse_json("t.json", text, strlen(text), &d, &s), 0);
        diag_list_clear(&d);
        return s;
}

static void test_resolve_queue(void **state) {
        _cleanup_schedule_ Schedule *s = parse(MQ);
        char why[TXTIME_WHY_MAX];
        TxtimeTarget t;

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 0, &t, why), 0);
        assert_int_equal(t.priority, 3);
        assert_int_equal(t.tc, 0);
        assert_int_equal(t.queue, 0);
        assert_int_equal(t.first_queue, 0);
        assert_int_equal(t.n_queues, 1);

        /* Queue 3 is the second queue of class 2: priority 1, both queues. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 3, &t, why), 0);
        assert_int_equal(t.priority, 1);
        assert_int_equal(t.tc, 2);
        assert_int_equal(t.queue, 3);
        assert_int_equal(t.first_queue, 2);
        assert_int_equal(t.n_queues, 2);

        /* Class 3 (queue 4): the lowest of 0, 5, 6, ... */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 4, &t, why), 0);
        assert_int_equal(t.priority, 0);

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 8, &t, why), -ERANGE);
        assert_string_equal(why, "TX queue 8 is in none of the root's traffic classes");
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, UINT32_MAX - 1, &t, NULL), -ERANGE);
        /* Class 5 exists, but no priority reaches it. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 7, &t, why), -ENODATA);
        assert_string_equal(why, "no socket priority maps to traffic class 5");
}

/* The i210 shape: taprio in txtime-assist mode with every class on queue
 * 0 (priority 0 -> class 2, 2 -> 1, 3 -> 0). By queue, the socket goes
 * through the lowest class a priority reaches; by class or priority, each
 * class reaches queue 0 with its own priority and the one etf. */
static const char ASSIST[] =
        "{\"interface\": \"eth0\","
        " \"root\": {\"qdisc\": \"taprio\", \"num_tc\": 3, \"mode\": \"txtime-assist\","
        "  \"txtime_delay_ns\": 300000, \"clockid\": \"CLOCK_TAI\", \"base_time_ns\": 0,"
        "  \"priority_map\": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
        "  \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 0},"
        "             {\"count\": 1, \"offset\": 0}],"
        "  \"entries\": [{\"gate_mask\": 1, \"interval_ns\": 300000}, {\"gate_mask\": 2, \"interval_ns\": 300000},"
        "              {\"gate_mask\": 4, \"interval_ns\": 400000}]},"
        " \"txqueues\": [{\"queue\": 0, \"delta_ns\": 200000, \"skip_sock_check\": true}]}";

static void test_resolve_shared_queue(void **state) {
        _cleanup_schedule_ Schedule *s = parse(ASSIST);
        char why[TXTIME_WHY_MAX];
        TxtimeTarget t;
        TxtimeEtf etf;

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 0, &t, why), 0);
        assert_int_equal(t.tc, 0);
        assert_int_equal(t.priority, 3);
        assert_int_equal(t.queue, 0);
        assert_int_equal(t.n_queues, 1);
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 1, &t, why), -ERANGE);

        for (unsigned tc = 0; tc < 3; tc++) {
                static const uint32_t prio[] = { 3, 2, 0 };

                assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, tc, &t, why), 0);
                assert_int_equal(t.priority, prio[tc]);
                assert_int_equal(t.queue, 0);
                assert_int_equal(t.first_queue, 0);
                assert_int_equal(t.n_queues, 1);
                assert_int_equal(txtime_class_etf(s, &t, &etf, why), 0);
                assert_true(etf.has_etf);
                assert_int_equal(etf.delta_ns, 200000);
        }
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 5, &t, why), 0);
        assert_int_equal(t.tc, 2);
        assert_int_equal(t.queue, 0);

        /* Class 0 reached by no priority: by queue, the next class holding it. */
        s->root.priority_map[3] = 1;
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 0, &t, why), 0);
        assert_int_equal(t.tc, 1);
        assert_int_equal(t.priority, 2);
}

static void test_resolve_class_priority(void **state) {
        _cleanup_schedule_ Schedule *s = parse(MQ);
        char why[TXTIME_WHY_MAX];
        TxtimeTarget t;

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 2, &t, why), 0);
        assert_int_equal(t.priority, 1);
        assert_int_equal(t.queue, 2);
        assert_int_equal(t.n_queues, 2);
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 6, &t, why), -ERANGE);
        assert_string_equal(why, "traffic class 6 does not exist (the root has 6)");
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, UINT32_MAX, &t, why), -ERANGE);
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 5, &t, why), -ENODATA);

        /* A priority given is kept, even when a lower one reaches the class. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 7, &t, why), 0);
        assert_int_equal(t.priority, 7);
        assert_int_equal(t.tc, 3);
        assert_int_equal(t.queue, 4);
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 15, &t, why), 0);
        assert_int_equal(t.priority, 15);
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 16, &t, why), -ERANGE);
        assert_string_equal(why, "priority 16 is out of range: the root maps priorities 0 to 15");
        assert_int_equal(txtime_target_resolve(&s->root, _TXTIME_SELECT_MAX, 0, &t, why), -EINVAL);
}

static void test_class_etf(void **state) {
        _cleanup_schedule_ Schedule *s = parse(MQ);
        char why[TXTIME_WHY_MAX];
        TxtimeTarget t;
        TxtimeEtf e;

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 1, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), 0);
        assert_true(e.has_etf);
        assert_true(e.deadline_mode);
        assert_int_equal(e.clockid, CLOCK_TAI);
        assert_int_equal(e.delta_ns, 300000);
        assert_int_equal(txtime_flags_for(&e), SOF_TXTIME_REPORT_ERRORS | SOF_TXTIME_DEADLINE_MODE);

        /* Both queues of class 2: the largest delta. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 2, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), 0);
        assert_false(e.deadline_mode);
        assert_int_equal(e.delta_ns, 400000);
        assert_int_equal(txtime_flags_for(&e), SOF_TXTIME_REPORT_ERRORS);

        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 4, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), -ENOENT);
        assert_false(e.has_etf);
        assert_string_equal(why, "TX queue 4 has no etf qdisc");
        assert_int_equal(txtime_flags_for(&e), SOF_TXTIME_REPORT_ERRORS);

        /* Class 4: queue 5 has etf, queue 6 not. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 4, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), -ENOTUNIQ);
        assert_string_equal(why, "only some of TX queues 5-6 (traffic class 4) have an etf qdisc; the kernel picks "
                                 "one of the queues per flow, so launch times would be kept on some and ignored on "
                                 "others");

        /* A cbs queue takes no launch times: as if it had no qdisc. */
        s->txqueues[1].kind = TXQ_CBS;
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 1, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), -ENOENT);
        assert_string_equal(why, "TX queue 1 has no etf qdisc");
        s->txqueues[1].kind = TXQ_ETF;

        /* Deadline mode differs within a class. */
        s->txqueues[3].etf.deadline_mode = true;
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 2, &t, why), 0);
        assert_int_equal(txtime_class_etf(s, &t, &e, why), -ENOTUNIQ);
        assert_string_equal(why, "the etf qdiscs of TX queues 2-3 (traffic class 2) differ in clock or deadline "
                                 "mode; the kernel picks one of the queues per flow, so no one socket setting fits "
                                 "them all");
}

/* A single etf as the root (single-queue NICs), and a cbs root with and
 * without an etf under it: no classes, queue 0, every priority. */
static const char LEAF_ETF[] =
        "{\"interface\": \"eth0\", \"allow\": [\"ptp-etf\"],"
        " \"root\": {\"qdisc\": \"etf\", \"delta_ns\": 300000, \"deadline_mode\": true}}";
static const char LEAF_CBS_ETF[] =
        "{\"interface\": \"eth0\", \"allow\": [\"ptp-etf\"],"
        " \"root\": {\"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
        "  \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470,"
        "  \"child\": {\"qdisc\": \"etf\", \"delta_ns\": 500000}}}";
static const char LEAF_CBS[] =
        "{\"interface\": \"eth0\","
        " \"root\": {\"qdisc\": \"cbs\", \"idle_slope_kbps\": 20000, \"send_slope_kbps\": -980000,"
        "  \"hi_credit_bytes\": 30, \"lo_credit_bytes\": -1470}}";

/* The etf settings t of a root without classes gets: the root etf's. */
static void expect_leaf_etf(const Schedule *s, const TxtimeTarget *t, bool deadline_mode, int32_t delta_ns) {
        char why[TXTIME_WHY_MAX];
        TxtimeEtf e;

        assert_int_equal(txtime_class_etf(s, t, &e, why), 0);
        assert_true(e.has_etf);
        assert_int_equal(e.deadline_mode, deadline_mode);
        assert_int_equal(e.clockid, CLOCK_TAI);
        assert_int_equal(e.delta_ns, delta_ns);
        assert_int_equal(txtime_flags_for(&e),
                         SOF_TXTIME_REPORT_ERRORS | (deadline_mode ? SOF_TXTIME_DEADLINE_MODE : 0));
}

static void test_leaf_root(void **state) {
        _cleanup_schedule_ Schedule *s = parse(LEAF_ETF), *c = parse(LEAF_CBS_ETF), *n = parse(LEAF_CBS);
        char why[TXTIME_WHY_MAX];
        TxtimeTarget t;
        TxtimeEtf e;

        assert_true(root_is_leaf(&s->root));
        /* By queue: queue 0, priority 0. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 0, &t, why), 0);
        assert_true(t.leaf);
        assert_int_equal(t.priority, 0);
        assert_int_equal(t.queue, 0);
        assert_int_equal(t.first_queue, 0);
        assert_int_equal(t.n_queues, 1);
        expect_leaf_etf(s, &t, true, 300000);

        /* No other queue. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_QUEUE, 1, &t, why), -ERANGE);
        assert_string_equal(why, "TX queue 1 is not the root's: the root is a single etf qdisc, which every frame "
                                 "passes; name queue 0");
        /* Every priority reaches the root, and is kept. */
        for (uint32_t p = 0; p < TBS_PRIO_MAP_LEN; p++) {
                assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, p, &t, why), 0);
                assert_int_equal(t.priority, p);
                assert_int_equal(t.queue, 0);
                assert_true(t.leaf);
                expect_leaf_etf(s, &t, true, 300000);
        }
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_PRIORITY, 16, &t, why), -ERANGE);
        assert_string_equal(why, "priority 16 is out of range: the root takes priorities 0 to 15");
        /* There are no classes. */
        assert_int_equal(txtime_target_resolve(&s->root, TXTIME_BY_CLASS, 0, &t, why), -ERANGE);
        assert_string_equal(why, "the root is a single etf qdisc and has no traffic classes; name queue 0 or a "
                                 "priority");
        assert_int_equal(txtime_target_resolve(&s->root, _TXTIME_SELECT_MAX, 0, &t, why), -EINVAL);

        /* A cbs root: its etf child's settings. */
        assert_int_equal(txtime_target_resolve(&c->root, TXTIME_BY_QUEUE, 0, &t, why), 0);
        assert_int_equal(t.priority, 0);
        expect_leaf_etf(c, &t, false, 500000);
        assert_int_equal(txtime_target_resolve(&c->root, TXTIME_BY_CLASS, 0, &t, why), -ERANGE);
        assert_string_equal(why, "the root is a single cbs qdisc and has no traffic classes; name queue 0 or a "
                                 "priority");

        /* A cbs root without an etf takes no launch times, as a cbs queue. */
        assert_int_equal(txtime_target_resolve(&n->root, TXTIME_BY_PRIORITY, 5, &t, why), 0);
        assert_int_equal(txtime_class_etf(n, &t, &e, why), -ENOENT);
        assert_false(e.has_etf);
        assert_string_equal(why, "TX queue 0 (the root cbs) has no etf qdisc");
        assert_int_equal(txtime_flags_for(&e), SOF_TXTIME_REPORT_ERRORS);
}

/* A taprio root with the given entries (mask, interval) and cycle (0: the sum). */
static Schedule *taprio(const char *entries, int64_t cycle) {
        char text[2048];
        char extra[64] = "";

        if (cycle)
                snprintf(extra, sizeof(extra), ", \"cycle_time_ns\": %lld", (long long) cycle);
        snprintf(text, sizeof(text),
                 "{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"taprio\", \"num_tc\": 3,"
                 " \"priority_map\": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
                 " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
                 "             {\"count\": 2, \"offset\": 2}],"
                 " \"base_time_ns\": 1000%s, \"entries\": [%s]}}", extra, entries);
        return parse(text);
}

static void expect_windows(const RootSpec *r, unsigned tc, const TxtimeWindow *want, int n_want) {
        _cleanup_free_ TxtimeWindow *w = NULL;
        int n = txtime_windows(r, tc, &w);

        assert_int_equal(n, n_want);
        for (int i = 0; i < n; i++) {
                assert_int_equal(w[i].offset_ns, want[i].offset_ns);
                assert_int_equal(w[i].length_ns, want[i].length_ns);
        }
        if (n == 0)
                assert_null(w);
}

static void test_windows(void **state) {
        static const char entries[] =
                "{\"gate_mask\": 1, \"interval_ns\": 300000}, {\"gate_mask\": 3, \"interval_ns\": 200000},"
                "{\"gate_mask\": 4, \"interval_ns\": 400000}, {\"gate_mask\": 5, \"interval_ns\": 100000}";
        _cleanup_schedule_ Schedule *s = taprio(entries, 0);

        assert_int_equal(s->root.taprio.cycle_time_ns, 1000000);
        /* Class 0: entries 0, 1 and 3; 0 and 1 are adjacent but stay two
         * windows, since the kernel wants a frame inside one entry. */
        expect_windows(&s->root, 0,
                       (const TxtimeWindow[]) { { 0, 300000 }, { 300000, 200000 }, { 900000, 100000 } }, 3);
        expect_windows(&s->root, 1, (const TxtimeWindow[]) { { 300000, 200000 } }, 1);
        expect_windows(&s->root, 2, (const TxtimeWindow[]) { { 500000, 400000 }, { 900000, 100000 } }, 2);
        assert_int_equal(txtime_windows(&s->root, 3, &(TxtimeWindow *) { NULL }), -EINVAL);
}

static void test_windows_cycle_longer(void **state) {
        static const char entries[] =
                "{\"gate_mask\": 1, \"interval_ns\": 300000}, {\"gate_mask\": 2, \"interval_ns\": 300000}";
        _cleanup_schedule_ Schedule *s = taprio(entries, 1000000);

        /* From 600000 to the cycle's end nothing is open: no window grows
         * into that gap, and the next cycle starts at 1000000. */
        expect_windows(&s->root, 0, (const TxtimeWindow[]) { { 0, 300000 } }, 1);
        expect_windows(&s->root, 1, (const TxtimeWindow[]) { { 300000, 300000 } }, 1);
        expect_windows(&s->root, 2, NULL, 0);
}

static void test_windows_cycle_shorter(void **state) {
        static const char entries[] =
                "{\"gate_mask\": 1, \"interval_ns\": 300000}, {\"gate_mask\": 3, \"interval_ns\": 300000},"
                "{\"gate_mask\": 2, \"interval_ns\": 300000}";
        _cleanup_schedule_ Schedule *s = taprio(entries, 0);

        /* The validator wants the cycle at least the sum; a dumped root may
         * still have it shorter, so set it here: entry 1 is cut at 500000,
         * entry 2 never opens. */
        s->root.taprio.cycle_time_ns = 500000;
        expect_windows(&s->root, 0, (const TxtimeWindow[]) { { 0, 300000 }, { 300000, 200000 } }, 2);
        expect_windows(&s->root, 1, (const TxtimeWindow[]) { { 300000, 200000 } }, 1);
        /* A cycle that ends exactly where an entry starts: that entry never opens. */
        s->root.taprio.cycle_time_ns = 600000;
        expect_windows(&s->root, 1, (const TxtimeWindow[]) { { 300000, 300000 } }, 1);
}

static void test_windows_mqprio(void **state) {
        _cleanup_schedule_ Schedule *s = parse(MQ);
        TxtimeWindow *w = NULL;

        assert_int_equal(txtime_windows(&s->root, 0, &w), -EINVAL);
        assert_null(w);
}

/* The first launch time a window holds with a guard on both sides
 * (kinds/taprio-windows.c), base 1000, cycle 1000000. */
static void test_window_slot(void **state) {
        static const char entries[] =
                "{\"gate_mask\": 1, \"interval_ns\": 300000}, {\"gate_mask\": 3, \"interval_ns\": 200000},"
                "{\"gate_mask\": 4, \"interval_ns\": 400000}, {\"gate_mask\": 5, \"interval_ns\": 100000}";
        _cleanup_schedule_ Schedule *s = taprio(entries, 0);
        _cleanup_free_ TxtimeWindow *w0 = NULL, *w1 = NULL;
        const int64_t b = 1000, c = 1000000;
        int n0 = txtime_windows(&s->root, 0, &w0), n1 = txtime_windows(&s->root, 1, &w1);
        int64_t t = -1;

        assert_int_equal(n0, 3);
        assert_int_equal(n1, 1);
        /* class 1: [300000, 500000) of each cycle */
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 300100);
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b - 5000, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 300100);        /* before the base time: its first cycle */
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 7 * c + 400000, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 7 * c + 400000);        /* inside: itself */
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 7 * c + 499900, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 7 * c + 499900);        /* the last that ends before the guard */
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 7 * c + 499901, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 8 * c + 300100);        /* too late for this cycle's window: the next */
        /* class 0: the next of its windows, adjacent ones kept apart */
        assert_int_equal(txtime_window_slot(&s->root, w0, n0, b + 299950, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 300100);
        assert_int_equal(txtime_window_slot(&s->root, w0, n0, b + 499950, 100, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 900100);
        /* a pending change at until: the slot and its guard before it */
        t = -1;
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 400000, 100, b + 400100, &t), -EAGAIN);
        assert_int_equal(t, -1);
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 400000, 100, b + 400101, &t), 0);
        assert_int_equal(t, b + 400000);
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b + 600000, 100, b + c, &t), -EAGAIN);
        /* windows no longer than twice the guard hold nothing */
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b, 100000, INT64_MAX, &t), -ENOSPC);
        assert_int_equal(txtime_window_slot(&s->root, w1, n1, b, 99999, INT64_MAX, &t), 0);
        assert_int_equal(t, b + 399999);
        assert_int_equal(txtime_window_slot(&s->root, NULL, 0, b, 1, INT64_MAX, &t), -ENOSPC);
        /* class 0 with a guard of 120000: only [0, 300000) is long enough */
        assert_int_equal(txtime_window_slot(&s->root, w0, n0, b + 200000, 120000, INT64_MAX, &t), 0);
        assert_int_equal(t, b + c + 120000);
        assert_int_equal(txtime_windows_longest(w0, n0), 300000);
}

static void test_probe_guard(void **state) {
        assert_int_equal(txtime_probe_guard_ns(0), 67200);      /* taprio's own 10 Mbit/s */
        assert_int_equal(txtime_probe_guard_ns(10), 67200);
        assert_int_equal(txtime_probe_guard_ns(1000), 672);
        assert_int_equal(txtime_probe_guard_ns(10000), 68);     /* 67.2, up */
}

/* A dumped root with a change pending: the running (oper) schedule until
 * the pending one's base time, that one from then on. */
static void test_running_root(void **state) {
        _cleanup_schedule_ Schedule *s = taprio("{\"gate_mask\": 1, \"interval_ns\": 300000},"
                                                "{\"gate_mask\": 2, \"interval_ns\": 700000}", 0);
        GateEntry oper[] = { { GATE_SET_GATES, 3, 500000 } };
        RootSpec d = s->root, r;
        int64_t until = 0;

        d.taprio.base_time_ns = 5000000000;
        d.taprio.admin_pending = true;
        d.taprio.oper = (GateSchedule) { .base_time_ns = 77, .cycle_time_ns = 500000, .entries = oper, .n_entries = 1 };
        txtime_running_root(&d, 4999999999, &r, &until);
        assert_int_equal(r.taprio.base_time_ns, 77);
        assert_int_equal(r.taprio.cycle_time_ns, 500000);
        assert_ptr_equal(r.taprio.entries, oper);
        assert_int_equal(until, 5000000000);
        assert_false(r.taprio.admin_pending);
        txtime_running_root(&d, 5000000000, &r, &until);
        assert_int_equal(r.taprio.base_time_ns, 5000000000);
        assert_int_equal(r.taprio.cycle_time_ns, 1000000);
        assert_ptr_equal(r.taprio.entries, s->root.taprio.entries);
        assert_int_equal(until, INT64_MAX);
        /* nothing runs yet: the pending one, from its own base time */
        d.taprio.oper = (GateSchedule) {};
        txtime_running_root(&d, 0, &r, NULL);
        assert_int_equal(r.taprio.base_time_ns, 5000000000);
        assert_ptr_equal(r.taprio.entries, s->root.taprio.entries);
}

static void test_socket_names_flags(void **state) {
        assert_string_equal(txtime_socket_kind_to_string(TXTIME_SOCKET_PACKET), "packet");
        assert_string_equal(txtime_socket_kind_to_string(TXTIME_SOCKET_UDP6), "udp6");
        assert_null(txtime_socket_kind_to_string(_TXTIME_SOCKET_KIND_MAX));
        assert_int_equal(txtime_socket_kind_from_string("udp4"), TXTIME_SOCKET_UDP4);
        assert_int_equal(txtime_socket_kind_from_string("UDP4"), -EINVAL);
        assert_int_equal(txtime_socket_kind_from_string("raw"), -EINVAL);
        assert_int_equal(txtime_socket_kind_from_string(NULL), -EINVAL);

        assert_int_equal(txtime_timestamping_flags(false),
                         SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID);
        assert_int_equal(txtime_timestamping_flags(true),
                         SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE | SOF_TIMESTAMPING_OPT_ID);
        /* igb's ETHTOOL_GET_TS_INFO: hardware stamps, tx_types OFF and ON. */
        assert_true(txtime_hardware_tx_stamps(0x5f, 0x3));
        /* veth: software only. */
        assert_false(txtime_hardware_tx_stamps(SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
                                                       SOF_TIMESTAMPING_SOFTWARE, 0));
        /* Hardware stamps without HWTSTAMP_TX_ON. */
        assert_false(txtime_hardware_tx_stamps(0x5f, 0x1));
}

static void test_reserved_ethertypes(void **state) {
        static const uint16_t issue_types[] = { 0x0800, 0x0806, 0x86dd, 0x88f7, 0x88cc, 0x8100, 0x88a8, 0x888e, 0x88e5 };
        _cleanup_schedule_ Schedule *s = NULL;
        const TxtimeReservedEthertype *t;
        char why[TXTIME_WHY_MAX];
        size_t n;

        t = txtime_reserved_ethertypes(&n);
        assert_true(n >= ELEMENTSOF(issue_types));
        for (size_t i = 1; i < n; i++)
                assert_true(t[i - 1].type < t[i].type);         /* ascending, none twice */
        for (size_t i = 0; i < ELEMENTSOF(issue_types); i++)
                assert_non_null(txtime_reserved_ethertype(issue_types[i]));
        assert_string_equal(txtime_reserved_ethertype(0x88f7), "PTP");
        /* Application EtherTypes: local experimental, IEEE 1722 AVTP. */
        assert_null(txtime_reserved_ethertype(0x88b5));
        assert_null(txtime_reserved_ethertype(0x88b6));
        assert_null(txtime_reserved_ethertype(0x22f0));

        assert_int_equal(txtime_ethertype_allowed(NULL, 0x88b5, why), 0);
        assert_int_equal(txtime_ethertype_allowed(NULL, 0x88f7, why), -EACCES);
        assert_string_equal(why, "EtherType 0x88f7 (PTP) is network control: tbsd opens packet sockets for it only "
                                 "where the schedule lists it in sockets.ethertypes");
        s = parse("{\"interface\": \"eth0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"
                  " \"priority_map\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],"
                  " \"queues\": [{\"count\": 1, \"offset\": 0}]}, \"txqueues\": [],"
                  " \"sockets\": {\"ethertypes\": [\"0x88F7\", 2054]}}");
        assert_null(s->sockets.group);
        assert_int_equal(txtime_ethertype_allowed(&s->sockets, 0x88f7, why), 0);
        assert_int_equal(txtime_ethertype_allowed(&s->sockets, 0x0806, why), 0);
        assert_int_equal(txtime_ethertype_allowed(&s->sockets, 0x0800, why), -EACCES);
        assert_int_equal(txtime_ethertype_allowed(&s->sockets, 0x88b5, why), 0);
}

/* docs/schedule-format.md lists every one of them, with what it carries. */
static void test_reserved_ethertypes_documented(void **state) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        const TxtimeReservedEthertype *t;
        size_t n;

        assert_true(asprintf(&path, "%s/docs/schedule-format.md", TBS_SOURCE_DIR) >= 0);
        text = read_all(path);
        t = txtime_reserved_ethertypes(&n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *row = NULL;

                assert_true(asprintf(&row, "| `0x%04x` | %s |", t[i].type, t[i].name) >= 0);
                if (!strstr(text, row))
                        fail_msg("docs/schedule-format.md lacks the row %s", row);
        }
}

/* A frame as the filter sees it: the ancillary values it loads. */
typedef struct FakeFrame {
        uint32_t ifindex, protocol, pkttype;
} FakeFrame;

/* Runs a classic BPF program of the instructions txtime_packet_filter()
 * uses (ancillary loads, JEQ with a constant, RET with a constant) on f;
 * any other instruction fails the test. Returns what it returns. */
static uint32_t run_filter(const struct sock_filter *prog, size_t len, const FakeFrame *f) {
        uint32_t a = 0;

        for (size_t pc = 0; pc < len; pc++) {
                const struct sock_filter *in = &prog[pc];

                switch (in->code) {
                case BPF_LD | BPF_W | BPF_ABS:
                case BPF_LD | BPF_H | BPF_ABS:
                case BPF_LD | BPF_B | BPF_ABS:
                        if (in->k == (uint32_t) (SKF_AD_OFF + SKF_AD_IFINDEX))
                                a = f->ifindex;
                        else if (in->k == (uint32_t) (SKF_AD_OFF + SKF_AD_PROTOCOL))
                                a = f->protocol;
                        else if (in->k == (uint32_t) (SKF_AD_OFF + SKF_AD_PKTTYPE))
                                a = f->pkttype;
                        else
                                fail_msg("load of 0x%x", in->k);
                        break;
                case BPF_JMP | BPF_JEQ | BPF_K:
                        pc += a == in->k ? in->jt : in->jf;
                        break;
                case BPF_RET | BPF_K:
                        return in->k;
                default:
                        fail_msg("instruction 0x%x at %zu", in->code, pc);
                }
        }
        fail_msg("the program runs off its end");
        return 0;
}

static void test_packet_filter(void **state) {
        struct sock_filter prog[TXTIME_PACKET_FILTER_LEN];
        static const struct {
                FakeFrame f;
                bool pass;
        } cases[] = {
                { { 7, 0x88b5, PACKET_HOST }, true },
                { { 7, 0x88b5, PACKET_BROADCAST }, true },
                { { 7, 0x88b5, PACKET_MULTICAST }, true },
                { { 7, 0x88b5, PACKET_OTHERHOST }, true },     /* as the bound socket sees in promiscuous mode */
                { { 7, 0x88b5, PACKET_OUTGOING }, false },     /* what this host sends: ETH_P_ALL only */
                { { 8, 0x88b5, PACKET_HOST }, false },         /* another interface */
                { { 1, 0x88b5, PACKET_HOST }, false },         /* lo */
                { { 7, 0x88f7, PACKET_MULTICAST }, false },    /* another EtherType */
                { { 7, 0x0800, PACKET_HOST }, false },
                { { 7, 0xb588, PACKET_HOST }, false },         /* the bytes the other way round */
                { { 0, 0, PACKET_HOST }, false },
        };

        txtime_packet_filter(7, 0x88b5, prog);
        /* The one instruction that keeps the frame keeps all of it. */
        assert_int_equal(prog[TXTIME_PACKET_FILTER_LEN - 2].code, BPF_RET | BPF_K);
        assert_int_equal(prog[TXTIME_PACKET_FILTER_LEN - 2].k, UINT32_MAX);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint32_t r = run_filter(prog, TXTIME_PACKET_FILTER_LEN, &cases[i].f);

                if ((r != 0) != cases[i].pass)
                        fail_msg("frame %zu (ifindex %u, EtherType 0x%04x, type %u): filter returned %u", i,
                                 cases[i].f.ifindex, cases[i].f.protocol, cases[i].f.pkttype, r);
        }
        /* Another interface and EtherType: another program. */
        txtime_packet_filter(300, 0x22f0, prog);
        assert_int_not_equal(run_filter(prog, TXTIME_PACKET_FILTER_LEN, &(FakeFrame) { 300, 0x22f0, PACKET_HOST }), 0);
        assert_int_equal(run_filter(prog, TXTIME_PACKET_FILTER_LEN, &(FakeFrame) { 7, 0x88b5, PACKET_HOST }), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_resolve_queue),
                cmocka_unit_test(test_resolve_class_priority),
                cmocka_unit_test(test_resolve_shared_queue),
                cmocka_unit_test(test_class_etf),
                cmocka_unit_test(test_leaf_root),
                cmocka_unit_test(test_windows),
                cmocka_unit_test(test_windows_cycle_longer),
                cmocka_unit_test(test_windows_cycle_shorter),
                cmocka_unit_test(test_windows_mqprio),
                cmocka_unit_test(test_window_slot),
                cmocka_unit_test(test_probe_guard),
                cmocka_unit_test(test_running_root),
                cmocka_unit_test(test_socket_names_flags),
                cmocka_unit_test(test_reserved_ethertypes),
                cmocka_unit_test(test_reserved_ethertypes_documented),
                cmocka_unit_test(test_packet_filter),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

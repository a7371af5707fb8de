/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plan of an apply as a pure function (daemon/qdisc/qdisc-plan.c): kernel
 * trees recorded in the test kernel (tests/unit/fixtures/qdisc/, parsed
 * with qdisc_tree_parse_dump()) and a schedule go in, the list of requests
 * comes out; no socket is opened. Each request is checked against the
 * builder of its kind (qdisc.c, pinned byte for byte by test-qdisc-msg)
 * and by its header: type, flags, handle, parent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl-qdisc.h"
#include "qdisc-plan.h"
#include "qdisc.h"

#include "qdisc-fixture-roots.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/qdisc/"
#define IFINDEX 3                       /* the recorded veth's */

static void load_tree(const char *name, QDiscTree *ret) {
        _cleanup_free_ void *buf = NULL;
        size_t len;

        buf = read_fixture(name, &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, IFINDEX, ret), 0);
        assert_true(ret->has_root);
}

/* The schedule of mqprio-etf.bin: mqprio 100: with etf on queues 0 and 1. */
static EtfSpec recorded_etfs[] = {
        { .queue = 0, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 300000, .offload = OFFLOAD_OFF },
        { .queue = 1, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 500000, .offload = OFFLOAD_OFF,
          .etf.deadline_mode = true, .etf.skip_sock_check = true },
};

static Schedule recorded_schedule(EtfSpec *etfs, size_t n) {
        return (Schedule) {
                .root = mqprio_root,
                .txqueues = etfs,
                .n_txqueues = n,
        };
}

static unsigned default_qdisc_calls;

static const char *test_default_qdisc(char buf[static IFNAMSIZ]) {
        default_qdisc_calls++;
        snprintf(buf, IFNAMSIZ, "fq_codel");
        return buf;
}

/* A fixed "now" for base times left to tbsd. */
static int64_t test_now_ns = 1000000000000;

static int64_t test_clock(clockid_t clock) {
        return test_now_ns;
}

static const struct tcmsg *step_tcmsg(const PlanStep *st) {
        return nlmsg_data(nlmsg_hdr(st->msg));
}

static void assert_header(const PlanStep *st, int type, int flags, uint32_t handle, uint32_t parent) {
        const struct nlmsghdr *h = nlmsg_hdr(st->msg);
        const struct tcmsg *t = step_tcmsg(st);

        assert_int_equal(h->nlmsg_type, type);
        assert_int_equal(h->nlmsg_flags, flags);
        assert_int_equal(t->tcm_ifindex, IFINDEX);
        assert_int_equal(t->tcm_handle, handle);
        assert_int_equal(t->tcm_parent, parent);
}

/* The request equals what the builder of its kind makes for the same qdisc. */
static void assert_same_bytes(struct nl_msg *a, struct nl_msg *b) {
        assert_int_equal(nlmsg_hdr(a)->nlmsg_len, nlmsg_hdr(b)->nlmsg_len);
        assert_memory_equal(nlmsg_hdr(a), nlmsg_hdr(b), nlmsg_hdr(a)->nlmsg_len);
}

static void assert_etf_step(const PlanStep *st, const EtfSpec *e, uint32_t handle, bool hw) {
        struct nl_msg *m = NULL;

        assert_int_equal(st->kind, PLAN_ETF);
        assert_int_equal(st->handle, handle);
        assert_int_equal(st->hw, hw);
        assert_header(st, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, handle,
                      TC_H_MAKE(mqprio_root.handle, e->queue + 1));
        assert_int_equal(qdisc_etf_request(IFINDEX, mqprio_root.handle, handle, e, hw, &m), 0);
        assert_same_bytes(st->msg, m);
        nlmsg_free(m);
}

static void assert_root_step(const PlanStep *st, const RootSpec *r) {
        struct nl_msg *m = NULL;

        assert_int_equal(st->kind, PLAN_ROOT);
        assert_header(st, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, r->handle, TC_H_ROOT);
        assert_int_equal(qdisc_root_request(IFINDEX, r, &m), 0);
        assert_same_bytes(st->msg, m);
        nlmsg_free(m);
}

/* From the kernel's default root: the root, then every etf, nothing deleted. */
static void test_fresh_install(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));

        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_handle, 0x01000000);
        assert_int_equal(p.n, 3);
        assert_root_step(&p.steps[0], &mqprio_root);
        assert_string_equal(p.steps[0].name, "root (mqprio 100:)");
        /* fresh handles above the root's, none of them in use */
        assert_etf_step(&p.steps[1], &recorded_etfs[0], 0x01010000, false);
        assert_etf_step(&p.steps[2], &recorded_etfs[1], 0x01020000, false);
        assert_string_equal(p.steps[2].name, "txqueue 1 (etf on 100:2)");
        /* the report has one entry per declared queue, nothing decided yet */
        assert_int_equal(p.report.n_queues, 2);
        assert_int_equal(p.report.queues[1].queue, 1);
        assert_false(p.report.queues[1].changed);
        assert_null(p.report.error);
        assert_int_equal(default_qdisc_calls, 0);
        qdisc_plan_done(&p);

        /* A schedule without a root handle gets tbsd's default one. */
        s.root.handle = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_handle, TBS_DEFAULT_ROOT_HANDLE);
        assert_int_equal(step_tcmsg(&p.steps[0])->tcm_handle, TBS_DEFAULT_ROOT_HANDLE);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* A root given by streams whose gate list still waits for a link speed
 * (none in the file, none probed) is refused before any request. */
static void test_streams_without_speed(void **state) {
        StreamSpec st = { .name = (char *) "a", .period_ns = 1000000, .max_frame_bytes = 128,
                          .frames_per_period = 1 };
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));

        s.streams = (StreamsSpec) { .items = &st, .n = 1, .guard_frame_bytes = 1518 };
        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -ENODATA);
        assert_int_equal(p.n, 0);
        assert_string_equal(p.report.error, "root: the streams' gate list needs the link speed, which the device "
                            "does not report (is the link down?); give root.link_speed_mbps");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* The tree already carries the schedule: no request, and each queue's
 * report says why it is kept as it is. */
static void test_no_op(void **state) {
        EtfSpec auto_etfs[ELEMENTSOF(recorded_etfs)];
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));

        load_tree(FIXTURES "mqprio-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        assert_null(p.steps);
        assert_int_equal(p.report.n_queues, 2);
        assert_false(p.report.queues[0].offload);
        assert_false(p.report.queues[0].changed);
        assert_non_null(p.report.queues[0].reason);
        qdisc_plan_done(&p);

        /* offload auto without facts accepts the software etf installed earlier */
        memcpy(auto_etfs, recorded_etfs, sizeof(auto_etfs));
        for (size_t i = 0; i < ELEMENTSOF(auto_etfs); i++)
                auto_etfs[i].offload = OFFLOAD_AUTO;
        s.txqueues = auto_etfs;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        assert_string_equal(p.report.queues[1].reason, "installed earlier in software mode");
        qdisc_plan_done(&p);

        /* offload true is not satisfied by a software etf: both are replaced */
        auto_etfs[0].offload = auto_etfs[1].offload = OFFLOAD_ON;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 2);
        assert_int_equal(p.steps[0].plan, ETF_PLAN_HARDWARE);
        assert_true(p.steps[0].hw);
        qdisc_plan_done(&p);
        assert_int_equal(default_qdisc_calls, 0);
        qdisc_tree_done(&t);
}

/* One etf's delta differs: only that queue gets a new etf, with a handle
 * the device does not use (100:, 101: and 102: are taken). */
static void test_changed_etf_delta(void **state) {
        EtfSpec etfs[ELEMENTSOF(recorded_etfs)];
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s;

        memcpy(etfs, recorded_etfs, sizeof(etfs));
        etfs[1].etf.delta_ns = 600000;
        s = recorded_schedule(etfs, ELEMENTSOF(etfs));
        load_tree(FIXTURES "mqprio-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 1);
        assert_etf_step(&p.steps[0], &etfs[1], 0x01030000, false);
        assert_int_equal(p.steps[0].txq, 1);
        assert_string_equal(p.steps[0].name, "txqueue 1 (etf on 100:2)");
        /* the unchanged queue is reported as kept */
        assert_non_null(p.report.queues[0].reason);
        assert_null(p.report.queues[1].reason);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* The root's settings differ, same handle: the old root is deleted first
 * (the kernel would try to change it in place), then the root and every
 * etf are created again. */
static void test_changed_root(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));
        RootSpec want = mqprio_root;

        want.priority_map[15] = 1;
        s.root = want;
        load_tree(FIXTURES "mqprio-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 4);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_header(&p.steps[0], RTM_DELQDISC, 0, 0x01000000, TC_H_ROOT);
        assert_string_equal(p.steps[0].name, "removing the old root (mqprio 100:)");
        assert_root_step(&p.steps[1], &want);
        assert_etf_step(&p.steps[2], &recorded_etfs[0], 0x01030000, false);
        assert_etf_step(&p.steps[3], &recorded_etfs[1], 0x01040000, false);
        qdisc_plan_done(&p);

        assert_false(p.check_num_tc);
        qdisc_plan_done(&p);

        /* Another handle: the old mqprio is deleted first as well (Linux
         * 6.1 leaves a new mqprio or taprio put in place of one under
         * another handle in one step without traffic classes: "tc 0"),
         * and the new root is read back after the apply. */
        s.root.handle = 0x02000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_int_equal(p.n, 4);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_header(&p.steps[0], RTM_DELQDISC, 0, 0x01000000, TC_H_ROOT);
        assert_string_equal(p.steps[0].name, "removing the old root (mqprio 100:)");
        assert_root_step(&p.steps[1], &s.root);
        assert_int_equal(p.steps[2].kind, PLAN_ETF);
        assert_int_equal(step_tcmsg(&p.steps[2])->tcm_parent, 0x02000001);
        assert_int_equal(step_tcmsg(&p.steps[3])->tcm_parent, 0x02000002);
        assert_true(p.check_num_tc);
        qdisc_plan_done(&p);

        /* The same with the settings of the installed root: only the handle
         * differs, the root is re-created all the same. */
        s.root = mqprio_root;
        s.root.handle = 0x02000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_int_equal(p.n, 4);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_root_step(&p.steps[1], &s.root);
        qdisc_plan_done(&p);

        /* mqprio to taprio under another handle: deleted first. */
        s.root = taprio_root_cycle(1000000);
        s.root.handle = 0x02000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_string_equal(p.steps[0].name, "removing the old root (mqprio 100:)");
        assert_root_step(&p.steps[1], &s.root);
        assert_true(p.check_num_tc);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        /* From the kernel's default root (mq, no handle): one step, nothing
         * to delete, nothing read back. */
        s.root = mqprio_root;
        s.root.handle = 0x02000000;
        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CREATE_ROOT);
        assert_int_equal(p.steps[0].kind, PLAN_ROOT);
        assert_false(p.check_num_tc);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* An administrator's root: an mqprio with other settings can be put back
 * exactly, so it is replaced; an htb cannot (its classes are not in a
 * qdisc dump), so nothing is planned and the report says why. */
static void test_foreign_root(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));

        load_tree(FIXTURES "mqprio-foreign.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 4);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_root_step(&p.steps[1], &mqprio_root);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        load_tree(FIXTURES "htb.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -EEXIST);
        assert_int_equal(p.n, 0);
        assert_non_null(p.report.error);
        assert_non_null(strstr(p.report.error, "root qdisc htb 1: is not tbsd's"));
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* offload auto: tried in hardware without facts (and may fall back to
 * software when refused), software at once on a device known to lack it,
 * hardware on a queue that has launch time. */
static void test_fallback(void **state) {
        EtfSpec etfs[ELEMENTSOF(recorded_etfs)];
        DeviceFacts veth = { .tx_queues = 4, .offload_known = true, .offload_reason = "veth: no launch time" };
        DeviceFacts i210 = { .tx_queues = 4, .offload_known = true, .launch_time_mask = 0x1 };
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s;

        memcpy(etfs, recorded_etfs, sizeof(etfs));
        etfs[0].offload = etfs[1].offload = OFFLOAD_AUTO;
        s = recorded_schedule(etfs, ELEMENTSOF(etfs));
        load_tree(FIXTURES "default.bin", &t);

        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 3);
        for (size_t i = 1; i < 3; i++) {
                assert_int_equal(p.steps[i].plan, ETF_PLAN_TRY_HARDWARE);
                assert_true(p.steps[i].hw);
                assert_true(p.steps[i].why_literal);
                assert_true(plan_step_may_fall_back(&p.steps[i], -EOPNOTSUPP));
                assert_true(plan_step_may_fall_back(&p.steps[i], -EINVAL));
                assert_false(plan_step_may_fall_back(&p.steps[i], -EBUSY));
        }
        assert_etf_step(&p.steps[1], &etfs[0], 0x01010000, true);
        /* a refused root never falls back */
        assert_false(plan_step_may_fall_back(&p.steps[0], -EOPNOTSUPP));
        qdisc_plan_done(&p);

        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 3);
        assert_int_equal(p.steps[1].plan, ETF_PLAN_SOFTWARE);
        assert_false(p.steps[1].hw);
        assert_false(p.steps[1].why_literal);           /* the device's own text: copied */
        assert_string_equal(p.steps[1].why, "veth: no launch time");
        assert_false(plan_step_may_fall_back(&p.steps[1], -EOPNOTSUPP));
        qdisc_plan_done(&p);

        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &i210, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.steps[1].plan, ETF_PLAN_HARDWARE);
        assert_etf_step(&p.steps[1], &etfs[0], 0x01010000, true);
        assert_int_equal(p.steps[2].plan, ETF_PLAN_SOFTWARE);
        assert_false(plan_step_may_fall_back(&p.steps[1], -EOPNOTSUPP));
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        /* an invalid offload mode is refused before anything is planned to be sent */
        etfs[1].offload = (OffloadMode) 7;
        load_tree(FIXTURES "mqprio-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -EINVAL);
        assert_string_equal(p.report.error, "txqueue 1: invalid offload mode");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* An etf no longer declared gets the root's default child back: for mqprio
 * the system's default qdisc, asked for only then. */
static void test_reset_child(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, 1);
        const struct nlattr *kind;

        default_qdisc_calls = 0;
        load_tree(FIXTURES "mqprio-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 1);
        assert_int_equal(p.steps[0].kind, PLAN_RESET_CHILD);
        assert_header(&p.steps[0], RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, 0x01030000, 0x01000002);
        kind = nlmsg_find_attr(nlmsg_hdr(p.steps[0].msg), sizeof(struct tcmsg), TCA_KIND);
        assert_non_null(kind);
        assert_string_equal(nla_data(kind), "fq_codel");
        assert_null(nlmsg_find_attr(nlmsg_hdr(p.steps[0].msg), sizeof(struct tcmsg), TCA_OPTIONS));
        assert_string_equal(p.steps[0].name, "txqueue 1 (fq_codel on 100:2)");
        assert_int_equal(default_qdisc_calls, 1);
        qdisc_plan_done(&p);

        /* without a way to ask, the kernel's own default */
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, NULL, test_clock, &p), 0);
        kind = nlmsg_find_attr(nlmsg_hdr(p.steps[0].msg), sizeof(struct tcmsg), TCA_KIND);
        assert_string_equal(nla_data(kind), "pfifo_fast");
        qdisc_plan_done(&p);

        /* no etf declared at all: both go back */
        s.n_txqueues = 0;
        s.txqueues = NULL;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 2);
        assert_int_equal(p.report.n_queues, 0);
        assert_int_equal(step_tcmsg(&p.steps[0])->tcm_parent, 0x01000001);
        assert_int_equal(step_tcmsg(&p.steps[1])->tcm_parent, 0x01000002);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* cbs children (mqprio-cbs.bin: cbs 101: on 100:1 and 102: on 100:2): a
 * bandwidth resolves with the device's link speed before it is compared,
 * so the recorded tree is unchanged; without a speed the plan refuses,
 * naming the queue; an etf declared where a cbs runs replaces it. */
static void test_cbs(void **state) {
        EtfSpec cbs[] = {
                { .queue = 0, .kind = TXQ_CBS, .offload = OFFLOAD_AUTO,
                  .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                           .hi_credit_bytes = 30, .lo_credit_bytes = -1470 } },
                /* 98688 kbit/s on 1 Gbit/s, 1542-byte frames: 98688, -901312,
                 * 153, -1390 (worked out in test-schedule-cbs.c) */
                { .queue = 1, .kind = TXQ_CBS, .offload = OFFLOAD_AUTO,
                  .cbs = { .from_bandwidth = true, .bandwidth_kbps = 98688, .max_frame_bytes = 1542,
                           .max_interference_bytes = 1542 } },
        };
        DeviceFacts gig = { .offload_known = true, .link_speed_mbps = 1000 };
        Schedule s = recorded_schedule(cbs, 2);
        EtfSpec want;
        QDiscTree t = {};
        QDiscPlan p = {};

        load_tree(FIXTURES "mqprio-cbs.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &gig, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        assert_string_equal(p.report.queues[1].reason, "no cbs offload on this queue of the device");
        qdisc_plan_done(&p);

        /* 100 Mbit/s: other values, queue 1 is grafted anew in software
         *   sendSlope 98688 - 100000 = -1312, hiCredit 1542 * 98688 / 100000
         *   = 1521.8 -> 1522, loCredit 1542 * -1312 / 100000 = -20.2 -> -21 */
        gig.link_speed_mbps = 100;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &gig, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 1);
        want = cbs[1];
        want.cbs.idle_slope_kbps = 98688;
        want.cbs.send_slope_kbps = -1312;
        want.cbs.hi_credit_bytes = 1522;
        want.cbs.lo_credit_bytes = -21;
        assert_memory_equal(&p.steps[0].spec.cbs, &want.cbs, sizeof(want.cbs));
        assert_etf_step(&p.steps[0], &want, 0x01030000, false);
        assert_string_equal(p.steps[0].name, "txqueue 1 (cbs on 100:2)");
        qdisc_plan_done(&p);

        /* no speed anywhere */
        gig.link_speed_mbps = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &gig, test_default_qdisc, test_clock, &p), -ENODATA);
        assert_string_equal(p.report.error, "txqueue 1 (cbs): bandwidth_kbps needs the link speed, which the "
                            "device does not report (is the link down?); give link_speed_mbps");
        qdisc_plan_done(&p);

        /* an etf where a cbs runs: grafted, the cbs on queue 0 kept */
        EtfSpec mixed[2] = { cbs[0], recorded_etfs[1] };

        s = recorded_schedule(mixed, 2);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 1);
        assert_etf_step(&p.steps[0], &recorded_etfs[1], 0x01030000, false);
        assert_string_equal(p.steps[0].name, "txqueue 1 (etf on 100:2)");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

static void assert_child_step(const PlanStep *st, const EtfSpec *e, uint32_t parent, uint32_t handle, bool hw) {
        struct nl_msg *m = NULL;

        assert_int_equal(st->kind, PLAN_ETF_CHILD);
        assert_int_equal(st->handle, handle);
        assert_int_equal(st->parent, parent);
        assert_int_equal(st->hw, hw);
        assert_header(st, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, handle, parent);
        assert_int_equal(qdisc_etf_child_request(IFINDEX, parent, handle, e, hw, &m), 0);
        assert_same_bytes(st->msg, m);
        nlmsg_free(m);
}

/* An etf under a cbs (mqprio-cbs-etf.bin: cbs 101: with etf 201: on queue
 * 0, cbs 102: alone on queue 1): kept as installed; a change of the etf
 * re-creates the pair with fresh handles; from the default root, the root,
 * each cbs and the etf under the first one. */
static void test_cbs_etf_chain(void **state) {
        EtfSpec q[] = {
                { .queue = 0, .kind = TXQ_CBS, .offload = OFFLOAD_AUTO,
                  .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                           .hi_credit_bytes = 30, .lo_credit_bytes = -1470 },
                  .etf_child = true, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 500000, .child_offload = OFFLOAD_AUTO },
                { .queue = 1, .kind = TXQ_CBS, .offload = OFFLOAD_OFF,
                  .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                           .hi_credit_bytes = 30, .lo_credit_bytes = -1470 } },
        };
        DeviceFacts veth = { .offload_known = true, .link_speed_mbps = 10000 };
        DeviceFacts i210 = { .offload_known = true, .launch_time_mask = 0x3, .cbs_offload_mask = 0x3,
                             .link_speed_mbps = 1000 };
        Schedule s = recorded_schedule(q, 2);
        EtfSpec sent;
        QDiscTree t = {};
        QDiscPlan p = {};

        load_tree(FIXTURES "mqprio-cbs-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);
        /* Without facts "auto" is software under a cbs: still in place. */
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);

        /* The etf's delta changes: a new cbs (103:, the first free major
         * after 100:) replaces the old one, the etf goes under it (104:). */
        q[0].etf.delta_ns = 400000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 2);
        sent = q[0];
        sent.offload = OFFLOAD_OFF;
        sent.child_offload = OFFLOAD_OFF;
        assert_etf_step(&p.steps[0], &sent, 0x01030000, false);
        assert_child_step(&p.steps[1], &sent, 0x01030001, 0x01040000, false);
        assert_string_equal(p.steps[1].name, "txqueue 0 (etf under cbs 103:)");
        qdisc_plan_done(&p);

        /* queue 1 gets an etf: the same, on queue 1 */
        q[0].etf.delta_ns = 500000;
        q[1].etf_child = true;
        q[1].etf.clockid = CLOCK_TAI;
        q[1].etf.delta_ns = 300000;
        q[1].child_offload = OFFLOAD_OFF;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 2);
        assert_etf_step(&p.steps[0], &q[1], 0x01030000, false);
        assert_child_step(&p.steps[1], &q[1], 0x01030001, 0x01040000, false);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        /* From the default root, on an i210 (offload "auto": on). */
        q[1].etf_child = false;
        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &i210, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 4);
        assert_root_step(&p.steps[0], &mqprio_root);
        sent = q[0];
        sent.offload = OFFLOAD_ON;
        sent.child_offload = OFFLOAD_ON;
        assert_etf_step(&p.steps[1], &sent, 0x01010000, true);
        assert_child_step(&p.steps[2], &sent, 0x01010001, 0x01020000, true);
        assert_etf_step(&p.steps[3], &q[1], 0x01030000, false);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* An etf or cbs as the root (root-etf.bin: etf 100: delta 300000
 * skip_sock_check; root-cbs-etf.bin: cbs 100: with etf 101: deadline_mode
 * on 100:1): kept when equal, re-created (deleted first: same handle)
 * when not, and a cbs root's etf grafted on its class 1. */
static void test_leaf_root(void **state) {
        Schedule s = {
                .root = { .kind = ROOT_ETF, .handle = 0x01000000,
                          .leaf = { .kind = TXQ_ETF, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 300000,
                                    .offload = OFFLOAD_AUTO, .etf.skip_sock_check = true } },
        };
        DeviceFacts veth = { .offload_known = true };
        RootSpec sent;
        QDiscTree t = {};
        QDiscPlan p = {};

        load_tree(FIXTURES "root-etf.bin", &t);
        assert_true(t.root_known);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        assert_int_equal(p.root_change, PLAN_KEEP_ROOT);
        qdisc_plan_done(&p);

        s.root.leaf.etf.delta_ns = 200000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_string_equal(p.root_why, "etf cannot change in place");
        assert_int_equal(p.n, 2);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_header(&p.steps[0], RTM_DELQDISC, 0, 0x01000000, TC_H_ROOT);
        sent = s.root;
        sent.leaf.offload = OFFLOAD_OFF;
        assert_root_step(&p.steps[1], &sent);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        /* a cbs root with an etf, from the etf root: replaced at once */
        s.root = (RootSpec) { .kind = ROOT_CBS, .handle = 0x01000000,
                              .leaf = { .kind = TXQ_CBS, .offload = OFFLOAD_OFF,
                                        .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                                                 .hi_credit_bytes = 30, .lo_credit_bytes = -1470 },
                                        .etf_child = true, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 400000,
                                        .etf.deadline_mode = true, .child_offload = OFFLOAD_OFF } };
        load_tree(FIXTURES "root-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_int_equal(p.n, 3);
        assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_root_step(&p.steps[1], &s.root);
        assert_child_step(&p.steps[2], &s.root.leaf, 0x01000001, 0x01010000, false);
        assert_string_equal(p.steps[2].name, "etf under the root (cbs 100:)");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);

        /* ... which is what root-cbs-etf.bin has: nothing to do */
        load_tree(FIXTURES "root-cbs-etf.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);
        /* the same cbs without the etf: re-created */
        s.root.leaf.etf_child = false;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, &veth, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 2);
        assert_string_equal(p.root_why, "cbs cannot change in place");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* A taprio root is planned with the same steps; a gate list too large for
 * one request is refused by the plan, naming the step. */
static void test_taprio_root(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        EtfSpec etf = { .queue = 0, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 300000, .offload = OFFLOAD_OFF,
                        .etf.skip_sock_check = true };
        Schedule s = recorded_schedule(&etf, 1);
        _cleanup_free_ GateEntry *many = NULL;
        RootSpec big;

        s.root = taprio_root_cycle(0);
        load_tree(FIXTURES "taprio-txtime.bin", &t);
        /* the recorded taprio reports the effective cycle time */
        s.root.taprio.cycle_time_ns = 1000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);

        many = calloc(4000, sizeof(GateEntry));
        assert_non_null(many);
        for (size_t i = 0; i < 4000; i++)
                many[i] = (GateEntry) { GATE_SET_GATES, 0x1, 1000 };
        big = s.root;
        big.taprio.entries = many;
        big.taprio.n_entries = 4000;
        big.taprio.cycle_time_ns = 4000 * 1000;
        s.root = big;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -EMSGSIZE);
        /* same traffic classes and mode: a change in place, refused all the same */
        assert_non_null(strstr(p.report.error, "root (taprio 100:, new schedule in place): the request is larger than one netlink"));
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* The recorded taprio (txtime-assist, base 1000, cycle 1 ms) with the
 * schedule s as declared: the plan in *p. */
static EtfSpec taprio_etf = { .queue = 0, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 300000, .offload = OFFLOAD_OFF,
                              .etf.skip_sock_check = true };

static void assert_change_step_kind(const PlanStep *st, PlanStepKind kind, const RootSpec *want, int64_t base,
                                    bool tc_entries) {
        RootSpec r = *want;
        struct nl_msg *m = NULL;

        assert_int_equal(st->kind, kind);
        /* tc qdisc replace on the root's own handle: no NLM_F_CREATE */
        assert_header(st, RTM_NEWQDISC, NLM_F_REPLACE, 0x01000000, TC_H_ROOT);
        r.taprio.base_time_ns = base;
        r.taprio.max_sdu_given = tc_entries;
        assert_int_equal(qdisc_root_change_request(IFINDEX, &r, &m), 0);
        assert_same_bytes(st->msg, m);
        nlmsg_free(m);
}

static void assert_change_step(const PlanStep *st, const RootSpec *want, int64_t base, bool tc_entries) {
        assert_change_step_kind(st, PLAN_CHANGE_ROOT, want, base, tc_entries);
}

/* Only the gate list differs: one request that changes the running root,
 * the etf child and every handle stay; a past base time becomes the next
 * cycle start of the running schedule after now + the margin. */
static void test_taprio_in_place(void **state) {
        GateEntry entries[3];
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(&taprio_etf, 1);

        load_tree(FIXTURES "taprio-txtime.bin", &t);
        /* Linux 6.1 dumps one TC entry per class: it knows max SDU */
        assert_true(t.root_spec.taprio.max_sdu_dumped);
        assert_false(t.root_spec.taprio.admin_pending);
        s.root = taprio_root_cycle(0);
        memcpy(entries, taprio_entries, sizeof(entries));
        entries[1].interval_ns = 350000;
        s.root.taprio.entries = entries;
        s.root.taprio.cycle_time_ns = 1050000;
        s.root.taprio.change_margin_ns = TBS_TAPRIO_CHANGE_MARGIN_NS;

        test_now_ns = 1000000000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        assert_int_equal(p.n, 1);
        /* oper: base 1000, cycle 1 ms; now + 100 ms = 1000100000000 -> the
         * cycle that starts at 1000 + 1000100 * 1 ms */
        assert_int_equal(p.base_time_ns, 1000100001000);
        assert_change_step(&p.steps[0], &s.root, 1000100001000, true);
        assert_false(p.report.queues[0].changed);
        qdisc_plan_done(&p);

        /* A margin of its own */
        s.root.taprio.change_margin_ns = 2500000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.base_time_ns, 1002500001000);
        qdisc_plan_done(&p);

        /* "now": the same rule */
        s.root.taprio.change_margin_ns = TBS_TAPRIO_CHANGE_MARGIN_NS;
        s.root.taprio.base_time_now = true;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.base_time_ns, 1000100001000);
        qdisc_plan_done(&p);

        /* A base time still ahead is sent as it is */
        s.root.taprio.base_time_now = false;
        s.root.taprio.base_time_ns = 1005000000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        assert_int_equal(p.base_time_ns, 1005000000000);
        assert_change_step(&p.steps[0], &s.root, 1005000000000, true);
        qdisc_plan_done(&p);

        /* With a change pending, the running (oper) schedule's cycles count */
        t.root_spec.taprio.admin_pending = true;
        t.root_spec.taprio.oper = (GateSchedule) { .base_time_ns = 500, .cycle_time_ns = 3000000,
                                            .entries = taprio_entries, .n_entries = 1 };
        s.root.taprio.base_time_ns = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.base_time_ns, 500 + 333367 * 3000000LL);
        qdisc_plan_done(&p);
        t.root_spec.taprio.oper = (GateSchedule) {};
        t.root_spec.taprio.admin_pending = false;
        qdisc_tree_done(&t);
}

/* The recorded pending change (taprio-admin.bin): the file that made it
 * is unchanged while it waits; going back to the running schedule is a new
 * change in place, timed on the running (oper) schedule's cycles. */
static void test_taprio_pending_recorded(void **state) {
        GateEntry entries[3];
        EtfSpec etf = taprio_etf;
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(&etf, 1);

        load_tree(FIXTURES "taprio-admin.bin", &t);
        assert_true(t.root_spec.taprio.admin_pending);
        s.root = taprio_root_cycle(0);
        s.root.taprio.mode = TAPRIO_MODE_SOFTWARE;
        s.root.taprio.txtime_delay_ns = 0;
        s.root.taprio.base_time_ns = 0;
        s.root.taprio.change_margin_ns = 600000000000;
        s.root.taprio.max_sdu_given = true;
        s.root.taprio.n_max_sdu = 3;
        s.root.taprio.max_sdu[1] = 1000;
        s.root.taprio.max_sdu[2] = 300;
        memcpy(entries, taprio_entries, sizeof(entries));
        entries[2].interval_ns = 500000;
        s.root.taprio.entries = entries;
        s.root.taprio.cycle_time_ns = 1100000;
        test_now_ns = 1796398000000000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_KEEP_ROOT);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);

        entries[2].interval_ns = 400000;
        s.root.taprio.cycle_time_ns = 1000000;
        s.root.taprio.change_margin_ns = 100000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        assert_int_equal(p.n, 1);
        assert_int_equal(p.base_time_ns, 1796398000100000000);
        assert_change_step(&p.steps[0], &s.root, 1796398000100000000, true);
        qdisc_plan_done(&p);
        test_now_ns = 1000000000000;
        qdisc_tree_done(&t);
}

/* A base time left to tbsd: the one it installed later satisfies it (an
 * unchanged file stays unchanged after an in-place change); an earlier one
 * or another future one does not. */
static void test_taprio_base_time_kept(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(&taprio_etf, 1);

        load_tree(FIXTURES "taprio-txtime.bin", &t);
        s.root = taprio_root_cycle(1000000);
        test_now_ns = 1000000000000;
        for (int i = 0; i < 3; i++) {
                /* installed 1000: file 1000, file 0 (past, earlier), "now" */
                s.root.taprio.base_time_ns = i == 1 ? 0 : 1000;
                s.root.taprio.base_time_now = i == 2;
                assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
                assert_int_equal(p.root_change, PLAN_KEEP_ROOT);
                assert_int_equal(p.n, 0);
                qdisc_plan_done(&p);
        }
        /* past but later than the installed one: changed */
        s.root.taprio.base_time_now = false;
        s.root.taprio.base_time_ns = 2000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        qdisc_plan_done(&p);
        /* a base time still ahead of now must be the installed one */
        test_now_ns = 500;
        s.root.taprio.base_time_ns = 800;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        qdisc_plan_done(&p);
        test_now_ns = 1000000000000;
        qdisc_tree_done(&t);
}

/* What a running taprio cannot take in place: the root is re-created (the
 * old one deleted first: same handle), with why, and the etf child again. */
static void test_taprio_recreate(void **state) {
        static const struct {
                void (*change)(RootSpec *r);
                const char *why;
        } cases[] = {
                { NULL, "mode txtime-assist instead of software" },
                { NULL, "txtime_delay_ns 200000 instead of 300000" },
                { NULL, "clockid CLOCK_TAI instead of CLOCK_REALTIME" },
                { NULL, "priority_map differs" },
                { NULL, "queues differ" },
        };
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(&taprio_etf, 1);

        load_tree(FIXTURES "taprio-txtime.bin", &t);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                s.root = taprio_root_cycle(1000000);
                switch (i) {
                case 0: s.root.taprio.mode = TAPRIO_MODE_SOFTWARE; s.root.taprio.txtime_delay_ns = 0; break;
                case 1: s.root.taprio.txtime_delay_ns = 300000; break;
                case 2: s.root.taprio.clockid = CLOCK_REALTIME; break;
                case 3: s.root.priority_map[0] = 1; break;
                case 4: s.root.queues[2] = (QueueRange) { 1, 2 }; break;
                }
                assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
                assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
                assert_string_equal(p.root_why, cases[i].why);
                assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
                assert_root_step(&p.steps[1], &s.root);
                assert_int_equal(p.steps[2].kind, PLAN_ETF);
                if (s.root.taprio.mode == TAPRIO_MODE_SOFTWARE) {
                        /* the software schedule once more after the graft */
                        assert_int_equal(p.n, 4);
                        assert_int_equal(p.steps[3].kind, PLAN_RESTART_ROOT);
                        assert_header(&p.steps[3], RTM_NEWQDISC, NLM_F_REPLACE, 0x01000000, TC_H_ROOT);
                } else
                        assert_int_equal(p.n, 3);
                qdisc_plan_done(&p);
        }
        /* taprio to mqprio */
        s.root = mqprio_root;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_string_equal(p.root_why, "root kind taprio instead of mqprio");
        qdisc_plan_done(&p);

        /* Another handle, to taprio or mqprio: the old taprio is deleted
         * first (in one step the new root would have no traffic classes). */
        for (unsigned i = 0; i < 2; i++) {
                s.root = i == 0 ? taprio_root_cycle(1000000) : mqprio_root;
                s.root.handle = 0x02000000;
                assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
                assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
                assert_string_equal(p.root_why, i == 0 ? "handle differs" : "root kind taprio instead of mqprio");
                assert_int_equal(p.n, 3);
                assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
                assert_header(&p.steps[0], RTM_DELQDISC, 0, 0x01000000, TC_H_ROOT);
                assert_string_equal(p.steps[0].name, "removing the old root (taprio 100:)");
                assert_root_step(&p.steps[1], &s.root);
                assert_int_equal(step_tcmsg(&p.steps[2])->tcm_parent, 0x02000001);
                assert_true(p.check_num_tc);
                qdisc_plan_done(&p);
        }
        qdisc_tree_done(&t);

        /* From the kernel's default root: created, nothing to say */
        load_tree(FIXTURES "default.bin", &t);
        s.root = taprio_root_cycle(1000000);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CREATE_ROOT);
        assert_int_equal(p.n, 2);
        assert_int_equal(p.steps[0].kind, PLAN_ROOT);
        qdisc_plan_done(&p);

        /* in software mode the schedule goes again after the etf graft,
         * as a change with the same base time */
        s.root.taprio.mode = TAPRIO_MODE_SOFTWARE;
        s.root.taprio.txtime_delay_ns = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 3);
        assert_root_step(&p.steps[0], &s.root);
        assert_int_equal(p.steps[1].kind, PLAN_ETF);
        assert_int_equal(p.steps[2].kind, PLAN_RESTART_ROOT);
        assert_change_step_kind(&p.steps[2], PLAN_RESTART_ROOT, &s.root, 1000, false);
        qdisc_plan_done(&p);

        /* without children to graft nothing more */
        s.n_txqueues = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 1);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* max_sdu: changed in place on a kernel whose taprio dumps TC entries;
 * refused before anything is sent on one whose taprio dumps none. */
static void test_taprio_max_sdu(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(&taprio_etf, 1);

        load_tree(FIXTURES "taprio-txtime.bin", &t);
        for (unsigned tc = 0; tc < TBS_MAX_TC; tc++)
                assert_int_equal(t.root_spec.taprio.max_sdu[tc], 0);
        s.root = taprio_root_cycle(1000000);
        s.root.taprio.max_sdu_given = true;
        s.root.taprio.n_max_sdu = 3;
        s.root.taprio.max_sdu[1] = 1500;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CHANGE_ROOT_IN_PLACE);
        assert_int_equal(p.n, 1);
        /* base 1000 is satisfied by the installed one: sent unchanged */
        assert_int_equal(p.base_time_ns, 1000);
        assert_change_step(&p.steps[0], &s.root, 1000, true);
        qdisc_plan_done(&p);

        /* all zero, as installed: nothing to do */
        s.root.taprio.max_sdu[1] = 0;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.n, 0);
        qdisc_plan_done(&p);

        /* a new root where nothing tells whether the kernel takes them:
         * read back after the apply */
        s.root.taprio.mode = TAPRIO_MODE_SOFTWARE;
        s.root.taprio.txtime_delay_ns = 0;
        s.root.taprio.max_sdu[1] = 1500;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_false(p.check_max_sdu);        /* the old taprio dumped TC entries */
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_CREATE_ROOT);
        assert_true(p.check_max_sdu);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
        s.root = taprio_root_cycle(1000000);
        s.root.taprio.max_sdu_given = true;
        s.root.taprio.n_max_sdu = 3;
        load_tree(FIXTURES "taprio-txtime.bin", &t);

        /* a kernel before per-class max SDU: its dump has no TC entries */
        t.root_spec.taprio.max_sdu_dumped = false;
        s.root.taprio.max_sdu[1] = 1500;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -EOPNOTSUPP);
        assert_int_equal(p.n, 0);
        assert_string_equal(p.report.error, "root.max_sdu: this kernel does not support a per-class max SDU "
                            "(its taprio reports no TCA_TAPRIO_ATTR_TC_ENTRY); nothing changed");
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* An etf on queue 0 and a cbs on queue 1 (slopes given: no link speed needed). */
static EtfSpec handle_children[] = {
        { .queue = 0, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 300000, .offload = OFFLOAD_OFF },
        { .queue = 1, .kind = TXQ_CBS, .offload = OFFLOAD_OFF,
          .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                   .hi_credit_bytes = 30, .lo_credit_bytes = -1470 } },
};

/* Plan handle_children under a new mqprio root root_handle on tree t (an
 * mqprio installed there is deleted first); the two child steps get want0
 * and want1 and hang on the root's queues. */
static void assert_children_handles(QDiscTree *t, uint32_t root_handle, uint32_t want0, uint32_t want1) {
        Schedule s = recorded_schedule(handle_children, ELEMENTSOF(handle_children));
        QDiscPlan p = {};
        char name[64], hb[16];
        size_t o = t->has_root && t->root.handle != 0;

        s.root.handle = root_handle;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_null(p.report.error);
        assert_int_equal(p.n, 3 + o);
        if (o)
                assert_int_equal(p.steps[0].kind, PLAN_DELETE_ROOT);
        assert_int_equal(p.steps[o].kind, PLAN_ROOT);
        assert_int_equal(step_tcmsg(&p.steps[o])->tcm_handle, root_handle);
        for (size_t i = 0; i < 2; i++) {
                const PlanStep *st = &p.steps[o + 1 + i];
                uint32_t want = i == 0 ? want0 : want1;

                assert_int_equal(st->kind, PLAN_ETF);
                assert_int_equal(st->handle, want);
                assert_header(st, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, want,
                              TC_H_MAKE(root_handle, (uint32_t) i + 1));
        }
        snprintf(name, sizeof(name), "txqueue 1 (cbs on %s)",
                 tc_handle_to_string(TC_H_MAKE(root_handle, 2), hb));
        assert_string_equal(p.steps[o + 2].name, name);
        qdisc_plan_done(&p);
}

/* Issue 38: a root anywhere from 1: to fffe: gets its etf and cbs children
 * (8001: is what the kernel gives `tc qdisc add dev X root mqprio ...`).
 * Children take majors from the root's + 1 up to 7fff:, around to 1:, and
 * from the kernel's range 8000:..fffe: only when all below it are taken. */
static void test_root_handles(void **state) {
        static const struct { uint32_t root, child0, child1; } cases[] = {
                { 0x00010000, 0x00020000, 0x00030000 },
                { 0x01000000, 0x01010000, 0x01020000 },         /* as ever: 101:, 102: */
                { 0x7ffe0000, 0x7fff0000, 0x00010000 },         /* around below 8000: */
                { 0x7fff0000, 0x00010000, 0x00020000 },
                { 0x80000000, 0x00010000, 0x00020000 },
                { 0x80010000, 0x00010000, 0x00020000 },
                { 0xfffe0000, 0x00010000, 0x00020000 },
        };
        QDiscTree t = {};

        load_tree(FIXTURES "default.bin", &t);
        assert_int_equal(t.n_handles, 0);
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_children_handles(&t, cases[i].root, cases[i].child0, cases[i].child1);
        qdisc_tree_done(&t);
}

/* Handles the device uses are never handed out: the recorded tree's
 * (mqprio 100: with etf 101: and 102:) and any other qdisc's. */
static void test_root_handles_in_use(void **state) {
        uint32_t used[] = { 0x00020000, 0x00030000, 0x00050000, 0x7fff0000, 0x80010000, 0xffff0000 };
        uint32_t *own_handles;
        size_t own_n;
        QDiscTree t = {};

        load_tree(FIXTURES "mqprio-etf.bin", &t);
        /* a new root 8001: beside the old tree's handles: around them */
        assert_children_handles(&t, 0x80010000, 0x00010000, 0x00020000);
        assert_children_handles(&t, 0x00ff0000, 0x01030000, 0x01040000);

        own_handles = t.handles;
        own_n = t.n_handles;
        t.handles = used;
        t.n_handles = ELEMENTSOF(used);
        assert_children_handles(&t, 0x00010000, 0x00040000, 0x00060000);
        assert_children_handles(&t, 0x7ffe0000, 0x00010000, 0x00040000);
        assert_children_handles(&t, 0x80010000, 0x00010000, 0x00040000);
        assert_children_handles(&t, 0xfffe0000, 0x00010000, 0x00040000);
        t.handles = own_handles;
        t.n_handles = own_n;
        qdisc_tree_done(&t);
}

/* The device uses every major but `free_majors`: the tree's handles. */
static uint32_t *handles_but(const uint32_t *free_majors, size_t n_free, size_t *ret_n) {
        uint32_t *v = calloc(0x10000, sizeof(uint32_t));
        size_t n = 0;

        assert_non_null(v);
        for (uint32_t major = 1; major <= 0xffff; major++) {
                bool is_free = false;

                for (size_t i = 0; i < n_free; i++)
                        is_free = is_free || free_majors[i] == major;
                if (!is_free)
                        v[n++] = major << 16 | (major % 7);     /* minors do not matter */
        }
        *ret_n = n;
        return v;
}

/* Below 8000: full: the kernel's range is used; all full: the apply is
 * refused before anything is sent, in one line that says why and what to do. */
static void test_handles_exhausted(void **state) {
        static const uint32_t high[] = { 0x8123, 0xfffe };
        static const uint32_t one[] = { 0x4000 };
        Schedule s = recorded_schedule(handle_children, ELEMENTSOF(handle_children));
        uint32_t *own_handles;
        size_t own_n;
        QDiscTree t = {};
        QDiscPlan p = {};

        load_tree(FIXTURES "default.bin", &t);
        own_handles = t.handles;
        own_n = t.n_handles;

        /* only 8123: and fffe: free; the root 8001: is in the dumped tree */
        t.handles = handles_but(high, ELEMENTSOF(high), &t.n_handles);
        assert_children_handles(&t, 0x80010000, 0x81230000, 0xfffe0000);
        free(t.handles);

        /* one free major for two children */
        t.handles = handles_but(one, ELEMENTSOF(one), &t.n_handles);
        s.root.handle = 0x80010000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -ENOSPC);
        assert_string_equal(p.report.error, "txqueue 1 (cbs on 8001:2): no free qdisc handle on the device, every "
                            "one from 1: to fffe: is in use; delete the qdiscs the device does not need (tc qdisc "
                            "show dev IFACE lists them) and apply again");
        qdisc_plan_done(&p);
        free(t.handles);

        /* none free at all: the first child says so */
        t.handles = handles_but(NULL, 0, &t.n_handles);
        s.root.handle = 0x01000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), -ENOSPC);
        assert_string_equal(p.report.error, "txqueue 0 (etf on 100:1): " HANDLE_POOL_FULL_TEXT);
        qdisc_plan_done(&p);
        free(t.handles);

        t.handles = own_handles;
        t.n_handles = own_n;
        qdisc_tree_done(&t);
}

/* The pool by itself: its order, reservations, the end. */
static void test_handle_pool(void **state) {
        HandlePool pool;
        uint32_t h, n = 0;

        handle_pool_init(&pool, NULL, 0x7ffd0000);
        handle_pool_reserve(&pool, 0x7fff0003);
        handle_pool_reserve(&pool, 0x00010000);
        handle_pool_reserve(&pool, 0);                  /* no handle: ignored */
        handle_pool_reserve(&pool, TC_H_ROOT);
        assert_int_equal(handle_pool_next(&pool, &h), 0);
        assert_int_equal(h, 0x7ffe0000);
        assert_int_equal(handle_pool_next(&pool, &h), 0);
        assert_int_equal(h, 0x00020000);
        handle_pool_reserve(&pool, 0x00030000);
        assert_int_equal(handle_pool_next(&pool, &h), 0);
        assert_int_equal(h, 0x00040000);

        /* no tree, no root: 1: up to fffe:, each once, then the end */
        handle_pool_init(&pool, NULL, 0);
        for (uint32_t want = 1; handle_pool_next(&pool, &h) == 0; want++, n++) {
                if (want == 0x8000)
                        assert_int_equal(h, 0x80000000);
                assert_int_equal(h, want << 16);
        }
        assert_int_equal(n, 0xfffe);
        assert_int_equal(handle_pool_next(&pool, &h), -ENOSPC);
}

/* After a root was re-created in place of an mqprio or taprio: the dump
 * read back must show it with the schedule's traffic classes (Linux 6.1 has
 * answered success for a root left with "tc 0"). */
static void test_check_root(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));
        _cleanup_free_ char *error = NULL;

        load_tree(FIXTURES "mqprio-etf.bin", &t);
        s.root.handle = 0x02000000;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_true(p.check_num_tc);

        /* the old tree is not the new root */
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), -EIO);
        assert_string_equal(error, "root (mqprio 200:): the kernel answered success but its dump shows "
                            "another root (mqprio 100:)");
        error = mfree(error);

        /* the new root as it should be */
        t.root.handle = t.root_spec.handle = 0x02000000;
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), 0);
        assert_null(error);

        /* the new root without traffic classes */
        t.root_spec.num_tc = 0;
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), -EIO);
        assert_string_equal(error, "root (mqprio 200:): the kernel answered success but its dump shows "
                            "num_tc 0 instead of 3");
        error = mfree(error);

        /* not asked: nothing read */
        p.check_num_tc = false;
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), 0);
        assert_null(error);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

/* root.fp sent with a root: read back, and refused with the same line as
 * before when the root dumps no fp per class (a kernel before 6.4). */
static void test_check_fp(void **state) {
        QDiscTree t = {};
        QDiscPlan p = {};
        Schedule s = recorded_schedule(recorded_etfs, ELEMENTSOF(recorded_etfs));
        _cleanup_free_ char *error = NULL;

        (void) state;
        load_tree(FIXTURES "mqprio-etf.bin", &t);
        s.root.mqprio.hw_offload = true;
        s.root.fp_given = true;
        s.root.fp[0] = s.root.fp[1] = s.root.fp[2] = TBS_FP_EXPRESS;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_int_equal(p.root_change, PLAN_RECREATE_ROOT);
        assert_true(p.check_fp);

        /* the recorded 6.1 mqprio has no fp */
        assert_false(t.root_spec.fp_dumped);
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), -EOPNOTSUPP);
        assert_string_equal(error, "root.fp: this kernel does not support frame preemption (its mqprio reports "
                            "no per-class fp after it was set; Linux 6.4 or later needed)");
        error = mfree(error);

        /* a kernel that dumps fp */
        t.root_spec.fp_dumped = true;
        assert_int_equal(qdisc_plan_check_root(&p, &s, &t, &error), 0);
        assert_null(error);
        qdisc_plan_done(&p);

        /* nothing sent for the root: not read back */
        s.root.fp_given = false;
        assert_int_equal(qdisc_plan_build(IFINDEX, &s, &t, NULL, test_default_qdisc, test_clock, &p), 0);
        assert_false(p.check_fp);
        qdisc_plan_done(&p);
        qdisc_tree_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fresh_install),
                cmocka_unit_test(test_streams_without_speed),
                cmocka_unit_test(test_no_op),
                cmocka_unit_test(test_changed_etf_delta),
                cmocka_unit_test(test_changed_root),
                cmocka_unit_test(test_foreign_root),
                cmocka_unit_test(test_fallback),
                cmocka_unit_test(test_reset_child),
                cmocka_unit_test(test_cbs),
                cmocka_unit_test(test_taprio_root),
                cmocka_unit_test(test_taprio_in_place),
                cmocka_unit_test(test_taprio_base_time_kept),
                cmocka_unit_test(test_taprio_pending_recorded),
                cmocka_unit_test(test_taprio_recreate),
                cmocka_unit_test(test_taprio_max_sdu),
                cmocka_unit_test(test_root_handles),
                cmocka_unit_test(test_root_handles_in_use),
                cmocka_unit_test(test_handles_exhausted),
                cmocka_unit_test(test_handle_pool),
                cmocka_unit_test(test_check_root),
                cmocka_unit_test(test_check_fp),
                cmocka_unit_test(test_cbs_etf_chain),
                cmocka_unit_test(test_leaf_root),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

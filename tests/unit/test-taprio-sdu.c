/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The max SDU per class a taprio dumps on kernels that dump the effective
 * value (Linux 6.12, taprio_update_queue_max_sdu()), worked out by hand
 * from the kernel's rules in the comments (kinds/taprio-sdu.h), and how a
 * dump is compared with a schedule (taprio_settle_max_sdu()). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "qdisc-kind.h"
#include "taprio-sdu.h"

/* detd's software schedule (tests/kernel/test-taprio-short-gates.sh). */
static const GateEntry detd[] = {
        { GATE_SET_GATES, 0x1, 250000 },
        { GATE_SET_GATES, 0x2, 12176 },
        { GATE_SET_GATES, 0x1, 19737824 },
};

static TaprioSduFacts veth(void) {
        return (TaprioSduFacts) { .link_speed_mbps = 10000, .max_mtu = 65535, .hard_header_len = 14 };
}

static void test_span(void **state) {
        (void) state;
        /* class 0: entry 2 then, round the cycle, entry 0: 19737824 + 250000 */
        assert_int_equal(taprio_open_gate_span_ns(detd, 3, 0), 19987824);
        assert_int_equal(taprio_open_gate_span_ns(detd, 3, 1), 12176);
        assert_int_equal(taprio_open_gate_span_ns(detd, 3, 2), 0);      /* never open */
}

static void test_detd_on_veth(void **state) {
        const uint32_t none[TBS_MAX_TC] = {};
        TaprioSduFacts f = veth();
        uint32_t r[TBS_MAX_TC];

        (void) state;
        /* 10 Gbit/s: 8000000 / 10000 = 800 ps a byte.
         * class 1: 12176 ns * 1000 / 800 = 15220 bytes, less the 14-byte
         *   header: 15206 (what 6.12 dumps for the file's "none").
         * class 0: 19987824 * 1000 / 800 = 24984780 - 14, above max_mtu
         *   65535: none (0). */
        taprio_kernel_max_sdu(none, 2, detd, 3, 20000000, &f, r);
        assert_int_equal(r[0], 0);
        assert_int_equal(r[1], 15206);
        assert_int_equal(r[2], 0);      /* beyond num_tc */
}

static void test_asked_smaller_larger(void **state) {
        uint32_t asked[TBS_MAX_TC] = { 1500, 1000 };
        TaprioSduFacts f = veth();
        uint32_t r[TBS_MAX_TC];

        (void) state;
        taprio_kernel_max_sdu(asked, 2, detd, 3, 20000000, &f, r);
        assert_int_equal(r[0], 1500);   /* the gate carries more: the asked value */
        assert_int_equal(r[1], 1000);   /* asked smaller than 15206: asked */
        asked[1] = 20000;
        taprio_kernel_max_sdu(asked, 2, detd, 3, 20000000, &f, r);
        assert_int_equal(r[1], 15206);  /* asked larger: what the gate carries */
}

static void test_always_open(void **state) {
        /* class 0 open in both entries (the whole cycle), class 1 in one. */
        const GateEntry e[] = { { GATE_SET_GATES, 0x3, 500000 }, { GATE_SET_GATES, 0x1, 500000 } };
        const uint32_t asked[TBS_MAX_TC] = { 1000, 0 };
        TaprioSduFacts f = { .link_speed_mbps = 1000, .max_mtu = 65535, .hard_header_len = 14 };
        uint32_t r[TBS_MAX_TC];

        (void) state;
        /* class 0: no dynamic limit; the asked 1000 stays, as 0 would.
         * class 1: 1 Gbit/s is 8000 ps a byte: 500000 ns -> 62500 - 14. */
        taprio_kernel_max_sdu(asked, 2, e, 2, 0, &f, r);
        assert_int_equal(r[0], 1000);
        assert_int_equal(r[1], 62486);
        /* a cycle longer than the entries: the gate closes for the rest of
         * it, so class 0 has a limit after all: 1000000 ns -> 125000 - 14,
         * above max_mtu: none; the asked 1000 stays */
        taprio_kernel_max_sdu(asked, 2, e, 2, 1500000, &f, r);
        assert_int_equal(r[0], 1000);
        /* the same at an unknown speed: the kernel's 10 Mbit/s, 800000 ps
         * a byte: 1000000 ns -> 1250 - 14 = 1236 */
        f.link_speed_mbps = 0;
        taprio_kernel_max_sdu((const uint32_t[TBS_MAX_TC]) {}, 2, e, 2, 1500000, &f, r);
        assert_int_equal(r[0], 1236);
        assert_int_equal(r[1], 625 - 14);
}

static void test_above_max_mtu(void **state) {
        const GateEntry e[] = { { GATE_SET_GATES, 0x1, 74000 }, { GATE_SET_GATES, 0x2, 80000 } };
        const uint32_t none[TBS_MAX_TC] = {};
        TaprioSduFacts f = { .link_speed_mbps = 1000, .max_mtu = 9216, .hard_header_len = 14 };
        uint32_t r[TBS_MAX_TC];

        (void) state;
        /* igb at 1 Gbit/s, max_mtu 9216: 74000 ns -> 9250 - 14 = 9236,
         * above 9216: none; 80000 ns -> 10000 - 14: none */
        taprio_kernel_max_sdu(none, 2, e, 2, 0, &f, r);
        assert_int_equal(r[0], 0);
        assert_int_equal(r[1], 0);
        /* max_mtu not known: the values themselves (either is accepted) */
        f.max_mtu = 0;
        taprio_kernel_max_sdu(none, 2, e, 2, 0, &f, r);
        assert_int_equal(r[0], 9236);
        assert_int_equal(r[1], 9986);
        /* 73600 ns -> 9200 - 14 = 9186: under max_mtu, kept */
        f.max_mtu = 9216;
        taprio_kernel_max_sdu(none, 1, (const GateEntry[]) { { GATE_SET_GATES, 0x1, 73600 },
                                                            { GATE_SET_GATES, 0x2, 80000 } }, 2, 0, &f, r);
        assert_int_equal(r[0], 9186);
}

static void test_never_open(void **state) {
        const uint32_t asked[TBS_MAX_TC] = { 0, 0, 500 };
        TaprioSduFacts f = veth();
        uint32_t r[TBS_MAX_TC];

        (void) state;
        /* class 2 opens in no entry: a span of 0 bytes; without a stab
         * 0 - 14 wraps round to above max_mtu: none, the asked 500 stays */
        taprio_kernel_max_sdu(asked, 3, detd, 3, 0, &f, r);
        assert_int_equal(r[2], 500);
        /* with a stab the frame is kept at 15 (one byte of payload): 1 */
        f.stab = true;
        taprio_kernel_max_sdu(asked, 3, detd, 3, 0, &f, r);
        assert_int_equal(r[2], 1);
}

static void test_stab_overhead(void **state) {
        const uint32_t none[TBS_MAX_TC] = {};
        TaprioSduFacts f = veth();
        uint32_t r[TBS_MAX_TC];

        (void) state;
        /* 15220 bytes less 24 of overhead (preamble, FCS, gap) less 14 */
        f.stab = true;
        f.stab_overhead = 24;
        taprio_kernel_max_sdu(none, 2, detd, 3, 0, &f, r);
        assert_int_equal(r[1], 15182);
        /* a negative overhead adds */
        f.stab_overhead = -4;
        taprio_kernel_max_sdu(none, 2, detd, 3, 0, &f, r);
        assert_int_equal(r[1], 15210);
        /* an overhead above the span's bytes: kept at one byte */
        f.stab_overhead = 20000;
        taprio_kernel_max_sdu(none, 2, detd, 3, 0, &f, r);
        assert_int_equal(r[1], 1);
}

static RootSpec detd_root(GateEntry *entries) {
        return (RootSpec) {
                .kind = ROOT_TAPRIO, .handle = 0x1000000, .num_tc = 2, .taprio.clockid = CLOCK_TAI,
                .queues = { { 1, 0 }, { 1, 1 } }, .taprio.base_time_ns = 1000, .taprio.cycle_time_ns = 20000000,
                .taprio.entries = entries, .taprio.n_entries = 3,
        };
}

static void test_settle(void **state) {
        GateEntry e[3];
        DeviceFacts facts = { .link_speed_mbps = 10000 };
        const QDiscVTable *vt = qdisc_vtable_for_root(ROOT_TAPRIO);
        RootSpec want, dumped, w;

        (void) state;
        memcpy(e, detd, sizeof(e));
        want = detd_root(e);
        dumped = detd_root(e);
        dumped.taprio.max_sdu_dumped = true;
        dumped.taprio.max_sdu[1] = 15206;              /* 6.12's dump */

        w = want;
        assert_false(vt->equal(&w, &dumped));
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_true(vt->equal(&w, &dumped));

        /* 6.1's dump (the asked value) needs nothing */
        dumped.taprio.max_sdu[1] = 0;
        w = want;
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_true(vt->equal(&w, &dumped));

        /* someone set 9000 on class 1: a difference on either kernel */
        dumped.taprio.max_sdu[1] = 9000;
        w = want;
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_false(vt->equal(&w, &dumped));

        /* the link at another speed: 1 Gbit/s carries 1522 - 14 = 1508 */
        dumped.taprio.max_sdu[1] = 15206;
        w = want;
        facts.link_speed_mbps = 1000;
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_false(vt->equal(&w, &dumped));
        dumped.taprio.max_sdu[1] = 1508;
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_true(vt->equal(&w, &dumped));

        /* without facts nothing is settled */
        w = want;
        taprio_settle_max_sdu(&w, &dumped, NULL);
        assert_false(vt->equal(&w, &dumped));

        /* a dump without TC entries (no running schedule) is left alone */
        dumped.taprio.max_sdu_dumped = false;
        w = want;
        taprio_settle_max_sdu(&w, &dumped, &facts);
        assert_int_equal(w.taprio.max_sdu[1], 0);
}

static void test_settle_pending(void **state) {
        /* A change waits for its base time: the TC entries are the running
         * (oper) schedule's, whose class 1 gate is 24000 ns: at 10 Gbit/s
         * 30000 - 14 = 29986. */
        GateEntry admin[3], oper[2] = { { GATE_SET_GATES, 0x1, 976000 }, { GATE_SET_GATES, 0x2, 24000 } };
        DeviceFacts facts = { .link_speed_mbps = 10000 };
        RootSpec want, dumped;

        (void) state;
        memcpy(admin, detd, sizeof(admin));
        want = detd_root(admin);
        dumped = detd_root(admin);
        dumped.taprio.max_sdu_dumped = true;
        dumped.taprio.admin_pending = true;
        dumped.taprio.oper = (GateSchedule) { .cycle_time_ns = 1000000, .entries = oper, .n_entries = 2 };
        dumped.taprio.max_sdu[1] = 29986;
        taprio_settle_max_sdu(&want, &dumped, &facts);
        assert_int_equal(want.taprio.max_sdu[1], 29986);
        want = detd_root(admin);
        dumped.taprio.max_sdu[1] = 15206;      /* the admin schedule's value: not what the kernel dumps */
        taprio_settle_max_sdu(&want, &dumped, &facts);
        assert_int_equal(want.taprio.max_sdu[1], 0);
}

/* A first schedule waiting for its base time: Linux 6.12 dumps no TC
 * entries (they are the running schedule's), which says nothing of them. */
static void test_unreported(void **state) {
        GateEntry e[3];
        RootSpec want, dumped;

        (void) state;
        memcpy(e, detd, sizeof(e));
        want = detd_root(e);
        want.taprio.max_sdu[1] = 1000;
        want.fp_given = true;
        want.fp[0] = want.fp[1] = TBS_FP_EXPRESS;
        dumped = detd_root(e);
        dumped.taprio.admin_pending = true;            /* no oper entries: nothing runs yet */
        assert_true(taprio_tc_entries_unreported(&dumped));
        taprio_settle_max_sdu(&want, &dumped, NULL);
        assert_true(qdisc_vtable_for_root(ROOT_TAPRIO)->equal(&want, &dumped));

        /* once it runs, or on a kernel that dumps them whatever runs, they count */
        dumped.taprio.max_sdu_dumped = true;
        assert_false(taprio_tc_entries_unreported(&dumped));
        dumped.taprio.max_sdu_dumped = false;
        dumped.taprio.admin_pending = false;
        assert_false(taprio_tc_entries_unreported(&dumped));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_span),
                cmocka_unit_test(test_detd_on_veth),
                cmocka_unit_test(test_asked_smaller_larger),
                cmocka_unit_test(test_always_open),
                cmocka_unit_test(test_above_max_mtu),
                cmocka_unit_test(test_never_open),
                cmocka_unit_test(test_stab_overhead),
                cmocka_unit_test(test_settle),
                cmocka_unit_test(test_settle_pending),
                cmocka_unit_test(test_unreported),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a rollback sends to put a root back (qdisc_rollback_root()): the
 * per-class entries the dump before the apply carried, max SDU and frame
 * preemption (fp, Linux 6.4+). A root with preemptible classes that an
 * apply replaced comes back with them; one changed in place gets every
 * class's entry (the kernel keeps a class's fp when its entry is left
 * out). The requests are read back with the kinds' own dump parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "qdisc-fixture-roots.h"
#include "qdisc-kind.h"
#include "qdisc-rollback.h"
#include "qdisc.h"

/* The request's TCA_OPTIONS read back by the kind's parser. */
static void read_back(struct nl_msg *m, RootKind kind, RootSpec *ret) {
        struct nlmsghdr *h = nlmsg_hdr(m);
        struct nlattr *tb[TCA_MAX + 1];

        assert_int_equal(nlmsg_parse(h, sizeof(struct tcmsg), tb, TCA_MAX, NULL), 0);
        assert_non_null(tb[TCA_OPTIONS]);
        *ret = (RootSpec) {};
        assert_int_equal(qdisc_vtable_for_root(kind)->parse_options(tb[TCA_OPTIONS], ret), 0);
}

/* A snapshot as a 6.12 dump reads: full-offload taprio, classes 1 and 2
 * preemptible, class 2 limited to 1000 bytes. */
static RootSpec snapshot(void) {
        RootSpec r = taprio_root_cycle(0);

        r.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        r.taprio.max_sdu_dumped = true;
        r.taprio.max_sdu[2] = 1000;
        r.fp_dumped = true;
        r.fp[0] = TBS_FP_EXPRESS;
        r.fp[1] = TBS_FP_PREEMPTIBLE;
        r.fp[2] = TBS_FP_PREEMPTIBLE;
        return r;
}

static void test_new_root(void **state) {
        RootSpec snap = snapshot(), r, back;
        struct nl_msg *m = NULL;

        (void) state;
        r = qdisc_rollback_root(&snap, NULL);
        assert_true(r.fp_given);
        assert_true(r.taprio.max_sdu_given);
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        read_back(m, ROOT_TAPRIO, &back);
        assert_true(back.fp_dumped);
        assert_int_equal(back.fp[0], TBS_FP_EXPRESS);
        assert_int_equal(back.fp[1], TBS_FP_PREEMPTIBLE);
        assert_int_equal(back.fp[2], TBS_FP_PREEMPTIBLE);
        assert_int_equal(back.taprio.max_sdu[2], 1000);
        root_spec_done(&back);
        nlmsg_free(m);

        /* every class express (what a new root has anyway) and no limit:
         * no TC entries, as before fp existed */
        memset(snap.fp, 0, sizeof(snap.fp));
        snap.fp[0] = snap.fp[1] = snap.fp[2] = TBS_FP_EXPRESS;
        snap.taprio.max_sdu[2] = 0;
        r = qdisc_rollback_root(&snap, NULL);
        assert_false(r.fp_given);
        assert_false(r.taprio.max_sdu_given);

        /* a dump without fp (Linux 6.1): nothing about fp is sent */
        snap = snapshot();
        snap.fp_dumped = false;
        memset(snap.fp, 0, sizeof(snap.fp));
        r = qdisc_rollback_root(&snap, NULL);
        assert_false(r.fp_given);
}

static void test_mqprio(void **state) {
        RootSpec snap = mqprio_root, r, back;
        struct nl_msg *m = NULL;

        (void) state;
        snap.mqprio.hw_offload = true;
        snap.fp_dumped = true;
        snap.fp[0] = snap.fp[2] = TBS_FP_EXPRESS;
        snap.fp[1] = TBS_FP_PREEMPTIBLE;
        r = qdisc_rollback_root(&snap, NULL);
        assert_true(r.fp_given);
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        read_back(m, ROOT_MQPRIO, &back);
        assert_true(back.fp_dumped);
        assert_int_equal(back.fp[1], TBS_FP_PREEMPTIBLE);
        assert_int_equal(back.fp[2], TBS_FP_EXPRESS);
        root_spec_done(&back);
        nlmsg_free(m);

        /* a software mqprio dumps fp all express: none is sent (the kernel
         * takes fp only with hw 1) */
        snap.mqprio.hw_offload = false;
        snap.fp[1] = TBS_FP_EXPRESS;
        r = qdisc_rollback_root(&snap, NULL);
        assert_false(r.fp_given);
}

static void test_in_place(void **state) {
        RootSpec snap = snapshot(), cur = snapshot(), r, back;
        struct nl_msg *m = NULL;

        (void) state;
        /* the failed apply made class 1 express and lifted class 2's limit:
         * the change sends every class's entry back */
        cur.fp[1] = TBS_FP_EXPRESS;
        cur.taprio.max_sdu[2] = 0;
        r = qdisc_rollback_root(&snap, &cur);
        assert_true(r.fp_given);
        assert_true(r.taprio.max_sdu_given);
        assert_int_equal(qdisc_root_change_request(3, &r, &m), 0);
        read_back(m, ROOT_TAPRIO, &back);
        assert_int_equal(back.fp[1], TBS_FP_PREEMPTIBLE);
        assert_int_equal(back.fp[2], TBS_FP_PREEMPTIBLE);
        assert_int_equal(back.taprio.max_sdu[2], 1000);
        root_spec_done(&back);
        nlmsg_free(m);

        /* a kernel without fp in its dump gets none */
        snap.fp_dumped = cur.fp_dumped = false;
        r = qdisc_rollback_root(&snap, &cur);
        assert_false(r.fp_given);
        assert_true(r.taprio.max_sdu_given);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_new_root),
                cmocka_unit_test(test_mqprio),
                cmocka_unit_test(test_in_place),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waiting for PTP after a NIC reset (daemon/clock/ptp-relock.c): which applies
 * reset the link, judged on recorded devices (the capability probe replays
 * an i225, an i210 and a veth), and the wait's verdicts as the clock
 * check's status and the time move on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "caps-replay.h"
#include "ptp-relock.h"

#define T0 (UINT64_C(1800000000) * USEC_PER_SEC)        /* the apply, CLOCK_REALTIME */

static Schedule *mqprio_schedule(void) {
        static Schedule s;

        s = (Schedule) { .root = { .kind = ROOT_MQPRIO } };
        return &s;
}

static void test_apply_resets_link(void **state) {
        QueueApplyResult q[2] = {
                { .queue = 0, .kind = TXQ_ETF, .offload = true, .changed = true },
                { .queue = 1, .kind = TXQ_ETF, .offload = false, .changed = true },
        };
        ApplyReport rep = { .n_messages = 3, .queues = q, .n_queues = 2 };
        Schedule *s = mqprio_schedule();
        LinkCaps i225, i210, veth;
        Recording rec;

        probe_device("i225", &rec, &i225);
        probe_device("i210", &rec, &i210);
        probe_device("veth", &rec, &veth);
        assert_true(i225.resets_link_on_offload);
        assert_false(i210.resets_link_on_offload);
        assert_false(veth.resets_link_on_offload);

        /* igc: an etf switched on with offload resets the link. */
        assert_true(apply_resets_link(&i225, s, &rep));
        /* igb does not reset; unknown devices are not assumed to. */
        assert_false(apply_resets_link(&i210, s, &rep));
        assert_false(apply_resets_link(&veth, s, &rep));
        assert_false(apply_resets_link(NULL, s, &rep));
        /* Kept as installed, or software only: no reset. */
        q[0].changed = false;
        assert_false(apply_resets_link(&i225, s, &rep));
        q[0].changed = true;
        q[0].offload = false;
        assert_false(apply_resets_link(&i225, s, &rep));
        /* A cbs queue in offload counts the same. */
        q[1] = (QueueApplyResult) { .queue = 1, .kind = TXQ_CBS, .offload = true, .changed = true };
        assert_true(apply_resets_link(&i225, s, &rep));
        q[1].offload = false;
        /* Nothing sent: nothing reset. */
        q[0].offload = true;
        rep.n_messages = 0;
        assert_false(apply_resets_link(&i225, s, &rep));
        rep.n_messages = 1;
        q[0].offload = false;
        /* A new taprio root in full offload resets it; software taprio does not. */
        s->root.kind = ROOT_TAPRIO;
        s->root.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        rep.root_replaced = true;
        assert_true(apply_resets_link(&i225, s, &rep));
        s->root.taprio.mode = TAPRIO_MODE_SOFTWARE;
        assert_false(apply_resets_link(&i225, s, &rep));
        s->root.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        rep.root_replaced = false;
        assert_false(apply_resets_link(&i225, s, &rep));
}

static ClockStatus status(ClockState st, uint64_t at) {
        return (ClockStatus) { .state = st, .checked_at_usec = at };
}

static void test_judge(void **state) {
        const uint64_t settle = TBS_PTP_RELOCK_SETTLE_USEC, bound = TBS_PTP_RELOCK_TIMEOUT_USEC;
        ClockStatus st;
        PtpRelock p = {};

        /* Not waiting: idle, whatever the clock says. */
        st = status(CLOCK_STATE_UNSYNCED, T0);
        assert_int_equal(ptp_relock_judge(&p, &st, T0), RELOCK_IDLE);

        ptp_relock_begin(&p, T0);
        assert_true(p.waiting);
        /* The check from before the apply still says synced: it does not count. */
        st = status(CLOCK_STATE_SYNCED, T0 - 1);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + 1), RELOCK_WAIT);
        /* Synced right after the apply: ptp4l may not have noticed the reset yet. */
        st = status(CLOCK_STATE_SYNCED, T0 + settle - 1);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + settle - 1), RELOCK_WAIT);
        /* No check at all yet. */
        assert_int_equal(ptp_relock_judge(&p, NULL, T0 + 2), RELOCK_WAIT);
        /* Synced at a check made after the settling time: locked. */
        st = status(CLOCK_STATE_SYNCED, T0 + settle);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + settle), RELOCK_LOCKED);
        assert_false(p.waiting);
        assert_false(p.timed_out);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + settle), RELOCK_IDLE);

        /* The lock seen lost, then back: locked at once, before the settling time. */
        ptp_relock_begin(&p, T0);
        st = status(CLOCK_STATE_UNSYNCED, T0 + 1000);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + 1000), RELOCK_WAIT);
        assert_true(p.lost_seen);
        st = status(CLOCK_STATE_NO_PTP4L, T0 + 2000);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + 2000), RELOCK_WAIT);
        st = status(CLOCK_STATE_SYNCED, T0 + 3000);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + 3000), RELOCK_LOCKED);

        /* Never synced again: the bound ends the wait, and says so until
         * the next synced check. */
        ptp_relock_begin(&p, T0);
        st = status(CLOCK_STATE_UNSYNCED, T0 + bound - 1);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + bound - 1), RELOCK_WAIT);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + bound), RELOCK_TIMEOUT);
        assert_false(p.waiting);
        assert_true(p.timed_out);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + bound + 1), RELOCK_IDLE);
        assert_true(p.timed_out);
        st = status(CLOCK_STATE_SYNCED, T0 + bound + 5);
        assert_int_equal(ptp_relock_judge(&p, &st, T0 + bound + 5), RELOCK_IDLE);
        assert_false(p.timed_out);

        /* A clock stepped back (now before the apply) does not end the wait. */
        ptp_relock_begin(&p, T0);
        assert_int_equal(ptp_relock_judge(&p, NULL, T0 - bound), RELOCK_WAIT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_apply_resets_link),
                cmocka_unit_test(test_judge),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/link/launch-monitor.c without a kernel (how a probe's answer is
 * accounted is lib/launch-error.c's, in test-launch-error): the monitors' lifecycle on an event loop: started per queue in
 * ascending order, kept with their figures when their configuration stays,
 * restarted from zero when it changes, stopped when left out. The monitors
 * here cannot open their socket (no such interface): they stay dormant,
 * which is what a monitor does when its socket fails. Where a gated probe's
 * launch time goes in a taprio root's windows, across a pending change.
 * The probe rounds themselves run in the kernel tests
 * daemon-launch-monitor and daemon-launch-monitor-taprio. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "launch-monitor.h"

static LaunchMonitorConfig config(uint32_t queue, uint32_t interval_ms) {
        return (LaunchMonitorConfig) {
                .ifindex = 0x7ffffff0,  /* no such interface */
                .queue = queue,
                .priority = queue + 1,
                .clockid = CLOCK_TAI,
                .delta_ns = 200000,
                .interval_ms = interval_ms,
                .frames = 4,
        };
}

static void test_config_equal(void **state) {
        LaunchMonitorConfig a = config(1, 1000), b = a;

        assert_true(launch_monitor_config_equal(&a, &b));
        b.frames = 5;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.delta_ns++;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.ifindex++;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.deadline_mode = true;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.gated = true;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.tc = 3;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.link_speed_mbps = 1000;
        assert_false(launch_monitor_config_equal(&a, &b));
        b = a;
        b.tx_stamp_slots = 4;
        assert_false(launch_monitor_config_equal(&a, &b));
}

/* The stamps a round asks for: the NIC's only while its transmit stamping
 * is on and it holds a stamp for each of the round's probes beside the one
 * a PTP daemon waits for; software otherwise (issue 37: igb's one slot). */
static void test_choose_stamps(void **state) {
        static const struct {
                bool on;
                unsigned slots;
                uint32_t frames;
                LaunchStamps stamps;
                LaunchStampsWhy why;
        } cases[] = {
                /* stamping off: nobody needs the NIC's stamps, and it gives none */
                { false, 0, 4, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NIC_OFF },
                { false, 1, 1, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NIC_OFF },
                { false, 4, 1, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NIC_OFF },
                /* igb (one slot), igc before 6.4: never, whatever the round */
                { true, 1, 1, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NO_SPARE },
                { true, 1, 4, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NO_SPARE },
                /* a driver the table does not know: as if one */
                { true, 0, 1, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_UNKNOWN_SLOTS },
                /* igc from 6.4 (four): rounds of up to three probes */
                { true, 4, 3, LAUNCH_STAMPS_HARDWARE, LAUNCH_STAMPS_WHY_SPARE },
                { true, 4, 4, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NO_SPARE },
                { true, 4, 64, LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NO_SPARE },
                { true, 2, 1, LAUNCH_STAMPS_HARDWARE, LAUNCH_STAMPS_WHY_SPARE },
                { true, 65, 64, LAUNCH_STAMPS_HARDWARE, LAUNCH_STAMPS_WHY_SPARE },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                LaunchStampChoice c = launch_stamps_choose(cases[i].on, cases[i].slots, cases[i].frames);

                assert_int_equal(c.stamps, cases[i].stamps);
                assert_int_equal(c.why, cases[i].why);
                assert_non_null(launch_stamps_to_string(c.stamps));
                assert_non_null(launch_stamps_why_to_string(c.why));
        }
        assert_null(launch_stamps_to_string(LAUNCH_STAMPS_NONE));
        assert_null(launch_stamps_why_to_string(LAUNCH_STAMPS_WHY_NONE));
}

/* A gated probe's launch time from a dumped taprio root whose change is
 * pending: class 1 opens in [200000, 600000) of the running schedule's 1 ms
 * cycle (base 0) and in [0, 100000) of the pending one's 500 us cycle from
 * its base time 10 ms on. */
static void test_gated_txtime(void **state) {
        GateEntry admin[] = { { GATE_SET_GATES, 0x2, 100000 }, { GATE_SET_GATES, 0x1, 400000 } };
        GateEntry oper[] = { { GATE_SET_GATES, 0x1, 200000 }, { GATE_SET_GATES, 0x2, 400000 },
                             { GATE_SET_GATES, 0x1, 400000 } };
        RootSpec root = {
                .kind = ROOT_TAPRIO,
                .num_tc = 2,
                .taprio.base_time_ns = 10000000,
                .taprio.cycle_time_ns = 500000,
                .taprio.entries = admin,
                .taprio.n_entries = 2,
                .taprio.admin_pending = true,
                .taprio.oper = { .base_time_ns = 0, .cycle_time_ns = 1000000, .entries = oper, .n_entries = 3 },
        };
        int64_t t = -1;

        assert_int_equal(launch_gated_txtime(&root, 1, 3000000, 3000000, 68, &t), 0);
        assert_int_equal(t, 3200068);
        assert_int_equal(launch_gated_txtime(&root, 1, 3000000, 3599932, 68, &t), 0);
        assert_int_equal(t, 3599932);
        assert_int_equal(launch_gated_txtime(&root, 1, 3000000, 3599933, 68, &t), 0);
        assert_int_equal(t, 4200068);
        /* the running schedule's next window is past the change: wait for it */
        assert_int_equal(launch_gated_txtime(&root, 1, 9000000, 9700000, 68, &t), -EAGAIN);
        /* from the change on, the new schedule's windows */
        assert_int_equal(launch_gated_txtime(&root, 1, 10000000, 10000000, 68, &t), 0);
        assert_int_equal(t, 10000068);
        assert_int_equal(launch_gated_txtime(&root, 1, 12000000, 12050000, 68, &t), 0);
        assert_int_equal(t, 12050000);
        assert_int_equal(launch_gated_txtime(&root, 1, 12000000, 12099933, 68, &t), 0);
        assert_int_equal(t, 12500068);
        /* a window too short for the guard; a class that does not exist */
        assert_int_equal(launch_gated_txtime(&root, 1, 12000000, 12000000, 50000, &t), -ENOSPC);
        assert_int_equal(launch_gated_txtime(&root, 2, 12000000, 12000000, 68, &t), -EINVAL);
        /* nothing runs before the pending schedule's base time: taprio
         * drops every launch time until then */
        root.taprio.oper = (GateSchedule) {};
        assert_int_equal(launch_gated_txtime(&root, 1, 9999999, 10000000, 68, &t), -EAGAIN);
        assert_int_equal(launch_gated_txtime(&root, 1, 10000000, 10000000, 68, &t), 0);
        assert_int_equal(t, 10000068);
}

static void test_lifecycle(void **state) {
        LaunchMonitorConfig cfgs[3] = { config(5, 1000), config(2, 1000), config(7, 500) };
        const LaunchQueueStats *st;
        LaunchMonitors *m = NULL;
        sd_event *e = NULL;

        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(launch_monitors_stats(NULL, &st), 0);
        assert_null(st);

        /* started, ascending by queue */
        assert_int_equal(launch_monitors_sync(&m, e, "lm9", cfgs, 3, NULL), 0);
        assert_non_null(m);
        assert_int_equal(launch_monitors_stats(m, &st), 3);
        assert_int_equal(st[0].queue, 2);
        assert_int_equal(st[1].queue, 5);
        assert_int_equal(st[2].queue, 7);
        assert_int_equal(st[1].source, LAUNCH_STAMP_NONE);
        assert_non_null(launch_monitors_config(m, 7));
        assert_int_equal(launch_monitors_config(m, 7)->interval_ms, 500);
        assert_null(launch_monitors_config(m, 3));
        /* no round yet: no stamps chosen */
        assert_int_equal(launch_monitors_stamps(m, 7).stamps, LAUNCH_STAMPS_NONE);
        assert_int_equal(launch_monitors_stamps(NULL, 7).stamps, LAUNCH_STAMPS_NONE);

        /* figures to tell kept from restarted monitors */
        ((LaunchQueueStats *) st)[0].sent = 20;
        ((LaunchQueueStats *) st)[1].sent = 50;
        ((LaunchQueueStats *) st)[2].sent = 70;

        /* the same set: nothing changes */
        assert_int_equal(launch_monitors_sync(&m, e, "lm9", cfgs, 3, NULL), 0);
        assert_int_equal(launch_monitors_stats(m, &st), 3);
        assert_true(st[0].sent == 20 && st[1].sent == 50 && st[2].sent == 70);

        /* queue 7 changed (restarts from zero), queue 2 left out (stops),
         * queue 5 kept with its figures, queue 0 new */
        cfgs[0] = config(0, 1000);
        cfgs[1] = config(5, 1000);
        cfgs[2] = config(7, 600);
        assert_int_equal(launch_monitors_sync(&m, e, "lm9", cfgs, 3, NULL), 0);
        assert_int_equal(launch_monitors_stats(m, &st), 3);
        assert_int_equal(st[0].queue, 0);
        assert_int_equal(st[0].sent, 0);
        assert_int_equal(st[1].queue, 5);
        assert_int_equal(st[1].sent, 50);
        assert_int_equal(st[2].queue, 7);
        assert_int_equal(st[2].sent, 0);
        assert_int_equal(launch_monitors_config(m, 7)->interval_ms, 600);
        assert_null(launch_monitors_config(m, 2));

        /* none: everything stops, m is freed */
        assert_int_equal(launch_monitors_sync(&m, e, "lm9", NULL, 0, NULL), 0);
        assert_null(m);
        assert_int_equal(launch_monitors_stats(m, &st), 0);
        assert_null(launch_monitors_free(NULL));
        sd_event_unref(e);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_equal),
                cmocka_unit_test(test_choose_stamps),
                cmocka_unit_test(test_gated_txtime),
                cmocka_unit_test(test_lifecycle),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

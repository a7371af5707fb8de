/* SPDX-License-Identifier: GPL-2.0-or-later */
/* schedule_verify() on models built directly (as the daemon's netlink engine
 * builds them from kernel dumps) and with device facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "schedule-safety.h"
#include "schedule-verify.h"
#include "schedule.h"

/* A valid model: mqprio, 3 TCs over 4 queues, etf on queues 0 and 1. */
static Schedule *new_model(void) {
        Schedule *s = calloc(1, sizeof(Schedule));

        assert_non_null(s);
        s->source = strdup("m.json");
        assert_non_null(s->source);
        strcpy(s->ifname, "enp1s0");
        s->root = (RootSpec) {
                .kind = ROOT_MQPRIO,
                .handle = TBS_DEFAULT_ROOT_HANDLE,
                .num_tc = 3,
                .priority_map = { 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
                .queues = { { 1, 0 }, { 1, 1 }, { 2, 2 } },
                .taprio.clockid = CLOCK_TAI,
        };
        s->txqueues = calloc(2, sizeof(EtfSpec));
        assert_non_null(s->txqueues);
        s->n_txqueues = 2;
        s->txqueues[0] = (EtfSpec) { .queue = 0, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 200000, .offload = OFFLOAD_ON };
        s->txqueues[1] = (EtfSpec) { .queue = 1, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 500000, .offload = OFFLOAD_AUTO };
        s->clock = (ClockSpec) { .configured = true, .max_master_offset_ns = 100, .max_phc_offset_ns = 1000 };
        return s;
}

static void make_taprio(Schedule *s, size_t n) {
        s->root.kind = ROOT_TAPRIO;
        s->root.taprio.entries = calloc(n, sizeof(GateEntry));
        assert_non_null(s->root.taprio.entries);
        s->root.taprio.n_entries = n;
        for (size_t i = 0; i < n; i++)
                s->root.taprio.entries[i] = (GateEntry) { GATE_SET_GATES, 1U << (i % 3), 250000 };
        s->root.taprio.cycle_time_ns = 250000 * (int64_t) n;
}

/* verify and return the joined lines; checks the return code agrees. */
static char *verify(const Schedule *s, const DeviceFacts *facts) {
        DiagList l = {};
        char *all = strdup("");
        int r;

        assert_non_null(all);
        r = schedule_verify(s, facts, &l);
        assert_int_equal(r, diag_errors(&l) > 0 ? -EINVAL : 0);
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *line = diag_format(&l.items[i]), *prev = all;

                assert_non_null(line);
                assert_true(asprintf(&all, "%s%s%s", prev, i ? "\n" : "", line) >= 0);
        }
        diag_list_clear(&l);
        return all;
}

#define assert_verify(s, facts, expected)                         \
        do {                                                      \
                _cleanup_free_ char *_got = verify(s, facts);     \
                assert_string_equal(_got, expected);              \
        } while (0)

static const DeviceFacts i210 = {
        .tx_queues = 4,
        .offload_known = true,
        .launch_time_mask = 0x3,
        .offload_reason = "igb: launch time only on i210 queues 0 and 1",
};

static void test_valid(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        assert_verify(s, NULL, "");
        assert_verify(s, &i210, "");
        make_taprio(s, 3);
        assert_verify(s, &i210, "");
}

static void test_model_ranges(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        s->root.num_tc = 0;
        assert_verify(s, NULL, "m.json: root.num_tc: must be between 1 and 16, got 0");
        s->root.num_tc = 17;
        assert_verify(s, NULL, "m.json: root.num_tc: must be between 1 and 16, got 17");
        s->root.num_tc = 3;
        s->root.queues[1].count = 0;
        assert_verify(s, NULL, "m.json: root.queues[1].count: must be between 1 and 65535, got 0\n"
                               "m.json: txqueues[1].queue: queue 1 is in no traffic class of root.queues");
        s->root.queues[1].count = 1;
        /* the model holds the kernel's int32; tc can install a negative one */
        s->txqueues[0].etf.delta_ns = INT32_MIN;
        s->txqueues[1].etf.delta_ns = -1;
        assert_verify(s, NULL, "m.json: txqueues[0].delta_ns: must be between 0 and 2147483647, got -2147483648\n"
                               "m.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -1");
        s->txqueues[0].etf.delta_ns = s->txqueues[1].etf.delta_ns = 0;
        s->txqueues[1].queue = 70000;
        assert_verify(s, NULL, "m.json: txqueues[1].queue: must be between 0 and 65534, got 70000");
        s->txqueues[1].queue = 1;
        s->txqueues[1].etf.clockid = 4242;
        assert_verify(s, NULL, "m.json: txqueues[1].clockid: must be CLOCK_TAI: the kernel's etf qdisc accepts "
                               "only CLOCK_TAI, got clock 4242");
        s->txqueues[1].etf.clockid = CLOCK_TAI;
        s->root.handle = 0x01000001;
        assert_verify(s, NULL, "m.json: root.handle: must have minor number 0, such as \"100:\", got \"100:1\"");
        s->root.handle = 0;
        assert_verify(s, NULL, "m.json: root.handle: must be a qdisc handle such as \"100:\", got \"0:\"");
        s->root.handle = TBS_DEFAULT_ROOT_HANDLE;
        s->root.kind = _ROOT_KIND_MAX;
        assert_verify(s, NULL, "m.json: root.qdisc: unknown root qdisc kind 4");
        s->root.kind = ROOT_MQPRIO;
        s->clock.transport_specific = 16;
        s->clock.ptp4l_socket = calloc(200, 1);
        assert_non_null(s->clock.ptp4l_socket);
        memset(s->clock.ptp4l_socket, 'a', 150);
        s->clock.ptp4l_socket[0] = '/';
        assert_verify(s, NULL, "m.json: clock.ptp4l_socket: must be shorter than 108 bytes (sun_path)\n"
                               "m.json: clock.transport_specific: must be between 0 and 15, got 16");
        s->clock.configured = false;        /* an unconfigured clock section is not checked */
        assert_verify(s, NULL, "");
}

static void test_model_ifname(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        memset(s->ifname, 'x', IFNAMSIZ);   /* not NUL-terminated */
        assert_verify(s, NULL, "m.json: interface: must be at most 15 bytes long (IFNAMSIZ - 1)");
        strcpy(s->ifname, ".");
        assert_verify(s, NULL, "m.json: interface: must not be \".\" or \"..\"");
        strcpy(s->ifname, "eth\t0");
        assert_verify(s, NULL, "m.json: interface: must not contain whitespace");
        s->ifname[0] = 0;
        assert_verify(s, NULL, "m.json: interface: must not be empty");
        free(s->source);
        s->source = NULL;                   /* messages without a file part */
        assert_verify(s, NULL, "interface: must not be empty");

        assert_null(ifname_problem("enp1s0f0np0", 11));
        assert_non_null(ifname_problem("a\0b", 3));
}

static void test_facts_queues(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();
        DeviceFacts two = { .tx_queues = 2 };

        assert_verify(s, &two, "m.json: root.queues[2]: uses queues 2-3, but the device has 2 TX queues");
        two.tx_queues = 1;
        assert_verify(s, &two, "m.json: root.queues[1]: uses queue 1, but the device has 1 TX queue\n"
                               "m.json: root.queues[2]: uses queues 2-3, but the device has 1 TX queue");
        two.tx_queues = 0;                  /* unknown */
        assert_verify(s, &two, "");
}

static void test_facts_offload(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();
        DeviceFacts unknown = i210, noreason = i210;

        s->txqueues[1].queue = 2;
        s->txqueues[1].offload = OFFLOAD_ON;
        s->allow = 1U << SAFETY_PTP_ETF;    /* queue 2 carries PTP; this test is about offload */
        assert_verify(s, &i210, "m.json: txqueues[1].offload: launch-time offload is not available on queue 2: "
                                "igb: launch time only on i210 queues 0 and 1");
        noreason.offload_reason = NULL;
        assert_verify(s, &noreason, "m.json: txqueues[1].offload: launch-time offload is not available on "
                                    "queue 2 of this device");
        unknown.offload_known = false;
        assert_verify(s, &unknown, "");
        assert_verify(s, NULL, "");
        s->txqueues[1].offload = OFFLOAD_AUTO;     /* auto falls back to software: fine */
        assert_verify(s, &i210, "");
        s->txqueues[1].offload = OFFLOAD_OFF;
        assert_verify(s, &i210, "");
}

static void test_taprio_rules(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        make_taprio(s, 4);
        s->root.taprio.mode = TAPRIO_MODE_TXTIME_ASSIST;
        s->root.taprio.txtime_delay_ns = 500000;   /* at least every delta_ns (assist-delay) */
        s->txqueues[0].etf.skip_sock_check = true;
        assert_verify(s, NULL, "m.json: txqueues[1].skip_sock_check: warning: taprio in txtime-assist mode "
                               "stamps every packet with a launch time, and etf drops stamped packets from "
                               "sockets without SO_TXTIME; set skip_sock_check to true unless every sender "
                               "uses SO_TXTIME");
        s->txqueues[1].etf.skip_sock_check = true;
        assert_verify(s, NULL, "");
        s->root.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        assert_verify(s, NULL, "m.json: root.txtime_delay_ns: only valid with mode \"txtime-assist\", "
                               "got mode \"full-offload\"");
        s->root.taprio.txtime_delay_ns = 0;
        s->root.taprio.entries[3].gate_mask = 0xff;
        s->root.taprio.entries[2].interval_ns = 0;
        s->root.taprio.cycle_time_ns = 5;
        assert_verify(s, NULL, "m.json: root.entries[2].interval_ns: must be between 1 and 2147483647, got 0\n"
                               "m.json: root.entries[3].gate_mask: opens the gate of a traffic class that does "
                               "not exist: must be below 0x8 (1 << num_tc, num_tc is 3), got 0xff\n"
                               "m.json: root.cycle_time_ns: must be at least the sum of the entries' intervals "
                               "(750000), got 5");
        s->root.taprio.entries[3].gate_mask = 0x7;
        s->root.taprio.entries[2].interval_ns = 1;
        s->root.taprio.cycle_time_ns = 0;
        assert_verify(s, NULL, "m.json: root.cycle_time_ns: must be between 1 and 2147483647, got 0");
        s->root.taprio.cycle_time_ns = 750001;
        s->root.num_tc = 16;
        s->root.queues[3] = (QueueRange) { 1, 4 };
        for (unsigned tc = 4; tc < 16; tc++)
                s->root.queues[tc] = (QueueRange) { 1, (uint16_t) (tc + 1) };
        s->root.taprio.entries[0].gate_mask = 0xffff;   /* every gate of 16 TCs: fine */
        assert_verify(s, NULL, "");
        s->root.taprio.entries[0].gate_mask = 0x10000;
        assert_verify(s, NULL, "m.json: root.entries[0].gate_mask: opens the gate of a traffic class that does "
                               "not exist: must be below 0x10000 (1 << num_tc, num_tc is 16), got 0x10000");
}

/* "monitor" under a taprio root: its class must open, for longer than a
 * probe frame's transmission time on either side of its launch time where
 * the link speed is known (the device's, 10 Mbit/s: 67200 ns a side). */
static void test_monitor_taprio(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();
        DeviceFacts slow = i210, unknown = i210;

        slow.link_speed_mbps = 10;
        s->allow = 1U << SAFETY_PTP_GATE;   /* PTP's class at 10 Mbit/s is not what this is about */
        make_taprio(s, 3);                  /* classes 0, 1, 2 open 250000 ns each */
        s->txqueues[1].monitor = (MonitorSpec) { .enabled = true, .interval_ms = 1000, .frames = 4 };
        assert_verify(s, NULL, "");
        assert_verify(s, &slow, "");
        s->root.taprio.entries[1].gate_mask = 0x4;     /* class 1 (queue 1) never opens */
        assert_verify(s, NULL, "m.json: txqueues[1].monitor: traffic class 1 of queue 1 never opens in the gate "
                               "list (root.entries): taprio drops every launch time of the class, so no probe "
                               "frame can pass");
        s->root.taprio.entries[1].gate_mask = 0x2;
        s->root.taprio.entries[1].interval_ns = 134400;        /* twice the guard: no launch time fits */
        s->root.taprio.cycle_time_ns = 250000 * 2 + 134400;
        assert_verify(s, &slow, "m.json: txqueues[1].monitor: traffic class 1 of queue 1 opens for at most 134400 "
                                "ns at a time (root.entries); a probe frame needs more than 134400 ns: its "
                                "transmission time at 10 Mbit/s (67200 ns) on either side of its launch time");
        assert_verify(s, &unknown, "");         /* speed unknown: checked at run time */
        s->root.taprio.entries[1].interval_ns = 134401;
        s->root.taprio.cycle_time_ns = 250000 * 2 + 134401;
        assert_verify(s, &slow, "");
}

/* A file's monitors alone within the daemon's probe budget (issue 37:
 * the largest monitors the keys allow took a core); both sides of it. */
static void test_monitor_budget(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        s->txqueues[0].offload = OFFLOAD_OFF;
        s->txqueues[1].offload = OFFLOAD_OFF;
        s->txqueues[0].monitor = (MonitorSpec) { .enabled = true, .interval_ms = 100, .frames = 64 };
        s->txqueues[1].monitor = (MonitorSpec) { .enabled = true, .interval_ms = 100, .frames = 36 };
        assert_int_equal(monitor_spec_probes_per_s(&s->txqueues[0].monitor), 640);
        assert_verify(s, NULL, "");                                 /* 1000 */
        s->txqueues[1].monitor.interval_ms = 99;                    /* 363.6: 364, rounded up */
        assert_int_equal(monitor_spec_probes_per_s(&s->txqueues[1].monitor), 364);
        assert_verify(s, NULL, "m.json: txqueues[1].monitor: the file's monitors send 1004 probe frames a second, "
                               "above tbsd's budget of 1000 for all monitors (fewer frames, a longer interval_ms "
                               "or fewer monitored queues)");
        s->txqueues[1].monitor = (MonitorSpec) {};
        assert_verify(s, NULL, "");
}

/* The kernel's limits (docs/schedule-format.md, Limits), both sides of each. */
static void test_taprio_limits(void **state) {
        _cleanup_schedule_ Schedule *s = new_model();

        s->n_txqueues = 0;                  /* software taprio, no etf children */
        s->allow = 1U << SAFETY_PTP_GATE;   /* about the kernel's limits, not PTP's gate */
        make_taprio(s, TBS_TAPRIO_MAX_ENTRIES);
        assert_verify(s, NULL, "");
        free(s->root.taprio.entries);
        make_taprio(s, TBS_TAPRIO_MAX_ENTRIES + 1);
        assert_verify(s, NULL, "m.json: root.entries: must have at most 80 entries: the kernel cannot report or "
                               "notify a larger taprio (docs/schedule-format.md, Limits), got 81");
        free(s->root.taprio.entries);
        make_taprio(s, 2);

        /* Cycle time: sch_taprio.c's policy takes 1..INT_MAX. */
        s->root.taprio.cycle_time_given = true;
        s->root.taprio.cycle_time_ns = INT32_MAX;
        assert_verify(s, NULL, "");
        s->root.taprio.cycle_time_ns = (int64_t) INT32_MAX + 1;
        assert_verify(s, NULL, "m.json: root.cycle_time_ns: must be between 1 and 2147483647, got 2147483648");
        s->root.taprio.cycle_time_ns = INT64_MAX;
        assert_verify(s, NULL, "m.json: root.cycle_time_ns: must be between 1 and 2147483647, "
                               "got 9223372036854775807");

        /* Intervals: a timer per entry in software and txtime-assist modes. */
        s->root.taprio.cycle_time_given = false;
        s->root.taprio.entries[0].interval_ns = TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS;
        s->root.taprio.entries[1].interval_ns = INT32_MAX - TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS;
        s->root.taprio.cycle_time_ns = INT32_MAX;   /* the sum, as the parser computes it */
        assert_verify(s, NULL, "");
        s->root.taprio.entries[1].interval_ns++;
        s->root.taprio.cycle_time_ns++;
        assert_verify(s, NULL, "m.json: root.entries: the intervals add up to 2147483648 ns; the cycle time "
                               "may be at most 2147483647 ns");
        s->root.taprio.entries[0].interval_ns = 0;
        s->root.taprio.entries[1].interval_ns = (uint32_t) INT32_MAX + 1;
        s->root.taprio.cycle_time_ns = (int64_t) s->root.taprio.entries[0].interval_ns + s->root.taprio.entries[1].interval_ns;
        assert_verify(s, NULL, "m.json: root.entries[0].interval_ns: must be between 1 and 2147483647, got 0\n"
                               "m.json: root.entries[1].interval_ns: must be between 1 and 2147483647, "
                               "got 2147483648\n"
                               "m.json: root.entries: the intervals add up to 2147483648 ns; the cycle time "
                               "may be at most 2147483647 ns");
        /* Under 100 us in software mode: the "software-gate-interval"
         * safety check (tests/unit/test-schedule-safety.c), which a file
         * may allow; then the kernel's own floor is left to the apply. */
        s->root.taprio.entries[0].interval_ns = TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS - 1;
        s->root.taprio.entries[1].interval_ns = 1;
        s->root.taprio.cycle_time_ns = TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS;
        s->allow |= 1U << SAFETY_SOFTWARE_GATE_INTERVAL;
        assert_verify(s, NULL, "");
        s->allow &= ~(1U << SAFETY_SOFTWARE_GATE_INTERVAL);
        assert_verify(s, NULL, "m.json: root.entries[0].interval_ns: software-gate-interval: is 99999 ns, shorter "
                               "than 100000 ns in software mode: the kernel runs a timer at the end of every "
                               "entry, and entries this short take a large share of the CPU "
                               "(docs/schedule-format.md, \"Software intervals\"); use longer entries or "
                               "\"full-offload\" on a NIC that runs gate schedules; to accept it, add "
                               "\"software-gate-interval\" to \"allow\"\n"
                               "m.json: root.entries[1].interval_ns: software-gate-interval: is 1 ns, shorter "
                               "than 100000 ns in software mode: the kernel runs a timer at the end of every "
                               "entry, and entries this short take a large share of the CPU "
                               "(docs/schedule-format.md, \"Software intervals\"); use longer entries or "
                               "\"full-offload\" on a NIC that runs gate schedules; to accept it, add "
                               "\"software-gate-interval\" to \"allow\"");
        /* Full offload: the hardware runs the gates; the kernel's own floor
         * depends on the link speed and is checked when applied. */
        s->root.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        s->root.taprio.entries[0].interval_ns = 1;
        s->root.taprio.entries[1].interval_ns = 1;
        s->root.taprio.cycle_time_ns = 2;
        assert_verify(s, NULL, "");
        s->root.taprio.entries[1].interval_ns = 0;
        s->root.taprio.cycle_time_ns = 1;
        assert_verify(s, NULL, "m.json: root.entries[1].interval_ns: must be between 1 and 2147483647, got 0");
        s->root.taprio.entries[1].interval_ns = 1;
        s->root.taprio.cycle_time_ns = 2;

        /* Base time and cycle time extension: s64 in the kernel; tbsd takes
         * 0..INT64_MAX. */
        s->root.taprio.base_time_ns = INT64_MAX;
        s->root.taprio.cycle_time_extension_ns = INT64_MAX;
        assert_verify(s, NULL, "");
        s->root.taprio.base_time_ns = -1;
        s->root.taprio.cycle_time_extension_ns = -1;
        assert_verify(s, NULL, "m.json: root.base_time_ns: must be between 0 and 9223372036854775807, got -1\n"
                               "m.json: root.cycle_time_extension_ns: must be between 0 and 9223372036854775807, "
                               "got -1");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_model_ranges),
                cmocka_unit_test(test_model_ifname),
                cmocka_unit_test(test_facts_queues),
                cmocka_unit_test(test_facts_offload),
                cmocka_unit_test(test_taprio_rules),
                cmocka_unit_test(test_monitor_taprio),
                cmocka_unit_test(test_monitor_budget),
                cmocka_unit_test(test_taprio_limits),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

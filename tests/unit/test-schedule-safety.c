/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The time-sync safety checks (lib/schedule-safety.c): each refuses its bad
 * example with one line naming file, field, check and how to allow it, and
 * accepts it when the file's "allow" names the check; the two warnings are
 * printed without failing; "allow" and clock.ptp_priority parse strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "schedule-parse.h"
#include "schedule-safety.h"
#include "schedule-verify.h"

#define F "s.json"
#define NOW INT64_C(1800000000000000000)        /* 2027-01-15, a fixed "now" (ns) */

/* ' for " keeps the documents readable. */
static char *dq(const char *s) {
        char *t = strdup(s);

        assert_non_null(t);
        for (char *c = t; *c; c++)
                if (*c == '\'')
                        *c = '"';
        return t;
}

/* Parse text (must parse) and run the safety checks at NOW with facts;
 * returns the joined lines and sets *ret_failed. */
static char *check(const char *text, const DeviceFacts *facts, uint32_t *ret_failed) {
        _cleanup_free_ char *t = dq(text);
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList l = {};
        char *all = strdup("");

        assert_non_null(all);
        if (schedule_parse_json(F, t, strlen(t), &l, &s) < 0) {
                for (size_t i = 0; i < l.n; i++)
                        print_error("%s\n", l.items[i].reason);
                fail_msg("does not parse");
        }
        assert_int_equal(schedule_safety_check(s, facts, NOW, &l, ret_failed), 0);
        for (size_t i = 0; i < l.n; i++) {
                _cleanup_free_ char *line = diag_format(&l.items[i]), *prev = all;

                assert_non_null(line);
                assert_true(asprintf(&all, "%s%s%s", prev, i ? "\n" : "", line) >= 0);
        }
        diag_list_clear(&l);
        return all;
}

#define assert_check(text, facts, failed, expected)                                     \
        do {                                                                            \
                uint32_t _f = 0xdead;                                                   \
                _cleanup_free_ char *_got = check(text, facts, &_f);                    \
                assert_string_equal(_got, expected);                                    \
                assert_int_equal(_f, failed);                                           \
        } while (0)

/* Priority 0 -> class 2 (queues 2-3); the second entry opens MASK2. */
#define SGI ", 'allow': ['software-gate-interval']"
#define TAPRIO(MASK2, INTERVAL2, EXTRA)                                                          \
        "{'interface': 'eth0',"                                                                 \
        " 'root': {'qdisc': 'taprio', 'num_tc': 3,"                                             \
        "          'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"           \
        "          'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"            \
        "                     {'count': 2, 'offset': 2}],"                                      \
        "          'entries': [{'gate_mask': 3, 'interval_ns': 300000},"                        \
        "                      {'gate_mask': " MASK2 ", 'interval_ns': " INTERVAL2 "}]}" EXTRA "}"

static void test_ptp_gate(void **state) {
        static const DeviceFacts fast = { .link_speed_mbps = 2500 }, slow = { .link_speed_mbps = 100 };

        assert_check(TAPRIO("4", "700000", ""), NULL, 0, "");
        /* Class 2 never opens. */
        assert_check(TAPRIO("3", "700000", ""), NULL, 1U << SAFETY_PTP_GATE,
                     F ": root.entries: ptp-gate: traffic class 2 carries PTP (clock.ptp_priority 0 through "
                     "root.priority_map), but no entry opens it; a maximum-size frame (1542 bytes on the wire) "
                     "takes 12336 ns at 1000 Mbit/s (assumed: the link speed is not known), so ptp4l's messages "
                     "would wait for a gate that never lets them out; open class 2 for at least 12336 ns in one "
                     "entry of every cycle; to accept it, add \"ptp-gate\" to \"allow\"");
        assert_check(TAPRIO("3", "700000", ", 'allow': ['ptp-gate']"), NULL, 0, "");
        /* It opens, too briefly: 12335 ns at 1 Gbit/s; 12336 is enough. */
        /* (entries this short need "software-gate-interval" in software mode) */
        assert_check(TAPRIO("4", "12336", SGI), NULL, 0, "");
        {
                _cleanup_free_ char *got = check(TAPRIO("4", "12335", SGI), NULL, NULL);
                assert_non_null(strstr(got, "but the longest entry that opens it, entries[1], is 12335 ns;"));
        }
        /* The device's speed counts: 4935 ns at 2.5 Gbit/s, 123360 at 100 Mbit/s. */
        assert_check(TAPRIO("4", "12335", SGI), &fast, 0, "");
        {
                _cleanup_free_ char *got = check(TAPRIO("4", "100000", ""), &slow, NULL);
                assert_non_null(strstr(got, "takes 123360 ns at 100 Mbit/s, so"));
        }
        /* clock.ptp_priority 3 -> class 0, which entry 0 opens. */
        assert_check(TAPRIO("3", "700000", ", 'clock': {'ptp_priority': 3}"), NULL, 0, "");
        /* mqprio has no gates. */
        assert_check("{'interface': 'eth0', 'root': {'qdisc': 'mqprio', 'num_tc': 1,"
                     " 'priority_map': [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], 'queues': [{'count': 1, 'offset': 0}]}}",
                     NULL, 0, "");
}

#define MQPRIO(TXQ, EXTRA)                                                                       \
        "{'interface': 'eth0',"                                                                 \
        " 'root': {'qdisc': 'mqprio', 'num_tc': 3,"                                             \
        "          'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"           \
        "          'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"            \
        "                     {'count': 2, 'offset': 2}]},"                                     \
        " 'txqueues': [" TXQ "]" EXTRA "}"

static void test_ptp_etf(void **state) {
        const char *line = F ": txqueues[1]: ptp-etf: queue 3 carries PTP (traffic class 2, clock.ptp_priority 0), "
                "and etf drops every packet without a launch time, ptp4l's included; map priority 0 "
                "(root.priority_map[0]) to a traffic class whose queues have no etf; to accept it, add "
                "\"ptp-etf\" to \"allow\"";

        assert_check(MQPRIO("{'queue': 0, 'delta_ns': 200000}", ""), NULL, 0, "");
        /* Any queue of PTP's class, with or without skip_sock_check. */
        assert_check(MQPRIO("{'queue': 0, 'delta_ns': 200000}, {'queue': 3, 'delta_ns': 200000}", ""), NULL,
                     1U << SAFETY_PTP_ETF, line);
        assert_check(MQPRIO("{'queue': 0, 'delta_ns': 200000},"
                            " {'queue': 3, 'delta_ns': 200000, 'skip_sock_check': true}", ""),
                     NULL, 1U << SAFETY_PTP_ETF, line);
        assert_check(MQPRIO("{'queue': 0, 'delta_ns': 200000}, {'queue': 3, 'delta_ns': 200000}",
                            ", 'allow': ['ptp-etf']"), NULL, 0, "");
        /* A cbs on PTP's queue passes unstamped frames. */
        assert_check(MQPRIO("{'queue': 3, 'qdisc': 'cbs', 'idle_slope_kbps': 20000, 'send_slope_kbps': -980000,"
                            " 'hi_credit_bytes': 30, 'lo_credit_bytes': -1500}", ""), NULL, 0, "");
        /* ptp4l at priority 3: class 0, queue 0. */
        assert_check(MQPRIO("{'queue': 0, 'delta_ns': 200000}", ", 'clock': {'ptp_priority': 3}"), NULL,
                     1U << SAFETY_PTP_ETF,
                     F ": txqueues[0]: ptp-etf: queue 0 carries PTP (traffic class 0, clock.ptp_priority 3), and "
                     "etf drops every packet without a launch time, ptp4l's included; map priority 3 "
                     "(root.priority_map[3]) to a traffic class whose queues have no etf; to accept it, add "
                     "\"ptp-etf\" to \"allow\"");
}

/* txtime-assist, priority 0 -> class 2 (queues 2-3), every class opens. */
#define ASSIST(DELAY, TXQ, EXTRA)                                                                \
        "{'interface': 'eth0',"                                                                 \
        " 'root': {'qdisc': 'taprio', 'num_tc': 3, 'mode': 'txtime-assist', 'txtime_delay_ns': " DELAY "," \
        "          'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"           \
        "          'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"            \
        "                     {'count': 2, 'offset': 2}],"                                      \
        "          'entries': [{'gate_mask': 7, 'interval_ns': 1000000}]},"                     \
        " 'txqueues': [" TXQ "]" EXTRA "}"

static void test_ptp_etf_assist(void **state) {
        /* taprio stamps ptp4l's frames; skip_sock_check lets them through. */
        assert_check(ASSIST("300000", "{'queue': 2, 'delta_ns': 300000, 'skip_sock_check': true}", ""), NULL, 0, "");
        assert_check(ASSIST("300000", "{'queue': 2, 'delta_ns': 300000}", ""), NULL, 1U << SAFETY_PTP_ETF,
                     F ": txqueues[0]: ptp-etf: queue 2 carries PTP (traffic class 2, clock.ptp_priority 0); "
                     "taprio stamps ptp4l's frames with a launch time, but this etf drops them since ptp4l's "
                     "socket has no SO_TXTIME; set skip_sock_check to true; to accept it, add \"ptp-etf\" to "
                     "\"allow\"");
}

static void test_assist_delay(void **state) {
        assert_check(ASSIST("300000", "{'queue': 0, 'delta_ns': 300000, 'skip_sock_check': true}", ""), NULL, 0, "");
        assert_check(ASSIST("200000", "{'queue': 0, 'delta_ns': 300000, 'skip_sock_check': true},"
                                      " {'queue': 1, 'delta_ns': 100000, 'skip_sock_check': true}", ""),
                     NULL, 1U << SAFETY_ASSIST_DELAY,
                     F ": txqueues[0].delta_ns: assist-delay: is 300000 ns, more than root.txtime_delay_ns "
                     "(200000 ns): taprio stamps launch times only txtime_delay_ns ahead, and etf must release a "
                     "frame delta_ns before its launch time, so frames of queue 0 arrive too late and are "
                     "dropped; make txtime_delay_ns at least 300000; to accept it, add \"assist-delay\" to "
                     "\"allow\"");
        assert_check(ASSIST("200000", "{'queue': 0, 'delta_ns': 300000, 'skip_sock_check': true}",
                            ", 'allow': ['assist-delay']"), NULL, 0, "");
}

static void test_delta_cycle(void **state) {
        /* A warning: failed stays 0. */
        assert_check(ASSIST("2000000", "{'queue': 0, 'delta_ns': 2000000, 'skip_sock_check': true}", ""), NULL, 0,
                     F ": txqueues[0].delta_ns: warning: delta-cycle: is 2000000 ns, longer than the taprio "
                     "cycle (1000000 ns): etf hands frames to the device more than a cycle before their launch "
                     "time, so frames of a later cycle wait in the device's queue in front of this cycle's; to "
                     "accept it, add \"delta-cycle\" to \"allow\"");
        assert_check(ASSIST("2000000", "{'queue': 0, 'delta_ns': 2000000, 'skip_sock_check': true}",
                            ", 'allow': ['delta-cycle']"), NULL, 0, "");
        assert_check(ASSIST("1000000", "{'queue': 0, 'delta_ns': 1000000, 'skip_sock_check': true}", ""), NULL, 0,
                     "");
}

#define BASE(BASE_NS, CYCLE, EXTRA)                                                              \
        "{'interface': 'eth0',"                                                                 \
        " 'root': {'qdisc': 'taprio', 'num_tc': 1, 'base_time_ns': " BASE_NS ","                \
        "          'priority_map': [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],"           \
        "          'queues': [{'count': 1, 'offset': 0}], 'cycle_time_ns': " CYCLE ","          \
        "          'entries': [{'gate_mask': 1, 'interval_ns': 300000}]}" EXTRA "}"

static void test_base_time(void **state) {
        /* 1 ms divides a second; 0 is the default base; a future base starts there. */
        assert_check(BASE("1000", "1000000", ""), NULL, 0, "");
        assert_check(BASE("0", "300000", ""), NULL, 0, "");
        assert_check(BASE("1800000000500000000", "300000", ""), NULL, 0, "");
        /* 1799999000 s + 1000 ns with a 300 us cycle: NOW - base = 999999999000 ns
         * = 3333333 cycles + 99000 ns, so the start is base + 3333334 cycles
         * = 1800000000.000201000. */
        assert_check(BASE("1799999000000001000", "300000", ""), NULL, 0,
                     F ": root.base_time_ns: warning: base-time: is 999 s in the past and the cycle time (300000 "
                     "ns) does not divide a second, so the cycles begin at a different point of every second: "
                     "installed now, the schedule would really start at 1800000000.000201000 (base_time_ns + "
                     "3333334 cycles), 201000 ns after a whole second; give a base time in the future or a "
                     "cycle time that divides 1 s; to accept it, add \"base-time\" to \"allow\"");
        assert_check(BASE("1799999000000001000", "300000", ", 'allow': ['base-time']"), NULL, 0, "");
        /* Less than a second in the past: not far. */
        assert_check(BASE("1799999999000000001", "300000", ""), NULL, 0, "");
        /* A cycle of whole seconds divides nothing below it, but a second divides it. */
        assert_check(BASE("1000", "2000000000", ""), NULL, 0, "");
}

/* Software and txtime-assist entries under 100 us: one finding per entry;
 * full offload is not judged. */
#define SHORT(MODE, INTERVALS, EXTRA)                                                            \
        "{'interface': 'eth0',"                                                                 \
        " 'root': {'qdisc': 'taprio', 'num_tc': 1, 'mode': '" MODE "',"                         \
        "          'priority_map': [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],"           \
        "          'queues': [{'count': 1, 'offset': 0}],"                                      \
        "          'entries': [" INTERVALS "]}" EXTRA "}"
#define E(NS) "{'gate_mask': 1, 'interval_ns': " #NS "}"

static void test_software_gate_interval(void **state) {
        static const char *const tail = "ns, shorter than 100000 ns in software mode: the kernel runs a timer at the end of every "
                "entry, and entries this short take a large share of the CPU (docs/schedule-format.md, "
                "\"Software intervals\"); use longer entries or \"full-offload\" on a NIC that runs gate "
                "schedules; to accept it, add \"software-gate-interval\" to \"allow\"";
        _cleanup_free_ char *two = NULL;

        assert_check(SHORT("software", E(100000) "," E(900000), ""), NULL, 0, "");
        assert_check(SHORT("software", E(99999) "," E(900000), ""), NULL, 1U << SAFETY_SOFTWARE_GATE_INTERVAL,
                     F ": root.entries[0].interval_ns: software-gate-interval: is 99999 ns, shorter than 100000 "
                     "ns in software mode: the kernel runs a timer at the end of every entry, and entries this "
                     "short take a large share of the CPU (docs/schedule-format.md, \"Software intervals\"); "
                     "use longer entries or \"full-offload\" on a NIC that runs gate schedules; to accept it, "
                     "add \"software-gate-interval\" to \"allow\"");
        /* detd's software schedule: a 12176 ns entry; every short entry has its line. */
        assert_true(asprintf(&two, F ": root.entries[0].interval_ns: software-gate-interval: is 12176 %s\n"
                             F ": root.entries[2].interval_ns: software-gate-interval: is 1 %s", tail, tail) > 0);
        assert_check(SHORT("software", E(12176) "," E(487824) "," E(1), ""), NULL,
                     1U << SAFETY_SOFTWARE_GATE_INTERVAL, two);
        assert_check(SHORT("software", E(12176) "," E(487824) "," E(1), SGI), NULL, 0, "");
        /* txtime-assist runs the same timers. */
        {
                _cleanup_free_ char *got = check(SHORT("txtime-assist", E(50000) "," E(950000), ""), NULL, NULL);
                assert_non_null(strstr(got, "root.entries[0].interval_ns: software-gate-interval: is 50000 ns, "
                                            "shorter than 100000 ns in txtime-assist mode: "));
        }
        /* Full offload: the NIC runs the gates. */
        assert_check(SHORT("full-offload", E(12176) "," E(1) "," E(487823), ""), NULL, 0, "");
        /* mqprio has no gates. */
        assert_check("{'interface': 'eth0', 'root': {'qdisc': 'mqprio', 'num_tc': 1,"
                     " 'priority_map': [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], 'queues': [{'count': 1, 'offset': 0}]}}",
                     NULL, 0, "");
}

/* schedule_verify() runs the checks (the one path of --check, validate,
 * Validate() and apply), but not on a file with errors already. */
static void test_in_verify(void **state) {
        _cleanup_free_ char *t = dq(TAPRIO("3", "700000", "")), *bad = dq(TAPRIO("8", "70", ""));
        _cleanup_schedule_ Schedule *s = NULL, *b = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, t, strlen(t), &l, &s), 0);
        assert_int_equal(schedule_verify(s, NULL, &l), -EINVAL);
        assert_int_equal(l.n, 1);
        assert_non_null(strstr(l.items[0].reason, "ptp-gate: "));
        diag_list_clear(&l);
        s->allow = 1U << SAFETY_PTP_GATE;
        assert_int_equal(schedule_verify(s, NULL, &l), 0);
        assert_int_equal(l.n, 0);

        /* PTP's queue without skip_sock_check under txtime-assist: the
         * ptp-etf error alone, not also the validator's general warning. */
        {
                _cleanup_free_ char *a = dq(ASSIST("300000", "{'queue': 2, 'delta_ns': 300000}", ""));
                _cleanup_schedule_ Schedule *x = NULL;

                assert_int_equal(schedule_parse_json(F, a, strlen(a), &l, &x), 0);
                assert_int_equal(schedule_verify(x, NULL, &l), -EINVAL);
                assert_int_equal(l.n, 1);
                assert_non_null(strstr(l.items[0].reason, "ptp-etf: "));
                diag_list_clear(&l);
                x->allow = 1U << SAFETY_PTP_ETF;
                assert_int_equal(schedule_verify(x, NULL, &l), 0);
                assert_int_equal(l.n, 1);
                assert_string_equal(l.items[0].path, "txqueues[0].skip_sock_check");
                diag_list_clear(&l);
        }

        assert_int_equal(schedule_parse_json(F, bad, strlen(bad), &l, &b), 0);
        assert_int_equal(schedule_verify(b, NULL, &l), -EINVAL);
        assert_int_equal(l.n, 1);       /* no ptp-gate or software-gate-interval finding */
        assert_string_equal(l.items[0].path, "root.entries[1].gate_mask");
        diag_list_clear(&l);

        /* A 70 ns software entry: the validator takes it (the kernel's own
         * floor is the link's), the safety check refuses it until allowed. */
        {
                /* (PTP at priority 3: class 0, which entry 0 opens long enough) */
                _cleanup_free_ char *a = dq(TAPRIO("4", "70", ", 'clock': {'ptp_priority': 3}"));
                _cleanup_schedule_ Schedule *x = NULL;

                assert_int_equal(schedule_parse_json(F, a, strlen(a), &l, &x), 0);
                assert_int_equal(schedule_verify(x, NULL, &l), -EINVAL);
                assert_int_equal(l.n, 1);
                assert_string_equal(l.items[0].path, "root.entries[1].interval_ns");
                assert_non_null(strstr(l.items[0].reason, "software-gate-interval: is 70 ns"));
                diag_list_clear(&l);
                x->allow = 1U << SAFETY_SOFTWARE_GATE_INTERVAL;
                assert_int_equal(schedule_verify(x, NULL, &l), 0);
                assert_int_equal(l.n, 0);
        }
}

static void assert_parse_error(const char *text, const char *expected) {
        _cleanup_free_ char *t = dq(text);
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *line = NULL;
        DiagList l = {};

        assert_int_equal(schedule_parse_json(F, t, strlen(t), &l, &s), -EINVAL);
        assert_int_equal(l.n, 1);
        line = diag_format(&l.items[0]);
        assert_string_equal(line, expected);
        diag_list_clear(&l);
}

static void test_parse(void **state) {
        assert_parse_error(TAPRIO("4", "700000", ", 'allow': ['ptp-gates']"),
                           F ": allow[0]: unknown check \"ptp-gates\"; expected one of \"ptp-gate\", \"ptp-etf\", "
                           "\"assist-delay\", \"delta-cycle\", \"base-time\", \"software-gate-interval\"");
        assert_parse_error(TAPRIO("4", "700000", ", 'allow': ['ptp-etf', 'ptp-etf']"),
                           F ": allow[1]: lists \"ptp-etf\" a second time");
        assert_parse_error(TAPRIO("4", "700000", ", 'allow': [1]"), F ": allow[0]: must be a string, got 1");
        assert_parse_error(TAPRIO("4", "700000", ", 'allow': 'ptp-gate'"),
                           F ": allow: must be an array, got \"ptp-gate\"");
        assert_parse_error(TAPRIO("4", "700000", ", 'clock': {'ptp_priority': 16}"),
                           F ": clock.ptp_priority: must be between 0 and 15, got 16");
        /* Every name round-trips. */
        for (int c = 0; c < _SAFETY_CHECK_MAX; c++)
                assert_int_equal(safety_check_from_string(safety_check_to_string(c)), c);
        assert_int_equal(safety_check_from_string("PTP-GATE"), -EINVAL);
        assert_int_equal(frame_time_ns(TBS_PTP_FRAME_WIRE_BYTES, 1000), 12336);
        assert_int_equal(frame_time_ns(TBS_PTP_FRAME_WIRE_BYTES, 2500), 4935);     /* 4934.4 up */
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ptp_gate),
                cmocka_unit_test(test_ptp_etf),
                cmocka_unit_test(test_ptp_etf_assist),
                cmocka_unit_test(test_assist_delay),
                cmocka_unit_test(test_delta_cycle),
                cmocka_unit_test(test_base_time),
                cmocka_unit_test(test_software_gate_interval),
                cmocka_unit_test(test_in_verify),
                cmocka_unit_test(test_parse),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

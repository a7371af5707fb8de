/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schedule keys that grant rights (lib/schedule-rights.c): which keys
 * of a document count, with the path of the first use; the keys that only
 * shape the interface's own tree do not; tbsd --schedule-group-may's list
 * parses strictly. */
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
#include "schedule-rights.h"

#define MQPRIO_ROOT                                                                                  \
        "'root': {'qdisc': 'mqprio', 'num_tc': 3,"                                                   \
        " 'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"                         \
        " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 2}]}"

#define TAPRIO_ROOT(mode)                                                                            \
        "'root': {'qdisc': 'taprio', 'num_tc': 3,"                                                   \
        " 'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"                         \
        " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1}, {'count': 2, 'offset': 2}]," \
        " 'mode': '" mode "', 'entries': [{'gate_mask': 7, 'interval_ns': 1000000}]}"

#define CBS(child)                                                                                   \
        "{'queue': 0, 'qdisc': 'cbs', 'idle_slope_kbps': 20000, 'send_slope_kbps': -980000,"       \
        " 'hi_credit_bytes': 30, 'lo_credit_bytes': -1470, 'child': " child "}"

/* The rights text (' for ") uses; where[] gets their paths. */
static uint32_t rights_of(const char *text, char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX]) {
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *t = strdup(text);
        DiagList l = {};

        assert_non_null(t);
        for (char *c = t; *c; c++)
                if (*c == '\'')
                        *c = '"';
        if (schedule_parse_json("s.json", t, strlen(t), &l, &s) < 0) {
                for (size_t i = 0; i < l.n; i++)
                        print_error("%s\n", l.items[i].reason);
                fail_msg("does not parse: %s", t);
        }
        diag_list_clear(&l);
        memset(where, 0, _SCHEDULE_RIGHT_MAX * SCHEDULE_RIGHT_PATH_MAX);
        return schedule_rights_used(s, where);
}

#define BIT(r) (1U << (r))

static void test_schedule_keys(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        /* A schedule and its clock checks, the monitor, drift, an empty
         * allow: nothing but the interface's own tree and tbsd's reports. */
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'txqueues': ["
                                   "{'queue': 0, 'delta_ns': 300000, 'deadline_mode': true,"
                                   " 'monitor': {'interval_ms': 1000, 'frames': 4}}],"
                                   " 'clock': {'ptp4l_socket': '/run/ptp4l', 'max_master_offset_ns': 1000},"
                                   " 'drift': 'report', 'allow': []}", w),
                         0);
        assert_int_equal(rights_of("{'interface': 'eth0', " TAPRIO_ROOT("software") "}", w), 0);
}

static void test_allow(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        assert_int_equal(rights_of("{'interface': 'eth0', " TAPRIO_ROOT("software") ","
                                   " 'allow': ['software-gate-interval']}", w),
                         BIT(SCHEDULE_RIGHT_ALLOW));
        assert_string_equal(w[SCHEDULE_RIGHT_ALLOW], "allow");
}

static void test_sockets(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'sockets': {'group': 'users'}}", w),
                         BIT(SCHEDULE_RIGHT_SOCKETS));
        assert_string_equal(w[SCHEDULE_RIGHT_SOCKETS], "sockets");
        /* EtherTypes alone widen packet sockets (root's and the admin group's). */
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'sockets': {'ethertypes': ['0x88f7']}}",
                                   w),
                         BIT(SCHEDULE_RIGHT_SOCKETS));
}

static void test_skip_sock_check(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        /* Under mqprio: the first etf with it is named. */
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'txqueues': ["
                                   "{'queue': 0, 'delta_ns': 300000},"
                                   "{'queue': 1, 'delta_ns': 300000, 'skip_sock_check': true},"
                                   "{'queue': 2, 'delta_ns': 300000, 'skip_sock_check': true}]}", w),
                         BIT(SCHEDULE_RIGHT_SKIP_SOCK_CHECK));
        assert_string_equal(w[SCHEDULE_RIGHT_SKIP_SOCK_CHECK], "txqueues[1].skip_sock_check");
        /* false is the default: nothing waived. */
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'txqueues': ["
                                   "{'queue': 0, 'delta_ns': 300000, 'skip_sock_check': false}]}", w),
                         0);
        /* The etf under a cbs. */
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'txqueues': ["
                                   CBS("{'delta_ns': 500000, 'skip_sock_check': true}") "]}", w),
                         BIT(SCHEDULE_RIGHT_SKIP_SOCK_CHECK));
        assert_string_equal(w[SCHEDULE_RIGHT_SKIP_SOCK_CHECK], "txqueues[0].child.skip_sock_check");
        /* Under taprio in software mode too. */
        assert_int_equal(rights_of("{'interface': 'eth0', " TAPRIO_ROOT("software") ", 'txqueues': ["
                                   "{'queue': 2, 'delta_ns': 300000, 'skip_sock_check': true}]}", w),
                         BIT(SCHEDULE_RIGHT_SKIP_SOCK_CHECK));
        assert_string_equal(w[SCHEDULE_RIGHT_SKIP_SOCK_CHECK], "txqueues[0].skip_sock_check");
        /* A root etf. */
        assert_int_equal(rights_of("{'interface': 'eth0', 'root': {'qdisc': 'etf', 'delta_ns': 300000,"
                                   " 'skip_sock_check': true}}", w),
                         BIT(SCHEDULE_RIGHT_SKIP_SOCK_CHECK));
        assert_string_equal(w[SCHEDULE_RIGHT_SKIP_SOCK_CHECK], "root.skip_sock_check");
}

/* In txtime-assist mode taprio stamps the frames itself; its etfs need the
 * key to pass them, and it gives nobody more. */
static void test_skip_sock_check_txtime_assist(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        assert_int_equal(rights_of("{'interface': 'eth0', 'root': {'qdisc': 'taprio', 'num_tc': 3,"
                                   " 'priority_map': [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
                                   " 'queues': [{'count': 1, 'offset': 0}, {'count': 1, 'offset': 1},"
                                   " {'count': 2, 'offset': 2}], 'mode': 'txtime-assist', 'txtime_delay_ns': 300000,"
                                   " 'entries': [{'gate_mask': 7, 'interval_ns': 1000000}]}, 'txqueues': ["
                                   "{'queue': 0, 'delta_ns': 200000, 'skip_sock_check': true}]}", w),
                         0);
}

static void test_all_together(void **state) {
        char w[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];

        (void) state;
        assert_int_equal(rights_of("{'interface': 'eth0', " MQPRIO_ROOT ", 'txqueues': ["
                                   "{'queue': 0, 'delta_ns': 300000, 'skip_sock_check': true}],"
                                   " 'sockets': {'group': 'users'}, 'allow': ['ptp-etf']}", w),
                         SCHEDULE_RIGHTS_ALL);
        assert_string_equal(w[SCHEDULE_RIGHT_ALLOW], "allow");
        assert_string_equal(w[SCHEDULE_RIGHT_SOCKETS], "sockets");
        assert_string_equal(w[SCHEDULE_RIGHT_SKIP_SOCK_CHECK], "txqueues[0].skip_sock_check");
}

static void test_names(void **state) {
        (void) state;
        for (ScheduleRight r = 0; r < _SCHEDULE_RIGHT_MAX; r++) {
                assert_non_null(schedule_right_to_string(r));
                assert_non_null(schedule_right_reason(r));
                assert_int_equal(schedule_right_from_string(schedule_right_to_string(r)), r);
        }
        assert_null(schedule_right_to_string(_SCHEDULE_RIGHT_MAX));
        assert_int_equal(schedule_right_from_string("clock"), _SCHEDULE_RIGHT_INVALID);
}

/* list parses to expect; or, expect_bad non-NULL, is refused at that text. */
static void parse_case(const char *list, uint32_t expect, const char *expect_bad, size_t expect_bad_len) {
        uint32_t got = 0xdead;
        const char *bad = NULL;
        size_t n = 99;
        int r = schedule_rights_parse(list, &got, &bad, &n);

        if (!expect_bad) {
                assert_int_equal(r, 0);
                assert_int_equal(got, expect);
                return;
        }
        assert_int_equal(r, -EINVAL);
        assert_int_equal(got, 0xdead);
        assert_non_null(bad);
        assert_int_equal(n, expect_bad_len);
        assert_memory_equal(bad, expect_bad, expect_bad_len);
}

static void test_parse_list(void **state) {
        (void) state;
        parse_case("", 0, NULL, 0);
        parse_case("allow", BIT(SCHEDULE_RIGHT_ALLOW), NULL, 0);
        parse_case("allow,sockets", BIT(SCHEDULE_RIGHT_ALLOW) | BIT(SCHEDULE_RIGHT_SOCKETS), NULL, 0);
        parse_case("sockets,skip_sock_check,allow", SCHEDULE_RIGHTS_ALL, NULL, 0);
        parse_case("allow,allow", 0, "allow", 5);
        parse_case("allow,clock", 0, "clock", 5);
        parse_case("Allow", 0, "Allow", 5);
        parse_case("allow, sockets", 0, " sockets", 8);
        parse_case(",allow", 0, "", 0);
        parse_case("allow,", 0, "", 0);
        parse_case("allow,,sockets", 0, "", 0);
#define LONG_NAME "a-name-longer-than-the-buffer-of-thirty-two-bytes"
        parse_case("allow," LONG_NAME, 0, LONG_NAME, strlen(LONG_NAME));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_schedule_keys),
                cmocka_unit_test(test_allow),
                cmocka_unit_test(test_sockets),
                cmocka_unit_test(test_skip_sock_check),
                cmocka_unit_test(test_skip_sock_check_txtime_assist),
                cmocka_unit_test(test_all_together),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_parse_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/clock_check.c: the rules that turn one check's figures into a
 * state and reason, and the JSON contract of `tbsctl clock --json`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "clock_check.h"

static ClockSpec spec(void) {
        return (ClockSpec) {
                .configured = true,
                .max_master_offset_ns = 100,
                .max_phc_offset_ns = 1000,
        };
}

/* A synced slave with a PHC. */
static ClockInputs good(void) {
        ClockInputs in = {
                .ptp4l_socket = "/var/run/ptp4l",
                .ptp4l_timeout_usec = 1000000,
                .port_ds.port_state = PTP_PORT_SLAVE,
                .time_status = {
                        .master_offset = -42,
                        .gm_present = 1,
                        .gm_identity = { 0x3a, 0x9f, 0x2b, 0xff, 0xfe, 0x14, 0xdf, 0x70 },
                },
                .current_ds = { .steps_removed = 1, .mean_path_delay = 2944LL << 16 },
                .phc_index = 0,
                .phc = { .offset_ns = 30, .window_ns = 1500, .method = PHC_OFFSET_EXTENDED },
                .tai_offset_s = 37,
                .now_usec = 1796277715123456ULL,
        };
        return in;
}

static ClockStatus eval(const ClockSpec *s, const ClockInputs *in) {
        ClockStatus st;
        clock_evaluate(s, in, &st);
        return st;
}

static void test_synced(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st = eval(&s, &in);

        assert_int_equal(st.state, CLOCK_STATE_SYNCED);
        assert_string_equal(clock_state_to_string(st.state), "synced");
        assert_string_equal(st.port_state, "SLAVE");
        assert_true(st.master_offset_ns == -42);
        assert_true(st.mean_path_delay_ns == 2944);
        assert_int_equal(st.steps_removed, 1);
        assert_true(st.gm_present);
        assert_string_equal(st.gm_identity, "3a9f2b.fffe.14df70");
        assert_true(st.phc_sys_offset_ns == 30);
        assert_int_equal(st.phc_offset_method, PHC_OFFSET_EXTENDED);
        assert_int_equal(st.tai_offset_s, 37);

        /* exactly at the limits is still synced */
        in.time_status.master_offset = -100;
        in.phc.offset_ns = 1000;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);

        /* the grandmaster's side: MASTER / GRAND_MASTER without gmPresent */
        in = good();
        in.port_ds.port_state = PTP_PORT_MASTER;
        in.time_status.gm_present = 0;
        in.time_status.master_offset = 0;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.port_ds.port_state = PTP_PORT_GRAND_MASTER;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
}

static void test_unsynced_reasons(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st;

        in.time_status.master_offset = 250;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "master offset 250 ns exceeds 100 ns");
        assert_true(st.master_offset_ns == 250);       /* figures kept */
        assert_true(st.phc_sys_offset_ns == 30);

        in.time_status.master_offset = -101;
        assert_string_equal(eval(&s, &in).reason, "master offset -101 ns exceeds 100 ns");

        in = good();
        in.port_ds.port_state = PTP_PORT_LISTENING;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "port state LISTENING");
        assert_string_equal(st.port_state, "LISTENING");

        in.port_ds.port_state = PTP_PORT_UNCALIBRATED;
        assert_string_equal(eval(&s, &in).reason, "port state UNCALIBRATED");
        in.port_ds.port_state = 42;
        assert_string_equal(eval(&s, &in).reason, "port state UNKNOWN(42)");

        in = good();
        in.time_status.gm_present = 0;
        assert_string_equal(eval(&s, &in).reason, "no grandmaster present");

        in = good();
        in.phc.offset_ns = 5000123;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "PHC-to-TAI offset 5000123 ns exceeds 1000 ns");

        in = good();
        in.phc.offset_ns = -1001;
        assert_string_equal(eval(&s, &in).reason, "PHC-to-TAI offset -1001 ns exceeds 1000 ns");

        in = good();
        in.tai_offset_s = 0;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "kernel TAI offset is 0 (unset)");

        in = good();
        in.phc_error = -ENODEV;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "PHC /dev/ptp0 not measurable: No such device");
        assert_false(st.has_phc_offset);

        in = good();
        in.ifname = "eth2";
        in.n_ports = 2;
        in.port_ds_error = -ENODEV;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "ptp4l has 2 ports, none on eth2");
        assert_false(st.has_port_state);

        in = good();
        in.port_ds_error = -EREMOTEIO;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "ptp4l gave no PORT_DATA_SET (error status)");
        assert_false(st.has_port_state);
}

static void test_no_ptp4l(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st;

        in.ptp4l_error = -ENOENT;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_NO_PTP4L);
        assert_string_equal(clock_state_to_string(st.state), "no-ptp4l");
        assert_string_equal(st.reason, "no ptp4l socket at /var/run/ptp4l");
        assert_false(st.has_port_state);
        assert_false(st.has_time_status);
        assert_true(st.has_tai_offset);     /* local figures still measured */
        assert_true(st.has_phc_offset);

        in.ptp4l_error = -ECONNREFUSED;
        assert_string_equal(eval(&s, &in).reason, "nothing listens on /var/run/ptp4l (ptp4l not running)");
        in.ptp4l_error = -ETIMEDOUT;
        assert_string_equal(eval(&s, &in).reason,
                            "no answer from ptp4l on /var/run/ptp4l within 1000 ms (domain or transportSpecific differ?)");
}

static void test_no_phc(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st;

        in.phc_index = -1;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_NO_PHC);
        assert_string_equal(clock_state_to_string(st.state), "no-phc");
        assert_string_equal(st.reason,
                            "software time stamping only: PHC checks skipped (port SLAVE, master offset -42 ns)");
        assert_false(st.has_phc_offset);

        /* ptp4l's own checks still come first */
        in.time_status.master_offset = 1000;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_UNSYNCED);
}

static void test_not_configured(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st;

        s.configured = false;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_NOT_CONFIGURED);
        assert_string_equal(clock_state_to_string(st.state), "not-configured");
        assert_false(st.has_port_state);
        assert_false(st.has_phc_offset);
        assert_false(st.has_tai_offset);
}

static void test_state_strings(void **state) {
        const char *names[] = { "synced", "unsynced", "no-ptp4l", "no-phc", "not-configured" };

        for (int i = 0; i < _CLOCK_STATE_MAX; i++) {
                assert_string_equal(clock_state_to_string(i), names[i]);
                assert_int_equal(clock_state_from_string(names[i]), i);
        }
        assert_null(clock_state_to_string(_CLOCK_STATE_MAX));
        assert_int_equal(clock_state_from_string("ok"), -EINVAL);
}

static void test_json(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st = eval(&s, &in);
        struct json_object *o = clock_status_to_json(&st), *v;
        const char *keys[] = { "state", "reason", "port_state", "master_offset_ns", "mean_path_delay_ns",
                               "gm_present", "gm_identity", "steps_removed", "phc_sys_offset_ns",
                               "phc_offset_method", "tai_offset_s", "checked_at" };

        assert_non_null(o);
        assert_int_equal(json_object_object_length(o), 12);
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                assert_true(json_object_object_get_ex(o, keys[i], NULL));

        assert_true(json_object_object_get_ex(o, "state", &v));
        assert_string_equal(json_object_get_string(v), "synced");
        assert_true(json_object_object_get_ex(o, "master_offset_ns", &v));
        assert_true(json_object_get_int64(v) == -42);
        assert_true(json_object_object_get_ex(o, "gm_present", &v));
        assert_true(json_object_get_boolean(v));
        assert_true(json_object_object_get_ex(o, "phc_offset_method", &v));
        assert_string_equal(json_object_get_string(v), "extended");
        assert_true(json_object_object_get_ex(o, "tai_offset_s", &v));
        assert_int_equal(json_object_get_int(v), 37);
        assert_true(json_object_object_get_ex(o, "checked_at", &v));
        assert_string_equal(json_object_get_string(v), "2026-12-03T06:01:55.123456Z");
        json_object_put(o);

        /* unknown figures are null */
        in.ptp4l_error = -ENOENT;
        in.phc_index = -1;
        st = eval(&s, &in);
        o = clock_status_to_json(&st);
        assert_true(json_object_object_get_ex(o, "port_state", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(o, "master_offset_ns", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(o, "phc_sys_offset_ns", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(o, "state", &v));
        assert_string_equal(json_object_get_string(v), "no-ptp4l");
        json_object_put(o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_synced),
                cmocka_unit_test(test_unsynced_reasons),
                cmocka_unit_test(test_no_ptp4l),
                cmocka_unit_test(test_no_phc),
                cmocka_unit_test(test_not_configured),
                cmocka_unit_test(test_state_strings),
                cmocka_unit_test(test_json),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

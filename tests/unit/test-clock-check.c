/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/clock/clock-check.c: the rules that turn one check's figures into a
 * state and reason, the JSON contract of `tbsctl clock --json`, and whole
 * checks run from an event loop against a stand-in ptp4l that answers with
 * the replies recorded from ptp4l (tests/unit/fixtures/ptp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "clock-check.h"

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

        /* the grandmaster vouches for its UTC offset: the kernel's must match */
        in = good();
        in.time_properties.current_utc_offset = 37;
        in.time_properties.flags = PTP_FLAG_UTC_OFFSET_VALID | PTP_FLAG_TIME_TRACEABLE | PTP_FLAG_PTP_TIMESCALE;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.tai_offset_s = 36;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "kernel TAI offset 36 s differs from the grandmaster's UTC offset 37 s");
        in.time_properties.flags = PTP_FLAG_UTC_OFFSET_VALID | PTP_FLAG_PTP_TIMESCALE;  /* not traceable */
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.time_properties.flags = PTP_FLAG_UTC_OFFSET_VALID | PTP_FLAG_TIME_TRACEABLE;  /* ARB timescale */
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.time_properties.flags = PTP_FLAG_UTC_OFFSET_VALID | PTP_FLAG_TIME_TRACEABLE | PTP_FLAG_PTP_TIMESCALE;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_UNSYNCED);
        in.time_properties_error = -ETIMEDOUT;                       /* not known: not checked */
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);

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

/* Offsets at the ends of int64_t: |INT64_MIN| does not fit in int64_t, and
 * an abs() of it once made the most negative master offset count as
 * synced. */
static void test_extreme_offsets(void **state) {
        ClockSpec s = spec();
        ClockInputs in = good();
        ClockStatus st;

        in.time_status.master_offset = INT64_MIN;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "master offset -9223372036854775808 ns exceeds 100 ns");
        in.time_status.master_offset = INT64_MAX;
        assert_string_equal(eval(&s, &in).reason, "master offset 9223372036854775807 ns exceeds 100 ns");
        in.time_status.master_offset = INT64_MIN + 1;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_UNSYNCED);

        /* The widest limit the schedule format takes (INT64_MAX): INT64_MAX
         * is within it, INT64_MIN (2^63) is one beyond. */
        s.max_master_offset_ns = INT64_MAX;
        in.time_status.master_offset = INT64_MAX;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.time_status.master_offset = -INT64_MAX;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.time_status.master_offset = INT64_MIN;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason,
                            "master offset -9223372036854775808 ns exceeds 9223372036854775807 ns");

        /* the same for the PHC - TAI offset */
        s = spec();
        in = good();
        in.phc.offset_ns = INT64_MIN;
        st = eval(&s, &in);
        assert_int_equal(st.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st.reason, "PHC-to-TAI offset -9223372036854775808 ns exceeds 1000 ns");
        in.phc.offset_ns = INT64_MAX;
        assert_string_equal(eval(&s, &in).reason, "PHC-to-TAI offset 9223372036854775807 ns exceeds 1000 ns");
        s.max_phc_offset_ns = INT64_MAX;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_SYNCED);
        in.phc.offset_ns = INT64_MIN;
        assert_int_equal(eval(&s, &in).state, CLOCK_STATE_UNSYNCED);

        /* the figures reach the JSON unchanged */
        in.time_status.master_offset = INT64_MIN;
        st = eval(&s, &in);
        struct json_object *o = clock_status_to_json(&st), *v;
        assert_true(json_object_object_get_ex(o, "master_offset_ns", &v));
        assert_true(json_object_get_int64(v) == INT64_MIN);
        assert_true(json_object_object_get_ex(o, "phc_sys_offset_ns", &v));
        assert_true(json_object_get_int64(v) == INT64_MIN);
        json_object_put(o);
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

/* A stand-in ptp4l on a Unix socket, answering from the event loop. */
typedef struct FakePtp4l {
        char dir[64];
        char path[128];
        int fd;
        sd_event_source *source;
        bool silent;
        bool patch_master_offset;             /* answer TIME_STATUS_NP with master_offset instead */
        int64_t master_offset;
        uint8_t port_state;                   /* PORT_DATA_SET's port state, 0: as recorded */
        bool subscribe;                       /* take SUBSCRIBE_EVENTS_NP (else NOT_SUPPORTED, as 3.0 and RO sockets) */
        unsigned subscribes;                  /* SETs received */
        uint8_t subscribe_mask0;              /* bitmask[0] of the last */
        uint16_t subscribe_duration;
        struct sockaddr_un subscriber;        /* where notifications go */
        socklen_t subscriber_len;
        unsigned asked_time_status, asked_time_properties, asked_port_ds;
        unsigned requests;
        unsigned changes;
        ClockState last_old;
        ClockStatus last;
} FakePtp4l;

static const char *fixture_for(uint16_t id) {
        switch (id) {
        case PTP_MID_PORT_DATA_SET: return "slave-port-data-set.bin";
        case PTP_MID_PORT_PROPERTIES_NP: return "slave-port-properties-np.bin";
        case PTP_MID_TIME_STATUS_NP: return "slave-time-status-np.bin";
        case PTP_MID_CURRENT_DATA_SET: return "slave-current-data-set.bin";
        case PTP_MID_PARENT_DATA_SET: return "slave-parent-data-set.bin";
        case PTP_MID_TIME_PROPERTIES_DATA_SET: return "slave-time-properties-data-set.bin";
        default: return NULL;
        }
}

static int on_request(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        FakePtp4l *f = userdata;
        uint8_t buf[PTP_MGMT_MAX_LEN];
        struct sockaddr_un from;
        socklen_t alen = sizeof(from);
        PtpMgmtMessage m;
        char path[512];
        ssize_t n;
        FILE *fp;

        n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &alen);
        if (n < 0)
                return 0;
        f->requests++;
        assert_int_equal(ptp_mgmt_unpack(buf, (size_t) n, &m), 0);
        if (f->silent)
                return 0;
        if (m.action == PTP_MGMT_SET) {
                assert_int_equal(m.management_id, PTP_MID_SUBSCRIBE_EVENTS_NP);
                assert_int_equal(n, PTP_MGMT_SUBSCRIBE_LEN);
                f->subscribes++;
                f->subscribe_mask0 = m.data.subscribe_events_np.bitmask[0];
                f->subscribe_duration = m.data.subscribe_events_np.duration;
                if (f->subscribe) {
                        f->subscriber = from;
                        f->subscriber_len = alen;
                        buf[46] = PTP_MGMT_RESPONSE;          /* the echo ptp4l sends */
                } else {
                        /* MANAGEMENT_ERROR_STATUS NOT_SUPPORTED */
                        static const uint8_t tlv[12] = { 0, 2, 0, 8, 0, 6, 0xc0, 3, 0, 0, 0, 0 };
                        memcpy(buf + 48, tlv, sizeof(tlv));
                        buf[2] = 0;
                        buf[3] = 60;
                        buf[46] = PTP_MGMT_RESPONSE;
                        n = 60;
                }
                /* the answer to an unsubscribe finds its sender gone */
                if (sendto(fd, buf, (size_t) n, 0, (struct sockaddr *) &from, alen) != n)
                        assert_true(errno == ENOENT || errno == ECONNREFUSED);
                return 0;
        }
        assert_int_equal(m.action, PTP_MGMT_GET);
        f->asked_time_status += m.management_id == PTP_MID_TIME_STATUS_NP;
        f->asked_time_properties += m.management_id == PTP_MID_TIME_PROPERTIES_DATA_SET;
        f->asked_port_ds += m.management_id == PTP_MID_PORT_DATA_SET;

        assert_non_null(fixture_for(m.management_id));
        snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ptp/%s", TBS_SOURCE_DIR, fixture_for(m.management_id));
        fp = fopen(path, "rb");
        assert_non_null(fp);
        n = (ssize_t) fread(buf, 1, sizeof(buf), fp);
        fclose(fp);
        if (m.management_id == PTP_MID_TIME_STATUS_NP && f->patch_master_offset) {
                /* The recorded datagram's master_offset (-128 ns) sits at
                 * byte 54, big-endian: the 48-byte management header, the
                 * TLV's type, length and id, then the data set. */
                static const uint8_t recorded[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80 };
                assert_memory_equal(buf + 54, recorded, 8);
                for (int i = 0; i < 8; i++)
                        buf[54 + i] = (uint8_t) ((uint64_t) f->master_offset >> (56 - 8 * i));
        }
        if (m.management_id == PTP_MID_PORT_DATA_SET && f->port_state)
                buf[64] = f->port_state;      /* data at 54, port identity 10 bytes */
        buf[30] = (uint8_t) (m.sequence_id >> 8);
        buf[31] = (uint8_t) m.sequence_id;
        /* a client freed with its query in flight is gone: so is its socket */
        if (sendto(fd, buf, (size_t) n, 0, (struct sockaddr *) &from, alen) != n)
                assert_true(errno == ENOENT || errno == ECONNREFUSED);
        return 0;
}

static void on_changed(ClockCheck *cc, ClockState old_state, const ClockStatus *status, void *userdata) {
        FakePtp4l *f = userdata;

        f->changes++;
        f->last_old = old_state;
        f->last = *status;
        assert_ptr_equal(clock_check_status(cc), status);
}

static void fake_start(FakePtp4l *f, sd_event *e) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        strcpy(f->dir, "/tmp/tbs-clock-test.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        /* the client's own socket goes here too (pmc-client.h) */
        assert_int_equal(setenv("RUNTIME_DIRECTORY", f->dir, 1), 0);
        snprintf(f->path, sizeof(f->path), "%s/ptp4l", f->dir);
        f->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        assert_true(f->fd >= 0);
        strcpy(sa.sun_path, f->path);
        assert_int_equal(bind(f->fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(sd_event_add_io(e, &f->source, f->fd, EPOLLIN, on_request, f), 0);
}

static void fake_stop(FakePtp4l *f) {
        f->source = sd_event_source_disable_unref(f->source);
        if (f->fd >= 0)
                close(f->fd);
        f->fd = -1;
        unlink(f->path);
}

static uint64_t now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
}

/* Run the loop until `until_changes` callbacks happened and no check is
 * running, or max_usec passed (0 changes wanted: just run for max_usec). */
static void run_loop(sd_event *e, ClockCheck *cc, FakePtp4l *f, unsigned until_changes, uint64_t max_usec) {
        uint64_t end = now_usec() + max_usec;

        while (now_usec() < end) {
                if (until_changes > 0 && f->changes >= until_changes && !clock_check_running(cc))
                        break;
                assert_true(sd_event_run(e, 10000) >= 0);
        }
}

/* Let the check in flight end, so the fake has read all its requests. */
static void settle(sd_event *e, ClockCheck *cc) {
        uint64_t end = now_usec() + 1000000;

        while (clock_check_running(cc) && now_usec() < end)
                assert_true(sd_event_run(e, 10000) >= 0);
}

static void test_live_check(void **state) {
        FakePtp4l f = { .fd = -1 };
        ClockSpec s = spec();
        ClockCheck *cc = NULL;
        sd_event *e = NULL;
        const ClockStatus *st;

        assert_int_equal(sd_event_new(&e), 0);
        fake_start(&f, e);
        s.ptp4l_socket = f.path;
        assert_int_equal(clock_check_new(e, "p1", &s, -1, on_changed, &f, &cc), 0);

        st = clock_check_status(cc);
        assert_int_equal(st->state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(st->reason, "not checked yet");
        assert_true(st->checked_at_usec == 0);

        /* First check: the recorded slave, master offset -128 ns > 100 ns. */
        assert_int_equal(clock_check_run_now(cc), 0);
        assert_true(clock_check_running(cc));
        assert_int_equal(clock_check_run_now(cc), 0);      /* joins the running check */
        run_loop(e, cc, &f, 1, 2000000);
        assert_int_equal(f.requests, 6);
        assert_int_equal(f.changes, 1);
        assert_int_equal(f.last_old, _CLOCK_STATE_INVALID);
        assert_int_equal(f.last.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(f.last.reason, "master offset -128 ns exceeds 100 ns");
        assert_string_equal(f.last.port_state, "SLAVE");
        assert_true(f.last.mean_path_delay_ns == 2560);
        assert_int_equal(f.last.steps_removed, 1);
        assert_string_equal(f.last.gm_identity, "3a9f2b.fffe.14df70");
        assert_true(f.last.checked_at_usec > 0);

        /* Same answers again: no change, no callback. */
        assert_int_equal(clock_check_run_now(cc), 0);
        run_loop(e, cc, &f, 1, 2000000);
        assert_int_equal(f.requests, 12);
        assert_int_equal(f.changes, 1);

        /* ptp4l gone: no-ptp4l at once, as a change. */
        fake_stop(&f);
        assert_int_equal(clock_check_run_now(cc), 0);
        assert_int_equal(f.changes, 2);
        assert_int_equal(f.last_old, CLOCK_STATE_UNSYNCED);
        assert_int_equal(f.last.state, CLOCK_STATE_NO_PTP4L);
        char want[320];
        snprintf(want, sizeof(want), "no ptp4l socket at %s", f.path);
        assert_string_equal(f.last.reason, want);

        clock_check_free(cc);
        assert_int_equal(rmdir(f.dir), 0);    /* the client's socket is gone too */
        sd_event_unref(e);
}

/* A check every 200 ms on a fake ptp4l (*f set up by the caller), run
 * until its first result. */
static ClockCheck *live_start(FakePtp4l *f, ClockSpec *s, sd_event **e) {
        ClockCheck *cc = NULL;

        assert_int_equal(sd_event_new(e), 0);
        fake_start(f, *e);
        s->ptp4l_socket = f->path;
        assert_int_equal(clock_check_new(*e, "p1", s, -1, on_changed, f, &cc), 0);
        assert_int_equal(clock_check_start(cc, 200 * 1000), 0);
        run_loop(*e, cc, f, 1, 2000000);
        return cc;
}

/* Periodic checks every 200 ms; a ptp4l that stops answering turns the
 * state to no-ptp4l after the 100 ms timeout. */
static void test_live_periodic(void **state) {
        FakePtp4l f = { .fd = -1 };
        ClockSpec s = spec();
        sd_event *e = NULL;
        ClockCheck *cc = live_start(&f, &s, &e);

        assert_int_equal(f.changes, 1);
        run_loop(e, cc, &f, 0, 700000);
        assert_true(f.requests >= 3 * 6);                /* several periodic checks */
        assert_int_equal(f.changes, 1);

        f.silent = true;
        run_loop(e, cc, &f, 2, 3000000);
        assert_int_equal(f.changes, 2);
        assert_int_equal(f.last.state, CLOCK_STATE_NO_PTP4L);
        char want[320];
        snprintf(want, sizeof(want),
                 "no answer from ptp4l on %s within 100 ms (domain or transportSpecific differ?)", f.path);
        assert_string_equal(f.last.reason, want);
        assert_false(f.last.has_port_state);

        clock_check_free(cc);
        fake_stop(&f);
        assert_int_equal(rmdir(f.dir), 0);
        sd_event_unref(e);
}

/* The recorded slave's TIME_STATUS_NP with its master offset replaced by
 * INT64_MIN, then INT64_MAX: whole checks through the client's decoder. */
static void test_live_extreme_offsets(void **state) {
        FakePtp4l f = { .fd = -1, .patch_master_offset = true, .master_offset = INT64_MIN };
        ClockSpec s = spec();
        ClockCheck *cc = NULL;
        sd_event *e = NULL;

        assert_int_equal(sd_event_new(&e), 0);
        fake_start(&f, e);
        s.ptp4l_socket = f.path;
        assert_int_equal(clock_check_new(e, "p1", &s, -1, on_changed, &f, &cc), 0);
        assert_int_equal(clock_check_run_now(cc), 0);
        run_loop(e, cc, &f, 1, 2000000);
        assert_int_equal(f.changes, 1);
        assert_int_equal(f.last.state, CLOCK_STATE_UNSYNCED);
        assert_true(f.last.master_offset_ns == INT64_MIN);
        assert_string_equal(f.last.reason, "master offset -9223372036854775808 ns exceeds 100 ns");

        f.master_offset = INT64_MAX;
        assert_int_equal(clock_check_run_now(cc), 0);
        run_loop(e, cc, &f, 2, 2000000);
        assert_int_equal(f.changes, 2);          /* same state, another reason: reported */
        assert_int_equal(f.last_old, CLOCK_STATE_UNSYNCED);
        assert_true(f.last.master_offset_ns == INT64_MAX);
        assert_string_equal(f.last.reason, "master offset 9223372036854775807 ns exceeds 100 ns");
        clock_check_free(cc);

        /* With the widest limit, INT64_MIN is still beyond it; whatever the
         * host's TAI offset makes of the rest, the master offset decides. */
        s.max_master_offset_ns = INT64_MAX;
        f.master_offset = INT64_MIN;
        f.changes = 0;
        assert_int_equal(clock_check_new(e, "p1", &s, -1, on_changed, &f, &cc), 0);
        assert_int_equal(clock_check_run_now(cc), 0);
        run_loop(e, cc, &f, 1, 2000000);
        assert_int_equal(f.changes, 1);
        assert_int_equal(f.last.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(f.last.reason,
                            "master offset -9223372036854775808 ns exceeds 9223372036854775807 ns");
        clock_check_free(cc);

        fake_stop(&f);
        assert_int_equal(rmdir(f.dir), 0);
        sd_event_unref(e);
}

/* Send the subscriber a notification: a recorded answer for id with the
 * port state byte (PORT_DATA_SET: data at 54, port identity 10 bytes) set. */
static void fake_notify(FakePtp4l *f, uint16_t id, uint8_t port_state) {
        uint8_t buf[PTP_MGMT_MAX_LEN];
        char path[512];
        size_t n;
        FILE *fp;

        assert_true(f->subscriber_len > 0);
        snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ptp/%s", TBS_SOURCE_DIR, fixture_for(id));
        fp = fopen(path, "rb");
        assert_non_null(fp);
        n = fread(buf, 1, sizeof(buf), fp);
        fclose(fp);
        if (id == PTP_MID_PORT_DATA_SET)
                buf[64] = f->port_state = port_state;
        buf[30] = buf[31] = 0;                /* ptp4l numbers them per subscriber from 0 */
        assert_true(sendto(f->fd, buf, n, 0, (struct sockaddr *) &f->subscriber, f->subscriber_len) == (ssize_t) n);
}

/* A ptp4l that takes the subscription: a port state comes by notification
 * at once and without a request; the periodic checks then ask only for
 * TIME_PROPERTIES_DATA_SET, and TIME_STATUS_NP while no Sync is notified. */
static void test_live_notifications(void **state) {
        FakePtp4l f = { .fd = -1, .subscribe = true };
        ClockSpec s = spec();
        sd_event *e = NULL;
        ClockCheck *cc = live_start(&f, &s, &e);
        unsigned before, changes;

        assert_int_equal(f.changes, 1);
        assert_string_equal(clock_check_socket(cc), f.path);
        run_loop(e, cc, &f, 0, 500000);
        assert_int_equal(f.subscribes, 1);
        assert_true(clock_check_subscribed(cc));
        assert_int_equal(f.subscribe_mask0, 0x03);            /* PORT_STATE | TIME_SYNC */
        assert_int_equal(f.subscribe_duration, 60);

        /* Periodic checks while subscribed: no PORT_DATA_SET, two requests each. */
        before = f.requests;
        unsigned ds = f.asked_port_ds, ts = f.asked_time_status, tp = f.asked_time_properties;
        run_loop(e, cc, &f, 0, 900000);
        settle(e, cc);
        assert_true(f.asked_time_properties - tp >= 3);
        assert_int_equal(f.asked_time_status - ts, f.asked_time_properties - tp);
        assert_int_equal(f.asked_port_ds, ds);
        assert_int_equal(f.requests - before, 2 * (f.asked_time_properties - tp));
        assert_int_equal(clock_check_requests(cc), f.requests);

        /* A port state notification changes the state at once, without a request. */
        changes = f.changes;
        before = f.requests;
        fake_notify(&f, PTP_MID_PORT_DATA_SET, PTP_PORT_LISTENING);
        assert_true(sd_event_run(e, 50000) >= 0);
        assert_int_equal(f.changes, changes + 1);
        assert_string_equal(f.last.reason, "port state LISTENING");
        assert_int_equal(f.requests, before);
        assert_int_equal(clock_check_notifications(cc), 1);

        /* Syncs notified: the checks leave TIME_STATUS_NP out. */
        settle(e, cc);
        ts = f.asked_time_status;
        tp = f.asked_time_properties;
        ds = f.asked_port_ds;
        for (int i = 0; i < 6; i++) {
                fake_notify(&f, PTP_MID_TIME_STATUS_NP, 0);
                run_loop(e, cc, &f, 0, 150000);
        }
        settle(e, cc);
        assert_true(f.asked_time_properties - tp >= 3);
        /* only the full check every 10th time asks */
        assert_int_equal(f.asked_time_status - ts, f.asked_port_ds - ds);
        assert_true(f.asked_time_status - ts <= 1);
        assert_int_equal(f.last.state, CLOCK_STATE_UNSYNCED);
        assert_string_equal(f.last.reason, "port state LISTENING");

        /* Back to SLAVE by notification. */
        fake_notify(&f, PTP_MID_PORT_DATA_SET, PTP_PORT_SLAVE);
        assert_true(sd_event_run(e, 50000) >= 0);
        assert_false(strcmp(f.last.reason, "port state LISTENING") == 0);

        /* A check that ends while subscribed ends the subscription: a SET
         * without events (ptp4l then drops the subscriber). */
        ClockCheck *cc2 = NULL;
        unsigned subs;
        assert_int_equal(clock_check_new(e, "p2", &s, -1, NULL, NULL, &cc2), 0);
        assert_int_equal(clock_check_start(cc2, 200 * 1000), 0);
        for (int i = 0; i < 100 && !clock_check_subscribed(cc2); i++)
                assert_true(sd_event_run(e, 10000) >= 0);
        assert_true(clock_check_subscribed(cc2));
        assert_int_equal(f.subscribe_mask0, 0x03);
        subs = f.subscribes;
        clock_check_free(cc2);
        run_loop(e, cc, &f, 0, 100000);
        assert_int_equal(f.subscribes, subs + 1);
        assert_int_equal(f.subscribe_mask0, 0);
        assert_int_equal(f.subscribe_duration, 0);

        /* ptp4l gone: the next check says so, and the subscription is forgotten. */
        fake_stop(&f);
        run_loop(e, cc, &f, f.changes + 1, 1000000);
        assert_int_equal(f.last.state, CLOCK_STATE_NO_PTP4L);
        assert_false(clock_check_subscribed(cc));

        clock_check_free(cc);
        assert_int_equal(rmdir(f.dir), 0);
        sd_event_unref(e);
}

/* A ptp4l that refuses the subscription: every periodic check asks for all. */
static void test_live_subscribe_refused(void **state) {
        FakePtp4l f = { .fd = -1 };
        ClockSpec s = spec();
        sd_event *e = NULL;
        ClockCheck *cc = live_start(&f, &s, &e);

        run_loop(e, cc, &f, 0, 900000);
        settle(e, cc);
        assert_int_equal(f.subscribes, 1);                    /* asked once, not again within 300 s */
        assert_false(clock_check_subscribed(cc));
        assert_true(f.asked_port_ds >= 4);
        assert_int_equal(f.asked_port_ds, f.asked_time_properties);
        assert_int_equal(f.requests, 6 * f.asked_port_ds + 1);

        clock_check_free(cc);
        fake_stop(&f);
        assert_int_equal(rmdir(f.dir), 0);
        sd_event_unref(e);
}

static void test_live_not_configured(void **state) {
        FakePtp4l f = { .fd = -1 };
        ClockSpec s = spec();
        ClockCheck *cc = NULL;
        sd_event *e = NULL;

        assert_int_equal(sd_event_new(&e), 0);
        s.configured = false;
        assert_int_equal(clock_check_new(e, "p1", &s, 0, on_changed, &f, &cc), 0);
        assert_int_equal(clock_check_status(cc)->state, CLOCK_STATE_NOT_CONFIGURED);
        assert_false(clock_check_running(cc));
        assert_int_equal(clock_check_run_now(cc), 0);
        assert_int_equal(f.changes, 1);
        assert_int_equal(f.last_old, _CLOCK_STATE_INVALID);
        assert_int_equal(f.last.state, CLOCK_STATE_NOT_CONFIGURED);
        assert_false(f.last.has_phc_offset);     /* /dev/ptp0 not even opened */
        clock_check_free(cc);
        sd_event_unref(e);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_synced),
                cmocka_unit_test(test_unsynced_reasons),
                cmocka_unit_test(test_extreme_offsets),
                cmocka_unit_test(test_no_ptp4l),
                cmocka_unit_test(test_no_phc),
                cmocka_unit_test(test_not_configured),
                cmocka_unit_test(test_state_strings),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_live_check),
                cmocka_unit_test(test_live_periodic),
                cmocka_unit_test(test_live_notifications),
                cmocka_unit_test(test_live_subscribe_refused),
                cmocka_unit_test(test_live_extreme_offsets),
                cmocka_unit_test(test_live_not_configured),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libtbs's error queue decoder on messages recorded in the test kernel
 * (tests/unit/fixtures/errqueue/, see its README): a launch time refused at
 * enqueue, a software transmit time stamp and a missed launch time, from an
 * AF_PACKET and a UDP/IPv4 socket; the launch times to expect are those the
 * recorder printed when it sent them. Then the same messages altered where
 * the decoder must not be fooled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <time.h> /* before linux/errqueue.h */
#include <linux/errqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "tbs.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/errqueue/"
#define MAX_RECORDS 8

typedef struct Record {
        uint8_t data[512];
        size_t data_len;
        union {
                uint8_t bytes[512];
                struct cmsghdr align;
        } control;
        size_t control_len;
} Record;

typedef struct Recording {
        Record rec[MAX_RECORDS];
        size_t n;
        uint64_t past, on_time, late;   /* launch times sent */
} Recording;

static void load(const char *kind, Recording *r) {
        char path[512];
        char line[512];
        uint32_t lens[2];
        FILE *f;

        memset(r, 0, sizeof(*r));
        snprintf(path, sizeof(path), FIXTURES "%s.bin", kind);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fread(lens, sizeof(lens), 1, f) == 1) {
                Record *x = &r->rec[r->n++];

                assert_true(r->n <= MAX_RECORDS);
                assert_true(lens[0] <= sizeof(x->data) && lens[1] <= sizeof(x->control.bytes));
                assert_int_equal(fread(x->data, 1, lens[0], f), lens[0]);
                assert_int_equal(fread(x->control.bytes, 1, lens[1], f), lens[1]);
                x->data_len = lens[0];
                x->control_len = lens[1];
        }
        fclose(f);

        snprintf(path, sizeof(path), FIXTURES "%s.json", kind);
        f = fopen(path, "re");
        assert_non_null(f);
        while (fgets(line, sizeof(line), f)) {
                struct json_object *o = json_tokener_parse(line), *sent, *t;

                assert_non_null(o);
                if (json_object_object_get_ex(o, "sent", &sent) && json_object_object_get_ex(o, "txtime", &t)) {
                        uint64_t v = (uint64_t) json_object_get_uint64(t);
                        const char *s = json_object_get_string(sent);

                        if (strcmp(s, "past") == 0)
                                r->past = v;
                        else if (strcmp(s, "on-time") == 0)
                                r->on_time = v;
                        else if (strcmp(s, "late") == 0)
                                r->late = v;
                }
                json_object_put(o);
        }
        fclose(f);
        assert_true(r->past > 0 && r->on_time > r->past && r->late > r->past);
}

static int decode(Record *x, struct tbs_tx_report *ret) {
        struct iovec iov = { .iov_base = x->data, .iov_len = x->data_len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = x->control.bytes,
                .msg_controllen = x->control_len,
        };

        return tbs_tx_report_decode(&msg, x->data_len, ret);
}

/* The extended error inside a recorded message. */
static struct sock_extended_err *extended_error(Record *x) {
        struct msghdr msg = { .msg_control = x->control.bytes, .msg_controllen = x->control_len };

        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                if (c->cmsg_level != SOL_SOCKET)
                        return (struct sock_extended_err *) CMSG_DATA(c);
        return NULL;
}

static void check_recording(const char *kind) {
        struct tbs_tx_report rep;
        Recording r;

        load(kind, &r);
        assert_int_equal(r.n, 3);

        /* The on-time socket: the past launch time refused, then the other
         * packet's time stamp; the late socket: the miss. */
        assert_int_equal(decode(&r.rec[0], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_INVALID);
        assert_int_equal(rep.txtime_ns, r.past);
        assert_int_equal(rep.error, EINVAL);
        assert_int_equal(rep.data_len, r.rec[0].data_len);

        assert_int_equal(decode(&r.rec[1], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_TIMESTAMP);
        assert_false(rep.hardware);
        assert_int_equal(rep.tskey, 1);          /* the socket's second packet */
        assert_int_equal(rep.error, ENOMSG);
        /* Stamped when etf let it go: within its delta (5 ms) before the
         * launch time (the guest's TAI offset is 0). */
        assert_true(rep.tstamp_ns <= (int64_t) r.on_time);
        assert_true(rep.tstamp_ns >= (int64_t) r.on_time - 6000000);

        assert_int_equal(decode(&r.rec[2], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_MISSED);
        assert_int_equal(rep.txtime_ns, r.late);
        assert_int_equal(rep.error, ECANCELED);
}

static void test_packet(void **state) {
        check_recording("packet");
}

static void test_udp4(void **state) {
        check_recording("udp4");
}

static void test_not_a_report(void **state) {
        struct tbs_tx_report rep;
        Recording r;
        struct cmsghdr *c;

        load("udp4", &r);
        /* No control data at all. */
        r.rec[0].control_len = 0;
        assert_int_equal(decode(&r.rec[0], &rep), -EBADMSG);
        /* An extended error cut short (cmsg_len smaller than the struct). */
        load("udp4", &r);
        c = &r.rec[0].control.align;
        c->cmsg_len = CMSG_LEN(sizeof(struct sock_extended_err) - 1);
        assert_int_equal(decode(&r.rec[0], &rep), -EBADMSG);
        assert_int_equal(tbs_tx_report_decode(NULL, 0, &rep), -EINVAL);
}

static void test_unknown_codes(void **state) {
        struct tbs_tx_report rep;
        struct sock_extended_err *ee;
        Recording r;

        load("packet", &r);
        /* A launch-time report with a code this library does not know: its
         * launch time still, kind OTHER. */
        ee = extended_error(&r.rec[2]);
        assert_non_null(ee);
        ee->ee_code = 9;
        assert_int_equal(decode(&r.rec[2], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_OTHER);
        assert_int_equal(rep.txtime_ns, r.late);
        /* An origin that is neither launch time nor time stamping. */
        ee->ee_origin = SO_EE_ORIGIN_LOCAL;
        assert_int_equal(decode(&r.rec[2], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_OTHER);
        assert_int_equal(rep.txtime_ns, 0);
}

static void test_hardware_stamp(void **state) {
        struct tbs_tx_report rep;
        struct msghdr msg;
        Recording r;
        struct scm_timestamping *ts = NULL;

        load("packet", &r);
        msg = (struct msghdr) { .msg_control = r.rec[1].control.bytes, .msg_controllen = r.rec[1].control_len };
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING)
                        ts = (struct scm_timestamping *) CMSG_DATA(c);
        assert_non_null(ts);
        /* The hardware slot wins over the software one. */
        ts->ts[2] = (struct timespec) { .tv_sec = 1700000000, .tv_nsec = 123 };
        assert_int_equal(decode(&r.rec[1], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_TIMESTAMP);
        assert_true(rep.hardware);
        assert_int_equal(rep.tstamp_ns, 1700000000LL * 1000000000LL + 123);
        /* Neither slot set: not a time stamp. */
        memset(ts, 0, sizeof(*ts));
        assert_int_equal(decode(&r.rec[1], &rep), 0);
        assert_int_equal(rep.kind, TBS_TX_REPORT_OTHER);
}

static void test_kind_names(void **state) {
        assert_string_equal(tbs_tx_report_kind_to_string(TBS_TX_REPORT_INVALID), "invalid");
        assert_string_equal(tbs_tx_report_kind_to_string(TBS_TX_REPORT_MISSED), "missed");
        assert_string_equal(tbs_tx_report_kind_to_string(TBS_TX_REPORT_TIMESTAMP), "timestamp");
        assert_string_equal(tbs_tx_report_kind_to_string(TBS_TX_REPORT_OTHER), "other");
        assert_null(tbs_tx_report_kind_to_string((enum tbs_tx_report_kind) 42));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_packet),
                cmocka_unit_test(test_udp4),
                cmocka_unit_test(test_not_a_report),
                cmocka_unit_test(test_unknown_codes),
                cmocka_unit_test(test_hardware_stamp),
                cmocka_unit_test(test_kind_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

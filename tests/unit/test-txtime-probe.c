/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/txtime-probe.c's pure parts: the probe payload round trip (found
 * with or without an Ethernet header before it, refused when damaged or
 * cut short), error queue messages laid out as the kernel fills them in
 * (struct sock_extended_err under SOL_PACKET/PACKET_TX_TIMESTAMP or
 * IP_RECVERR, struct scm_timestamping) matched to their probes, and the
 * nearest-rank launch-time error distribution; the test kernel's recorded
 * messages (tests/unit/fixtures/errqueue/) with software stamps. The socket
 * side runs in the kernel tests stats-traffic and daemon-launch-monitor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "txtime-probe.h"

static void test_payload(void **state) {
        uint8_t frame[14 + TXTIME_PROBE_PAYLOAD] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x88, 0xb5 };
        uint64_t txtime = 0;
        uint32_t seq = 0;

        txtime_probe_payload(frame + 14, 0x01020304, 0x1122334455667788ull);
        /* Fixed layout: magic, big-endian seq and txtime, zero padding. */
        assert_memory_equal(frame + 14, "TBSP\x01\x02\x03\x04\x11\x22\x33\x44\x55\x66\x77\x88", 16);
        for (size_t i = 14 + 16; i < sizeof(frame); i++)
                assert_int_equal(frame[i], 0);

        assert_int_equal(txtime_probe_parse(frame + 14, TXTIME_PROBE_PAYLOAD, &seq, &txtime), 0);
        assert_int_equal(seq, 0x01020304);
        assert_true(txtime == 0x1122334455667788ull);
        seq = 0;
        txtime = 0;
        assert_int_equal(txtime_probe_parse(frame, sizeof(frame), &seq, &txtime), 0);
        assert_int_equal(seq, 0x01020304);
        assert_true(txtime == 0x1122334455667788ull);

        /* Cut short: the txtime is not all there. */
        seq = 7;
        assert_int_equal(txtime_probe_parse(frame, 14 + 15, &seq, &txtime), -EBADMSG);
        assert_int_equal(seq, 7);
        /* A damaged magic. */
        frame[14 + 3] = 'X';
        assert_int_equal(txtime_probe_parse(frame, sizeof(frame), &seq, &txtime), -EBADMSG);
        assert_int_equal(txtime_probe_parse(frame, 0, &seq, &txtime), -EBADMSG);
}

static void test_distribution(void **state) {
        int64_t v[100], one[1] = { -5 }, two[2] = { 9, 3 };
        TxtimeDistribution d = { .n = 42 };

        assert_int_equal(txtime_distribution(v, 0, &d), -ENODATA);
        assert_int_equal(d.n, 42);

        assert_int_equal(txtime_distribution(one, 1, &d), 0);
        assert_int_equal(d.n, 1);
        assert_true(d.min == -5 && d.median == -5 && d.p99 == -5 && d.max == -5);

        /* Even count: the lower median (rank ceil(n/2)). */
        assert_int_equal(txtime_distribution(two, 2, &d), 0);
        assert_true(d.min == 3 && d.median == 3 && d.p99 == 9 && d.max == 9);

        /* 100 values 1000, 999, ..., 901 (descending, sorted in place):
         * rank 50 is 950, rank 99 is 999. */
        for (int i = 0; i < 100; i++)
                v[i] = 1000 - i;
        assert_int_equal(txtime_distribution(v, 100, &d), 0);
        assert_int_equal(d.n, 100);
        assert_true(d.min == 901);
        assert_true(d.median == 950);
        assert_true(d.p99 == 999);
        assert_true(d.max == 1000);
        assert_true(v[0] == 901 && v[99] == 1000);

        /* 20 values (the selftest's default burst): p99 is the largest. */
        for (int i = 0; i < 20; i++)
                v[i] = i * 10 - 50;
        assert_int_equal(txtime_distribution(v, 20, &d), 0);
        assert_true(d.min == -50 && d.median == 40 && d.p99 == 140 && d.max == 140);
}

/* An error queue message: data (the frame as it came back) and up to two
 * control messages, as recvmsg(MSG_ERRQUEUE) fills them in. */
typedef struct Report {
        uint8_t data[64];
        union {
                char buf[256];
                struct cmsghdr align;
        } control;
        struct iovec iov;
        struct msghdr msg;
        size_t len;
        struct cmsghdr *next;
} Report;

static void report_init(Report *r, bool with_frame, uint32_t seq, uint64_t txtime) {
        memset(r, 0, sizeof(*r));
        if (with_frame) {
                memset(r->data, 0xff, 6);       /* broadcast destination */
                r->data[12] = 0x88;
                r->data[13] = 0xb5;
                txtime_probe_payload(r->data + 14, seq, txtime);
                r->len = 14 + 16;
        }
        r->iov = (struct iovec) { .iov_base = r->data, .iov_len = sizeof(r->data) };
        r->msg = (struct msghdr) { .msg_iov = &r->iov, .msg_iovlen = 1, .msg_control = r->control.buf,
                                   .msg_controllen = sizeof(r->control.buf) };
        r->next = CMSG_FIRSTHDR(&r->msg);
}

static void report_add(Report *r, int level, int type, const void *payload, size_t size) {
        struct cmsghdr *c = r->next;

        c->cmsg_level = level;
        c->cmsg_type = type;
        c->cmsg_len = CMSG_LEN(size);
        memcpy(CMSG_DATA(c), payload, size);
        r->next = (struct cmsghdr *) ((char *) c + CMSG_SPACE(size));
        r->msg.msg_controllen = (size_t) ((char *) r->next - r->control.buf);
}

static void report_add_txtime(Report *r, int level, int type, uint8_t code, uint64_t txtime) {
        struct sock_extended_err ee = {
                .ee_errno = code == SO_EE_CODE_TXTIME_MISSED ? ECANCELED : EINVAL,
                .ee_origin = SO_EE_ORIGIN_TXTIME,
                .ee_code = code,
                .ee_data = (uint32_t) (txtime >> 32),
                .ee_info = (uint32_t) txtime,
        };
        report_add(r, level, type, &ee, sizeof(ee));
}

static void test_reports(void **state) {
        TxtimeProbe probes[3] = {
                { .seq = 0, .txtime_ns = 0x0000000500000001ull },
                { .seq = 1, .txtime_ns = 0x17f0000000000002ull },
                { .seq = 2, .txtime_ns = 0x17f0000000000003ull },
        };
        struct scm_timestamping ts = {};
        Report r;

        /* MISSED for the frame with seq 1, on a packet socket. */
        report_init(&r, true, 1, probes[1].txtime_ns);
        report_add_txtime(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, SO_EE_CODE_TXTIME_MISSED, probes[1].txtime_ns);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 1);
        assert_int_equal(probes[1].outcome, TXTIME_OUTCOME_MISSED);
        assert_int_equal(probes[0].outcome, TXTIME_OUTCOME_NONE);
        assert_int_equal(probes[2].outcome, TXTIME_OUTCOME_NONE);

        /* INVALID_PARAM without the frame (an IP socket with TSONLY):
         * matched by the txtime split over ee_data and ee_info. */
        report_init(&r, false, 0, 0);
        report_add_txtime(&r, SOL_IP, IP_RECVERR, SO_EE_CODE_TXTIME_INVALID_PARAM, probes[0].txtime_ns);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 1);
        assert_int_equal(probes[0].outcome, TXTIME_OUTCOME_INVALID);

        /* A txtime no probe has, an unknown code, no extended error at all,
         * a truncated one: not about a probe, nothing changes. */
        report_init(&r, false, 0, 0);
        report_add_txtime(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, SO_EE_CODE_TXTIME_MISSED, 42);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        report_init(&r, true, 2, probes[2].txtime_ns);
        report_add_txtime(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, 7, probes[2].txtime_ns);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        report_init(&r, true, 2, probes[2].txtime_ns);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        report_init(&r, true, 2, probes[2].txtime_ns);
        report_add(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, "\x06\x06", 2);
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        assert_int_equal(probes[2].outcome, TXTIME_OUTCOME_NONE);

        /* A hardware transmit time stamp for seq 2 (ts[2] is the raw one). */
        ts.ts[2].tv_sec = 1796279508;
        ts.ts[2].tv_nsec = 51116979;
        report_init(&r, true, 2, probes[2].txtime_ns);
        report_add(&r, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
        {
                struct sock_extended_err ee = { .ee_errno = ENOMSG, .ee_origin = SO_EE_ORIGIN_TIMESTAMPING };
                report_add(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
        }
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 1);
        assert_true(probes[2].has_hw_tstamp);
        assert_true(probes[2].hw_tstamp_ns == 1796279508051116979ll);
        assert_int_equal(probes[2].outcome, TXTIME_OUTCOME_NONE);

        assert_false(probes[2].has_sw_tstamp);

        /* A software stamp (ts[0], ts[2] zero) for seq 1: recorded as such. */
        ts.ts[2].tv_sec = 0;
        ts.ts[2].tv_nsec = 0;
        ts.ts[0].tv_sec = 5;
        ts.ts[0].tv_nsec = 7;
        report_init(&r, true, 1, probes[1].txtime_ns);
        report_add(&r, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
        {
                struct sock_extended_err ee = { .ee_errno = ENOMSG, .ee_origin = SO_EE_ORIGIN_TIMESTAMPING };
                report_add(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
        }
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 1);
        assert_false(probes[1].has_hw_tstamp);
        assert_true(probes[1].has_sw_tstamp);
        assert_true(probes[1].sw_tstamp_ns == 5000000007ll);

        /* A stamp without the frame (OPT_TSONLY), and one with neither slot
         * set: ignored. */
        probes[0].has_sw_tstamp = false;
        report_init(&r, false, 0, 0);
        report_add(&r, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
        {
                struct sock_extended_err ee = { .ee_errno = ENOMSG, .ee_origin = SO_EE_ORIGIN_TIMESTAMPING };
                report_add(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
        }
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        assert_false(probes[0].has_sw_tstamp);
        memset(&ts, 0, sizeof(ts));
        report_init(&r, true, 0, probes[0].txtime_ns);
        report_add(&r, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
        {
                struct sock_extended_err ee = { .ee_errno = ENOMSG, .ee_origin = SO_EE_ORIGIN_TIMESTAMPING };
                report_add(&r, SOL_PACKET, PACKET_TX_TIMESTAMP, &ee, sizeof(ee));
        }
        assert_int_equal(txtime_probe_handle_report(&r.msg, r.len, probes, 3), 0);
        assert_false(probes[0].has_sw_tstamp || probes[0].has_hw_tstamp);
}

/* The messages the test kernel's error queue returned for an AF_PACKET
 * socket with SO_TXTIME and software transmit stamps
 * (tests/unit/fixtures/errqueue/packet.*, see the README there): a launch
 * time in the past refused, the on-time frame's software stamp, a missed
 * launch time. The control bytes are replayed exactly as recorded; the
 * recorder's frames carried a text payload, so the probe payload (seq i,
 * the launch time the recorder printed) is written over it here, after
 * the recorded Ethernet header. */
#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/errqueue/"
/* launch times errqueue-record printed into packet.json */
#define REC_PAST    1796384560911430500ull
#define REC_ON_TIME 1796384561931430500ull
#define REC_LATE    1796384561913430500ull

typedef struct Recorded {
        uint8_t data[256];
        uint32_t data_len;
        union {
                uint8_t bytes[256];
                struct cmsghdr align;
        } control;
        uint32_t control_len;
} Recorded;

static size_t load_recorded(Recorded *rec, size_t max) {
        uint32_t lens[2];
        size_t n = 0;
        FILE *f = fopen(FIXTURES "packet.bin", "re");

        assert_non_null(f);
        while (fread(lens, sizeof(lens), 1, f) == 1) {
                assert_true(n < max);
                assert_true(lens[0] <= sizeof(rec[n].data) && lens[1] <= sizeof(rec[n].control.bytes));
                assert_int_equal(fread(rec[n].data, 1, lens[0], f), lens[0]);
                assert_int_equal(fread(rec[n].control.bytes, 1, lens[1], f), lens[1]);
                rec[n].data_len = lens[0];
                rec[n].control_len = lens[1];
                n++;
        }
        fclose(f);
        return n;
}

static int replay(Recorded *x, TxtimeProbe *probes, size_t n) {
        struct iovec iov = { .iov_base = x->data, .iov_len = x->data_len };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = x->control.bytes,
                .msg_controllen = x->control_len,
        };

        return txtime_probe_handle_report(&msg, x->data_len, probes, n);
}

static void test_recorded_software(void **state) {
        TxtimeProbe probes[3] = {
                { .seq = 10, .txtime_ns = REC_PAST },
                { .seq = 11, .txtime_ns = REC_ON_TIME },
                { .seq = 12, .txtime_ns = REC_LATE },
        };
        Recorded rec[4];

        assert_int_equal(load_recorded(rec, 4), 3);
        for (size_t i = 0; i < 3; i++) {
                /* the recorded frame: Ethernet header, then the payload */
                assert_true(rec[i].data[12] == 0x88 && rec[i].data[13] == 0xb5);
                assert_true(rec[i].data_len >= 14 + TXTIME_PROBE_PAYLOAD);
                txtime_probe_payload(rec[i].data + 14, probes[i].seq, probes[i].txtime_ns);
        }

        /* The refused launch time: INVALID, and no stamp although the
         * message carries the launch time in ts[0] (skb->tstamp). */
        assert_int_equal(replay(&rec[0], probes, 3), 1);
        assert_int_equal(probes[0].outcome, TXTIME_OUTCOME_INVALID);
        assert_false(probes[0].has_sw_tstamp || probes[0].has_hw_tstamp);

        /* The software stamp of the on-time frame, matched by its seq:
         * taken when etf let it go, within its delta (5 ms) before the
         * launch time (the guest's TAI offset is 0). */
        assert_int_equal(replay(&rec[1], probes, 3), 1);
        assert_true(probes[1].has_sw_tstamp);
        assert_false(probes[1].has_hw_tstamp);
        assert_int_equal(probes[1].outcome, TXTIME_OUTCOME_NONE);
        assert_true(probes[1].sw_tstamp_ns <= (int64_t) REC_ON_TIME);
        assert_true(probes[1].sw_tstamp_ns >= (int64_t) REC_ON_TIME - 6000000);
        assert_false(probes[0].has_sw_tstamp || probes[2].has_sw_tstamp);

        /* The miss: matched by seq, no stamp. */
        assert_int_equal(replay(&rec[2], probes, 3), 1);
        assert_int_equal(probes[2].outcome, TXTIME_OUTCOME_MISSED);
        assert_false(probes[2].has_sw_tstamp);

        /* The same stamp for a frame of another socket (seq not ours): not
         * matched, even though a probe has that launch time. */
        probes[1] = (TxtimeProbe) { .seq = 99, .txtime_ns = REC_ON_TIME };
        assert_int_equal(replay(&rec[1], probes, 3), 0);
        assert_false(probes[1].has_sw_tstamp);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_payload),
                cmocka_unit_test(test_distribution),
                cmocka_unit_test(test_reports),
                cmocka_unit_test(test_recorded_software),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

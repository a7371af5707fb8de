/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/clock/ptp-mgmt.c against datagrams recorded from ptp4l 3.1.1 and pmc
 * (tests/unit/fixtures/ptp/README.md says how). Every decode runs on a heap
 * copy of exactly the bytes given, so ASan sees any read past the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ptp-mgmt.h"

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static uint8_t *read_fixture(const char *name, size_t *ret_len) {
        char path[512];
        uint8_t *buf = malloc(PTP_MGMT_MAX_LEN + 16);
        FILE *f;

        snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ptp/%s", TBS_SOURCE_DIR, name);
        f = fopen(path, "rb");
        if (!f)
                fail_msg("cannot open %s", path);
        assert_non_null(buf);
        *ret_len = fread(buf, 1, PTP_MGMT_MAX_LEN + 16, f);
        fclose(f);
        assert_true(*ret_len > 0);
        return buf;
}

/* Unpack len bytes from an allocation of exactly len bytes. */
static int unpack_exact(const uint8_t *data, size_t len, PtpMgmtMessage *ret) {
        uint8_t *copy = malloc(len ? len : 1);
        int r;

        assert_non_null(copy);
        memcpy(copy, data, len);
        r = ptp_mgmt_unpack(copy, len, ret);
        free(copy);
        return r;
}

static PtpMgmtMessage decode_fixture(const char *name) {
        PtpMgmtMessage m;
        size_t len;
        uint8_t *buf = read_fixture(name, &len);

        assert_int_equal(unpack_exact(buf, len, &m), 0);
        free(buf);
        return m;
}

static void assert_identity(const uint8_t id[8], const char *expected) {
        char s[19];
        assert_string_equal(ptp_clock_identity_to_string(id, s), expected);
}

static void test_slave_port_data_set(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-port-data-set.bin");
        const PtpPortDataSet *p = &m.data.port_ds;

        assert_int_equal(m.action, PTP_MGMT_RESPONSE);
        assert_int_equal(m.tlv_type, PTP_TLV_MANAGEMENT);
        assert_int_equal(m.management_id, PTP_MID_PORT_DATA_SET);
        assert_int_equal(m.sequence_id, 1);
        assert_int_equal(m.domain, 0);
        assert_int_equal(m.transport_specific, 0);
        assert_int_equal(m.version, 2);
        assert_identity(m.source.clock_identity, "72d934.fffe.6c6636");
        assert_int_equal(m.source.port_number, 1);
        assert_int_equal(m.target.port_number, 0x03b9);   /* the recorder's pid */
        assert_true(m.has_data);
        assert_identity(p->port_identity.clock_identity, "72d934.fffe.6c6636");
        assert_int_equal(p->port_identity.port_number, 1);
        assert_int_equal(p->port_state, PTP_PORT_SLAVE);
        assert_string_equal(ptp_port_state_to_string(p->port_state), "SLAVE");
        assert_int_equal(p->log_min_delay_req_interval, 0);
        assert_int_equal(p->peer_mean_path_delay, 0);
        assert_int_equal(p->log_announce_interval, 1);
        assert_int_equal(p->announce_receipt_timeout, 3);
        assert_int_equal(p->log_sync_interval, 0);
        assert_int_equal(p->delay_mechanism, 1);
        assert_int_equal(p->log_min_pdelay_req_interval, 0);
        assert_int_equal(p->version_number, 2);
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_PORT_DATA_SET), 0);
}

static void test_slave_time_status_np(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-time-status-np.bin");
        const PtpTimeStatusNp *t = &m.data.time_status_np;

        assert_int_equal(m.management_id, PTP_MID_TIME_STATUS_NP);
        assert_int_equal(m.sequence_id, 2);
        assert_true(t->master_offset == -128);
        assert_true(t->ingress_time == 0x18eda90ed1b29e6eLL);
        assert_int_equal(t->cumulative_scaled_rate_offset, 0);
        assert_int_equal(t->scaled_last_gm_phase_change, 0);
        assert_int_equal(t->gm_time_base_indicator, 0);
        assert_int_equal(t->last_gm_phase_change_ns_lsb, 0);
        assert_int_equal(t->gm_present, 1);
        assert_identity(t->gm_identity, "3a9f2b.fffe.14df70");
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_TIME_STATUS_NP), 0);
}

static void test_slave_current_data_set(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-current-data-set.bin");
        const PtpCurrentDataSet *c = &m.data.current_ds;

        assert_int_equal(m.management_id, PTP_MID_CURRENT_DATA_SET);
        assert_int_equal(c->steps_removed, 1);
        assert_true(c->offset_from_master == 512LL << 16);
        assert_true(ptp_time_interval_to_ns(c->offset_from_master) == 512);
        assert_true(ptp_time_interval_to_ns(c->mean_path_delay) == 2560);
}

static void test_slave_parent_data_set(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-parent-data-set.bin");
        const PtpParentDataSet *p = &m.data.parent_ds;

        assert_int_equal(m.management_id, PTP_MID_PARENT_DATA_SET);
        assert_identity(p->parent_port_identity.clock_identity, "3a9f2b.fffe.14df70");
        assert_int_equal(p->parent_port_identity.port_number, 1);
        assert_int_equal(p->parent_stats, 0);
        assert_int_equal(p->observed_parent_offset_scaled_log_variance, 0xffff);
        assert_int_equal(p->observed_parent_clock_phase_change_rate, 0x7fffffff);
        assert_int_equal(p->grandmaster_priority1, 128);
        assert_int_equal(p->grandmaster_clock_quality.clock_class, 248);
        assert_int_equal(p->grandmaster_clock_quality.clock_accuracy, 0xfe);
        assert_int_equal(p->grandmaster_clock_quality.offset_scaled_log_variance, 0xffff);
        assert_int_equal(p->grandmaster_priority2, 128);
        assert_identity(p->grandmaster_identity, "3a9f2b.fffe.14df70");
}

static void test_slave_time_properties(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-time-properties-data-set.bin");
        const PtpTimePropertiesDataSet *t = &m.data.time_properties_ds;

        assert_int_equal(m.management_id, PTP_MID_TIME_PROPERTIES_DATA_SET);
        assert_int_equal(t->current_utc_offset, 37);
        assert_int_equal(t->flags, 0);
        assert_int_equal(t->time_source, 0xa0);
}

static void test_master_side(void **state) {
        PtpMgmtMessage m = decode_fixture("master-port-data-set.bin");
        assert_int_equal(m.data.port_ds.port_state, PTP_PORT_MASTER);
        assert_string_equal(ptp_port_state_to_string(m.data.port_ds.port_state), "MASTER");

        m = decode_fixture("master-time-status-np.bin");
        assert_int_equal(m.data.time_status_np.gm_present, 0);
        assert_true(m.data.time_status_np.master_offset == 0);
        assert_identity(m.data.time_status_np.gm_identity, "3a9f2b.fffe.14df70");

        m = decode_fixture("master-current-data-set.bin");
        assert_int_equal(m.data.current_ds.steps_removed, 0);

        m = decode_fixture("master-parent-data-set.bin");
        assert_int_equal(m.data.parent_ds.parent_port_identity.port_number, 0);
}

/* PORT_PROPERTIES_NP: which interface a port is; "p1" (2 bytes) plus one
 * pad byte makes 16 bytes of data. */
static void test_port_properties(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-port-properties-np.bin");
        const PtpPortPropertiesNp *p = &m.data.port_properties_np;

        assert_int_equal(m.management_id, PTP_MID_PORT_PROPERTIES_NP);
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_PORT_PROPERTIES_NP), 0);
        assert_identity(p->port_identity.clock_identity, "6239ed.fffe.8dc9d0");
        assert_int_equal(p->port_identity.port_number, 1);
        assert_int_equal(p->port_state, PTP_PORT_SLAVE);
        assert_int_equal(p->timestamping, 0);           /* TS_SOFTWARE */
        assert_string_equal(p->interface, "p1");

        /* A boundary clock's two ports answer the same GET (bc-pmc.txt). */
        m = decode_fixture("bc-port-properties-np.bin");
        assert_string_equal(m.data.port_properties_np.interface, "p5");
        assert_int_equal(m.data.port_properties_np.port_identity.port_number, 1);
        assert_int_equal(m.data.port_properties_np.port_state, PTP_PORT_SLAVE);
        m = decode_fixture("bc-port-properties-np-2.bin");
        assert_string_equal(m.data.port_properties_np.interface, "p7");
        assert_int_equal(m.data.port_properties_np.port_identity.port_number, 2);
        assert_int_equal(m.data.port_properties_np.port_state, PTP_PORT_MASTER);
        assert_int_equal(m.sequence_id, 2);
        m = decode_fixture("bc-port-data-set.bin");
        assert_int_equal(m.data.port_ds.port_identity.port_number, 1);
        assert_int_equal(m.data.port_ds.port_state, PTP_PORT_SLAVE);
        m = decode_fixture("bc-port-data-set-2.bin");
        assert_int_equal(m.data.port_ds.port_identity.port_number, 2);
        assert_int_equal(m.data.port_ds.port_state, PTP_PORT_MASTER);
        assert_int_equal(m.sequence_id, 1);

        /* The name's length byte (offset 66) must fit the data exactly. */
        size_t len;
        uint8_t *buf = read_fixture("slave-port-properties-np.bin", &len);
        assert_int_equal(len, 70);
        buf[66] = 3;                  /* 13 + 3 = 16 fits, but the name is "p1\0" */
        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        buf[69] = 'x';                /* "p1x": fine */
        assert_int_equal(unpack_exact(buf, len, &m), 0);
        assert_string_equal(m.data.port_properties_np.interface, "p1x");
        buf[69] = 0;
        buf[66] = 1;                  /* 13 + 1 = 14 != 16 */
        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        buf[66] = 4;                  /* 13 + 4 + 1 = 18 != 16 */
        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        buf[66] = 2;
        buf[67] = 0;                  /* "\0" "1" */
        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        free(buf);
}

/* ptp4l answers GET FAULT_LOG with MANAGEMENT_ERROR_STATUS NOT_SUPPORTED. */
static void test_error_status(void **state) {
        PtpMgmtMessage m = decode_fixture("slave-fault-log.bin");

        assert_int_equal(m.action, PTP_MGMT_RESPONSE);
        assert_int_equal(m.tlv_type, PTP_TLV_MANAGEMENT_ERROR_STATUS);
        assert_int_equal(m.error_code, 0x0006);
        assert_string_equal(ptp_mgmt_error_to_string(m.error_code), "NOT_SUPPORTED");
        assert_int_equal(m.management_id, 0x0006);
        assert_false(m.has_data);
        assert_int_equal(ptp_mgmt_check_response(&m, 0x0006), -EREMOTEIO);
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_PORT_DATA_SET), -EBADMSG);
}

/* An error status with display text: the PTPText must fit the TLV exactly. */
static void test_error_status_text(void **state) {
        size_t len;
        uint8_t *buf = read_fixture("slave-fault-log.bin", &len);
        PtpMgmtMessage m;

        /* text "ab": length byte + 2 bytes + 1 pad = 4 more bytes */
        memcpy(buf + len, "\x02" "ab" "\x00", 4);
        buf[3] = (uint8_t) (len + 4);
        buf[51] = 8 + 4;
        assert_int_equal(unpack_exact(buf, len + 4, &m), 0);
        assert_int_equal(m.error_code, 6);

        /* a text length that runs past the TLV */
        buf[len] = 9;
        assert_int_equal(unpack_exact(buf, len + 4, &m), -EBADMSG);
        free(buf);
}

/* CLOCK_ACCURACY is well formed but not an id tbsd decodes: rejected. */
static void test_wrong_id(void **state) {
        size_t len;
        uint8_t *buf = read_fixture("slave-clock-accuracy.bin", &len);
        PtpMgmtMessage m;

        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        free(buf);

        /* A known id answering another request. */
        m = decode_fixture("slave-current-data-set.bin");
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_PORT_DATA_SET), -EBADMSG);

        /* The PORT_DATA_SET bytes relabelled as TIME_STATUS_NP: length mismatch. */
        buf = read_fixture("slave-port-data-set.bin", &len);
        buf[52] = 0xc0;
        buf[53] = 0x00;
        assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
        free(buf);
}

static const char *const replies[] = {
        "slave-port-data-set.bin", "slave-time-status-np.bin", "slave-current-data-set.bin",
        "slave-parent-data-set.bin", "slave-time-properties-data-set.bin", "slave-fault-log.bin",
        "master-port-data-set.bin", "master-time-status-np.bin", "master-current-data-set.bin",
        "master-parent-data-set.bin", "slave-port-properties-np.bin", "bc-port-data-set.bin",
        "bc-port-data-set-2.bin", "bc-port-properties-np.bin", "bc-port-properties-np-2.bin",
        "bc-time-status-np.bin",
};

/* Every prefix of every reply is rejected, with the messageLength as sent
 * and with it rewritten to match the shorter datagram. */
static void test_truncated(void **state) {
        for (size_t f = 0; f < ELEMENTSOF(replies); f++) {
                size_t len;
                uint8_t *buf = read_fixture(replies[f], &len);
                PtpMgmtMessage m;

                for (size_t n = 0; n < len; n++) {
                        assert_int_equal(unpack_exact(buf, n, &m), -EBADMSG);
                        if (n >= 4) {
                                uint8_t save2 = buf[2], save3 = buf[3];
                                buf[2] = (uint8_t) (n >> 8);
                                buf[3] = (uint8_t) n;
                                assert_int_equal(unpack_exact(buf, n, &m), -EBADMSG);
                                buf[2] = save2;
                                buf[3] = save3;
                        }
                }
                free(buf);
        }
}

/* Extra bytes are rejected: trailing garbage, a messageLength that covers
 * it, and a TLV length that covers it too (data set no longer exact). */
static void test_oversized(void **state) {
        for (size_t f = 0; f < ELEMENTSOF(replies); f++) {
                size_t len;
                uint8_t *buf = read_fixture(replies[f], &len);
                PtpMgmtMessage m;

                buf[len] = 0;
                buf[len + 1] = 0;
                assert_int_equal(unpack_exact(buf, len + 2, &m), -EBADMSG);
                buf[3] = (uint8_t) (len + 2);
                assert_int_equal(unpack_exact(buf, len + 2, &m), -EBADMSG);
                buf[51] = (uint8_t) (buf[51] + 2);
                if (f != 5)  /* the error status may carry text; covered above */
                        assert_int_equal(unpack_exact(buf, len + 2, &m), -EBADMSG);
                free(buf);
        }
        /* Larger than any datagram ptp4l sends. */
        uint8_t *big = calloc(1, PTP_MGMT_MAX_LEN + 1);
        PtpMgmtMessage m;
        assert_int_equal(unpack_exact(big, PTP_MGMT_MAX_LEN + 1, &m), -EBADMSG);
        free(big);
}

static void test_malformed_header(void **state) {
        size_t len;
        uint8_t *buf = read_fixture("slave-port-data-set.bin", &len);
        PtpMgmtMessage m;
        struct { size_t off; uint8_t val; } cases[] = {
                { 0, 0x0b },            /* ANNOUNCE, not MANAGEMENT */
                { 1, 0x01 },            /* PTP version 1 */
                { 46, 0x0f },           /* actionField out of range */
                { 48, 0x03 },           /* TLV type ORGANIZATION_EXTENSION */
                { 51, 0x1b },           /* TLV length odd, past the end */
                { 51, 0x19 },           /* TLV length short by one */
                { 51, 0x00 },           /* TLV length 0: no managementId */
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint8_t save = buf[cases[i].off];
                buf[cases[i].off] = cases[i].val;
                assert_int_equal(unpack_exact(buf, len, &m), -EBADMSG);
                buf[cases[i].off] = save;
        }
        assert_int_equal(unpack_exact(buf, len, &m), 0);

        /* A RESPONSE must carry its data set. */
        uint8_t empty[PTP_MGMT_GET_LEN];
        memcpy(empty, buf, sizeof(empty));
        empty[3] = PTP_MGMT_GET_LEN;
        empty[51] = 2;
        assert_int_equal(unpack_exact(empty, sizeof(empty), &m), -EBADMSG);
        empty[46] = PTP_MGMT_GET;
        assert_int_equal(unpack_exact(empty, sizeof(empty), &m), 0);
        free(buf);
}

static void assert_fixture_bytes(const char *name, const uint8_t *data, size_t len) {
        size_t flen;
        uint8_t *expected = read_fixture(name, &flen);

        assert_int_equal(len, flen);
        assert_memory_equal(data, expected, len);
        free(expected);
}

/* GETs as pmc -z sends them (source port number = pmc's pid, sequence 0). */
static void test_encode_get_golden(void **state) {
        uint8_t buf[PTP_MGMT_MAX_LEN];
        PtpPortIdentity src = { .port_number = 0x4292 };
        PtpMgmtMessage m;
        int n;

        ptp_mgmt_init_get(&m, PTP_MID_PORT_DATA_SET, 0, 0, 0, &src);
        n = ptp_mgmt_pack(&m, buf, sizeof(buf));
        assert_int_equal(n, PTP_MGMT_GET_LEN);
        assert_fixture_bytes("get-port-data-set-pmc-z.bin", buf, (size_t) n);

        src.port_number = 0x42bd;
        ptp_mgmt_init_get(&m, PTP_MID_TIME_STATUS_NP, 5, 1, 0, &src);
        n = ptp_mgmt_pack(&m, buf, sizeof(buf));
        assert_int_equal(n, PTP_MGMT_GET_LEN);
        assert_fixture_bytes("get-time-status-np-pmc-z-d5-t1.bin", buf, (size_t) n);

        /* Too small a buffer, bad transportSpecific. */
        assert_int_equal(ptp_mgmt_pack(&m, buf, PTP_MGMT_GET_LEN - 1), -ENOBUFS);
        m.transport_specific = 16;
        assert_int_equal(ptp_mgmt_pack(&m, buf, sizeof(buf)), -EINVAL);
}

/* SUBSCRIBE_EVENTS_NP, written byte by byte from linuxptp's layout (tlv.h:
 * struct subscribe_events_np { UInteger16 duration; Octet bitmask[64]; },
 * event n is bit n % 8 of byte n / 8, NOTIFY_PORT_STATE 0, NOTIFY_TIME_SYNC
 * 1) inside IEEE 1588's management message (13.3, 15.4, 15.5.2). */
static void subscribe_bytes(uint8_t out[PTP_MGMT_SUBSCRIBE_LEN], uint8_t action, uint8_t domain,
                            uint8_t ts, uint16_t seq, uint16_t duration, uint8_t mask0) {
        static const uint8_t head[48] = {
                0x0d, 0x02, 0x00, 0x78,                         /* management, PTPv2, 120 bytes */
                0x00, 0x00, 0x00, 0x00,                         /* domain (patched), reserved, flags */
                0, 0, 0, 0, 0, 0, 0, 0,                         /* correctionField */
                0, 0, 0, 0,                                     /* reserved */
                0, 0, 0, 0, 0, 0, 0x00, 0x07, 0x12, 0x34,       /* source: identity, port 0x1234 */
                0x00, 0x00,                                     /* sequenceId (patched) */
                0x04, 0x7f,                                     /* controlField, logMessageInterval */
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* target: all clocks */
                0xff, 0xff,                                     /* all ports */
                0x00, 0x00,                                     /* startingBoundaryHops, boundaryHops */
                0x00, 0x00,                                     /* action (patched), reserved */
        };
        memset(out, 0, PTP_MGMT_SUBSCRIBE_LEN);
        memcpy(out, head, sizeof(head));
        out[0] |= (uint8_t) (ts << 4);
        out[4] = domain;
        out[30] = (uint8_t) (seq >> 8);
        out[31] = (uint8_t) seq;
        out[46] = action;
        out[48] = 0x00; out[49] = 0x01;                         /* TLV MANAGEMENT */
        out[50] = 0x00; out[51] = 0x44;                         /* 68: id + 66 bytes of data */
        out[52] = 0xc0; out[53] = 0x03;                         /* SUBSCRIBE_EVENTS_NP */
        out[54] = (uint8_t) (duration >> 8);
        out[55] = (uint8_t) duration;
        out[56] = mask0;                                        /* bitmask[0]; [1..63] stay 0 */
}

static void test_subscribe_encode(void **state) {
        static const PtpNotifyEvent events[] = { PTP_NOTIFY_PORT_STATE, PTP_NOTIFY_TIME_SYNC };
        uint8_t buf[PTP_MGMT_MAX_LEN], want[PTP_MGMT_SUBSCRIBE_LEN];
        PtpPortIdentity src = { .clock_identity = { [7] = 0x07 }, .port_number = 0x1234 };
        PtpMgmtMessage m;
        int n;

        ptp_mgmt_init_subscribe(&m, 0, 0, 0x0102, &src, 60, events, ELEMENTSOF(events));
        n = ptp_mgmt_pack(&m, buf, sizeof(buf));
        assert_int_equal(n, 120);
        subscribe_bytes(want, 0x01, 0, 0, 0x0102, 60, 0x03);
        assert_memory_equal(buf, want, sizeof(want));

        /* Port state alone, domain 24, transportSpecific 1, an hour. */
        ptp_mgmt_init_subscribe(&m, 24, 1, 7, &src, 3600, events, 1);
        n = ptp_mgmt_pack(&m, buf, sizeof(buf));
        assert_int_equal(n, 120);
        subscribe_bytes(want, 0x01, 24, 1, 7, 3600, 0x01);
        assert_memory_equal(buf, want, sizeof(want));

        /* An event past the bitmask is left out; the buffer must hold 120. */
        PtpNotifyEvent far = (PtpNotifyEvent) 600;
        ptp_mgmt_init_subscribe(&m, 0, 0, 0, &src, 1, &far, 1);
        for (size_t i = 0; i < PTP_EVENT_BITMASK_LEN; i++)
                assert_int_equal(m.data.subscribe_events_np.bitmask[i], 0);
        assert_int_equal(ptp_mgmt_pack(&m, buf, PTP_MGMT_SUBSCRIBE_LEN - 1), -ENOBUFS);
}

/* ptp4l's answer to the SET: a RESPONSE echoing what it keeps (in 4.x the
 * remaining duration on a GET). */
static void test_subscribe_decode(void **state) {
        uint8_t bytes[PTP_MGMT_SUBSCRIBE_LEN];
        PtpMgmtMessage m;

        subscribe_bytes(bytes, 0x02, 0, 0, 5, 60, 0x03);
        bytes[56 + 8] = 0x80;                                   /* event 71, unknown to all */
        assert_int_equal(unpack_exact(bytes, sizeof(bytes), &m), 0);
        assert_int_equal(m.action, PTP_MGMT_RESPONSE);
        assert_int_equal(m.management_id, PTP_MID_SUBSCRIBE_EVENTS_NP);
        assert_int_equal(m.sequence_id, 5);
        assert_true(m.has_data);
        assert_int_equal(m.data.subscribe_events_np.duration, 60);
        assert_true(ptp_event_bitmask_get(m.data.subscribe_events_np.bitmask, PTP_NOTIFY_PORT_STATE));
        assert_true(ptp_event_bitmask_get(m.data.subscribe_events_np.bitmask, PTP_NOTIFY_TIME_SYNC));
        assert_false(ptp_event_bitmask_get(m.data.subscribe_events_np.bitmask, PTP_NOTIFY_PARENT_DATA_SET));
        assert_true(ptp_event_bitmask_get(m.data.subscribe_events_np.bitmask, 71));
        assert_false(ptp_event_bitmask_get(m.data.subscribe_events_np.bitmask, 512));
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_SUBSCRIBE_EVENTS_NP), 0);
        assert_string_equal(ptp_mgmt_id_to_string(PTP_MID_SUBSCRIBE_EVENTS_NP), "SUBSCRIBE_EVENTS_NP");
        assert_int_equal(ptp_mgmt_data_len(PTP_MID_SUBSCRIBE_EVENTS_NP), 66);

        /* One data byte short (length fields say so too): malformed. */
        bytes[3] = 0x77;
        bytes[51] = 0x43;
        assert_int_equal(unpack_exact(bytes, sizeof(bytes) - 1, &m), -EBADMSG);

        /* A refusal: MANAGEMENT_ERROR_STATUS NOT_SUPPORTED (ptp4l's read-only
         * socket, 4.x), 60 bytes. */
        uint8_t err[60];
        memcpy(err, bytes, 48);
        err[2] = 0x00; err[3] = 0x3c;
        err[46] = 0x02;
        const uint8_t tlv[12] = { 0x00, 0x02, 0x00, 0x08, 0x00, 0x06, 0xc0, 0x03, 0, 0, 0, 0 };
        memcpy(err + 48, tlv, sizeof(tlv));
        assert_int_equal(unpack_exact(err, sizeof(err), &m), 0);
        assert_int_equal(m.tlv_type, PTP_TLV_MANAGEMENT_ERROR_STATUS);
        assert_int_equal(ptp_mgmt_check_response(&m, PTP_MID_SUBSCRIBE_EVENTS_NP), -EREMOTEIO);
        assert_string_equal(ptp_mgmt_error_to_string(m.error_code), "NOT_SUPPORTED");
}

/* pmc without -z pads a GET with an empty data set; that decodes too. */
static void test_decode_pmc_requests(void **state) {
        PtpMgmtMessage m = decode_fixture("get-current-data-set-pmc.bin");

        assert_int_equal(m.action, PTP_MGMT_GET);
        assert_int_equal(m.management_id, PTP_MID_CURRENT_DATA_SET);
        assert_true(m.has_data);
        assert_int_equal(m.target.port_number, 0xffff);
        assert_int_equal(m.target.clock_identity[0], 0xff);

        m = decode_fixture("get-time-status-np-pmc-z-d5-t1.bin");
        assert_int_equal(m.domain, 5);
        assert_int_equal(m.transport_specific, 1);
        assert_false(m.has_data);
}

/* pack(unpack(x)) == x for every recorded reply. */
static void test_roundtrip(void **state) {
        for (size_t f = 0; f < ELEMENTSOF(replies); f++) {
                size_t len;
                uint8_t *buf = read_fixture(replies[f], &len);
                uint8_t out[PTP_MGMT_MAX_LEN];
                PtpMgmtMessage m;

                assert_int_equal(unpack_exact(buf, len, &m), 0);
                assert_int_equal(ptp_mgmt_pack(&m, out, sizeof(out)), (int) len);
                assert_memory_equal(out, buf, len);
                free(buf);
        }
}

/* Every single-byte change of every reply either decodes or is -EBADMSG;
 * under ASan this also shows no read outside the datagram. A decoded
 * change of a length field never passes (lengths are all checked). */
static void test_byte_mutations(void **state) {
        static const uint8_t values[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };

        for (size_t f = 0; f < ELEMENTSOF(replies); f++) {
                size_t len;
                uint8_t *buf = read_fixture(replies[f], &len);

                for (size_t pos = 0; pos < len; pos++) {
                        uint8_t save = buf[pos];

                        for (size_t v = 0; v < ELEMENTSOF(values); v++) {
                                PtpMgmtMessage m;
                                int r;

                                if (values[v] == save)
                                        continue;
                                buf[pos] = values[v];
                                r = unpack_exact(buf, len, &m);
                                assert_true(r == 0 || r == -EBADMSG);
                                /* messageLength (2-3) and TLV length (50-51) */
                                if (pos == 2 || pos == 3 || pos == 50 || pos == 51)
                                        assert_int_equal(r, -EBADMSG);
                        }
                        buf[pos] = save;
                }
                free(buf);
        }
}

static void test_strings(void **state) {
        assert_string_equal(ptp_port_state_to_string(PTP_PORT_LISTENING), "LISTENING");
        assert_string_equal(ptp_port_state_to_string(PTP_PORT_GRAND_MASTER), "GRAND_MASTER");
        assert_null(ptp_port_state_to_string(0));
        assert_null(ptp_port_state_to_string(11));
        assert_int_equal(ptp_port_state_from_string("UNCALIBRATED"), PTP_PORT_UNCALIBRATED);
        assert_int_equal(ptp_port_state_from_string("nonsense"), -EINVAL);
        assert_string_equal(ptp_mgmt_id_to_string(PTP_MID_TIME_STATUS_NP), "TIME_STATUS_NP");
        assert_null(ptp_mgmt_id_to_string(0x2010));
        assert_string_equal(ptp_mgmt_id_to_string(PTP_MID_PORT_PROPERTIES_NP), "PORT_PROPERTIES_NP");
        assert_int_equal(ptp_mgmt_data_len(PTP_MID_PORT_PROPERTIES_NP), 13);
        assert_int_equal(ptp_mgmt_data_len(PTP_MID_PARENT_DATA_SET), 32);
        assert_int_equal(ptp_mgmt_data_len(0x2000), -EOPNOTSUPP);
        assert_true(ptp_time_interval_to_ns(-(250LL << 16)) == -250);
        assert_true(ptp_time_interval_to_ns(-(1LL << 15)) == 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_slave_port_data_set),
                cmocka_unit_test(test_slave_time_status_np),
                cmocka_unit_test(test_slave_current_data_set),
                cmocka_unit_test(test_slave_parent_data_set),
                cmocka_unit_test(test_slave_time_properties),
                cmocka_unit_test(test_master_side),
                cmocka_unit_test(test_port_properties),
                cmocka_unit_test(test_error_status),
                cmocka_unit_test(test_error_status_text),
                cmocka_unit_test(test_wrong_id),
                cmocka_unit_test(test_truncated),
                cmocka_unit_test(test_oversized),
                cmocka_unit_test(test_malformed_header),
                cmocka_unit_test(test_encode_get_golden),
                cmocka_unit_test(test_decode_pmc_requests),
                cmocka_unit_test(test_subscribe_encode),
                cmocka_unit_test(test_subscribe_decode),
                cmocka_unit_test(test_roundtrip),
                cmocka_unit_test(test_byte_mutations),
                cmocka_unit_test(test_strings),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

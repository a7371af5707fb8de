/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MAC merge layer's ethtool netlink messages (daemon/probe/mac-merge.c):
 * request bytes, and answers replayed through the parsers.
 *
 * No NIC of the test beds has a MAC merge layer (igb and veth answer
 * MM_GET with -EOPNOTSUPP, the kernel tier asserts that), so the answers
 * of a NIC that has one are not recorded from a device: they are built
 * byte for byte in the kernel's format, from Linux 6.12's
 * net/ethtool/mm.c (mm_fill_reply(): the header nest, then tx-enabled,
 * tx-active, pmac-enabled, verify-enabled, verify-status, verify-time,
 * max-verify-time, tx-min-frag-size, rx-min-frag-size as u8/u32, then
 * the stats nest of u64 counters, each preceded by a pad attribute only
 * on architectures that need 8-byte alignment), net/ethtool/netlink.c
 * (the genetlink header: cmd ETHTOOL_MSG_MM_GET_REPLY 43, version 1) and
 * include/uapi/linux/ethtool_netlink.h (the numbers). The values are an
 * ENETC-like port (verify-time 10 ms, max 128, verification succeeded).
 * The arrays were written by a short script (struct.pack of nlmsghdr,
 * genlmsghdr and nlattr, little-endian), kept in the comment of each. The
 * error answers are the kernel's NLMSG_ERROR with NETLINK_CAP_ACK (the
 * request's header only) and, for -ERANGE, NETLINK_EXT_ACK's text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "mac-merge.h"

/* CTRL_CMD_NEWFAMILY for "ethtool": family id 0x14, version 1 */
static const _Alignas(8) uint8_t family_answer[] = {
        0x40, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x06, 0x00, 0x01, 0x00,
        0x14, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x02, 0x00, 0x65, 0x74, 0x68, 0x74,
        0x6f, 0x6f, 0x6c, 0x00, 0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00,
        0x00, 0x00, 0x00, 0x00,
};

/* MM_GET_REPLY, seq 2, ifindex 7 "eno0": pmac, tx, tx-active, verify on, status succeeded (3),
 * verify 10 ms of 128, fragments 60/60; counters 3 1 120345 240690 98765 42 */
static const _Alignas(8) uint8_t mm_answer_enetc[] = {
        0xc0, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x2b, 0x01, 0x00, 0x00, 0x18, 0x00, 0x01, 0x80,
        0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x09, 0x00, 0x02, 0x00,
        0x65, 0x6e, 0x6f, 0x30, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00,
        0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x07, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x08, 0x00, 0x03, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x09, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0a, 0x00,
        0x80, 0x00, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00, 0x3c, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x06, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x4c, 0x00, 0x0b, 0x80,
        0x0c, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x04, 0x00, 0x19, 0xd6, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x05, 0x00, 0x32, 0xac, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x06, 0x00, 0xcd, 0x81, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x0c, 0x00, 0x07, 0x00, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* The same port with everything off (verify status disabled, 5), tx fragment 124, and each
 * counter after an ETHTOOL_A_MM_STAT_PAD (0 0 5 10 7 0) */
static const _Alignas(8) uint8_t mm_answer_padded[] = {
        0xd8, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x2b, 0x01, 0x00, 0x00, 0x18, 0x00, 0x01, 0x80,
        0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x09, 0x00, 0x02, 0x00,
        0x65, 0x6e, 0x6f, 0x30, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x03, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x07, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x08, 0x00, 0x05, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x09, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x08, 0x00, 0x0a, 0x00,
        0x80, 0x00, 0x00, 0x00, 0x08, 0x00, 0x05, 0x00, 0x7c, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x06, 0x00, 0x3c, 0x00, 0x00, 0x00, 0x64, 0x00, 0x0b, 0x80,
        0x04, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x03, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00,
        0x0c, 0x00, 0x04, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x04, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x05, 0x00, 0x0a, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00, 0x0c, 0x00, 0x06, 0x00,
        0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00,
        0x0c, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* What igb and veth (Linux 6.12: no get_mm) and Linux 6.1 (no MM_GET command) answer: -95 */
static const _Alignas(8) uint8_t answer_eopnotsupp[] = {
        0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xa1, 0xff, 0xff, 0xff, 0x24, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* MM_SET refused, seq 3: -34 with "verifyTime exceeds device maximum" */
static const _Alignas(8) uint8_t answer_erange[] = {
        0x54, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0xde, 0xff, 0xff, 0xff, 0x2c, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x26, 0x00, 0x01, 0x00, 0x76, 0x65, 0x72, 0x69, 0x66, 0x79, 0x54, 0x69,
        0x6d, 0x65, 0x20, 0x65, 0x78, 0x63, 0x65, 0x65, 0x64, 0x73, 0x20, 0x64,
        0x65, 0x76, 0x69, 0x63, 0x65, 0x20, 0x6d, 0x61, 0x78, 0x69, 0x6d, 0x75,
        0x6d, 0x00, 0x00, 0x00, 0x08, 0x00, 0x02, 0x00, 0x28, 0x00, 0x00, 0x00,
};

/* MM_SET acknowledged, seq 3 */
static const _Alignas(8) uint8_t answer_ack[] = {
        0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x01, 0x03, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00,
        0x14, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* A CTRL_CMD_NEWFAMILY answer for "ethtool" with commands 1..last in
 * CTRL_ATTR_OPS (each a nest of CTRL_ATTR_OP_ID and CTRL_ATTR_OP_FLAGS, as
 * the kernel's ctrl_fill_info() writes them): 43 on Linux 6.12 (MM_SET
 * last of the MAC merge pair), 37 on 6.1 (PSE_SET). Returns the length. */
static size_t family_with_ops(uint8_t *buf, size_t size, uint32_t last) {
        size_t at = 0, ops_at;

        assert_true(size >= sizeof(family_answer) + 4 + last * 20);
        memcpy(buf, family_answer, sizeof(family_answer));
        at = sizeof(family_answer);
        ops_at = at;
        at += 4;
        for (uint32_t c = 1; c <= last; c++) {
                const uint16_t nest[2] = { 20, (uint16_t) (c | 0x8000) }, id[2] = { 8, 1 }, fl[2] = { 8, 2 };
                const uint32_t flags = 0x0e;

                memcpy(buf + at, nest, 4);
                memcpy(buf + at + 4, id, 4);
                memcpy(buf + at + 8, &c, 4);
                memcpy(buf + at + 12, fl, 4);
                memcpy(buf + at + 16, &flags, 4);
                at += 20;
        }
        const uint16_t ops[2] = { (uint16_t) (at - ops_at), 6 | 0x8000 };   /* CTRL_ATTR_OPS */
        memcpy(buf + ops_at, ops, 4);
        const uint32_t total = (uint32_t) at;
        memcpy(buf, &total, 4);
        return at;
}

static void test_family(void **state) {
        _Alignas(8) uint8_t buf[1024];
        char err[128];
        uint16_t family = 0;
        bool has = true;
        size_t n;

        assert_int_equal(mm_parse_family(family_answer, sizeof(family_answer), 1, &family, &has, err, sizeof(err)), 1);
        assert_int_equal(family, 0x14);
        assert_false(has);
        /* another sequence number: not the answer yet */
        assert_int_equal(mm_parse_family(family_answer, sizeof(family_answer), 9, &family, NULL, err, sizeof(err)), 0);
        /* Linux 6.12 lists MM_GET (42), 6.1 does not */
        n = family_with_ops(buf, sizeof(buf), 43);
        assert_int_equal(mm_parse_family(buf, n, 1, &family, &has, err, sizeof(err)), 1);
        assert_true(has);
        n = family_with_ops(buf, sizeof(buf), 37);
        assert_int_equal(mm_parse_family(buf, n, 1, &family, &has, err, sizeof(err)), 1);
        assert_false(has);
}

static void test_get_enetc(void **state) {
        MacMergeState s;
        char err[128];

        assert_int_equal(mm_parse_get(mm_answer_enetc, sizeof(mm_answer_enetc), 2, &s, err, sizeof(err)), 1);
        assert_true(s.pmac_enabled && s.tx_enabled && s.tx_active && s.verify_enabled);
        assert_int_equal(s.verify_status, 3);
        assert_string_equal(mac_merge_verify_status_to_string(s.verify_status), "succeeded");
        assert_int_equal(s.verify_time_ms, 10);
        assert_int_equal(s.max_verify_time_ms, 128);
        assert_int_equal(s.tx_min_frag_size, 60);
        assert_int_equal(s.rx_min_frag_size, 60);
        assert_int_equal(s.stats_present, 0x3f);
        assert_int_equal(s.stats[MM_STAT_REASSEMBLY_ERRORS], 3);
        assert_int_equal(s.stats[MM_STAT_SMD_ERRORS], 1);
        assert_int_equal(s.stats[MM_STAT_REASSEMBLY_OK], 120345);
        assert_int_equal(s.stats[MM_STAT_RX_FRAGMENTS], 240690);
        assert_int_equal(s.stats[MM_STAT_TX_FRAGMENTS], 98765);
        assert_int_equal(s.stats[MM_STAT_HOLD], 42);
        assert_string_equal(mac_merge_stat_name(MM_STAT_HOLD), "hold");
}

static void test_get_padded(void **state) {
        MacMergeState s;

        assert_int_equal(mm_parse_get(mm_answer_padded, sizeof(mm_answer_padded), 2, &s, NULL, 0), 1);
        assert_false(s.pmac_enabled || s.tx_enabled || s.tx_active || s.verify_enabled);
        assert_string_equal(mac_merge_verify_status_to_string(s.verify_status), "disabled");
        assert_int_equal(s.tx_min_frag_size, 124);
        assert_int_equal(s.stats_present, 0x3f);
        assert_int_equal(s.stats[MM_STAT_REASSEMBLY_OK], 5);
        assert_int_equal(s.stats[MM_STAT_RX_FRAGMENTS], 10);
        assert_int_equal(s.stats[MM_STAT_TX_FRAGMENTS], 7);
}

static void test_get_refused(void **state) {
        _cleanup_free_ char *line = NULL;
        MacMergeState s;
        char err[128];

        assert_int_equal(mm_parse_get(answer_eopnotsupp, sizeof(answer_eopnotsupp), 2, &s, err, sizeof(err)),
                         -EOPNOTSUPP);
        assert_string_equal(err, "");
        assert_int_equal(mac_merge_refusal(-EOPNOTSUPP, err, &line), 0);
        assert_string_equal(line, "mac_merge: the device has no MAC merge layer (ethtool netlink MM_GET: "
                                  "Operation not supported)");
}

static void test_bad_answers(void **state) {
        _Alignas(8) uint8_t b[sizeof(mm_answer_enetc)];
        MacMergeState s;

        /* another command in the genetlink header */
        memcpy(b, mm_answer_enetc, sizeof(b));
        b[16] = 42;
        assert_int_equal(mm_parse_get(b, sizeof(b), 2, &s, NULL, 0), -EBADMSG);
        /* an attribute longer than the message */
        memcpy(b, mm_answer_enetc, sizeof(b));
        b[44] = 0xf0;
        assert_int_equal(mm_parse_get(b, sizeof(b), 2, &s, NULL, 0), -EBADMSG);
        /* cut short: the netlink header says more than there is */
        assert_int_equal(mm_parse_get(mm_answer_enetc, 40, 2, &s, NULL, 0), -EBADMSG);
}

static void test_ack(void **state) {
        char err[128];

        assert_int_equal(mm_parse_ack(answer_ack, sizeof(answer_ack), 3, err, sizeof(err)), 1);
        assert_int_equal(mm_parse_ack(answer_erange, sizeof(answer_erange), 3, err, sizeof(err)), -ERANGE);
        assert_string_equal(err, "verifyTime exceeds device maximum");
}

/* Request bytes: MM_GET asks for the counters (ETHTOOL_FLAG_STATS). */
static void test_requests(void **state) {
        static const uint8_t get[] = {
                0x28, 0x00, 0x00, 0x00, 0x14, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x2a, 0x01, 0x00, 0x00,                         /* cmd 42 MM_GET, version 1 */
                0x14, 0x00, 0x01, 0x80,                         /* header nest */
                0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, /* dev index 7 */
                0x08, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, /* flags: stats */
        };
        static const uint8_t family[] = {
                0x20, 0x00, 0x00, 0x00, 0x10, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x03, 0x01, 0x00, 0x00,                         /* CTRL_CMD_GETFAMILY */
                0x0c, 0x00, 0x02, 0x00, 'e', 't', 'h', 't', 'o', 'o', 'l', 0x00,
        };
        _Alignas(8) uint8_t buf[256];

        assert_int_equal(mm_msg_get(buf, sizeof(buf), 0x14, 2, 7), sizeof(get));
        assert_memory_equal(buf, get, sizeof(get));
        assert_int_equal(mm_msg_get_family(buf, sizeof(buf), 1), sizeof(family));
        assert_memory_equal(buf, family, sizeof(family));
        assert_int_equal(mm_msg_get(buf, 20, 0x14, 2, 7), -ENOBUFS);
}

/* MM_SET carries what differs, nothing when nothing does. */
static void test_set(void **state) {
        static const uint8_t set_all[] = {
                0x48, 0x00, 0x00, 0x00, 0x14, 0x00, 0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                0x2b, 0x01, 0x00, 0x00,                         /* cmd 43 MM_SET */
                0x0c, 0x00, 0x01, 0x80, 0x08, 0x00, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00,
                0x05, 0x00, 0x07, 0x00, 0x01, 0x00, 0x00, 0x00, /* verify-enabled 1 */
                0x08, 0x00, 0x09, 0x00, 0x0a, 0x00, 0x00, 0x00, /* verify-time 10 */
                0x05, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* tx-enabled 1 */
                0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, /* pmac-enabled 1 (follows tx) */
                0x08, 0x00, 0x05, 0x00, 0x3c, 0x00, 0x00, 0x00, /* tx-min-frag-size 60 */
        };
        MacMergeSpec want = {
                .configured = true, .tx_given = true, .tx_enabled = true, .verify_given = true,
                .verify_enabled = true, .verify_time_ms = 10, .tx_min_frag_bytes = 60,
        }, back;
        MacMergeState off, on;
        _Alignas(8) uint8_t buf[256];

        assert_int_equal(mm_parse_get(mm_answer_padded, sizeof(mm_answer_padded), 2, &off, NULL, 0), 1);
        assert_int_equal(mm_parse_get(mm_answer_enetc, sizeof(mm_answer_enetc), 2, &on, NULL, 0), 1);
        /* from the port with everything off: verify-time is 10 already */
        assert_int_equal(mm_msg_set(buf, sizeof(buf), 0x14, 3, 7, &want, NULL), sizeof(set_all));
        assert_memory_equal(buf, set_all, sizeof(set_all));
        assert_int_equal(mm_msg_set(buf, sizeof(buf), 0x14, 3, 7, &want, &off), sizeof(set_all) - 8);
        assert_false(mac_merge_matches(&want, &off));
        /* the port that has it all: nothing to send, "unchanged" */
        assert_int_equal(mm_msg_set(buf, sizeof(buf), 0x14, 3, 7, &want, &on), 0);
        assert_true(mac_merge_matches(&want, &on));
        /* putting the port back as it was (the rollback's request) */
        mac_merge_spec_from_state(&off, &back);
        assert_false(mac_merge_matches(&back, &on));
        assert_true(mac_merge_matches(&back, &off));
        assert_int_equal(mm_msg_set(buf, sizeof(buf), 0x14, 3, 7, &back, &on), 20 + 12 + 4 * 8);
}

/* Describe()'s "mac_merge" (tbsctl status --json) from the replayed answer. */
static void test_state_json(void **state) {
        MacMergeState s;
        struct json_object *o;

        assert_int_equal(mm_parse_get(mm_answer_enetc, sizeof(mm_answer_enetc), 2, &s, NULL, 0), 1);
        o = mac_merge_state_to_json(&s);
        assert_non_null(o);
        assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                            "{\"pmac_enabled\":true,\"tx_enabled\":true,\"tx_active\":true,\"verify_enabled\":true,"
                            "\"verify_status\":\"succeeded\",\"verify_time_ms\":10,\"max_verify_time_ms\":128,"
                            "\"tx_min_frag_bytes\":60,\"rx_min_frag_bytes\":60,\"counters\":{\"reassembly_errors\":3,"
                            "\"smd_errors\":1,\"reassembly_ok\":120345,\"rx_fragments\":240690,\"tx_fragments\":98765,"
                            "\"hold\":42}}");
        json_object_put(o);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_family),
                cmocka_unit_test(test_get_enetc),
                cmocka_unit_test(test_get_padded),
                cmocka_unit_test(test_get_refused),
                cmocka_unit_test(test_bad_answers),
                cmocka_unit_test(test_ack),
                cmocka_unit_test(test_requests),
                cmocka_unit_test(test_set),
                cmocka_unit_test(test_state_json),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

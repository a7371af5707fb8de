/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Golden bytes of the netlink requests the engine builds, and parsing of
 * kernel dumps recorded in the test kernel (tests/unit/fixtures/qdisc/).
 *
 * The expected bytes were written from the kernel's struct layouts
 * (linux/pkt_sched.h, linux/rtnetlink.h; little endian) and then checked
 * once against what iproute2 6.1 sends for the same qdisc (strace -xx of
 * `tc qdisc add|replace ...` in the test kernel): taprio is identical byte
 * for byte; mqprio (built by libnl-route since issue 22) differs only in
 * the NLA_F_NESTED flag of TCA_OPTIONS, which the kernel ignores; etf
 * differs from `tc qdisc add` only in the handle and the NLM_F_* flags,
 * which the header checks cover. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl-qdisc.h"
#include "qdisc.h"

#include "qdisc-fixture-roots.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/qdisc/"

/* The cycle time not given: the kernel sums the intervals. */
static RootSpec taprio_root(void) {
        return taprio_root_cycle(0);
}

/* struct tcmsg: family u8, pad u8 u16, ifindex s32, handle u32, parent u32, info u32 */
#define TCMSG(ifindex, handle, parent) \
        0x00, 0x00, 0x00, 0x00, ifindex, 0x00, 0x00, 0x00, \
        (handle) & 0xff, ((handle) >> 8) & 0xff, ((handle) >> 16) & 0xff, (handle) >> 24, \
        (parent) & 0xff, ((parent) >> 8) & 0xff, ((parent) >> 16) & 0xff, (parent) >> 24, \
        0x00, 0x00, 0x00, 0x00

/* struct tc_mqprio_qopt for num_tc 3, map 2 2 1 0 2..., queues 1@0 1@1 2@2:
 * num_tc u8, prio_tc_map[16], hw u8, count[16] u16, offset[16] u16 = 82 bytes */
#define QOPT_3TC(hw) \
        0x03, \
        0x02, 0x02, 0x01, 0x00, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, 0x02, \
        hw, \
        0x01, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \
        0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, \
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00

/* NLM_F_REQUEST and NLM_F_ACK are added when the message is sent. */
static void assert_payload(struct nl_msg *m, int type, int flags, const uint8_t *expected, size_t len) {
        struct nlmsghdr *h = nlmsg_hdr(m);

        assert_int_equal(h->nlmsg_type, type);
        assert_int_equal(h->nlmsg_flags, flags);
        assert_int_equal(h->nlmsg_len, NLMSG_HDRLEN + len);
        assert_memory_equal(nlmsg_data(h), expected, len);
}

static void test_mqprio_request(void **state) {
        static const uint8_t expected[] = {
                TCMSG(3, 0x01000000, 0xffffffff),
                0x0b, 0x00, 0x01, 0x00, 'm', 'q', 'p', 'r', 'i', 'o', 0x00, 0x00,  /* TCA_KIND */
                /* TCA_OPTIONS: the struct padded to NLA_ALIGN(82) = 84. libnl-route's
                 * encoder marks it NLA_F_NESTED (0x8000), iproute2 does not; the
                 * kernel parses TCA_* without looking at the flag (qdisc_create()
                 * reads it with nla_len()/nla_data(); tests/kernel/test-nl-mqprio-etf.sh
                 * sees the same tree installed with tc -j). */
                0x58, 0x00, 0x02, 0x80, QOPT_3TC(0x00), 0x00, 0x00,
        };
        struct nl_msg *m = NULL;

        assert_int_equal(qdisc_root_request(3, &mqprio_root, &m), 0);
        assert_payload(m, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
                       expected, sizeof(expected));
        nlmsg_free(m);
}

static void test_mqprio_request_hw(void **state) {
        RootSpec r = mqprio_root;
        struct nl_msg *m = NULL;
        struct nlattr *o;

        r.mqprio.hw_offload = true;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        o = qdisc_request_options(m);
        assert_non_null(o);
        assert_int_equal(((uint8_t *) nla_data(o))[17], TC_MQPRIO_HW_OFFLOAD_TCS);
        nlmsg_free(m);
}

static void test_etf_request(void **state) {
        static const uint8_t expected[] = {
                TCMSG(3, 0x01020000, 0x01000002),                           /* 102: on 100:2 */
                0x08, 0x00, 0x01, 0x00, 'e', 't', 'f', 0x00,                 /* TCA_KIND */
                0x14, 0x00, 0x02, 0x00,                                      /* TCA_OPTIONS (nest, no flag) */
                0x10, 0x00, 0x01, 0x00,                                      /* TCA_ETF_PARMS */
                0x20, 0xa1, 0x07, 0x00,                                      /* delta 500000 */
                0x0b, 0x00, 0x00, 0x00,                                      /* clockid CLOCK_TAI (11) */
                0x05, 0x00, 0x00, 0x00,                                      /* DEADLINE_MODE | SKIP_SOCK_CHECK */
        };
        EtfSpec e = {
                .queue = 1, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 500000, .offload = OFFLOAD_AUTO,
                .etf.deadline_mode = true, .etf.skip_sock_check = true,
        };
        struct nl_msg *m = NULL;
        struct nlattr *o;

        assert_int_equal(qdisc_etf_request(3, 0x01000000, 0x01020000, &e, false, &m), 0);
        assert_payload(m, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
                       expected, sizeof(expected));
        nlmsg_free(m);

        /* offload adds TC_ETF_OFFLOAD_ON (bit 1): flags 7 */
        assert_int_equal(qdisc_etf_request(3, 0x01000000, 0x01020000, &e, true, &m), 0);
        o = qdisc_request_options(m);
        assert_non_null(o);
        assert_int_equal(((uint8_t *) nla_data(o))[12], 0x07);
        nlmsg_free(m);

        /* a handle with a minor, or an unresolved offload, is refused */
        assert_int_equal(qdisc_etf_request(3, 0x01000000, 0x01020001, &e, true, &m), -EINVAL);
}

/* Checked against strace -xx of `tc qdisc replace dev va parent 100:1
 * handle 101: cbs idleslope 20000 sendslope -980000 hicredit 30 locredit
 * -1470` in the test kernel: the same TCA_OPTIONS bytes (no NLA_F_NESTED,
 * struct tc_cbs_qopt in the kernel's field order). */
static void test_cbs_request(void **state) {
        static const uint8_t expected[] = {
                TCMSG(3, 0x01010000, 0x01000001),                           /* 101: on 100:1 */
                0x08, 0x00, 0x01, 0x00, 'c', 'b', 's', 0x00,                 /* TCA_KIND */
                0x1c, 0x00, 0x02, 0x00,                                      /* TCA_OPTIONS (nest, no flag) */
                0x18, 0x00, 0x01, 0x00,                                      /* TCA_CBS_PARMS */
                0x00, 0x00, 0x00, 0x00,                                      /* offload 0, pad */
                0x1e, 0x00, 0x00, 0x00,                                      /* hicredit 30 */
                0x42, 0xfa, 0xff, 0xff,                                      /* locredit -1470 */
                0x20, 0x4e, 0x00, 0x00,                                      /* idleslope 20000 */
                0xe0, 0x0b, 0xf1, 0xff,                                      /* sendslope -980000 */
        };
        EtfSpec e = {
                .queue = 0, .kind = TXQ_CBS, .offload = OFFLOAD_AUTO,
                .cbs = { .idle_slope_kbps = 20000, .send_slope_kbps = -980000,
                         .hi_credit_bytes = 30, .lo_credit_bytes = -1470 },
        };
        struct nl_msg *m = NULL;
        struct nlattr *o;
        EtfSpec back;

        assert_int_equal(qdisc_etf_request(3, 0x01000000, 0x01010000, &e, false, &m), 0);
        assert_payload(m, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, expected, sizeof(expected));
        nlmsg_free(m);

        /* offload sets the first byte; the options parse back to the spec */
        assert_int_equal(qdisc_etf_request(3, 0x01000000, 0x01010000, &e, true, &m), 0);
        o = qdisc_request_options(m);
        assert_non_null(o);
        assert_int_equal(((uint8_t *) nla_data(o))[4], 0x01);
        assert_int_equal(qdisc_cbs_vtable.parse_options(o, &back), 0);
        back.queue = 0;
        e.offload = OFFLOAD_ON;
        assert_true(qdisc_cbs_vtable.equal(&back, &e));
        e.cbs.hi_credit_bytes = 31;
        assert_false(qdisc_cbs_vtable.equal(&back, &e));
        nlmsg_free(m);

        /* an unresolved offload, or an etf spec, is refused by the cbs encoder */
        e.offload = OFFLOAD_AUTO;
        m = nlmsg_alloc();
        assert_int_equal(qdisc_cbs_vtable.fill_options(m, &e), -EINVAL);
        e.kind = TXQ_ETF;
        e.offload = OFFLOAD_OFF;
        assert_int_equal(qdisc_cbs_vtable.fill_options(m, &e), -EINVAL);
        nlmsg_free(m);
        assert_ptr_equal(qdisc_vtable_by_kind("cbs"), &qdisc_cbs_vtable);
        assert_ptr_equal(qdisc_vtable_for_child(TXQ_CBS), &qdisc_cbs_vtable);
        assert_ptr_equal(qdisc_vtable_for_child(TXQ_ETF), &qdisc_etf_vtable);
        assert_null(qdisc_vtable_for_child(_TXQ_KIND_MAX));
}

static const uint8_t taprio_options_expected[] = {
        0xd8, 0x00, 0x02, 0x80,                                              /* TCA_OPTIONS | NLA_F_NESTED */
        0x08, 0x00, 0x05, 0x00, 0x0b, 0x00, 0x00, 0x00,                      /* SCHED_CLOCKID 11 */
        0x08, 0x00, 0x0a, 0x00, 0x01, 0x00, 0x00, 0x00,                      /* FLAGS txtime-assist */
        0x56, 0x00, 0x01, 0x00, QOPT_3TC(0x00), 0x00, 0x00,                  /* PRIOMAP (86, padded) */
        0x08, 0x00, 0x0b, 0x00, 0x40, 0x0d, 0x03, 0x00,                      /* TXTIME_DELAY 200000 */
        0x0c, 0x00, 0x03, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* BASE_TIME 1000 */
        0x58, 0x00, 0x02, 0x80,                                              /* ENTRY_LIST | NLA_F_NESTED */
        0x1c, 0x00, 0x01, 0x00,                                              /* SCHED_ENTRY */
        0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,                      /*   CMD set-gates */
        0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,                      /*   GATE_MASK 0x1 */
        0x08, 0x00, 0x04, 0x00, 0xe0, 0x93, 0x04, 0x00,                      /*   INTERVAL 300000 */
        0x1c, 0x00, 0x01, 0x00,
        0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x04, 0x00, 0xe0, 0x93, 0x04, 0x00,
        0x1c, 0x00, 0x01, 0x00,
        0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00,
        0x08, 0x00, 0x04, 0x00, 0x80, 0x1a, 0x06, 0x00,                      /*   INTERVAL 400000 */
};

static void test_taprio_request(void **state) {
        static const uint8_t head[] = {
                TCMSG(3, 0x01000000, 0xffffffff),
                0x0b, 0x00, 0x01, 0x00, 't', 'a', 'p', 'r', 'i', 'o', 0x00, 0x00,
        };
        uint8_t expected[sizeof(head) + sizeof(taprio_options_expected)];
        RootSpec r = taprio_root();
        struct nl_msg *m = NULL;

        memcpy(expected, head, sizeof(head));
        memcpy(expected + sizeof(head), taprio_options_expected, sizeof(taprio_options_expected));
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_payload(m, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE,
                       expected, sizeof(expected));
        nlmsg_free(m);
}

/* Requests are sized to what they carry (not a page each): a long gate
 * list still fits, and parses back entry by entry. */
static void test_taprio_long_gate_list(void **state) {
        enum { N = 2000 };
        GateEntry *e = calloc(N, sizeof(GateEntry));
        RootSpec r = taprio_root(), back = {};
        struct nl_msg *m = NULL;

        assert_non_null(e);
        for (size_t i = 0; i < N; i++)
                e[i] = (GateEntry) { GATE_SET_GATES, (uint32_t) (1u << (i % 3)), 1000 + (uint32_t) i };
        r.taprio.entries = e;
        r.taprio.n_entries = N;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_int_equal(qdisc_taprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        assert_int_equal(back.taprio.n_entries, N);
        assert_int_equal(back.taprio.entries[N - 1].interval_ns, 1000 + N - 1);
        assert_int_equal(back.taprio.entries[N - 1].gate_mask, 1u << ((N - 1) % 3));
        back.handle = r.handle;
        assert_true(qdisc_taprio_vtable.equal(&r, &back));
        nlmsg_free(m);
        root_spec_done(&back);
        free(e);
}

/* nla_len is 16 bits: the gate list grows up to the largest TCA_OPTIONS
 * nest that fits, and one entry more is refused (-EMSGSIZE, nothing built)
 * instead of libnl cutting the list off the request. */
static void test_taprio_gate_list_limit(void **state) {
        enum { MAX = 2400 };
        GateEntry *e = calloc(MAX, sizeof(GateEntry));
        RootSpec r = taprio_root(), back = {};
        struct nl_msg *m = NULL, *m2 = NULL;
        struct nlattr *opts;
        size_t n;
        int k;

        assert_non_null(e);
        for (size_t i = 0; i < MAX; i++)
                e[i] = (GateEntry) { GATE_SET_GATES, 1, 100000 };
        r.taprio.entries = e;
        for (n = MAX; n > 0; n--) {
                r.taprio.n_entries = n;
                k = qdisc_root_request(3, &r, &m);
                if (k == 0)
                        break;
                assert_int_equal(k, -EMSGSIZE);
                assert_null(m);
        }
        /* An entry is 28 bytes: 4 of nest header, 8 for the command, 8 for
         * the mask, 8 for the interval. The request stops at what one send
         * on a libnl socket takes. */
        assert_true(nlmsg_hdr(m)->nlmsg_len <= QDISC_REQUEST_MAX);
        assert_true(nlmsg_hdr(m)->nlmsg_len + 28 > QDISC_REQUEST_MAX);
        assert_true(n > 2300 && n < MAX);
        /* The request holds the whole list: it parses back entry by entry. */
        opts = qdisc_request_options(m);
        assert_non_null(opts);
        assert_ptr_equal((uint8_t *) opts + NLA_ALIGN(nla_len(opts) + NLA_HDRLEN),
                         (uint8_t *) nlmsg_hdr(m) + nlmsg_hdr(m)->nlmsg_len);
        assert_int_equal(qdisc_taprio_vtable.parse_options(opts, &back), 0);
        assert_int_equal(back.taprio.n_entries, n);
        nlmsg_free(m);
        root_spec_done(&back);

        /* The nests themselves, in a message with room to spare: the
         * largest list whose TCA_OPTIONS fits 65535 bytes is built whole,
         * one entry more is refused, not sent without its list. */
        for (n = MAX; n > 0; n--) {
                m = nlmsg_alloc_size(4 * UINT16_MAX);
                assert_non_null(m);
                r.taprio.n_entries = n;
                k = qdisc_taprio_vtable.fill_options(m, &r);
                if (k == 0)
                        break;
                assert_int_equal(k, -EMSGSIZE);
                nlmsg_free(m);
        }
        opts = nlmsg_find_attr(nlmsg_hdr(m), 0, TCA_OPTIONS);
        assert_non_null(opts);
        assert_true(nla_len(opts) + NLA_HDRLEN <= UINT16_MAX);
        assert_true(nla_len(opts) + NLA_HDRLEN + 28 > UINT16_MAX);
        assert_int_equal(qdisc_taprio_vtable.parse_options(opts, &back), 0);
        assert_int_equal(back.taprio.n_entries, n);
        nlmsg_free(m);
        root_spec_done(&back);

        r.taprio.n_entries = n + 1;
        assert_int_equal(qdisc_root_request(3, &r, &m2), -EMSGSIZE);
        assert_null(m2);
        free(e);
}

static void test_taprio_round_trip(void **state) {
        RootSpec r = taprio_root(), back = {};
        struct nl_msg *m = NULL;

        r.taprio.cycle_time_ns = 2000000;
        r.taprio.cycle_time_extension_ns = 1000;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_int_equal(qdisc_taprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        back.handle = r.handle;
        assert_true(qdisc_taprio_vtable.equal(&r, &back));
        assert_int_equal(back.taprio.cycle_time_ns, 2000000);
        assert_int_equal(back.taprio.txtime_delay_ns, 200000);
        back.taprio.entries[1].gate_mask = 0x3;
        assert_false(qdisc_taprio_vtable.equal(&r, &back));
        root_spec_done(&back);
        nlmsg_free(m);
}

/* root.fp (frame preemption per traffic class, Linux 6.4), against
 * iproute2 6.15 as the oracle: the payloads below (after struct nlmsghdr,
 * whose NLM_F_* flags differ: tc add sends CREATE|EXCL) were captured with
 * `strace -f -xx -s 4096 -e trace=sendmsg tc qdisc add dev va root handle
 * 100: ...` in the Linux 6.12 guest (tests/kernel/qemu-run-612, veth va
 * with 4 TX queues, ifindex 3), and pasted as strace printed them. */
/* tc qdisc add ... handle 100: mqprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 1 fp E P E */
#define TC615_MQPRIO_FP_EPE \
        "\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff" \
        "\x00\x00\x00\x00\x0b\x00\x01\x00\x6d\x71\x70\x72\x69\x6f\x00\x00" \
        "\x94\x00\x02\x00\x03\x02\x02\x01\x00\x02\x02\x02\x02\x02\x02\x02" \
        "\x02\x02\x02\x02\x02\x01\x01\x00\x01\x00\x02\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x14\x00\x05\x80\x08\x00\x01\x00" \
        "\x00\x00\x00\x00\x08\x00\x02\x00\x01\x00\x00\x00\x14\x00\x05\x80" \
        "\x08\x00\x01\x00\x01\x00\x00\x00\x08\x00\x02\x00\x02\x00\x00\x00" \
        "\x14\x00\x05\x80\x08\x00\x01\x00\x02\x00\x00\x00\x08\x00\x02\x00" \
        "\x01\x00\x00\x00"

/* tc qdisc add ... handle 100: taprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 base-time 1000 sched-entry S 01 300000 sched-entry S 06 700000 fp E P E clockid CLOCK_TAI */
#define TC615_TAPRIO_FP_EPE \
        "\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff" \
        "\x00\x00\x00\x00\x0b\x00\x01\x00\x74\x61\x70\x72\x69\x6f\x00\x00" \
        "\xe8\x00\x02\x00\x08\x00\x05\x00\x0b\x00\x00\x00\x56\x00\x01\x00" \
        "\x03\x02\x02\x01\x00\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02" \
        "\x02\x00\x01\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x0c\x00\x03\x00\xe8\x03\x00\x00\x00\x00\x00\x00" \
        "\x14\x00\x0c\x80\x08\x00\x01\x00\x00\x00\x00\x00\x08\x00\x03\x00" \
        "\x01\x00\x00\x00\x14\x00\x0c\x80\x08\x00\x01\x00\x01\x00\x00\x00" \
        "\x08\x00\x03\x00\x02\x00\x00\x00\x14\x00\x0c\x80\x08\x00\x01\x00" \
        "\x02\x00\x00\x00\x08\x00\x03\x00\x01\x00\x00\x00\x3c\x00\x02\x80" \
        "\x1c\x00\x01\x00\x05\x00\x02\x00\x00\x00\x00\x00\x08\x00\x03\x00" \
        "\x01\x00\x00\x00\x08\x00\x04\x00\xe0\x93\x04\x00\x1c\x00\x01\x00" \
        "\x05\x00\x02\x00\x00\x00\x00\x00\x08\x00\x03\x00\x06\x00\x00\x00" \
        "\x08\x00\x04\x00\x60\xae\x0a\x00"

/* tc qdisc add ... handle 100: taprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 base-time 1000 sched-entry S 01 300000 sched-entry S 06 700000 max-sdu 0 1500 512 fp E E E clockid CLOCK_TAI */
#define TC615_TAPRIO_SDU_FP_EEE \
        "\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff" \
        "\x00\x00\x00\x00\x0b\x00\x01\x00\x74\x61\x70\x72\x69\x6f\x00\x00" \
        "\x00\x01\x02\x00\x08\x00\x05\x00\x0b\x00\x00\x00\x56\x00\x01\x00" \
        "\x03\x02\x02\x01\x00\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02" \
        "\x02\x00\x01\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x01\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" \
        "\x00\x00\x00\x00\x0c\x00\x03\x00\xe8\x03\x00\x00\x00\x00\x00\x00" \
        "\x1c\x00\x0c\x80\x08\x00\x01\x00\x00\x00\x00\x00\x08\x00\x02\x00" \
        "\x00\x00\x00\x00\x08\x00\x03\x00\x01\x00\x00\x00\x1c\x00\x0c\x80" \
        "\x08\x00\x01\x00\x01\x00\x00\x00\x08\x00\x02\x00\xdc\x05\x00\x00" \
        "\x08\x00\x03\x00\x01\x00\x00\x00\x1c\x00\x0c\x80\x08\x00\x01\x00" \
        "\x02\x00\x00\x00\x08\x00\x02\x00\x00\x02\x00\x00\x08\x00\x03\x00" \
        "\x01\x00\x00\x00\x3c\x00\x02\x80\x1c\x00\x01\x00\x05\x00\x02\x00" \
        "\x00\x00\x00\x00\x08\x00\x03\x00\x01\x00\x00\x00\x08\x00\x04\x00" \
        "\xe0\x93\x04\x00\x1c\x00\x01\x00\x05\x00\x02\x00\x00\x00\x00\x00" \
        "\x08\x00\x03\x00\x06\x00\x00\x00\x08\x00\x04\x00\x60\xae\x0a\x00"

/* Two differences from iproute2 6.15 that tbsd's taprio requests had
 * before fp (their bytes match iproute2 6.1's): 6.15 sends no
 * TCA_TAPRIO_ATTR_FLAGS for a software taprio (also with `flags 0x0`),
 * tbsd sends flags 0 after the clock id (the kernel reads a missing one as
 * 0); and 6.15 no longer marks TCA_OPTIONS NLA_F_NESTED (sch_taprio.c
 * parses it either way). The oracle's payload with both applied:
 * TCA_OPTIONS (at 32) 8 bytes longer and flagged, the attribute after
 * TCMSG, TCA_KIND, the options header and the clock id. Everything else,
 * the TC entries included, is compared byte for byte. */
static size_t tc_taprio_with_flags0(const char *tc, size_t len, uint8_t *ret, size_t size) {
        static const uint8_t flags0[] = { 0x08, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00 };
        const size_t at = 20 + 12 + 4 + 8;
        uint16_t olen;

        assert_true(len + sizeof(flags0) <= size);
        memcpy(ret, tc, at);
        memcpy(ret + at, flags0, sizeof(flags0));
        memcpy(ret + at + sizeof(flags0), tc + at, len - at);
        memcpy(&olen, ret + 32, sizeof(olen));
        olen += sizeof(flags0);
        memcpy(ret + 32, &olen, sizeof(olen));
        ret[35] |= NLA_F_NESTED >> 8;
        return len + sizeof(flags0);
}

static void assert_tc_payload(struct nl_msg *m, const char *expected, size_t len) {
        struct nlmsghdr *h = nlmsg_hdr(m);

        assert_int_equal(h->nlmsg_type, RTM_NEWQDISC);
        assert_int_equal(h->nlmsg_flags, NLM_F_CREATE | NLM_F_REPLACE);
        assert_int_equal(h->nlmsg_len, NLMSG_HDRLEN + len);
        assert_memory_equal(nlmsg_data(h), expected, len);
}

static GateEntry fp_entries[] = {
        { GATE_SET_GATES, 0x1, 300000 },
        { GATE_SET_GATES, 0x6, 700000 },
};

static RootSpec taprio_fp_root(void) {
        RootSpec r = taprio_root();

        r.taprio.mode = TAPRIO_MODE_SOFTWARE;
        r.taprio.txtime_delay_ns = 0;
        r.taprio.entries = fp_entries;
        r.taprio.n_entries = ELEMENTSOF(fp_entries);
        return r;
}

static void set_fp(RootSpec *r, uint8_t tc0, uint8_t tc1, uint8_t tc2) {
        r->fp_given = true;
        r->n_fp = 3;
        r->fp[0] = tc0;
        r->fp[1] = tc1;
        r->fp[2] = tc2;
}

/* mqprio with fp is built without libnl-route: iproute2's bytes exactly
 * (TCA_OPTIONS without NLA_F_NESTED, TC entries with it); it parses back
 * with the fp the kernel would dump. */
static void test_mqprio_fp_request(void **state) {
        static const char expected[] = TC615_MQPRIO_FP_EPE;
        RootSpec r = mqprio_root, back = {};
        struct nl_msg *m = NULL;

        r.mqprio.hw_offload = true;
        set_fp(&r, TBS_FP_EXPRESS, TBS_FP_PREEMPTIBLE, TBS_FP_EXPRESS);
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_tc_payload(m, expected, sizeof(expected) - 1);
        assert_int_equal(qdisc_mqprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        assert_true(back.fp_dumped);
        assert_int_equal(back.fp[1], TBS_FP_PREEMPTIBLE);
        back.handle = r.handle;
        assert_true(qdisc_mqprio_vtable.equal(&r, &back));
        back.fp[1] = TBS_FP_EXPRESS;
        assert_false(qdisc_mqprio_vtable.equal(&r, &back));
        assert_null(qdisc_mqprio_vtable.unexpressed(qdisc_request_options(m)));
        nlmsg_free(m);

        /* without fp: libnl-route's request, no TC entries (test_mqprio_request) */
        r.fp_given = false;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_int_equal(nlmsg_hdr(m)->nlmsg_len, NLMSG_HDRLEN + 20 + 12 + 88);
        nlmsg_free(m);
}

/* r's request is tc's (with tbsd's two old differences) and parses back
 * equal, with the fp (and max SDU) the kernel would dump. */
static void assert_taprio_as_tc(const RootSpec *r, const char *tc, size_t tc_len) {
        uint8_t expected[512];
        size_t n = tc_taprio_with_flags0(tc, tc_len, expected, sizeof(expected));
        RootSpec back = {};
        struct nl_msg *m = NULL;

        assert_int_equal(qdisc_root_request(3, r, &m), 0);
        assert_tc_payload(m, (const char *) expected, n);
        assert_int_equal(qdisc_taprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        assert_true(back.fp_dumped);
        assert_memory_equal(back.fp, r->fp, 3);
        assert_memory_equal(back.taprio.max_sdu, r->taprio.max_sdu, sizeof(back.taprio.max_sdu));
        back.handle = r->handle;
        assert_true(qdisc_taprio_vtable.equal(r, &back));
        assert_null(qdisc_taprio_vtable.unexpressed(qdisc_request_options(m)));
        root_spec_done(&back);
        nlmsg_free(m);
}

static void test_taprio_fp_request(void **state) {
        static const char tc[] = TC615_TAPRIO_FP_EPE;
        RootSpec r = taprio_fp_root();

        set_fp(&r, TBS_FP_EXPRESS, TBS_FP_PREEMPTIBLE, TBS_FP_EXPRESS);
        assert_taprio_as_tc(&r, tc, sizeof(tc) - 1);
}

/* max SDU and fp in the same entries: index, max SDU, fp */
static void test_taprio_max_sdu_fp_request(void **state) {
        static const char tc[] = TC615_TAPRIO_SDU_FP_EEE;
        RootSpec r = taprio_fp_root();

        r.taprio.max_sdu_given = true;
        r.taprio.max_sdu[1] = 1500;
        r.taprio.max_sdu[2] = 512;
        set_fp(&r, TBS_FP_EXPRESS, TBS_FP_EXPRESS, TBS_FP_EXPRESS);
        assert_taprio_as_tc(&r, tc, sizeof(tc) - 1);
}

/* A dump without fp (Linux 6.1: its taprio's entries hold no fp) is not a
 * schedule with fp, even all express; a schedule without fp compares as
 * before. */
static void test_fp_equal_needs_kernel(void **state) {
        RootSpec r = taprio_fp_root(), back = {};
        struct nl_msg *m = NULL;

        r.taprio.max_sdu_given = true;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_int_equal(qdisc_taprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        assert_true(back.taprio.max_sdu_dumped);
        assert_false(back.fp_dumped);
        back.handle = r.handle;
        assert_true(qdisc_taprio_vtable.equal(&r, &back));
        set_fp(&r, TBS_FP_EXPRESS, TBS_FP_EXPRESS, TBS_FP_EXPRESS);
        assert_false(qdisc_taprio_vtable.equal(&r, &back));
        back.fp_dumped = true;          /* 6.4+: zeros never dumped, but 1s read the same */
        assert_true(qdisc_taprio_vtable.equal(&r, &back));
        root_spec_done(&back);
        nlmsg_free(m);
}

/* root.max_sdu: one TCA_TAPRIO_ATTR_TC_ENTRY nest per traffic class (index,
 * max SDU), after the times and before the gate list; an in-place change
 * is RTM_NEWQDISC with NLM_F_REPLACE alone on the root's own handle. */
static void test_taprio_change_max_sdu(void **state) {
        static const uint8_t head[] = {
                TCMSG(3, 0x01000000, 0xffffffff),
                0x0b, 0x00, 0x01, 0x00, 't', 'a', 'p', 'r', 'i', 'o', 0x00, 0x00,
                0x14, 0x01, 0x02, 0x80,                                      /* TCA_OPTIONS, 0xd8 + 3 * 20 */
        };
        static const uint8_t tc_entries[] = {
                0x14, 0x00, 0x0c, 0x80,                                      /* TC_ENTRY | NLA_F_NESTED */
                0x08, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,              /*   INDEX 0 */
                0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00,              /*   MAX_SDU 0 */
                0x14, 0x00, 0x0c, 0x80,
                0x08, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00,              /*   INDEX 1 */
                0x08, 0x00, 0x02, 0x00, 0xdc, 0x05, 0x00, 0x00,              /*   MAX_SDU 1500 */
                0x14, 0x00, 0x0c, 0x80,
                0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,              /*   INDEX 2 */
                0x08, 0x00, 0x02, 0x00, 0x00, 0x02, 0x00, 0x00,              /*   MAX_SDU 512 */
        };
        enum { BEFORE_LIST = 128 };     /* clockid, flags, priomap, delay, base time */
        uint8_t expected[sizeof(head) + sizeof(taprio_options_expected) - 4 + sizeof(tc_entries)];
        RootSpec r = taprio_root(), back = {};
        struct nl_msg *m = NULL;
        size_t at = 0;

        memcpy(expected, head, sizeof(head));
        at += sizeof(head);
        memcpy(expected + at, taprio_options_expected + 4, BEFORE_LIST - 4);
        at += BEFORE_LIST - 4;
        memcpy(expected + at, tc_entries, sizeof(tc_entries));
        at += sizeof(tc_entries);
        memcpy(expected + at, taprio_options_expected + BEFORE_LIST, sizeof(taprio_options_expected) - BEFORE_LIST);

        r.taprio.max_sdu_given = true;
        r.taprio.max_sdu[1] = 1500;
        r.taprio.max_sdu[2] = 512;
        assert_int_equal(qdisc_root_change_request(3, &r, &m), 0);
        assert_payload(m, RTM_NEWQDISC, NLM_F_REPLACE, expected, sizeof(expected));

        /* and back: the classes in use, compared */
        assert_int_equal(qdisc_taprio_vtable.parse_options(qdisc_request_options(m), &back), 0);
        assert_true(back.taprio.max_sdu_dumped);
        assert_int_equal(back.taprio.max_sdu[1], 1500);
        assert_int_equal(back.taprio.max_sdu[2], 512);
        back.handle = r.handle;
        assert_true(qdisc_taprio_vtable.equal(&r, &back));
        back.taprio.max_sdu[2] = 0;
        assert_false(qdisc_taprio_vtable.equal(&r, &back));
        root_spec_done(&back);
        nlmsg_free(m);

        /* not asked for: no TC entries (what tc sends without max-sdu) */
        r.taprio.max_sdu_given = false;
        assert_int_equal(qdisc_root_request(3, &r, &m), 0);
        assert_int_equal(nlmsg_hdr(m)->nlmsg_len, NLMSG_HDRLEN + 20 + 12 + sizeof(taprio_options_expected));
        nlmsg_free(m);

        /* mqprio cannot be changed in place */
        r = mqprio_root;
        assert_int_equal(qdisc_root_change_request(3, &r, &m), -EOPNOTSUPP);
}

static void put_schedule(struct nl_msg *m, int64_t base, int64_t cycle, const uint32_t *intervals, size_t n) {
        struct nlattr *list;

        assert_int_equal(nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_BASE_TIME, base), 0);
        assert_int_equal(nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME, cycle), 0);
        assert_int_equal(nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME_EXTENSION, 0), 0);
        list = nla_nest_start(m, TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST);
        for (size_t i = 0; i < n; i++) {
                struct nlattr *e = nla_nest_start(m, TCA_TAPRIO_SCHED_ENTRY);

                assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_INDEX, (uint32_t) i), 0);
                assert_int_equal(nla_put_u8(m, TCA_TAPRIO_SCHED_ENTRY_CMD, 0), 0);
                assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_GATE_MASK, 1u << i), 0);
                assert_int_equal(nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_INTERVAL, intervals[i]), 0);
                nla_nest_end(m, e);
        }
        nla_nest_end(m, list);
}

/* A dump while a change is pending, laid out as Linux 6.1's taprio_dump()
 * writes it: PRIOMAP, CLOCKID, 16 TC entries, the oper schedule at the top
 * level, the admin one in TCA_TAPRIO_ATTR_ADMIN_SCHED. The newest (admin)
 * is the RootSpec's own, the running one goes to oper. A dump of a kernel
 * without TC entries says so (max_sdu_dumped false). */
static void test_parse_taprio_admin_dump(void **state) {
        static const uint32_t oper_iv[] = { 300000, 700000 }, admin_iv[] = { 400000, 600000 };
        uint8_t qopt[sizeof(struct tc_mqprio_qopt)];
        RootSpec want = taprio_root(), r = {};
        struct nlattr *opts, *admin;
        struct nl_msg *m;

        for (int with_tc = 1; with_tc >= 0; with_tc--) {
                m = nlmsg_alloc_size(8192);
                assert_non_null(m);
                opts = nla_nest_start(m, TCA_OPTIONS);
                qdisc_qopt_from_root(&want, qopt);
                assert_int_equal(nla_put(m, TCA_TAPRIO_ATTR_PRIOMAP, sizeof(qopt), qopt), 0);
                assert_int_equal(nla_put_s32(m, TCA_TAPRIO_ATTR_SCHED_CLOCKID, CLOCK_TAI), 0);
                for (uint32_t tc = 0; with_tc && tc < 16; tc++) {
                        struct nlattr *t = nla_nest_start(m, TCA_TAPRIO_ATTR_TC_ENTRY);

                        assert_int_equal(nla_put_u32(m, TCA_TAPRIO_TC_ENTRY_INDEX, tc), 0);
                        assert_int_equal(nla_put_u32(m, TCA_TAPRIO_TC_ENTRY_MAX_SDU, tc == 2 ? 900 : 0), 0);
                        nla_nest_end(m, t);
                }
                put_schedule(m, 1000, 1000000, oper_iv, 2);
                admin = nla_nest_start(m, TCA_TAPRIO_ATTR_ADMIN_SCHED);
                put_schedule(m, 5000001000, 1000000, admin_iv, 2);
                nla_nest_end(m, admin);
                nla_nest_end(m, opts);

                assert_int_equal(qdisc_taprio_vtable.parse_options(opts, &r), 0);
                assert_true(r.taprio.admin_pending);
                assert_int_equal(r.taprio.base_time_ns, 5000001000);
                assert_int_equal(r.taprio.n_entries, 2);
                assert_int_equal(r.taprio.entries[0].interval_ns, 400000);
                assert_int_equal(r.taprio.entries[1].gate_mask, 0x2);
                assert_int_equal(r.taprio.oper.base_time_ns, 1000);
                assert_int_equal(r.taprio.oper.cycle_time_ns, 1000000);
                assert_int_equal(r.taprio.oper.n_entries, 2);
                assert_int_equal(r.taprio.oper.entries[0].interval_ns, 300000);
                assert_int_equal(r.taprio.max_sdu_dumped, with_tc);
                assert_int_equal(r.taprio.max_sdu[2], with_tc ? 900 : 0);
                assert_int_equal(r.taprio.mode, TAPRIO_MODE_SOFTWARE);
                root_spec_done(&r);
                nlmsg_free(m);
        }
}

/* Recorded in the test kernel while a change was pending
 * (fixtures/qdisc/README, taprio-admin.tc.json): the admin schedule is the
 * RootSpec's own, the running one its oper; the max SDUs as set. */
static void test_parse_taprio_admin_recorded(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        size_t len;

        buf = read_fixture(FIXTURES "taprio-admin.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);
        assert_true(t.root_known);
        assert_int_equal(t.root_spec.kind, ROOT_TAPRIO);
        assert_true(t.root_spec.taprio.admin_pending);
        assert_int_equal(t.root_spec.taprio.base_time_ns, 1796398211245000000);
        assert_int_equal(t.root_spec.taprio.cycle_time_ns, 1100000);
        assert_int_equal(t.root_spec.taprio.n_entries, 3);
        assert_int_equal(t.root_spec.taprio.entries[2].interval_ns, 500000);
        assert_int_equal(t.root_spec.taprio.oper.base_time_ns, 0);
        assert_int_equal(t.root_spec.taprio.oper.cycle_time_ns, 1000000);
        assert_int_equal(t.root_spec.taprio.oper.n_entries, 3);
        assert_int_equal(t.root_spec.taprio.oper.entries[2].interval_ns, 400000);
        assert_int_equal(t.root_spec.taprio.oper.entries[2].gate_mask, 0x4);
        /* tbsd put the admin base time on a cycle start of the running one */
        assert_int_equal(t.root_spec.taprio.base_time_ns % t.root_spec.taprio.oper.cycle_time_ns, 0);
        assert_true(t.root_spec.taprio.max_sdu_dumped);
        assert_int_equal(t.root_spec.taprio.max_sdu[0], 0);
        assert_int_equal(t.root_spec.taprio.max_sdu[1], 1000);
        assert_int_equal(t.root_spec.taprio.max_sdu[2], 300);
        assert_int_equal(t.root_spec.taprio.mode, TAPRIO_MODE_SOFTWARE);
        assert_non_null(qdisc_tree_find_queue(&t, 0));
        assert_true(qdisc_tree_find_queue(&t, 0)->is_etf);
        qdisc_tree_done(&t);
}

/* Recorded in the test kernel: mqprio 100: with cbs 101: on 100:1
 * (idleslope 20000 sendslope -980000 hicredit 30 locredit -1470) and cbs
 * 102: on 100:2 (idleslope 98688 sendslope -901312 hicredit 153 locredit
 * -1390 offload 0); each cbs has its own pfifo (handle 0:, parent the
 * cbs), which is no queue of the root. Expected values are what tc -j -s
 * reported (mqprio-cbs.tc.json). */
static void test_parse_cbs_dump(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        const InstalledQueue *q;
        size_t len;

        buf = read_fixture(FIXTURES "mqprio-cbs.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);
        assert_true(t.root_known);
        assert_true(root_spec_equal(&t.root_spec, &mqprio_root));
        assert_int_equal(t.n_queues, 4);

        q = qdisc_tree_find_queue(&t, 0);
        assert_non_null(q);
        assert_true(q->is_cbs);
        assert_false(q->is_etf);
        assert_true(installed_queue_is_declarable(q));
        assert_int_equal(q->qdisc.handle, 0x01010000);
        assert_int_equal(q->etf.kind, TXQ_CBS);
        assert_int_equal(q->etf.queue, 0);
        assert_int_equal(q->etf.offload, OFFLOAD_OFF);
        assert_int_equal(q->etf.cbs.idle_slope_kbps, 20000);
        assert_int_equal(q->etf.cbs.send_slope_kbps, -980000);
        assert_int_equal(q->etf.cbs.hi_credit_bytes, 30);
        assert_int_equal(q->etf.cbs.lo_credit_bytes, -1470);

        q = qdisc_tree_find_queue(&t, 1);
        assert_non_null(q);
        assert_true(q->is_cbs);
        assert_int_equal(q->qdisc.handle, 0x01020000);
        /* what a schedule declares (from 98688 kbit/s, see test-schedule-cbs.c)
         * equals what the kernel reports */
        assert_true(etf_spec_equal(&q->etf, &(EtfSpec) {
                .queue = 1, .kind = TXQ_CBS, .offload = OFFLOAD_OFF,
                .cbs = { .idle_slope_kbps = 98688, .send_slope_kbps = -901312,
                         .hi_credit_bytes = 153, .lo_credit_bytes = -1390 } }));
        assert_false(etf_spec_equal(&q->etf, &(EtfSpec) {
                .queue = 1, .kind = TXQ_ETF, .offload = OFFLOAD_OFF }));

        q = qdisc_tree_find_queue(&t, 2);
        assert_non_null(q);
        assert_false(installed_queue_is_declarable(q));
        assert_string_equal(q->qdisc.kind, "pfifo_fast");
        qdisc_tree_done(&t);
}

/* Recorded in Linux 6.12 (tests/kernel/qemu-run-612, README): a software
 * taprio with max-sdu 0 1500 0 and fp E E E (taprio-fp-612.bin), and an
 * mqprio hw 0 without fp (mqprio-612.bin). 6.12 dumps TC entries with fp
 * for all 16 classes in both (the .tc.json files: "fp": ["E", ...]). */
static void test_parse_612_fp_dumps(void **state) {
        _cleanup_(qdisc_tree_done) QDiscTree t = {}, u = {};
        RootSpec want = taprio_fp_root(), mq = mqprio_root;

        load_fixture_tree("taprio-fp-612.bin", &t);
        assert_true(t.root_known);
        assert_int_equal(t.root_spec.kind, ROOT_TAPRIO);
        assert_true(t.root_spec.taprio.max_sdu_dumped);
        assert_true(t.root_spec.fp_dumped);
        assert_int_equal(t.root_spec.taprio.max_sdu[1], 1500);
        for (unsigned tc = 0; tc < TBS_MAX_TC; tc++)
                assert_int_equal(t.root_spec.fp[tc], TBS_FP_EXPRESS);
        want.taprio.cycle_time_ns = 1000000;
        want.taprio.max_sdu_given = true;
        want.taprio.max_sdu[1] = 1500;
        assert_true(qdisc_taprio_vtable.equal(&want, &t.root_spec));        /* no fp given */
        set_fp(&want, TBS_FP_EXPRESS, TBS_FP_EXPRESS, TBS_FP_EXPRESS);
        assert_true(qdisc_taprio_vtable.equal(&want, &t.root_spec));
        want.fp[2] = TBS_FP_PREEMPTIBLE;
        assert_false(qdisc_taprio_vtable.equal(&want, &t.root_spec));

        load_fixture_tree("mqprio-612.bin", &u);
        assert_true(u.root_known);
        assert_int_equal(u.root_spec.kind, ROOT_MQPRIO);
        assert_true(u.root_spec.fp_dumped);
        assert_int_equal(u.root_spec.fp[15], TBS_FP_EXPRESS);
        assert_true(root_spec_equal(&mq, &u.root_spec));
        set_fp(&mq, TBS_FP_EXPRESS, TBS_FP_EXPRESS, TBS_FP_EXPRESS);
        assert_true(root_spec_equal(&mq, &u.root_spec));
        mq.fp[0] = TBS_FP_PREEMPTIBLE;
        assert_false(root_spec_equal(&mq, &u.root_spec));
}

/* Recorded in the test kernel: mqprio 100: with etf 101: on 100:1 (delta
 * 300000) and etf 102: on 100:2 (delta 500000, deadline_mode,
 * skip_sock_check), after 5 datagrams to queue 0 (dropped by etf: no
 * SO_TXTIME) and 7 to queue 3. Expected values are what tc -j -s reported
 * (mqprio-etf.tc.json). */
static void test_parse_mqprio_dump(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        const InstalledQueue *q;
        RootSpec want = mqprio_root;
        size_t len;

        buf = read_fixture(FIXTURES "mqprio-etf.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);

        assert_true(t.has_root);
        assert_string_equal(t.root.kind, "mqprio");
        assert_int_equal(t.root.handle, 0x01000000);
        assert_true(t.root_known);
        assert_true(root_spec_equal(&t.root_spec, &want));
        want.priority_map[15] = 1;
        assert_false(root_spec_equal(&t.root_spec, &want));
        assert_int_equal(t.root.stats.bytes, 994);
        assert_int_equal(t.root.stats.packets, 7);
        assert_int_equal(t.root.stats.drops, 5);

        assert_int_equal(t.n_queues, 4);
        for (size_t i = 0; i < t.n_queues; i++)
                assert_int_equal(t.queues[i].queue, i);

        q = qdisc_tree_find_queue(&t, 0);
        assert_non_null(q);
        assert_true(q->is_etf);
        assert_int_equal(q->qdisc.handle, 0x01010000);
        assert_int_equal(q->qdisc.parent, 0x01000001);
        assert_int_equal(q->etf.queue, 0);
        assert_int_equal(q->etf.etf.clockid, CLOCK_TAI);
        assert_int_equal(q->etf.etf.delta_ns, 300000);
        assert_int_equal(q->etf.offload, OFFLOAD_OFF);
        assert_false(q->etf.etf.deadline_mode);
        assert_false(q->etf.etf.skip_sock_check);
        assert_int_equal(q->qdisc.stats.drops, 5);
        assert_int_equal(q->qdisc.stats.overlimits, 0);
        assert_int_equal(q->invalid, 5);
        assert_int_equal(q->deadline_misses, 0);

        q = qdisc_tree_find_queue(&t, 1);
        assert_non_null(q);
        assert_true(q->is_etf);
        assert_int_equal(q->qdisc.handle, 0x01020000);
        assert_int_equal(q->etf.etf.delta_ns, 500000);
        assert_true(q->etf.etf.deadline_mode);
        assert_true(q->etf.etf.skip_sock_check);
        assert_true(etf_spec_equal(&q->etf, &(EtfSpec) {
                .queue = 1, .etf.clockid = CLOCK_TAI, .etf.delta_ns = 500000, .offload = OFFLOAD_OFF,
                .etf.deadline_mode = true, .etf.skip_sock_check = true }));

        q = qdisc_tree_find_queue(&t, 3);
        assert_non_null(q);
        assert_false(q->is_etf);
        assert_string_equal(q->qdisc.kind, "pfifo_fast");
        assert_int_equal(q->qdisc.handle, 0);
        assert_int_equal(q->qdisc.stats.bytes, 994);
        assert_int_equal(q->qdisc.stats.packets, 7);
        assert_null(qdisc_tree_find_queue(&t, 4));

        qdisc_tree_done(&t);

        /* Another interface's view of the same bytes: nothing of ours. */
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 2, &t), 0);
        assert_string_not_equal(t.root.kind, "mqprio");
        assert_int_equal(t.n_queues, 0);
        qdisc_tree_done(&t);
}

/* taprio 100: txtime-assist (tc ... base-time 1000 sched-entry S 01 300000
 * S 02 300000 S 04 400000 clockid CLOCK_TAI flags 0x1 txtime-delay 200000)
 * with etf 101: (delta 300000 skip_sock_check) on 100:1. */
static void test_parse_taprio_dump(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        RootSpec want = taprio_root();
        const InstalledQueue *q;
        size_t len;

        buf = read_fixture(FIXTURES "taprio-txtime.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);
        assert_true(t.root_known);
        assert_int_equal(t.root_spec.kind, ROOT_TAPRIO);
        assert_int_equal(t.root_spec.taprio.mode, TAPRIO_MODE_TXTIME_ASSIST);
        assert_int_equal(t.root_spec.taprio.txtime_delay_ns, 200000);
        assert_int_equal(t.root_spec.taprio.base_time_ns, 1000);
        assert_int_equal(t.root_spec.taprio.cycle_time_ns, 1000000);
        assert_int_equal(t.root_spec.taprio.n_entries, 3);
        /* the kernel reports the effective cycle time: the model's default */
        want.taprio.cycle_time_ns = 1000000;
        assert_true(qdisc_taprio_vtable.equal(&t.root_spec, &want));

        q = qdisc_tree_find_queue(&t, 0);
        assert_non_null(q);
        assert_true(q->is_etf);
        assert_true(q->etf.etf.skip_sock_check);
        assert_int_equal(q->etf.etf.delta_ns, 300000);
        q = qdisc_tree_find_queue(&t, 1);
        assert_non_null(q);
        assert_string_equal(q->qdisc.kind, "pfifo");
        qdisc_tree_done(&t);
}

static void test_parse_default_dump(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        size_t len;

        buf = read_fixture(FIXTURES "default.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);
        assert_true(t.has_root);
        assert_string_equal(t.root.kind, "noqueue");
        assert_int_equal(t.root.handle, 0);
        assert_false(t.root_known);
        assert_int_equal(t.n_queues, 0);
        qdisc_tree_done(&t);
}

/* Change the interface of every RTM_NEWQDISC message of a dump from `from` to `to`. */
static void retarget_dump(uint8_t *buf, size_t len, int from, int to) {
        struct nlmsghdr *h;
        int rem = (int) len;

        for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
                struct tcmsg *t = nlmsg_data(h);

                if (h->nlmsg_type == RTM_NEWQDISC && t->tcm_ifindex == from)
                        t->tcm_ifindex = to;
        }
}

/* One pass over a dump of several interfaces gives, for each, the tree
 * that qdisc_tree_parse_dump() gives for it alone. */
static void test_tree_set(void **state) {
        _cleanup_free_ uint8_t *a = NULL, *b = NULL, *all = NULL;
        QDiscTreeSet set = {};
        const QDiscTree *t;
        size_t la, lb;

        a = read_fixture(FIXTURES "mqprio-etf.bin", &la);
        b = read_fixture(FIXTURES "taprio-txtime.bin", &lb);
        retarget_dump(b, lb, 3, 9);
        all = malloc(la + lb);
        assert_non_null(all);
        /* taprio's interface first (the set comes out sorted anyway),
         * without its NLMSG_DONE: a raw dump has none. */
        assert_int_equal(((struct nlmsghdr *) (b + lb - NLMSG_HDRLEN - 4))->nlmsg_type, NLMSG_DONE);
        lb -= NLMSG_HDRLEN + 4;
        memcpy(all, b, lb);
        memcpy(all + lb, a, la);

        assert_int_equal(qdisc_tree_set_parse(all, la + lb, &set), 0);
        assert_true(set.n >= 2);
        for (size_t i = 1; i < set.n; i++)
                assert_true(set.trees[i - 1].ifindex < set.trees[i].ifindex);
        for (size_t i = 0; i < set.n; i++) {
                QDiscTree one = {};

                assert_int_equal(qdisc_tree_parse_dump(all, la + lb, set.trees[i].ifindex, &one), 0);
                assert_int_equal(set.trees[i].has_root, one.has_root);
                assert_string_equal(set.trees[i].root.kind, one.root.kind);
                assert_int_equal(set.trees[i].root.handle, one.root.handle);
                assert_int_equal(set.trees[i].n_queues, one.n_queues);
                assert_int_equal(set.trees[i].n_handles, one.n_handles);
                for (size_t j = 0; j < one.n_queues; j++) {
                        assert_int_equal(set.trees[i].queues[j].queue, one.queues[j].queue);
                        assert_int_equal(set.trees[i].queues[j].qdisc.handle, one.queues[j].qdisc.handle);
                        assert_int_equal(set.trees[i].queues[j].etf.etf.delta_ns, one.queues[j].etf.etf.delta_ns);
                }
                qdisc_tree_done(&one);
        }

        t = qdisc_tree_set_find(&set, 3);
        assert_non_null(t);
        assert_string_equal(t->root.kind, "mqprio");
        assert_int_equal(t->n_queues, 4);
        assert_int_equal(qdisc_tree_find_queue(t, 1)->etf.etf.delta_ns, 500000);
        t = qdisc_tree_set_find(&set, 9);
        assert_non_null(t);
        assert_string_equal(t->root.kind, "taprio");
        assert_true(t->root_known);
        assert_int_equal(t->root_spec.kind, ROOT_TAPRIO);
        assert_int_equal(qdisc_tree_find_queue(t, 0)->etf.etf.delta_ns, 300000);
        assert_null(qdisc_tree_set_find(&set, 4));
        assert_null(qdisc_tree_set_find(&set, 1000));

        /* The set's trees borrow: their option payloads point into the dump. */
        t = qdisc_tree_set_find(&set, 3);
        assert_true(t->pooled);
        assert_non_null(t->queues[0].qdisc.options);
        assert_true((const uint8_t *) t->queues[0].qdisc.options >= all &&
                    (const uint8_t *) t->queues[0].qdisc.options < all + la + lb);

        /* Taking a tree moves it out, slim (counters and parsed settings,
         * no payloads or handle list): the set keeps an empty one. */
        {
                QDiscTree taken = {};

                assert_int_equal(qdisc_tree_set_take_slim(&set, 3, &taken), 0);
                assert_false(taken.pooled);
                assert_string_equal(taken.root.kind, "mqprio");
                assert_true(taken.root_known);
                assert_int_equal(taken.n_queues, 4);
                assert_int_equal(qdisc_tree_find_queue(&taken, 1)->etf.etf.delta_ns, 500000);
                assert_null(taken.queues[0].qdisc.options);
                assert_null(taken.root.options);
                assert_null(taken.handles);
                t = qdisc_tree_set_find(&set, 3);
                assert_non_null(t);
                assert_false(t->has_root);
                assert_int_equal(t->n_queues, 0);
                assert_int_equal(qdisc_tree_set_take_slim(&set, 4, &taken), -ENOENT);
                assert_string_equal(taken.root.kind, "mqprio");
                qdisc_tree_done(&taken);

                /* taprio's parsed schedule moves with the tree */
                assert_int_equal(qdisc_tree_set_take_slim(&set, 9, &taken), 0);
                assert_int_equal(taken.root_spec.kind, ROOT_TAPRIO);
                assert_true(taken.root_known);
                t = qdisc_tree_set_find(&set, 9);
                assert_false(t->root_known);
                qdisc_tree_done(&taken);
        }
        qdisc_tree_set_done(&set);
        assert_int_equal(set.n, 0);
        assert_null(set.trees);

        /* An empty dump is an empty set; a message too short for its tcmsg
         * is malformed. */
        assert_int_equal(qdisc_tree_set_parse(all, 0, &set), 0);
        assert_int_equal(set.n, 0);
        assert_null(qdisc_tree_set_find(&set, 3));
        ((struct nlmsghdr *) all)->nlmsg_type = RTM_NEWQDISC;
        ((struct nlmsghdr *) all)->nlmsg_len = NLMSG_LENGTH(2);
        assert_int_equal(qdisc_tree_set_parse(all, NLMSG_ALIGN(NLMSG_LENGTH(2)), &set), -EBADMSG);
}

static void test_parse_bad(void **state) {
        _cleanup_free_ uint8_t *buf = NULL;
        struct nlattr *a;
        RootSpec r = {};
        EtfSpec e = {};
        QDiscTree t = {};
        size_t len;

        /* etf options whose TCA_ETF_PARMS is 4 bytes short */
        static const uint8_t etf_short[] = {
                0x10, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x01, 0x00, 0x20, 0xa1, 0x07, 0x00, 0x0b, 0x00, 0x00, 0x00,
        };
        a = (struct nlattr *) etf_short;
        assert_int_equal(qdisc_etf_vtable.parse_options(a, &e), -EBADMSG);
        assert_int_equal(qdisc_etf_vtable.parse_options(NULL, &e), -EBADMSG);
        assert_int_equal(qdisc_mqprio_vtable.parse_options(a, &r), -EBADMSG);

        /* a recorded dump cut in the middle of the mqprio message */
        buf = read_fixture(FIXTURES "mqprio-etf.bin", &len);
        {
                struct nlmsghdr *h = (struct nlmsghdr *) buf;
                int rem = (int) len;

                for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem))
                        if (h->nlmsg_type == RTM_NEWQDISC &&
                            ((struct tcmsg *) nlmsg_data(h))->tcm_parent == TC_H_ROOT &&
                            ((struct tcmsg *) nlmsg_data(h))->tcm_ifindex == 3)
                                break;
                assert_true(nlmsg_ok(h, rem));
                /* a qdisc message too short for its struct tcmsg */
                h->nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)) - 4;
                assert_int_equal(qdisc_tree_parse_dump(h, h->nlmsg_len, 3, &t), -EBADMSG);
        }
}

static void test_offload_plan(void **state) {
        EtfSpec e = { .queue = 1, .offload = OFFLOAD_AUTO };
        DeviceFacts i210 = { .tx_queues = 4, .offload_known = true, .launch_time_mask = 0x3 };
        DeviceFacts veth = { .tx_queues = 4, .offload_known = true, .offload_reason = "veth: none" };
        DeviceFacts unknown = { .tx_queues = 4 };
        EtfSpec installed = { .queue = 1, .offload = OFFLOAD_OFF };
        const char *why = NULL;

        assert_int_equal(etf_offload_plan(&e, &i210, &why), ETF_PLAN_HARDWARE);
        e.queue = 2;
        installed.queue = 2;
        assert_int_equal(etf_offload_plan(&e, &i210, &why), ETF_PLAN_SOFTWARE);
        assert_int_equal(etf_offload_plan(&e, &veth, &why), ETF_PLAN_SOFTWARE);
        assert_string_equal(why, "veth: none");
        assert_int_equal(etf_offload_plan(&e, &unknown, &why), ETF_PLAN_TRY_HARDWARE);
        assert_int_equal(etf_offload_plan(&e, NULL, &why), ETF_PLAN_TRY_HARDWARE);
        e.offload = OFFLOAD_ON;
        assert_int_equal(etf_offload_plan(&e, &veth, &why), ETF_PLAN_HARDWARE);
        e.offload = OFFLOAD_OFF;
        assert_int_equal(etf_offload_plan(&e, &i210, &why), ETF_PLAN_SOFTWARE);
        e.offload = (OffloadMode) 7;
        assert_int_equal(etf_offload_plan(&e, NULL, &why), _ETF_PLAN_INVALID);

        /* an earlier software fallback satisfies auto without facts, not offload true */
        e.offload = OFFLOAD_AUTO;
        assert_true(etf_matches_plan(&installed, &e, ETF_PLAN_TRY_HARDWARE));
        assert_false(etf_matches_plan(&installed, &e, ETF_PLAN_HARDWARE));
        assert_true(etf_matches_plan(&installed, &e, ETF_PLAN_SOFTWARE));
        installed.etf.delta_ns = 1;
        assert_false(etf_matches_plan(&installed, &e, ETF_PLAN_TRY_HARDWARE));
}

/* NLMSG_ERROR as the kernel builds it (netlink_ack(), af_netlink.c): the
 * header, struct nlmsgerr (error, the request's header), the request's
 * payload unless NLM_F_CAPPED, then the TLVs (NLM_F_ACK_TLVS). */
static size_t build_error(uint8_t *buf, bool capped, const char *msg) {
        const size_t req_payload = 24;            /* a request with 24 bytes after its header */
        struct nlmsghdr h = {
                .nlmsg_type = NLMSG_ERROR,
                .nlmsg_flags = NLM_F_ACK_TLVS | (capped ? NLM_F_CAPPED : 0),
        };
        struct nlmsgerr e = {
                .error = -EOPNOTSUPP,
                .msg = { .nlmsg_len = NLMSG_HDRLEN + req_payload, .nlmsg_type = RTM_NEWQDISC },
        };
        size_t off = NLMSG_HDRLEN, mlen = strlen(msg) + 1;
        struct nlattr a = { .nla_len = (uint16_t) (NLA_HDRLEN + mlen), .nla_type = NLMSGERR_ATTR_MSG };
        uint32_t offs = 20;
        struct nlattr o = { .nla_len = NLA_HDRLEN + 4, .nla_type = NLMSGERR_ATTR_OFFS };

        memcpy(buf + off, &e, sizeof(e));
        off += sizeof(e);
        if (!capped) {
                memset(buf + off, 0xee, req_payload);  /* the echoed request: must be skipped */
                off += req_payload;
        }
        memcpy(buf + off, &a, sizeof(a));
        memcpy(buf + off + NLA_HDRLEN, msg, mlen);
        off += NLA_ALIGN(a.nla_len);
        memcpy(buf + off, &o, sizeof(o));
        memcpy(buf + off + NLA_HDRLEN, &offs, 4);
        off += NLA_ALIGN(o.nla_len);
        h.nlmsg_len = (uint32_t) off;
        memcpy(buf, &h, sizeof(h));
        return off;
}

static void test_ext_ack(void **state) {
        static const char text[] = "Specified device does not support ETF offload";
        uint8_t buf[512] = {};
        char out[128], tiny[8];
        struct nlmsghdr *h = (struct nlmsghdr *) buf;

        build_error(buf, true, text);
        assert_int_equal(nl_ext_ack_message(h, out, sizeof(out)), 1);
        assert_string_equal(out, text);
        assert_int_equal(nl_ext_ack_message(h, tiny, sizeof(tiny)), 1);
        assert_string_equal(tiny, "Specifi");

        memset(buf, 0, sizeof(buf));
        build_error(buf, false, text);
        assert_int_equal(nl_ext_ack_message(h, out, sizeof(out)), 1);
        assert_string_equal(out, text);

        /* no TLVs: no message */
        h->nlmsg_flags = 0;
        assert_int_equal(nl_ext_ack_message(h, out, sizeof(out)), 0);
        assert_string_equal(out, "");
        /* not an error message, or cut inside struct nlmsgerr */
        h->nlmsg_type = RTM_NEWQDISC;
        assert_int_equal(nl_ext_ack_message(h, out, sizeof(out)), -EBADMSG);
        h->nlmsg_type = NLMSG_ERROR;
        h->nlmsg_len = NLMSG_HDRLEN + 8;
        assert_int_equal(nl_ext_ack_message(h, out, sizeof(out)), -EBADMSG);
}

/* A dump the kernel cut short (it ends a dump without an error at a qdisc
 * too large for a dump message): the interfaces after the cut are missing.
 * Only an interface that is down may lack a root in a complete dump. */
static void test_dump_judge(void **state) {
        _cleanup_free_ void *buf = NULL;
        QDiscTree t = {};
        size_t len, cut = 0;

        buf = read_fixture(FIXTURES "mqprio-etf.bin", &len);
        assert_int_equal(qdisc_tree_parse_dump(buf, len, 3, &t), 0);
        assert_int_equal(qdisc_dump_judge(&t, IFF_UP), 0);
        assert_int_equal(qdisc_dump_judge(&t, -ENODEV), 0);
        qdisc_tree_done(&t);

        /* Cut the recorded dump before the first qdisc of interface 3. */
        for (const struct nlmsghdr *h = buf; NLMSG_OK(h, (int) (len - cut));
             h = (const struct nlmsghdr *) ((const uint8_t *) h + NLMSG_ALIGN(h->nlmsg_len))) {
                if (h->nlmsg_type == RTM_NEWQDISC && ((const struct tcmsg *) NLMSG_DATA(h))->tcm_ifindex == 3)
                        break;
                cut += NLMSG_ALIGN(h->nlmsg_len);
        }
        assert_true(cut > 0 && cut < len);
        assert_int_equal(qdisc_tree_parse_dump(buf, cut, 3, &t), 0);
        assert_false(t.has_root);
        assert_int_equal(qdisc_dump_judge(&t, IFF_UP | IFF_RUNNING), -EAGAIN);
        assert_int_equal(qdisc_dump_judge(NULL, IFF_UP), -EAGAIN);
        /* Down and never up: no root at all is what the kernel has. */
        assert_int_equal(qdisc_dump_judge(&t, 0), 0);
        assert_int_equal(qdisc_dump_judge(&t, -ENODEV), -ENODEV);
        qdisc_tree_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mqprio_request),
                cmocka_unit_test(test_mqprio_request_hw),
                cmocka_unit_test(test_etf_request),
                cmocka_unit_test(test_cbs_request),
                cmocka_unit_test(test_parse_cbs_dump),
                cmocka_unit_test(test_taprio_long_gate_list),
                cmocka_unit_test(test_taprio_request),
                cmocka_unit_test(test_taprio_round_trip),
                cmocka_unit_test(test_taprio_change_max_sdu),
                cmocka_unit_test(test_mqprio_fp_request),
                cmocka_unit_test(test_taprio_fp_request),
                cmocka_unit_test(test_taprio_max_sdu_fp_request),
                cmocka_unit_test(test_fp_equal_needs_kernel),
                cmocka_unit_test(test_parse_612_fp_dumps),
                cmocka_unit_test(test_parse_taprio_admin_dump),
                cmocka_unit_test(test_parse_taprio_admin_recorded),
                cmocka_unit_test(test_parse_mqprio_dump),
                cmocka_unit_test(test_parse_taprio_dump),
                cmocka_unit_test(test_parse_default_dump),
                cmocka_unit_test(test_parse_bad),
                cmocka_unit_test(test_tree_set),
                cmocka_unit_test(test_offload_plan),
                cmocka_unit_test(test_ext_ack),
                cmocka_unit_test(test_taprio_gate_list_limit),
                cmocka_unit_test(test_dump_judge),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

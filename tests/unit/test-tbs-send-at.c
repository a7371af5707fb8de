/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The SCM_TXTIME control message libtbs sends with every packet
 * (libtbs/send-at.c): its bytes as the kernel's sock_cmsg_send() reads
 * them (struct cmsghdr: cmsg_len, cmsg_level SOL_SOCKET = 1, cmsg_type
 * SCM_TXTIME = 61, then the launch time as a __u64), and tbs_send_at()'s
 * own refusals before anything is sent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tbs-internal.h"

static void test_bytes(void **state) {
        union {
                unsigned char b[64];
                struct cmsghdr align;
        } buf;
        const uint64_t t = UINT64_C(0x0102030405060708);
        /* x86-64 and every other LP64 little-endian target: an 8-byte
         * cmsg_len, two ints, then the data at offset 16; 24 bytes in all,
         * already a multiple of the 8-byte alignment. */
        const unsigned char want[24] = {
                24, 0, 0, 0, 0, 0, 0, 0,        /* cmsg_len = CMSG_LEN(8) */
                1, 0, 0, 0,                     /* SOL_SOCKET */
                61, 0, 0, 0,                    /* SCM_TXTIME */
                8, 7, 6, 5, 4, 3, 2, 1,         /* the launch time, host order */
        };
        size_t n;

        memset(buf.b, 0xaa, sizeof(buf.b));
        n = tbs_txtime_control_build(t, buf.b, sizeof(buf.b));
        if (sizeof(size_t) != 8 || CMSG_LEN(8) != 24) {
                /* Another ABI: check the layout through the macros instead. */
                struct msghdr msg = { .msg_control = buf.b, .msg_controllen = n };
                struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
                uint64_t got;

                assert_int_equal(n, CMSG_SPACE(8));
                assert_int_equal(c->cmsg_level, SOL_SOCKET);
                assert_int_equal(c->cmsg_type, 61);
                memcpy(&got, CMSG_DATA(c), sizeof(got));
                assert_true(got == t);
                return;
        }
        assert_int_equal(n, sizeof(want));
        assert_memory_equal(buf.b, want, sizeof(want));
        assert_int_equal(buf.b[sizeof(want)], 0xaa);     /* nothing written past it */
}

static void test_parsed_back(void **state) {
        union {
                unsigned char b[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } buf;
        struct msghdr msg = { .msg_control = buf.b };
        struct cmsghdr *c;
        uint64_t got;

        msg.msg_controllen = tbs_txtime_control_build(UINT64_MAX, buf.b, sizeof(buf.b));
        c = CMSG_FIRSTHDR(&msg);
        assert_non_null(c);
        assert_int_equal(c->cmsg_len, CMSG_LEN(sizeof(uint64_t)));
        memcpy(&got, CMSG_DATA(c), sizeof(got));
        assert_true(got == UINT64_MAX);
        assert_null(CMSG_NXTHDR(&msg, c));      /* one message, nothing after it */
}

static void test_too_small(void **state) {
        union {
                unsigned char b[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } buf;

        assert_int_equal(tbs_txtime_control_build(1, buf.b, CMSG_SPACE(sizeof(uint64_t)) - 1), 0);
        assert_int_equal(tbs_txtime_control_build(1, buf.b, 0), 0);
}

static void test_send_refusals(void **state) {
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv), 0);
        /* No buffer for a non-empty packet: refused before sendmsg(). */
        assert_int_equal(tbs_send_at(sv[0], NULL, 10, 1, NULL, 0, 0), -EINVAL);
        /* An AF_UNIX socket knows no SCM_TXTIME: the kernel's refusal
         * comes back as -errno, not -1. */
        assert_int_equal(tbs_send_at(sv[0], "x", 1, 1, NULL, 0, 0), -EINVAL);
        assert_int_equal(tbs_send_at(-1, "x", 1, 1, NULL, 0, 0), -EBADF);
        close(sv[0]);
        close(sv[1]);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bytes),
                cmocka_unit_test(test_parsed_back),
                cmocka_unit_test(test_too_small),
                cmocka_unit_test(test_send_refusals),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

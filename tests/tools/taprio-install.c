/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio-install: send one software taprio root request, built by tbsd's own
 * encoder (qdisc_root_request()) but without the schedule validation, and
 * print the kernel's answer. It measures what the kernel itself accepts
 * (docs/schedule-format.md, "Limits"; tests/kernel/measure-taprio-limits.sh).
 *
 *   taprio-install IFACE ENTRIES INTERVAL_NS [BASE_NS [CYCLE_NS [EXTENSION_NS]]]
 *
 * Root 100:, num_tc 2 on queues 0 and 1, ENTRIES entries alternating gate
 * masks 0x1 and 0x2, each INTERVAL_NS long; CYCLE_NS 0: the sum.
 * Prints "ok BYTES" (the request's size) or "refused BYTES: MESSAGE" (exit 1),
 * or "unbuilt: REASON" when tbsd's encoder refuses the request (exit 3);
 * 2 for a usage error. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nl-qdisc.h"
#include "qdisc.h"

static int err_errno;
static char err_text[256];

static int error_cb(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg) {
        const struct nlmsghdr *h = (const struct nlmsghdr *) ((const uint8_t *) e - NLMSG_HDRLEN);

        err_errno = e->error;
        (void) nl_ext_ack_message(h, err_text, sizeof(err_text));
        return NL_STOP;
}

static int64_t arg_i64(const char *s) {
        char *end;
        long long v;

        errno = 0;
        v = strtoll(s, &end, 0);
        if (errno != 0 || end == s || *end) {
                fprintf(stderr, "taprio-install: not an integer: %s\n", s);
                exit(2);
        }
        return v;
}

int main(int argc, char *argv[]) {
        RootSpec r = {
                .kind = ROOT_TAPRIO,
                .handle = TBS_DEFAULT_ROOT_HANDLE,
                .num_tc = 2,
                .queues = { { .count = 1, .offset = 0 }, { .count = 1, .offset = 1 } },
                .taprio.clockid = CLOCK_TAI,
                .taprio.mode = TAPRIO_MODE_SOFTWARE,
        };
        struct nl_sock *sk = NULL;
        struct nl_msg *m = NULL;
        int64_t n, interval, one = 1;
        unsigned ifindex;
        int k, status;

        if (argc < 4 || argc > 7) {
                fprintf(stderr, "usage: taprio-install IFACE ENTRIES INTERVAL_NS "
                                "[BASE_NS [CYCLE_NS [EXTENSION_NS]]]\n");
                return 2;
        }
        ifindex = if_nametoindex(argv[1]);
        if (ifindex == 0) {
                fprintf(stderr, "taprio-install: %s: no such interface\n", argv[1]);
                return 2;
        }
        n = arg_i64(argv[2]);
        interval = arg_i64(argv[3]);
        if (n < 1 || n > 1000000 || interval < 0 || interval > UINT32_MAX) {
                fprintf(stderr, "taprio-install: ENTRIES or INTERVAL_NS out of range\n");
                return 2;
        }
        r.taprio.base_time_ns = argc > 4 ? arg_i64(argv[4]) : 0;
        r.taprio.cycle_time_ns = argc > 5 ? arg_i64(argv[5]) : 0;
        r.taprio.cycle_time_extension_ns = argc > 6 ? arg_i64(argv[6]) : 0;
        r.taprio.n_entries = (size_t) n;
        r.taprio.entries = calloc(r.taprio.n_entries, sizeof(GateEntry));
        if (!r.taprio.entries)
                return 1;
        for (size_t i = 0; i < r.taprio.n_entries; i++)
                r.taprio.entries[i] = (GateEntry) { GATE_SET_GATES, i % 2 ? 0x2 : 0x1, (uint32_t) interval };

        k = qdisc_root_request((int) ifindex, &r, &m);
        free(r.taprio.entries);
        if (k < 0) {
                printf("unbuilt: %s\n", strerror(-k));
                return 3;
        }

        sk = nl_socket_alloc();
        if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0)
                return 1;
        (void) setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(int));
        nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, error_cb, NULL);
        k = nl_send_auto(sk, m);
        if (k >= 0)
                k = nl_wait_for_ack(sk);
        if (k >= 0) {
                printf("ok %" PRIu32 "\n", nlmsg_hdr(m)->nlmsg_len);
                status = 0;
        } else {
                printf("refused %" PRIu32 ": %s%s%s\n", nlmsg_hdr(m)->nlmsg_len,
                       err_errno ? strerror(-err_errno) : nl_geterror(k), err_text[0] ? ": " : "", err_text);
                status = 1;
        }
        nlmsg_free(m);
        nl_socket_free(sk);
        return status;
}

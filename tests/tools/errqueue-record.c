/* SPDX-License-Identifier: GPL-2.0-or-later */
/* errqueue-record: record what a socket's error queue really returns, for
 * the unit test of libtbs's decoder (tests/unit/fixtures/errqueue/).
 *
 *   errqueue-record KIND IFACE OUT.bin PRIO_ON_TIME PRIO_LATE [DEST]
 *
 * KIND is packet (AF_PACKET, EtherType 0x88B5, to the broadcast address),
 * udp4 or udp6 (to DEST, port 9). Two sockets with SO_TXTIME (CLOCK_TAI,
 * errors reported) and software transmit time stamps (with OPT_ID): the
 * first, at PRIO_ON_TIME, sends a packet whose launch time is 1 s past
 * (refused at enqueue) and one 20 ms ahead (sent on time: a time stamp);
 * the second, at PRIO_LATE (an etf with delta 0: dequeued after its launch
 * time), one 2 ms ahead (missed). Each error queue message is appended to
 * OUT.bin as: u32 data length, u32 control length (host order), the data,
 * the control bytes as the kernel wrote them. stdout gets a JSON line per
 * record: the socket it came from and the launch times sent. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "tbs.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif

typedef struct Target {
        int family;
        struct sockaddr_storage to;
        socklen_t to_len;
} Target;

static uint64_t now_tai(void) {
        struct timespec ts;

        clock_gettime(CLOCK_TAI, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int die(const char *what) {
        fprintf(stderr, "errqueue-record: %s: %s\n", what, strerror(errno));
        return 1;
}

static int open_socket(const char *kind, const char *ifname, int prio, Target *t) {
        unsigned ifindex = if_nametoindex(ifname);
        struct sock_txtime st = { .clockid = CLOCK_TAI, .flags = SOF_TXTIME_REPORT_ERRORS };
        int one = 1, ts = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID;
        int fd;

        if (ifindex == 0)
                return -1;
        if (strcmp(kind, "packet") == 0) {
                struct sockaddr_ll *ll = (struct sockaddr_ll *) &t->to;

                fd = socket(AF_PACKET, SOCK_DGRAM, htons(0x88B5));
                *ll = (struct sockaddr_ll) {
                        .sll_family = AF_PACKET,
                        .sll_protocol = htons(0x88B5),
                        .sll_ifindex = (int) ifindex,
                        .sll_halen = 6,
                        .sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
                };
                t->to_len = sizeof(*ll);
        } else {
                fd = socket(t->family, SOCK_DGRAM, 0);
                if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t) strlen(ifname)) < 0)
                        return -1;
                if (fd >= 0 && setsockopt(fd, t->family == AF_INET ? SOL_IP : SOL_IPV6,
                                          t->family == AF_INET ? IP_RECVERR : IPV6_RECVERR, &one, sizeof(one)) < 0)
                        return -1;
        }
        if (fd < 0)
                return -1;
        if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts)) < 0)
                return -1;
        return fd;
}

static int send_one(int fd, const Target *t, uint64_t txtime, const char *label) {
        char payload[64] = "errqueue-record";
        ssize_t n = tbs_send_at(fd, payload, sizeof(payload), txtime, (const struct sockaddr *) &t->to, t->to_len, 0);

        printf("{\"sent\": \"%s\", \"txtime\": %llu, \"result\": %zd}\n", label, (unsigned long long) txtime, n);
        return n < 0 && n != -ENOBUFS ? -1 : 0;
}

/* Append every message of fd's error queue to out until it stayed empty
 * for quiet_ms. */
static int drain(int fd, const char *label, FILE *out, int quiet_ms) {
        for (;;) {
                struct pollfd p = { .fd = fd };
                uint8_t data[256];
                union {
                        char buf[512];
                        struct cmsghdr align;
                } control;
                struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
                struct msghdr msg = {
                        .msg_iov = &iov, .msg_iovlen = 1,
                        .msg_control = control.buf, .msg_controllen = sizeof(control.buf),
                };
                uint32_t lens[2];
                ssize_t n;

                if (poll(&p, 1, quiet_ms) <= 0)
                        return 0;
                n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EAGAIN)
                                continue;
                        return -1;
                }
                lens[0] = (uint32_t) ((size_t) n < sizeof(data) ? (size_t) n : sizeof(data));
                lens[1] = (uint32_t) msg.msg_controllen;
                if (fwrite(lens, sizeof(lens), 1, out) != 1 || fwrite(data, 1, lens[0], out) != lens[0] ||
                    fwrite(control.buf, 1, lens[1], out) != lens[1])
                        return -1;
                printf("{\"record\": \"%s\", \"data\": %u, \"control\": %u}\n", label, lens[0], lens[1]);
        }
}

int main(int argc, char *argv[]) {
        Target t = {};
        int on_time, late;
        uint64_t now;
        FILE *out;

        if (argc < 6 || (strcmp(argv[1], "packet") != 0 && argc < 7)) {
                fprintf(stderr, "usage: errqueue-record packet|udp4|udp6 IFACE OUT.bin PRIO_ON_TIME PRIO_LATE [DEST]\n");
                return 2;
        }
        if (strcmp(argv[1], "udp4") == 0) {
                struct sockaddr_in *a = (struct sockaddr_in *) &t.to;

                t.family = a->sin_family = AF_INET;
                a->sin_port = htons(9);
                if (inet_pton(AF_INET, argv[6], &a->sin_addr) != 1)
                        return 2;
                t.to_len = sizeof(*a);
        } else if (strcmp(argv[1], "udp6") == 0) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &t.to;

                t.family = a->sin6_family = AF_INET6;
                a->sin6_port = htons(9);
                if (inet_pton(AF_INET6, argv[6], &a->sin6_addr) != 1)
                        return 2;
                t.to_len = sizeof(*a);
        } else if (strcmp(argv[1], "packet") != 0)
                return 2;

        on_time = open_socket(argv[1], argv[2], atoi(argv[4]), &t);
        if (on_time < 0)
                return die("socket (on time)");
        late = open_socket(argv[1], argv[2], atoi(argv[5]), &t);
        if (late < 0)
                return die("socket (late)");
        out = fopen(argv[3], "we");
        if (!out)
                return die(argv[3]);

        now = now_tai();
        if (send_one(on_time, &t, now - 1000000000u, "past") < 0 ||
            send_one(on_time, &t, now + 20000000u, "on-time") < 0 ||
            send_one(late, &t, now + 2000000u, "late") < 0)
                return die("sendmsg");
        if (drain(on_time, "on-time-socket", out, 500) < 0 || drain(late, "late-socket", out, 500) < 0)
                return die("error queue");
        if (fclose(out) != 0)
                return die(argv[3]);
        return 0;
}

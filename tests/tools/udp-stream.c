/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udp-stream: a steady UDP stream with SO_TXTIME, to see whether a qdisc
 * change loses anything while traffic flows (kernel-daemon-taprio-change).
 *
 *   udp-stream send DST_IP PORT PRIORITY COUNT PERIOD_US LEAD_NS [SIZE]
 *     COUNT datagrams of SIZE bytes (default 64; the first 4 bytes are the
 *     sequence number), one every PERIOD_US, each with a CLOCK_TAI launch
 *     time at least LEAD_NS ahead and at 250 us past a multiple of 500 us
 *     (away from the gate boundaries of the test's schedules, which all lie
 *     on multiples of 500 us, so that taprio takes every one). The error
 *     queue (SO_TXTIME reports: dropped by etf) is read throughout. Prints
 *     {"sent": N, "send_errors": N, "txtime_errors": N} at the end (after the
 *     last launch time plus a second).
 *
 *   udp-stream recv PORT COUNT TIMEOUT_MS
 *     Receives until COUNT datagrams arrived or TIMEOUT_MS passed without
 *     one; prints {"received": N, "distinct": N, "first_missing": SEQ|-1}. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

static uint64_t now_tai(void) {
        struct timespec ts;

        clock_gettime(CLOCK_TAI, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int die(const char *what) {
        fprintf(stderr, "udp-stream: %s: %s\n", what, strerror(errno));
        return 1;
}

/* Reads what the error queue holds; returns the number of reports. */
static unsigned drain_errqueue(int fd) {
        unsigned n = 0;

        for (;;) {
                char data[2048], control[512];
                struct iovec iov = { data, sizeof(data) };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                      .msg_controllen = sizeof(control) };

                if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
                        return n;
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                        struct sock_extended_err *e = (struct sock_extended_err *) CMSG_DATA(c);

                        if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) &&
                            e->ee_origin == SO_EE_ORIGIN_TXTIME)
                                n++;
                }
        }
}

static int do_send(int argc, char *argv[]) {
        struct sockaddr_in dst = { .sin_family = AF_INET };
        struct sock_txtime st = { .clockid = CLOCK_TAI, .flags = SOF_TXTIME_REPORT_ERRORS };
        unsigned long count, period_us, size = 64;
        unsigned sent = 0, send_errors = 0, txtime_errors = 0;
        uint64_t lead, last = 0, t;
        int prio, fd, one = 1;
        char buf[9000] = {};

        if (argc < 6)
                return 2;
        if (inet_pton(AF_INET, argv[0], &dst.sin_addr) != 1)
                return 2;
        dst.sin_port = htons((uint16_t) strtoul(argv[1], NULL, 10));
        prio = (int) strtol(argv[2], NULL, 10);
        count = strtoul(argv[3], NULL, 10);
        period_us = strtoul(argv[4], NULL, 10);
        lead = strtoull(argv[5], NULL, 10);
        if (argc > 6)
                size = strtoul(argv[6], NULL, 10);
        if (size < 4 || size > sizeof(buf))
                return 2;

        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
                return die("socket");
        if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0 ||
            setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)) < 0 ||
            setsockopt(fd, SOL_IP, IP_RECVERR, &one, sizeof(one)) < 0)
                return die("setsockopt");

        for (unsigned long i = 0; i < count; i++) {
                char control[CMSG_SPACE(sizeof(uint64_t))] = {};
                struct iovec iov = { buf, size };
                struct msghdr msg = { .msg_name = &dst, .msg_namelen = sizeof(dst), .msg_iov = &iov,
                                      .msg_iovlen = 1, .msg_control = control,
                                      .msg_controllen = sizeof(control) };
                struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
                struct timespec ts = { 0, (long) period_us * 1000 };
                uint32_t seq = (uint32_t) i;

                t = now_tai() + lead;
                t = (t / 500000 + 1) * 500000 + 250000;
                if (t <= last)
                        t = last + 500000;
                last = t;
                memcpy(buf, &seq, sizeof(seq));
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_TXTIME;
                c->cmsg_len = CMSG_LEN(sizeof(uint64_t));
                memcpy(CMSG_DATA(c), &t, sizeof(t));
                if (sendmsg(fd, &msg, 0) < 0)
                        send_errors++;
                else
                        sent++;
                txtime_errors += drain_errqueue(fd);
                nanosleep(&ts, NULL);
        }
        while (now_tai() < last + 1000000000ULL) {
                struct timespec ts = { 0, 50000000 };

                txtime_errors += drain_errqueue(fd);
                nanosleep(&ts, NULL);
        }
        txtime_errors += drain_errqueue(fd);
        printf("{\"sent\": %u, \"send_errors\": %u, \"txtime_errors\": %u}\n", sent, send_errors,
               txtime_errors);
        close(fd);
        return 0;
}

static int do_recv(int argc, char *argv[]) {
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
        unsigned long count, timeout_ms, received = 0, distinct = 0;
        unsigned char *seen;
        long first_missing = -1;
        int fd;

        if (argc < 3)
                return 2;
        a.sin_port = htons((uint16_t) strtoul(argv[0], NULL, 10));
        count = strtoul(argv[1], NULL, 10);
        timeout_ms = strtoul(argv[2], NULL, 10);
        seen = calloc(count ?: 1, 1);
        if (!seen)
                return 1;
        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0 || bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                return die("socket");
        fprintf(stderr, "listening\n");
        while (received < count) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint32_t seq;
                char buf[9000];
                ssize_t n;

                if (poll(&p, 1, (int) timeout_ms) <= 0)
                        break;
                n = recv(fd, buf, sizeof(buf), 0);
                if (n < 4)
                        continue;
                received++;
                memcpy(&seq, buf, sizeof(seq));
                if (seq < count && !seen[seq]) {
                        seen[seq] = 1;
                        distinct++;
                }
        }
        for (unsigned long i = 0; i < count; i++)
                if (!seen[i]) {
                        first_missing = (long) i;
                        break;
                }
        printf("{\"received\": %lu, \"distinct\": %lu, \"first_missing\": %ld}\n", received, distinct,
               first_missing);
        free(seen);
        close(fd);
        return 0;
}

int main(int argc, char *argv[]) {
        if (argc >= 2 && strcmp(argv[1], "send") == 0)
                return do_send(argc - 2, argv + 2);
        if (argc >= 2 && strcmp(argv[1], "recv") == 0)
                return do_recv(argc - 2, argv + 2);
        fprintf(stderr, "usage: udp-stream send DST_IP PORT PRIORITY COUNT PERIOD_US LEAD_NS [SIZE]\n"
                        "       udp-stream recv PORT COUNT TIMEOUT_MS\n");
        return 2;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txtime-scenario: the scenarios of the kernel's SO_TXTIME selftest
 * (tools/testing/selftests/net/so_txtime.{c,sh}), written anew for
 * kernel-so-txtime-peer: a few one-byte UDP datagrams, each with its own
 * launch time, and the times they arrive at.
 *
 *   txtime-scenario send [--clock tai|mono] [--deadline] [--priority P]
 *                        [--start REALTIME_NS] DST_IP PORT SPEC
 *     SPEC is "a,10,b,20": payload letters and launch times in ms after
 *     the start (-1: no launch time at all). Waits until CLOCK_REALTIME
 *     reaches REALTIME_NS (if given), takes the start on the socket's
 *     clock and sends each datagram (payload: the letter, then the start
 *     in ns of that clock, so the receiver measures against the sender's
 *     own start). SO_TXTIME with SOF_TXTIME_REPORT_ERRORS (and
 *     SOF_TXTIME_DEADLINE_MODE with --deadline). Then reads the error queue
 *     until every datagram is reported or 200 ms after the last launch
 *     time, and prints {"start_ns": N, "errors": [{"payload": "a",
 *     "reason": "invalid"|"missed"|"other", "errno": N, "txtime_ms": N}]}.
 *
 *   txtime-scenario recv [--clock tai|mono] BIND_IP PORT COUNT TIMEOUT_MS
 *     Receives until COUNT datagrams or the end mark arrived, or
 *     TIMEOUT_MS passed without a datagram, and prints {"received": [{"payload": "a", "delay_us": N}]}: the
 *     arrival, taken from the kernel's receive stamp (SO_TIMESTAMPNS, so
 *     the receiver's own wake-up does not count) and moved onto the clock
 *     (CLOCK_TAI by the kernel's TAI offset), in us after the sender's
 *     start. Prints "listening" on stderr once the
 *     socket is bound.
 *
 *   txtime-scenario mark DST_IP PORT
 *     Sends the end mark, "." from a plain socket: the test sends it from
 *     the receiver's side once the sender returned. */
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
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

#define MAX_DATAGRAMS 8

typedef struct {
        char payload;
        int64_t launch_ms; /* -1: no launch time */
} Datagram;

static clockid_t arg_clock = CLOCK_TAI;

static int64_t now_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int die(const char *what) {
        fprintf(stderr, "txtime-scenario: %s: %s\n", what, strerror(errno));
        return 1;
}

static int usage(void) {
        fprintf(stderr, "usage: txtime-scenario send [--clock tai|mono] [--deadline] [--priority P] "
                        "[--start REALTIME_NS] DST_IP PORT SPEC\n"
                        "       txtime-scenario recv [--clock tai|mono] BIND_IP PORT COUNT TIMEOUT_MS\n"
                        "       txtime-scenario mark DST_IP PORT\n");
        return 2;
}

static bool parse_clock(const char *s) {
        if (strcmp(s, "tai") == 0)
                arg_clock = CLOCK_TAI;
        else if (strcmp(s, "mono") == 0)
                arg_clock = CLOCK_MONOTONIC;
        else
                return false;
        return true;
}

/* "a,10,b,20" into datagrams; returns their number, -1 when malformed. */
static int parse_spec(const char *spec, Datagram d[MAX_DATAGRAMS]) {
        char buf[256], *save = NULL, *letter, *ms, *end;
        int n = 0;

        if (strlen(spec) >= sizeof(buf))
                return -1;
        strcpy(buf, spec);
        for (letter = strtok_r(buf, ",", &save); letter; letter = strtok_r(NULL, ",", &save)) {
                ms = strtok_r(NULL, ",", &save);
                if (!ms || strlen(letter) != 1 || n == MAX_DATAGRAMS)
                        return -1;
                errno = 0;
                d[n].launch_ms = strtoll(ms, &end, 10);
                if (errno || *end || d[n].launch_ms < -1)
                        return -1;
                d[n].payload = letter[0];
                n++;
        }
        return n;
}

static int udp_addr(const char *ip, const char *port, struct sockaddr_in *ret) {
        memset(ret, 0, sizeof(*ret));
        ret->sin_family = AF_INET;
        ret->sin_port = htons((uint16_t) strtoul(port, NULL, 10));
        return inet_pton(AF_INET, ip, &ret->sin_addr) == 1 ? 0 : -1;
}

/* One error queue report into ret_*; 0 when the queue is empty. */
static int read_report(int fd, char *ret_payload, const char **ret_reason, int *ret_errno,
                       int64_t *ret_txtime) {
        char data[256], control[256];
        struct iovec iov = { data, sizeof(data) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                              .msg_controllen = sizeof(control) };
        ssize_t len = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);

        if (len < 0)
                return errno == EAGAIN ? 0 : -errno;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
                struct sock_extended_err e;

                if (c->cmsg_level != SOL_IP || c->cmsg_type != IP_RECVERR)
                        continue;
                memcpy(&e, CMSG_DATA(c), sizeof(e));
                if (e.ee_origin != SO_EE_ORIGIN_TXTIME)
                        continue;
                /* The report holds the datagram with its headers: the
                 * letter is followed by the 8 bytes of the start. */
                *ret_payload = len > (ssize_t) sizeof(int64_t) ? data[len - 1 - (ssize_t) sizeof(int64_t)] : '?';
                *ret_errno = (int) e.ee_errno;
                if (e.ee_errno == EINVAL && e.ee_code == SO_EE_CODE_TXTIME_INVALID_PARAM)
                        *ret_reason = "invalid";
                else if (e.ee_errno == ECANCELED && e.ee_code == SO_EE_CODE_TXTIME_MISSED)
                        *ret_reason = "missed";
                else
                        *ret_reason = "other";
                *ret_txtime = (int64_t) ((uint64_t) e.ee_data << 32 | e.ee_info);
                return 1;
        }
        return -EBADMSG;
}

/* The end mark: a datagram "." from a plain socket, after which the
 * receiver stops waiting. */
static int do_mark(int argc, char *argv[]) {
        char buf[1 + sizeof(int64_t)] = { '.' };
        struct sockaddr_in dst;
        int fd;

        if (argc != 2 || udp_addr(argv[0], argv[1], &dst) < 0)
                return usage();
        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
                return die("socket");
        if (sendto(fd, buf, sizeof(buf), 0, (const struct sockaddr *) &dst, sizeof(dst)) < 0)
                return die("sendto");
        close(fd);
        return 0;
}

static int do_send(int argc, char *argv[]) {
        struct sock_txtime cfg = { .flags = SOF_TXTIME_REPORT_ERRORS };
        Datagram d[MAX_DATAGRAMS];
        struct sockaddr_in dst;
        int64_t start_rt = 0, start, last = 0;
        int prio = -1, n, fd, reports = 0;
        bool first = true;
        int i;

        for (i = 0; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
                const char *v = i + 1 < argc ? argv[i + 1] : NULL;

                if (strcmp(argv[i], "--deadline") == 0) {
                        cfg.flags |= SOF_TXTIME_DEADLINE_MODE;
                        continue;
                }
                if (!v)
                        return usage();
                if (strcmp(argv[i], "--clock") == 0 && parse_clock(v))
                        ;
                else if (strcmp(argv[i], "--priority") == 0)
                        prio = atoi(v);
                else if (strcmp(argv[i], "--start") == 0)
                        start_rt = strtoll(v, NULL, 10);
                else
                        return usage();
                i++;
        }
        if (argc - i != 3 || udp_addr(argv[i], argv[i + 1], &dst) < 0)
                return usage();
        n = parse_spec(argv[i + 2], d);
        if (n <= 0)
                return usage();
        cfg.clockid = arg_clock;

        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
                return die("socket");
        if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &cfg, sizeof(cfg)) < 0)
                return die("SO_TXTIME");
        if (prio >= 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0)
                return die("SO_PRIORITY");
        if (connect(fd, (struct sockaddr *) &dst, sizeof(dst)) < 0)
                return die("connect");

        if (start_rt > 0) {
                int64_t wait = start_rt - now_ns(CLOCK_REALTIME);

                if (wait > 0) {
                        struct timespec ts = { wait / 1000000000, wait % 1000000000 };
                        nanosleep(&ts, NULL);
                }
        }
        start = now_ns(arg_clock);
        for (i = 0; i < n; i++) {
                char buf[1 + sizeof(int64_t)], control[CMSG_SPACE(sizeof(uint64_t))] = { 0 };
                struct iovec iov = { buf, sizeof(buf) };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

                buf[0] = d[i].payload;
                memcpy(buf + 1, &start, sizeof(start));
                if (d[i].launch_ms >= 0) {
                        uint64_t txtime = (uint64_t) (start + d[i].launch_ms * 1000000);
                        struct cmsghdr *c;

                        msg.msg_control = control;
                        msg.msg_controllen = sizeof(control);
                        c = CMSG_FIRSTHDR(&msg);
                        c->cmsg_level = SOL_SOCKET;
                        c->cmsg_type = SCM_TXTIME;
                        c->cmsg_len = CMSG_LEN(sizeof(txtime));
                        memcpy(CMSG_DATA(c), &txtime, sizeof(txtime));
                        if ((int64_t) txtime > last)
                                last = (int64_t) txtime;
                }
                if (sendmsg(fd, &msg, 0) != (ssize_t) sizeof(buf))
                        return die("sendmsg");
        }

        printf("{\"start_ns\": %" PRIi64 ", \"errors\": [", start);
        if (last < start)
                last = start;
        while (reports < n && now_ns(arg_clock) < last + 200000000) {
                struct pollfd p = { .fd = fd, .events = 0 };
                const char *reason = NULL;
                int64_t txtime = 0;
                char payload = '?';
                int r, err = 0;

                if (poll(&p, 1, 10) < 0 && errno != EINTR)
                        return die("poll");
                while ((r = read_report(fd, &payload, &reason, &err, &txtime)) > 0) {
                        printf("%s{\"payload\": \"%c\", \"reason\": \"%s\", \"errno\": %d, \"txtime_ms\": %" PRIi64 "}",
                               first ? "" : ", ", payload, reason, err,
                               txtime == 0 ? -1 : (txtime - start) / 1000000);
                        first = false;
                        reports++;
                }
                if (r < 0) {
                        errno = -r;
                        return die("error queue");
                }
        }
        printf("]}\n");
        close(fd);
        return 0;
}

/* The clock minus CLOCK_REALTIME, in ns. For CLOCK_TAI the kernel's TAI
 * offset, exactly; otherwise read from both clocks, taking the closest of
 * a few tries (a process descheduled between two reads would make the
 * distance off by as long as it waited: 5 ms was seen in the test guest). */
static int64_t clock_offset_ns(void) {
        int64_t best = 0, best_span = INT64_MAX;

        if (arg_clock == CLOCK_TAI) {
                struct timex tx = { 0 };

                if (adjtimex(&tx) >= 0)
                        return (int64_t) tx.tai * 1000000000;
        }
        for (int i = 0; i < 5; i++) {
                int64_t r1 = now_ns(CLOCK_REALTIME), c = now_ns(arg_clock), r2 = now_ns(CLOCK_REALTIME);

                if (r2 - r1 < best_span) {
                        best_span = r2 - r1;
                        best = c - (r1 + (r2 - r1) / 2);
                }
        }
        return best;
}

static int do_recv(int argc, char *argv[]) {
        struct sockaddr_in addr;
        struct timeval tv;
        int fd, on = 1, count, timeout_ms, got = 0, i = 0;

        if (argc >= 2 && strcmp(argv[0], "--clock") == 0) {
                if (!parse_clock(argv[1]))
                        return usage();
                i = 2;
        }
        if (argc - i != 4 || udp_addr(argv[i], argv[i + 1], &addr) < 0)
                return usage();
        count = atoi(argv[i + 2]);
        timeout_ms = atoi(argv[i + 3]);

        fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd < 0)
                return die("socket");
        if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) < 0)
                return die("SO_TIMESTAMPNS");
        tv = (struct timeval) { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
        if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
                return die("SO_RCVTIMEO");
        if (bind(fd, (struct sockaddr *) &addr, sizeof(addr)) < 0)
                return die("bind");
        fprintf(stderr, "listening\n");

        printf("{\"received\": [");
        while (got < count) {
                char buf[64], control[256];
                struct iovec iov = { buf, sizeof(buf) };
                struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                                      .msg_controllen = sizeof(control) };
                int64_t rx_rt = -1, offset, start;
                ssize_t len = recvmsg(fd, &msg, 0);

                if (len < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                        break;
                if (len < 0)
                        return die("recvmsg");
                /* The receive stamp is a CLOCK_REALTIME time. */
                offset = clock_offset_ns();
                for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                                struct timespec ts;

                                memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                                rx_rt = (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
                        }
                if (len != (ssize_t) (1 + sizeof(int64_t)) || rx_rt < 0) {
                        fprintf(stderr, "txtime-scenario: a datagram of %zd bytes%s\n", len,
                                rx_rt < 0 ? " without a receive stamp" : "");
                        return 1;
                }
                if (buf[0] == '.')
                        break;
                memcpy(&start, buf + 1, sizeof(start));
                printf("%s{\"payload\": \"%c\", \"delay_us\": %" PRIi64 "}", got ? ", " : "", buf[0],
                       (rx_rt + offset - start) / 1000);
                got++;
        }
        printf("]}\n");
        close(fd);
        return 0;
}

int main(int argc, char *argv[]) {
        if (argc >= 2 && strcmp(argv[1], "send") == 0)
                return do_send(argc - 2, argv + 2);
        if (argc >= 2 && strcmp(argv[1], "recv") == 0)
                return do_recv(argc - 2, argv + 2);
        if (argc >= 2 && strcmp(argv[1], "mark") == 0)
                return do_mark(argc - 2, argv + 2);
        return usage();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The floor of a full apply: the requests tbsd's full apply sends for the
 * benchmark's trees (bench/guest.sh, schedule()), and nothing else. Per
 * interface an mqprio root (handle 100:, 4 traffic classes, one queue each,
 * hw 0) and an etf (software mode, CLOCK_TAI) on each of the 4 queues with
 * handles 101: to 104: and deltas 200000, 300000, 400000, 500000 ns: the
 * same bytes as tbsd's requests (libnl-route's mqprio encoding, TCA_OPTIONS
 * marked NLA_F_NESTED; etf's nest without it; NLM_F_CREATE | NLM_F_REPLACE).
 *
 * Every message is built before the first send. The sends are as large as
 * the socket's send buffer allows (one at N <= 256 with the default buffer);
 * only the last request of a send asks for an ACK, and a refused request
 * answers with its error on its own, so each send has one answer to wait
 * for when all goes well, and every error is read and reported. No name
 * lookups, no dump, no probe, no file: the interface indexes are arguments.
 *
 *   floor IFINDEX...   prints "requests R sends S bytes B send_us T" (T: the
 *                      first send to the last answer, CLOCK_MONOTONIC); exit
 *                      status 1 when any request was refused. */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define QUEUES 4
#define PER_IFACE (1 + QUEUES)
#define ROOT_HANDLE 0x01000000u                 /* 100: */

static const int32_t deltas[QUEUES] = { 200000, 300000, 400000, 500000 };

/* What a request asks, for the report of a refused one. */
typedef struct {
        int ifindex;
        int queue;                      /* -1: the root */
} Request;

static double now_us(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}

/* Appends an attribute of len payload bytes (zero-padded to 4) at *at. */
static uint8_t *put_attr(uint8_t *at, uint16_t type, const void *data, size_t len) {
        struct nlattr *a = (struct nlattr *) at;

        a->nla_type = type;
        a->nla_len = (uint16_t) (NLA_HDRLEN + len);
        memcpy(at + NLA_HDRLEN, data, len);
        memset(at + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
        return at + NLA_HDRLEN + NLA_ALIGN(len);
}

/* The header and tcmsg of a qdisc request; returns where attributes go. */
static uint8_t *put_head(uint8_t *at, uint32_t seq, int ifindex, uint32_t handle, uint32_t parent) {
        struct nlmsghdr *h = (struct nlmsghdr *) at;
        struct tcmsg *t = (struct tcmsg *) (at + NLMSG_HDRLEN);

        *h = (struct nlmsghdr) {
                .nlmsg_type = RTM_NEWQDISC,
                .nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE,
                .nlmsg_seq = seq,
        };
        *t = (struct tcmsg) {
                .tcm_family = AF_UNSPEC,
                .tcm_ifindex = ifindex,
                .tcm_handle = handle,
                .tcm_parent = parent,
        };
        return at + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*t));
}

static uint8_t *put_root(uint8_t *at, uint32_t seq, int ifindex) {
        struct tc_mqprio_qopt q = { .num_tc = QUEUES, .hw = 0 };
        uint8_t opt[NLA_ALIGN(sizeof(q))] = {};
        uint8_t *p = put_head(at, seq, ifindex, ROOT_HANDLE, TC_H_ROOT);

        for (int i = 0; i <= TC_QOPT_BITMASK; i++)
                q.prio_tc_map[i] = (uint8_t) (i < QUEUES ? i : QUEUES - 1);
        for (int i = 0; i < QUEUES; i++) {
                q.count[i] = 1;
                q.offset[i] = (uint16_t) i;
        }
        memcpy(opt, &q, sizeof(q));
        p = put_attr(p, TCA_KIND, "mqprio", sizeof("mqprio"));
        /* libnl-route's mqprio encoder sends the padded struct, flagged nested. */
        p = put_attr(p, TCA_OPTIONS | NLA_F_NESTED, opt, sizeof(opt));
        ((struct nlmsghdr *) at)->nlmsg_len = (uint32_t) (p - at);
        return p;
}

static uint8_t *put_etf(uint8_t *at, uint32_t seq, int ifindex, int queue) {
        struct tc_etf_qopt q = { .delta = deltas[queue], .clockid = CLOCK_TAI, .flags = 0 };
        uint8_t nest[NLA_HDRLEN + NLA_ALIGN(sizeof(q))];
        uint8_t *p = put_head(at, seq, ifindex, (0x101u + (uint32_t) queue) << 16,
                              ROOT_HANDLE | (uint32_t) (queue + 1));

        put_attr(nest, TCA_ETF_PARMS, &q, sizeof(q));
        p = put_attr(p, TCA_KIND, "etf", sizeof("etf"));
        p = put_attr(p, TCA_OPTIONS, nest, sizeof(nest));        /* a nest, unflagged as iproute2 sends it */
        ((struct nlmsghdr *) at)->nlmsg_len = (uint32_t) (p - at);
        return p;
}

/* Reads answers until the one to seq `last`. Returns the number of refused
 * requests among first..last, or -errno. */
static int read_answers(int fd, uint32_t first, uint32_t last, const Request *reqs) {
        static uint8_t buf[64 * 1024];
        int refused = 0;

        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_TRUNC);

                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if ((size_t) n > sizeof(buf))
                        return -EMSGSIZE;
                for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
                        const struct nlmsgerr *e = NLMSG_DATA(h);
                        const Request *r;

                        if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_seq < first || h->nlmsg_seq > last ||
                            h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                continue;
                        r = &reqs[h->nlmsg_seq - 1];
                        if (e->error < 0) {
                                refused++;
                                if (r->queue < 0)
                                        fprintf(stderr, "floor: ifindex %d: root refused: %s\n",
                                                r->ifindex, strerror(-e->error));
                                else
                                        fprintf(stderr, "floor: ifindex %d: etf on queue %d refused: %s\n",
                                                r->ifindex, r->queue, strerror(-e->error));
                        }
                        if (h->nlmsg_seq == last)
                                return refused;
                }
        }
}

int main(int argc, char **argv) {
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        size_t n_if = (size_t) argc - 1, n_req = n_if * PER_IFACE, max_bytes, sends = 0, bytes;
        uint8_t *buf, *at, **starts;
        Request *reqs;
        int fd, sndbuf = 0, refused = 0;
        socklen_t sl = sizeof(sndbuf);
        double s, e;

        if (argc < 2) {
                fprintf(stderr, "usage: floor IFINDEX...\n");
                return 2;
        }
        /* 136 bytes for a root, 64 for an etf: 512 per interface is room enough. */
        buf = calloc(n_if, 512);
        starts = calloc(n_req + 1, sizeof(*starts));
        reqs = calloc(n_req, sizeof(*reqs));
        if (!buf || !starts || !reqs) {
                fprintf(stderr, "floor: out of memory\n");
                return 1;
        }
        at = buf;
        for (size_t i = 0; i < n_if; i++) {
                char *end;
                long ifindex = strtol(argv[i + 1], &end, 10);

                if (*end || ifindex <= 0 || ifindex > INT32_MAX) {
                        fprintf(stderr, "floor: not an interface index: '%s'\n", argv[i + 1]);
                        return 2;
                }
                for (int q = -1; q < QUEUES; q++) {
                        size_t r = i * PER_IFACE + (size_t) (q + 1);

                        reqs[r] = (Request) { .ifindex = (int) ifindex, .queue = q };
                        starts[r] = at;
                        at = q < 0 ? put_root(at, (uint32_t) r + 1, (int) ifindex)
                                   : put_etf(at, (uint32_t) r + 1, (int) ifindex, q);
                }
        }
        starts[n_req] = at;
        bytes = (size_t) (at - buf);

        fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl) < 0) {
                perror("floor: netlink socket");
                return 1;
        }
        /* netlink_sendmsg() refuses a send longer than the send buffer less 32. */
        max_bytes = (size_t) sndbuf - 32;
        /* Cut the batch into sends before the clock starts: the last request
         * of each asks for the ACK. starts[] keeps the cut points in place. */
        for (size_t r = 0, first = 0; r < n_req; r++) {
                if ((size_t) (starts[r + 1] - starts[first]) > max_bytes && r > first) {
                        ((struct nlmsghdr *) starts[r - 1])->nlmsg_flags |= NLM_F_ACK;
                        first = r;
                }
                if (r == n_req - 1)
                        ((struct nlmsghdr *) starts[r])->nlmsg_flags |= NLM_F_ACK;
        }

        s = now_us();
        for (size_t first = 0; first < n_req; ) {
                size_t last = first;
                struct iovec iov;
                struct msghdr mh = { .msg_name = &kernel, .msg_namelen = sizeof(kernel), .msg_iov = &iov,
                                     .msg_iovlen = 1 };
                ssize_t k;
                int a;

                while (!(((struct nlmsghdr *) starts[last])->nlmsg_flags & NLM_F_ACK))
                        last++;
                iov = (struct iovec) { .iov_base = starts[first],
                                       .iov_len = (size_t) (starts[last + 1] - starts[first]) };
                do
                        k = sendmsg(fd, &mh, 0);
                while (k < 0 && errno == EINTR);
                if (k < 0 || (size_t) k != iov.iov_len) {
                        perror("floor: sendmsg");
                        return 1;
                }
                sends++;
                a = read_answers(fd, (uint32_t) first + 1, (uint32_t) last + 1, reqs);
                if (a < 0) {
                        fprintf(stderr, "floor: reading the answers: %s\n", strerror(-a));
                        return 1;
                }
                refused += a;
                first = last + 1;
        }
        e = now_us();

        printf("requests %zu sends %zu bytes %zu send_us %.0f\n", n_req, sends, bytes, e - s);
        close(fd);
        free(reqs);
        free(starts);
        free(buf);
        return refused > 0 ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>

#include "macro.h"

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#include "txtime-probe.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#define SCM_TXTIME SO_TXTIME
#endif

static const uint8_t probe_magic[4] = { 'T', 'B', 'S', 'P' };

void txtime_probe_payload(uint8_t buf[static TXTIME_PROBE_PAYLOAD], uint32_t seq, uint64_t txtime_ns) {
        uint32_t s = htobe32(seq);
        uint64_t t = htobe64(txtime_ns);

        memset(buf, 0, TXTIME_PROBE_PAYLOAD);
        memcpy(buf, probe_magic, sizeof(probe_magic));
        memcpy(buf + 4, &s, sizeof(s));
        memcpy(buf + 8, &t, sizeof(t));
}

int txtime_probe_parse(const void *buf, size_t len, uint32_t *ret_seq, uint64_t *ret_txtime) {
        const uint8_t *p = buf;
        uint32_t s;
        uint64_t t;

        for (size_t i = 0; i + 16 <= len; i++)
                if (memcmp(p + i, probe_magic, sizeof(probe_magic)) == 0) {
                        memcpy(&s, p + i + 4, sizeof(s));
                        memcpy(&t, p + i + 8, sizeof(t));
                        *ret_seq = be32toh(s);
                        *ret_txtime = be64toh(t);
                        return 0;
                }
        return -EBADMSG;
}

int txtime_probe_socket(int ifindex, uint32_t priority, int32_t clockid, bool deadline_mode, bool use_txtime,
                        unsigned tstamps, int *ret_fd) {
        struct sockaddr_ll sll = {
                .sll_family = AF_PACKET,
                .sll_ifindex = ifindex,
                /* protocol 0: this socket only sends; it receives nothing */
        };
        int prio = (int) priority;
        _cleanup_close_ int fd = -1;

        fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0)
                return negative_errno();
        if (setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0)
                return negative_errno();
        if (use_txtime) {
                struct sock_txtime st = {
                        .clockid = clockid,
                        .flags = SOF_TXTIME_REPORT_ERRORS | (deadline_mode ? SOF_TXTIME_DEADLINE_MODE : 0),
                };
                if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)) < 0)
                        return negative_errno();
        }
        if (tstamps) {
                int r = txtime_probe_timestamping(fd, tstamps);
                if (r < 0)
                        return r;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int txtime_probe_timestamping(int fd, unsigned tstamps) {
        int flags = 0;

        if (tstamps & TXTIME_PROBE_TSTAMP_HARDWARE)
                flags |= SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
        if (tstamps & TXTIME_PROBE_TSTAMP_SOFTWARE)
                flags |= SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
        if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) < 0)
                return negative_errno();
        return 0;
}

int txtime_probe_send(int fd, int ifindex, TxtimeProbe *p) {
        static const uint8_t broadcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

        return txtime_probe_send_to(fd, ifindex, broadcast, p);
}

int txtime_probe_own_mac(int ifindex, uint8_t ret_mac[static 6]) {
        struct ifreq ifr = {};
        _cleanup_close_ int fd = -1;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (!if_indextoname((unsigned) ifindex, ifr.ifr_name))
                return negative_errno();
        if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
                return negative_errno();
        if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
                return -EAFNOSUPPORT;
        memcpy(ret_mac, ifr.ifr_hwaddr.sa_data, 6);
        return 0;
}

int txtime_probe_send_to(int fd, int ifindex, const uint8_t dst[static 6], TxtimeProbe *p) {
        struct sockaddr_ll to = {
                .sll_family = AF_PACKET,
                .sll_protocol = htons(TXTIME_PROBE_ETHERTYPE),
                .sll_ifindex = ifindex,
                .sll_halen = 6,
        };
        uint8_t payload[TXTIME_PROBE_PAYLOAD];
        union {
                char buf[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } control = {};
        struct iovec iov = { .iov_base = payload, .iov_len = sizeof(payload) };
        struct msghdr msg = {
                .msg_name = &to,
                .msg_namelen = sizeof(to),
                .msg_iov = &iov,
                .msg_iovlen = 1,
        };

        memcpy(to.sll_addr, dst, 6);
        txtime_probe_payload(payload, p->seq, p->txtime_ns);
        if (p->txtime_ns) {
                struct cmsghdr *c;

                msg.msg_control = control.buf;
                msg.msg_controllen = sizeof(control.buf);
                c = CMSG_FIRSTHDR(&msg);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_TXTIME;
                c->cmsg_len = CMSG_LEN(sizeof(uint64_t));
                memcpy(CMSG_DATA(c), &p->txtime_ns, sizeof(uint64_t));
        }
        if (sendmsg(fd, &msg, 0) < 0) {
                /* The qdisc dropped the frame at enqueue (NET_XMIT_DROP):
                 * it was sent as far as the socket is concerned. */
                if (errno != ENOBUFS)
                        return negative_errno();
                p->dropped_at_enqueue = true;
        }
        p->sent = true;
        return 0;
}

static TxtimeProbe *find_probe(TxtimeProbe *probes, size_t n, bool have_seq, uint32_t seq, bool have_txtime,
                               uint64_t txtime) {
        if (have_seq)
                for (size_t i = 0; i < n; i++)
                        if (probes[i].seq == seq)
                                return &probes[i];
        if (have_txtime)
                for (size_t i = 0; i < n; i++)
                        if (probes[i].txtime_ns == txtime)
                                return &probes[i];
        return NULL;
}

static int64_t timespec_ns(const struct timespec *t) {
        return (int64_t) t->tv_sec * 1000000000 + t->tv_nsec;
}

int txtime_probe_handle_report(const struct msghdr *msg, size_t len, TxtimeProbe *probes, size_t n) {
        const struct sock_extended_err *ee = NULL;
        const struct scm_timestamping *ts = NULL;
        TxtimeProbe *p;
        uint64_t txtime, ptxtime;
        uint32_t seq = 0;
        bool have_seq;

        for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *) msg, c)) {
                if ((c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_TX_TIMESTAMP) ||
                    (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
                    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR)) {
                        if (c->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err)))
                                ee = (const struct sock_extended_err *) CMSG_DATA(c);
                } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING &&
                           c->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping)))
                        ts = (const struct scm_timestamping *) CMSG_DATA(c);
        }
        if (!ee)
                return 0;
        have_seq = msg->msg_iovlen > 0 &&
                txtime_probe_parse(msg->msg_iov[0].iov_base, MIN(len, msg->msg_iov[0].iov_len), &seq, &ptxtime) >= 0;
        if (ee->ee_origin == SO_EE_ORIGIN_TXTIME) {
                txtime = ((uint64_t) ee->ee_data << 32) | ee->ee_info;
                p = find_probe(probes, n, have_seq, seq, true, txtime);
                if (!p)
                        return 0;
                if (ee->ee_code == SO_EE_CODE_TXTIME_MISSED)
                        p->outcome = TXTIME_OUTCOME_MISSED;
                else if (ee->ee_code == SO_EE_CODE_TXTIME_INVALID_PARAM)
                        p->outcome = TXTIME_OUTCOME_INVALID;
                else
                        return 0;
                return 1;
        }
        if (ee->ee_origin == SO_EE_ORIGIN_TIMESTAMPING && ts && have_seq) {
                bool hw = ts->ts[2].tv_sec != 0 || ts->ts[2].tv_nsec != 0,
                     sw = ts->ts[0].tv_sec != 0 || ts->ts[0].tv_nsec != 0;

                p = find_probe(probes, n, true, seq, false, 0);
                if (!p || (!hw && !sw))
                        return 0;
                if (hw) {
                        p->has_hw_tstamp = true;
                        p->hw_tstamp_ns = timespec_ns(&ts->ts[2]);
                }
                if (sw) {
                        p->has_sw_tstamp = true;
                        p->sw_tstamp_ns = timespec_ns(&ts->ts[0]);
                }
                return 1;
        }
        return 0;
}

/* One error queue message: returns 1 when it was matched to a probe, 0
 * when not, -EAGAIN when the queue is empty, or -errno. */
static int read_one(int fd, TxtimeProbe *probes, size_t n) {
        uint8_t data[256];
        union {
                char buf[512];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        ssize_t len;

        len = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (len < 0)
                return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : negative_errno();
        return txtime_probe_handle_report(&msg, (size_t) len, probes, n);
}

int txtime_probe_drain_at_most(int fd, TxtimeProbe *probes, size_t n, size_t max_reports) {
        int matched = 0, r;

        for (size_t i = 0; i < max_reports; i++) {
                r = read_one(fd, probes, n);
                if (r == -EAGAIN)
                        break;
                if (r < 0)
                        return r;
                matched += r;
        }
        return matched;
}

int txtime_probe_drain(int fd, TxtimeProbe *probes, size_t n) {
        return txtime_probe_drain_at_most(fd, probes, n, SIZE_MAX);
}

int txtime_probe_collect(int fd, TxtimeProbe *probes, size_t n, int quiet_ms) {
        int matched = 0, r;

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = 0 };

                r = poll(&pfd, 1, quiet_ms);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (r == 0)
                        return matched;
                r = txtime_probe_drain(fd, probes, n);
                if (r < 0)
                        return r;
                matched += r;
                if (!(pfd.revents & POLLERR))
                        /* readable for another reason (nothing is received on
                         * this socket): do not spin */
                        return matched;
        }
}

int txtime_probe_hw_tx_timestamps(const char *ifname, char *reason, size_t size) {
        _cleanup_close_ int fd = -1;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        return txtime_probe_hw_tx_timestamps_on(fd, ifname, reason, size);
}

int txtime_probe_hw_tx_timestamps_on(int fd, const char *ifname, char *reason, size_t size) {
        struct hwtstamp_config cfg = {};
        struct ifreq ifr = {};

        if (strlen(ifname) >= sizeof(ifr.ifr_name))
                return -EINVAL;
        if (!reason)
                size = 0;
        strcpy(ifr.ifr_name, ifname);
        ifr.ifr_data = (void *) &cfg;
        if (ioctl(fd, SIOCGHWTSTAMP, &ifr) < 0) {
                int r = negative_errno();

                if (r != -EOPNOTSUPP && r != -EINVAL && r != -ENOTTY)
                        return r;
                snprintf(reason, size, "the driver has no hardware time stamping (SIOCGHWTSTAMP: %s)",
                         strerror(-r));
                return 0;
        }
        if (cfg.tx_type == HWTSTAMP_TX_OFF) {
                snprintf(reason, size, "hardware transmit time stamping is off (ptp4l enables it)");
                return 0;
        }
        return 1;
}

static int cmp_int64(const void *a, const void *b) {
        int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
        return (x > y) - (x < y);
}

/* The value at rank ceil(num/den * n), 1-based, of the sorted v. */
static int64_t rank(const int64_t *v, size_t n, size_t num, size_t den) {
        size_t k = (num * n + den - 1) / den;

        return v[k ? k - 1 : 0];
}

int txtime_distribution(int64_t *v, size_t n, TxtimeDistribution *ret) {
        if (n == 0)
                return -ENODATA;
        qsort(v, n, sizeof(int64_t), cmp_int64);
        *ret = (TxtimeDistribution) {
                .n = n,
                .min = v[0],
                .median = rank(v, n, 1, 2),
                .p99 = rank(v, n, 99, 100),
                .max = v[n - 1],
        };
        return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The socket error queue, decoded: launch-time refusals and misses of etf,
 * and transmit time stamps. */
#include <errno.h>
#include <time.h> /* before linux/errqueue.h, which uses struct timespec */
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "tbs-internal.h"

/* Not in every libc's headers; the values are the kernel's ABI. */
#ifndef SO_EE_ORIGIN_TXTIME
#define SO_EE_ORIGIN_TXTIME 6
#define SO_EE_CODE_TXTIME_INVALID_PARAM 1
#define SO_EE_CODE_TXTIME_MISSED 2
#endif

static const char *const kind_names[] = {
        [TBS_TX_REPORT_OTHER] = "other",
        [TBS_TX_REPORT_INVALID] = "invalid",
        [TBS_TX_REPORT_MISSED] = "missed",
        [TBS_TX_REPORT_TIMESTAMP] = "timestamp",
};

TBS_PUBLIC const char *tbs_tx_report_kind_to_string(enum tbs_tx_report_kind kind) {
        if ((unsigned) kind >= sizeof(kind_names) / sizeof(kind_names[0]))
                return NULL;
        return kind_names[kind];
}

/* The extended error rides on a control message whose level and type say
 * the socket's family: AF_PACKET, IPv4, IPv6 (an IPv6 socket may also get
 * IPv4's for a mapped address). */
static bool is_extended_error(const struct cmsghdr *c) {
        return (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_TX_TIMESTAMP) ||
               (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
               (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR);
}

static int64_t timespec_to_ns(const struct timespec *t) {
        return (int64_t) t->tv_sec * 1000000000 + t->tv_nsec;
}

static bool timespec_set(const struct timespec *t) {
        return t->tv_sec != 0 || t->tv_nsec != 0;
}

TBS_PUBLIC int tbs_tx_report_decode(const struct msghdr *msg, size_t len, struct tbs_tx_report *ret) {
        struct sock_extended_err ee;
        struct scm_timestamping ts;
        bool have_ee = false, have_ts = false;

        if (!msg || !ret)
                return -EINVAL;
        /* Copied out: control data need not be aligned for these structs. */
        for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *) msg, c)) {
                if (is_extended_error(c) && c->cmsg_len >= CMSG_LEN(sizeof(ee))) {
                        memcpy(&ee, CMSG_DATA(c), sizeof(ee));
                        have_ee = true;
                } else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING &&
                           c->cmsg_len >= CMSG_LEN(sizeof(ts))) {
                        memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                        have_ts = true;
                }
        }
        if (!have_ee)
                return -EBADMSG;

        *ret = (struct tbs_tx_report) {
                .kind = TBS_TX_REPORT_OTHER,
                .error = (int) ee.ee_errno,
                .data_len = len,
        };
        if (ee.ee_origin == SO_EE_ORIGIN_TXTIME) {
                /* The launch time, split in two: ee_data high, ee_info low. */
                ret->txtime_ns = ((uint64_t) ee.ee_data << 32) | ee.ee_info;
                if (ee.ee_code == SO_EE_CODE_TXTIME_INVALID_PARAM)
                        ret->kind = TBS_TX_REPORT_INVALID;
                else if (ee.ee_code == SO_EE_CODE_TXTIME_MISSED)
                        ret->kind = TBS_TX_REPORT_MISSED;
                return 0;
        }
        if (ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && have_ts) {
                /* ts[2] is the hardware stamp, ts[0] the software one; a
                 * report carries one of them. */
                if (timespec_set(&ts.ts[2])) {
                        ret->hardware = true;
                        ret->tstamp_ns = timespec_to_ns(&ts.ts[2]);
                } else if (timespec_set(&ts.ts[0]))
                        ret->tstamp_ns = timespec_to_ns(&ts.ts[0]);
                else
                        return 0;
                ret->kind = TBS_TX_REPORT_TIMESTAMP;
                ret->tskey = ee.ee_data;
        }
        return 0;
}

TBS_PUBLIC int tbs_tx_report_read(int fd, void *buf, size_t size, struct tbs_tx_report *ret) {
        union {
                char buf[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6)) +
                         CMSG_SPACE(sizeof(struct scm_timestamping)) + 64];
                struct cmsghdr align;
        } control;
        char scratch[1];
        struct iovec iov = {
                .iov_base = buf ?: scratch,
                .iov_len = buf ? size : sizeof(scratch),
        };
        struct msghdr msg = {
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        ssize_t n;

        if (!ret)
                return -EINVAL;
        n = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (n < 0)
                return errno == EWOULDBLOCK ? -EAGAIN : -errno;
        if (msg.msg_flags & MSG_CTRUNC)
                return -EMSGSIZE;
        return tbs_tx_report_decode(&msg, (size_t) n > iov.iov_len ? iov.iov_len : (size_t) n, ret);
}

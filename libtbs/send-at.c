/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sending with a launch time: the SCM_TXTIME control message. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tbs-internal.h"

#ifndef SCM_TXTIME
#define SCM_TXTIME 61 /* SO_TXTIME, the kernel's ABI */
#endif

size_t tbs_txtime_control_build(uint64_t txtime_ns, void *buf, size_t size) {
        struct msghdr msg = { .msg_control = buf, .msg_controllen = size };
        struct cmsghdr *c;

        if (size < CMSG_SPACE(sizeof(txtime_ns)))
                return 0;
        memset(buf, 0, CMSG_SPACE(sizeof(txtime_ns)));
        c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_TXTIME;
        c->cmsg_len = CMSG_LEN(sizeof(txtime_ns));
        /* In host byte order: the kernel reads it as a __u64. */
        memcpy(CMSG_DATA(c), &txtime_ns, sizeof(txtime_ns));
        return CMSG_SPACE(sizeof(txtime_ns));
}

TBS_PUBLIC ssize_t tbs_send_at(int fd, const void *buf, size_t len, uint64_t txtime_ns, const struct sockaddr *dest,
                               socklen_t dest_len, int flags) {
        union {
                char buf[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } control;
        struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
        struct msghdr msg = {
                .msg_name = (void *) dest,
                .msg_namelen = dest ? dest_len : 0,
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
        };
        ssize_t n;

        if (!buf && len > 0)
                return -EINVAL;
        msg.msg_controllen = tbs_txtime_control_build(txtime_ns, control.buf, sizeof(control.buf));
        n = sendmsg(fd, &msg, flags);
        return n < 0 ? -errno : n;
}

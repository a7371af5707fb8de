/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Sending with a launch time: the SCM_TXTIME control message. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "tbs-internal.h"

#ifndef SCM_TXTIME
#define SCM_TXTIME 61 /* SO_TXTIME, the kernel's ABI */
#endif

TBS_PUBLIC ssize_t tbs_send_at(int fd, const void *buf, size_t len, uint64_t txtime_ns, const struct sockaddr *dest,
                               socklen_t dest_len, int flags) {
        union {
                char buf[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } control = {};
        struct iovec iov = { .iov_base = (void *) buf, .iov_len = len };
        struct msghdr msg = {
                .msg_name = (void *) dest,
                .msg_namelen = dest ? dest_len : 0,
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        ssize_t n;

        if (!buf && len > 0)
                return -EINVAL;
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_TXTIME;
        c->cmsg_len = CMSG_LEN(sizeof(txtime_ns));
        memcpy(CMSG_DATA(c), &txtime_ns, sizeof(txtime_ns));
        n = sendmsg(fd, &msg, flags);
        return n < 0 ? -errno : n;
}

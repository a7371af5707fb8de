/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nl-transport.h"
#include "qdisc-tree.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct NlQdisc {
        struct nl_sock *sk;
        char ext_ack[256];              /* NLMSGERR_ATTR_MSG of the last failed request or dump */
};

/* One receive, one datagram: an ACK (each is a datagram of its own; with
 * NETLINK_CAP_ACK an error ACK is its header, the kernel's text and an
 * offset) or a part of a dump (the kernel fills dump skbs up to 32 KiB less
 * its overhead, SKB_WITH_OVERHEAD(32768) in netlink_recvmsg(); a qdisc too
 * large for that is left out of the dump, qdisc_dump_judge()). A datagram
 * that does not fit is reported, not cut: -EMSGSIZE. libnl receives into a
 * buffer of this size without peeking first, one recvmsg() per datagram;
 * below the daemon's mmap threshold (tbsd.c) it comes from the heap, not
 * from an mmap() and munmap() per receive. */
#define RECV_SIZE (32 * 1024)

/* Requests of one send: the kernel takes a send up to its socket buffer
 * (~200 KiB by default), and each refused request queues an error answer in
 * our receive buffer before the send's ACK: 128 of them stay well inside
 * its default size. */
#define SEND_BYTES (32 * 1024)
#define SEND_MAX NL_TRANSPORT_SEND_MAX

#define EXT_ACK_MAX 256                 /* room for the kernel's message of a refused request */

int nl_errno(int nle) {
        switch (abs(nle)) {
        case 0:                 return 0;
        case NLE_NOMEM:         return -ENOMEM;
        case NLE_INVAL:         return -EINVAL;
        case NLE_AGAIN:         return -EAGAIN;
        case NLE_BAD_SOCK:      return -EBADF;
        case NLE_NODEV:         return -ENODEV;
        case NLE_OBJ_NOTFOUND:  return -ENOENT;
        case NLE_OPNOTSUPP:     return -EOPNOTSUPP;
        case NLE_PERM:          return -EPERM;
        case NLE_BUSY:          return -EBUSY;
        case NLE_RANGE:         return -ERANGE;
        case NLE_MSGSIZE:       return -EMSGSIZE;
        case NLE_MSG_TRUNC:     return -EMSGSIZE;
        case NLE_EXIST:         return -EEXIST;
        case NLE_SEQ_MISMATCH:  return -EILSEQ;
        case NLE_INTR:          return -EINTR;
        case NLE_NOACCESS:      return -EACCES;
        case NLE_NOADDR:        return -EADDRNOTAVAIL;
        case NLE_MSG_OVERFLOW:  return -ENOBUFS;
        default:                return -EIO;
        }
}

int nl_ext_ack_message(const struct nlmsghdr *h, char *buf, size_t size) {
        const struct nlmsgerr *e;
        struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
        size_t off = NLMSG_HDRLEN + sizeof(*e);

        if (size > 0)
                buf[0] = 0;
        if (h->nlmsg_type != NLMSG_ERROR || h->nlmsg_len < off)
                return -EBADMSG;
        if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
                return 0;
        e = (const struct nlmsgerr *) ((const uint8_t *) h + NLMSG_HDRLEN);
        /* Without NLM_F_CAPPED the whole request follows, not just its header. */
        if (!(h->nlmsg_flags & NLM_F_CAPPED)) {
                if (e->msg.nlmsg_len < NLMSG_HDRLEN)
                        return -EBADMSG;
                off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
        }
        if (off >= h->nlmsg_len)
                return off == h->nlmsg_len ? 0 : -EBADMSG;
        if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *) ((uint8_t *) h + off),
                      (int) (h->nlmsg_len - off), NULL) < 0)
                return -EBADMSG;
        if (!tb[NLMSGERR_ATTR_MSG])
                return 0;
        if (size > 0)
                nla_strlcpy(buf, tb[NLMSGERR_ATTR_MSG], size);
        return 1;
}

int nl_qdisc_new(NlQdisc **ret) {
        _cleanup_nl_qdisc_ NlQdisc *nl = NULL;
        int one = 1, k;

        nl = calloc(1, sizeof(*nl));
        if (!nl)
                return -ENOMEM;
        nl->sk = nl_socket_alloc();
        if (!nl->sk)
                return -ENOMEM;
        k = nl_connect(nl->sk, NETLINK_ROUTE);
        if (k < 0)
                return nl_errno(k);
        if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
                return negative_errno();
        /* Not fatal: without it the TLVs follow the echoed request (handled). */
        (void) setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        /* One recvmsg() per datagram into a buffer of known size, instead of
         * a MSG_PEEK first to learn it. */
        nl_socket_disable_msg_peek(nl->sk);
        k = nl_socket_set_msg_buf_size(nl->sk, RECV_SIZE);
        if (k < 0)
                return nl_errno(k);

        *ret = TAKE_PTR(nl);
        return 0;
}

NlQdisc *nl_qdisc_free(NlQdisc *nl) {
        if (!nl)
                return NULL;
        nl_socket_free(nl->sk);
        free(nl);
        return NULL;
}

const char *nl_transport_ext_ack(const NlQdisc *nl) {
        return nl->ext_ack;
}

void nl_requests_done(NlRequest *reqs, size_t n) {
        for (size_t i = 0; reqs && i < n; i++)
                reqs[i].ext_ack = mfree(reqs[i].ext_ack);
}

/* Send the messages of iov in one sendmsg(). Returns 0 or -errno. */
static int send_iovec(NlQdisc *nl, struct nl_msg *first, struct iovec *iov, size_t n_iov, size_t len) {
        int k;

        do
                k = nl_send_iovec(nl->sk, first, iov, (unsigned) n_iov);
        while (k == -NLE_INTR);
        if (k < 0)
                return nl_errno(k);
        return (size_t) k == len ? 0 : -EIO;
}

/* One receive (libnl allocates *ret_buf: free it). Returns the length or
 * -errno; an end of file is -ECONNRESET. */
static int recv_one(NlQdisc *nl, unsigned char **ret_buf) {
        struct sockaddr_nl peer = {};
        int k;

        *ret_buf = NULL;
        k = nl_recv(nl->sk, &peer, ret_buf, NULL);
        if (k == 0)
                return -ECONNRESET;
        return k < 0 ? nl_errno(k) : k;
}

/* One send of reqs[0..n) (n <= SEND_MAX) and the reading of its answers. */
static int exchange_one_send(NlQdisc *nl, NlRequest *reqs, size_t n) {
        struct iovec iov[SEND_MAX];
        uint32_t port = nl_socket_get_local_port(nl->sk), base = 0;
        size_t len = 0;
        bool last_answered = false;
        int k;

        for (size_t i = 0; i < n; i++) {
                struct nlmsghdr *h = nlmsg_hdr(reqs[i].msg);
                uint32_t seq = nl_socket_use_seq(nl->sk);

                if (i == 0)
                        base = seq;
                h->nlmsg_flags |= NLM_F_REQUEST;
                if (i == n - 1)
                        h->nlmsg_flags |= NLM_F_ACK;
                else
                        h->nlmsg_flags &= (uint16_t) ~NLM_F_ACK;
                h->nlmsg_seq = seq;
                h->nlmsg_pid = port;
                reqs[i].error = 0;
                reqs[i].exchange_error = 0;
                reqs[i].ext_ack = mfree(reqs[i].ext_ack);
                iov[i] = (struct iovec) { .iov_base = h, .iov_len = NLMSG_ALIGN(h->nlmsg_len) };
                len += iov[i].iov_len;
        }
        k = send_iovec(nl, reqs[0].msg, iov, n, len);
        if (k < 0)
                return k;

        while (!last_answered) {
                _cleanup_free_ unsigned char *buf = NULL;
                struct nlmsghdr *h;
                int rem;

                rem = recv_one(nl, &buf);
                if (rem < 0)
                        return rem;
                for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
                        const struct nlmsgerr *e;
                        uint32_t i = h->nlmsg_seq - base;

                        if (h->nlmsg_type != NLMSG_ERROR || i >= n ||
                            h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
                                continue;
                        e = nlmsg_data(h);
                        if (e->error < 0 && reqs[i].error == 0) {
                                reqs[i].error = e->error;
                                reqs[i].ext_ack = malloc(EXT_ACK_MAX);
                                if (reqs[i].ext_ack)
                                        (void) nl_ext_ack_message(h, reqs[i].ext_ack, EXT_ACK_MAX);
                        }
                        if (i == n - 1)
                                last_answered = true;
                }
        }
        return 0;
}

int nl_transport_exchange(NlQdisc *nl, NlRequest *reqs, size_t n) {
        size_t at = 0;

        while (at < n) {
                size_t cnt = 0, bytes = 0;
                int k;

                while (at + cnt < n && cnt < SEND_MAX) {
                        size_t l = NLMSG_ALIGN(nlmsg_hdr(reqs[at + cnt].msg)->nlmsg_len);

                        if (cnt > 0 && bytes + l > SEND_BYTES)
                                break;
                        bytes += l;
                        cnt++;
                }
                k = exchange_one_send(nl, reqs + at, cnt);
                if (k < 0) {
                        for (size_t j = at; j < n; j++)
                                reqs[j].exchange_error = k;
                        return k;
                }
                at += cnt;
        }
        return 0;
}

int nl_transport_request(NlQdisc *nl, struct nl_msg *m) {
        NlRequest r = { .msg = m };
        int k;

        nl->ext_ack[0] = 0;
        k = nl_transport_exchange(nl, &r, 1);
        if (k >= 0 && r.error < 0) {
                k = r.error;
                if (r.ext_ack)
                        strncpy(nl->ext_ack, r.ext_ack, sizeof(nl->ext_ack) - 1);
        }
        nl_requests_done(&r, 1);
        return k;
}

/* The dump buffer's first size: a dump of a few hundred interfaces' trees
 * fits without growing; a filtered one starts small. */
#define DUMP_FIRST_SIZE (256 * 1024)
#define DUMP_FIRST_SIZE_FILTERED (16 * 1024)

/* The dump's messages of type keep (RTM_NEWQDISC for a dump of get
 * RTM_GETQDISC) are copied out of each datagram into one growing buffer,
 * back to back; the others are left out. ifindex: 0, or the interface a
 * class or filter dump is of (the kernel dumps those of one interface);
 * parent: 0, or the qdisc or class a filter dump is of. */
static int tc_dump_raw(NlQdisc *nl, uint16_t get, uint16_t keep, int ifindex, uint32_t parent, const int *wanted,
                       size_t n_wanted, void **ret_buf, size_t *ret_len) {
        struct tcmsg t = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex, .tcm_parent = parent };
        struct nl_msg *req = NULL;
        _cleanup_free_ uint8_t *out = NULL;
        size_t len = 0, size = 0;
        struct iovec iov;
        uint32_t seq;
        int k;

        nl->ext_ack[0] = 0;
        req = nlmsg_alloc_simple(get, NLM_F_REQUEST | NLM_F_DUMP);
        if (!req)
                return -ENOMEM;
        if (nlmsg_append(req, &t, sizeof(t), NLMSG_ALIGNTO) < 0) {
                nlmsg_free(req);
                return -ENOMEM;
        }
        seq = nl_socket_use_seq(nl->sk);
        nlmsg_hdr(req)->nlmsg_seq = seq;
        nlmsg_hdr(req)->nlmsg_pid = nl_socket_get_local_port(nl->sk);
        iov = (struct iovec) { .iov_base = nlmsg_hdr(req), .iov_len = nlmsg_hdr(req)->nlmsg_len };
        k = send_iovec(nl, req, &iov, 1, iov.iov_len);
        nlmsg_free(req);
        if (k < 0)
                return k;

        for (;;) {
                _cleanup_free_ unsigned char *buf = NULL;
                struct nlmsghdr *h;
                int rem;

                rem = recv_one(nl, &buf);
                if (rem < 0)
                        return rem;
                if (size - len < (size_t) rem) {
                        size_t n = size ? size * 2 : wanted || ifindex ? DUMP_FIRST_SIZE_FILTERED : DUMP_FIRST_SIZE;
                        uint8_t *p;

                        while (n - len < (size_t) rem)
                                n *= 2;
                        p = realloc(out, n);
                        if (!p)
                                return -ENOMEM;
                        out = p;
                        size = n;
                }
                for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
                        if (h->nlmsg_seq != seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_DONE) {
                                if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) && *(int *) NLMSG_DATA(h) < 0)
                                        return *(int *) NLMSG_DATA(h);
                                *ret_buf = TAKE_PTR(out);
                                *ret_len = len;
                                return 0;
                        }
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                const struct nlmsgerr *e = NLMSG_DATA(h);

                                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                        return -EBADMSG;
                                (void) nl_ext_ack_message(h, nl->ext_ack, sizeof(nl->ext_ack));
                                return e->error < 0 ? e->error : -EBADMSG;
                        }
                        if (h->nlmsg_type != keep)
                                continue;
                        if (wanted && !qdisc_dump_wants(h, wanted, n_wanted))
                                continue;
                        memcpy(out + len, h, h->nlmsg_len);
                        memset(out + len + h->nlmsg_len, 0, NLMSG_ALIGN(h->nlmsg_len) - h->nlmsg_len);
                        len += NLMSG_ALIGN(h->nlmsg_len);
                }
        }
}

int nl_qdisc_dump_raw(NlQdisc *nl, const int *wanted, size_t n_wanted, void **ret_buf, size_t *ret_len) {
        return tc_dump_raw(nl, RTM_GETQDISC, RTM_NEWQDISC, 0, 0, wanted, n_wanted, ret_buf, ret_len);
}

int nl_class_dump_raw(NlQdisc *nl, int ifindex, void **ret_buf, size_t *ret_len) {
        return tc_dump_raw(nl, RTM_GETTCLASS, RTM_NEWTCLASS, ifindex, 0, NULL, 0, ret_buf, ret_len);
}

int nl_filter_dump_raw(NlQdisc *nl, int ifindex, uint32_t parent, void **ret_buf, size_t *ret_len) {
        return tc_dump_raw(nl, RTM_GETTFILTER, RTM_NEWTFILTER, ifindex, parent, NULL, 0, ret_buf, ret_len);
}

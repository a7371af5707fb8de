/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one netlink transport of the qdisc engine: a NETLINK_ROUTE socket of
 * libnl-3 (struct nl_sock) with extended ACKs, one sequence-number space
 * (libnl's own, nl_socket_use_seq()), requests sent in batches (several in
 * one sendmsg(), one ACK to wait for) and dumps read into one buffer.
 * Everything the engine sends and receives goes through here.
 *
 * Nothing here logs above debug. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

struct nl_msg;
struct nlmsghdr;

/* The engine's netlink socket (the name is the one callers have always used). */
typedef struct NlQdisc NlQdisc;

/** Open a NETLINK_ROUTE socket with extended ACKs turned on. Returns 0 and
 *  *ret, or -errno. */
int nl_qdisc_new(NlQdisc **ret);

/** Close and free. Accepts NULL; returns NULL. */
NlQdisc *nl_qdisc_free(NlQdisc *nl);
DEFINE_TRIVIAL_CLEANUP_FUNC(NlQdisc *, nl_qdisc_free);
#define _cleanup_nl_qdisc_ _cleanup_(nl_qdisc_freep)

/* One request of an exchange and the kernel's answer to it. */
typedef struct NlRequest {
        struct nl_msg *msg;             /* not owned; its header's flags, seq and port are set here */
        int error;                      /* 0, or the kernel's -errno for this request */
        char *ext_ack;                  /* the kernel's message for a refused request, or NULL (owned) */
        int exchange_error;             /* -errno when the send that carried it (or an earlier one)
                                         * failed: the kernel's answer is unknown */
} NlRequest;

/** Free what the requests own (the ext_ack texts, not the messages). */
void nl_requests_done(NlRequest *reqs, size_t n);

/* The most requests one sendmsg() of nl_transport_exchange() carries. */
#define NL_TRANSPORT_SEND_MAX 128

/** Send n requests and learn the kernel's answer to each. They go out in
 *  order, as many per sendmsg() as fit (at most NL_TRANSPORT_SEND_MAX and
 *  32 KiB), and only
 *  the last of each send asks for an ACK: the kernel handles a send's
 *  messages in order, goes on after a refused one and answers a refused
 *  request whatever its flags, so the last ACK comes after every error of
 *  the send and a request without an error by then succeeded. After a
 *  failed exchange nothing more is sent (exchange_error is set for the
 *  requests of that send and the later ones). Returns 0, or the -errno of
 *  the first failed exchange. */
int nl_transport_exchange(NlQdisc *nl, NlRequest *reqs, size_t n);

/** One request and its ACK. Returns 0 or -errno; a kernel refusal's text
 *  is then nl_transport_ext_ack(nl) ("" when the kernel gave none). */
int nl_transport_request(NlQdisc *nl, struct nl_msg *m);

/** The kernel's extended-ACK text of the last nl_transport_request() or
 *  dump that failed, "" when none. */
const char *nl_transport_ext_ack(const NlQdisc *nl);

/** One RTM_GETQDISC dump of every interface's qdiscs, as the RTM_NEWQDISC
 *  messages received, back to back (free(*ret_buf)). Build each interface's
 *  tree from it with qdisc_tree_parse_dump() or qdisc_tree_set_parse(): one
 *  dump serves all links. With wanted (n_wanted indexes, ascending) only
 *  the messages of those interfaces are kept (qdisc_dump_wants()): the
 *  kernel (Linux 6.1) dumps every interface whatever the request asks, and
 *  a caller that needs a few need not keep and parse thousands. NULL keeps
 *  all. Returns 0, -EMSGSIZE when a message did not fit a receive, or
 *  another -errno. */
int nl_qdisc_dump_raw(NlQdisc *nl, const int *wanted, size_t n_wanted, void **ret_buf, size_t *ret_len);

/** One RTM_GETTCLASS dump of ifindex's classes, as the RTM_NEWTCLASS
 *  messages received, back to back (free(*ret_buf)); read with
 *  qdisc_tree_add_class_stats(). Returns as nl_qdisc_dump_raw(). */
int nl_class_dump_raw(NlQdisc *nl, int ifindex, void **ret_buf, size_t *ret_len);

/** One RTM_GETTFILTER dump of the filters on parent (a qdisc or class
 *  handle, such as clsact's egress ffff:fff3) of ifindex, as the
 *  RTM_NEWTFILTER messages received, back to back (free(*ret_buf)). No such
 *  parent: an empty dump. Returns as nl_qdisc_dump_raw(). */
int nl_filter_dump_raw(NlQdisc *nl, int ifindex, uint32_t parent, void **ret_buf, size_t *ret_len);

/** The extended-ACK text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR message h,
 *  whether the kernel echoed the whole request or only its header
 *  (NLM_F_CAPPED), copied into buf (size bytes, always terminated; "" when
 *  none). Returns 1 when there was a message, 0 when none, -EBADMSG when h
 *  is not a well-formed NLMSG_ERROR. */
int nl_ext_ack_message(const struct nlmsghdr *h, char *buf, size_t size);

/** libnl's -NLE_* (or NLE_*) as -errno. */
int nl_errno(int nle);

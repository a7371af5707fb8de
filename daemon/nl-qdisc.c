/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "nl-qdisc.h"
#include "qdisc-owner.h"
#include "qdisc.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct NlQdisc {
        struct nl_sock *sk;
        int error;                      /* -errno of the last NLMSG_ERROR, 0 if none */
        char ext_ack[256];              /* NLMSGERR_ATTR_MSG of the last NLMSG_ERROR */
        uint32_t batch_seq;             /* sequence numbers of send_batch(), apart from libnl's */
};

/* Room for every ACK of one receive: with NETLINK_CAP_ACK an error ACK is
 * small; without it it echoes a request (at most a few hundred bytes). */
#define BATCH_RECV_SIZE (64 * 1024)
#define NL_EXT_ACK_MAX 256              /* room for the kernel's message of a refused request */

static void nlmsg_freep(struct nl_msg **m) {
        if (*m)
                nlmsg_free(*m);
}
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)


/* libnl's -NLE_* to -errno, for the failures that do not come with the
 * kernel's own errno (those we take from the error callback). */
static int nle_to_errno(int nle) {
        switch (abs(nle)) {
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
        case NLE_EXIST:         return -EEXIST;
        case NLE_MSG_TRUNC:     return -EBADMSG;
        case NLE_SEQ_MISMATCH:  return -EILSEQ;
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

/* Runs for every NLMSG_ERROR with a non-zero error: keep the errno and the
 * extended ACK message. */
static int error_cb(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg) {
        NlQdisc *nl = arg;
        const struct nlmsghdr *h = (const struct nlmsghdr *) ((const uint8_t *) e - NLMSG_HDRLEN);

        nl->error = e->error < 0 ? e->error : -EIO;
        (void) nl_ext_ack_message(h, nl->ext_ack, sizeof(nl->ext_ack));
        return NL_STOP;
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
                return nle_to_errno(k);
        if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0)
                return negative_errno();
        /* Not fatal: without it the TLVs follow the echoed request (handled). */
        (void) setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        k = nl_socket_modify_err_cb(nl->sk, NL_CB_CUSTOM, error_cb, nl);
        if (k < 0)
                return nle_to_errno(k);
        /* Far from libnl's own numbers (seeded from the time as well). */
        nl->batch_seq = (uint32_t) time(NULL) ^ 0x80000000u;

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

/* Send one request and wait for its ACK. Returns 0 or -errno; on a kernel
 * error nl->ext_ack holds its message (may be empty). */
static int send_and_ack(NlQdisc *nl, struct nl_msg *m) {
        int k;

        nl->error = 0;
        nl->ext_ack[0] = 0;
        k = nl_send_auto(nl->sk, m);
        if (k < 0)
                return nle_to_errno(k);
        k = nl_wait_for_ack(nl->sk);
        if (k < 0)
                return nl->error < 0 ? nl->error : nle_to_errno(k);
        return 0;
}

/* "STEP: what the kernel said" for a failure with its ext-ack text. */
static char *step_error_text(const char *ext_ack, int error, const char *step) {
        char *s = NULL;

        if (asprintf(&s, "%s: %s", step, ext_ack[0] ? ext_ack : strerror(-error)) < 0)
                return NULL;
        return s;
}

/* "STEP: what the kernel said" for the last failure of send_and_ack(). */
static char *step_error(const NlQdisc *nl, int error, const char *step) {
        return step_error_text(nl->ext_ack, error, step);
}

/* One request of a batch and the kernel's answer to it. */
typedef struct BatchItem {
        struct nl_msg *msg;             /* owned */
        bool answered;
        int error;                      /* 0 or the kernel's -errno */
        char *ext_ack;                  /* the kernel's message for an error, or NULL */
} BatchItem;

/* The kernel's message for a refused item, "" when it gave none. */
static const char *item_ack(const BatchItem *it) {
        return it->ext_ack ?: "";
}

static void batch_items_free(BatchItem *items, size_t n) {
        for (size_t i = 0; items && i < n; i++) {
                if (items[i].msg)
                        nlmsg_free(items[i].msg);
                free(items[i].ext_ack);
        }
        free(items);
}

/* Send n requests in one send() and learn the kernel's answer to each.
 * The kernel handles the messages of one send in order, goes on with the
 * next after a refused one, and answers a refused request with an error
 * whether or not it asked for an ACK. So only the last request asks for
 * one: its answer comes after every error of the batch, and a request
 * without an error by then succeeded. One receive for a batch that works
 * instead of one per request. Returns 0 when the last answer was read, or
 * -errno when the exchange itself failed (answers may then be missing: the
 * caller cannot know what was done). */
static int send_batch(NlQdisc *nl, BatchItem *const *items, size_t n) {
        _cleanup_free_ uint8_t *buf = NULL, *rbuf = NULL;
        int fd = nl_socket_get_fd(nl->sk);
        size_t len = 0, off = 0;
        bool last_answered = false;
        uint32_t base = nl->batch_seq, port = nl_socket_get_local_port(nl->sk);
        ssize_t k;

        if (n == 0)
                return 0;
        for (size_t i = 0; i < n; i++)
                len += NLMSG_ALIGN(nlmsg_hdr(items[i]->msg)->nlmsg_len);
        buf = calloc(1, len);
        rbuf = malloc(BATCH_RECV_SIZE);
        if (!buf || !rbuf)
                return -ENOMEM;
        nl->batch_seq += (uint32_t) n;
        for (size_t i = 0; i < n; i++) {
                const struct nlmsghdr *h = nlmsg_hdr(items[i]->msg);
                struct nlmsghdr *c = (struct nlmsghdr *) (buf + off);

                memcpy(c, h, h->nlmsg_len);
                c->nlmsg_flags |= NLM_F_REQUEST;
                if (i == n - 1)
                        c->nlmsg_flags |= NLM_F_ACK;
                else
                        c->nlmsg_flags &= (uint16_t) ~NLM_F_ACK;
                c->nlmsg_seq = base + (uint32_t) i;
                c->nlmsg_pid = port;
                items[i]->answered = false;
                items[i]->error = 0;
                items[i]->ext_ack = mfree(items[i]->ext_ack);
                off += NLMSG_ALIGN(h->nlmsg_len);
        }

        do
                k = send(fd, buf, len, 0);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return negative_errno();
        if ((size_t) k != len)
                return -EIO;

        while (!last_answered) {
                struct nlmsghdr *h;
                int rem;

                k = recv(fd, rbuf, BATCH_RECV_SIZE, 0);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        return -ECONNRESET;
                rem = (int) k;
                for (h = (struct nlmsghdr *) rbuf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
                        const struct nlmsgerr *e;
                        uint32_t i = h->nlmsg_seq - base;

                        if (h->nlmsg_type != NLMSG_ERROR || i >= n || items[i]->answered ||
                            h->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
                                continue;
                        e = NLMSG_DATA(h);
                        items[i]->answered = true;
                        items[i]->error = e->error < 0 ? e->error : 0;
                        if (e->error < 0 && (items[i]->ext_ack = malloc(NL_EXT_ACK_MAX)))
                                (void) nl_ext_ack_message(h, items[i]->ext_ack, NL_EXT_ACK_MAX);
                        if (i == n - 1)
                                last_answered = true;
                }
        }
        /* No error before the last answer: done. */
        for (size_t i = 0; i < n; i++)
                items[i]->answered = true;
        return 0;
}

/* send_batch() for one contiguous array. */
static int send_batch_array(NlQdisc *nl, BatchItem *items, size_t n) {
        _cleanup_free_ BatchItem **ptrs = NULL;

        if (n == 0)
                return 0;
        ptrs = calloc(n, sizeof(BatchItem *));
        if (!ptrs)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                ptrs[i] = &items[i];
        return send_batch(nl, ptrs, n);
}

/* ---- reading the tree back ---- */

typedef struct DumpBuilder {
        int ifindex;
        InstalledQDisc *all;
        size_t n;
        /* For a QDiscTreeSet: all is a slice of room for n_room items given
         * by the set, and options point into the dump (nothing is copied). */
        bool borrow;
        size_t n_room;
} DumpBuilder;

/* Where the trees of a QDiscTreeSet take their arrays from (the next free
 * element of each pool). */
typedef struct TreePools {
        InstalledQueue *queues;
        uint32_t *handles;
} TreePools;

static void installed_qdisc_done(InstalledQDisc *q) {
        free(q->options);
        *q = (InstalledQDisc) {};
}

static void dump_builder_done(DumpBuilder *b) {
        if (!b->borrow) {
                for (size_t i = 0; i < b->n; i++)
                        installed_qdisc_done(&b->all[i]);
                free(b->all);
        }
        b->all = NULL;
        b->n = 0;
}

static int parse_stats(struct nlattr *stats2, QDiscStats *st) {
        struct nlattr *tb[TCA_STATS_MAX + 1];

        if (nla_parse_nested(tb, TCA_STATS_MAX, stats2, NULL) < 0)
                return -EBADMSG;
        if (tb[TCA_STATS_BASIC]) {
                struct gnet_stats_basic b = {};

                if (nla_len(tb[TCA_STATS_BASIC]) < (int) (sizeof(uint64_t) + sizeof(uint32_t)))
                        return -EBADMSG;
                memcpy(&b, nla_data(tb[TCA_STATS_BASIC]),
                       (size_t) nla_len(tb[TCA_STATS_BASIC]) < sizeof(b) ?
                       (size_t) nla_len(tb[TCA_STATS_BASIC]) : sizeof(b));
                st->bytes = b.bytes;
                st->packets = b.packets;
        }
        if (tb[TCA_STATS_PKT64] && nla_len(tb[TCA_STATS_PKT64]) >= (int) sizeof(uint64_t))
                memcpy(&st->packets, nla_data(tb[TCA_STATS_PKT64]), sizeof(uint64_t));
        if (tb[TCA_STATS_QUEUE]) {
                struct gnet_stats_queue q;

                if (nla_len(tb[TCA_STATS_QUEUE]) < (int) sizeof(q))
                        return -EBADMSG;
                memcpy(&q, nla_data(tb[TCA_STATS_QUEUE]), sizeof(q));
                st->qlen = q.qlen;
                st->backlog_bytes = q.backlog;
                st->drops = q.drops;
                st->requeues = q.requeues;
                st->overlimits = q.overlimits;
        }
        return 0;
}

/* Add one dumped message to b; other types and interfaces are skipped. */
static int dump_builder_add(DumpBuilder *b, struct nlmsghdr *h) {
        struct nlattr *tb[TCA_MAX + 1];
        InstalledQDisc q = {};
        struct tcmsg *t;
        InstalledQDisc *all;
        int k;

        if (h->nlmsg_type != RTM_NEWQDISC)
                return 0;
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
                return -EBADMSG;
        t = nlmsg_data(h);
        if (t->tcm_ifindex != b->ifindex)
                return 0;
        if (nlmsg_parse(h, sizeof(struct tcmsg), tb, TCA_MAX, NULL) < 0)
                return -EBADMSG;
        if (!tb[TCA_KIND] || nla_len(tb[TCA_KIND]) < 1)
                return -EBADMSG;

        q.handle = t->tcm_handle;
        q.parent = t->tcm_parent;
        nla_strlcpy(q.kind, tb[TCA_KIND], sizeof(q.kind));
        if (tb[TCA_STATS2]) {
                k = parse_stats(tb[TCA_STATS2], &q.stats);
                if (k < 0)
                        return k;
        }
        if (tb[TCA_OPTIONS] && nla_len(tb[TCA_OPTIONS]) > 0) {
                q.options_len = (size_t) nla_len(tb[TCA_OPTIONS]);
                q.options_nested = tb[TCA_OPTIONS]->nla_type & NLA_F_NESTED;
                if (b->borrow)
                        q.options = nla_data(tb[TCA_OPTIONS]);
                else {
                        q.options = malloc(q.options_len);
                        if (!q.options)
                                return -ENOMEM;
                        memcpy(q.options, nla_data(tb[TCA_OPTIONS]), q.options_len);
                }
        }

        if (b->borrow) {
                if (b->n >= b->n_room)
                        return -EBADMSG;        /* cannot be: the set counted them */
                b->all[b->n++] = q;
                return 0;
        }
        all = reallocarray(b->all, b->n + 1, sizeof(InstalledQDisc));
        if (!all) {
                installed_qdisc_done(&q);
                return -ENOMEM;
        }
        b->all = all;
        b->all[b->n++] = q;
        return 0;
}

static int queue_cmp(const void *a, const void *b) {
        const InstalledQueue *x = a, *y = b;
        return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* A TCA_OPTIONS attribute rebuilt around a stored payload, for the
 * vtables' parse_options(). */
static struct nlattr *options_attr(const InstalledQDisc *q) {
        struct nlattr *a;

        if (!q->options)
                return NULL;
        a = calloc(1, NLA_HDRLEN + NLA_ALIGN(q->options_len));
        if (!a)
                return NULL;
        a->nla_len = (uint16_t) (NLA_HDRLEN + q->options_len);
        a->nla_type = TCA_OPTIONS | (q->options_nested ? NLA_F_NESTED : 0);
        memcpy((uint8_t *) a + NLA_HDRLEN, q->options, q->options_len);
        return a;
}

static int parse_known(const QDiscVTable *vt, const InstalledQDisc *q, void *ret_spec) {
        _cleanup_free_ struct nlattr *a = NULL;

        if (q->options) {
                a = options_attr(q);
                if (!a)
                        return -ENOMEM;
        }
        return vt->parse_options(a, ret_spec);
}

/* Turn the collected qdiscs into a tree; takes ownership of b's items.
 * With pools (a set's tree) the arrays come from them. */
static int dump_builder_finish(DumpBuilder *b, TreePools *pools, QDiscTree *ret) {
        QDiscTree t = { .ifindex = b->ifindex, .pooled = pools != NULL };
        const QDiscVTable *vt;
        int k;

        if (b->n > 0) {
                t.handles = pools ? pools->handles : calloc(b->n, sizeof(uint32_t));
                if (!t.handles) {
                        k = -ENOMEM;
                        goto fail;
                }
                for (size_t i = 0; i < b->n; i++)
                        if (b->all[i].handle != 0)
                                t.handles[t.n_handles++] = b->all[i].handle;
                if (pools)
                        pools->handles += t.n_handles;
        }
        if (pools)
                t.queues = pools->queues;

        for (size_t i = 0; i < b->n; i++)
                if (b->all[i].parent == TC_H_ROOT) {
                        t.has_root = true;
                        t.root = b->all[i];
                        b->all[i] = (InstalledQDisc) {};
                        break;
                }

        if (t.has_root && t.root.handle != 0) {
                vt = qdisc_vtable_by_kind(t.root.kind);
                if (vt && vt->root) {
                        k = parse_known(vt, &t.root, &t.root_spec);
                        if (k < 0)
                                goto fail;
                        t.root_spec.handle = t.root.handle;
                        t.root_known = true;
                }

                for (size_t i = 0; i < b->n; i++) {
                        InstalledQDisc *q = &b->all[i];
                        InstalledQueue *qs, *iq;

                        if (q->parent == TC_H_ROOT || !q->kind[0] ||
                            TC_H_MAJ(q->parent) != TC_H_MAJ(t.root.handle) || TC_H_MIN(q->parent) == 0)
                                continue;
                        if (!pools) {
                                qs = reallocarray(t.queues, t.n_queues + 1, sizeof(InstalledQueue));
                                if (!qs) {
                                        k = -ENOMEM;
                                        goto fail;
                                }
                                t.queues = qs;
                        }
                        iq = &t.queues[t.n_queues++];
                        *iq = (InstalledQueue) { .queue = TC_H_MIN(q->parent) - 1, .qdisc = *q };
                        *q = (InstalledQDisc) {};

                        if (strcmp(iq->qdisc.kind, qdisc_etf_vtable.kind) == 0) {
                                k = parse_known(&qdisc_etf_vtable, &iq->qdisc, &iq->etf);
                                if (k < 0)
                                        goto fail;
                                iq->etf.queue = iq->queue;
                                iq->is_etf = true;
                                iq->deadline_misses = iq->qdisc.stats.overlimits;
                                iq->invalid = iq->qdisc.stats.drops > iq->qdisc.stats.overlimits ?
                                        iq->qdisc.stats.drops - iq->qdisc.stats.overlimits : 0;
                        }
                }
                if (t.n_queues > 1)
                        qsort(t.queues, t.n_queues, sizeof(InstalledQueue), queue_cmp);
        }
        if (pools)
                pools->queues += t.n_queues;
        if (t.n_queues == 0 && pools)
                t.queues = NULL;

        dump_builder_done(b);
        *ret = t;
        return 0;

fail:
        dump_builder_done(b);
        qdisc_tree_done(&t);
        return k;
}

int qdisc_tree_parse_dump(const void *buf, size_t len, int ifindex, QDiscTree *ret) {
        DumpBuilder b = { .ifindex = ifindex };
        struct nlmsghdr *h;
        int rem = (int) len, k;

        if (len > INT32_MAX)
                return -EINVAL;
        for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
                if (h->nlmsg_type == NLMSG_DONE)
                        break;
                k = dump_builder_add(&b, h);
                if (k < 0) {
                        dump_builder_done(&b);
                        return k;
                }
        }
        return dump_builder_finish(&b, NULL, ret);
}

/* One RTM_NEWQDISC message of a dump, for grouping by interface. */
typedef struct DumpRef {
        int ifindex;
        size_t order;                   /* position in the dump: keeps the kernel's order */
        struct nlmsghdr *h;
} DumpRef;

static int dump_ref_cmp(const void *a, const void *b) {
        const DumpRef *x = a, *y = b;

        if (x->ifindex != y->ifindex)
                return x->ifindex < y->ifindex ? -1 : 1;
        return x->order < y->order ? -1 : x->order > y->order;
}

int qdisc_tree_set_parse(const void *buf, size_t len, QDiscTreeSet *ret) {
        _cleanup_free_ DumpRef *refs = NULL;
        _cleanup_free_ InstalledQDisc *room = NULL;
        QDiscTreeSet set = {};
        TreePools pools;
        struct nlmsghdr *h;
        size_t n = 0, n_ifaces = 0;
        int rem, k;

        if (len > INT32_MAX)
                return -EINVAL;
        rem = (int) len;
        for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem))
                n++;
        if (n > 0) {
                refs = calloc(n, sizeof(DumpRef));
                if (!refs)
                        return -ENOMEM;
        }
        n = 0;
        rem = (int) len;
        for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
                if (h->nlmsg_type == NLMSG_DONE)
                        break;
                if (h->nlmsg_type != RTM_NEWQDISC)
                        continue;
                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
                        return -EBADMSG;
                refs[n] = (DumpRef) { .ifindex = ((struct tcmsg *) nlmsg_data(h))->tcm_ifindex,
                                      .order = n, .h = h };
                n++;
        }
        if (n > 1)
                qsort(refs, n, sizeof(DumpRef), dump_ref_cmp);
        for (size_t i = 0; i < n; i++)
                if (i == 0 || refs[i].ifindex != refs[i - 1].ifindex)
                        n_ifaces++;
        if (n_ifaces > 0) {
                /* Room for every message: no interface needs more. */
                set.trees = calloc(n_ifaces, sizeof(QDiscTree));
                set.queue_pool = calloc(n, sizeof(InstalledQueue));
                set.handle_pool = calloc(n, sizeof(uint32_t));
                room = calloc(n, sizeof(InstalledQDisc));
                if (!set.trees || !set.queue_pool || !set.handle_pool || !room) {
                        qdisc_tree_set_done(&set);
                        return -ENOMEM;
                }
        }
        pools = (TreePools) { .queues = set.queue_pool, .handles = set.handle_pool };

        for (size_t i = 0; i < n;) {
                DumpBuilder b = { .ifindex = refs[i].ifindex, .borrow = true, .all = room + i, .n_room = n - i };

                for (; i < n && refs[i].ifindex == b.ifindex; i++) {
                        k = dump_builder_add(&b, refs[i].h);
                        if (k < 0) {
                                dump_builder_done(&b);
                                qdisc_tree_set_done(&set);
                                return k;
                        }
                }
                k = dump_builder_finish(&b, &pools, &set.trees[set.n]);
                if (k < 0) {
                        qdisc_tree_set_done(&set);
                        return k;
                }
                set.n++;
        }
        *ret = set;
        return 0;
}

const QDiscTree *qdisc_tree_set_find(const QDiscTreeSet *set, int ifindex) {
        size_t lo = 0, hi = set ? set->n : 0;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (set->trees[mid].ifindex == ifindex)
                        return &set->trees[mid];
                if (set->trees[mid].ifindex < ifindex)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return NULL;
}

int qdisc_tree_set_take_slim(QDiscTreeSet *set, int ifindex, QDiscTree *ret) {
        QDiscTree *t = (QDiscTree *) qdisc_tree_set_find(set, ifindex);
        QDiscTree c;

        if (!t)
                return -ENOENT;
        c = *t;
        c.pooled = false;
        c.root.options = NULL;
        c.root.options_len = 0;
        c.handles = NULL;
        c.n_handles = 0;
        c.queues = NULL;
        if (t->n_queues > 0) {
                c.queues = malloc(t->n_queues * sizeof(InstalledQueue));
                if (!c.queues)
                        return -ENOMEM;
                memcpy(c.queues, t->queues, t->n_queues * sizeof(InstalledQueue));
                for (size_t i = 0; i < c.n_queues; i++) {
                        c.queues[i].qdisc.options = NULL;
                        c.queues[i].qdisc.options_len = 0;
                }
        }
        /* root_spec (and what it owns) went over to c with the copy. */
        *t = (QDiscTree) { .ifindex = ifindex, .pooled = true };
        *ret = c;
        return 0;
}

void qdisc_tree_set_done(QDiscTreeSet *set) {
        if (!set)
                return;
        for (size_t i = 0; i < set->n; i++)
                qdisc_tree_done(&set->trees[i]);
        free(set->trees);
        free(set->queue_pool);
        free(set->handle_pool);
        free(set->dump);
        *set = (QDiscTreeSet) {};
}

void qdisc_tree_done(QDiscTree *t) {
        if (!t)
                return;
        if (t->pooled) {        /* the rest belongs to its set */
                root_spec_done(&t->root_spec);
                *t = (QDiscTree) {};
                return;
        }
        installed_qdisc_done(&t->root);
        root_spec_done(&t->root_spec);
        for (size_t i = 0; i < t->n_queues; i++)
                installed_qdisc_done(&t->queues[i].qdisc);
        free(t->queues);
        free(t->handles);
        *t = (QDiscTree) {};
}

const InstalledQueue *qdisc_tree_find_queue(const QDiscTree *t, uint32_t queue) {
        for (size_t i = 0; i < t->n_queues; i++)
                if (t->queues[i].queue == queue)
                        return &t->queues[i];
        return NULL;
}

/* Handles this apply hands out: majors the dumped tree does not use, below
 * the kernel's automatic range (8000: and up), counting up from the root's. */
typedef struct HandlePool {
        const QDiscTree *tree;
        uint32_t next_major;
} HandlePool;

static bool handle_in_use(const QDiscTree *t, uint32_t major) {
        for (size_t i = 0; i < t->n_handles; i++)
                if (TC_H_MAJ(t->handles[i]) == TC_H_MAKE(major << 16, 0))
                        return true;
        return false;
}

static int handle_pool_next(HandlePool *p, uint32_t *ret) {
        for (; p->next_major < 0x8000; p->next_major++)
                if (!handle_in_use(p->tree, p->next_major)) {
                        *ret = p->next_major++ << 16;
                        return 0;
                }
        return -ENOSPC;
}

/* Room kept free for one receive of a dump: the kernel fills dump skbs up to
 * about 32 KiB (more only for a single larger message, which it then
 * reports truncated: -EMSGSIZE here). */
#define DUMP_RECV_ROOM (64 * 1024)

/* The dump is read straight into one growing buffer (no peeking, no copy
 * per message): the messages of other types are squeezed out as they come. */
int nl_qdisc_dump_raw(NlQdisc *nl, void **ret_buf, size_t *ret_len) {
        struct {
                struct nlmsghdr h;
                struct tcmsg t;
        } req = {
                .h = {
                        .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
                        .nlmsg_type = RTM_GETQDISC,
                        .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                        .nlmsg_seq = nl->batch_seq++,
                        .nlmsg_pid = nl_socket_get_local_port(nl->sk),
                },
                .t = { .tcm_family = AF_UNSPEC },
        };
        int fd = nl_socket_get_fd(nl->sk);
        _cleanup_free_ uint8_t *buf = NULL;
        size_t len = 0, size = 0;
        ssize_t k;

        nl->error = 0;
        nl->ext_ack[0] = 0;
        do
                k = send(fd, &req, req.h.nlmsg_len, 0);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return negative_errno();

        for (;;) {
                struct nlmsghdr *h;
                size_t off;
                int rem;

                if (size - len < DUMP_RECV_ROOM) {
                        size_t n = size ? size * 2 : 4 * DUMP_RECV_ROOM;
                        uint8_t *t;

                        while (n - len < DUMP_RECV_ROOM)
                                n *= 2;
                        t = realloc(buf, n);
                        if (!t)
                                return -ENOMEM;
                        buf = t;
                        size = n;
                }
                k = recv(fd, buf + len, size - len, MSG_TRUNC);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if ((size_t) k > size - len)
                        return -EMSGSIZE;

                /* Keep the RTM_NEWQDISC messages of this dump, in place. */
                off = len;
                rem = (int) k;
                for (h = (struct nlmsghdr *) (buf + len); NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
                        if (h->nlmsg_seq != req.h.nlmsg_seq)
                                continue;
                        if (h->nlmsg_type == NLMSG_DONE) {
                                if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) && *(int *) NLMSG_DATA(h) < 0)
                                        return *(int *) NLMSG_DATA(h);
                                *ret_buf = TAKE_PTR(buf);
                                *ret_len = off;
                                return 0;
                        }
                        if (h->nlmsg_type == NLMSG_ERROR) {
                                const struct nlmsgerr *e = NLMSG_DATA(h);

                                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                        return -EBADMSG;
                                (void) nl_ext_ack_message(h, nl->ext_ack, sizeof(nl->ext_ack));
                                nl->error = e->error < 0 ? e->error : -EBADMSG;
                                return nl->error;
                        }
                        if (h->nlmsg_type != RTM_NEWQDISC)
                                continue;
                        if ((uint8_t *) h != buf + off)
                                memmove(buf + off, h, h->nlmsg_len);
                        memset(buf + off + h->nlmsg_len, 0, NLMSG_ALIGN(h->nlmsg_len) - h->nlmsg_len);
                        off += NLMSG_ALIGN(h->nlmsg_len);
                }
                len = off;
        }
}

int nl_qdisc_dump_all(NlQdisc *nl, QDiscTreeSet *ret) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        k = nl_qdisc_dump_raw(nl, &buf, &len);
        if (k < 0)
                return k;
        k = qdisc_tree_set_parse(buf, len, ret);
        if (k < 0)
                return k;
        ret->dump = TAKE_PTR(buf);      /* the option payloads point into it */
        return 0;
}

int qdisc_dump_judge(const QDiscTree *t, int iface_flags) {
        if (t && t->has_root)
                return 0;
        if (iface_flags < 0)
                return iface_flags;
        /* An interface that is up always has a root the dump shows (the
         * default one at least); only one never brought up has none. */
        return (iface_flags & IFF_UP) ? -EAGAIN : 0;
}

/* The interface's flags (IFF_*), -ENODEV when it is gone, or -errno. */
static int iface_flags(int ifindex) {
        struct ifreq ifr = {};
        int fd, k;

        if (!if_indextoname((unsigned) ifindex, ifr.ifr_name))
                return errno == ENXIO || errno == ENODEV ? -ENODEV : negative_errno();
        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        k = ioctl(fd, SIOCGIFFLAGS, &ifr);
        if (k < 0)
                k = errno == ENODEV ? -ENODEV : negative_errno();
        else
                k = (unsigned short) ifr.ifr_flags;
        close(fd);
        return k;
}

int qdisc_dump_judge_ifindex(const QDiscTree *t, int ifindex) {
        if (t && t->has_root)
                return 0;
        return qdisc_dump_judge(t, iface_flags(ifindex));
}

int nl_qdisc_dump(NlQdisc *nl, int ifindex, QDiscTree *ret) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        k = nl_qdisc_dump_raw(nl, &buf, &len);
        if (k < 0)
                return k;
        k = qdisc_tree_parse_dump(buf, len, ifindex, ret);
        if (k < 0)
                return k;
        /* The kernel dumps every interface and filters nothing for one that
         * is gone; it also ends a dump without an error where one qdisc is
         * too large for a dump message, leaving out everything after it. */
        if (!ret->has_root) {
                k = qdisc_dump_judge_ifindex(ret, ifindex);
                if (k < 0) {
                        qdisc_tree_done(ret);
                        return k;
                }
        }
        return 0;
}

/* ---- changing the tree ---- */

/* Why nl_qdisc_dump() failed, for an error message. */
static const char *dump_error_text(int k) {
        if (k == -EAGAIN)
                return "the kernel's qdisc dump leaves this interface out (cut short by a qdisc too large "
                       "to dump, on this or another interface); nothing changed";
        return strerror(-k);
}

void apply_report_done(ApplyReport *r) {
        if (!r)
                return;
        for (size_t i = 0; i < r->n_queues; i++)
                free(r->queues[i].reason_buf);
        free(r->queues);
        free(r->error);
        free(r->rollback_error);
        *r = (ApplyReport) {};
}

/* The kind the kernel itself puts on a queue of a root of kind vt. */
static const char *default_child_kind(const QDiscVTable *vt, char buf[static IFNAMSIZ]) {
        FILE *f;

        if (vt && vt->default_child)
                return vt->default_child;
        f = fopen("/proc/sys/net/core/default_qdisc", "re");
        if (f) {
                if (fgets(buf, IFNAMSIZ, f)) {
                        buf[strcspn(buf, "\n")] = 0;
                        fclose(f);
                        if (buf[0])
                                return buf;
                } else
                        fclose(f);
        }
        return "pfifo_fast";
}

/* Recreate a dumped qdisc as it was: kind and raw options, on its parent,
 * with the given handle (0: the kernel picks one). */
static int create_from_installed(NlQdisc *nl, int ifindex, const InstalledQDisc *q, uint32_t handle,
                                 int flags) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        int k;

        /* Sized for the payload: a foreign taprio's options run to kilobytes. */
        k = qdisc_request_with_options(RTM_NEWQDISC, flags, ifindex, handle, q->parent, q->kind,
                                       q->options, q->options ? q->options_len : 0, q->options_nested, &m);
        if (k < 0)
                return k;
        return send_and_ack(nl, m);
}

/* With the kind and handle dumped: the kernel refuses the request ("Invalid
 * handle", "Invalid qdisc name") when another root took the place since. */
static int delete_root(NlQdisc *nl, int ifindex, const InstalledQDisc *root) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        int k;

        k = qdisc_request_new(RTM_DELQDISC, 0, ifindex, root->handle, TC_H_ROOT, root->kind, &m);
        if (k < 0)
                return k;
        return send_and_ack(nl, m);
}

static const char *handle_str(uint32_t h, char buf[static 16]) {
        return tc_handle_to_string(h, buf);
}

static bool root_intact(const QDiscTree *snap, const QDiscTree *cur) {
        const QDiscVTable *vt;

        if (!cur->has_root || cur->root.handle != snap->root.handle ||
            strcmp(cur->root.kind, snap->root.kind) != 0)
                return false;
        if (snap->root_known && cur->root_known) {
                vt = qdisc_vtable_for_root(snap->root_spec.kind);
                return vt && vt->equal(&snap->root_spec, &cur->root_spec);
        }
        return cur->root.options_len == snap->root.options_len &&
               (cur->root.options_len == 0 ||
                memcmp(cur->root.options, snap->root.options, cur->root.options_len) == 0);
}

/* Recreate one dumped child, with its old handle when it had one (falling
 * back to a fresh handle if that one is taken). A fresh explicit handle is
 * what makes the kernel graft rather than try to change the present child. */
static int restore_child(NlQdisc *nl, int ifindex, const InstalledQueue *sq, HandlePool *pool,
                         char **ret_error) {
        char step[96], hb[16];
        uint32_t h = sq->qdisc.handle;
        int k = 0;

        if (h != 0)
                k = create_from_installed(nl, ifindex, &sq->qdisc, h, NLM_F_CREATE | NLM_F_REPLACE);
        if (h == 0 || k < 0) {
                k = handle_pool_next(pool, &h);
                if (k >= 0)
                        k = create_from_installed(nl, ifindex, &sq->qdisc, h,
                                                  NLM_F_CREATE | NLM_F_REPLACE);
        }
        if (k < 0) {
                snprintf(step, sizeof(step), "rollback: txqueue %u (%s on %s)", sq->queue,
                         sq->qdisc.kind, handle_str(sq->qdisc.parent, hb));
                *ret_error = step_error(nl, k, step);
        }
        return k;
}

/* Put back the tree dumped before the apply. Qdiscs that have to be
 * re-created get their old handles where the kernel allows it; a default
 * child (handle 0) can only be re-created with a kernel-chosen handle, so
 * after a rollback such a queue has the same kind and options but another
 * handle. Kinds the engine does not model are re-sent with the options the
 * kernel dumped; qdiscs that dump rounded values come back within that
 * rounding (fq_codel's target and interval, dumped in whole microseconds,
 * can lose 1 us: tests/kernel/test-nl-taprio-rollback.sh). */
static int restore_snapshot(NlQdisc *nl, int ifindex, const QDiscTree *snap, RootKind made_kind,
                            uint32_t made_handle, char **ret_error) {
        _cleanup_(qdisc_tree_done) QDiscTree cur = {};
        const QDiscVTable *made_vt;
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        char step[96], hb[16];
        HandlePool pool;
        int k;

        k = nl_qdisc_dump(nl, ifindex, &cur);
        if (k < 0) {
                if (asprintf(ret_error, "rollback: reading the qdisc tree: %s", strerror(-k)) < 0)
                        *ret_error = NULL;
                return k;
        }
        pool = (HandlePool) { .tree = &cur, .next_major = TC_H_MAJ(snap->root.handle) >> 16 };
        if (pool.next_major == 0)
                pool.next_major = 1;

        /* Only the root found before and the one this apply made are the
         * rollback's to take off: a root someone else put there meanwhile
         * stays (tbsd removes only what it owns). */
        made_vt = qdisc_vtable_for_root(made_kind);
        if (cur.has_root && cur.root.handle != 0 && !root_intact(snap, &cur) &&
            !(made_vt && strcmp(cur.root.kind, made_vt->kind) == 0 && cur.root.handle == made_handle)) {
                if (asprintf(ret_error, "rollback: root %s %s is neither the previous one nor the one "
                             "this apply made; left in place", cur.root.kind,
                             handle_str(cur.root.handle, hb)) < 0)
                        *ret_error = NULL;
                return -EEXIST;
        }

        if (!snap->has_root || snap->root.handle == 0) {
                if (!cur.has_root || cur.root.handle == 0)
                        return 0;
                k = delete_root(nl, ifindex, &cur.root);
                if (k < 0) {
                        snprintf(step, sizeof(step), "rollback: removing root %s",
                                 handle_str(cur.root.handle, hb));
                        *ret_error = step_error(nl, k, step);
                }
                return k;
        }

        if (root_intact(snap, &cur)) {
                for (size_t i = 0; i < snap->n_queues; i++) {
                        const InstalledQueue *sq = &snap->queues[i];
                        const InstalledQueue *cq = qdisc_tree_find_queue(&cur, sq->queue);

                        if (cq && cq->qdisc.handle == sq->qdisc.handle &&
                            strcmp(cq->qdisc.kind, sq->qdisc.kind) == 0)
                                continue;
                        k = restore_child(nl, ifindex, sq, &pool, ret_error);
                        if (k < 0)
                                return k;
                }
                return 0;
        }

        if (cur.has_root && cur.root.handle != 0 && cur.root.handle == snap->root.handle) {
                k = delete_root(nl, ifindex, &cur.root);
                if (k < 0) {
                        snprintf(step, sizeof(step), "rollback: removing root %s",
                                 handle_str(cur.root.handle, hb));
                        *ret_error = step_error(nl, k, step);
                        return k;
                }
        }
        if (snap->root_known) {
                k = qdisc_root_request(ifindex, &snap->root_spec, &m);
                if (k >= 0)
                        k = send_and_ack(nl, m);
        } else
                k = create_from_installed(nl, ifindex, &snap->root, snap->root.handle,
                                          NLM_F_CREATE | NLM_F_REPLACE);
        if (k < 0) {
                snprintf(step, sizeof(step), "rollback: root (%s %s)", snap->root.kind,
                         handle_str(snap->root.handle, hb));
                *ret_error = step_error(nl, k, step);
                return k;
        }
        /* The new root came with default children; put back the others. */
        for (size_t i = 0; i < snap->n_queues; i++) {
                if (snap->queues[i].qdisc.handle == 0)
                        continue;
                k = restore_child(nl, ifindex, &snap->queues[i], &pool, ret_error);
                if (k < 0)
                        return k;
        }
        return 0;
}

/* A literal is pointed to; any other text is copied (a report outlives the
 * probe result the device's own reason comes from). Hundreds of links
 * applied at once would otherwise each keep small copies of the same few
 * texts, spread over the heap the apply's transient work used. */
static int set_reason(QueueApplyResult *q, const char *reason, bool literal) {
        char *t = NULL;

        if (!reason)
                return 0;
        if (!literal) {
                t = strdup(reason);
                if (!t)
                        return -ENOMEM;
        }
        free(q->reason_buf);
        q->reason_buf = t;
        q->reason = t ?: reason;
        return 0;
}

/* What one request of an apply does, for its report and error text. */
typedef enum ApplyStepKind {
        STEP_DELETE_ROOT,
        STEP_ROOT,
        STEP_ETF,
        STEP_RESET_CHILD,
        _STEP_KIND_MAX,
        _STEP_KIND_INVALID = -EINVAL,
} ApplyStepKind;

typedef struct ApplyStep {
        ApplyStepKind kind;
        size_t txq;                     /* STEP_ETF: index in the schedule's txqueues */
        EtfOffloadPlan plan;            /* STEP_ETF */
        const char *why;                /* STEP_ETF: reason of the plan */
        bool why_literal;               /* STEP_ETF: why is a literal, not the device's reason */
        uint32_t handle;                /* STEP_ETF: the new etf's handle */
        bool hw;                        /* STEP_ETF: sent in offload mode */
        char name[96];                  /* "txqueue 1 (etf on 100:2)", for errors */
} ApplyStep;

/* A request that ETF_PLAN_TRY_HARDWARE allows to fail: software follows. */
static bool step_may_fall_back(const ApplyStep *st, int error) {
        return st->kind == STEP_ETF && st->plan == ETF_PLAN_TRY_HARDWARE && st->hw &&
               (error == -EOPNOTSUPP || error == -EINVAL);
}

static void report_init(const Schedule *s, ApplyReport *rep, int *ret_error) {
        *ret_error = 0;
        if (s->n_txqueues == 0)
                return;
        rep->queues = calloc(s->n_txqueues, sizeof(QueueApplyResult));
        if (!rep->queues) {
                *ret_error = -ENOMEM;
                return;
        }
        rep->n_queues = s->n_txqueues;
        for (size_t i = 0; i < s->n_txqueues; i++) {
                rep->queues[i].queue = s->txqueues[i].queue;
                rep->queues[i].requested = s->txqueues[i].offload;
        }
}

/* Record what an etf request that the kernel accepted did. */
static int etf_done(QueueApplyResult *q, bool hw, const char *refused, const char *why, bool why_literal) {
        _cleanup_free_ char *t = NULL;

        q->offload = hw;
        q->changed = true;
        if (!refused)
                return set_reason(q, why, why_literal);
        if (asprintf(&t, "offload refused by the kernel (%s): software mode", refused) < 0)
                return -ENOMEM;
        free(q->reason_buf);
        q->reason = q->reason_buf = TAKE_PTR(t);
        return 0;
}

/* Append step st with request m (taken) to the batch. */
/* Add a request (taking m) to a plan's arrays, which get room for max
 * requests on first use: an interface with nothing to change allocates
 * nothing (hundreds of them touch no new memory). */
static int batch_add(ApplyStep **steps, BatchItem **items, size_t *n, size_t max, const ApplyStep *st,
                     struct nl_msg *m) {
        if (!*steps) {
                *steps = calloc(max, sizeof(ApplyStep));
                *items = calloc(max, sizeof(BatchItem));
                if (!*steps || !*items) {
                        *steps = mfree(*steps);
                        *items = mfree(*items);
                        nlmsg_free(m);
                        return -ENOMEM;
                }
        }
        assert(*n < max);
        (*steps)[*n] = *st;
        (*items)[*n] = (BatchItem) { .msg = m };
        (*n)++;
        return 0;
}

/* One interface's apply: the requests planned from its tree, sent (maybe
 * together with other interfaces' requests), then judged. */
typedef struct ApplyPlan {
        NlQdisc *nl;
        int ifindex;
        const Schedule *s;
        const QDiscTree *snap;
        const DeviceFacts *facts;
        QDiscTree own;                  /* snap dumped here: the caller's had no root */
        uint32_t root_handle;
        ApplyStep *steps;
        BatchItem *items;
        size_t n;
        ApplyReport rep;
} ApplyPlan;

static void apply_plan_done(ApplyPlan *p) {
        qdisc_tree_done(&p->own);
        batch_items_free(p->items, p->n);
        free(p->steps);
        apply_report_done(&p->rep);
        *p = (ApplyPlan) {};
}

/* Every request of the apply, before anything is sent. Returns 0 (p->n may
 * be 0: nothing to do) or -errno with p->rep.error set. */
static int apply_plan_build(ApplyPlan *p) {
        const Schedule *s = p->s;
        const QDiscTree *snap = p->snap;
        int ifindex = p->ifindex;
        ApplyReport rep = {};
        ApplyStep *steps = NULL;
        BatchItem *items = NULL;
        size_t n = 0, max;
        const QDiscVTable *vt;
        RootSpec want;
        HandlePool pool;
        bool root_same;
        char hb[16];
        int k;

        report_init(s, &rep, &k);
        if (k < 0)
                goto out;
        want = s->root;
        if (want.handle == 0)
                want.handle = TBS_DEFAULT_ROOT_HANDLE;
        p->root_handle = want.handle;
        vt = qdisc_vtable_for_root(want.kind);
        if (!vt) {
                k = -EINVAL;
                if (asprintf(&rep.error, "root: unknown qdisc kind") < 0)
                        rep.error = NULL;
                goto out;
        }

        max = 2 + s->n_txqueues + snap->n_queues;

        pool = (HandlePool) { .tree = snap, .next_major = (TC_H_MAJ(want.handle) >> 16) + 1 };
        root_same = snap->has_root && snap->root_known && snap->root.handle == want.handle &&
                    snap->root_spec.kind == want.kind && vt->equal(&want, &snap->root_spec);

        /* The plan: every request is known before anything is sent. */
        if (!root_same) {
                ApplyStep st = { .kind = STEP_ROOT };
                struct nl_msg *m = NULL;

                /* A root that a rollback could not put back is not replaced. */
                k = qdisc_root_replaceable(snap, &rep.error);
                if (k <= 0) {
                        k = k ?: -EEXIST;
                        goto out;
                }

                /* Same handle: the kernel would try to "change" the old root in
                 * place (mqprio cannot), so it goes first. Another handle or the
                 * default root is replaced by the new root in one step. */
                if (snap->has_root && snap->root.handle != 0 && snap->root.handle == want.handle) {
                        ApplyStep del = { .kind = STEP_DELETE_ROOT };

                        snprintf(del.name, sizeof(del.name), "removing the old root (%s %s)",
                                 snap->root.kind, handle_str(snap->root.handle, hb));
                        k = qdisc_request_new(RTM_DELQDISC, 0, ifindex, snap->root.handle, TC_H_ROOT,
                                              snap->root.kind, &m);
                        if (k < 0)
                                goto out;
                        k = batch_add(&steps, &items, &n, max, &del, m);
                        if (k < 0)
                                goto out;
                }
                snprintf(st.name, sizeof(st.name), "root (%s %s)", vt->kind, handle_str(want.handle, hb));
                k = qdisc_root_request(ifindex, &want, &m);
                if (k < 0) {
                        rep.error = step_error_text(k == -EMSGSIZE ? "the request is larger than one netlink "
                                                    "message can be (a gate list above the limits)" : "",
                                                    k, st.name);
                        goto out;
                }
                k = batch_add(&steps, &items, &n, max, &st, m);
                if (k < 0)
                        goto out;
        }

        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *e = &s->txqueues[i];
                QueueApplyResult *q = &rep.queues[i];
                ApplyStep st = { .kind = STEP_ETF, .txq = i };
                struct nl_msg *m = NULL;

                st.plan = etf_offload_plan(e, p->facts, &st.why);
                /* Its reasons are literals but the device's own. */
                st.why_literal = !p->facts || st.why != p->facts->offload_reason;
                if (st.plan < 0) {
                        k = -EINVAL;
                        if (asprintf(&rep.error, "txqueue %u: invalid offload mode", e->queue) < 0)
                                rep.error = NULL;
                        goto out;
                }
                if (root_same) {
                        const InstalledQueue *iq = qdisc_tree_find_queue(snap, e->queue);

                        if (iq && iq->is_etf && etf_matches_plan(&iq->etf, e, st.plan)) {
                                q->offload = iq->etf.offload == OFFLOAD_ON;
                                if (st.plan != ETF_PLAN_TRY_HARDWARE)
                                        k = set_reason(q, st.why, st.why_literal);
                                else
                                        k = set_reason(q, q->offload ? "installed earlier with offload" :
                                                                       "installed earlier in software mode", true);
                                if (k < 0)
                                        goto out;
                                continue;
                        }
                }
                snprintf(st.name, sizeof(st.name), "txqueue %u (etf on %s)", e->queue,
                         handle_str(TC_H_MAKE(TC_H_MAJ(want.handle), e->queue + 1), hb));
                st.hw = st.plan != ETF_PLAN_SOFTWARE;
                k = handle_pool_next(&pool, &st.handle);
                if (k >= 0)
                        k = qdisc_etf_request(ifindex, want.handle, st.handle, e, st.hw, &m);
                if (k < 0) {
                        rep.error = step_error_text("", k, st.name);
                        goto out;
                }
                k = batch_add(&steps, &items, &n, max, &st, m);
                if (k < 0)
                        goto out;
        }

        /* etf children no longer declared get the root's default child back. */
        if (root_same)
                for (size_t i = 0; i < snap->n_queues; i++) {
                        const InstalledQueue *iq = &snap->queues[i];
                        ApplyStep st = { .kind = STEP_RESET_CHILD };
                        char kb[IFNAMSIZ];
                        const char *kind;
                        struct nl_msg *m = NULL;
                        uint32_t h;

                        if (!iq->is_etf || schedule_find_txqueue(s, iq->queue))
                                continue;
                        kind = default_child_kind(vt, kb);  /* may read a sysctl: only when needed */
                        snprintf(st.name, sizeof(st.name), "txqueue %u (%s on %s)", iq->queue, kind,
                                 handle_str(iq->qdisc.parent, hb));
                        k = handle_pool_next(&pool, &h);
                        if (k >= 0)
                                k = qdisc_request_new(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex,
                                                      h, iq->qdisc.parent, kind, &m);
                        if (k < 0) {
                                rep.error = step_error_text("", k, st.name);
                                goto out;
                        }
                        k = batch_add(&steps, &items, &n, max, &st, m);
                        if (k < 0)
                                goto out;
                }

        k = 0;
out:
        p->steps = steps;
        p->items = items;
        p->n = n;
        p->rep = rep;
        return k;
}

/* Judge the kernel's answers to a sent plan (send_result: what the
 * exchange gave), fall back to software where offload was only tried, and
 * roll back on failure. Returns like nl_qdisc_apply(); the report moves to
 * *ret. */
static int apply_plan_finish(ApplyPlan *p, int send_result, ApplyReport *ret) {
        NlQdisc *nl = p->nl;
        int ifindex = p->ifindex;
        const Schedule *s = p->s;
        const QDiscTree *snap = p->snap;
        ApplyStep *steps = p->steps;
        BatchItem *items = p->items;
        size_t n = p->n, nf = 0, n_refused = 0;
        ApplyStep *fsteps = NULL;
        BatchItem *fitems = NULL;
        ApplyReport rep = p->rep;
        uint32_t root_handle = p->root_handle;
        bool unknown = false;
        int k;

        p->rep = (ApplyReport) {};      /* moves to *ret */
        if (n == 0) {
                k = 0;
                goto out;
        }
        k = send_result;
        if (k < 0) {
                unknown = true;
                if (asprintf(&rep.error, "sending %zu request(s): %s", n, strerror(-k)) < 0)
                        rep.error = NULL;
                goto fail;
        }
        for (size_t i = 0; i < n; i++) {
                const ApplyStep *st = &steps[i];

                if (items[i].error < 0)
                        continue;
                rep.n_messages++;
                if (st->kind == STEP_ROOT)
                        rep.root_replaced = true;
                else if (st->kind == STEP_ETF) {
                        k = etf_done(&rep.queues[st->txq], st->hw, NULL, st->why, st->why_literal);
                        if (k < 0)
                                goto fail;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (items[i].error < 0 && !step_may_fall_back(&steps[i], items[i].error)) {
                        k = items[i].error;
                        rep.error = step_error_text(item_ack(&items[i]), k, steps[i].name);
                        goto fail;
                }

        /* Offload tried without facts and refused: the same etf in software. */
        for (size_t i = 0; i < n; i++)
                if (items[i].error < 0)
                        n_refused++;
        if (n_refused > 0) {
                for (size_t i = 0; i < n; i++) {
                        ApplyStep st = steps[i];
                        struct nl_msg *m = NULL;

                        if (items[i].error >= 0)
                                continue;
                        st.hw = false;
                        k = qdisc_etf_request(ifindex, root_handle, st.handle, &s->txqueues[st.txq], false, &m);
                        if (k < 0)
                                goto fail;
                        k = batch_add(&fsteps, &fitems, &nf, n_refused, &st, m);
                        if (k < 0)
                                goto fail;
                }
                k = send_batch_array(nl, fitems, nf);
                if (k < 0) {
                        unknown = true;
                        if (asprintf(&rep.error, "sending %zu request(s): %s", nf, strerror(-k)) < 0)
                                rep.error = NULL;
                        goto fail;
                }
                for (size_t i = 0, j = 0; i < n; i++) {
                        if (items[i].error >= 0)
                                continue;
                        if (fitems[j].error < 0) {
                                k = fitems[j].error;
                                rep.error = step_error_text(item_ack(&fitems[j]), k, fsteps[j].name);
                                goto fail;
                        }
                        rep.n_messages++;
                        k = etf_done(&rep.queues[fsteps[j].txq], false,
                                     items[i].ext_ack && items[i].ext_ack[0] ? items[i].ext_ack : strerror(-items[i].error),
                                     NULL, true);
                        if (k < 0)
                                goto fail;
                        j++;
                }
        }

        k = rep.n_messages > 0;
        goto out;

fail:
        if (!rep.error && asprintf(&rep.error, "%s", strerror(-k)) < 0)
                rep.error = NULL;
        /* Refused requests change nothing: with no change made there is
         * nothing to undo. */
        if (rep.n_messages == 0 && !unknown)
                rep.rolled_back = true;
        else
                rep.rolled_back = restore_snapshot(nl, ifindex, snap, s->root.kind, root_handle,
                                                   &rep.rollback_error) >= 0;
out:
        batch_items_free(fitems, nf);
        free(fsteps);
        *ret = rep;
        return k;
}


/* Requests of several interfaces share a send up to this much (the kernel
 * takes a send up to its socket buffer, ~200 KiB by default) and this many
 * requests (each refused one queues an error answer in our receive buffer
 * before the batch's ACK: 128 of them stay well inside its default size). */
#define BATCH_SEND_BYTES (32 * 1024)
#define BATCH_SEND_MAX 128

int nl_qdisc_apply_many(NlQdisc *nl, const ApplyJob *jobs, size_t n, ApplyReport *ret_reports,
                        int *ret_results) {
        _cleanup_free_ ApplyPlan *plans = NULL;
        _cleanup_free_ BatchItem **items = NULL;
        _cleanup_free_ size_t *owner = NULL;
        _cleanup_free_ int *built = NULL, *sent = NULL;
        size_t total = 0, at = 0;

        if (n == 0)
                return 0;
        plans = calloc(n, sizeof(ApplyPlan));
        built = calloc(n, sizeof(int));
        sent = calloc(n, sizeof(int));
        if (!plans || !built || !sent) {
                for (size_t i = 0; i < n; i++) {
                        ret_reports[i] = (ApplyReport) {};
                        ret_results[i] = -ENOMEM;
                }
                return -ENOMEM;
        }

        for (size_t i = 0; i < n; i++) {
                plans[i] = (ApplyPlan) {
                        .nl = nl,
                        .ifindex = jobs[i].ifindex,
                        .s = jobs[i].schedule,
                        .snap = jobs[i].tree,
                        .facts = jobs[i].facts,
                };
                /* Missing from the shared dump: either the default root of a
                 * down interface or a dump cut short (qdisc_dump_judge()).
                 * Taking it for "only the default" would plan against a tree
                 * that is not there; a dump of its own tells. */
                if (!plans[i].snap || !plans[i].snap->has_root) {
                        built[i] = nl_qdisc_dump(nl, jobs[i].ifindex, &plans[i].own);
                        plans[i].snap = &plans[i].own;
                        if (built[i] < 0) {
                                report_init(jobs[i].schedule, &plans[i].rep, &(int) {0});
                                if (asprintf(&plans[i].rep.error, "reading the qdisc tree: %s",
                                             dump_error_text(built[i])) < 0)
                                        plans[i].rep.error = NULL;
                                continue;
                        }
                }
                built[i] = apply_plan_build(&plans[i]);
                if (built[i] >= 0)
                        total += plans[i].n;
        }

        items = calloc(total ?: 1, sizeof(BatchItem *));
        owner = calloc(total ?: 1, sizeof(size_t));
        if (!items || !owner)
                for (size_t i = 0; i < n; i++)
                        sent[i] = -ENOMEM;
        else {
                for (size_t i = 0, j = 0; i < n; i++)
                        for (size_t q = 0; built[i] >= 0 && q < plans[i].n; q++, j++) {
                                items[j] = &plans[i].items[q];
                                owner[j] = i;
                        }

                /* The sends go out in order; the kernel handles every request
                 * on its own, so one interface's refused request does not
                 * stop the next interface's. After a failed exchange nothing
                 * more is sent: the interfaces not reached roll back (a no-op). */
                while (at < total) {
                        size_t cnt = 0, bytes = 0;
                        int k;

                        while (at + cnt < total && cnt < BATCH_SEND_MAX) {
                                size_t l = NLMSG_ALIGN(nlmsg_hdr(items[at + cnt]->msg)->nlmsg_len);

                                if (cnt > 0 && bytes + l > BATCH_SEND_BYTES)
                                        break;
                                bytes += l;
                                cnt++;
                        }
                        k = send_batch(nl, items + at, cnt);
                        if (k < 0) {
                                for (size_t j = at; j < total; j++)
                                        sent[owner[j]] = k;
                                break;
                        }
                        at += cnt;
                }
        }

        for (size_t i = 0; i < n; i++) {
                if (built[i] < 0) {
                        ret_reports[i] = plans[i].rep;
                        plans[i].rep = (ApplyReport) {};
                        ret_results[i] = built[i];
                } else
                        ret_results[i] = apply_plan_finish(&plans[i], sent[i], &ret_reports[i]);
                apply_plan_done(&plans[i]);
        }
        return 0;
}

int nl_qdisc_apply_with_tree(NlQdisc *nl, int ifindex, const Schedule *s, const DeviceFacts *facts,
                             const QDiscTree *snap, ApplyReport *ret) {
        ApplyJob job = { .ifindex = ifindex, .schedule = s, .facts = facts, .tree = snap };
        int result;

        (void) nl_qdisc_apply_many(nl, &job, 1, ret, &result);
        return result;
}

int nl_qdisc_apply(NlQdisc *nl, int ifindex, const Schedule *s, const DeviceFacts *facts,
                   ApplyReport *ret) {
        _cleanup_(qdisc_tree_done) QDiscTree snap = {};
        ApplyReport rep = {};
        int k;

        k = nl_qdisc_dump(nl, ifindex, &snap);
        if (k < 0) {
                int e;

                report_init(s, &rep, &e);
                if (asprintf(&rep.error, "reading the qdisc tree: %s", dump_error_text(k)) < 0)
                        rep.error = NULL;
                *ret = rep;
                return k;
        }
        return nl_qdisc_apply_with_tree(nl, ifindex, s, facts, &snap, ret);
}

int nl_qdisc_remove(NlQdisc *nl, int ifindex, const RootSpec *const *ours, size_t n_ours, char **ret_error) {
        _cleanup_(qdisc_tree_done) QDiscTree t = {};
        char step[64], hb[16];
        int k;

        k = nl_qdisc_dump(nl, ifindex, &t);
        if (k < 0) {
                if (ret_error && asprintf(ret_error, "reading the qdisc tree: %s", dump_error_text(k)) < 0)
                        *ret_error = NULL;
                return k;
        }
        k = qdisc_root_owner(&t, ours, n_ours, ret_error);
        if (k < 0)
                return k;
        if (k == ROOT_OWNER_DEFAULT)
                return 0;
        if (k == ROOT_OWNER_FOREIGN)
                return -EEXIST;
        k = delete_root(nl, ifindex, &t.root);
        if (k < 0) {
                snprintf(step, sizeof(step), "removing root (%s %s)", t.root.kind,
                         handle_str(t.root.handle, hb));
                if (ret_error)
                        *ret_error = step_error(nl, k, step);
                return k;
        }
        return 1;
}

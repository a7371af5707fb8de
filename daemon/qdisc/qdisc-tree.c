/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <unistd.h>

#include <netlink/msg.h>

#include "qdisc-tree.h"
#include "qdisc.h"

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

static int parse_stats(struct nlattr *stats2, const char *kind, QDiscStats *st) {
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
        if (tb[TCA_STATS_APP] && strcmp(kind, "taprio") == 0)
                qdisc_parse_taprio_offload_stats(tb[TCA_STATS_APP], &st->offload);
        return 0;
}

/* TCA_STAB as the kernel dumps it: the sizespec alone (the table stays
 * in the kernel). */
static int dump_parse_stab(struct nlattr *a, StabSpec *ret) {
        struct nlattr *tb[TCA_STAB_MAX + 1];
        struct tc_sizespec spec = {};

        if (nla_parse_nested(tb, TCA_STAB_MAX, a, NULL) < 0)
                return -EBADMSG;
        if (!tb[TCA_STAB_BASE])
                return 0;
        memcpy(&spec, nla_data(tb[TCA_STAB_BASE]),
               (size_t) nla_len(tb[TCA_STAB_BASE]) < sizeof(spec) ? (size_t) nla_len(tb[TCA_STAB_BASE])
                                                                   : sizeof(spec));
        stab_from_sizespec(&spec, ret);
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
                k = parse_stats(tb[TCA_STATS2], q.kind, &q.stats);
                if (k < 0)
                        return k;
        }
        if (tb[TCA_STAB]) {
                k = dump_parse_stab(tb[TCA_STAB], &q.stab);
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

int installed_qdisc_unexpressed(const InstalledQDisc *q, const char **ret) {
        _cleanup_free_ struct nlattr *a = NULL;
        const QDiscVTable *vt = qdisc_vtable_by_kind(q->kind);

        *ret = NULL;
        if (!vt || !vt->unexpressed)
                return 0;
        if (q->options) {
                a = options_attr(q);
                if (!a)
                        return -ENOMEM;
        }
        *ret = vt->unexpressed(a);
        return 0;
}

const char *qdisc_system_default_kind(char buf[static IFNAMSIZ]) {
        FILE *f;

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

/* q is an etf under a cbs (parent CBS:1): its settings into the cbs's
 * spec (etf_child, the etf fields, child_offload). Another kind is left
 * out of the model (tbsctl import refuses it by its handle). Returns 1
 * when folded, 0 when not an etf, or -errno. */
static int fold_etf_child(const InstalledQDisc *q, EtfSpec *parent) {
        EtfSpec e;
        int k;

        if (strcmp(q->kind, qdisc_etf_vtable.kind) != 0)
                return 0;
        k = parse_known(&qdisc_etf_vtable, q, &e);
        if (k < 0)
                return k;
        parent->etf_child = true;
        parent->child_offload = e.offload;
        parent->etf = e.etf;            /* the etf's settings, kept by the cbs (EtfSpec.etf) */
        return 1;
}

/* The qdiscs left in b that sit under a TX queue's cbs (parent CBS:1):
 * an etf there is that queue's chain (InstalledQueue.child). */
static int attach_etf_children(DumpBuilder *b, QDiscTree *t) {
        for (size_t i = 0; i < b->n; i++) {
                InstalledQDisc *q = &b->all[i];

                if (!q->kind[0] || q->parent == TC_H_ROOT || TC_H_MIN(q->parent) != 1)
                        continue;
                for (size_t j = 0; j < t->n_queues; j++) {
                        InstalledQueue *iq = &t->queues[j];
                        int k;

                        if (!installed_queue_is_declarable(iq) ||
                            !qdisc_vtable_for_child(iq->etf.kind)->takes_etf_child || iq->qdisc.handle == 0 ||
                            iq->child.kind[0] ||
                            TC_H_MAJ(q->parent) != TC_H_MAJ(iq->qdisc.handle))
                                continue;
                        k = fold_etf_child(q, &iq->etf);
                        if (k < 0)
                                return k;
                        if (k == 0)
                                break;
                        iq->child = *q;
                        *q = (InstalledQDisc) {};
                        iq->deadline_misses = iq->child.stats.overlimits;
                        iq->invalid = iq->child.stats.drops > iq->child.stats.overlimits ?
                                iq->child.stats.drops - iq->child.stats.overlimits : 0;
                        break;
                }
        }
        return 0;
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
                vt = qdisc_vtable_root_by_kind(t.root.kind);
                if (vt) {
                        k = parse_known(vt, &t.root, &t.root_spec);
                        if (k < 0)
                                goto fail;
                        t.root_spec.handle = t.root.handle;
                        t.root_spec.stab = t.root.stab;
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

                        /* The etf under a cbs root is the root's (its leaf). */
                        if (t.root_known && qdisc_vtable_for_root(t.root_spec.kind)->takes_etf_child) {
                                k = fold_etf_child(&iq->qdisc, &t.root_spec.leaf);
                                if (k < 0)
                                        goto fail;
                                continue;
                        }
                        /* The kinds a schedule declares on a queue parse into
                         * the same EtfSpec the parser fills. */
                        for (TxqKind kk = 0; kk < _TXQ_KIND_MAX; kk++) {
                                const QDiscVTable *cvt = qdisc_vtable_for_child(kk);

                                if (strcmp(iq->qdisc.kind, cvt->kind) != 0)
                                        continue;
                                k = parse_known(cvt, &iq->qdisc, &iq->etf);
                                iq->etf.stab = iq->qdisc.stab;
                                if (k < 0)
                                        goto fail;
                                iq->etf.queue = iq->queue;
                                iq->is_etf = cvt->releases_at_txtime;
                                iq->is_cbs = !cvt->releases_at_txtime;
                                break;
                        }
                        if (iq->is_etf) {
                                iq->deadline_misses = iq->qdisc.stats.overlimits;
                                iq->invalid = iq->qdisc.stats.drops > iq->qdisc.stats.overlimits ?
                                        iq->qdisc.stats.drops - iq->qdisc.stats.overlimits : 0;
                        }
                }
                k = attach_etf_children(b, &t);
                if (k < 0)
                        goto fail;
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

static int ifindex_cmp(const void *a, const void *b) {
        int x = *(const int *) a, y = *(const int *) b;

        return (x > y) - (x < y);
}

size_t qdisc_dump_wanted_sort(int *v, size_t n) {
        size_t k = 0;

        if (n > 1)
                qsort(v, n, sizeof(int), ifindex_cmp);
        for (size_t i = 0; i < n; i++)
                if (k == 0 || v[i] != v[k - 1])
                        v[k++] = v[i];
        return k;
}

bool qdisc_dump_wants(const struct nlmsghdr *h, const int *wanted, size_t n_wanted) {
        size_t lo = 0, hi = n_wanted;
        int ifindex;

        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
                return true;
        ifindex = ((const struct tcmsg *) NLMSG_DATA(h))->tcm_ifindex;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (wanted[mid] == ifindex)
                        return true;
                if (wanted[mid] < ifindex)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return false;
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
                        c.queues[i].child.options = NULL;
                        c.queues[i].child.options_len = 0;
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
        for (size_t i = 0; i < t->n_queues; i++) {
                installed_qdisc_done(&t->queues[i].qdisc);
                installed_qdisc_done(&t->queues[i].child);
        }
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

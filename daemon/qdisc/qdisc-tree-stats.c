/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio's offload statistics (Linux 6.5+) in a dump: the root's, read with
 * the qdisc dump (qdisc-tree.c), and each TX queue's from a class dump. */
#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include <netlink/msg.h>

#include "qdisc-tree.h"

/* taprio's TCA_STATS_APP (linux/pkt_sched.h of 6.5; Debian 12's headers
 * are 6.1's): a nest of u64 counters, each there only when the driver
 * gives it. */
#define TBS_TCA_TAPRIO_OFFLOAD_STATS_WINDOW_DROPS 2
#define TBS_TCA_TAPRIO_OFFLOAD_STATS_TX_OVERRUNS 3
#define TBS_TCA_TAPRIO_OFFLOAD_STATS_MAX 3

static void get_stat_u64(struct nlattr *a, bool *ret_has, uint64_t *ret) {
        if (!a || nla_len(a) < (int) sizeof(uint64_t))
                return;
        memcpy(ret, nla_data(a), sizeof(uint64_t));
        *ret_has = true;
}

/* Another kind's TCA_STATS_APP is a struct of its own (fq_codel's, ...):
 * only taprio's is read, and one that cannot be read is left out. */
void qdisc_parse_taprio_offload_stats(struct nlattr *app, TaprioOffloadStats *st) {
        struct nlattr *tb[TBS_TCA_TAPRIO_OFFLOAD_STATS_MAX + 1];

        if (nla_parse_nested(tb, TBS_TCA_TAPRIO_OFFLOAD_STATS_MAX, app, NULL) < 0)
                return;
        get_stat_u64(tb[TBS_TCA_TAPRIO_OFFLOAD_STATS_WINDOW_DROPS], &st->has_window_drops, &st->window_drops);
        get_stat_u64(tb[TBS_TCA_TAPRIO_OFFLOAD_STATS_TX_OVERRUNS], &st->has_tx_overruns, &st->tx_overruns);
}

void qdisc_tree_class_offload_stats(const QDiscTree *t, unsigned tc, TaprioOffloadStats *ret) {
        const QueueRange *r;

        *ret = (TaprioOffloadStats) {};
        if (!t->root_known || tc >= t->root_spec.num_tc || tc >= TBS_MAX_TC)
                return;
        r = &t->root_spec.queues[tc];
        ret->has_window_drops = ret->has_tx_overruns = r->count > 0;
        for (unsigned i = 0; i < r->count; i++) {
                const TaprioOffloadStats *s = &(const TaprioOffloadStats) {};

                /* (qdisc-tree.c, which calls this file, finds queues too: not called back) */
                for (size_t k = 0; k < t->n_queues; k++)
                        if (t->queues[k].queue == (uint32_t) r->offset + i)
                                s = &t->queues[k].offload;

                /* A queue the driver said nothing of makes the class's sum unknown. */
                ret->has_window_drops = ret->has_window_drops && s->has_window_drops;
                ret->has_tx_overruns = ret->has_tx_overruns && s->has_tx_overruns;
                ret->window_drops += s->window_drops;
                ret->tx_overruns += s->tx_overruns;
        }
        if (!ret->has_window_drops)
                ret->window_drops = 0;
        if (!ret->has_tx_overruns)
                ret->tx_overruns = 0;
}

int qdisc_tree_add_class_stats(QDiscTree *t, const void *buf, size_t len) {
        int rem = (int) len;

        for (const struct nlmsghdr *h = buf; nlmsg_ok(h, rem); h = nlmsg_next((struct nlmsghdr *) h, &rem)) {
                struct nlattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
                const struct tcmsg *c;
                InstalledQueue *q = NULL;
                uint32_t minor;

                if (h->nlmsg_type != RTM_NEWTCLASS)
                        continue;
                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
                        return -EBADMSG;
                c = nlmsg_data(h);
                /* taprio_dump_class(): parent root, handle ROOT_MAJOR:(queue + 1) */
                minor = TC_H_MIN(c->tcm_handle);
                if (c->tcm_ifindex != t->ifindex || !t->has_root ||
                    TC_H_MAJ(c->tcm_handle) != TC_H_MAJ(t->root.handle) || minor == 0)
                        continue;
                for (size_t i = 0; i < t->n_queues && !q; i++)
                        if (t->queues[i].queue == minor - 1)
                                q = &t->queues[i];
                if (!q)
                        continue;
                if (nlmsg_parse((struct nlmsghdr *) h, sizeof(struct tcmsg), tb, TCA_MAX, NULL) < 0)
                        return -EBADMSG;
                if (!tb[TCA_STATS2] || nla_parse_nested(st, TCA_STATS_MAX, tb[TCA_STATS2], NULL) < 0)
                        continue;
                if (st[TCA_STATS_APP])
                        qdisc_parse_taprio_offload_stats(st[TCA_STATS_APP], &q->offload);
        }
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's qdiscs as trees: one RTM_GETQDISC dump through the
 * transport, parsed by qdisc-tree.c. */
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "qdisc-dump.h"

int nl_qdisc_dump_all(NlQdisc *nl, QDiscTreeSet *ret) {
        return nl_qdisc_dump_some(nl, NULL, 0, ret);
}

int nl_qdisc_dump_some(NlQdisc *nl, const int *wanted, size_t n_wanted, QDiscTreeSet *ret) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        k = nl_qdisc_dump_raw(nl, wanted, n_wanted, &buf, &len);
        if (k < 0)
                return k;
        k = qdisc_tree_set_parse(buf, len, ret);
        if (k < 0)
                return k;
        ret->dump = TAKE_PTR(buf);      /* the option payloads point into it */
        return 0;
}

int nl_qdisc_dump(NlQdisc *nl, int ifindex, QDiscTree *ret) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        /* Only ifindex's messages are kept: the buffer holds one tree, not
         * every interface's. */
        k = nl_qdisc_dump_raw(nl, &ifindex, 1, &buf, &len);
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

int nl_qdisc_add_class_stats(NlQdisc *nl, QDiscTree *t) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        if (!t->has_root || strcmp(t->root.kind, "taprio") != 0 || t->n_queues == 0 ||
            (!t->root.stats.offload.has_window_drops && !t->root.stats.offload.has_tx_overruns))
                return 0;
        k = nl_class_dump_raw(nl, t->ifindex, &buf, &len);
        if (k < 0)
                return k;
        return qdisc_tree_add_class_stats(t, buf, len);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/msg.h>

#include "qdisc-dump.h"
#include "qdisc-plan.h"
#include "qdisc-rollback.h"
#include "qdisc.h"

/* "STEP: what the kernel said" for the last failure of nl_transport_request(). */
static char *step_error(const NlQdisc *nl, int error, const char *step) {
        return qdisc_step_error(nl_transport_ext_ack(nl), error, step);
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
        return nl_transport_request(nl, m);
}

/* With the kind and handle dumped: the kernel refuses the request ("Invalid
 * handle", "Invalid qdisc name") when another root took the place since. */
int qdisc_delete_root(NlQdisc *nl, int ifindex, const InstalledQDisc *root) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        int k;

        k = qdisc_request_new(RTM_DELQDISC, 0, ifindex, root->handle, TC_H_ROOT, root->kind, &m);
        if (k < 0)
                return k;
        return nl_transport_request(nl, m);
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

/* The etf that was under a TX queue's cbs, back under the cbs recreated
 * with handle h (its old handle where the kernel allows it). */
static int restore_grandchild(NlQdisc *nl, int ifindex, const InstalledQueue *sq, uint32_t h, HandlePool *pool,
                              char **ret_error) {
        InstalledQDisc c = sq->child;
        char step[96], hb[16];
        uint32_t ch = c.handle;
        bool pool_full = false;
        int k = 0;

        if (!c.kind[0])
                return 0;
        c.parent = TC_H_MAKE(h, 1);
        if (ch != 0)
                k = create_from_installed(nl, ifindex, &c, ch, NLM_F_CREATE | NLM_F_REPLACE);
        if (ch == 0 || k < 0) {
                k = handle_pool_next(pool, &ch);
                pool_full = k == -ENOSPC;
                if (k >= 0)
                        k = create_from_installed(nl, ifindex, &c, ch, NLM_F_CREATE | NLM_F_REPLACE);
        }
        if (k < 0) {
                snprintf(step, sizeof(step), "rollback: txqueue %u (%s under %s)", sq->queue, c.kind,
                         handle_str(c.parent, hb));
                *ret_error = pool_full ? qdisc_step_error(HANDLE_POOL_FULL_TEXT, k, step) :
                                         step_error(nl, k, step);
        }
        return k;
}

/* Recreate one dumped child, with its old handle when it had one (falling
 * back to a fresh handle if that one is taken). A fresh explicit handle is
 * what makes the kernel graft rather than try to change the present child. */
static int restore_child(NlQdisc *nl, int ifindex, const InstalledQueue *sq, HandlePool *pool,
                         char **ret_error) {
        char step[96], hb[16];
        uint32_t h = sq->qdisc.handle;
        bool pool_full = false;
        int k = 0;

        if (h != 0)
                k = create_from_installed(nl, ifindex, &sq->qdisc, h, NLM_F_CREATE | NLM_F_REPLACE);
        if (h == 0 || k < 0) {
                k = handle_pool_next(pool, &h);
                pool_full = k == -ENOSPC;
                if (k >= 0)
                        k = create_from_installed(nl, ifindex, &sq->qdisc, h,
                                                  NLM_F_CREATE | NLM_F_REPLACE);
        }
        if (k < 0) {
                snprintf(step, sizeof(step), "rollback: txqueue %u (%s on %s)", sq->queue,
                         sq->qdisc.kind, handle_str(sq->qdisc.parent, hb));
                *ret_error = pool_full ? qdisc_step_error(HANDLE_POOL_FULL_TEXT, k, step) :
                                         step_error(nl, k, step);
                return k;
        }
        return restore_grandchild(nl, ifindex, sq, h, pool, ret_error);
}

RootSpec qdisc_rollback_root(const RootSpec *snap, const RootSpec *cur) {
        RootSpec r = *snap;

        if (cur) {
                root_send_max_sdu(&r, root_max_sdu_reported(cur));
                r.fp_given = snap->fp_dumped && cur->fp_dumped;
        } else {
                root_send_max_sdu(&r, root_has_max_sdu(&r));
                r.fp_given = snap->fp_dumped && root_has_preemptible(&r);
        }
        return r;
}

/* A root whose schedule a graft stops (QDiscVTable.restart_after_graft:
 * Linux 6.1, a software taprio): once the children are back, it goes again. */
static int restart_software_taprio(NlQdisc *nl, int ifindex, const QDiscTree *snap, char **ret_error) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        char step[96], hb[16];
        RootSpec r;
        int k;

        if (!snap->root_known || !root_restart_after_graft(&snap->root_spec))
                return 0;
        r = qdisc_rollback_root(&snap->root_spec, &snap->root_spec);   /* the root put back is snap's */
        k = qdisc_root_change_request(ifindex, &r, &m);
        if (k >= 0)
                k = nl_transport_request(nl, m);
        if (k < 0) {
                snprintf(step, sizeof(step), "rollback: restarting the schedule of root %s",
                         handle_str(snap->root.handle, hb));
                *ret_error = step_error(nl, k, step);
        }
        return k;
}

/* Under a root that stayed: every child of snap that is not there as it
 * was. */
static int restore_children(NlQdisc *nl, int ifindex, const QDiscTree *snap, const QDiscTree *cur,
                            HandlePool *pool, char **ret_error) {
        bool grafted = false;

        for (size_t i = 0; i < snap->n_queues; i++) {
                const InstalledQueue *sq = &snap->queues[i];
                const InstalledQueue *cq = qdisc_tree_find_queue(cur, sq->queue);
                int k;

                if (cq && cq->qdisc.handle == sq->qdisc.handle && strcmp(cq->qdisc.kind, sq->qdisc.kind) == 0 &&
                    cq->child.handle == sq->child.handle && strcmp(cq->child.kind, sq->child.kind) == 0)
                        continue;
                k = restore_child(nl, ifindex, sq, pool, ret_error);
                if (k < 0)
                        return k;
                grafted = true;
        }
        return grafted ? restart_software_taprio(nl, ifindex, snap, ret_error) : 0;
}

/* Put back the tree dumped before the apply. Qdiscs that have to be
 * re-created get their old handles where the kernel allows it; a default
 * child (handle 0) can only be re-created with a kernel-chosen handle, so
 * after a rollback such a queue has the same kind and options but another
 * handle. Kinds the engine does not model are re-sent with the options the
 * kernel dumped; qdiscs that dump rounded values come back within that
 * rounding (fq_codel's target and interval, dumped in whole microseconds,
 * can lose 1 us: tests/kernel/test-nl-taprio-rollback.sh). */
int qdisc_restore_snapshot(NlQdisc *nl, int ifindex, const QDiscTree *snap, RootKind made_kind,
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
        /* Fresh handles avoid what is on the device now and every handle
         * of the snapshot, which its other qdiscs get back. */
        handle_pool_init(&pool, &cur, snap->root.handle);
        for (size_t i = 0; i < snap->n_handles; i++)
                handle_pool_reserve(&pool, snap->handles[i]);
        for (size_t i = 0; i < snap->n_queues; i++)
                handle_pool_reserve(&pool, snap->queues[i].qdisc.handle);

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
                k = qdisc_delete_root(nl, ifindex, &cur.root);
                if (k < 0) {
                        snprintf(step, sizeof(step), "rollback: removing root %s",
                                 handle_str(cur.root.handle, hb));
                        *ret_error = step_error(nl, k, step);
                }
                return k;
        }

        /* A taprio changed in place (or one that could be) gets its
         * schedule back the same way: handles and queued packets stay. */
        if (snap->root_known && cur.root_known && cur.root.handle == snap->root.handle && !root_intact(snap, &cur) &&
            !root_in_place_blocker(&cur.root_spec, &snap->root_spec, step, sizeof(step))) {
                RootSpec r = qdisc_rollback_root(&snap->root_spec, &cur.root_spec);

                k = qdisc_root_change_request(ifindex, &r, &m);
                if (k >= 0)
                        k = nl_transport_request(nl, m);
                if (k < 0) {
                        snprintf(step, sizeof(step), "rollback: root (%s %s, schedule in place)",
                                 snap->root.kind, handle_str(snap->root.handle, hb));
                        *ret_error = step_error(nl, k, step);
                        return k;
                }
                return restore_children(nl, ifindex, snap, &cur, &pool, ret_error);
        }

        if (root_intact(snap, &cur))
                return restore_children(nl, ifindex, snap, &cur, &pool, ret_error);

        /* The root there now is the previous one changed or the one this
         * apply made (checked above). Under the same handle it goes first;
         * under another one too when both set traffic classes (mqprio,
         * taprio): replaced in one step, the restored root would have none. */
        if (cur.has_root && cur.root.handle != 0 &&
            (cur.root.handle == snap->root.handle || qdisc_root_delete_first(cur.root.kind, snap->root.kind))) {
                k = qdisc_delete_root(nl, ifindex, &cur.root);
                if (k < 0) {
                        snprintf(step, sizeof(step), "rollback: removing root %s",
                                 handle_str(cur.root.handle, hb));
                        *ret_error = step_error(nl, k, step);
                        return k;
                }
        }
        if (snap->root_known) {
                RootSpec r = qdisc_rollback_root(&snap->root_spec, NULL);      /* a new root */

                k = qdisc_root_request(ifindex, &r, &m);
                if (k >= 0)
                        k = nl_transport_request(nl, m);
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
        bool grafted = false;
        for (size_t i = 0; i < snap->n_queues; i++) {
                if (snap->queues[i].qdisc.handle == 0)
                        continue;
                k = restore_child(nl, ifindex, &snap->queues[i], &pool, ret_error);
                if (k < 0)
                        return k;
                grafted = true;
        }
        return grafted ? restart_software_taprio(nl, ifindex, snap, ret_error) : 0;
}

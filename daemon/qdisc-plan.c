/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/msg.h>

#include "qdisc-owner.h"
#include "qdisc-plan.h"
#include "schedule-streams.h"
#include "schedule-cbs.h"

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

int apply_report_init(const Schedule *s, ApplyReport *rep) {
        if (s->n_txqueues == 0)
                return 0;
        rep->queues = calloc(s->n_txqueues, sizeof(QueueApplyResult));
        if (!rep->queues)
                return -ENOMEM;
        rep->n_queues = s->n_txqueues;
        for (size_t i = 0; i < s->n_txqueues; i++) {
                rep->queues[i].queue = s->txqueues[i].queue;
                rep->queues[i].requested = s->txqueues[i].offload;
                rep->queues[i].kind = s->txqueues[i].kind;
        }
        return 0;
}

/* A literal is pointed to; any other text is copied. Hundreds of links
 * applied at once would otherwise each keep small copies of the same few
 * texts, spread over the heap the apply's transient work used. */
int queue_result_set_reason(QueueApplyResult *q, const char *reason, bool literal) {
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

char *qdisc_step_error(const char *ext_ack, int error, const char *step) {
        char *s = NULL;

        if (asprintf(&s, "%s: %s", step, ext_ack && ext_ack[0] ? ext_ack : strerror(-error)) < 0)
                return NULL;
        return s;
}

bool plan_step_may_fall_back(const PlanStep *st, int error) {
        return st->kind == PLAN_ETF && st->plan == ETF_PLAN_TRY_HARDWARE && st->hw &&
               (error == -EOPNOTSUPP || error == -EINVAL);
}

void qdisc_plan_done(QDiscPlan *p) {
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++)
                if (p->steps[i].msg)
                        nlmsg_free(p->steps[i].msg);
        free(p->steps);
        apply_report_done(&p->report);
        *p = (QDiscPlan) {};
}

/* The kind the kernel itself puts on a queue of a root of kind vt. */
static const char *default_child_kind(const QDiscVTable *vt, default_qdisc_fn f, char buf[static IFNAMSIZ]) {
        if (vt && vt->default_child)
                return vt->default_child;
        return f ? f(buf) : "pfifo_fast";
}

/* Add step st with request m (taken) to p; the steps get room for max on
 * first use: an interface with nothing to change allocates nothing
 * (hundreds of them touch no new memory). */
static int plan_add(QDiscPlan *p, size_t max, PlanStep *st, struct nl_msg *m) {
        if (!p->steps) {
                p->steps = calloc(max, sizeof(PlanStep));
                if (!p->steps) {
                        nlmsg_free(m);
                        return -ENOMEM;
                }
        }
        if (p->n >= max) {              /* cannot be: max counts every request */
                nlmsg_free(m);
                return -EINVAL;
        }
        st->msg = m;
        p->steps[p->n++] = *st;
        return 0;
}

int plan_resolve_cbs(EtfSpec *e, const DeviceFacts *facts, char **ret_error) {
        uint32_t speed = facts ? facts->link_speed_mbps : 0;
        int k;

        if (e->kind != TXQ_CBS)
                return 0;
        k = cbs_spec_resolve(&e->cbs, speed, &e->cbs);
        if (k == -ENODATA) {
                if (asprintf(ret_error, "txqueue %u (cbs): bandwidth_kbps needs the link speed, which the "
                             "device does not report (is the link down?); give link_speed_mbps", e->queue) < 0)
                        *ret_error = NULL;
        } else if (k < 0) {
                if (asprintf(ret_error, "txqueue %u (cbs): bandwidth_kbps %u does not fit the link speed of %u Mbit/s",
                             e->queue, e->cbs.bandwidth_kbps, cbs_link_speed(&e->cbs, speed)) < 0)
                        *ret_error = NULL;
        }
        return k;
}

/* The etf requests: every declared queue whose installed child does not
 * satisfy it (all of them when the root is new). */
static int plan_etf_children(QDiscPlan *p, int ifindex, const Schedule *s, const QDiscTree *tree,
                             const DeviceFacts *facts, uint32_t root_handle, bool root_same,
                             HandlePool *pool, size_t max) {
        ApplyReport *rep = &p->report;
        char hb[16];
        int k;

        for (size_t i = 0; i < s->n_txqueues; i++) {
                QueueApplyResult *q = &rep->queues[i];
                PlanStep st = { .kind = PLAN_ETF, .txq = i, .spec = s->txqueues[i] };
                const EtfSpec *e = &st.spec;
                struct nl_msg *m = NULL;

                k = plan_resolve_cbs(&st.spec, facts, &rep->error);
                if (k < 0)
                        return k;
                st.plan = etf_offload_plan(e, facts, &st.why);
                /* Its reasons are literals but the device's own. */
                st.why_literal = !facts || st.why != facts->offload_reason;
                if (st.plan < 0) {
                        if (asprintf(&rep->error, "txqueue %u: invalid offload mode", e->queue) < 0)
                                rep->error = NULL;
                        return -EINVAL;
                }
                if (root_same) {
                        const InstalledQueue *iq = qdisc_tree_find_queue(tree, e->queue);

                        if (iq && installed_queue_is_declarable(iq) && etf_matches_plan(&iq->etf, e, st.plan)) {
                                q->offload = iq->etf.offload == OFFLOAD_ON;
                                if (st.plan != ETF_PLAN_TRY_HARDWARE)
                                        k = queue_result_set_reason(q, st.why, st.why_literal);
                                else
                                        k = queue_result_set_reason(q, q->offload ? "installed earlier with offload" :
                                                                    "installed earlier in software mode", true);
                                if (k < 0)
                                        return k;
                                continue;
                        }
                }
                snprintf(st.name, sizeof(st.name), "txqueue %u (%s on %s)", e->queue, txq_kind_to_string(e->kind),
                         tc_handle_to_string(TC_H_MAKE(TC_H_MAJ(root_handle), e->queue + 1), hb));
                st.hw = st.plan != ETF_PLAN_SOFTWARE;
                k = handle_pool_next(pool, &st.handle);
                if (k >= 0)
                        k = qdisc_etf_request(ifindex, root_handle, st.handle, e, st.hw, &m);
                if (k < 0) {
                        rep->error = qdisc_step_error("", k, st.name);
                        return k;
                }
                k = plan_add(p, max, &st, m);
                if (k < 0)
                        return k;
        }
        return 0;
}

/* etf children no longer declared get the root's default child back. */
static int plan_reset_children(QDiscPlan *p, int ifindex, const Schedule *s, const QDiscTree *tree,
                               const QDiscVTable *vt, default_qdisc_fn default_qdisc, HandlePool *pool,
                               size_t max) {
        char hb[16];
        int k;

        for (size_t i = 0; i < tree->n_queues; i++) {
                const InstalledQueue *iq = &tree->queues[i];
                PlanStep st = { .kind = PLAN_RESET_CHILD };
                char kb[IFNAMSIZ];
                const char *kind;
                struct nl_msg *m = NULL;

                if (!installed_queue_is_declarable(iq) || schedule_find_txqueue(s, iq->queue))
                        continue;
                kind = default_child_kind(vt, default_qdisc, kb);  /* may read a sysctl: only when needed */
                snprintf(st.name, sizeof(st.name), "txqueue %u (%s on %s)", iq->queue, kind,
                         tc_handle_to_string(iq->qdisc.parent, hb));
                k = handle_pool_next(pool, &st.handle);
                if (k >= 0)
                        k = qdisc_request_new(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex,
                                              st.handle, iq->qdisc.parent, kind, &m);
                if (k < 0) {
                        p->report.error = qdisc_step_error("", k, st.name);
                        return k;
                }
                k = plan_add(p, max, &st, m);
                if (k < 0)
                        return k;
        }
        return 0;
}

/* The root's requests: delete in place when the handle stays, then the new root. */
static int plan_root(QDiscPlan *p, int ifindex, const QDiscTree *tree, const RootSpec *want,
                     const QDiscVTable *vt, size_t max) {
        PlanStep st = { .kind = PLAN_ROOT };
        struct nl_msg *m = NULL;
        char hb[16];
        int k;

        /* A root that a rollback could not put back is not replaced. */
        k = qdisc_root_replaceable(tree, &p->report.error);
        if (k <= 0)
                return k ?: -EEXIST;

        /* Same handle: the kernel would try to "change" the old root in
         * place (mqprio cannot), so it goes first. Another handle or the
         * default root is replaced by the new root in one step. */
        if (tree->has_root && tree->root.handle != 0 && tree->root.handle == want->handle) {
                PlanStep del = { .kind = PLAN_DELETE_ROOT };

                snprintf(del.name, sizeof(del.name), "removing the old root (%s %s)",
                         tree->root.kind, tc_handle_to_string(tree->root.handle, hb));
                k = qdisc_request_new(RTM_DELQDISC, 0, ifindex, tree->root.handle, TC_H_ROOT,
                                      tree->root.kind, &m);
                if (k < 0)
                        return k;
                k = plan_add(p, max, &del, m);
                if (k < 0)
                        return k;
        }
        snprintf(st.name, sizeof(st.name), "root (%s %s)", vt->kind, tc_handle_to_string(want->handle, hb));
        k = qdisc_root_request(ifindex, want, &m);
        if (k < 0) {
                p->report.error = qdisc_step_error(k == -EMSGSIZE ? "the request is larger than one netlink "
                                                   "message can be (a gate list above the limits)" : "",
                                                   k, st.name);
                return k;
        }
        return plan_add(p, max, &st, m);
}

int qdisc_plan_build(int ifindex, const Schedule *s, const QDiscTree *tree, const DeviceFacts *facts,
                     default_qdisc_fn default_qdisc, QDiscPlan *ret) {
        QDiscPlan p = {};
        const QDiscVTable *vt;
        RootSpec want;
        HandlePool pool;
        bool root_same;
        size_t max;
        int k;

        k = apply_report_init(s, &p.report);
        if (k < 0)
                goto out;
        want = s->root;
        if (want.handle == 0)
                want.handle = TBS_DEFAULT_ROOT_HANDLE;
        p.root_handle = want.handle;
        vt = qdisc_vtable_for_root(want.kind);
        if (!vt) {
                k = -EINVAL;
                if (asprintf(&p.report.error, "root: unknown qdisc kind") < 0)
                        p.report.error = NULL;
                goto out;
        }

        if (schedule_streams_pending(s)) {
                k = -ENODATA;
                if (asprintf(&p.report.error, "root: the streams' gate list needs the link speed, which the "
                             "device does not report (is the link down?); give root.link_speed_mbps") < 0)
                        p.report.error = NULL;
                goto out;
        }
        max = 2 + s->n_txqueues + tree->n_queues;
        pool = (HandlePool) { .tree = tree, .next_major = (TC_H_MAJ(want.handle) >> 16) + 1 };
        root_same = tree->has_root && tree->root_known && tree->root.handle == want.handle &&
                    tree->root_spec.kind == want.kind && vt->equal(&want, &tree->root_spec);

        if (!root_same) {
                k = plan_root(&p, ifindex, tree, &want, vt, max);
                if (k < 0)
                        goto out;
        }
        k = plan_etf_children(&p, ifindex, s, tree, facts, want.handle, root_same, &pool, max);
        if (k < 0)
                goto out;
        if (root_same)
                k = plan_reset_children(&p, ifindex, s, tree, vt, default_qdisc, &pool, max);
out:
        *ret = p;
        return k < 0 ? k : 0;
}

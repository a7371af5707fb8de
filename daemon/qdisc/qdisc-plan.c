/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/msg.h>

#include "qdisc-owner.h"
#include "qdisc-plan.h"
#include "schedule-streams.h"
#include "taprio-sdu.h"

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
/* Why building a root's request failed, for the report. */
static char *root_request_error(int k, const char *step) {
        return qdisc_step_error(k == -EMSGSIZE ? "the request is larger than one netlink message can be (a gate "
                                                 "list above the limits)" : "",
                                k, step);
}

static int plan_add(QDiscPlan *p, size_t max, PlanStep *st, struct nl_msg *m) {
        if (!p->steps) {
                /* not zeroed: only steps[0, n) are ever read (and zeroing
                 * max steps cost more than planning them) */
                p->steps = reallocarray(NULL, max, sizeof(PlanStep));
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

int plan_resolve_values(EtfSpec *e, const DeviceFacts *facts, char **ret_error) {
        const QDiscVTable *vt = qdisc_vtable_for_child(e->kind);
        char label[32];

        if (!vt || !vt->resolve)
                return 0;
        snprintf(label, sizeof(label), "txqueue %" PRIu32, e->queue);
        return vt->resolve(e, facts, label, ret_error);
}

void plan_resolve_etf_child(EtfSpec *e, const DeviceFacts *f) {
        EtfSpec etf;

        if (!e->etf_child || e->child_offload != OFFLOAD_AUTO)
                return;
        etf = etf_spec_etf_part(e);
        e->child_offload = etf_offload_plan(&etf, f, NULL) == ETF_PLAN_HARDWARE ? OFFLOAD_ON : OFFLOAD_OFF;
}

int plan_resolve_leaf(RootSpec *r, const DeviceFacts *facts, char **ret_error) {
        const QDiscVTable *vt = qdisc_vtable_for_child(r->leaf.kind);
        EtfSpec *e = &r->leaf;
        int k;

        e->queue = 0;
        if (vt && vt->resolve) {
                k = vt->resolve(e, facts, "root", ret_error);
                if (k < 0)
                        return k;
        }
        plan_resolve_leaf_offload(e, facts);
        return 0;
}

void plan_resolve_leaf_offload(EtfSpec *e, const DeviceFacts *facts) {
        if (e->offload == OFFLOAD_AUTO)
                e->offload = etf_offload_plan(e, facts, NULL) == ETF_PLAN_HARDWARE ? OFFLOAD_ON : OFFLOAD_OFF;
        plan_resolve_etf_child(e, facts);
}

/* Append t to name[*at..size), cut at the end like snprintf(). */
static void name_put(char *name, size_t size, size_t *at, const char *t) {
        size_t k = strlen(t);

        if (k > size - 1 - *at)
                k = size - 1 - *at;
        memcpy(name + *at, t, k);
        *at += k;
        name[*at] = 0;
}

/* "txqueue Q (KIND on PARENT)": every child step is named for the error
 * texts, so put together without printf. */
static void name_queue_step(char *name, size_t size, uint32_t queue, const char *kind, uint32_t parent) {
        char num[16], hb[16], *d = num + sizeof(num) - 1;
        size_t at = 0;

        *d = 0;
        do
                *--d = (char) ('0' + queue % 10);
        while ((queue /= 10) > 0);
        name[0] = 0;
        name_put(name, size, &at, "txqueue ");
        name_put(name, size, &at, d);
        name_put(name, size, &at, " (");
        name_put(name, size, &at, kind ?: "(null)");
        name_put(name, size, &at, " on ");
        name_put(name, size, &at, tc_handle_to_string(parent, hb));
        name_put(name, size, &at, ")");
}

/* The etf under a cbs that this plan creates (parent_handle: the cbs's handle). */
static int plan_etf_child(QDiscPlan *p, int ifindex, const EtfSpec *e, uint32_t parent_handle, HandlePool *pool,
                          size_t max) {
        PlanStep st = { .kind = PLAN_ETF_CHILD, .spec = *e, .parent = TC_H_MAKE(parent_handle, 1) };
        struct nl_msg *m = NULL;
        char hb[16];
        int k;

        st.hw = e->child_offload == OFFLOAD_ON;
        if (parent_handle == p->root_handle)
                snprintf(st.name, sizeof(st.name), "etf under the root (%s %s)", txq_kind_to_string(e->kind),
                         tc_handle_to_string(parent_handle, hb));
        else
                snprintf(st.name, sizeof(st.name), "txqueue %u (etf under %s %s)", e->queue,
                         txq_kind_to_string(e->kind), tc_handle_to_string(parent_handle, hb));
        k = handle_pool_next(pool, &st.handle);
        if (k >= 0)
                k = qdisc_etf_child_request(ifindex, st.parent, st.handle, e, st.hw, &m);
        if (k < 0) {
                p->report.error = qdisc_step_error("", k, st.name);
                return k;
        }
        return plan_add(p, max, &st, m);
}

/* The etf requests: every declared queue whose installed child does not
 * satisfy it (all of them when the root is new). */
static int plan_etf_children(QDiscPlan *p, int ifindex, const Schedule *s, const QDiscTree *tree,
                             const DeviceFacts *facts, uint32_t root_handle, bool root_same,
                             HandlePool *pool, size_t max) {
        ApplyReport *rep = &p->report;
        int k;

        for (size_t i = 0; i < s->n_txqueues; i++) {
                QueueApplyResult *q = &rep->queues[i];
                PlanStep st = { .kind = PLAN_ETF, .txq = i, .spec = s->txqueues[i] };
                const EtfSpec *e = &st.spec;
                struct nl_msg *m = NULL;

                k = plan_resolve_values(&st.spec, facts, &rep->error);
                if (k < 0)
                        return k;
                plan_resolve_etf_child(&st.spec, facts);
                st.plan = etf_offload_plan(e, facts, &st.why);
                /* The etf goes under the cbs in the same batch: a cbs
                 * refused with offload would leave it nowhere to go. */
                if (e->etf_child && st.plan == ETF_PLAN_TRY_HARDWARE) {
                        st.plan = ETF_PLAN_SOFTWARE;
                        st.why = "device capabilities unknown: software mode (a cbs with an etf under it is "
                                 "not tried with offload)";
                }
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
                name_queue_step(st.name, sizeof(st.name), e->queue, txq_kind_to_string(e->kind),
                                TC_H_MAKE(TC_H_MAJ(root_handle), e->queue + 1));
                st.hw = st.plan != ETF_PLAN_SOFTWARE;
                k = handle_pool_next(pool, &st.handle);
                if (k >= 0)
                        k = qdisc_etf_request(ifindex, root_handle, st.handle, e, st.hw, &m);
                if (k < 0) {
                        rep->error = qdisc_step_error(k == -ENOSPC ? HANDLE_POOL_FULL_TEXT : "", k, st.name);
                        return k;
                }
                k = plan_add(p, max, &st, m);
                if (k < 0)
                        return k;
                if (e->etf_child) {
                        k = plan_etf_child(p, ifindex, e, st.handle, pool, max);
                        if (k < 0)
                                return k;
                }
        }
        return 0;
}

/* etf children no longer declared get the root's default child back. */
static int plan_reset_children(QDiscPlan *p, int ifindex, const Schedule *s, const QDiscTree *tree,
                               const QDiscVTable *vt, default_qdisc_fn default_qdisc, HandlePool *pool,
                               size_t max) {
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
                name_queue_step(st.name, sizeof(st.name), iq->queue, kind, iq->qdisc.parent);
                k = handle_pool_next(pool, &st.handle);
                if (k >= 0)
                        k = qdisc_request_new(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex,
                                              st.handle, iq->qdisc.parent, kind, &m);
                if (k < 0) {
                        p->report.error = qdisc_step_error(k == -ENOSPC ? HANDLE_POOL_FULL_TEXT : "", k, st.name);
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
         * place (mqprio cannot), so it goes first. Another handle: an old
         * mqprio or taprio goes first too when the new root is one of them
         * (qdisc_root_delete_first(): in one step the new root is left
         * without traffic classes). Any other root, or the default one, is
         * replaced by the new root in one step. Deleting takes no more than
         * the replacement qdisc_root_replaceable() allowed above. */
        if (tree->has_root && tree->root.handle != 0 &&
            (tree->root.handle == want->handle || qdisc_root_delete_first(tree->root.kind, vt->kind))) {
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
                p->report.error = root_request_error(k, st.name);
                return k;
        }
        return plan_add(p, max, &st, m);
}

/* The in-place change of a running root (a taprio's new gate schedule):
 * the request as its kind settles it (QDiscVTable.settle_change). */
static int plan_root_change(QDiscPlan *p, int ifindex, const QDiscTree *tree, const RootSpec *want,
                            const QDiscVTable *vt, int64_t now_ns, size_t max) {
        PlanStep st = { .kind = PLAN_CHANGE_ROOT };
        RootSpec r = *want;     /* shallow: the entries stay the schedule's */
        GateSchedule gates;
        struct nl_msg *m = NULL;
        char hb[16];
        int k;

        if (vt->settle_change)
                vt->settle_change(&r, &tree->root_spec, now_ns);
        p->base_time_ns = root_gate_schedule(&r, &gates) ? gates.base_time_ns : 0;
        snprintf(st.name, sizeof(st.name), "root (%s %s, new schedule in place)", vt->kind,
                 tc_handle_to_string(want->handle, hb));
        k = qdisc_root_change_request(ifindex, &r, &m);
        if (k < 0) {
                p->report.error = root_request_error(k, st.name);
                return k;
        }
        return plan_add(p, max, &st, m);
}

/* A root whose schedule a graft stopped (QDiscVTable.restart_after_graft)
 * gets it once more as a change after the children. */
static int plan_restart_schedule(QDiscPlan *p, int ifindex, const RootSpec *sent, size_t max) {
        PlanStep st = { .kind = PLAN_RESTART_ROOT };
        struct nl_msg *m = NULL;
        bool grafts = false;
        char hb[16];
        int k;

        for (size_t i = 0; i < p->n; i++)
                grafts = grafts || p->steps[i].kind == PLAN_ETF || p->steps[i].kind == PLAN_RESET_CHILD;
        if (!grafts)
                return 0;
        snprintf(st.name, sizeof(st.name), "root (%s %s, schedule restarted after grafting children)",
                 root_kind_to_string(sent->kind), tc_handle_to_string(sent->handle, hb));
        k = qdisc_root_change_request(ifindex, sent, &m);
        if (k < 0) {
                p->report.error = qdisc_step_error("", k, st.name);
                return k;
        }
        return plan_add(p, max, &st, m);
}

int qdisc_plan_build(int ifindex, const Schedule *s, const QDiscTree *tree, const DeviceFacts *facts,
                     default_qdisc_fn default_qdisc, plan_clock_fn now, QDiscPlan *ret) {
        QDiscPlan p = {};
        const QDiscVTable *vt;
        RootSpec want, cmp, same;
        HandlePool pool;
        bool root_same, children_stay;
        int64_t now_ns = 0;
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
        if (root_is_leaf(&want)) {
                k = plan_resolve_leaf(&want, facts, &p.report.error);
                if (k < 0)
                        goto out;
        }
        max = 4 + 2 * s->n_txqueues + tree->n_queues;
        handle_pool_init(&pool, tree, want.handle);
        if (vt->time_clock) {
                now_ns = (now ?: qdisc_clock_now_ns)(vt->time_clock(&want));
                if (vt->settle_now)
                        vt->settle_now(&want, now_ns);
        }

        /* A base time left to tbsd is satisfied by the one it installed. */
        cmp = want;
        if (tree->root_known)
                taprio_settle_base_time(&cmp, &tree->root_spec, now_ns);
        /* A max SDU the kernel dumps as its effective value (Linux 6.12) is
         * the one asked; only compared, never sent (kinds/taprio-sdu.h). */
        same = cmp;
        if (tree->root_known)
                taprio_settle_max_sdu(&same, &tree->root_spec, facts);
        root_same = tree->has_root && tree->root_known && tree->root.handle == want.handle &&
                    tree->root_spec.kind == want.kind && vt->equal(&same, &tree->root_spec);

        /* Refused before anything is sent: what the installed root shows
         * the kernel lacks (a per-class max SDU). */
        if (vt->kernel_lacks && tree->root_known && tree->root_spec.kind == want.kind) {
                const char *lacks = vt->kernel_lacks(&want, &tree->root_spec);

                if (lacks) {
                        k = -EOPNOTSUPP;
                        p.report.error = strdup(lacks);
                        goto out;
                }
        }

        p.root_change = PLAN_KEEP_ROOT;
        if (!root_same) {
                const char *why = NULL;

                if (tree->has_root && tree->root_known)
                        why = root_in_place_blocker(&tree->root_spec, &want, p.root_why, sizeof(p.root_why));
                if (tree->has_root && tree->root_known && !why) {
                        p.root_change = PLAN_CHANGE_ROOT_IN_PLACE;
                        k = plan_root_change(&p, ifindex, tree, &want, vt, now_ns, max);
                } else {
                        p.root_change = tree->has_root && tree->root_known ? PLAN_RECREATE_ROOT : PLAN_CREATE_ROOT;
                        k = plan_root(&p, ifindex, tree, &want, vt, max);
                        if (k >= 0 && want.leaf.etf_child)
                                k = plan_etf_child(&p, ifindex, &want.leaf, want.handle, &pool, max);
                        p.check_max_sdu = vt->sends_max_sdu && root_has_max_sdu(&want) &&
                                          !(tree->root_known && root_max_sdu_reported(&tree->root_spec));
                        p.check_num_tc = tree->has_root && tree->root.handle != 0 &&
                                         qdisc_root_delete_first(tree->root.kind, vt->kind);
                }
                if (k < 0)
                        goto out;
        }
        /* root.fp: a kernel before 6.4 ignores the TC entries' fp (mqprio
         * the whole TCA_MQPRIO_TC_ENTRY, taprio the attribute inside its
         * entries) and dumps none: read back whenever a root was sent. */
        p.check_fp = want.fp_given && p.root_change != PLAN_KEEP_ROOT;
        children_stay = p.root_change == PLAN_KEEP_ROOT || p.root_change == PLAN_CHANGE_ROOT_IN_PLACE;
        k = plan_etf_children(&p, ifindex, s, tree, facts, want.handle, children_stay, &pool, max);
        if (k < 0)
                goto out;
        if (children_stay)
                k = plan_reset_children(&p, ifindex, s, tree, vt, default_qdisc, &pool, max);
        if (k >= 0 && root_restart_after_graft(&want)) {
                RootSpec sent = p.root_change == PLAN_KEEP_ROOT ? cmp : want;

                if (p.root_change == PLAN_CHANGE_ROOT_IN_PLACE)
                        sent.taprio.base_time_ns = p.base_time_ns;
                root_send_max_sdu(&sent, root_max_sdu_sent(&want) ||
                                         (children_stay && root_max_sdu_reported(&tree->root_spec)));
                k = plan_restart_schedule(&p, ifindex, &sent, max);
        }
out:
        *ret = p;
        return k < 0 ? k : 0;
}

/* root.fp read back: a root of the schedule's kind that dumps no fp per
 * class is a kernel before 6.4, which took the request and ignored fp. */
static int check_fp(const QDiscPlan *p, const Schedule *s, const QDiscTree *t, char **ret_error) {
        if (!p->check_fp || !t->root_known || t->root_spec.kind != s->root.kind || t->root_spec.fp_dumped ||
            taprio_tc_entries_unreported(&t->root_spec))
                return 0;
        if (asprintf(ret_error, "root.fp: this kernel does not support frame preemption (its %s "
                     "reports no per-class fp after it was set; Linux 6.4 or later needed)",
                     root_kind_to_string(s->root.kind) ?: "root") < 0)
                *ret_error = NULL;
        return -EOPNOTSUPP;
}

int qdisc_plan_check_root(const QDiscPlan *p, const Schedule *s, const QDiscTree *t, char **ret_error) {
        const QDiscVTable *vt = qdisc_vtable_for_root(s->root.kind);
        char hb[16], th[16];

        if (!p->check_num_tc || !vt)
                return check_fp(p, s, t, ret_error);
        if (t->has_root && t->root_known && t->root.handle == p->root_handle && t->root_spec.kind == s->root.kind &&
            t->root_spec.num_tc == s->root.num_tc)
                return check_fp(p, s, t, ret_error);
        tc_handle_to_string(p->root_handle, hb);
        if (!t->has_root || !t->root_known || t->root.handle != p->root_handle || t->root_spec.kind != s->root.kind) {
                if (asprintf(ret_error, "root (%s %s): the kernel answered success but its dump shows another "
                             "root (%s %s)", vt->kind, hb, t->has_root ? t->root.kind : "none",
                             tc_handle_to_string(t->has_root ? t->root.handle : 0, th)) < 0)
                        *ret_error = NULL;
        } else if (asprintf(ret_error, "root (%s %s): the kernel answered success but its dump shows num_tc %u "
                            "instead of %u", vt->kind, hb, t->root_spec.num_tc, s->root.num_tc) < 0)
                *ret_error = NULL;
        return -EIO;
}

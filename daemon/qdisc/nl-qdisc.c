/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The apply: every interface's plan (qdisc-plan.c) goes out through the one
 * transport (nl-transport.c), then each interface is judged on its own:
 * offload that was only tried and refused falls back to software, any other
 * failure restores the tree dumped before (qdisc-rollback.c). */
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/msg.h>

#include "nl-qdisc.h"
#include "qdisc-owner.h"
#include "qdisc-rollback.h"
#include "qdisc.h"
#include "taprio-sdu.h"

/* Why nl_qdisc_dump() failed, for an error message. */
static const char *dump_error_text(int k) {
        if (k == -EAGAIN)
                return "the kernel's qdisc dump leaves this interface out (cut short by a qdisc too large "
                       "to dump, on this or another interface); nothing changed";
        return strerror(-k);
}

/* Record what an etf request that the kernel accepted did. */
static int etf_done(QueueApplyResult *q, bool hw, const char *refused, const char *why, bool why_literal) {
        _cleanup_free_ char *t = NULL;

        q->offload = hw;
        q->changed = true;
        if (!refused)
                return queue_result_set_reason(q, why, why_literal);
        if (asprintf(&t, "offload refused by the kernel (%s): software mode", refused) < 0)
                return -ENOMEM;
        free(q->reason_buf);
        q->reason = q->reason_buf = TAKE_PTR(t);
        return 0;
}

/* One interface's apply: its plan, the requests as sent (maybe together
 * with other interfaces' requests), then judged. */
typedef struct ApplyPlan {
        int ifindex;
        const Schedule *s;
        const QDiscTree *snap;
        QDiscTree own;                  /* snap dumped here: the caller's had no root */
        QDiscPlan plan;
        NlRequest *reqs;                /* plan.n requests: a slice of the batch's array */
} ApplyPlan;

static void apply_plan_done(ApplyPlan *p) {
        qdisc_tree_done(&p->own);
        nl_requests_done(p->reqs, p->plan.n);
        qdisc_plan_done(&p->plan);
        *p = (ApplyPlan) {};
}

/* The failure of an exchange that carried one of p's requests, or 0. */
static int apply_plan_send_result(const ApplyPlan *p) {
        for (size_t i = 0; i < p->plan.n; i++)
                if (p->reqs[i].exchange_error < 0)
                        return p->reqs[i].exchange_error;
        return 0;
}

/* The etf requests of p that the kernel refused, again in software mode, in
 * one exchange. Returns 0 or -errno; *ret_unknown is set when the exchange
 * itself failed. */
static int apply_plan_fall_back(NlQdisc *nl, ApplyPlan *p, size_t n_refused, ApplyReport *rep,
                                bool *ret_unknown) {
        const PlanStep *steps = p->plan.steps;
        const NlRequest *reqs = p->reqs;
        _cleanup_free_ PlanStep *fsteps = NULL;
        _cleanup_free_ NlRequest *freqs = NULL;
        size_t nf = 0;
        int k = 0;

        fsteps = calloc(n_refused, sizeof(PlanStep));
        freqs = calloc(n_refused, sizeof(NlRequest));
        if (!fsteps || !freqs)
                return -ENOMEM;
        for (size_t i = 0; i < p->plan.n && nf < n_refused; i++) {
                if (reqs[i].error >= 0)
                        continue;
                fsteps[nf] = steps[i];
                fsteps[nf].hw = false;
                fsteps[nf].msg = NULL;
                k = qdisc_etf_request(p->ifindex, p->plan.root_handle, steps[i].handle,
                                      &steps[i].spec, false, &fsteps[nf].msg);
                if (k < 0)
                        goto out;
                freqs[nf].msg = fsteps[nf].msg;
                nf++;
        }
        k = nl_transport_exchange(nl, freqs, nf);
        if (k < 0) {
                *ret_unknown = true;
                if (asprintf(&rep->error, "sending %zu request(s): %s", nf, strerror(-k)) < 0)
                        rep->error = NULL;
                goto out;
        }
        for (size_t i = 0, j = 0; i < p->plan.n; i++) {
                if (reqs[i].error >= 0)
                        continue;
                if (freqs[j].error < 0) {
                        k = freqs[j].error;
                        rep->error = qdisc_step_error(freqs[j].ext_ack, k, fsteps[j].name);
                        goto out;
                }
                rep->n_messages++;
                k = etf_done(&rep->queues[fsteps[j].txq], false,
                             reqs[i].ext_ack && reqs[i].ext_ack[0] ? reqs[i].ext_ack : strerror(-reqs[i].error),
                             NULL, true);
                if (k < 0)
                        goto out;
                j++;
        }
out:
        nl_requests_done(freqs, nf);
        for (size_t i = 0; i < nf; i++)
                nlmsg_free(fsteps[i].msg);
        return k;
}

/* Read the new root back when the plan asks for it (one dump for all):
 * a kernel without per-class max SDU ignores TCA_TAPRIO_ATTR_TC_ENTRY, its
 * taprio then dumps none; an mqprio or taprio root put in place of one has
 * been seen accepted without its traffic classes, and a kernel before 6.4
 * ignores root.fp (qdisc_plan_check_root()). Returns 0, or -errno with
 * rep->error set. */
static int check_read_back(NlQdisc *nl, const ApplyPlan *p, ApplyReport *rep) {
        _cleanup_(qdisc_tree_done) QDiscTree t = {};
        const QDiscVTable *vt;
        int k;

        if (!p->plan.check_max_sdu && !p->plan.check_num_tc && !p->plan.check_fp)
                return 0;
        /* A dump that fails tells nothing either way (the apply itself
         * was answered): the drift check reads the tree again later. */
        if (nl_qdisc_dump(nl, p->ifindex, &t) < 0)
                return 0;
        k = qdisc_plan_check_root(&p->plan, p->s, &t, &rep->error);
        if (k < 0)
                return k;
        vt = qdisc_vtable_for_root(t.root_spec.kind);
        if (!p->plan.check_max_sdu || !t.root_known || !vt || !vt->sends_max_sdu || root_max_sdu_reported(&t.root_spec) ||
            taprio_tc_entries_unreported(&t.root_spec))
                return 0;
        if (asprintf(&rep->error, "root.max_sdu: this kernel does not support a per-class max SDU (its "
                     "taprio reports no TCA_TAPRIO_ATTR_TC_ENTRY after they were set)") < 0)
                rep->error = NULL;
        return -EOPNOTSUPP;
}

/* root.fp refused by a kernel before 6.4 whose parser is strict: Linux
 * 6.1's taprio answers "Unknown attribute type" (-EINVAL) for the fp
 * inside its TC entries (kernel tier, kernel-nl-fp). Said as what it is,
 * with the kernel's answer. NULL: another error. */
static char *fp_step_error(const ApplyPlan *p, const PlanStep *st, const NlRequest *req) {
        char *s = NULL;

        if (!p->s->root.fp_given || req->error != -EINVAL || !req->ext_ack ||
            !strstr(req->ext_ack, "Unknown attribute type") ||
            (st->kind != PLAN_ROOT && st->kind != PLAN_CHANGE_ROOT && st->kind != PLAN_RESTART_ROOT))
                return NULL;
        if (asprintf(&s, "root.fp: this kernel does not support frame preemption (%s: %s; Linux 6.4 or "
                     "later needed)", st->name, req->ext_ack) < 0)
                return NULL;
        return s;
}

/* Judge the kernel's answers to a sent plan, fall back to software where
 * offload was only tried, and roll back on failure. Returns like
 * nl_qdisc_apply(); the report moves to *ret. */
static int apply_plan_finish(NlQdisc *nl, ApplyPlan *p, int send_result, ApplyReport *ret) {
        const PlanStep *steps = p->plan.steps;
        const NlRequest *reqs = p->reqs;
        size_t n = p->plan.n, n_refused = 0;
        ApplyReport rep = p->plan.report;
        bool unknown = false;
        int k;

        p->plan.report = (ApplyReport) {};      /* moves to *ret */
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
                if (reqs[i].error < 0) {
                        n_refused++;
                        continue;
                }
                rep.n_messages++;
                if (steps[i].kind == PLAN_ROOT)
                        rep.root_replaced = true;
                else if (steps[i].kind == PLAN_CHANGE_ROOT) {
                        rep.root_changed_in_place = true;
                        rep.admin_base_time_ns = p->plan.base_time_ns;
                }
                else if (steps[i].kind == PLAN_ETF) {
                        k = etf_done(&rep.queues[steps[i].txq], steps[i].hw, NULL, steps[i].why,
                                     steps[i].why_literal);
                        if (k < 0)
                                goto fail;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (reqs[i].error < 0 && !plan_step_may_fall_back(&steps[i], reqs[i].error)) {
                        k = reqs[i].error;
                        rep.error = fp_step_error(p, &steps[i], &reqs[i]) ?:
                                    qdisc_step_error(reqs[i].ext_ack, k, steps[i].name);
                        goto fail;
                }

        /* Offload tried without facts and refused: the same etf in software. */
        if (n_refused > 0) {
                k = apply_plan_fall_back(nl, p, n_refused, &rep, &unknown);
                if (k < 0)
                        goto fail;
        }

        k = check_read_back(nl, p, &rep);
        if (k < 0)
                goto fail;
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
                rep.rolled_back = qdisc_restore_snapshot(nl, p->ifindex, p->snap, p->s->root.kind,
                                                         p->plan.root_handle, &rep.rollback_error) >= 0;
out:
        *ret = rep;
        return k;
}

/* Plan job's apply into p. Returns 0 or -errno (p->plan.report says why). */
static int apply_plan_prepare(NlQdisc *nl, const ApplyJob *job, ApplyPlan *p) {
        int k;

        *p = (ApplyPlan) { .ifindex = job->ifindex, .s = job->schedule, .snap = job->tree };
        /* Missing from the shared dump: either the default root of a down
         * interface or a dump cut short (qdisc_dump_judge()). Taking it for
         * "only the default" would plan against a tree that is not there; a
         * dump of its own tells. */
        if (!p->snap || !p->snap->has_root) {
                k = nl_qdisc_dump(nl, job->ifindex, &p->own);
                p->snap = &p->own;
                if (k < 0) {
                        (void) apply_report_init(job->schedule, &p->plan.report);
                        if (asprintf(&p->plan.report.error, "reading the qdisc tree: %s",
                                     dump_error_text(k)) < 0)
                                p->plan.report.error = NULL;
                        return k;
                }
        }
        k = qdisc_plan_build(job->ifindex, job->schedule, p->snap, job->facts, qdisc_system_default_kind, NULL,
                             &p->plan);
        if (k >= 0 && job->planned)
                job->planned(&p->plan, job->userdata);
        return k;
}

/* Send the requests of plans[0..n) (total of them) in as few sends as the
 * transport makes, or, after an earlier failed exchange (*failed < 0),
 * mark them with that failure unsent. Returns the array of the requests
 * (the plans point into it until they are done; free it then), NULL
 * without memory (then *failed is -ENOMEM). */
static NlRequest *apply_group_send(NlQdisc *nl, ApplyPlan *plans, const int *built, size_t n, size_t total,
                                   int *failed) {
        NlRequest *reqs;

        reqs = calloc(total ?: 1, sizeof(NlRequest));
        if (!reqs) {
                *failed = *failed ?: -ENOMEM;
                return NULL;
        }
        for (size_t i = 0, j = 0; i < n; i++) {
                if (built[i] < 0)
                        continue;
                plans[i].reqs = reqs + j;
                for (size_t q = 0; q < plans[i].plan.n; q++, j++) {
                        reqs[j].msg = plans[i].plan.steps[q].msg;
                        reqs[j].exchange_error = *failed;
                }
        }
        if (*failed >= 0)
                *failed = nl_transport_exchange(nl, reqs, total);
        return reqs;
}

int nl_qdisc_apply_many(NlQdisc *nl, const ApplyJob *jobs, size_t n, ApplyReport *ret_reports,
                        int *ret_results) {
        _cleanup_free_ ApplyPlan *plans = NULL;
        _cleanup_free_ int *built = NULL;
        size_t planned = 0;
        int failed = 0;

        if (n == 0)
                return 0;
        plans = calloc(n, sizeof(ApplyPlan));
        built = calloc(n, sizeof(int));
        if (!plans || !built) {
                for (size_t i = 0; i < n; i++) {
                        ret_reports[i] = (ApplyReport) {};
                        ret_results[i] = -ENOMEM;
                }
                return -ENOMEM;
        }

        /* In groups of about one send's worth of requests: planned, sent
         * and judged before the next group is planned. Hundreds of
         * interfaces planned at once hold a megabyte of requests for a
         * moment, and what the apply keeps (the reports) would stay
         * scattered through heap that can then not be given back. The
         * kernel handles every request on its own, so one interface's
         * refused request does not stop the next interface's; after a
         * failed exchange nothing more is sent, and the interfaces not
         * reached roll back (a no-op). */
        for (size_t g0 = 0; g0 < n;) {
                _cleanup_free_ NlRequest *reqs = NULL;
                size_t g1 = g0, total = 0;

                while (g1 < n) {
                        size_t c;

                        if (g1 == planned) {
                                built[g1] = apply_plan_prepare(nl, &jobs[g1], &plans[g1]);
                                planned++;
                        }
                        c = built[g1] >= 0 ? plans[g1].plan.n : 0;
                        if (g1 > g0 && total + c > NL_TRANSPORT_SEND_MAX)
                                break;  /* the first of the next group */
                        total += c;
                        g1++;
                }
                reqs = apply_group_send(nl, plans + g0, built + g0, g1 - g0, total, &failed);

                for (size_t i = g0; i < g1; i++) {
                        if (built[i] < 0) {
                                ret_reports[i] = plans[i].plan.report;
                                plans[i].plan.report = (ApplyReport) {};
                                ret_results[i] = built[i];
                        } else
                                ret_results[i] = apply_plan_finish(nl, &plans[i],
                                                                   reqs ? apply_plan_send_result(&plans[i]) : -ENOMEM,
                                                                   &ret_reports[i]);
                        apply_plan_done(&plans[i]);
                }
                g0 = g1;
        }
        return 0;
}

int nl_qdisc_remove(NlQdisc *nl, int ifindex, const RootSpec *const *ours, size_t n_ours, const DeviceFacts *facts,
                    char **ret_error) {
        return nl_qdisc_remove_from(nl, ifindex, NULL, ours, n_ours, facts, ret_error);
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
                (void) apply_report_init(s, &rep);
                if (asprintf(&rep.error, "reading the qdisc tree: %s", dump_error_text(k)) < 0)
                        rep.error = NULL;
                *ret = rep;
                return k;
        }
        return nl_qdisc_apply_with_tree(nl, ifindex, s, facts, &snap, ret);
}

int nl_qdisc_remove_from(NlQdisc *nl, int ifindex, const QDiscTree *tree, const RootSpec *const *ours,
                         size_t n_ours, const DeviceFacts *facts, char **ret_error) {
        _cleanup_(qdisc_tree_done) QDiscTree own = {};
        const QDiscTree *t = tree;
        char step[64], hb[16];
        int k;

        /* Without a root in the caller's dump (left out, or cut short) the
         * interface is dumped here and judged. */
        if (!t || !t->has_root) {
                k = nl_qdisc_dump(nl, ifindex, &own);
                if (k < 0) {
                        if (ret_error && asprintf(ret_error, "reading the qdisc tree: %s", dump_error_text(k)) < 0)
                                *ret_error = NULL;
                        return k;
                }
                t = &own;
        }
        k = qdisc_root_owner(t, ours, n_ours, facts, ret_error);
        if (k < 0)
                return k;
        if (k == OWNER_DEFAULT)
                return 0;
        if (k == OWNER_FOREIGN)
                return -EEXIST;
        k = qdisc_delete_root(nl, ifindex, &t->root);
        if (k < 0) {
                snprintf(step, sizeof(step), "removing root (%s %s)", t->root.kind,
                         tc_handle_to_string(t->root.handle, hb));
                if (ret_error)
                        *ret_error = qdisc_step_error(nl_transport_ext_ack(nl), k, step);
                return k;
        }
        return 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The netlink qdisc engine (the design's nl_qdisc.c): reads an interface's
 * qdisc tree back into the schedule model, applies a schedule by sending
 * only the differences, transactionally (snapshot first, restore on any
 * failure), and removes tbsd's root. The kernel's extended-ACK text is
 * captured so failures say what the kernel said ("Specified device does not
 * support ETF offload").
 *
 * The engine by role, each behind its own header, all included here:
 *   nl-transport.h  the one netlink socket: batches, ACKs, dumps
 *   qdisc-tree.h    dump -> QDiscTree (the schedule model), pure
 *   qdisc-plan.h    tree + schedule + device facts -> requests, pure
 *   qdisc.h         per-kind TCA_OPTIONS encoding behind an ops table
 *   nl-qdisc.c      apply: send the plan, judge, fall back, roll back
 *
 * Functions here do not log above debug; callers log with the interface. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl-transport.h"
#include "qdisc-dump.h"
#include "qdisc-plan.h"
#include "qdisc-tree.h"
#include "schedule.h"

/** Make ifindex carry schedule s: one dump, then nothing is sent when the
 *  tree already matches (handles and counters stay); when only etf children
 *  differ only those are replaced (and etf children no longer declared get
 *  the root's default child back); otherwise the root is recreated with all
 *  children. offload "auto" is decided with facts (NULL: unknown, then
 *  offload is tried and software used when the kernel refuses). On any
 *  failure the tree dumped first is restored (qdiscs that had to be
 *  re-created may get new handles) and the error names the step.
 *  s->root.handle 0 means TBS_DEFAULT_ROOT_HANDLE.
 *  *ret is filled on success and failure; free it with apply_report_done().
 *  Returns 1 when something was changed, 0 when nothing was sent, or -errno
 *  (ret->error then says which step failed and what the kernel said). */
int nl_qdisc_apply(NlQdisc *nl, int ifindex, const Schedule *s, const DeviceFacts *facts,
                   ApplyReport *ret);

/** nl_qdisc_apply() with the interface's tree already read: tree is its
 *  current tree, typically from one nl_qdisc_dump_all() shared by every
 *  interface of a batch (Linux 6.1 dumps the qdiscs of all interfaces
 *  whatever tcm_ifindex says, so one dump per interface costs O(N) each).
 *  tree must be current and must not be one this apply changes under the
 *  caller (dump again after an apply before using it for the same
 *  interface). For a tree that is NULL or has no root (the interface was
 *  missing from the dump) the interface is dumped again and judged with
 *  qdisc_dump_judge(): when the dump still leaves it out, nothing is sent
 *  and -EAGAIN is returned. The requests are sent in one
 *  batch (one send, one wait for all the ACKs); only etf queues whose
 *  offload is tried without facts (ETF_PLAN_TRY_HARDWARE) and refused get a
 *  second batch in software mode. Same return value and report as
 *  nl_qdisc_apply(); a rollback dumps again. */
int nl_qdisc_apply_with_tree(NlQdisc *nl, int ifindex, const Schedule *s, const DeviceFacts *facts,
                             const QDiscTree *tree, ApplyReport *ret);

/* One interface of nl_qdisc_apply_many(). */
typedef struct ApplyJob {
        int ifindex;
        const Schedule *schedule;
        const DeviceFacts *facts;       /* NULL: unknown */
        const QDiscTree *tree;          /* its current tree, as for nl_qdisc_apply_with_tree() */
        /* Told the plan before anything of it is sent (what the apply will
         * do to the root, for the log); may be NULL. */
        void (*planned)(const QDiscPlan *plan, void *userdata);
        void *userdata;
} ApplyJob;

/** nl_qdisc_apply_with_tree() for n interfaces at once: every interface's
 *  requests are planned first, then go out together in as few sends as
 *  the socket takes (one ACK wait per send), then each interface is judged
 *  (and rolled back on failure) on its own, exactly as if applied alone.
 *  The interfaces must differ. ret_reports[i] and ret_results[i] get what
 *  nl_qdisc_apply_with_tree() would return for jobs[i]. Returns 0, or
 *  -ENOMEM when nothing could be done (every result is then -ENOMEM). */
int nl_qdisc_apply_many(NlQdisc *nl, const ApplyJob *jobs, size_t n, ApplyReport *ret_reports,
                        int *ret_results);

/** Put back the interface's default root qdisc (deleting the root drops its
 *  children), but only when the root is tbsd's: its kind, handle and
 *  settings equal one of ours[0..n_ours) (qdisc_root_owner(); the
 *  schedule's root, the root tbsd last installed). Returns 1 when a root
 *  was deleted, 0 when the default root was already in place, -EEXIST when
 *  the root is not tbsd's and was left in place (*ret_error says which and
 *  why), or another -errno; then *ret_error (when not NULL) gets the
 *  kernel's message (free() it). facts (may be NULL) give the link speed
 *  a taprio's dumped max SDU is judged with. */
int nl_qdisc_remove(NlQdisc *nl, int ifindex, const RootSpec *const *ours, size_t n_ours, const DeviceFacts *facts,
                    char **ret_error);
/** nl_qdisc_remove() judging the root of tree, the interface's tree from a
 *  dump the caller took for several removals (one dump for all of them),
 *  instead of a dump of its own; with no tree or one without a root it
 *  dumps after all. */
int nl_qdisc_remove_from(NlQdisc *nl, int ifindex, const QDiscTree *tree, const RootSpec *const *ours,
                         size_t n_ours, const DeviceFacts *facts, char **ret_error);

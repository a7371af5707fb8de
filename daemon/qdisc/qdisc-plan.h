/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plan of an apply, as a pure function: an interface's kernel tree, its
 * schedule and what is known of the device go in; the list of requests that
 * make the tree carry the schedule comes out, each with what it does (for
 * the report and error texts), before anything is sent. No socket, no
 * logging: unit tests call it with recorded trees (tests/unit/test-qdisc-plan.c).
 *
 * Also here: the report an apply fills (ApplyReport), which the plan starts
 * (one entry per etf queue of the schedule, the reason of each queue kept as
 * installed). */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <time.h>
#include <stddef.h>
#include <stdint.h>

#include "qdisc-tree.h"
#include "qdisc.h"
#include "schedule.h"

struct nl_msg;

/* What one etf queue of an apply ended with. */
typedef struct QueueApplyResult {
        uint32_t queue;
        TxqKind kind;                   /* etf or cbs, as the schedule said */
        OffloadMode requested;          /* as the schedule said */
        bool offload;                   /* installed (or kept) in launch-time offload mode */
        bool changed;                   /* this apply created it; false: kept as installed */
        const char *reason;             /* why offload is on or off, e.g. "offload refused by
                                         * the kernel (Specified device does not support ETF
                                         * offload): software mode"; a literal or reason_buf */
        char *reason_buf;               /* owned text of reason, or NULL */
} QueueApplyResult;

/* The report of one nl_qdisc_apply(), filled on success and on failure. */
typedef struct ApplyReport {
        bool root_replaced;             /* the root was (re)created */
        bool root_changed_in_place;     /* taprio: a new gate schedule went to the running root */
        int64_t admin_base_time_ns;     /* root_changed_in_place: the base time sent */
        unsigned n_messages;            /* changes the kernel accepted, 0 when unchanged */
        QueueApplyResult *queues;       /* one per txqueue of the schedule, in its order; after a
                                         * failure they tell which of the batch's requests the
                                         * kernel accepted (undone by the rollback; the kernel goes
                                         * on after a refused request of a batch); reason NULL:
                                         * not installed */
        size_t n_queues;
        char *error;                    /* failure: "STEP: kernel's message" */
        bool rolled_back;               /* failure: the snapshot was restored */
        char *rollback_error;           /* failure: restoring failed too, or NULL */
} ApplyReport;

/** Free what a report owns; it is zeroed afterwards. Accepts NULL. */
void apply_report_done(ApplyReport *r);

/** Start a report for schedule s: one entry per txqueue, in its order.
 *  Returns 0 or -ENOMEM (the report then has no entries). */
int apply_report_init(const Schedule *s, ApplyReport *rep);

/** Set q's reason: a literal is pointed to, any other text copied (a
 *  report outlives the probe result a device's reason comes from).
 *  Returns 0 or -ENOMEM. */
int queue_result_set_reason(QueueApplyResult *q, const char *reason, bool literal);

/** "STEP: what the kernel said" (ext_ack, or strerror(-error) when it is
 *  ""), malloc'ed; NULL when out of memory. */
char *qdisc_step_error(const char *ext_ack, int error, const char *step);

/* What one request of a plan does. */
typedef enum PlanStepKind {
        PLAN_DELETE_ROOT,               /* delete the root in place (same handle as the new one) */
        PLAN_ROOT,                      /* create or replace the root, with its default children */
        PLAN_CHANGE_ROOT,               /* taprio: a new (admin) schedule for the running root */
        PLAN_RESTART_ROOT,              /* software taprio: its schedule again after children were
                                         * grafted (Linux 6.1 stops it then) */
        PLAN_ETF,                       /* graft an etf on a TX queue */
        PLAN_RESET_CHILD,               /* put the root's default child back on a queue */
        PLAN_ETF_CHILD,                 /* graft an etf under a cbs (a queue's, or the root) */
        _PLAN_STEP_KIND_MAX,
        _PLAN_STEP_KIND_INVALID = -EINVAL,
} PlanStepKind;

typedef struct PlanStep {
        PlanStepKind kind;
        struct nl_msg *msg;             /* the request (owned) */
        size_t txq;                     /* PLAN_ETF: index in the schedule's txqueues */
        EtfOffloadPlan plan;            /* PLAN_ETF */
        const char *why;                /* PLAN_ETF: reason of the plan */
        bool why_literal;               /* PLAN_ETF: why is a literal, not the device's reason */
        uint32_t handle;                /* PLAN_ETF, PLAN_RESET_CHILD, PLAN_ETF_CHILD: the new
                                         * qdisc's handle */
        uint32_t parent;                /* PLAN_ETF_CHILD: the cbs's handle, minor 1 */
        bool hw;                        /* PLAN_ETF: sent in offload mode */
        EtfSpec spec;                   /* PLAN_ETF: the child as sent, a cbs's values resolved */
        char name[96];                  /* "txqueue 1 (etf on 100:2)", for errors */
} PlanStep;

/* The system's default qdisc kind (net.core.default_qdisc) in buf, or a
 * literal; asked only when a queue gets its default child back under a
 * root whose kind has no fixed one. */
typedef const char *(*default_qdisc_fn)(char buf[static IFNAMSIZ]);

/* The current time of a clock in ns: the plan's one reading of the world
 * (a base time left to tbsd), a fixed one in tests. */
typedef int64_t (*plan_clock_fn)(clockid_t clock);

/* What an apply does to the root. */
typedef enum RootChange {
        PLAN_KEEP_ROOT,                 /* the installed root carries the schedule */
        PLAN_CREATE_ROOT,               /* no root of tbsd's kinds there: created */
        PLAN_CHANGE_ROOT_IN_PLACE,      /* taprio: new gate schedule, handles and queues stay */
        PLAN_RECREATE_ROOT,             /* replaced: children re-created, queued packets dropped */
        _ROOT_CHANGE_MAX,
        _ROOT_CHANGE_INVALID = -EINVAL,
} RootChange;

/* The requests of one interface's apply, in the order they must be sent. */
typedef struct QDiscPlan {
        uint32_t root_handle;           /* the schedule's root handle (0 made the default) */
        RootChange root_change;
        char root_why[160];             /* PLAN_RECREATE_ROOT: what differs, "mode software instead of
                                         * txtime-assist" ("requires re-creating the root: ...") */
        int64_t base_time_ns;           /* PLAN_CHANGE_ROOT_IN_PLACE: the admin schedule's base time */
        bool check_max_sdu;             /* max SDUs go to a new taprio on a kernel not known to
                                         * take them: read the root back after the apply (a
                                         * kernel without them ignores the attribute) */
        bool check_num_tc;              /* a new mqprio or taprio root in place of one: read the
                                         * root back after the apply and fail unless it has the
                                         * schedule's traffic classes (qdisc_plan_check_root()) */
        bool check_fp;                  /* root.fp went out with a root (created, re-created or
                                         * changed): read the root back and fail unless it dumps
                                         * fp per class (a kernel before 6.4 ignores it) */
        PlanStep *steps;
        size_t n;                       /* 0: the tree already carries the schedule */
        ApplyReport report;             /* started: entries per queue, reasons of kept queues;
                                         * on failure the error */
} QDiscPlan;

/** Plan what makes tree (ifindex's current tree, with a root) carry s:
 *  nothing when it already does (handles and counters stay); when the root
 *  is the schedule's, only the etf children that differ (and the default
 *  child back where an etf is no longer declared); otherwise the root with
 *  all etf children (the old root deleted first when it has the same
 *  handle, or when both it and the new root are mqprio or taprio:
 *  qdisc_root_delete_first()). A root that a rollback could not put back exactly is not
 *  replaced (qdisc_root_replaceable()). offload "auto" is decided with
 *  facts (NULL: unknown, then offload is tried: ETF_PLAN_TRY_HARDWARE).
 *  default_qdisc (NULL: "pfifo_fast") names the system's default child.
 *  Returns 0 (ret->n may be 0), or -errno with ret->report.error saying
 *  why; *ret is filled in both cases: free it with qdisc_plan_done(). */
int qdisc_plan_build(int ifindex, const Schedule *s, const QDiscTree *tree, const DeviceFacts *facts,
                     default_qdisc_fn default_qdisc, plan_clock_fn now, QDiscPlan *ret);

/** Compute in place what a queue's file leaves to the device's facts (NULL:
 *  unknown), such as a cbs bandwidth's four values (QDiscVTable.resolve);
 *  other queues are left as they are. Returns 0, or -errno with *ret_error
 *  (malloc'ed, may be NULL when out of memory) saying why, naming the queue. */
int plan_resolve_values(EtfSpec *e, const DeviceFacts *facts, char **ret_error);

/** The offload of a cbs's etf child (e->child_offload) decided with the
 *  device facts f (NULL: unknown) in place: "auto" is on only where the
 *  device is known to have launch time on e->queue (no fallback is tried
 *  under a cbs). A spec without a child is left as it is. */
void plan_resolve_etf_child(EtfSpec *e, const DeviceFacts *f);

/** An etf or cbs root (RootSpec.leaf) as it is sent, in place: a cbs's
 *  values computed, offload "auto" decided with the facts (NULL: unknown):
 *  on where the device is known to have it on its queue 0, else off (a root
 *  is not tried and fallen back), and so its etf child's. Returns 0, or
 *  -errno with *ret_error (malloc'ed, may be NULL) saying why. */
int plan_resolve_leaf(RootSpec *r, const DeviceFacts *facts, char **ret_error);

/** The offload part of plan_resolve_leaf() alone, on the root's leaf e: its
 *  "auto" and its etf child's decided with the facts (NULL: unknown). What
 *  GetTxtimeParams() reports for a root etf. */
void plan_resolve_leaf_offload(EtfSpec *e, const DeviceFacts *facts);

/** After an apply of plan p for s: whether t (the interface dumped since)
 *  has the root the plan created with s's number of traffic classes, when
 *  p->check_num_tc asks for it (Linux has answered success for an mqprio
 *  or taprio root left without any), and whether its root dumps fp per
 *  class when p->check_fp asks for it (a kernel before 6.4 ignores
 *  root.fp). Returns 0, -EIO with *ret_error (malloc'ed, may be NULL when
 *  out of memory) naming the root and what the dump shows, or -EOPNOTSUPP
 *  with *ret_error "root.fp: this kernel does not support frame
 *  preemption ...". */
int qdisc_plan_check_root(const QDiscPlan *p, const Schedule *s, const QDiscTree *t, char **ret_error);

/** Free a plan (its requests and its report). Accepts NULL. */
void qdisc_plan_done(QDiscPlan *p);

/** Whether a refusal (-errno) of step st lets the apply fall back to
 *  software: an etf whose offload was only tried (ETF_PLAN_TRY_HARDWARE). */
bool plan_step_may_fall_back(const PlanStep *st, int error);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The netlink qdisc engine: reads an interface's qdisc tree back into the
 * schedule model (one RTM_GETQDISC dump), applies a schedule by sending only
 * the differences, transactionally (snapshot first, restore on any failure),
 * and removes tbsd's root. Kind-specific encoding lives in qdisc-*.c behind
 * qdisc.h. The kernel's extended-ACK text is captured so failures say what
 * the kernel said ("Specified device does not support ETF offload").
 *
 * Functions here do not log above debug; callers log with the interface. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

typedef struct NlQdisc NlQdisc;

/* Counters of one qdisc, from TCA_STATS2 (TCA_STATS_BASIC, TCA_STATS_QUEUE). */
typedef struct QDiscStats {
        uint64_t bytes;
        uint64_t packets;
        uint32_t drops;
        uint32_t overlimits;
        uint32_t requeues;
        uint32_t backlog_bytes;
        uint32_t qlen;                  /* backlog in packets */
} QDiscStats;

/* One qdisc as the kernel dumped it. */
typedef struct InstalledQDisc {
        char kind[IFNAMSIZ];            /* TCA_KIND ("mqprio", "etf", "pfifo_fast", ...) */
        uint32_t handle;                /* 0: a default qdisc the kernel created */
        uint32_t parent;                /* TC_H_ROOT for the root */
        QDiscStats stats;
        void *options;                  /* raw TCA_OPTIONS payload, NULL if none */
        size_t options_len;
        bool options_nested;            /* the dump set NLA_F_NESTED on TCA_OPTIONS */
} InstalledQDisc;

/* The qdisc on one TX queue of the root (its parent is ROOT_MAJOR:(queue+1)). */
typedef struct InstalledQueue {
        uint32_t queue;                 /* 0-based TX queue */
        InstalledQDisc qdisc;
        bool is_etf;
        EtfSpec etf;                    /* when is_etf; offload is OFFLOAD_ON or OFFLOAD_OFF */
        uint64_t deadline_misses;       /* etf: overlimits (txtime passed at dequeue) */
        uint64_t invalid;               /* etf: drops - overlimits (refused at enqueue) */
} InstalledQueue;

/* An interface's qdisc tree. */
typedef struct QDiscTree {
        int ifindex;
        bool has_root;                  /* false: the dump had no root (should not happen) */
        InstalledQDisc root;            /* handle 0: the kernel's default root */
        bool root_known;                /* root is mqprio/taprio: root_spec holds it */
        RootSpec root_spec;             /* handle included */
        InstalledQueue *queues;         /* children of the root, sorted by queue */
        size_t n_queues;
        uint32_t *handles;              /* every non-zero handle on the device (all qdiscs dumped) */
        size_t n_handles;
        bool pooled;                    /* a tree of a QDiscTreeSet: its arrays and option payloads
                                         * belong to the set, only root_spec to the tree */
} QDiscTree;

/* What one etf queue of an apply ended with. */
typedef struct QueueApplyResult {
        uint32_t queue;
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

/** Open a NETLINK_ROUTE socket with extended ACKs turned on. Returns 0 and
 *  *ret, or -errno. */
int nl_qdisc_new(NlQdisc **ret);

/** Close and free. Accepts NULL; returns NULL. */
NlQdisc *nl_qdisc_free(NlQdisc *nl);
DEFINE_TRIVIAL_CLEANUP_FUNC(NlQdisc *, nl_qdisc_free);
#define _cleanup_nl_qdisc_ _cleanup_(nl_qdisc_freep)

/** Read the qdiscs of ifindex (one RTM_GETQDISC dump) into *ret, with
 *  statistics. Returns 0, or -ENODEV when the interface vanished, -EAGAIN
 *  when the dump left the interface out (qdisc_dump_judge()), or another
 *  -errno. Free with qdisc_tree_done(). */
int nl_qdisc_dump(NlQdisc *nl, int ifindex, QDiscTree *ret);

/** Judge what a dump says about one interface, before anything is done
 *  on it. Linux ends a qdisc dump without any error at a qdisc whose
 *  message does not fit a dump buffer (a taprio of some 880 entries, see
 *  docs/schedule-format.md): every qdisc after it, of that interface and of
 *  the interfaces dumped later, is silently missing. Only the absence of a
 *  root gives it away: an interface that is up always has one.
 *  @t            the interface's tree from the dump, NULL when it had none
 *  @iface_flags  the interface's IFF_* flags, or -ENODEV when it is gone
 *  Returns 0 when the dump can be trusted for it (a root was dumped, or
 *  the interface is down and may well have none), -ENODEV when the
 *  interface is gone, -EAGAIN when the dump is incomplete: nothing may be
 *  concluded about the interface's qdiscs from it. */
int qdisc_dump_judge(const QDiscTree *t, int iface_flags);

/** qdisc_dump_judge() with the flags of interface ifindex read here (only
 *  when t has no root). */
int qdisc_dump_judge_ifindex(const QDiscTree *t, int ifindex);

/** One RTM_GETQDISC dump of every interface's qdiscs, as the RTM_NEWQDISC
 *  messages received, back to back (free(*ret_buf)). Build each interface's
 *  tree from it with qdisc_tree_parse_dump(): one dump serves all links.
 *  Returns 0 or -errno. */
int nl_qdisc_dump_raw(NlQdisc *nl, void **ret_buf, size_t *ret_len);

/** Every interface's tree from one dump, sorted by ifindex. The trees'
 *  arrays come from a few blocks of the set and their option payloads point
 *  into the dump itself, which the set keeps: parsing hundreds of
 *  interfaces makes a handful of allocations, not thousands of small ones
 *  spread over the heap between what the daemon keeps. */
typedef struct QDiscTreeSet {
        QDiscTree *trees;
        size_t n;
        void *dump;                     /* the raw messages when the set owns them
                                         * (nl_qdisc_dump_all()), else NULL */
        InstalledQueue *queue_pool;
        uint32_t *handle_pool;
} QDiscTreeSet;

/** Split raw dump bytes (as nl_qdisc_dump_raw() returns them) into one tree
 *  per interface in a single pass: O(messages), where calling
 *  qdisc_tree_parse_dump() once per interface reads the whole dump each
 *  time. The trees' option payloads point into buf: keep it until
 *  qdisc_tree_set_done(). Returns 0, -EBADMSG for a malformed message, or
 *  -ENOMEM. Free with qdisc_tree_set_done(). */
int qdisc_tree_set_parse(const void *buf, size_t len, QDiscTreeSet *ret);

/** One dump of every interface (nl_qdisc_dump_raw()) split into *ret
 *  (qdisc_tree_set_parse()). Returns 0 or -errno. */
int nl_qdisc_dump_all(NlQdisc *nl, QDiscTreeSet *ret);

/** The tree of ifindex in set, or NULL when the dump had no qdisc of it
 *  (binary search). */
const QDiscTree *qdisc_tree_set_find(const QDiscTreeSet *set, int ifindex);

/** The tree of ifindex as a tree of its own in *ret, without the option
 *  payloads and the handle list (what a statistics sample keeps: counters
 *  and parsed settings); the root's parsed settings move over, the set
 *  keeps an empty tree in its place, still found by qdisc_tree_set_find().
 *  Returns 0, -ENOENT when the dump had no qdisc of ifindex (*ret
 *  untouched), or -ENOMEM. */
int qdisc_tree_set_take_slim(QDiscTreeSet *set, int ifindex, QDiscTree *ret);

/** Free every tree of the set; it is zeroed afterwards. Accepts NULL. */
void qdisc_tree_set_done(QDiscTreeSet *set);

/** Parse recorded dump bytes (a sequence of netlink messages as received:
 *  RTM_NEWQDISC, other types and other interfaces are skipped) into *ret.
 *  The seam the unit tests replay recorded kernel answers through.
 *  Returns 0, -EBADMSG for a malformed message, or -ENOMEM. */
int qdisc_tree_parse_dump(const void *buf, size_t len, int ifindex, QDiscTree *ret);

/** The extended-ACK text (NLMSGERR_ATTR_MSG) of an NLMSG_ERROR message h,
 *  whether the kernel echoed the whole request or only its header
 *  (NLM_F_CAPPED), copied into buf (size bytes, always terminated; "" when
 *  none). Returns 1 when there was a message, 0 when none, -EBADMSG when h
 *  is not a well-formed NLMSG_ERROR. */
struct nlmsghdr;
int nl_ext_ack_message(const struct nlmsghdr *h, char *buf, size_t size);

/** Free what a tree owns; it is zeroed afterwards. Accepts NULL. */
void qdisc_tree_done(QDiscTree *t);

/** The installed queue of t for TX queue q, or NULL. */
const InstalledQueue *qdisc_tree_find_queue(const QDiscTree *t, uint32_t queue);

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
 *  kernel's message (free() it). */
int nl_qdisc_remove(NlQdisc *nl, int ifindex, const RootSpec *const *ours, size_t n_ours, char **ret_error);

/** Free what a report owns; it is zeroed afterwards. Accepts NULL. */
void apply_report_done(ApplyReport *r);

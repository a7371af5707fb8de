/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An interface's qdisc tree as the kernel dumped it, in the schedule model:
 * the root and the etf children parse into the same RootSpec/EtfSpec the
 * schedule parser fills, so desired and actual compare field by field. One
 * dump of every interface splits into a QDiscTreeSet in one pass. Pure
 * parsing (no socket); the seam the unit tests and fuzzers replay recorded
 * kernel answers through. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

struct nlmsghdr;

/* taprio's offload statistics (TCA_STATS_APP, Linux 6.5+,
 * taprio_dump_xstats()), of the root or of one class (TX queue): only when
 * the driver gives them, each on its own; a software taprio, or a driver
 * without them, has none. */
typedef struct TaprioOffloadStats {
        bool has_window_drops;
        bool has_tx_overruns;
        uint64_t window_drops;          /* frames the NIC dropped: too long for their gate's window */
        uint64_t tx_overruns;           /* frames still going out when their gate closed */
} TaprioOffloadStats;

/* Counters of one qdisc, from TCA_STATS2 (TCA_STATS_BASIC, TCA_STATS_QUEUE). */
typedef struct QDiscStats {
        uint64_t bytes;
        uint64_t packets;
        uint32_t drops;
        uint32_t overlimits;
        uint32_t requeues;
        uint32_t backlog_bytes;
        uint32_t qlen;                  /* backlog in packets */
        TaprioOffloadStats offload;     /* a taprio root's */
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
        StabSpec stab;                  /* TCA_STAB's sizespec (given: the qdisc has one) */
} InstalledQDisc;

/* The qdisc on one TX queue of the root (its parent is ROOT_MAJOR:(queue+1)). */
typedef struct InstalledQueue {
        uint32_t queue;                 /* 0-based TX queue */
        InstalledQDisc qdisc;
        bool is_etf;                    /* a kind that releases frames at their launch time
                                         * (QDiscVTable.releases_at_txtime: etf) */
        bool is_cbs;                    /* another TX queue kind tbsd reads (cbs) */
        EtfSpec etf;                    /* when is_etf or is_cbs (etf.kind says which); offload is
                                         * OFFLOAD_ON or OFFLOAD_OFF; a cbs's etf child in
                                         * etf.etf_child and the etf fields */
        InstalledQDisc child;           /* is_cbs with an etf under it (parent CBS_HANDLE:1): that
                                         * etf; kind "" when none */
        uint64_t deadline_misses;       /* etf: overlimits (txtime passed at dequeue) */
        uint64_t invalid;               /* etf: drops - overlimits (refused at enqueue) */
        TaprioOffloadStats offload;     /* under a taprio root with offload statistics: its class's
                                         * (qdisc_tree_add_class_stats()) */
} InstalledQueue;

/* An interface's qdisc tree. */
typedef struct QDiscTree {
        int ifindex;
        bool has_root;                  /* false: the dump had no root (should not happen) */
        InstalledQDisc root;            /* handle 0: the kernel's default root */
        bool root_known;                /* root is mqprio/taprio/etf/cbs: root_spec holds it (a cbs
                                         * root's etf child too, in its leaf; that etf is also
                                         * queues[0], neither is_etf nor is_cbs) */
        RootSpec root_spec;             /* handle included */
        InstalledQueue *queues;         /* children of the root, sorted by queue */
        size_t n_queues;
        uint32_t *handles;              /* every non-zero handle on the device (all qdiscs dumped) */
        size_t n_handles;
        bool pooled;                    /* a tree of a QDiscTreeSet: its arrays and option payloads
                                         * belong to the set, only root_spec to the tree */
} QDiscTree;

/** Add the offload statistics of a taprio root's classes (one per TX
 *  queue) from the raw bytes of a class dump of t's interface
 *  (nl_class_dump_raw(); RTM_NEWTCLASS messages, taprio_dump_class_stats():
 *  TCA_STATS_APP in TCA_STATS2 as the root's) to t's queues. Messages of
 *  other interfaces or qdiscs are skipped. Returns 0 or -EBADMSG. */
int qdisc_tree_add_class_stats(QDiscTree *t, const void *buf, size_t len);
/** The offload statistics of traffic class tc of t's taprio root (IEEE
 *  802.1Q's per-class counters): each counter summed over the class's TX
 *  queues (their taprio classes, qdisc_tree_add_class_stats()) and set only
 *  when every one of those queues has it; none for a class out of range, or
 *  a tree whose root is not read. */
void qdisc_tree_class_offload_stats(const QDiscTree *t, unsigned tc, TaprioOffloadStats *ret);
/* taprio's TCA_STATS_APP nest into st (a counter the driver leaves out
 * stays unset; a nest that cannot be read is ignored). */
struct nlattr;
void qdisc_parse_taprio_offload_stats(struct nlattr *app, TaprioOffloadStats *st);

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

/** Whether the dumped message h (RTM_NEWQDISC) belongs to one of the
 *  n_wanted interfaces of wanted (ascending): a binary search. A message too
 *  short to name its interface is kept, for the parser to refuse. */
bool qdisc_dump_wants(const struct nlmsghdr *h, const int *wanted, size_t n_wanted);

/** Sort the interface indexes v[0..n) ascending and drop repeats, in
 *  place, as qdisc_dump_wants() wants them. Returns how many are left. */
size_t qdisc_dump_wanted_sort(int *v, size_t n);

/** Split raw dump bytes (as nl_qdisc_dump_raw() returns them) into one tree
 *  per interface in a single pass: O(messages), where calling
 *  qdisc_tree_parse_dump() once per interface reads the whole dump each
 *  time. The trees' option payloads point into buf: keep it until
 *  qdisc_tree_set_done(). Returns 0, -EBADMSG for a malformed message, or
 *  -ENOMEM. Free with qdisc_tree_set_done(). */
int qdisc_tree_set_parse(const void *buf, size_t len, QDiscTreeSet *ret);

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

/** Free what a tree owns; it is zeroed afterwards. Accepts NULL. */
void qdisc_tree_done(QDiscTree *t);

/** Whether iq holds a child of a kind a schedule declares (etf or cbs),
 *  parsed into iq->etf. */
static inline bool installed_queue_is_declarable(const InstalledQueue *iq) {
        return iq->is_etf || iq->is_cbs;
}

/** The installed queue of t for TX queue q, or NULL. */
const InstalledQueue *qdisc_tree_find_queue(const QDiscTree *t, uint32_t queue);

/** What the options of q (a root or child of a kind with a vtable) hold
 *  beyond the schedule model (QDiscVTable.unexpressed): a static phrase in
 *  *ret, or NULL. Returns 0 or -ENOMEM. */
int installed_qdisc_unexpressed(const InstalledQDisc *q, const char **ret);

/** The system's default qdisc kind (net.core.default_qdisc) in buf: what
 *  the kernel puts on a TX queue of a root whose kind has no default child
 *  of its own (mqprio). "pfifo_fast" when it cannot be read. Returns buf or
 *  that literal. */
const char *qdisc_system_default_kind(char buf[static IFNAMSIZ]);

/* Qdisc handles are MAJOR:0 with a major of 1: to fffe: (ffff: belongs to
 * ingress and clsact). The kernel picks its own (a qdisc created without a
 * handle, such as `tc qdisc add dev X root mqprio ...`) from 8001: upward. */
#define QDISC_HANDLE_MAJOR_MAX  0xfffeU
#define QDISC_HANDLE_AUTO_MAJOR 0x8000U

/* The text of -ENOSPC from handle_pool_next(), for the step that wanted one. */
#define HANDLE_POOL_FULL_TEXT                                                                      \
        "no free qdisc handle on the device, every one from 1: to fffe: is in use; delete the "   \
        "qdiscs the device does not need (tc qdisc show dev IFACE lists them) and apply again"

/* The handles an apply (or a rollback) hands out on one device: majors that
 * nothing on the device uses (the dumped tree's handles, the root's and
 * whatever handle_pool_reserve() adds), in this order: from the root's
 * major + 1 up to 7fff:, wrapping around to 1: (from 1: when the root is
 * 8000: or above), then 8000: to fffe:, the kernel's own range, only when
 * all of those are taken. A tree that has room below 8000: thus gets the
 * handles it always got. The map of majors is filled on first use, so a
 * plan that hands out nothing costs nothing, and only the words of the map
 * that majors in use fall into are written. */
typedef struct HandlePool {
        const QDiscTree *tree;          /* NULL: no dumped tree */
        uint32_t root_major;            /* 0: none */
        uint32_t start;                 /* first major of the order */
        uint32_t walked;                /* how many majors of the order were handed out or skipped */
        bool ready;                     /* the map holds the tree's majors */
        uint64_t used[0x10000 / 64];    /* bit per major; a word only counts... */
        uint64_t filled[0x10000 / 64 / 64]; /* ... once its bit here is set */
} HandlePool;

/** Start a pool for the device of tree (may be NULL) whose root has (or
 *  gets) root_handle (0: none); both are reserved. */
void handle_pool_init(HandlePool *p, const QDiscTree *tree, uint32_t root_handle);

/** Mark the major of handle as in use (0 and TC_H_ROOT are ignored). */
void handle_pool_reserve(HandlePool *p, uint32_t handle);

/** The next free handle (major only, minor 0) in *ret, reserved from then
 *  on. Returns 0, or -ENOSPC when every major from 1: to fffe: is in use
 *  (HANDLE_POOL_FULL_TEXT says so). */
int handle_pool_next(HandlePool *p, uint32_t *ret);

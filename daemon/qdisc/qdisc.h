/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One small ops table per qdisc kind tbsd installs (mqprio, taprio, etf, cbs),
 * in the manner of systemd-networkd's QDiscVTable and iproute2's qdisc_util:
 * each kind fills the TCA_OPTIONS of a request from the schedule model,
 * parses a dumped TCA_OPTIONS back into the same model, and compares two
 * models. This file also builds the RTM_NEWQDISC/RTM_DELQDISC requests
 * themselves, so the golden-bytes unit tests see exactly what the engine
 * (nl-qdisc.c) sends. Nothing here logs or talks to the kernel. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "schedule.h"

static inline void nlmsg_freep(struct nl_msg **m) {
        if (*m)
                nlmsg_free(*m);
}
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)

typedef struct QDiscVTable {
        const char *kind;                /* TCA_KIND */
        bool root;                       /* spec is a RootSpec; otherwise an EtfSpec (etf or cbs) */
        /* Root kinds: the kind the kernel puts on each TX queue when the root
         * is created. NULL: the system default (net.core.default_qdisc). */
        const char *default_child;
        /* Root kinds that set the device's traffic classes when created
         * and clear them when destroyed (Linux: mqprio and taprio call
         * netdev_set_num_tc() and netdev_reset_tc()). Replacing one such
         * root by another under another handle in one request leaves the
         * new one with none (the old one is destroyed after the new one
         * set them): the plan and the rollback delete the old one first. */
        bool traffic_classes;
        /* Append TCA_OPTIONS for spec to m. An EtfSpec's offload must be
         * resolved to OFFLOAD_ON or OFFLOAD_OFF. Returns 0 or -errno. For
         * the kinds libnl-route 3.7 lacks (taprio, etf). */
        int (*fill_options)(struct nl_msg *m, const void *spec);
        /* Root kinds libnl-route knows (mqprio): build the whole request
         * (RTM_NEWQDISC, NLM_F_CREATE|NLM_F_REPLACE, spec's handle on
         * TC_H_ROOT) with libnl-route's object and encoder instead. */
        int (*build_request)(int ifindex, const void *spec, struct nl_msg **ret);
        /* Parse a dumped TCA_OPTIONS attribute (NULL when the dump had none)
         * into *ret_spec (a RootSpec or EtfSpec; the caller sets handle or
         * queue). Returns 0, or -EBADMSG for a malformed payload, or -ENOMEM.
         * A RootSpec filled here owns its entries: root_spec_done() it. */
        int (*parse_options)(const struct nlattr *options, void *ret_spec);
        /* Whether two specs describe the same installed qdisc. */
        bool (*equal)(const void *a, const void *b);
        /* What a dumped TCA_OPTIONS (NULL when none) holds beyond the
         * model, which a schedule therefore cannot declare: a static phrase
         * such as "mqprio shaper bw_rlimit", or NULL when the model holds
         * it all. NULL op: the model holds every option of the kind. For
         * tbsctl import; the engine does not compare what it cannot set. */
        const char *(*unexpressed)(const struct nlattr *options);
} QDiscVTable;

extern const QDiscVTable qdisc_mqprio_vtable;
extern const QDiscVTable qdisc_taprio_vtable;
extern const QDiscVTable qdisc_etf_vtable;
extern const QDiscVTable qdisc_cbs_vtable;
extern const QDiscVTable qdisc_etf_root_vtable;  /* etf as the root: a RootSpec with its leaf */
extern const QDiscVTable qdisc_cbs_root_vtable;  /* cbs as the root: a RootSpec with its leaf */

/** The ops of a TX queue child kind (etf, cbs), or NULL when out of range. */
const QDiscVTable *qdisc_vtable_for_child(TxqKind k);

/** The ops for a TCA_KIND string ("mqprio", "taprio", "etf", "cbs"), or NULL. */
const QDiscVTable *qdisc_vtable_by_kind(const char *kind);

/** The root ops for a TCA_KIND string ("mqprio", "taprio", "etf", "cbs"),
 *  or NULL. */
const QDiscVTable *qdisc_vtable_root_by_kind(const char *kind);

/** The ops for a root kind, or NULL when out of range. */
const QDiscVTable *qdisc_vtable_for_root(RootKind k);

/** Whether the root old_kind (TCA_KIND as dumped) has to be deleted before
 *  a root of new_kind is created under another handle: both set the
 *  device's traffic classes (QDiscVTable.traffic_classes), and a one-step
 *  replace leaves the new root with none (Linux 6.1 answers success). */
bool qdisc_root_delete_first(const char *old_kind, const char *new_kind);

/** Build a traffic-control request: a struct tcmsg for ifindex, handle and
 *  parent, then TCA_KIND when kind is not NULL. type is RTM_NEWQDISC or
 *  RTM_DELQDISC; flags are NLM_F_* beyond NLM_F_REQUEST (NLM_F_ACK is added
 *  when the message is sent). Returns 0 and *ret, or -ENOMEM.
 *
 *  libnl's rtnl_qdisc_build_add_request() emits the same tcmsg and TCA_KIND
 *  but then runs libnl's own module for kinds it knows (mqprio, pfifo, ...),
 *  which appends options of its own or refuses (pfifo without a limit); the
 *  engine restores arbitrary kinds, so it builds this part itself. */
int qdisc_request_new(int type, int flags, int ifindex, uint32_t handle, uint32_t parent,
                      const char *kind, struct nl_msg **ret);

/** qdisc_request_new() with a raw TCA_OPTIONS payload of len bytes (as a
 *  dump gave it; nested: set NLA_F_NESTED), for putting back a qdisc as it
 *  was dumped. Returns 0 and *ret, -EMSGSIZE when the payload cannot be one
 *  attribute or one request, or -ENOMEM. */
int qdisc_request_with_options(int type, int flags, int ifindex, uint32_t handle, uint32_t parent,
                               const char *kind, const void *options, size_t len, bool nested,
                               struct nl_msg **ret);

/** Request that creates (or replaces, NLM_F_CREATE|NLM_F_REPLACE) root r on
 *  ifindex with handle r->handle. Returns 0 and *ret, or -errno. */
int qdisc_root_request(int ifindex, const RootSpec *r, struct nl_msg **ret);

/* TCA_STAB for a qdisc whose size table is in force (lib/schedule-stab.h):
 * its sizespec and, when it has one, the table, as tc qdisc ... stab sends
 * them. Nothing when none is in force. */
int qdisc_put_stab(struct nl_msg *m, const StabSpec *s);

/** Request that changes the running root r->handle on ifindex in place
 *  (RTM_NEWQDISC with NLM_F_REPLACE, without NLM_F_CREATE: what `tc qdisc
 *  replace` sends for the root's own handle). taprio takes the gate list,
 *  base, cycle and extension times as a new admin schedule and the max
 *  SDUs at once. Returns 0 and *ret, -EOPNOTSUPP for a kind that libnl-route
 *  encodes (mqprio: Linux 6.1's cannot change), or -errno. */
int qdisc_root_change_request(int ifindex, const RootSpec *r, struct nl_msg **ret);

/** Request that grafts a new etf qdisc (a cbs when e->kind is TXQ_CBS, its
 *  values resolved) with handle `handle` (major only, not
 *  in use on the device) on TX queue e->queue under the root with handle
 *  root_handle, replacing whatever child is there (NLM_F_CREATE|NLM_F_REPLACE).
 *  A fresh explicit handle is what makes the kernel graft a new qdisc: with
 *  handle 0 and a child of the same kind, Linux 6.1 (stable) tries to
 *  "change" the child in place, which etf cannot. offload overrides
 *  e->offload (already resolved). Returns 0 and *ret, or -errno. */
int qdisc_etf_request(int ifindex, uint32_t root_handle, uint32_t handle, const EtfSpec *e,
                      bool offload, struct nl_msg **ret);

/** Request that grafts a new etf (e's etf part, etf_spec_etf_part(), with
 *  offload as given) with handle `handle` under the qdisc `parent` (a
 *  cbs's handle with minor 1), NLM_F_CREATE|NLM_F_REPLACE. Returns 0 and
 *  *ret, or -errno. */
int qdisc_etf_child_request(int ifindex, uint32_t parent, uint32_t handle, const EtfSpec *e, bool offload,
                            struct nl_msg **ret);

/** The TCA_OPTIONS attribute of a request built above, or NULL. */
struct nlattr *qdisc_request_options(struct nl_msg *m);

/* Helpers shared by the kind files. */

/** Close a nest opened with nla_nest_start(). nla_len is 16 bits: a nest
 *  above 65535 bytes cannot be expressed, libnl then cuts it off the message
 *  (which would send the request without it). Returns 0, or -EMSGSIZE when
 *  the nest overflowed (the message must not be sent). */
int qdisc_nest_end(struct nl_msg *m, struct nlattr *start);

/* Room of a request without a gate list (they are below 300 bytes); libnl
 * messages do not grow, a taprio root gets room per entry on top. */
#define QDISC_REQUEST_SIZE 512

/* The largest request qdisc_root_request() builds: the kernel refuses a
 * send above the socket's send buffer less 32 bytes (netlink_sendmsg()),
 * and libnl's sockets have SO_SNDBUF 32768, which the kernel doubles. */
#define QDISC_REQUEST_MAX (65536 - 32)

/** Fill a struct tc_mqprio_qopt (mqprio's options, taprio's PRIOMAP) from r.
 *  buf must hold sizeof(struct tc_mqprio_qopt) bytes. */
void qdisc_qopt_from_root(const RootSpec *r, void *buf);
/** Read num_tc, priority_map and queues from a struct tc_mqprio_qopt of len
 *  bytes. Returns 0, or -EBADMSG when too short or num_tc is out of range. */
int qdisc_qopt_to_root(const void *buf, size_t len, RootSpec *r);

/** The current time of clock in ns (clock_gettime()), 0 when it cannot be read. */
int64_t qdisc_clock_now_ns(clockid_t clock);

/** The clock a taprio's times count in: its clockid, CLOCK_TAI for full
 *  offload (the NIC's PHC, kept on TAI by phc2sys). */
clockid_t taprio_time_clock(const RootSpec *r);

/** Before comparing want (a shallow copy of a schedule's root) with the
 *  installed root: a taprio base time the schedule leaves to tbsd that the
 *  installed one satisfies at now_ns (taprio_base_time_satisfied()) takes
 *  the installed value, so that equal() compares the rest. Other kinds and
 *  other base times are left alone. */
void taprio_settle_base_time(RootSpec *want, const RootSpec *installed, int64_t now_ns);

/** Before comparing want (a shallow copy of a schedule's root) with the
 *  installed root for ownership, where no device facts are at hand: an etf
 *  or cbs root's offload "auto" (and its etf child's) takes the installed
 *  setting, and a cbs given by a bandwidth not yet computed takes the
 *  installed four values. Other kinds are left alone. */
void leaf_settle_unresolved(RootSpec *want, const RootSpec *installed);

/** How an etf (or cbs) queue's offload is decided before anything is sent. */
typedef enum EtfOffloadPlan {
        ETF_PLAN_SOFTWARE,        /* offload false, or auto on a queue without launch time */
        ETF_PLAN_HARDWARE,        /* offload true, or auto on a queue the probe says supports it */
        ETF_PLAN_TRY_HARDWARE,    /* auto without facts: try offload, fall back to software */
        _ETF_PLAN_MAX,
        _ETF_PLAN_INVALID = -EINVAL,
} EtfOffloadPlan;

/** Decide the offload plan of e with the device facts f (NULL: unknown):
 *  launch time for an etf queue, the NIC's shaper for a cbs queue.
 *  *ret_reason (static string, may be NULL) says why, for status output. */
EtfOffloadPlan etf_offload_plan(const EtfSpec *e, const DeviceFacts *f, const char **ret_reason);

/** Whether an installed etf (offload resolved) satisfies e under plan p:
 *  with ETF_PLAN_TRY_HARDWARE either offload setting is accepted, so an
 *  earlier software fallback is kept as it is. */
bool etf_matches_plan(const EtfSpec *installed, const EtfSpec *e, EtfOffloadPlan p);

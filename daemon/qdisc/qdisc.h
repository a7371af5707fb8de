/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The RTM_NEWQDISC/RTM_DELQDISC requests themselves, built from the schedule
 * model with the kinds' ops tables (kinds/qdisc-kind.h, one module per kind
 * in kinds/), so the golden-bytes unit tests see exactly what the engine
 * (nl-qdisc.c) sends. Nothing here logs or talks to the kernel. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "qdisc-kind.h"
#include "schedule.h"

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

/* The largest request qdisc_root_request() builds: the kernel refuses a
 * send above the socket's send buffer less 32 bytes (netlink_sendmsg()),
 * and libnl's sockets have SO_SNDBUF 32768, which the kernel doubles. */
#define QDISC_REQUEST_MAX (65536 - 32)

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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a socket handed out by OpenTxtimeSocket() must be set to, worked
 * out from the schedule alone; when a taprio root lets its packets go
 * (GetTxtimeWindow()) is kinds/taprio-windows.h. Pure functions, no socket,
 * so the unit tests run them on parsed schedules
 * (tests/unit/test-txtime-map.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"
#include "taprio-windows.h"

/* The queue argument of OpenTxtimeSocket() that means "take the traffic
 * class or the priority from the options". */
#define TXTIME_QUEUE_FROM_OPTIONS UINT32_MAX

/* Room for a one-line reason (without the interface name). */
#define TXTIME_WHY_MAX 200

typedef enum TxtimeSelect {
        TXTIME_BY_QUEUE,
        TXTIME_BY_CLASS,
        TXTIME_BY_PRIORITY,
        _TXTIME_SELECT_MAX,
        _TXTIME_SELECT_INVALID = -EINVAL,
} TxtimeSelect;

/* Where the socket's packets go. mqprio and taprio send a packet to the
 * traffic class priority_map[skb->priority & 15]; a class of several TX
 * queues spreads its flows over them by hash (skb_tx_hash()), so a socket
 * can be pinned to a class, never to one queue of a larger class. */
typedef struct TxtimeTarget {
        uint32_t priority;      /* SO_PRIORITY, 0 to 15 */
        unsigned tc;            /* its traffic class */
        uint32_t first_queue;   /* the class's TX queues: first_queue .. +n_queues-1 */
        uint32_t n_queues;
        uint32_t queue;         /* the queue the caller named, else first_queue */
        bool leaf;              /* the root is a single etf or cbs (root_is_leaf()): queue 0, no
                                 * class, any priority reaches it */
} TxtimeTarget;

/* The etf settings every TX queue of a class has, which the socket's
 * SO_TXTIME must match (etf drops packets of a socket whose clock or
 * deadline mode differ from its own). */
typedef struct TxtimeEtf {
        bool has_etf;           /* false: no queue of the class has an etf */
        clockid_t clockid;
        bool deadline_mode;
        int32_t delta_ns;       /* the largest delta of the class's etfs */
} TxtimeEtf;

/** Resolve what the caller named (a TX queue, a traffic class or a socket
 *  priority, by by) through root's map to the priority to set and the
 *  class's queues.
 *  For a queue or a class, the priority is the lowest p of 0..15 that the
 *  map sends to its class; a priority given is kept. A queue that serves
 *  several classes (taprio in txtime-assist mode) is reached through the
 *  class root_send_tc_of_queue() picks; a caller who wants another names
 *  the class or a priority.
 *  A root without classes (a single etf or cbs, root_is_leaf()) has queue 0
 *  only, reached by every priority: by queue priority 0, by priority the
 *  one given, by class nothing (-ERANGE).
 *  Returns 0 and *ret, -ERANGE when value names no queue of a class, no
 *  class or no priority of 0..15, -ENODATA when no priority reaches the
 *  class; why (TXTIME_WHY_MAX bytes, may be NULL) gets a one-line reason. */
int txtime_target_resolve(const RootSpec *root, TxtimeSelect by, uint32_t value, TxtimeTarget *ret,
                          char *why);

/** The etf settings of the target's class in schedule s: every queue of the
 *  class has an etf and all agree on clock and deadline mode (*ret with
 *  has_etf, delta the largest), or none has one (*ret without has_etf,
 *  -ENOENT), or they differ, so the kernel's choice of queue would decide
 *  whether a packet is dropped (-ENOTUNIQ). For a root without classes, the
 *  root etf's or its etf child's settings (a cbs root without one:
 *  -ENOENT). why as for txtime_target_resolve(). */
int txtime_class_etf(const Schedule *s, const TxtimeTarget *t, TxtimeEtf *ret, char *why);

/** The SOF_TXTIME_* flags of a socket for an etf: errors always reported,
 *  deadline mode exactly when the etf has it. */
uint32_t txtime_flags_for(const TxtimeEtf *etf);

/* A network-control EtherType and what it carries. */
typedef struct TxtimeReservedEthertype {
        uint16_t type;
        const char *name;       /* "PTP", "VLAN tag, 802.1Q", ... */
} TxtimeReservedEthertype;

/** The network-control EtherTypes, in ascending order: *ret_n of them.
 *  A packet socket is opened for one only when the schedule's
 *  sockets.ethertypes names it (txtime_ethertype_allowed()). */
const TxtimeReservedEthertype *txtime_reserved_ethertypes(size_t *ret_n);

/** What the network-control EtherType type carries ("PTP"), or NULL when
 *  it is not one. */
const char *txtime_reserved_ethertype(uint16_t type);

/** Whether a packet socket for EtherType type may be opened on the
 *  interface whose schedule has sockets k (may be NULL: none): 0 when the
 *  type is not network control or k lists it, else -EACCES and a one-line
 *  reason in why (as for txtime_target_resolve()). */
int txtime_ethertype_allowed(const SocketsSpec *k, uint16_t type, char *why);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The socket guard: what confines a socket tbsd hands out (daemon/broker/)
 * is where its packets go, not a promise of its holder. tbsd marks each
 * brokered socket (SO_MARK, which its holder cannot change without
 * CAP_NET_ADMIN) with its interface and priority, and every managed
 * interface carries a clsact qdisc whose egress filters
 *   - give a packet of one of this interface's marks the priority the mark
 *     names (skbedit), whatever SO_PRIORITY, IP_TOS or a cmsg said, so it
 *     reaches the traffic class tbsd handed out and no other;
 *   - drop a packet of another interface's mark (IP_PKTINFO naming another
 *     interface, a packet socket bound again elsewhere).
 * The mark: top byte SOCKET_GUARD_MARK_TAG, then the ifindex (20 bits),
 * then the priority (4 bits). Packets of other marks are not touched.
 *
 * This file is the pure part (marks, the filter plan, unit-tested); the
 * netlink side is nl-socket-guard.c. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define SOCKET_GUARD_MARK_TAG      0x7bU        /* the mark's top byte: tbsd's range */
#define SOCKET_GUARD_MARK_SHIFT    24
#define SOCKET_GUARD_IFINDEX_MAX   0xfffff
#define SOCKET_GUARD_PRIORITIES    16           /* SO_PRIORITY 0..15 (the mqprio/taprio map) */
/* The filters' preferences on clsact's egress: 1..17, so they run before
 * the operator's own (tc picks 49152 and downwards when not told). */
#define SOCKET_GUARD_PREF_FIRST    1
#define SOCKET_GUARD_FILTERS       (SOCKET_GUARD_PRIORITIES + 1)
#define SOCKET_GUARD_ALL_PRESENT   ((UINT32_C(1) << SOCKET_GUARD_FILTERS) - 1)

typedef enum SocketGuardAction {
        SOCKET_GUARD_PIN,       /* skbedit priority, then the packet goes on */
        SOCKET_GUARD_DROP,      /* gact drop */
} SocketGuardAction;

/* One egress filter: cls_basic, one em_meta match "(nfmark >> shift) == value". */
typedef struct SocketGuardFilter {
        uint16_t pref;
        uint8_t shift;
        uint32_t value;
        SocketGuardAction action;
        uint32_t priority;      /* SOCKET_GUARD_PIN: the priority set */
} SocketGuardFilter;

/** The mark of a socket on ifindex with SO_PRIORITY priority. Returns 0 and
 *  *ret, or -ERANGE when ifindex is above SOCKET_GUARD_IFINDEX_MAX or
 *  priority above 15. */
int socket_guard_mark(int ifindex, uint32_t priority, uint32_t *ret);

/** Whether mark is in tbsd's range (top byte SOCKET_GUARD_MARK_TAG). */
bool socket_guard_mark_is_tbsd(uint32_t mark);

/** The egress filters of ifindex, in ret (the PIN filters of priorities
 *  0..15 at SOCKET_GUARD_PREF_FIRST + p, then the DROP filter). Returns 0,
 *  or -ERANGE as socket_guard_mark(). */
int socket_guard_plan(int ifindex, SocketGuardFilter ret[static SOCKET_GUARD_FILTERS]);

/** What a packet of mark meets on ifindex's egress, by the plan's filters
 *  in preference order (the kernel's evaluation, for tests and docs): 1 and
 *  *ret_priority when a PIN filter matches, -1 when the DROP filter does, 0
 *  when none (the packet goes on untouched). */
int socket_guard_verdict(const SocketGuardFilter plan[static SOCKET_GUARD_FILTERS], uint32_t mark,
                         uint32_t *ret_priority);

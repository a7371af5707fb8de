/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The socket guard in the kernel (socket-guard.h says what it is): a clsact
 * qdisc and the plan's egress filters, installed, checked, taken back and
 * removed through the engine's netlink socket with libnl-route-3 objects
 * (cls_basic with an em_meta match, act_skbedit, act_gact). The kernel
 * loads those modules by their fixed names when they are not loaded yet;
 * no name from a caller is involved.
 *
 * Nothing here logs above debug; errors come back as one line. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nl-transport.h"
#include "socket-guard.h"

/* What an install added, so that a failed apply can take exactly that back. */
typedef struct SocketGuardUndo {
        bool created_clsact;
        uint32_t added;         /* bit i: the plan's filter i */
} SocketGuardUndo;

/** Which of the plan's filters ifindex's clsact egress has (bit i: a
 *  filter of kind "basic" at the plan's filter i's preference), in
 *  *ret_present; the number of other filters there and on clsact's ingress
 *  in *ret_others (may be NULL). No clsact: 0 and 0. Returns 0 or -errno. */
int nl_socket_guard_read(NlQdisc *nl, int ifindex, uint32_t *ret_present, unsigned *ret_others);

/** Install what present (as nl_socket_guard_read() gave) lacks: the clsact
 *  qdisc when there is none, the missing filters, in one batch. On failure
 *  whatever this call added is deleted again and *ret_error (malloc'ed)
 *  says which step failed and what the kernel said. *ret_undo says what was
 *  added. Returns 1 when something was added, 0 when nothing was missing,
 *  or -errno. */
int nl_socket_guard_install(NlQdisc *nl, int ifindex, uint32_t present, SocketGuardUndo *ret_undo,
                            char **ret_error);

/** Take back what an install added (undo). Returns 0 or -errno. */
int nl_socket_guard_undo(NlQdisc *nl, int ifindex, const SocketGuardUndo *undo);

/** Remove the guard of ifindex: the whole clsact when no other filter is on
 *  it, else only the plan's filters. Returns 0 (also when there was none)
 *  or -errno with *ret_error. */
int nl_socket_guard_remove(NlQdisc *nl, int ifindex, char **ret_error);

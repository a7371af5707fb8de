/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Putting a tree back: the rollback of a failed apply (the tree dumped
 * before it is restored) and the deletion of a root. Part of the engine
 * (nl-qdisc.c); callers outside it use nl_qdisc_apply*() and
 * nl_qdisc_remove(). */
#pragma once

#include "nl-transport.h"
#include "qdisc-tree.h"

/** Delete root (as dumped: its kind and handle) from ifindex. The kernel
 *  refuses ("Invalid handle", "Invalid qdisc name") when another root took
 *  the place since. Returns 0 or -errno; the kernel's text is then
 *  nl_transport_ext_ack(nl). */
int qdisc_delete_root(NlQdisc *nl, int ifindex, const InstalledQDisc *root);

/** Put back snap, the tree dumped before an apply, on ifindex: dumps the
 *  current tree, takes off only the root found before or the one the
 *  apply made (made_kind, made_handle; any other root is left: -EEXIST),
 *  re-creates the root and the children that differ (old handles where
 *  the kernel allows, default children get kernel-chosen ones). Returns 0,
 *  or -errno with *ret_error naming the step and what the kernel said. */
int qdisc_restore_snapshot(NlQdisc *nl, int ifindex, const QDiscTree *snap, RootKind made_kind,
                           uint32_t made_handle, char **ret_error);

/** The root a rollback sends to put back snap (the root_spec dumped before
 *  the apply): snap with the per-class entries a dump carried, max SDU and
 *  frame preemption (fp, Linux 6.4+). cur is the root there now when the
 *  request changes it in place (a taprio whose schedule goes back, or the
 *  schedule restarted after grafting), NULL when the root is created anew.
 *  In place every class's entry is sent when the kernel knows them (it
 *  keeps a class's value when its entry is left out, so a value the failed
 *  apply set would stay); a new root starts with no max SDU and every class
 *  express, so only limits and preemptible classes are sent (an mqprio
 *  without hardware offload takes no fp at all). Shallow: the entries stay
 *  snap's. */
RootSpec qdisc_rollback_root(const RootSpec *snap, const RootSpec *cur);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whose is an interface's root qdisc? tbsd removes only trees it owns: a
 * root of the kind and handle a schedule declares, with the settings that
 * schedule declares (or that tbsd itself last installed there). Any other
 * root (htb, fq_codel, prio, an mqprio or taprio with other settings or
 * another handle) is the administrator's and is left in place. The kernel
 * keeps no owner mark on a qdisc, so the declared tree is the mark: tbsd
 * would adopt such a tree unchanged, and re-create it, anyway. */
#pragma once

#include "qdisc-tree.h"
#include "schedule.h"

typedef enum RootOwner {
        OWNER_DEFAULT,          /* the kernel's default root (handle 0): nothing to remove */
        OWNER_TBSD,             /* a root tbsd installed or would install: its tree */
        OWNER_FOREIGN,          /* anything else: not tbsd's */
        _OWNER_MAX,
        _OWNER_INVALID = -EINVAL,
} RootOwner;

/** "default", "tbsd" or "foreign" (Describe()'s root "owner"), or NULL. */
const char *root_owner_to_string(RootOwner o);

/** Judge the root of t against the roots tbsd may have installed there
 *  (ours[0..n_ours): the schedule's root, the root last installed; NULL
 *  entries are skipped; a handle 0 means TBS_DEFAULT_ROOT_HANDLE). A root
 *  is tbsd's when its kind, handle and settings equal one of them. For
 *  OWNER_FOREIGN, *ret_why (when not NULL) gets one line naming the
 *  root and why it is not tbsd's, e.g. "root qdisc htb 1: is not tbsd's
 *  (the schedule declares mqprio 100:)"; free() it. facts (may be NULL:
 *  not known) give the link speed a taprio's dumped max SDU is judged
 *  with (taprio_settle_max_sdu()). Returns the RootOwner or -ENOMEM. */
int qdisc_root_owner(const QDiscTree *t, const RootSpec *const *ours, size_t n_ours, const DeviceFacts *facts,
                     char **ret_why);

/** Whether applying a schedule may replace the root of t: only a root that
 *  could be put back exactly if the apply failed. The kernel's default
 *  root, mqprio and taprio (rebuilt from the model, children from the dump)
 *  and the classless kinds whose dumped options the kernel takes back
 *  (pfifo, bfifo, pfifo_fast, pfifo_head_drop, fq, fq_codel, sfq, codel,
 *  cake, pie, hhf, plug, skbprio) are. Any other root is left in place,
 *  and the apply refused: htb, prio, hfsc, drr, qfq, multiq, tbf, netem,
 *  sfb have classes or children a qdisc dump does not carry, and htb, red
 *  and choke dump options the kernel refuses back (both measured in the
 *  test kernel, tests/kernel/test-nl-foreign-roots.sh). Returns 1, 0 with *ret_why (when
 *  not NULL) saying which root and what to do, or -ENOMEM. */
int qdisc_root_replaceable(const QDiscTree *t, char **ret_why);

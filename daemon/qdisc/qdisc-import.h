/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An installed qdisc tree back to the schedule file that declares it
 * (`tbsctl import`): the dump parser's model (qdisc-tree.c) turned into a
 * Schedule, rendered by schedule_to_json(), and proved by reading the text
 * back with the schedule parser and validator and comparing it with the
 * tree. Pure: no socket, no logging. */
#pragma once

#include <net/if.h>

#include "qdisc-tree.h"
#include "schedule.h"

/** The schedule that declares tree t of interface ifname.
 *  @default_kind  the kind the kernel puts on a TX queue of an mqprio root
 *                 (net.core.default_qdisc, qdisc_system_default_kind());
 *                 taprio's own default child is "pfifo". A child of that
 *                 kind is the root's own and needs no declaration.
 *  etf and cbs children are declared (cbs with its four kernel values).
 *  Returns 0 and *ret; -EOPNOTSUPP with *ret_reason (a one-line text to
 *  free, naming what a schedule cannot express) when the tree holds
 *  something the file format lacks; -EINVAL for an ifname of IFNAMSIZ
 *  bytes or more; -ENOMEM. */
int qdisc_tree_to_schedule(const QDiscTree *t, const char *ifname, const char *default_kind,
                           Schedule **ret, char **ret_reason);

/** qdisc_tree_to_schedule() rendered as schedule file text (pretty JSON, a
 *  final newline), then read back with the schedule parser and validator
 *  and compared with t: text that would not validate, or that would declare
 *  another tree than t, is refused too (-EOPNOTSUPP with the reason).
 *  Returns 0 and *ret_text (to free), -EOPNOTSUPP with *ret_reason, or
 *  -ENOMEM. */
int qdisc_tree_import(const QDiscTree *t, const char *ifname, const char *default_kind,
                      char **ret_text, char **ret_reason);

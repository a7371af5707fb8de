/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's qdiscs as trees (qdisc-dump.c). */
#pragma once

#include "nl-transport.h"
#include "qdisc-tree.h"

/** Read the qdiscs of ifindex (one RTM_GETQDISC dump) into *ret, with
 *  statistics. Returns 0, or -ENODEV when the interface vanished, -EAGAIN
 *  when the dump left the interface out (qdisc_dump_judge()), or another
 *  -errno. Free with qdisc_tree_done(). */
int nl_qdisc_dump(NlQdisc *nl, int ifindex, QDiscTree *ret);

/** One dump of every interface (nl_qdisc_dump_raw()) split into *ret
 *  (qdisc_tree_set_parse()). Returns 0 or -errno. */
int nl_qdisc_dump_all(NlQdisc *nl, QDiscTreeSet *ret);

/** The same dump, keeping the trees of the n_wanted interfaces of wanted
 *  (ascending) only; the others are dropped as they are received, neither
 *  kept nor parsed (nl_qdisc_dump_raw()). qdisc_tree_set_find() of any
 *  other index gives NULL. Returns 0 or -errno. */
int nl_qdisc_dump_some(NlQdisc *nl, const int *wanted, size_t n_wanted, QDiscTreeSet *ret);

/** A taprio root that reports offload statistics (a driver that runs its
 *  schedule and counts them, Linux 6.5+) has them per class (TX queue) too:
 *  then one class dump of t's interface adds them to t's queues
 *  (qdisc_tree_add_class_stats()). Any other tree costs nothing. Returns 0
 *  or -errno (t keeps what it had). */
int nl_qdisc_add_class_stats(NlQdisc *nl, QDiscTree *t);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drift: how an installed qdisc tree differs from the schedule declared for
 * it. The comparison is the one nl_qdisc_apply() makes before it decides
 * what to send, so a tree tbsd itself installed never counts as drift. */
#pragma once

#include "qdisc-tree.h"
#include "schedule.h"

/** Compare tree t with schedule s (offload "auto" decided with facts, NULL:
 *  unknown). Returns 0 when t carries s, 1 when it differs (then
 *  *ret_description, if not NULL, says how in one line naming what is
 *  there now, e.g. "root is pfifo_fast 0: instead of mqprio 100:" or
 *  "txqueue 1: etf delta 250000 ns instead of 200000 ns"), or -ENOMEM. */
int drift_describe(const QDiscTree *t, const Schedule *s, const DeviceFacts *facts, char **ret_description);

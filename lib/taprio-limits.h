/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's limits on a taprio schedule (Linux 6.1; measured with
 * tests/kernel/measure-taprio-limits.sh, see docs/schedule-format.md), on
 * their own so that the NETCONF module (netconf/, which cannot include
 * lib/'s other headers) answers the same limits the parser checks. */
#pragma once

#include <stdint.h>

/* Gate list: a qdisc whose dump message outgrows the kernel's notification
 * buffer (NLMSG_GOODSIZE, about 3.7 KiB) is no longer notified (its
 * deletion goes unnoticed) and, when the kernel falls back to that size for
 * a dump buffer, cuts every qdisc dump short. */
#define TBS_TAPRIO_MAX_ENTRIES 80
/* sch_taprio.c: the cycle time (given, or the sum of the intervals) is at
 * most INT_MAX ("integer out of range", "'cycle_time' is too big"). */
#define TBS_TAPRIO_MAX_CYCLE_NS INT32_MAX

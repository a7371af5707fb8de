/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schedule keys that give more than a schedule: a right for someone
 * else (a brokered socket) or the waiver of a safety check. Root and the
 * admin group may set them; the schedule group (tbsd --schedule-group)
 * only those the operator names with --schedule-group-may. Every other
 * key shapes the interface's own tree, the clock checks tbsd reports, or
 * tbsd's own bounded work (the launch-time monitor), and is the schedule
 * group's to set. docs/service.md lists them and why. */
#pragma once

#include <errno.h>
#include <stdint.h>

#include "schedule.h"

/* Longest key path schedule_rights_used() writes ("txqueues[65534].child.skip_sock_check"). */
#define SCHEDULE_RIGHT_PATH_MAX 64

typedef enum ScheduleRight {
        SCHEDULE_RIGHT_ALLOW,           /* "allow": safety checks not run */
        SCHEDULE_RIGHT_SOCKETS,         /* "sockets": launch-time sockets for a group, packet sockets'
                                         * EtherTypes */
        SCHEDULE_RIGHT_SKIP_SOCK_CHECK, /* an etf's "skip_sock_check" outside a taprio txtime-assist
                                         * root: the etf takes launch times from any local socket */
        _SCHEDULE_RIGHT_MAX,
        _SCHEDULE_RIGHT_INVALID = -EINVAL,
} ScheduleRight;

#define SCHEDULE_RIGHTS_ALL ((1U << _SCHEDULE_RIGHT_MAX) - 1)

const char *schedule_right_to_string(ScheduleRight r);
ScheduleRight schedule_right_from_string(const char *s);

/** What the key gives, for a refusal ("it gives a group launch-time
 *  sockets from tbsd"). */
const char *schedule_right_reason(ScheduleRight r);

/** Parse a comma-separated list of right names (tbsd
 *  --schedule-group-may), such as "allow,sockets", into a mask of bits
 *  1 << ScheduleRight; "" is none. -EINVAL for an unknown name or a name
 *  given twice, with *ret_bad (may be NULL) pointing at it in list and
 *  *ret_bad_len its length. */
int schedule_rights_parse(const char *list, uint32_t *ret, const char **ret_bad, size_t *ret_bad_len);

/** The rights s uses, as a mask; for each right used, where[right] (may
 *  be NULL) gets the path of the first key that uses it
 *  ("txqueues[2].skip_sock_check"). */
uint32_t schedule_rights_used(const Schedule *s, char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX]);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Schedule model back to the schedule file format
 * (docs/schedule-format.md), so that parse(to_json(parse(x))) equals
 * parse(x). Used by tbsctl to show configurations and by the daemon to
 * report them over D-Bus. */
#pragma once

#include <json-c/json.h>

#include "schedule.h"

/** Build the JSON object of a schedule in the file format: "interface",
 *  "root" (handle as "100:", clockid as "CLOCK_TAI", gate masks as hex
 *  strings such as "0x3"; cycle_time_ns only when it was given), "txqueues"
 *  ("qdisc" is "tbs" when the file spelled it so; offload true, false or
 *  "auto") and "clock" when configured.
 *  Returns a new object (the caller puts it) or NULL on -ENOMEM. */
struct json_object *schedule_to_json(const Schedule *s);

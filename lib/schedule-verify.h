/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stage two of three: check a Schedule model against every rule the kernel
 * would otherwise reject or silently misuse (docs/schedule-format.md lists
 * them). Works on any model: one parsed from a file, or one built elsewhere. */
#pragma once

#include "diag.h"
#include "schedule.h"

/** Check a schedule.
 *  @s      the schedule; s->source names the file in messages (may be NULL).
 *  @facts  what is known about the device (TX queue count, launch-time
 *          offload capable queues, taprio full offload); NULL or zeroed:
 *          nothing is known and the device checks are skipped.
 *  @diags  each problem is appended as one "FILE: JSON.PATH: REASON" line;
 *          some findings are warnings (e.g. an etf child without
 *          skip_sock_check under taprio txtime-assist).
 *  Returns 0 when no errors were found (warnings alone still return 0),
 *  -EINVAL when errors were added, or -ENOMEM. */
int schedule_verify(const Schedule *s, const DeviceFacts *facts, DiagList *diags);

/** Check a network interface name the way the kernel's dev_valid_name() does:
 *  non-empty, shorter than IFNAMSIZ, not "." or "..", no '/', ':', whitespace
 *  (the kernel's isspace(): \t \n \v \f \r, space and the byte 0xa0) or
 *  NUL; and valid UTF-8 (strict, utf8.h), as D-Bus needs. @name has @len bytes (a JSON string may hold a NUL inside; pass
 *  strnlen(name, IFNAMSIZ) for a model's char array).
 *  Returns NULL when the name is fine, else a static reason text such as
 *  "must not contain '/'". */
const char *ifname_problem(const char *name, size_t len);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame preemption from the published modules (issue 48, point 3):
 * 802.1DC's frame-preemption-status-table (ieee802-dot1dc-preemption-if)
 * becomes the root's fp per traffic class, 802.3's MAC merge admin-control
 * (ieee802-ethernet-mac-merge) the document's mac_merge, derived as
 * "transmit enabled" when a class is preemptable and neither it nor
 * tbsd:schedule/leave-mac-merge says otherwise (docs/netconf.md,
 * "Frame preemption"). Pure, as nc-translate.c. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "nc-translate-internal.h"

#define PREEMPT_IF_MODULE "ieee802-dot1dc-preemption-if"
#define PREEMPT_IF_REVISION "2024-09-26"
#define MAC_MERGE_MODULE "ieee802-ethernet-mac-merge"
#define MAC_MERGE_REVISION "2025-09-10"

/* An interface entry without a schedule: 0 when it has no preemption or
 * MAC merge configuration either, -1 with the line when it has (tbsd sets
 * them with a schedule's root only). */
int nc_preemption_unscheduled(struct ctx *ctx, const struct nc_node *iface);

/* root.fp from the status table and root's num_tc and priority_map (the
 * derived or tbsd's), doc's mac_merge from the MAC merge module or
 * derived; sched is tbsd:schedule (NULL: none). 0, or -1 with ctx->error. */
int nc_preemption(struct ctx *ctx, const struct nc_node *iface, const struct nc_node *sched, json_object *doc,
                  json_object *root);

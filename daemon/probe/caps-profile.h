/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A device profile: a NIC that is not on this machine, described by the
 * document `tbsctl --json caps IFACE` prints of it on the machine that has
 * it (caps_to_json()), for `tbsctl validate --device-caps FILE`. */
#pragma once

#include "caps-probe.h"
#include "diag.h"

/* A profile is a few hundred bytes; anything near this is not one. */
#define CAPS_PROFILE_FILE_MAX (64U * 1024U)

/** Read the profile at path: one caps_to_json() object, or an array of
 *  exactly one (as `tbsctl --json caps IFACE` prints it). The keys the
 *  device checks use are required ("driver", "tx_queues",
 *  "launch_time_queues", "cbs_offload_queues", "taprio_full_offload",
 *  "confidence"); "link_speed_mbps", "mac_merge" (null: not known),
 *  "hw_timestamping", "sw_timestamping", "taprio_txtime_assist" and
 *  "reason" are read when present; other keys of the printed document are
 *  ignored. Every problem goes to diags with path and key. Returns 0 and
 *  *ret, -EINVAL (diags say why), -errno of the read, or -ENOMEM. */
int caps_profile_read(const char *path, LinkCaps *ret, DiagList *diags);

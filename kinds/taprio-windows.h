/* SPDX-License-Identifier: GPL-2.0-or-later */
/* When a taprio root lets a launch time through: the open windows of a
 * traffic class within a cycle, as the kernel checks a packet's launch time
 * against them (GetTxtimeWindow(), the validator and the launch-time
 * monitor all read them from here), which of a dumped root's schedules
 * runs at a given time, and the first launch time at or after a given one
 * that a window holds with a guard on both sides. Pure functions, no
 * socket (tests/unit/test-txtime-map.c). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

/* One open window of a traffic class within a taprio cycle. */
typedef struct TxtimeWindow {
        uint64_t offset_ns;     /* from the start of the cycle */
        uint64_t length_ns;
} TxtimeWindow;

/* Bytes a probe frame of the launch-time monitor takes on the wire: the
 * shortest Ethernet frame (60 bytes and its FCS: the probe's 14-byte header
 * and 46-byte payload) with its preamble and the inter-frame gap. */
#define TXTIME_PROBE_WIRE_BYTES 84u
/* taprio's own assumption of the link speed when the driver reports none
 * (Linux's taprio_set_picos_per_byte() falls back to SPEED_10), Mbit/s */
#define TXTIME_FALLBACK_SPEED_MBPS 10u

/** The open windows of traffic class tc within one cycle of a taprio root,
 *  as the kernel checks a packet's launch time against them: one per gate
 *  entry that opens tc, the entries laid end to end from the cycle's start,
 *  each cut at the cycle's end (an entry that starts at or after it never
 *  opens). Adjacent entries that both open tc stay two windows: the kernel
 *  wants a frame inside one entry (taprio-windows.c says why). *ret is NULL
 *  when there is none. Returns their number, -EINVAL when root has no
 *  cycle (no gate list: not a taprio; which kinds gate is the kinds'
 *  table's to say, root_gates()) or tc is not below its num_tc, or
 *  -ENOMEM. */
int txtime_windows(const RootSpec *root, unsigned tc, TxtimeWindow **ret);

/** The gate schedule a taprio root as the kernel dumped it (dumped, with
 *  admin_pending and oper) runs at now_ns on the root's clock: *ret is
 *  dumped with its base time, cycle time, extension and entries replaced
 *  by the running schedule's (pointers into dumped). Until the pending
 *  (admin) schedule's base time the running (oper) one gates, from then on
 *  the pending one; a pending one with nothing running yet runs from its
 *  own base time. *ret_until_ns (may be NULL) gets the time the running
 *  schedule gives way to the pending one, INT64_MAX when none is pending
 *  after now_ns. */
void txtime_running_root(const RootSpec *dumped, int64_t now_ns, RootSpec *ret, int64_t *ret_until_ns);

/** Whether no gate schedule of dumped runs at now_ns: one is pending with
 *  none running yet (a root just made, or its schedule sent again after a
 *  graft), and until its base time taprio drops every launch time. */
bool txtime_none_runs(const RootSpec *dumped, int64_t now_ns);

/** The guard on either side of a probe frame's launch time within a
 *  window: its transmission time (TXTIME_PROBE_WIRE_BYTES) at
 *  link_speed_mbps, or at TXTIME_FALLBACK_SPEED_MBPS when that is 0
 *  (unknown), in ns, rounded up. taprio drops a launch time not strictly
 *  after the entry's start, or whose frame does not end strictly before
 *  its end. */
uint64_t txtime_probe_guard_ns(uint32_t link_speed_mbps);

/** The longest window of w[0..n), ns (0 for none). */
uint64_t txtime_windows_longest(const TxtimeWindow *w, size_t n);

/** The earliest launch time t >= earliest_ns, on the root's clock, that
 *  lies in a window of w[0..n) (txtime_windows() of root's running
 *  schedule: root's base time and cycle time place them) at least guard_ns
 *  after its start and before its end, with t + guard_ns before until_ns.
 *  Returns 0 and *ret_ns, -ENOSPC when no window is longer than twice the
 *  guard (no launch time ever fits), -EAGAIN when the first that fits is
 *  not before until_ns, -EINVAL when root has no cycle time. */
int txtime_window_slot(const RootSpec *root, const TxtimeWindow *w, size_t n, int64_t earliest_ns,
                       uint64_t guard_ns, int64_t until_ns, int64_t *ret_ns);

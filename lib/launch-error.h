/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A probe frame's launch-time error (transmit time stamp - requested launch
 * time, ns, in the queue's clock) from its stamps: a hardware stamp is the
 * PHC's time, converted with PHC - the queue's clock (the clock check's
 * offset); a software stamp is CLOCK_REALTIME (taken by the driver at
 * xmit), converted with the queue's clock - CLOCK_REALTIME (for CLOCK_TAI
 * the kernel's TAI offset). The hardware stamp wins when a probe has both.
 * A "software stamp" equal to the launch time is the skb's tstamp that a
 * hardware report without a hardware stamp carries in ts[0], not a stamp.
 * One accounting for the daemon's monitor (daemon/link/launch-monitor.c) and
 * `tbsctl selftest`; pure but for launch_clock_offset_now(). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "launch-hist.h"
#include "txtime-probe.h"

typedef struct LaunchClockOffsets {
        bool has_phc;                   /* phc_ns is known (a hardware stamp cannot be placed without it) */
        int64_t phc_ns;                 /* PHC - the queue's clock */
        bool has_realtime;              /* realtime_ns is known */
        int64_t realtime_ns;            /* the queue's clock - CLOCK_REALTIME */
} LaunchClockOffsets;

/** The launch error of p into *ret_error_ns and the stamp it comes from
 *  into *ret_source. Returns 0; -ENODATA when p has no time stamp (or no
 *  launch time; *ret_source untouched); -ERANGE when it has one (kind in
 *  *ret_source) whose offset to the queue's clock is unknown. */
int launch_probe_error(const TxtimeProbe *p, const LaunchClockOffsets *o, LaunchStampSource *ret_source,
                       int64_t *ret_error_ns);

/** o's offsets for the queue's clock now: realtime_ns measured with
 *  launch_clock_offset_now() (has_realtime false when that fails), and the
 *  PHC's when phc_ns is given (PHC - the queue's clock). */
void launch_clock_offsets_now(clockid_t clock, const int64_t *phc_ns, LaunchClockOffsets *ret);

/** clock - CLOCK_REALTIME now, ns: the middle of two CLOCK_REALTIME reads
 *  around one read of clock; for CLOCK_TAI rounded to whole seconds (the
 *  TAI offset is a whole number of seconds). Returns 0 or -errno. */
int launch_clock_offset_now(clockid_t clock, int64_t *ret_ns);

/** Account the answer of the sent probe p in st: invalid (reported, or
 *  dropped at enqueue), missed, or its launch error in the histogram (the
 *  source set to its stamp's kind); a stamp that cannot be placed counts as
 *  unstamped. A probe without any of these is unstamped when timed_out, and
 *  otherwise left for later. Does not count sent. Returns whether p is done. */
bool launch_stats_account(LaunchQueueStats *st, const TxtimeProbe *p, const LaunchClockOffsets *o, bool timed_out);

/** Fill *ret (a queue's figures: queue, sent, missed, invalid, unstamped,
 *  source and histogram) from probes[0..n): sent counts the probes sendmsg()
 *  took, missed and invalid their reports (a frame dropped at enqueue is
 *  invalid), unstamped the others without a time stamp; source is hardware
 *  when any probe had a hardware stamp, else software when any had a
 *  software one, else none. */
void launch_stats_from_probes(uint32_t queue, const TxtimeProbe *probes, size_t n, const LaunchClockOffsets *o,
                              LaunchQueueStats *ret);

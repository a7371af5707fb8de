/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A probe frame's launch-time error (transmit time stamp - requested launch
 * time, ns, in the queue's clock) from its stamps: a hardware stamp is the
 * PHC's time, converted with PHC - the queue's clock (the clock check's
 * offset); a software stamp is CLOCK_REALTIME (taken by the driver at
 * xmit), converted with the queue's clock - CLOCK_REALTIME (for CLOCK_TAI
 * the kernel's TAI offset). The hardware stamp wins when a probe has both.
 * A "software stamp" equal to the launch time is the skb's tstamp that a
 * hardware report without a hardware stamp carries in ts[0], not a stamp. 
 * Used by `tbsctl selftest`; pure but for launch_clock_offset_now(). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "launch-hist.h"
#include "txtime-probe.h"

typedef struct LaunchClockOffsets {
        bool has_phc;                   /* phc_ns is known (else the PHC is taken to run the queue's clock) */
        int64_t phc_ns;                 /* PHC - the queue's clock */
        int64_t realtime_ns;            /* the queue's clock - CLOCK_REALTIME */
} LaunchClockOffsets;

/** The launch error of p into *ret_error_ns and the stamp it comes from
 *  into *ret_source. Returns 0, or -ENODATA when p has no time stamp (or
 *  no launch time). */
int launch_probe_error(const TxtimeProbe *p, const LaunchClockOffsets *o, LaunchStampSource *ret_source,
                       int64_t *ret_error_ns);

/** clock - CLOCK_REALTIME now, ns: the middle of two CLOCK_REALTIME reads
 *  around one read of clock; for CLOCK_TAI rounded to whole seconds (the
 *  TAI offset is a whole number of seconds). Returns 0 or -errno. */
int launch_clock_offset_now(clockid_t clock, int64_t *ret_ns);

/** Fill *ret (a queue's figures: queue, sent, missed, invalid, unstamped,
 *  source and histogram) from probes[0..n): sent counts the probes sendmsg()
 *  took, missed and invalid their reports (a frame dropped at enqueue is
 *  invalid), unstamped the others without a time stamp; source is hardware
 *  when any probe had a hardware stamp, else software when any had a
 *  software one, else none. */
void launch_stats_from_probes(uint32_t queue, const TxtimeProbe *probes, size_t n, const LaunchClockOffsets *o,
                              LaunchQueueStats *ret);

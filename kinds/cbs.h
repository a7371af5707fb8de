/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The credit-based shaper's parameters from a reserved bandwidth, with the
 * formulas of IEEE 802.1Q Annex L (and 8.6.8.2), in the units of the
 * kernel's cbs qdisc and of tc-cbs(8): slopes in kbit/s, credits in bytes.
 *
 *   portTransmitRate = link_speed_mbps * 1000                      kbit/s
 *   idleSlope        = bandwidth_kbps
 *   sendSlope        = idleSlope - portTransmitRate                 (< 0)
 *   hiCredit         = maxInterferenceSize * idleSlope / portTransmitRate
 *   loCredit         = maxFrameSize * sendSlope / portTransmitRate   (< 0)
 *
 * maxInterferenceSize is the highest-priority class's (class A's) in
 * Annex L: the largest frame of other traffic that may have started just
 * before a frame of this queue became ready (max_interference_bytes,
 * default TBS_CBS_DEFAULT_INTERFERENCE_BYTES). The credits are rounded
 * away from zero (hiCredit up, loCredit down): a credit bound is never
 * made smaller than the formula's. Pure functions; docs/schedule-format.md
 * has a worked example. */
#pragma once

#include <stdint.h>

#include "schedule.h"

/* Largest frame size the cbs keys take (bytes): a jumbo frame fits. */
#define TBS_CBS_MAX_FRAME_BYTES 65535
/* Largest rate (kbit/s) the cbs keys take: the kernel's slopes are s32,
 * and 1 Tbit/s leaves room below INT32_MAX. */
#define TBS_CBS_MAX_RATE_KBPS 1000000000U

/** Compute the four kernel parameters of a cbs queue.
 *  @bandwidth_kbps          the reserved rate, 1 .. port rate
 *  @max_frame_bytes         the largest frame this queue sends
 *  @max_interference_bytes  the largest frame of other traffic
 *  @link_speed_mbps         the port's transmit rate, in Mbit/s
 *  @ret                     its idle/send slope and hi/lo credit are set,
 *                           nothing else; untouched on failure
 *  Returns 0, -EINVAL when a size or the speed is 0, -ERANGE when the
 *  bandwidth is 0 or above the port rate, or a result does not fit. */
int cbs_compute(uint32_t bandwidth_kbps, uint32_t max_frame_bytes, uint32_t max_interference_bytes,
                uint32_t link_speed_mbps, CbsSpec *ret);

/** The port rate a cbs queue is computed or checked with: the file's
 *  link_speed_mbps, else device_speed_mbps (0: unknown). In Mbit/s; 0 when
 *  neither is known. */
uint32_t cbs_link_speed(const CbsSpec *c, uint32_t device_speed_mbps);

/** c with its four kernel parameters in *ret: a spec given by its raw
 *  values is copied; one given by bandwidth is computed
 *  (cbs_compute()) with cbs_link_speed(). Returns 0, -ENODATA when the
 *  link speed is known neither from the file nor from the device, or
 *  cbs_compute()'s error; *ret untouched on failure. */
int cbs_spec_resolve(const CbsSpec *c, uint32_t device_speed_mbps, CbsSpec *ret);

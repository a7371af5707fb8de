/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A cbs's settings in the schedule model (EtfSpec.cbs, lib/schedule.h);
 * everything else about cbs is kinds/cbs.c. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The default maxInterferenceSize of a cbs queue given by bandwidth: the
 * largest frame of other traffic that can be on the wire when a frame of
 * this queue becomes ready (1500 bytes of payload, 14 header, 4 VLAN tag,
 * 4 FCS). */
#define TBS_CBS_DEFAULT_INTERFERENCE_BYTES 1522

/* A cbs queue's settings. The four kernel parameters (struct tc_cbs_qopt,
 * tc's idleslope/sendslope in kbit/s, hicredit/locredit in bytes) are given
 * in the file, or computed from bandwidth_kbps with IEEE 802.1Q Annex L
 * (cbs_spec_resolve(), kinds/cbs.h). */
typedef struct CbsSpec {
        int32_t idle_slope_kbps;              /* > 0 */
        int32_t send_slope_kbps;              /* < 0 */
        int32_t hi_credit_bytes;              /* > 0 */
        int32_t lo_credit_bytes;              /* < 0 */
        bool from_bandwidth;                  /* the file gave bandwidth_kbps: the four above are
                                               * set by cbs_spec_resolve() (at parse time when
                                               * link_speed_mbps is given, else with the device's) */
        uint32_t bandwidth_kbps;              /* from_bandwidth: the reserved rate (idleSlope) */
        uint32_t max_frame_bytes;             /* from_bandwidth: largest frame of this queue */
        uint32_t max_interference_bytes;      /* from_bandwidth: see TBS_CBS_DEFAULT_INTERFERENCE_BYTES */
        uint32_t link_speed_mbps;             /* 0: not in the file (the device's is used) */
} CbsSpec;

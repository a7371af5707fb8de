/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which transmit stamps a launch-time probe may ask for beside a PTP
 * daemon: the NIC's only when it holds a stamp for every probe of a burst
 * and one more for the PTP daemon's frame, else the driver's software
 * ones. Shared by the daemon's launch monitor and tbsctl selftest, so that
 * neither takes the stamp ptp4l waits for (docs/fidelity.md). Pure. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The transmit stamps a monitor asks for. */
typedef enum LaunchStamps {
        LAUNCH_STAMPS_NONE,             /* not chosen yet (before the first round) */
        LAUNCH_STAMPS_SOFTWARE,
        LAUNCH_STAMPS_HARDWARE,
} LaunchStamps;

/* Why. */
typedef enum LaunchStampsWhy {
        LAUNCH_STAMPS_WHY_NONE,
        LAUNCH_STAMPS_WHY_NIC_OFF,      /* software: the port's hardware transmit stamping is off */
        LAUNCH_STAMPS_WHY_NO_SPARE,     /* software: on (a PTP daemon's), no stamp to spare beside its frame */
        LAUNCH_STAMPS_WHY_UNKNOWN_SLOTS, /* software: on, and the driver's stamp slots are not known */
        LAUNCH_STAMPS_WHY_SPARE,        /* hardware: on, with a stamp for every probe of a round to spare */
} LaunchStampsWhy;

typedef struct LaunchStampChoice {
        LaunchStamps stamps;
        LaunchStampsWhy why;
} LaunchStampChoice;

/** The stamps a burst of frames probes asks for. tx_stamping_on: the
 *  port's hardware transmit stamping is on (SIOCGHWTSTAMP tx_type not
 *  off): someone (ptp4l, another PTP daemon) switched it on, tbsd never
 *  does, so its transmitted frames need the NIC's stamps. tx_stamp_slots:
 *  how many transmitted frames the NIC holds a stamp for at once (0: not
 *  known). Hardware only when the NIC can stamp a whole round beside the
 *  one frame a PTP daemon waits for (slots > frames); otherwise a probe
 *  could take that frame's stamp (the driver skips a frame that asks while
 *  every slot is taken) and ptp4l's port faults. Pure. */
LaunchStampChoice launch_stamps_choose(bool tx_stamping_on, unsigned tx_stamp_slots, uint32_t frames);

/** "software", "hardware"; NULL for LAUNCH_STAMPS_NONE. */
const char *launch_stamps_to_string(LaunchStamps s);

/** One sentence: why; NULL for LAUNCH_STAMPS_WHY_NONE. */
const char *launch_stamps_why_to_string(LaunchStampsWhy w);


/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>

#include "launch-stamps.h"

LaunchStampChoice launch_stamps_choose(bool tx_stamping_on, unsigned tx_stamp_slots, uint32_t frames) {
        if (!tx_stamping_on)
                return (LaunchStampChoice) { LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NIC_OFF };
        /* Whoever switched the port's stamping on (tbsd never does) waits
         * for the stamps of its frames: assume it needs them now, whatever
         * the clock section says, and leave it a slot. */
        if (tx_stamp_slots == 0)
                return (LaunchStampChoice) { LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_UNKNOWN_SLOTS };
        if (tx_stamp_slots <= frames)
                return (LaunchStampChoice) { LAUNCH_STAMPS_SOFTWARE, LAUNCH_STAMPS_WHY_NO_SPARE };
        return (LaunchStampChoice) { LAUNCH_STAMPS_HARDWARE, LAUNCH_STAMPS_WHY_SPARE };
}

const char *launch_stamps_to_string(LaunchStamps s) {
        switch (s) {
        case LAUNCH_STAMPS_SOFTWARE:
                return "software";
        case LAUNCH_STAMPS_HARDWARE:
                return "hardware";
        default:
                return NULL;
        }
}

const char *launch_stamps_why_to_string(LaunchStampsWhy w) {
        switch (w) {
        case LAUNCH_STAMPS_WHY_NIC_OFF:
                return "the port's hardware transmit stamping is off";
        case LAUNCH_STAMPS_WHY_NO_SPARE:
                return "the port's transmit stamping is on (ptp4l's) and the NIC holds too few transmit "
                       "stamps at once to spare any for the probes: they would take ptp4l's";
        case LAUNCH_STAMPS_WHY_UNKNOWN_SLOTS:
                return "the port's transmit stamping is on (ptp4l's) and how many transmit stamps the driver "
                       "holds at once is not known: the probes could take ptp4l's";
        case LAUNCH_STAMPS_WHY_SPARE:
                return "the port's transmit stamping is on and the NIC holds a transmit stamp for each probe "
                       "of a round beside ptp4l's";
        default:
                return NULL;
        }
}

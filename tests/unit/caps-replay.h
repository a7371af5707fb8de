/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The replay seam of the capability probe for unit tests: a recorded device
 * (tests/unit/fixtures/caps/NAME/, see its README.md) answers through
 * CapsIO: its sysfs tree through sysfs_root, its ethtool answers through
 * ethtool. Uses cmocka's assertions. */
#pragma once

#include <limits.h>
#include <linux/ethtool.h>
#include <net/if.h>
#include <stdbool.h>

#include "caps-probe.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/caps"

typedef struct Recording {
        char sysfs[PATH_MAX];
        char ifname[IFNAMSIZ];
        struct ethtool_drvinfo drvinfo;
        struct ethtool_ts_info ts_info;
        struct ethtool_channels channels;
        struct ethtool_cmd gset;        /* answered only when gset_known (recordings before
                                         * the probe asked ETHTOOL_GSET have no speed) */
        bool gset_known;
        int drvinfo_error, ts_info_error, channels_error;   /* -errno to answer */
        unsigned calls;
} Recording;

/** Load the recording fixtures/caps/DEVICE into rec (calls reset to 0). */
void recording_load(Recording *rec, const char *device);

/** A CapsIO that answers as the recorded device rec (by its recorded
 *  interface name; any other name is -ENODEV), counting rec->calls. */
CapsIO recording_io(Recording *rec);

/** Load DEVICE and probe its recorded interface; the probe must succeed. */
void probe_device(const char *device, Recording *rec, LinkCaps *caps);

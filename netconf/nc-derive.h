/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The root a standard-only edit leaves out (issue 48): an 802.1DC gate
 * parameter table says which gates open, not how many traffic classes
 * the interface has, which priorities go to which class, or which TX
 * queues each class uses. These derive them (docs/netconf.md, "A
 * controller that knows only the standards"); tbsd's own module overrides
 * each derived value. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define NC_DERIVE_MAX_TC 8 /* a gate-states-value has 8 bits */
#define NC_DERIVE_PRIORITIES 16

/* The number of traffic classes a gate list needs: the highest gate bit
 * any entry opens + 1 (1 when none opens one), at most tx_queues (each
 * class needs a queue of its own). 0 when tx_queues is 0. */
unsigned nc_derive_num_tc(const uint8_t *gates, size_t n, unsigned tx_queues);

/* IEEE 802.1Q Table 8-5's recommended class of priority p (0 to 7) for
 * num_tc classes (1 to 8); socket priorities 8 to 15, which 802.1Q does
 * not have, go where priority 0 (best effort) goes. */
unsigned nc_derive_class_of(unsigned priority, unsigned num_tc);

/* One queue per class from queue 0, the rest of tx_queues on the last
 * class: count[i], offset[i] for i < num_tc (num_tc <= tx_queues). */
void nc_derive_queues(unsigned num_tc, unsigned tx_queues, unsigned *count, unsigned *offset);

/* The mode of a derived taprio root from tbsd's probe of the device, its
 * capabilities object (Manager.GetCapabilities(), Describe()'s
 * "capabilities"): "full-offload" when the capability table knows the
 * device (confidence "known") and says it runs taprio's gate schedule
 * (taprio_full_offload), else "software" (a device unknown, an answer
 * that is not such an object). Never "txtime-assist": that needs etf
 * children only tbsd's module gives. */
const char *nc_derive_mode(const char *caps_json);

/* The number of TX queues of the interface ifname, read from sysfs
 * (/sys/class/net/IFNAME/queues/tx-N), or -errno: -EINVAL for a name
 * that cannot be an interface's, -ENOENT when there is none. */
int nc_derive_tx_queues(const char *ifname);

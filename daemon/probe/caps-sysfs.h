/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the capability probe reads from sysfs (caps-sysfs.c): a device's
 * PCI ids, its interface flags, its real TX queue count. root is the sysfs
 * mount ("/sys"; tests give a recorded tree). Internal to the probe. */
#pragma once

#include <stdint.h>

#include "caps-probe.h"

/** The hex attribute attr of ifname (/sys/class/net/IFNAME/ATTR), at most
 *  max, into *ret. Returns 0 or -errno. */
int read_sysfs_hex(const char *root, const char *ifname, const char *attr, unsigned long max,
                   unsigned long *ret);
/** The PCI ids of ifname's device into c (pci_known), when it is a PCI function. */
void probe_pci_ids(const char *root, const char *ifname, LinkCaps *c);
/** The number of queues/tx-N directories of ifname, or -errno. */
int sysfs_count_tx_queues(const char *root, const char *ifname);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device-dependent checks of a schedule, in one place for everyone who
 * makes them: the daemon before every apply (link.c), `tbsd --check` and
 * `tbsd --once` for a folder, `tbsctl validate --device` for single files.
 * The judgement itself is schedule_verify() with the DeviceFacts that
 * caps_to_device_facts() makes of a capability probe (caps-probe.c): whatever
 * the daemon refuses on this machine, the checks refuse too, with the same
 * line. What this file adds is probing each interface once, and the warning
 * for an interface that cannot be probed (it may not exist yet: interfaces
 * come and go, and the daemon waits for them). */
#pragma once

#include <net/if.h>

#include "diag.h"
#include "caps-probe.h"
#include "schedule.h"

/** Check s against a device as the daemon does before applying it: every
 *  rule of schedule_verify(), with the facts of the capability probe result
 *  caps (NULL: the probe failed, nothing is known and the device rules are
 *  skipped, as in the daemon), but for "mac_merge" on a device without a
 *  MAC merge layer, which the apply refuses in a line of its own. Returns
 *  what schedule_verify() returns. */
int device_verify(const Schedule *s, const LinkCaps *caps, DiagList *diags);

/* The probe result of one interface. */
typedef struct DeviceProbe {
        char ifname[IFNAMSIZ];
        int error;              /* 0, or the probe's -errno (-ENODEV: no such interface) */
        LinkCaps caps;          /* valid when error is 0 */
        DeviceFacts facts;      /* caps_to_device_facts(caps) with ifname; points into caps and this */
        /* Whether the device has a MAC merge layer is asked only for a file
         * with "mac_merge" (DeviceFacts.ask_mac_merge); the answer goes into
         * caps.mac_merge and facts. */
        int (*ask_mac_merge)(void *userdata, const char *ifname);
        void *ask_userdata;
} DeviceProbe;

/* The interfaces probed so far, each probed once. */
typedef struct DeviceProbes {
        DeviceProbe **items;    /* each on its own: DeviceFacts handed out point into it */
        size_t n;
        CapsSystemSocket sock;  /* one ethtool socket for every probe of the real system */
        CapsIO io;
        bool have_io;           /* io is set: a replay, or the real system on sock */
        /* CapsIO.mac_merge, kept out of io: asked per file that needs it */
        int (*ask_mac_merge)(void *userdata, const char *ifname);
        void *ask_userdata;
} DeviceProbes;

/** Start an empty set that probes through io (copied; what it points to must
 *  outlive the set), or with io NULL the real system on one socket (when the
 *  socket cannot be opened, each probe opens its own). The MAC merge
 *  question (io->mac_merge, or ethtool netlink on the real system) is not
 *  part of the probe: it is asked once per interface, for the first file
 *  with "mac_merge" checked against it. Release with device_probes_done(). */
void device_probes_init(DeviceProbes *p, const CapsIO *io);
void device_probes_done(DeviceProbes *p);

/** The probe result for ifname: the one kept from an earlier call, or a
 *  fresh probe kept for next time. Returns NULL only when out of memory. */
const DeviceProbe *device_probes_get(DeviceProbes *p, const char *ifname);

/** The probe result kept for ifname, without probing; NULL when there is none. */
const DeviceProbe *device_probes_find(const DeviceProbes *p, const char *ifname);

/** schedule_dir_load()'s facts_for (userdata: a DeviceProbes): the facts of
 *  ifname's probe, NULL when the probe failed. */
const DeviceFacts *device_probes_facts_for(const char *ifname, void *userdata);

/** The interface's index on the set's socket (caps_system_ifindex()), 0 when
 *  there is no such interface. */
unsigned device_probes_ifindex(const DeviceProbes *p, const char *ifname);

/** When the probe of d failed, add a warning to diags saying that the device
 *  checks were skipped and why ("interface X does not exist on this machine"
 *  for -ENODEV). file names the schedule file; own is true when d is the
 *  interface the file itself names (the warning then points at its
 *  "interface" key). Returns 0 or -ENOMEM. */
int device_probe_note(const DeviceProbe *d, const char *file, bool own, DiagList *diags);

/** tbsctl validate --device: verify s against the device ifname of this
 *  machine (probed through p, once) with the rules tbsd --check applies
 *  (schedule_verify() with the probe's facts), and when s passes them all
 *  but the device could not be probed, add the warning of device_probe_note() (tbsd --check does the
 *  same for the files of its folder). own as for device_probe_note().
 *  Returns 0 when no error was added, -EINVAL when errors were, or -ENOMEM. */
int device_check(DeviceProbes *p, const Schedule *s, const char *ifname, bool own, DiagList *diags);

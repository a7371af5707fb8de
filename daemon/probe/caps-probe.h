/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time capability probe: what one interface's NIC and each of
 * its TX queues can offload, from the driver's own answers (ethtool
 * ioctls), the PCI ids in sysfs and one table of driver facts.
 *
 * The probe gathers facts and judges them; it does not log above debug and
 * it does not cache. "This device has no launch time" is a result
 * (CAPS_UNSUPPORTED), not an error. All I/O goes through CapsIO so unit
 * tests replay recorded devices (tests/unit/fixtures/caps/). */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

struct json_object;

/* Speeds above this (Mbit/s) are taken for garbage: 1 Tbit/s. */
#define CAPS_MAX_LINK_SPEED_MBPS 1000000U

typedef enum CapsConfidence {
        CAPS_KNOWN,         /* the driver table knows this device: launch_time_mask is a fact */
        CAPS_UNSUPPORTED,   /* the driver table says: no launch time on any queue */
        CAPS_UNKNOWN,       /* not in the table (or no driver name): only trying tells */
        _CAPS_CONFIDENCE_MAX,
        _CAPS_CONFIDENCE_INVALID = -EINVAL,
} CapsConfidence;

/* caps-cache.c compares results field by field (caps_equal()): a new field
 * goes there too. */
typedef struct LinkCaps {
        /* ETHTOOL_GDRVINFO; empty strings when the device does not say */
        char driver[32];
        char version[32];
        char fw_version[32];
        char bus_info[32];

        /* sysfs: /sys/class/net/IFACE/device/{vendor,device,subsystem_*};
         * pci_known only when that device sits on the PCI bus */
        bool pci_known;
        uint16_t pci_vendor;
        uint16_t pci_device;
        uint16_t pci_subsystem_vendor;
        uint16_t pci_subsystem_device;

        /* TX queues: of an interface that is up, the real ones (sysfs
         * queues/tx-N); of one that is down, the driver's channel count
         * (ETHTOOL_GCHANNELS tx + combined) when it has one, since igb and
         * igc show all allocated queues until first opened. 0 = unknown.
         * It changes with up/down and ethtool -L: probe again on link change. */
        unsigned tx_queues;

        /* ETHTOOL_GET_TS_INFO */
        bool hw_timestamping;       /* TX, RX and raw hardware stamps (what ptp4l -H needs) */
        bool sw_timestamping;       /* TX, RX and system software stamps (what ptp4l -S needs) */
        uint32_t so_timestamping;   /* SOF_TIMESTAMPING_* bits as reported */
        uint32_t tx_types;          /* bit n: HWTSTAMP_TX_* n */
        uint32_t rx_filters;        /* bit n: HWTSTAMP_FILTER_* n */
        int phc_index;              /* /dev/ptpN, or -1 for none */

        /* ETHTOOL_GSET: the link's speed in Mbit/s; 0 = unknown (link
         * down, or the driver does not say). Changes with the link: probe
         * again on link change. */
        uint32_t link_speed_mbps;

        /* derived from the driver table */
        uint64_t launch_time_mask;  /* bit q: TX queue q has launch-time (etf offload) */
        uint64_t cbs_offload_mask;  /* bit q: the NIC runs cbs on TX queue q (cbs offload) */
        bool taprio_full_offload;   /* taprio flags 0x2 is supported by the driver */
        bool taprio_txtime_assist;  /* taprio flags 0x1 can be installed (a software mode) */
        bool resets_link_on_offload; /* the driver resets the link when an offload is switched on
                                     * (igc): ptp4l loses its lock (daemon/clock/ptp-relock.h) */
        unsigned tx_stamp_slots;    /* transmitted frames the driver holds a hardware stamp for at
                                     * once (a frame asking while all are taken gets none); 0: not
                                     * known. The launch monitor's choice of stamps rests on it. */
        /* ETHTOOL_MSG_MM_GET (daemon/probe/mac-merge.h): 1 the device has a
         * MAC merge layer (frame preemption's link side), 0 it has none or
         * the kernel has no MM_GET (before Linux 6.3), -1 not asked (a
         * recorded device without the answer, the daemon's probes: see
         * CapsIO.mac_merge; or the question failed). */
        int8_t mac_merge;
        CapsConfidence confidence;
        char reason[160];           /* one human sentence explaining the judgement */
} LinkCaps;

/* The probe's window on the system. Tests point sysfs_root at a recorded
 * tree and ethtool at a replay of recorded answers. */
typedef struct CapsIO {
        /* Root of sysfs; NULL or "" means "/sys". */
        const char *sysfs_root;
        /* Issue one SIOCETHTOOL command: cmd_buf holds a struct ethtool_* of
         * len bytes whose first u32 is the ETHTOOL_* command; it is filled
         * in place. Returns 0 or -errno (-EOPNOTSUPP: the driver does not
         * implement the command, -ENODEV: no such interface). NULL means
         * the real ioctl. */
        int (*ethtool)(void *userdata, const char *ifname, void *cmd_buf, size_t len);
        /* The interface's IFF_* flags (the system's: from RTM_GETLINK, one
         * call where sysfs takes three). NULL: read sysfs' flags file (what
         * recordings replay). */
        int (*ifflags)(void *userdata, const char *ifname, unsigned *ret_flags);
        /* Whether the interface has a MAC merge layer: 1, 0, or -errno
         * (mac_merge_probe()). NULL: not asked (LinkCaps.mac_merge -1).
         * caps_probe() with io NULL asks; caps_system_socket_open()'s io
         * does not (the daemon asks per link where needed). */
        int (*mac_merge)(void *userdata, const char *ifname);
        void *userdata;
} CapsIO;

/* The real system's ethtool, on one socket shared by every probe (one
 * socket for hundreds of interfaces instead of one each). */
typedef struct CapsSystemSocket {
        int fd;
} CapsSystemSocket;

/** Open the socket and fill ret_io with the real ioctl on it (sysfs at
 *  /sys). s must outlive every use of ret_io. Returns 0 or -errno. */
int caps_system_socket_open(CapsSystemSocket *s, CapsIO *ret_io);
void caps_system_socket_close(CapsSystemSocket *s);
/** The interface's index, 0 when there is no such interface: asked over
 *  rtnetlink (link_name_lookup()), never with an ioctl that would have the
 *  kernel load a module of that name. s is not needed (kept for callers
 *  that hold one). */
unsigned caps_system_ifindex(const CapsSystemSocket *s, const char *ifname);
/** CapsIO.mac_merge on the real system (userdata: a CapsSystemSocket, or
 *  NULL): the interface's index (-ENODEV without one), then
 *  mac_merge_probe() over ethtool netlink. */
int caps_system_mac_merge(void *userdata, const char *ifname);

/** Probe one interface.
 *  io: NULL for the real system (sysfs at /sys, ioctl(SIOCETHTOOL) on a
 *      datagram socket; needs no privileges).
 *  ifname: the interface name (shorter than IFNAMSIZ).
 *  ret: filled on success, untouched on failure.
 *  Returns 0 (whatever the confidence: a device without launch time is a
 *  result), -EINVAL for a bad name, -ENODEV when the interface does not
 *  exist (on the real system looked up over rtnetlink before any ioctl
 *  names it, so that an unknown name loads no module), or another -errno when the driver's answers cannot be read. */
int caps_probe(const CapsIO *io, const char *ifname, LinkCaps *ret);

/** What offload "auto" does on one TX queue.
 *  ret_try_hw: true when hardware launch time should be requested (the
 *  table says the queue has it, or the table does not know the device).
 *  ret_must_probe: true when that request is a guess (CAPS_UNKNOWN): the
 *  caller installs etf with offload, and when the kernel refuses keeps a
 *  software etf and records the kernel's message as the reason.
 *  Returns 0, or -ERANGE when the device is known to have fewer TX queues
 *  than queue + 1 (outputs untouched). Either output may be NULL. */
int caps_offload_for_queue(const LinkCaps *c, unsigned queue, bool *ret_try_hw, bool *ret_must_probe);

/** Whether the table allows `offload: true` on a queue: true for a queue
 *  in launch_time_mask and for any queue of a CAPS_UNKNOWN device (the
 *  kernel will decide); false otherwise, and then c->reason says why. */
bool caps_queue_may_offload(const LinkCaps *c, unsigned queue);

/** Fill the validator's view of the device (lib/schedule.h).
 *  offload_known is true for CAPS_KNOWN and CAPS_UNSUPPORTED (then
 *  launch_time_mask and taprio_full_offload are the table's facts);
 *  ret->offload_reason points into c->reason, so c must outlive ret. */
void caps_to_device_facts(const LinkCaps *c, DeviceFacts *ret);

/** JSON object with the keys driver, driver_version, firmware_version,
 *  bus_info, pci_vendor, pci_device, pci_subsystem_vendor,
 *  pci_subsystem_device ("0x8086" strings, or null without PCI ids),
 *  tx_queues, launch_time_queues (array of queue numbers), hw_timestamping,
 *  sw_timestamping, phc_index, taprio_full_offload, taprio_txtime_assist,
 *  confidence ("known", "unsupported", "unknown") and reason.
 *  Returns a new reference, or NULL when out of memory. */
struct json_object *caps_to_json(const LinkCaps *c);

/** "known", "unsupported", "unknown"; NULL for anything else. */
const char *caps_confidence_to_string(CapsConfidence c);
/** The inverse; returns the value or -EINVAL. */
CapsConfidence caps_confidence_from_string(const char *s);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time capability probe (see caps-probe.h). Three steps, never
 * mixed: gather the driver's answers (ethtool ioctls through CapsIO, PCI
 * ids and queue directories from sysfs), look the driver up in one table,
 * and derive the per-queue verdict from the table entry. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <json-c/json.h>

#include "caps-probe.h"
#include "caps-sysfs.h"
#include "json-util.h"
#include "link-name.h"
#include "mac-merge.h"
#include "macro.h"
#include "string-table.h"

/* ---- The driver table ------------------------------------------------
 *
 * One entry per driver family, the way chrony and linuxptp keep what they
 * know about clocks in one place. The facts come from the drivers'
 * ndo_setup_tc(TC_SETUP_QDISC_ETF / TC_SETUP_QDISC_TAPRIO) handlers:
 *
 * igb  igb_offload_txtime(): -EOPNOTSUPP unless hw->mac.type == e1000_i210,
 *      -EINVAL for any queue but 0 and 1. mac.type e1000_i210 is set for
 *      exactly the six device ids below (igb_get_invariants_82575()). igb
 *      has no mqprio hardware offload and no taprio offload.
 * igc  igc_save_launchtime_params(): every TX queue (at most 4, the i225
 *      and i226 have IGC_MAX_TX_QUEUES 4); taprio full offload through
 *      igc_save_qbv_schedule().
 * stmmac (ethtool driver names st_gmac, st_xgmac, st_mac100)
 *      tc_setup_etf(): per queue, when the platform data sets
 *      tbs_en for that queue; nothing the probe can read says which.
 * The others listed have no ndo_setup_tc at all, so the kernel's etf
 * answers "Specified device does not support ETF offload". A driver not
 * listed is CAPS_UNKNOWN: offload "auto" tries and keeps what the kernel
 * accepts.
 *
 * Transmit stamp slots (tx_stamp_slots: how many transmitted frames the
 * driver holds a hardware stamp for at once; a frame that asks while all
 * are taken gets none, and ptp4l, waiting for it, faults):
 * igb  one: igb_xmit_frame_ring() takes __IGB_PTP_TX_IN_PROGRESS with
 *      adapter->ptp_tx_skb, or counts tx_hwtstamp_skipped (6.1 and 6.12
 *      alike; the 82576, i210 and the others of the driver).
 * igc  one up to Linux 6.3 (__IGC_PTP_TX_IN_PROGRESS, adapter->ptp_tx_skb,
 *      as in 6.1); four from 6.4 on (IGC_MAX_TX_TSTAMP_REGS tx_tstamp[]
 *      requests, as in 6.12). Read from the driver version, which for an
 *      in-tree driver is the kernel's release; one when it cannot be read.
 * Any other: not known (0), which the monitor treats as one. */

typedef enum CapsRule {
        RULE_NONE,            /* no launch time on any queue */
        RULE_QUEUES,          /* queue_mask on every device of the driver */
        RULE_PCI_IDS,         /* queue_mask only on the listed PCI devices */
        RULE_PLATFORM,        /* per queue, decided by platform data: unknowable */
} CapsRule;

typedef struct CapsDriverEntry {
        const char *drivers[4];       /* ethtool driver names, NULL-terminated */
        CapsRule rule;
        uint64_t queue_mask;          /* RULE_QUEUES / RULE_PCI_IDS */
        uint64_t cbs_queue_mask;      /* RULE_QUEUES / RULE_PCI_IDS: queues whose cbs the NIC runs
                                       * (ndo_setup_tc TC_SETUP_QDISC_CBS) */
        uint16_t pci_vendor;          /* RULE_PCI_IDS */
        uint16_t pci_devices[8];      /* RULE_PCI_IDS, 0-terminated */
        const char *pci_family;       /* RULE_PCI_IDS: what the listed ids are called */
        bool taprio_full_offload;
        bool resets_link_on_offload;  /* switching an offload on resets the link (and ptp4l's lock) */
        unsigned tx_stamp_slots;      /* transmit stamp slots; 0: not known */
        unsigned tx_stamp_slots_later; /* from Linux tx_stamp_slots_since on, when not 0 */
        unsigned tx_stamp_slots_since; /* major * 1000 + minor */
        const char *reason;           /* the table's verdict, for messages */
} CapsDriverEntry;

static const CapsDriverEntry caps_table[] = {
        {
                .drivers = { "igb" },
                .rule = RULE_PCI_IDS,
                .queue_mask = UINT64_C(0x3),
                /* igb_offload_cbs(): only queues 0 and 1, only on the i210 */
                .cbs_queue_mask = UINT64_C(0x3),
                .pci_vendor = 0x8086,
                /* E1000_DEV_ID_I210_{COPPER,FIBER,SERDES,SGMII,COPPER_FLASHLESS,SERDES_FLASHLESS} */
                .pci_devices = { 0x1533, 0x1536, 0x1537, 0x1538, 0x157B, 0x157C },
                .pci_family = "i210",
                .taprio_full_offload = false,
                .tx_stamp_slots = 1,
                .reason = "igb: launch time only on i210 queues 0 and 1",
        },
        {
                .drivers = { "igc" },
                .rule = RULE_QUEUES,
                .queue_mask = UINT64_C(0xf),
                /* igc_tsn_enable_qbv_scheduling()/igc_save_cbs_params(): any queue */
                .cbs_queue_mask = UINT64_MAX,
                .taprio_full_offload = true,
                /* igc_tsn_offload_apply(): on the i225 a change of TSN mode
                 * (launch time, Qbv, cbs) schedules the adapter's reset task */
                .resets_link_on_offload = true,
                .tx_stamp_slots = 1,
                .tx_stamp_slots_later = 4,
                .tx_stamp_slots_since = 6004,
                .reason = "igc: launch time on every TX queue; taprio full offload",
        },
        {
                .drivers = { "st_gmac", "st_xgmac", "st_mac100" },
                .rule = RULE_PLATFORM,
                .reason = "stmmac: launch time is per queue and set by the platform (tbs_en), "
                          "which the driver does not report",
        },
        { .drivers = { "veth" }, .rule = RULE_NONE },
        { .drivers = { "virtio_net" }, .rule = RULE_NONE },
        { .drivers = { "e1000e" }, .rule = RULE_NONE },
        { .drivers = { "e1000" }, .rule = RULE_NONE },
        { .drivers = { "dummy" }, .rule = RULE_NONE },
        { .drivers = { "tun" }, .rule = RULE_NONE },
        { .drivers = { "bridge" }, .rule = RULE_NONE },
        { .drivers = { "r8169" }, .rule = RULE_NONE },
};

static const CapsDriverEntry *caps_table_find(const char *driver) {
        if (!driver || !driver[0])
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(caps_table); i++)
                for (size_t j = 0; j < ELEMENTSOF(caps_table[i].drivers) && caps_table[i].drivers[j]; j++)
                        if (strcmp(caps_table[i].drivers[j], driver) == 0)
                                return &caps_table[i];
        return NULL;
}

/* The entry's transmit stamp slots for a driver reporting version (an
 * in-tree driver's is the kernel release, "6.12.0-..."): the later count
 * only when the version says so. */
static unsigned entry_tx_stamp_slots(const CapsDriverEntry *e, const char *version) {
        unsigned major, minor;

        if (e->tx_stamp_slots_later == 0 || !version ||
            sscanf(version, "%u.%u", &major, &minor) != 2 || minor >= 1000)
                return e->tx_stamp_slots;
        return major * 1000 + minor >= e->tx_stamp_slots_since ? e->tx_stamp_slots_later : e->tx_stamp_slots;
}

static bool entry_has_pci_device(const CapsDriverEntry *e, uint16_t vendor, uint16_t device) {
        if (vendor != e->pci_vendor)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(e->pci_devices) && e->pci_devices[i]; i++)
                if (e->pci_devices[i] == device)
                        return true;
        return false;
}

/* ---- Gathering ------------------------------------------------------- */

/* An ifreq naming ifname, or -EINVAL for a name that does not fit. */
static int ifreq_init(struct ifreq *ifr, const char *ifname) {
        *ifr = (struct ifreq) {};
        if (!ifname || strlen(ifname) >= sizeof(ifr->ifr_name))
                return -EINVAL;
        strncpy(ifr->ifr_name, ifname, sizeof(ifr->ifr_name) - 1);
        return 0;
}

static int caps_ethtool_ioctl(void *userdata, const char *ifname, void *cmd_buf, size_t len) {
        CapsSystemSocket *s = userdata;
        struct ifreq ifr;

        if (ifreq_init(&ifr, ifname) < 0)
                return -EINVAL;
        ifr.ifr_data = cmd_buf;
        if (ioctl(s->fd, SIOCETHTOOL, &ifr) < 0)
                return negative_errno();
        return 0;
}

/* Any socket reaches dev_ioctl(); an AF_INET one is what ethtool uses, an
 * AF_UNIX one works where IPv4 is compiled out. */
static int caps_socket_open(void) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        return fd;
}

/* The flags from rtnetlink's answer rather than SIOCGIFFLAGS: no ioctl
 * that names a device (link-name.c). */
static int caps_ifflags_lookup(void *userdata, const char *ifname, unsigned *ret) {
        int r = link_name_lookup(ifname, ret);

        return r < 0 ? r : 0;
}

int caps_system_mac_merge(void *userdata, const char *ifname) {
        unsigned ifindex = caps_system_ifindex(userdata, ifname);

        return ifindex == 0 ? -ENODEV : mac_merge_probe((int) ifindex);
}

int caps_system_socket_open(CapsSystemSocket *s, CapsIO *ret_io) {
        int fd;

        if (!s || !ret_io)
                return -EINVAL;
        fd = caps_socket_open();
        if (fd < 0)
                return fd;
        s->fd = fd;
        /* Without mac_merge: the daemon (and validate --device) would send
         * an ethtool netlink question for every interface it probes; the
         * daemon asks a link's MAC merge layer only where something needs it
         * (daemon/link/link-mac-merge.c). */
        *ret_io = (CapsIO) { .ethtool = caps_ethtool_ioctl, .ifflags = caps_ifflags_lookup, .userdata = s };
        return 0;
}

void caps_system_socket_close(CapsSystemSocket *s) {
        if (s && s->fd >= 0) {
                close(s->fd);
                s->fd = -1;
        }
}

unsigned caps_system_ifindex(const CapsSystemSocket *s, const char *ifname) {
        int r = link_name_lookup(ifname, NULL);

        return r > 0 ? (unsigned) r : 0;
}

static void copy_field(char *dst, size_t dst_size, const char *src, size_t src_size) {
        size_t n = strnlen(src, src_size);

        if (n >= dst_size)
                n = dst_size - 1;
        memcpy(dst, src, n);
        dst[n] = '\0';
}

static int probe_gather(const CapsIO *io, const char *ifname, LinkCaps *c) {
        const char *root = io->sysfs_root && io->sysfs_root[0] ? io->sysfs_root : "/sys";
        struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
        struct ethtool_ts_info ts = { .cmd = ETHTOOL_GET_TS_INFO };
        struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
        struct ethtool_cmd cmd = { .cmd = ETHTOOL_GSET };
        unsigned long flags = 0;
        unsigned n_channels = 0;
        bool is_up;
        int r, n_sysfs;

        /* A device without get_drvinfo, parent driver or link kind (lo)
         * answers -EOPNOTSUPP: it has no name, and that is all. */
        r = io->ethtool(io->userdata, ifname, &drv, sizeof(drv));
        if (r >= 0) {
                copy_field(c->driver, sizeof(c->driver), drv.driver, sizeof(drv.driver));
                copy_field(c->version, sizeof(c->version), drv.version, sizeof(drv.version));
                copy_field(c->fw_version, sizeof(c->fw_version), drv.fw_version, sizeof(drv.fw_version));
                copy_field(c->bus_info, sizeof(c->bus_info), drv.bus_info, sizeof(drv.bus_info));
        } else if (r != -EOPNOTSUPP)
                return r;

        /* Only a device with a parent has PCI ids, and the driver of a PCI
         * function names it in bus_info ("0000:03:00.0"): a device whose
         * driver answers with an empty one (veth, bridges, ...) is not read
         * from sysfs for them. */
        if (r < 0 || c->bus_info[0])
                probe_pci_ids(root, ifname, c);

        /* sysfs has one queues/tx-N per real TX queue. But igb and igc set
         * the real count only in ndo_open: an interface that was never up
         * shows every allocated queue (8 on any igb) while the driver will
         * run with its channel count. So a down interface takes the count
         * from ETHTOOL_GCHANNELS when the driver answers it. */
        if (io->ifflags) {
                unsigned f = 0;

                r = io->ifflags(io->userdata, ifname, &f);
                flags = f;
        } else
                r = read_sysfs_hex(root, ifname, "flags", UINT32_MAX, &flags);
        is_up = r >= 0 && (flags & IFF_UP);
        n_sysfs = sysfs_count_tx_queues(root, ifname);
        if (n_sysfs <= 0 || !is_up) {
                r = io->ethtool(io->userdata, ifname, &ch, sizeof(ch));
                if (r == -ENODEV)
                        return r;
                if (r >= 0 && ch.tx_count + ch.combined_count > 0)
                        n_channels = ch.tx_count + ch.combined_count;
        }
        if (n_channels > 0)
                c->tx_queues = n_channels;
        else if (n_sysfs > 0)
                c->tx_queues = (unsigned) n_sysfs;

        /* The port rate a cbs bandwidth is computed with. ETHTOOL_GSET is
         * the legacy form of GLINKSETTINGS (no two-call handshake) and
         * still answered through it; a link that is down says
         * SPEED_UNKNOWN, and a driver without it EOPNOTSUPP: unknown. */
        r = io->ethtool(io->userdata, ifname, &cmd, sizeof(cmd));
        if (r == -ENODEV)
                return r;
        if (r >= 0) {
                uint32_t speed = ethtool_cmd_speed(&cmd);

                if (speed != (uint32_t) SPEED_UNKNOWN && speed > 0 && speed <= CAPS_MAX_LINK_SPEED_MBPS)
                        c->link_speed_mbps = speed;
        }

        c->phc_index = -1;
        r = io->ethtool(io->userdata, ifname, &ts, sizeof(ts));
        if (r >= 0) {
                const uint32_t hw = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RX_HARDWARE |
                                    SOF_TIMESTAMPING_RAW_HARDWARE;
                const uint32_t sw = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_RX_SOFTWARE |
                                    SOF_TIMESTAMPING_SOFTWARE;

                c->so_timestamping = ts.so_timestamping;
                c->tx_types = ts.tx_types;
                c->rx_filters = ts.rx_filters;
                c->phc_index = ts.phc_index;
                c->hw_timestamping = (ts.so_timestamping & hw) == hw;
                c->sw_timestamping = (ts.so_timestamping & sw) == sw;
        } else if (r != -EOPNOTSUPP)
                return r;

        return 0;
}

/* ---- Judging --------------------------------------------------------- */

static uint64_t all_queues_mask(unsigned n) {
        if (n == 0)              /* not known: let the table's mask stand */
                return UINT64_MAX;
        if (n >= 64)
                return UINT64_MAX;
        return (UINT64_C(1) << n) - 1;
}

static void probe_judge(LinkCaps *c) {
        const CapsDriverEntry *e = caps_table_find(c->driver);

        /* txtime-assist is a software mode of sch_taprio: taprio computes
         * each packet's txtime from the gate schedule and etf children
         * send it then (offloaded where the queue has launch time). It needs
         * no driver support, only what every taprio needs: a multi-queue
         * device (taprio_init() refuses others with "Multi-queue device is
         * required"). So it is possible on any device with two or more TX
         * queues, whatever the table says. */
        c->taprio_txtime_assist = c->tx_queues > 1;

        if (!e) {
                c->confidence = CAPS_UNKNOWN;
                c->launch_time_mask = 0;
                c->cbs_offload_mask = 0;
                c->taprio_full_offload = false;
                c->resets_link_on_offload = false;
                c->tx_stamp_slots = 0;
                if (c->driver[0])
                        snprintf(c->reason, sizeof(c->reason),
                                 "%s: not in the launch-time table; offload \"auto\" tries it and keeps software mode if refused",
                                 c->driver);
                else
                        snprintf(c->reason, sizeof(c->reason),
                                 "the driver does not report its name; offload \"auto\" tries launch time and keeps software mode if refused");
                return;
        }

        c->taprio_full_offload = e->taprio_full_offload;
        c->resets_link_on_offload = e->resets_link_on_offload;
        c->tx_stamp_slots = entry_tx_stamp_slots(e, c->version);

        switch (e->rule) {
        case RULE_NONE:
                c->confidence = CAPS_UNSUPPORTED;
                c->launch_time_mask = 0;
                snprintf(c->reason, sizeof(c->reason), "%s: no launch-time (etf) offload in this driver", c->driver);
                break;

        case RULE_QUEUES:
                c->confidence = CAPS_KNOWN;
                c->launch_time_mask = e->queue_mask & all_queues_mask(c->tx_queues);
                c->cbs_offload_mask = e->cbs_queue_mask & all_queues_mask(c->tx_queues);
                snprintf(c->reason, sizeof(c->reason), "%s", e->reason);
                break;

        case RULE_PCI_IDS:
                if (!c->pci_known) {
                        c->confidence = CAPS_UNKNOWN;
                        c->launch_time_mask = 0;
                        snprintf(c->reason, sizeof(c->reason), "%s; the PCI device id could not be read", e->reason);
                } else if (entry_has_pci_device(e, c->pci_vendor, c->pci_device)) {
                        c->confidence = CAPS_KNOWN;
                        c->launch_time_mask = e->queue_mask & all_queues_mask(c->tx_queues);
                        c->cbs_offload_mask = e->cbs_queue_mask & all_queues_mask(c->tx_queues);
                        snprintf(c->reason, sizeof(c->reason), "%s", e->reason);
                } else {
                        c->confidence = CAPS_UNSUPPORTED;
                        c->launch_time_mask = 0;
                        snprintf(c->reason, sizeof(c->reason), "%s; %04x:%04x is not an %s",
                                 e->reason, c->pci_vendor, c->pci_device, e->pci_family);
                }
                break;

        case RULE_PLATFORM:
                c->confidence = CAPS_UNKNOWN;
                c->launch_time_mask = 0;
                snprintf(c->reason, sizeof(c->reason), "%s", e->reason);
                break;
        }
}

int caps_probe(const CapsIO *io, const char *ifname, LinkCaps *ret) {
        _cleanup_close_ int fd = -1;
        CapsSystemSocket sock = { .fd = -1 };
        CapsIO real = {};
        LinkCaps c = {};
        int r;

        if (!ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ || strchr(ifname, '/') ||
            strcmp(ifname, ".") == 0 || strcmp(ifname, "..") == 0 || !ret)
                return -EINVAL;

        if (!io || !io->ethtool) {
                fd = caps_socket_open();
                if (fd < 0)
                        return fd;
                sock.fd = fd;
                real.sysfs_root = io ? io->sysfs_root : NULL;
                real.ethtool = caps_ethtool_ioctl;
                real.mac_merge = caps_system_mac_merge;
                if (!real.sysfs_root)   /* a recorded sysfs tree keeps its own flags */
                        real.ifflags = caps_ifflags_lookup;
                real.userdata = &sock;
                io = &real;
        }

        /* The ioctls below name the device, and for a name no device has
         * the kernel would ask modprobe for it (link-name.c): a name is
         * looked up over rtnetlink first, and an unknown one goes no
         * further. A recorded device (tests) has its own ethtool. */
        if (io->ethtool == caps_ethtool_ioctl) {
                r = link_name_lookup(ifname, NULL);
                if (r < 0)
                        return r;
        }
        r = probe_gather(io, ifname, &c);
        if (r < 0)
                return r;
        probe_judge(&c);
        r = io->mac_merge ? io->mac_merge(io->userdata, ifname) : -1;
        c.mac_merge = (int8_t) (r < 0 ? -1 : r > 0);

        *ret = c;
        return 0;
}

/* ---- Using the result ------------------------------------------------ */

int caps_offload_for_queue(const LinkCaps *c, unsigned queue, bool *ret_try_hw, bool *ret_must_probe) {
        bool try_hw, must_probe;

        if (!c)
                return -EINVAL;
        if (c->tx_queues > 0 && queue >= c->tx_queues)
                return -ERANGE;

        switch (c->confidence) {
        case CAPS_KNOWN:
                try_hw = queue < 64 && (c->launch_time_mask & (UINT64_C(1) << queue));
                must_probe = false;
                break;
        case CAPS_UNKNOWN:
                try_hw = true;
                must_probe = true;
                break;
        case CAPS_UNSUPPORTED:
        default:
                try_hw = false;
                must_probe = false;
                break;
        }

        if (ret_try_hw)
                *ret_try_hw = try_hw;
        if (ret_must_probe)
                *ret_must_probe = must_probe;
        return 0;
}

bool caps_queue_may_offload(const LinkCaps *c, unsigned queue) {
        if (!c)
                return false;
        if (c->confidence == CAPS_UNKNOWN)
                return c->tx_queues == 0 || queue < c->tx_queues;
        return queue < 64 && (c->launch_time_mask & (UINT64_C(1) << queue));
}

void caps_to_device_facts(const LinkCaps *c, DeviceFacts *ret) {
        if (!c || !ret)
                return;
        *ret = (DeviceFacts) {
                .tx_queues = c->tx_queues,
                .offload_known = c->confidence == CAPS_KNOWN || c->confidence == CAPS_UNSUPPORTED,
                .launch_time_mask = c->launch_time_mask,
                .offload_reason = c->reason,
                .taprio_full_offload = c->taprio_full_offload,
                .cbs_offload_mask = c->cbs_offload_mask,
                .link_speed_mbps = c->link_speed_mbps,
                .mac_merge = c->mac_merge < 0 ? DEVICE_MAC_MERGE_UNKNOWN
                             : c->mac_merge > 0 ? DEVICE_MAC_MERGE_PRESENT : DEVICE_MAC_MERGE_ABSENT,
        };
}

static const char *const caps_confidence_table[_CAPS_CONFIDENCE_MAX] = {
        [CAPS_KNOWN] = "known",
        [CAPS_UNSUPPORTED] = "unsupported",
        [CAPS_UNKNOWN] = "unknown",
};

DEFINE_STRING_TABLE_LOOKUP(caps_confidence, CapsConfidence, caps_confidence_table, _CAPS_CONFIDENCE_INVALID)

static struct json_object *json_hex16(uint16_t v) {
        char buf[8];

        snprintf(buf, sizeof(buf), "0x%04x", v);
        return json_object_new_string(buf);
}

/* The queues of a mask as a JSON array of numbers. */
static struct json_object *queue_list_json(uint64_t mask) {
        _cleanup_json_ struct json_object *a = json_object_new_array();

        if (!a)
                return NULL;
        for (unsigned q = 0; q < 64; q++) {
                if (!(mask & (UINT64_C(1) << q)))
                        continue;
                struct json_object *n = json_object_new_int((int) q);
                if (!n || json_object_array_add(a, n) < 0) {
                        json_object_put(n);
                        return NULL;
                }
        }
        return TAKE_PTR(a);
}

struct json_object *caps_to_json(const LinkCaps *c) {
        _cleanup_json_ struct json_object *o = NULL, *queues = NULL, *cbs_queues = NULL;

        if (!c)
                return NULL;
        o = json_object_new_object();
        if (!o)
                return NULL;

        queues = queue_list_json(c->launch_time_mask);
        cbs_queues = queue_list_json(c->cbs_offload_mask);
        if (!queues || !cbs_queues)
                return NULL;

        if (json_add_made(o, "driver", json_object_new_string(c->driver)) < 0 ||
            json_add_made(o, "driver_version", json_object_new_string(c->version)) < 0 ||
            json_add_made(o, "firmware_version", json_object_new_string(c->fw_version)) < 0 ||
            json_add_made(o, "bus_info", json_object_new_string(c->bus_info)) < 0)
                return NULL;
        const struct {
                const char *key;
                uint16_t value;
        } pci[] = {
                { "pci_vendor", c->pci_vendor },
                { "pci_device", c->pci_device },
                { "pci_subsystem_vendor", c->pci_subsystem_vendor },
                { "pci_subsystem_device", c->pci_subsystem_device },
        };
        for (size_t i = 0; i < ELEMENTSOF(pci); i++)
                if ((c->pci_known ? json_add_made(o, pci[i].key, json_hex16(pci[i].value)) : json_add(o, pci[i].key, NULL)) < 0)
                        return NULL;
        if (json_add_made(o, "tx_queues", json_object_new_int((int) c->tx_queues)) < 0 ||
            json_add_made(o, "launch_time_queues", TAKE_PTR(queues)) < 0 ||
            json_add_made(o, "cbs_offload_queues", TAKE_PTR(cbs_queues)) < 0 ||
            (c->link_speed_mbps ? json_add_made(o, "link_speed_mbps", json_object_new_int64(c->link_speed_mbps))
                                : json_add(o, "link_speed_mbps", NULL)) < 0 ||
            json_add_made(o, "hw_timestamping", json_object_new_boolean(c->hw_timestamping)) < 0 ||
            json_add_made(o, "sw_timestamping", json_object_new_boolean(c->sw_timestamping)) < 0 ||
            json_add_made(o, "phc_index", json_object_new_int(c->phc_index)) < 0 ||
            json_add_made(o, "taprio_full_offload", json_object_new_boolean(c->taprio_full_offload)) < 0 ||
            json_add_made(o, "taprio_txtime_assist", json_object_new_boolean(c->taprio_txtime_assist)) < 0 ||
            json_add_made(o, "resets_link_on_offload", json_object_new_boolean(c->resets_link_on_offload)) < 0 ||
            (c->mac_merge >= 0 ? json_add_made(o, "mac_merge", json_object_new_boolean(c->mac_merge > 0))
                               : json_add(o, "mac_merge", NULL)) < 0 ||
            (c->tx_stamp_slots ? json_add_made(o, "tx_stamp_slots", json_object_new_int64(c->tx_stamp_slots))
                               : json_add(o, "tx_stamp_slots", NULL)) < 0 ||
            json_add_made(o, "confidence", json_object_new_string(caps_confidence_to_string(c->confidence) ?: "unknown")) < 0 ||
            json_add_made(o, "reason", json_object_new_string(c->reason)) < 0)
                return NULL;

        return TAKE_PTR(o);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schedule model: what one interface's qdisc tree and clock checks
 * should be. The JSON parser fills it (schedule-parse.c), the validator
 * checks it (schedule-verify.c), and the daemon's netlink engine reads the
 * kernel's tree back into the same structs, so desired and actual compare
 * field by field (schedule_equal*()).
 *
 * All times are in nanoseconds unless a name says otherwise. Values that the
 * file may leave out hold their effective default after parsing (for example
 * a taprio cycle_time_ns that was not given holds the sum of the intervals). */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "macro.h"
#include "cbs-spec.h"
#include "etf-spec.h"
#include "mqprio-spec.h"
#include "taprio-spec.h"
#include "schedule-stab.h"
#include "taprio-limits.h"

#define TBS_MAX_TC 16                 /* TC_QOPT_MAX_QUEUE */
_Static_assert(TBS_TAPRIO_MAX_TC == TBS_MAX_TC, "taprio's classes are the root's");
#define TBS_PRIO_MAP_LEN 16           /* TC_QOPT_BITMASK + 1 */
#define TBS_DEFAULT_ROOT_HANDLE 0x01000000U /* "100:" */
#define TBS_MAX_SDU 65535             /* ETH_MAX_MTU: the largest max SDU any device takes */
#define TBS_FP_EXPRESS 1              /* TC_FP_EXPRESS (Linux 6.4 pkt_sched.h) */
#define TBS_FP_PREEMPTIBLE 2          /* TC_FP_PREEMPTIBLE */
#define TBS_MAX_QUEUE (UINT16_MAX - 1)
#define TBS_MAX_LINK_SPEED_MBPS 1000000U /* a file's link_speed_mbps: 1 Tbit/s, its kbit/s fit the kernel's s32 slopes */  /* highest TX queue number of a schedule (an etf parent is MAJ:queue+1) */

/* The kernel's limits on a taprio schedule: lib/taprio-limits.h. */

typedef enum RootKind {
        ROOT_MQPRIO,
        ROOT_TAPRIO,
        ROOT_ETF,                             /* a single etf as the root (RootSpec.leaf) */
        ROOT_CBS,                             /* a single cbs as the root (RootSpec.leaf) */
        _ROOT_KIND_MAX,
        _ROOT_KIND_INVALID = -EINVAL,
} RootKind;

typedef enum OffloadMode {
        OFFLOAD_OFF,
        OFFLOAD_ON,
        OFFLOAD_AUTO,
        _OFFLOAD_MODE_MAX,
        _OFFLOAD_MODE_INVALID = -EINVAL,
} OffloadMode;

/* What tbsd does when the installed tree stops matching the schedule. */
typedef enum DriftPolicy {
        DRIFT_ENFORCE,          /* put the declared tree back (default) */
        DRIFT_REPORT,           /* mark the link degraded, leave the tree */
        _DRIFT_POLICY_MAX,
        _DRIFT_POLICY_INVALID = -EINVAL,
} DriftPolicy;

typedef struct QueueRange {
        uint16_t count;
        uint16_t offset;
} QueueRange;




/* The qdisc a schedule puts on one TX queue ("qdisc" of a txqueues entry). */
typedef enum TxqKind {
        TXQ_ETF,                              /* "etf" (or "tbs"), the default */
        TXQ_CBS,                              /* "cbs": credit-based shaper, IEEE 802.1Q 8.6.8.2 */
        _TXQ_KIND_MAX,
        _TXQ_KIND_INVALID = -EINVAL,
} TxqKind;

/* The launch-time monitor of an etf queue ("monitor" of a txqueues
 * entry; daemon/link/launch-monitor.c): every interval_ms, frames probe frames
 * with launch times through the queue, their transmit stamps measured
 * against the launch times. Not part of the kernel's tree: a change
 * installs nothing, it restarts the monitor. */
#define TBS_MONITOR_INTERVAL_MIN_MS 100
#define TBS_MONITOR_INTERVAL_MAX_MS 3600000
#define TBS_MONITOR_INTERVAL_DEFAULT_MS 1000
#define TBS_MONITOR_FRAMES_MIN 1
#define TBS_MONITOR_FRAMES_MAX 64
#define TBS_MONITOR_FRAMES_DEFAULT 4

/* The probe frames per second the monitors of all the schedules one tbsd
 * loads may send together (each monitored queue: frames * 1000 /
 * interval_ms). A probe costs the daemon a send, its error-queue reports
 * and their accounting, one event-loop wake-up or more: the largest
 * setting the keys allow, 640 a second per queue, on 16 links took 98 % of
 * a core in the test kernel and made `tbsctl metrics` take seconds; 1920
 * a second still took 77 % there (BENCHMARKS.md, "Bounds"), where every
 * system call is a round trip through the host. A file whose monitors would pass it is
 * refused (schedule_verify() for a file alone, schedule_dir_load() for
 * the folder: files read unchanged first, then the others in name order). */
#define TBS_MONITOR_MAX_PROBES_PER_S 1000

typedef struct MonitorSpec {
        bool enabled;                         /* the entry has "monitor" (opt-in) */
        uint32_t interval_ms;
        uint32_t frames;                      /* probe frames per interval */
} MonitorSpec;

/** Whether two monitor settings are the same (both off, or on with the
 *  same interval and frames). */
bool monitor_spec_equal(const MonitorSpec *a, const MonitorSpec *b);

/** Probe frames per second of one monitor (rounded up); 0 when it is off. */
uint32_t monitor_spec_probes_per_s(const MonitorSpec *m);

/* One TX queue's child qdisc: etf (kind TXQ_ETF, etf and offload) or cbs
 * (kind TXQ_CBS, cbs and offload). The name stays from when etf was the
 * only kind. */
typedef struct EtfSpec {
        uint32_t queue;                       /* 0-based TX queue; parent is MAJOR:(queue+1) */
        TxqKind kind;
        CbsSpec cbs;                          /* kind TXQ_CBS */
        EtfOptions etf;                       /* kind TXQ_ETF, or a cbs's etf child (kinds/etf-spec.h) */
        OffloadMode offload;
        bool spelled_tbs;                     /* the file said "qdisc": "tbs" */
        MonitorSpec monitor;                  /* kind TXQ_ETF; never compared with the kernel's tree */
        /* kind TXQ_CBS: an etf under the cbs (the file's "child"; the kernel's
         * parent CBS_HANDLE:1), set by etf above and its own offload */
        bool etf_child;
        OffloadMode child_offload;
        StabSpec stab;                        /* "stab": the queue's qdisc's size table (schedule-stab.h) */
} EtfSpec;




typedef struct RootSpec {
        RootKind kind;
        uint32_t handle;                      /* major << 16, minor 0 */
        uint8_t num_tc;
        uint8_t priority_map[TBS_PRIO_MAP_LEN];
        QueueRange queues[TBS_MAX_TC];        /* num_tc entries used */

        MqprioSpec mqprio;                    /* ROOT_MQPRIO (kinds/mqprio-spec.h) */

        TaprioSpec taprio;                    /* ROOT_TAPRIO (kinds/taprio-spec.h) */

        /* mqprio and taprio: frame preemption per traffic class ("fp",
         * Linux 6.4+; TC_FP_EXPRESS 1 or TC_FP_PREEMPTIBLE 2, 0 read as
         * express, the kernel's default) */
        uint8_t fp[TBS_MAX_TC];
        bool fp_given;                        /* the request carries TC entries with fp */
        uint8_t n_fp;                         /* entries the file gave (the validator wants num_tc) */
        bool fp_dumped;                       /* from a dump: the kernel reported fp per class */

        /* any kind */
        StabSpec stab;                        /* "stab": the root's size table (schedule-stab.h) */

        /* etf or cbs as the root (ROOT_ETF, ROOT_CBS: single-queue devices):
         * the qdisc as a txqueues entry of that kind holds it (kind TXQ_ETF
         * or TXQ_CBS, queue 0; a cbs may have its etf child); num_tc 0 */
        EtfSpec leaf;
} RootSpec;

/** Whether r is a single etf or cbs qdisc as the root (no traffic classes;
 *  kinds/kinds.c). */
bool root_is_leaf(const RootSpec *r);

typedef struct ClockSpec {
        bool configured;                      /* false: the file has no "clock" section */
        char *ptp4l_socket;                   /* NULL: try the default paths */
        uint8_t domain;
        uint8_t transport_specific;
        int64_t max_master_offset_ns;         /* default 100 */
        int64_t max_phc_offset_ns;            /* default 1000 */
        uint8_t ptp_priority;                 /* socket priority of ptp4l's frames (0-15, default 0,
                                               * ptp4l's default): the root's priority_map gives PTP's
                                               * traffic class (lib/schedule-safety.h) */
} ClockSpec;

/* "mac_merge": the device's MAC merge layer (IEEE 802.3br, frame
 * preemption's other half beside root.fp), set over ethtool netlink
 * (ETHTOOL_MSG_MM_SET, Linux 6.3+) with the tree; daemon/probe/mac-merge.c.
 * A key the file leaves out is left as the device has it, as with
 * `ethtool --set-mm`. */
#define TBS_MM_VERIFY_TIME_MAX_MS 128  /* the kernel's ETHTOOL_A_MM_VERIFY_TIME range: 1..128 ms */
typedef struct MacMergeSpec {
        bool configured;                      /* the file has "mac_merge" */
        bool pmac_enabled, tx_enabled, verify_enabled;
        bool pmac_given, tx_given, verify_given;
        uint32_t verify_time_ms;              /* 0: not given; else 1..128 */
        uint32_t tx_min_frag_bytes;           /* 0: not given; else 60, 124, 188 or 252 */
} MacMergeSpec;

/* Most EtherTypes "sockets.ethertypes" lists. */
#define TBS_SOCKET_ETHERTYPES_MAX 16

/* Who, besides root and the admin group, may ask tbsd for a ready
 * SO_TXTIME socket on this interface (Link.OpenTxtimeSocket()), and which
 * network-control EtherTypes (daemon/broker/txtime-map.h) packet sockets may be
 * opened for. */
typedef struct SocketsSpec {
        char *group;                          /* a group name; NULL: nobody else */
        uint16_t ethertypes[TBS_SOCKET_ETHERTYPES_MAX]; /* reserved EtherTypes the file allows, in its order */
        uint8_t n_ethertypes;
} SocketsSpec;

/* Longest group name the "sockets.group" key takes (LOGIN_NAME_MAX is 256,
 * but useradd and systemd stop at 32). */
#define TBS_GROUP_NAME_MAX 32

/* One stream of a taprio root given by "streams" (docs/streams.md): a
 * talker sending frames_per_period frames of at most max_frame_bytes (from
 * the destination address to the end of the payload, no FCS) every
 * period_ns, in traffic class traffic_class. */
typedef struct StreamSpec {
        char *name;
        uint8_t traffic_class;
        uint32_t period_ns;                   /* > 0 */
        uint32_t offset_ns;                   /* with offset_given: the window's start in the period */
        bool offset_given;
        uint32_t max_frame_bytes;
        uint32_t frames_per_period;
        bool from_bus;                        /* added with Link.AddStream() (kept in tbsd's state
                                               * directory), not from the file */
} StreamSpec;

/* A taprio root's streams: its entries are computed from them
 * (schedule_resolve_streams(), lib/schedule-streams.h) with the file's
 * link speed or, without one, the device's. */
typedef struct StreamsSpec {
        StreamSpec *items;
        size_t n;                             /* 0: the root gives "entries" */
        uint32_t link_speed_mbps;             /* root.link_speed_mbps; 0: the device's */
        uint32_t guard_frame_bytes;           /* root.guard_frame_bytes (default 1518) */
        uint32_t resolved_speed_mbps;         /* root.entries were computed at this speed; 0: not yet */
} StreamsSpec;

typedef struct Schedule {
        char *source;                         /* file it came from, for messages; may be NULL */
        char ifname[IFNAMSIZ];
        RootSpec root;
        EtfSpec *txqueues;
        size_t n_txqueues;
        ClockSpec clock;
        DriftPolicy drift;
        SocketsSpec sockets;
        StreamsSpec streams;                  /* taprio root given by streams */
        MacMergeSpec mac_merge;
        uint32_t allow;                       /* bit c: the file's "allow" lists SafetyCheck c */
} Schedule;

/* Whether a device has a MAC merge layer (IEEE 802.3br): zero is unknown. */
typedef enum DeviceMacMerge {
        DEVICE_MAC_MERGE_UNKNOWN,
        DEVICE_MAC_MERGE_PRESENT,
        DEVICE_MAC_MERGE_ABSENT,               /* none, or a kernel without ETHTOOL_MSG_MM_GET (before 6.3) */
} DeviceMacMerge;

/* What is known about the device a schedule is checked against. Zeroed means
 * "nothing known": the checks that need it are skipped. */
typedef struct DeviceFacts {
        unsigned tx_queues;                   /* 0: unknown */
        bool offload_known;                   /* the capability table knows this device */
        uint64_t launch_time_mask;            /* bit q: queue q supports launch-time offload */
        const char *offload_reason;           /* why other queues lack it, for messages */
        bool taprio_full_offload;             /* with offload_known: the NIC can run taprio's gate
                                               * schedule itself (mode "full-offload") */
        uint64_t cbs_offload_mask;            /* with offload_known: bit q: queue q can run cbs in the NIC */
        uint32_t link_speed_mbps;             /* the link's speed; 0: unknown (down, or not reported) */
        const char *ifname;                   /* the device's name for messages; NULL: not given */
        DeviceMacMerge mac_merge;             /* its MAC merge layer (frame preemption's link side) */
        /* With mac_merge unknown: asked by schedule_verify() only for a
         * schedule that has "mac_merge" (so a checker sends the device no
         * question a file does not need), with ask_userdata; answers 1 (a
         * layer), 0 (none) or -errno (unknown: the rule is skipped). The
         * one asked may remember the answer in these facts. NULL: not asked. */
        int (*ask_mac_merge)(void *userdata);
        void *ask_userdata;
} DeviceFacts;

/** Free everything a schedule owns, and the schedule itself. Accepts NULL. */
void schedule_free(Schedule *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(Schedule *, schedule_free);
#define _cleanup_schedule_ _cleanup_(schedule_freep)

/** Free what a RootSpec owns (not the struct); it is zeroed afterwards. */
void root_spec_done(RootSpec *r);

/** Deep copy. Returns 0 and *ret, or -ENOMEM. */
int schedule_copy(const Schedule *s, Schedule **ret);

/** The first monitor of s (its txqueues index in *ret_index) at which the
 *  probes per second of s's monitors, on top of used, pass
 *  TBS_MONITOR_MAX_PROBES_PER_S; false when none does. *ret_total (may be
 *  NULL) gets used plus all of s's monitors' probes per second. */
bool schedule_monitor_over_budget(const Schedule *s, uint64_t used, size_t *ret_index, uint64_t *ret_total);

/** Whether name is a group name the "sockets.group" key takes: 1 to
 *  TBS_GROUP_NAME_MAX bytes, a letter or '_' first, then letters, digits,
 *  '_', '-' or '.', optionally a final '$' (the portable set of POSIX and
 *  the shadow tools). */
bool group_name_is_valid(const char *name);

/** Find the etf spec for a TX queue, or NULL. */
const EtfSpec *schedule_find_txqueue(const Schedule *s, uint32_t queue);


/** The traffic classes whose queue range holds TX queue queue, as a mask
 *  (bit tc); 0 when none does. More than one bit only where
 *  root_queues_may_overlap(). */
uint32_t root_tcs_of_queue(const RootSpec *r, uint32_t queue);

/** Whether traffic class tc of r holds TX queue queue (false for a tc that
 *  is negative or not below num_tc). */
bool root_tc_has_queue(const RootSpec *r, int tc, uint32_t queue);

/** The lowest traffic class whose queue range holds the TX queue, or
 *  -ENOENT. Where ranges overlap the queue may serve more classes
 *  (root_tcs_of_queue()); a sender reaches it through root_send_tc_of_queue(). */
int root_tc_of_queue(const RootSpec *r, uint32_t queue);

/** The traffic class a socket is sent through to reach TX queue queue
 *  (OpenTxtimeSocket() and GetTxtimeParams() by queue, the launch monitor):
 *  of the classes holding the queue, the lowest that some priority of
 *  priority_map reaches and whose range is this queue alone, else the
 *  lowest that some priority reaches, else the lowest. Without overlapping
 *  ranges that is the one class holding the queue. -ENOENT when no class
 *  holds it. */
int root_send_tc_of_queue(const RootSpec *r, uint32_t queue);

/** Compare the root qdisc parts that the kernel reports back (for taprio the
 *  newest schedule, the admin one while it is pending, and max_sdu of the
 *  traffic classes in use). In kinds/kinds.c: it asks the kinds' table. */
bool root_spec_equal(const RootSpec *a, const RootSpec *b);


/** Whether any traffic class of r is preemptible. */
bool root_has_preemptible(const RootSpec *r);
/** Compare two TX queue children as installed (etf or cbs, kind first);
 *  offload compares a resolved mode (OFFLOAD_ON/OFF), so resolve "auto"
 *  before comparing; cbs compares the four kernel parameters, so resolve
 *  a bandwidth (cbs_spec_resolve()) first. In kinds/kinds.c (the table). */
bool etf_spec_equal(const EtfSpec *a, const EtfSpec *b);

/* Enum <-> string tables; *_from_string returns the value or -EINVAL.
 * The kinds' names are their table's (kinds/kinds.c). */
const char *root_kind_to_string(RootKind k);
RootKind root_kind_from_string(const char *s);
const char *taprio_mode_to_string(TaprioMode m);
TaprioMode taprio_mode_from_string(const char *s);
const char *gate_command_to_string(GateCommand c);
GateCommand gate_command_from_string(const char *s);
const char *offload_mode_to_string(OffloadMode m);
const char *txq_kind_to_string(TxqKind k);
TxqKind txq_kind_from_string(const char *s);
const char *drift_policy_to_string(DriftPolicy p);
DriftPolicy drift_policy_from_string(const char *s);

/** "CLOCK_TAI" etc. for the clocks the kernel's qdiscs know; NULL otherwise. */
const char *clockid_to_string(clockid_t c);
/** Accepts "CLOCK_TAI", "TAI", "CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_BOOTTIME"
 *  and their short forms; returns the clockid or -EINVAL. */
int clockid_from_string(const char *s);

/** Format a handle as "100:" (minor 0) or "100:1". buf must hold 16 bytes. */
const char *tc_handle_to_string(uint32_t handle, char buf[static 16]);
/** Parse "MAJ:" or "MAJ:MIN", 1-4 hex digits each, MAJ not 0 (nothing else:
 *  no white space, sign, "0x" or missing colon). Returns 0 or -EINVAL. */
int tc_handle_from_string(const char *s, uint32_t *ret);

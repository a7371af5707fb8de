/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time monitor: for each monitored etf queue of a link
 * ("monitor" of its txqueues entry), a probe socket of its own set up with
 * the queue's parameters (priority, clock, deadline mode: the mapping of
 * GetTxtimeParams/OpenTxtimeSocket), a timer that sends frames probe
 * frames with SO_TXTIME launch times every interval, and an IO source on
 * the socket's error queue that matches the kernel's reports to the probes
 * and adds each launch error (transmit stamp - launch time) to the queue's
 * LaunchQueueStats (lib/launch-hist.h). Each round chooses the stamps it
 * asks for (launch_stamps_choose()): the NIC's only while its
 * transmit stamping is on (SIOCGHWTSTAMP, on the probe socket: one ioctl
 * per round) and the NIC holds stamps to spare beside ptp4l's; else
 * software ones, so that a probe never takes the stamp a PTP frame needs.
 *
 * Under a taprio root (gated), which drops a launch time outside its
 * traffic class's gate windows, each probe's launch time is the first that
 * a window of the schedule running at the round's start holds with a guard
 * on both sides (kinds/taprio-windows.h), read at each round from the link's
 * view of the kernel's root (LaunchMonitorGatesFn); a round never reaches
 * past a pending schedule change.
 *
 * Nothing runs between intervals but a timeout for probes still without a
 * report; nothing polls. Knows neither Link nor bus: the link describes
 * what it wants (LaunchMonitorConfig) and reads the figures back. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <systemd/sd-event.h>

#include "launch-hist.h"
#include "launch-stamps.h"
#include "schedule.h"
#include "txtime-probe.h"

/* first launch time of a round: now + delta + this */
#define LAUNCH_MONITOR_MARGIN_NS 2000000u
/* launch times of one round at least this far apart */
#define LAUNCH_MONITOR_SPACING_NS 200000u
/* a probe without a report this long after its launch time is unstamped */
#define LAUNCH_MONITOR_REPORT_TIMEOUT_NS 1000000000u

/** PHC minus the socket's clock, ns, for hardware stamps: returns 0 and
 *  *ret_ns, or -ENODATA when unknown (then hardware stamps cannot be
 *  placed and those probes count as unstamped). */
typedef int (*LaunchMonitorPhcOffsetFn)(void *userdata, int64_t *ret_ns);

/** The kernel's taprio root of the link as last read (a dump's RootSpec,
 *  with a pending admin schedule beside the running one), for gated
 *  monitors: returns 0 and *ret (valid until the callback is called
 *  again), or -errno when it cannot be read (then the round sends
 *  nothing). */
typedef int (*LaunchMonitorGatesFn)(void *userdata, const RootSpec **ret);

/* What the monitors of a link ask it; each may be NULL. */
typedef struct LaunchMonitorHooks {
        LaunchMonitorPhcOffsetFn phc;
        LaunchMonitorGatesFn gates;
        void *userdata;
} LaunchMonitorHooks;

/* What one queue's monitor needs. */
typedef struct LaunchMonitorConfig {
        int ifindex;
        uint32_t queue;
        uint32_t priority;              /* SO_PRIORITY that reaches the queue */
        clockid_t clockid;              /* SO_TXTIME clock (the etf's) */
        bool deadline_mode;             /* the etf's */
        int32_t delta_ns;               /* the etf's */
        uint32_t interval_ms;
        uint32_t frames;
        bool gated;                     /* under a taprio root: launch times inside tc's windows */
        unsigned tc;                    /* the queue's traffic class */
        uint32_t link_speed_mbps;       /* gated: for the guard (txtime_probe_guard_ns()); 0: unknown */
        unsigned tx_stamp_slots;        /* transmit stamps the NIC holds at once (LinkCaps); 0: unknown */
} LaunchMonitorConfig;

typedef struct LaunchMonitors LaunchMonitors;

/** Whether two configurations are the same monitor. */
bool launch_monitor_config_equal(const LaunchMonitorConfig *a, const LaunchMonitorConfig *b);

/** Make the monitors of one link (named ifname in logs) what cfgs[0..n)
 *  say: a monitor whose configuration is unchanged keeps running with its
 *  figures, the others are stopped (socket closed) or started afresh. n 0
 *  stops every monitor and frees *m (set to NULL). A monitor that cannot
 *  start (no socket) is logged and left out. hooks (copied; may be NULL)
 *  give the PHC offset for hardware stamps and the gate schedule of gated
 *  monitors. Returns 0, or -ENOMEM (nothing changed). */
int launch_monitors_sync(LaunchMonitors **m, sd_event *e, const char *ifname, const LaunchMonitorConfig *cfgs,
                         size_t n, const LaunchMonitorHooks *hooks);

/** The launch time of a gated monitor's next probe: the first at or after
 *  earliest_ns that a window of class tc in the schedule root runs at
 *  now_ns holds, guard_ns from its edges, before any pending change
 *  (txtime_running_root(), txtime_window_slot()). Returns 0 and *ret_ns,
 *  -ENOSPC when no window of the class is long enough, -EAGAIN when the
 *  next one is past a pending schedule change or none runs yet, -EINVAL when root is no
 *  taprio with that class, -ENOMEM. Pure. */
int launch_gated_txtime(const RootSpec *root, unsigned tc, int64_t now_ns, int64_t earliest_ns, uint64_t guard_ns,
                        int64_t *ret_ns);

/** The figures of every running monitor, ascending by queue, in *ret
 *  (valid until the next launch_monitors_sync() or free). Returns their
 *  number (0 and *ret NULL for m NULL). */
size_t launch_monitors_stats(const LaunchMonitors *m, const LaunchQueueStats **ret);

/** The stamps the monitor of queue asks for now (LAUNCH_STAMPS_NONE
 *  before its first round, or for no such monitor). */
LaunchStampChoice launch_monitors_stamps(const LaunchMonitors *m, uint32_t queue);

/** The configuration of the monitor of queue, or NULL. */
const LaunchMonitorConfig *launch_monitors_config(const LaunchMonitors *m, uint32_t queue);

/** Stop everything; accepts NULL; returns NULL. */
LaunchMonitors *launch_monitors_free(LaunchMonitors *m);

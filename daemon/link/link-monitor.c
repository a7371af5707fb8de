/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link's launch-time monitors (launch-monitor.h): which of its queues
 * are monitored, with what socket settings, follows from the schedule and
 * whether its tree is in place; link_update_monitors() makes the running
 * monitors match after every change of state or schedule.
 *
 * Under a taprio root the monitors read the gate schedule the kernel runs
 * at each round from the link's view of it (LinkRuntime.gates): taken from
 * the dump every qdisc notification brings (the drift check's), forgotten
 * by an apply that changed or failed, read with a dump of its own only
 * when a round finds none. A change made in place needs no new read when
 * its time comes: the view holds the pending schedule beside the running
 * one, and the kernel switches at its base time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launch-monitor.h"
#include "link-internal.h"
#include "log.h"
#include "nl-qdisc.h"
#include "qdisc-kind.h"
#include "qdisc-tree.h"
#include "txtime-map.h"

/* PHC - CLOCK_TAI from the link's last clock check, for hardware stamps. */
static int link_phc_offset(void *userdata, int64_t *ret_ns) {
        Link *l = userdata;
        const ClockStatus *st;

        if (!l->rt->clock)
                return -ENODATA;
        st = clock_check_status(l->rt->clock);
        if (!st->has_phc_offset)
                return -ENODATA;
        *ret_ns = st->phc_sys_offset_ns;
        return 0;
}

void link_forget_gates(Link *l) {
        if (!l->rt->gates)
                return;
        root_spec_done(l->rt->gates);
        l->rt->gates = mfree(l->rt->gates);
}

void link_take_gates(Link *l, const QDiscTree *t) {
        const RootSpec *r = &t->root_spec;

        link_forget_gates(l);
        if (!l->rt->monitors || !t->root_known || !root_gates(r))
                return;
        l->rt->gates = malloc(sizeof(RootSpec));
        if (!l->rt->gates)
                return;         /* the next round reads it again */
        if (root_spec_copy(l->rt->gates, r, true) < 0)
                link_forget_gates(l);
}

/* LaunchMonitorGatesFn: the link's view of the kernel's taprio root; a
 * dump when it has none. */
static int link_gates(void *userdata, const RootSpec **ret) {
        _cleanup_(qdisc_tree_done) QDiscTree t = {};
        Link *l = userdata;
        int r;

        if (!l->rt->gates) {
                r = nl_qdisc_dump(l->ctx->nl, l->ifindex, &t);
                if (r < 0)
                        return r;
                if (!t.root_known || !root_gates(&t.root_spec))
                        return -ENOENT;
                link_take_gates(l, &t);
                if (!l->rt->gates)
                        return -ENOMEM;
        }
        *ret = l->rt->gates;
        return 0;
}

/* The monitor of etf queue q: the socket settings OpenTxtimeSocket()
 * would hand out for it (txtime-map.h). Returns 0, or -errno with why
 * filled in. */
static int monitor_config(Link *l, const EtfSpec *q, LaunchMonitorConfig *ret, char *why) {
        TxtimeTarget t;
        TxtimeEtf etf;
        int r;

        r = txtime_target_resolve(&l->schedule->root, TXTIME_BY_QUEUE, q->queue, &t, why);
        if (r < 0)
                return r;
        r = txtime_class_etf(l->schedule, &t, &etf, why);
        if (r < 0)
                return r;
        *ret = (LaunchMonitorConfig) {
                .ifindex = l->ifindex,
                .queue = q->queue,
                .priority = t.priority,
                .clockid = etf.clockid,
                .deadline_mode = etf.deadline_mode,
                .delta_ns = etf.delta_ns,
                .interval_ms = q->monitor.interval_ms,
                .frames = q->monitor.frames,
                .gated = root_gates(&l->schedule->root),
                .tc = t.tc,
                .link_speed_mbps = l->rt->caps ? l->rt->facts.link_speed_mbps : 0,
                .tx_stamp_slots = l->rt->caps ? l->rt->caps->tx_stamp_slots : 0,
        };
        return 0;
}

void link_update_monitors(Link *l) {
        LaunchMonitorConfig cfgs[64];
        size_t n = 0;
        int r;

        /* Only over the declared tree as installed: not while it is
         * failed, removed, absent, or drifted (the etf may be gone). */
        if (l->ctx->event && !l->ctx->one_shot && l->schedule && l->ifindex > 0 && link_is_installed(l) &&
            !l->rt->drift)
                for (size_t i = 0; i < l->schedule->n_txqueues && n < ELEMENTSOF(cfgs); i++) {
                        const EtfSpec *q = &l->schedule->txqueues[i];
                        char why[TXTIME_WHY_MAX];

                        if (!q->monitor.enabled)   /* an etf queue's key (kinds/etf.c) */
                                continue;
                        /* the validator refuses what fails here */
                        if (monitor_config(l, q, &cfgs[n], why) < 0) {
                                log_link_debug(l->name, "queue %u: not monitored: %s", (unsigned) q->queue, why);
                                continue;
                        }
                        n++;
                }
        r = launch_monitors_sync(&l->rt->monitors, l->ctx->event, l->name, cfgs, n,
                                 &(LaunchMonitorHooks) { .phc = link_phc_offset, .gates = link_gates, .userdata = l });
        if (!l->rt->monitors)
                link_forget_gates(l);
        if (r < 0)
                log_link_warning_errno(l->name, r, "cannot update the launch monitors: %m");
}

size_t link_launch_stats(const Link *l, const LaunchQueueStats **ret) {
        return launch_monitors_stats(l->rt->monitors, ret);
}

const char *link_launch_stamps(const Link *l, uint32_t queue, const char **ret_why) {
        LaunchStampChoice c = launch_monitors_stamps(l->rt->monitors, queue);

        *ret_why = launch_stamps_why_to_string(c.why);
        return launch_stamps_to_string(c.stamps);
}

const LaunchMonitorConfig *link_launch_monitor_config(const Link *l, uint32_t queue) {
        return launch_monitors_config(l->rt->monitors, queue);
}

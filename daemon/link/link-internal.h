/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the link-*.c files share and nobody else uses. */
#pragma once

#include "clock-check.h"
#include "launch-monitor.h"
#include "link.h"
#include "mac-merge.h"
#include "nl-qdisc.h"
#include "nl-socket-guard.h"
#include "ptp-relock.h"

struct LinkRuntime {
        const LinkCaps *caps;           /* the last probe's result (shared with the cache), or NULL */
        DeviceFacts facts;
        ClockCheck *clock;
        ApplyReport last;               /* of the last successful apply */
        bool applied;
        /* The schedule whose tree is installed when it is not the link's
         * schedule: the previous one, kept when a new one replaced it and
         * has not been installed yet. Its root is still tbsd's to remove
         * (qdisc-owner.h), and when the new one is refused it is put back
         * (link_keep_previous()). NULL when the tree, if any, is the
         * schedule's (nearly always). */
        Schedule *previous;
        char *drift;                    /* the drift being reported (policy "report"), or NULL */
        char *base_reason;              /* StateReason as last set, without the kept note */
        sd_event_source *retry;         /* re-apply after a failure that may pass */
        unsigned retries;
        PtpRelock relock;               /* the apply reset the NIC: waiting for ptp4l's lock */
        sd_event_source *relock_timer;  /* the bound of that wait */
        LaunchMonitors *monitors;       /* the launch-time monitors (link-monitor.c), or NULL */
        RootSpec *gates;                /* with monitors: the kernel's taprio root as last dumped (both
                                         * schedules while a change is pending), or NULL: unknown */
        /* The MAC merge layer during an apply (link-mac-merge.c): what the
         * device had before it, and whether MM_SET changed it. */
        MacMergeState mm_before;
        bool mm_sent;
        /* The socket guard during an apply (link-socket-guard.c): what it
         * added, taken back when the tree's apply fails. */
        SocketGuardUndo guard_added;
        /* Whether the device has a MAC merge layer, learnt at the first
         * need (an apply with "mac_merge", Describe(), the metrics) and
         * forgotten with a new probe result or index. */
        enum { MM_LAYER_UNKNOWN, MM_LAYER_PRESENT, MM_LAYER_ABSENT } mm_layer;
};

/* The schedule's "mac_merge" around the engine's apply (link-mac-merge.c):
 * before it, read the device's MAC merge state (the snapshot) and set
 * what differs; a device without the layer is refused. Returns 0, or
 * -errno with the one line (without the interface's name, ending in
 * "; nothing changed") in *ret_line. Nothing is sent for a schedule
 * without "mac_merge". */
int link_mac_merge_prepare(Link *l, char **ret_line);
/* After the engine with its result r: a failed apply puts the snapshot
 * back (a failure to is added to report's rollback_error); a tree left
 * unchanged with the MAC merge layer changed counts as applied. Returns
 * the result. */
int link_mac_merge_finish(Link *l, int r, ApplyReport *report);
/* The drift check's part for the MAC merge layer (link-reconcile.c): for
 * a schedule with "mac_merge", whether the device's layer still has every
 * setting the file gives (MM_GET now). Returns 0 when it has them, when the
 * schedule has no "mac_merge" (nothing is sent) or the layer cannot be read
 * (not judged); 1 when someone changed them, with *ret_description (may be
 * NULL) as "mac_merge: tx_enabled false instead of true, ..."; or -ENOMEM. */
int link_mac_merge_drift(Link *l, char **ret_description);

/* The socket guard (daemon/qdisc/socket-guard.h) around the engine's
 * apply (link-socket-guard.c), on every managed interface (a socket of one
 * interface can name any other with IP_PKTINFO, so every managed
 * interface drops other interfaces' marks): before the tree, put in what
 * is missing (clsact, filters). Returns 0, or -errno with the one line
 * (ending in "; nothing changed") in *ret_line. */
int link_socket_guard_prepare(Link *l, char **ret_line);
/* After the engine with its result r: a failed apply takes back what the
 * prepare added (a failure to is added to report's rollback_error); a
 * tree left unchanged with the guard put back counts as applied. Returns
 * the result. */
int link_socket_guard_finish(Link *l, int r, ApplyReport *report);
/* The drift check's part for the guard: 0 when every filter is there (or
 * the filters cannot be read: not judged), 1 with *ret_description (may be
 * NULL) naming what is missing, or -ENOMEM. */
int link_socket_guard_drift(Link *l, char **ret_description);
/* Remove the guard with the tree (link_remove_qdiscs_from()); a failure is
 * logged. Returns 0 or -errno. */
int link_socket_guard_remove(Link *l, int ifindex);
/* The MAC merge layer's state and counters as Describe() shows them, read
 * now (MM_GET), or NULL where the device has none (the probe says so) or
 * the question fails. */
struct json_object *link_mac_merge_json(Link *l);
/* The same read for the metrics: 0 with *ret, or -errno (-ENODATA where
 * the device has no MAC merge layer). */
int link_mac_merge_read(Link *l, MacMergeState *ret);
/* Describe()'s capabilities (caps_to_json()) with "mac_merge" as the link
 * has learnt it, where the probe left it null. */
void link_mac_merge_note_caps(Link *l, struct json_object *caps);
/* Fills ret's MAC merge part (has_mac_merge false where there is none). */
struct MetricsLink;
void link_mac_merge_metrics(Link *l, struct MetricsLink *ret);

/* Start, stop or restart the link's launch-time monitors to match its
 * schedule and state (link-monitor.c): they run while the declared tree is
 * in place. Called after every state change and apply. */
void link_update_monitors(Link *l);
/* The monitors' view of the kernel's taprio root (link-monitor.c): taken
 * from a dump of the link (kept only while monitors run), or forgotten
 * after the tree may have changed (read again when a round needs it). */
void link_take_gates(Link *l, const QDiscTree *t);
void link_forget_gates(Link *l);

/* After an apply that reset the NIC (apply_resets_link()): the link stays
 * pending until the clock check finds the clock synced again, at most
 * TBS_PTP_RELOCK_TIMEOUT_USEC. */
void link_begin_ptp_relock(Link *l);
/* Stop waiting (the schedule is no longer installed). */
void link_end_ptp_relock(Link *l);

/* Report properties of l as changed (NULL-terminated names). */
void link_emit_changed(Link *l, const char *first, ...) __attribute__((sentinel));

/* link_set_state(), with also (NULL: none): another property that changed
 * with it, reported with State and StateReason. */
void link_set_state_also(Link *l, const char *also, LinkState state, const char *reason_fmt, ...)
        _printf_(4, 5);
/* configured or degraded, from drift and the clock; only for an installed
 * schedule. also as for link_set_state_also(). */
void link_update_installed_state_also(Link *l, const char *also);
static inline void link_update_installed_state(Link *l) {
        link_update_installed_state_also(l, NULL);
}

/* The clock as the link shows it (the check's status, or what stands in
 * for one); buf holds it when there is no check. */
/* The last apply's result for TX queue q, or NULL. */
const QueueApplyResult *link_last_result(Link *l, uint32_t queue);
/* Forget the previous schedule (LinkRuntime.previous). */
void link_forget_previous(Link *l);
/* The new schedule was refused (why: "PATH: REASON" or the kernel's
 * reason; refusal: "is refused", "was refused by the kernel") and the
 * tree of the previous one is still in place: the previous schedule goes
 * back in force, StateReason and a "failed" Event say so. Returns false
 * (nothing done) when there is no previous schedule or its tree is
 * not in place. */
bool link_keep_previous(Link *l, const char *refusal, const char *why);

/* The interface's index now, 0 when there is none. */
int link_lookup_ifindex(Link *l);
/* The roots tbsd may have installed on l (its schedule's, the previous
 * schedule's; NULL where there is none), for qdisc_root_owner(). */
void link_own_roots(Link *l, const RootSpec *ret[static 2]);
/* Set l->ifindex, telling the owner (on_ifindex_changed) when it changes. */
void link_set_ifindex(Link *l, int ifindex);

/* Start the retry timer (exponential back-off); whether one is pending. */
void link_schedule_retry(Link *l);
bool link_retry_pending(Link *l);

/* *ret_error = the formatted text, when ret_error is not NULL. */
void link_set_error(char **ret_error, const char *fmt, ...) _printf_(2, 3);

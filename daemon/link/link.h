/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Link is one interface tbsd manages: its schedule, capability probe
 * result, clock check, what is installed and its state.
 *
 * A Link knows neither the Manager nor the bus. What it works with (event
 * loop, netlink socket, capability cache, clock interval) comes in a
 * LinkContext, and every change it makes is reported through the
 * context's callbacks: the manager installs those for events, state and
 * statistics, the bus layer the one for properties (link-bus.c), tbsd
 * --once the one for apply outcomes. A unit test builds a Link on a
 * context of its own.
 *
 * The code is split by role: link.c (lifecycle, state), link-apply.c
 * (probe, apply, retry, remove), link-reconcile.c (after notifications:
 * reappearing links, drift), link-stats.c (statistics samples, rates),
 * link-describe.c (the Describe() document). */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "caps-cache.h"
#include "diag.h"
#include "launch-hist.h"
#include "schedule.h"

typedef struct ClockStatus ClockStatus;
typedef struct NlQdisc NlQdisc;
typedef struct QDiscTree QDiscTree;
typedef struct QDiscTreeSet QDiscTreeSet;
typedef struct ApplyReport ApplyReport;
typedef struct ApplyJob ApplyJob;
typedef struct LinkRuntime LinkRuntime;
typedef struct Link Link;

/* Per-second rates of one TX queue's qdisc between the last two samples. */
typedef struct QueueRates {
        double interval_s;
        double packets_per_second;
        double bytes_per_second;
        double drops_per_second;
        double deadline_misses_per_second;
        double invalid_per_second;
} QueueRates;

/* What a rate needs of one TX queue's qdisc in the previous sample (48
 * bytes where the InstalledQueue it comes from has 144). */
typedef struct QueueCounters {
        uint32_t queue;
        uint32_t handle;
        uint32_t kind_hash;             /* link_kind_hash() of the qdisc's kind */
        uint32_t drops;                 /* as QDiscStats: a rate wraps with the kernel's counter */
        uint64_t packets;
        uint64_t bytes;
        uint64_t deadline_misses;
        uint64_t invalid;
} QueueCounters;

/* A link's statistics (link-stats.c): the last sample the sampler gave it,
 * allocated at the first; of the one before it only the counters rates
 * need. Read it through link_last_sample() and link_queue_rates(). */
typedef struct LinkSamples {
        QDiscTree *sample;
        QueueCounters *prev;            /* owned, or in links_drop_samples()'s block when !prev_owned */
        size_t n_prev;
        bool prev_owned;
        uint64_t sample_usec, prev_usec;        /* CLOCK_MONOTONIC; 0: none */
        uint64_t sample_realtime_usec;
} LinkSamples;

typedef enum LinkState {
        LINK_STATE_PENDING,     /* known, not applied yet */
        LINK_STATE_CONFIGURED,  /* schedule installed, clock fine or not configured */
        LINK_STATE_DEGRADED,    /* installed, but the clock is not synced (or drift reported) */
        LINK_STATE_FAILED,      /* the schedule is invalid or could not be installed */
        LINK_STATE_ABSENT,      /* the interface does not exist */
        _LINK_STATE_MAX,
        _LINK_STATE_INVALID = -EINVAL,
} LinkState;

/* What links work with and whom they tell. Owned by whoever creates the
 * links (the Manager), shared by all of them, and must outlive them; the
 * callbacks may be changed at any time (the bus layer installs its own
 * after the links exist). Every callback may be NULL. */
typedef struct LinkContext {
        sd_event *event;                /* clock checks and retry timers; NULL when one_shot */
        NlQdisc *nl;                    /* qdisc dumps and changes */
        CapsCache *caps;                /* capability probe results, shared between links */
        const CapsSystemSocket *sock;   /* interface index lookups; NULL: if_nametoindex() */
        /** Interface index lookups instead of asking on sock (NULL: ask):
         *  the index of name, 0 when there is none. Called with userdata. */
        int (*ifindex_of)(const char *name, void *userdata);
        uint64_t clock_interval_usec;   /* period of the clock checks */
        const char *state_dir;          /* streams added over the bus (stream-state.h); NULL: none */
        bool one_shot;                  /* tbsd --once: no clock check, no retry, state
                                         * changes logged at debug (the caller prints) */
        bool socket_guard;              /* some schedule hands sockets to a group: the socket
                                         * guard goes on every managed interface (the Manager's) */

        /* The owner's callbacks (the Manager's), called with userdata. */
        void *userdata;
        /** An Event: kind as in the Manager's Event signal ("applied",
         *  "failed", "drift", ...), message one line, not yet escaped. */
        void (*on_event)(Link *l, const char *kind, const char *message, void *userdata);
        /** State or StateReason changed (the properties are reported too). */
        void (*on_state_changed)(Link *l, LinkState old_state, void *userdata);
        /** Someone reads the link's statistics: bring its sample up to date
         *  (link_last_sample()). Returns 1 with *ret_sampled_usec
         *  (CLOCK_MONOTONIC) when a sample of every link was taken now, 0
         *  when the kept one is recent enough, or -errno. */
        int (*on_statistics_read)(Link *l, uint64_t *ret_sampled_usec, void *userdata);
        /** l->ifindex changed (the owner's index of links by ifindex). */
        void (*on_ifindex_changed)(Link *l, void *userdata);

        /* The bus layer's (link-bus.c), called with bus_userdata. */
        void *bus_userdata;
        /** Properties of l changed: names is NULL-terminated (D-Bus names:
         *  "State", "StateReason", "Index", "ClockState", "Driver", ...). */
        void (*on_properties_changed)(Link *l, char **names, void *bus_userdata);

        /* tbsd --once's, called with applied_userdata. */
        void *applied_userdata;
        /** An apply ended: result as link_apply() returns it, error its
         *  reason on failure (NULL otherwise), report the engine's (NULL
         *  when nothing was sent to the engine: no such interface, a
         *  schedule that does not fit the device). */
        void (*on_applied)(Link *l, int result, const char *error, const ApplyReport *report,
                        void *applied_userdata);
} LinkContext;

/* What happened to a link since tbsd started (its metrics' counters). */
typedef struct LinkCounters {
        uint64_t reloads;            /* loads of the folder (start, reload) that declared or kept it */
        uint64_t applies;            /* applies that succeeded */
        uint64_t drift_repairs;      /* trees restored after a change outside tbsd */
        uint64_t apply_failures;     /* applies that failed (the link went failed) */
        uint64_t changes_refused;    /* documents for it refused over the bus before any load
                                      * (ApplySchedule(s): the checks; schedule-bus.c) */
} LinkCounters;

struct Link {
        const LinkContext *ctx;
        char *name;
        int ifindex;                 /* 0 while absent */
        LinkState state;
        char *state_reason;          /* never NULL after link_new() */

        char *schedule_file;         /* the file that declares this link */
        Schedule *schedule;          /* NULL when the file is invalid */
        char *kept_note;             /* the newest version of the file was invalid and the
                                      * schedule above stays in force: why (ends StateReason),
                                      * or NULL */

        LinkRuntime *rt;             /* probe, clock check, last apply result (link-internal.h) */
        LinkSamples stats;           /* statistics samples (link-stats.c) */
        LinkCounters counters;
        unsigned hold_changes;       /* > 0: properties changed are reported at link_release_changes() */
        uint32_t pending_changes;    /* which, while held (link.c's property table) */
        bool dirty;                  /* something changed: look again (manager_mark_dirty) */
        bool removed;                /* Remove() was called: do not re-install on drift */
};

const char *link_state_to_string(LinkState s);

/** Whether the link's schedule is in place: configured, degraded, or
 *  pending while it waits for PTP to lock again after an apply that reset
 *  the NIC (daemon/clock/ptp-relock.h). */
bool link_is_installed(const Link *l);
/** Takes the socket guard's clsact filters off l's interface (no schedule
 *  hands sockets to a group any more); logged on failure. */
int link_drop_socket_guard(Link *l);

/** Create a link working with ctx (which must outlive it). Registers it
 *  nowhere: the caller keeps it. Returns 0 or -ENOMEM. */
int link_new(const LinkContext *ctx, const char *name, Link **ret);
/** Free. Accepts NULL; returns NULL. */
Link *link_free(Link *l);

/** Set the state and reason; reports State/StateReason and the state
 *  change when they change. */
void link_set_state(Link *l, LinkState state, const char *reason_fmt, ...) _printf_(3, 4);

/** The newest version of the link's schedule file is invalid and the
 *  schedule it holds stays in force: note says so and why; it ends the
 *  StateReason (after "; ") until it is cleared (note NULL), whatever the
 *  state changes to meanwhile. */
void link_set_kept_note(Link *l, const char *note);

/** A version of the link's schedule file (file) was refused and the
 *  schedule the link holds stays in force: set the kept note (above) to
 *  "the new version of FILE REFUSAL (WHY); the previous version stays in
 *  force" (or, for another file, "FILE REFUSAL (WHY); the schedule of
 *  OTHER stays in force") and report a "failed" Event with it. refusal is
 *  a verb phrase ("is invalid", "is refused"). Returns 0 or -ENOMEM. */
int link_note_refused(Link *l, const char *file, const char *refusal, const char *why);

/** Hold back the reports of changed properties until the matching
 *  link_release_changes(), which reports all of them in one call of
 *  on_properties_changed (one PropertiesChanged signal): an apply changes
 *  Index, Driver, LaunchTimeQueues, PhcIndex, State and StateReason one
 *  after the other. Calls nest. */
void link_hold_changes(Link *l);
void link_release_changes(Link *l);

/** Take a newly loaded schedule (or, with s NULL, the errors that made its
 *  file invalid). Does not apply. Returns 1 when it differs from the one
 *  held, 0 when not, or -ENOMEM. */
int link_set_schedule(Link *l, const char *file, Schedule *s, const DiagList *errors);

/** Probe, apply the schedule and start the clock check. Returns 0 (applied or
 *  unchanged) or -errno; the state and reason say what happened. When
 *  ret_error is non-NULL it receives the reason on failure. */
int link_apply(Link *l, char **ret_error);

/** link_apply() with every interface's tree already dumped (one
 *  nl_qdisc_dump_all() for a whole batch of links; NULL: dump now). The set
 *  must have been dumped after the last change to this link. */
int link_apply_from(Link *l, const QDiscTreeSet *set, char **ret_error);

/** link_apply_from() for n links at once: each is probed and checked
 *  against its device, then the requests of all of them go out together
 *  (nl_qdisc_apply_many(): few sends, each interface judged and rolled
 *  back on its own), then each link takes its outcome as link_apply_from()
 *  would. The links must differ. set as for link_apply_from() (NULL: each
 *  link is applied on its own). ret_results (may be NULL) gets each
 *  link's result, ret_errors (may be NULL; n entries) each link's reason
 *  on failure, else NULL (free() each). Returns how many were applied
 *  without error, or -ENOMEM when nothing could be tried. */
int links_apply(Link **links, size_t n, const QDiscTreeSet *set, int *ret_results, char **ret_errors);

/** Look at the link after a change notification: apply when it is new or
 *  came back, check the installed tree for drift when it is configured
 *  (restore it or report it, by the schedule's drift policy). set holds
 *  one nl_qdisc_dump_all() of every interface, taken for this round (NULL
 *  when the dump failed: then only (re)appearing links are applied). */
void link_reconcile(Link *l, const QDiscTreeSet *set);

/** The interface is gone (RTM_DELLINK): state absent until it returns. */
void link_vanished(Link *l);

/** Remove tbsd's qdiscs (the interface gets its default root back) and
 *  leave the link so until Apply() or a reload. Only a root that is tbsd's
 *  (qdisc-owner.h: the schedule's root, or the previous schedule's while a
 *  new one is not installed) is deleted. Returns 1 when a root was
 *  deleted, 0 when the default root was in place, -EEXIST when the root is
 *  not tbsd's and stays (the link is set aside all the same; a "foreign"
 *  Event and *ret_error say which root and why), or another -errno (the
 *  link is unchanged). *ret_error, when not NULL, gets the reason on
 *  failure (free() it). */
int link_remove_qdiscs(Link *l, char **ret_error);
/** link_remove_qdiscs() judging the root from set, a dump of every
 *  interface taken for several removals (NULL: dump now). */
int link_remove_qdiscs_from(Link *l, const QDiscTreeSet *set, char **ret_error);

/** The full status document (Describe(), `tbsctl status --json`). */
int link_describe(Link *l, struct json_object **ret);

/** The same document built from a tree already dumped (NULL: dump now). */
int link_describe_tree(Link *l, const QDiscTree *tree, struct json_object **ret);

/** Keep a statistics sample (takes *tree over; it is zeroed): a tree from
 *  qdisc_tree_set_take_slim(), without option payloads or handle list,
 *  which a sample does not need. The previous sample is kept for rates. */
void link_take_sample(Link *l, QDiscTree *tree, uint64_t mono_usec, uint64_t realtime_usec);

/** Keep a sample taken on demand, outside a series (sampling off): it
 *  replaces the last one and there is no rate across it. Takes *tree
 *  over as link_take_sample() does. */
void link_take_single_sample(Link *l, QDiscTree *tree, uint64_t mono_usec, uint64_t realtime_usec);

/** Free the latest sample of links[0..n), keeping only its counters as the
 *  previous sample: the first rate after the next link_take_sample() spans
 *  the time between the two. The counters of all go into a new *store,
 *  which replaces (and frees) the one before; the caller frees the last
 *  (free()) after the links. link_last_sample() is NULL until the next sample. */
void links_drop_samples(Link **links, size_t n_links, QueueCounters **store);
/** The latest sample, or NULL before the first (or after a drop). */
const QDiscTree *link_last_sample(Link *l, uint64_t *ret_realtime_usec);
/** The latest sample when it was taken at mono_usec (CLOCK_MONOTONIC, as
 *  given to link_take_sample()), else NULL. */
const QDiscTree *link_sample_taken_at(Link *l, uint64_t mono_usec);
/** Rates of TX queue q over the last sampling interval; -ENODATA when there
 *  are not two samples of the same qdisc yet. */
int link_queue_rates(Link *l, uint32_t queue, QueueRates *ret);
/** Someone reads the link's statistics: asks the context's sampler
 *  (on_statistics_read) to bring the sample up to date. Returns the newest
 *  sample when it was taken just now (it is then also the freshest tree of
 *  the interface), else NULL; the kept sample is link_last_sample(). */
const QDiscTree *link_statistics_read(Link *l);
/** FNV-1a of a qdisc kind (QueueCounters.kind_hash). */
uint32_t link_kind_hash(const char *kind);

/** The TX queues of the link's device as last probed (caps-probe.h), 0
 *  when unknown (not probed, absent). */
unsigned link_tx_queues(const Link *l);

/** What an application must set on its socket for TX queue q: SO_PRIORITY,
 *  the SO_TXTIME clock and deadline flag, etf delta and offload. -ENOENT
 *  when no etf is declared on q, -ENODATA when no priority maps to it. A
 *  root without classes (a single etf or cbs) has queue 0 only (-ERANGE
 *  for another), reached by priority 0 as by any. */
int link_txtime_params(Link *l, uint32_t queue, uint32_t *ret_priority, int32_t *ret_clockid,
                       bool *ret_deadline, int32_t *ret_delta, bool *ret_offload);

/** The launch-time figures of the link's monitored queues (the schedule's
 *  "monitor" keys, while the tree is installed), ascending by queue, in
 *  *ret: valid until the link's next state change or apply. Returns their
 *  number (0, *ret NULL, when no queue is monitored). */
size_t link_launch_stats(const Link *l, const LaunchQueueStats **ret);

/** The transmit stamps the monitor of queue asks for now, "software" or
 *  "hardware", with why (one sentence) in *ret_why; NULL (and *ret_why
 *  NULL) before its first round or when queue is not monitored now. */
const char *link_launch_stamps(const Link *l, uint32_t queue, const char **ret_why);

typedef struct LaunchMonitorConfig LaunchMonitorConfig;
/** The running monitor's settings of queue (interval, frames, the probe
 *  socket's), or NULL when queue is not monitored now. */
const LaunchMonitorConfig *link_launch_monitor_config(const Link *l, uint32_t queue);

/** The clock as the link shows it (Describe()'s "clock"): the running
 *  check's status, or one filled into *buf that says why there is none. */
const ClockStatus *link_clock_status(Link *l, ClockStatus *buf);
/** Name of the clock state ("not-configured" when there is no check). */
const char *link_clock_state(Link *l);
/** The capability probe's driver ("" before probing), launch-time queues
 *  (bitmask) and PHC index (-1 when none). */
const char *link_driver(Link *l);
/** The link speed the capability probe found in Mb/s, 0 before the first
 *  probe or when unknown. */
uint32_t link_probed_speed_mbps(Link *l);
uint64_t link_launch_time_mask(Link *l);
int link_phc_index(Link *l);
/** The last capability probe's result, or NULL before the first. */
const LinkCaps *link_caps(Link *l);
/** Why the link's schedule is not what the kernel has now (no valid
 *  schedule, interface absent, not installed, drifted), as a phrase for a
 *  message; NULL when the declared tree is in place (configured, or
 *  degraded by the clock alone). */
const char *link_tree_missing(Link *l);

/** Report an Event of l (printf format). */
void link_emit_event(Link *l, const char *kind, const char *fmt, ...) _printf_(3, 4);
/** Compute the gate list of the link's schedule from its streams, if it
 *  has streams, with the file's link speed or the probed one. */
void link_resolve_streams(Link *l);

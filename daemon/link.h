/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Link is one interface tbsd manages: its schedule, capability probe
 * result, clock check, what is installed and its state. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "diag.h"
#include "schedule.h"

typedef struct ClockStatus ClockStatus;
typedef struct Manager Manager;
typedef struct QDiscTree QDiscTree;
typedef struct QDiscTreeSet QDiscTreeSet;

/* Per-second rates of one TX queue's qdisc between the last two samples. */
typedef struct QueueRates {
        double interval_s;
        double packets_per_second;
        double bytes_per_second;
        double drops_per_second;
        double deadline_misses_per_second;
        double invalid_per_second;
} QueueRates;
typedef struct LinkRuntime LinkRuntime;

typedef enum LinkState {
        LINK_STATE_PENDING,     /* known, not applied yet */
        LINK_STATE_CONFIGURED,  /* schedule installed, clock fine or not configured */
        LINK_STATE_DEGRADED,    /* installed, but the clock is not synced (or drift reported) */
        LINK_STATE_FAILED,      /* the schedule is invalid or could not be installed */
        LINK_STATE_ABSENT,      /* the interface does not exist */
        _LINK_STATE_MAX,
        _LINK_STATE_INVALID = -EINVAL,
} LinkState;

typedef struct Link {
        Manager *manager;
        char *name;
        char *object_path;
        int ifindex;                 /* 0 while absent */
        LinkState state;
        char *state_reason;          /* never NULL after link_new() */

        char *schedule_file;         /* the file that declares this link */
        Schedule *schedule;          /* NULL when the file is invalid */
        char *kept_note;             /* the newest version of the file was invalid and the
                                      * schedule above stays in force: why (ends StateReason),
                                      * or NULL */

        LinkRuntime *rt;             /* probe, clock check, last apply result */
        bool dirty;                  /* something changed: look again (manager_mark_dirty) */
        bool removed;                /* Remove() was called: do not re-install on drift */
} Link;

const char *link_state_to_string(LinkState s);

/** Create a link and register it with the manager (and on the bus). */
int link_new(Manager *m, const char *name, Link **ret);
/** Unregister and free. Accepts NULL. */
void link_free(Link *l);

/** Set the state and reason; emits PropertiesChanged and an Event when they change. */
void link_set_state(Link *l, LinkState state, const char *reason_fmt, ...) _printf_(3, 4);

/** The newest version of the link's schedule file is invalid and the
 *  schedule it holds stays in force: note says so and why; it ends the
 *  StateReason (after "; ") until it is cleared (note NULL), whatever the
 *  state changes to meanwhile. */
void link_set_kept_note(Link *l, const char *note);

/** Take a newly loaded schedule (or, with s NULL, the errors that made its
 *  file invalid). Does not apply. */
int link_set_schedule(Link *l, const char *file, Schedule *s, const DiagList *errors);

/** Probe, apply the schedule and start the clock check. Returns 0 (applied or
 *  unchanged) or -errno; the state and reason say what happened. When
 *  ret_error is non-NULL it receives the reason on failure. */
int link_apply(Link *l, char **ret_error);

/** Look at the link after a change notification: apply when it is new or
 *  came back, check the installed tree for drift when it is configured
 *  (restore it or report it, by the schedule's drift policy). set holds
 *  one nl_qdisc_dump_all() of every interface, taken for this round (NULL
 *  when the dump failed: then only (re)appearing links are applied). */
void link_reconcile(Link *l, const QDiscTreeSet *set);

/** The interface is gone (RTM_DELLINK): state absent until it returns. */
void link_vanished(Link *l);

/** link_apply() with every interface's tree already dumped (one
 *  nl_qdisc_dump_all() for a whole batch of links; NULL: dump now). The set
 *  must have been dumped after the last change to this link. */
int link_apply_from(Link *l, const QDiscTreeSet *set, char **ret_error);

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

/** The full status document (Describe(), `tbsctl status --json`). */
int link_describe(Link *l, struct json_object **ret);

/** The same document built from a tree already dumped (NULL: dump now). */
int link_describe_tree(Link *l, const QDiscTree *tree, struct json_object **ret);

/** Keep a statistics sample (takes *tree over; it is zeroed): a tree from
 *  qdisc_tree_set_take_slim(), without option payloads or handle list,
 *  which a sample does not need. The previous sample is kept for rates. */
void link_take_sample(Link *l, QDiscTree *tree, uint64_t mono_usec, uint64_t realtime_usec);
/* What a rate needs of one TX queue's qdisc in the previous sample. */
typedef struct QueueCounters QueueCounters;

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

/** What an application must set on its socket for TX queue q: SO_PRIORITY,
 *  the SO_TXTIME clock and deadline flag, etf delta and offload. -ENOENT
 *  when no etf is declared on q, -ENODATA when no priority maps to it. */
int link_txtime_params(Link *l, uint32_t queue, uint32_t *ret_priority, int32_t *ret_clockid,
                       bool *ret_deadline, uint32_t *ret_delta, bool *ret_offload);

/** The clock as the link shows it (Describe()'s "clock"): the running
 *  check's status, or one filled into *buf that says why there is none. */
const ClockStatus *link_clock_status(Link *l, ClockStatus *buf);
/** Name of the clock state ("not-configured" when there is no check). */
const char *link_clock_state(Link *l);
/** The capability probe's driver ("" before probing), launch-time queues
 *  (bitmask) and PHC index (-1 when none). */
const char *link_driver(Link *l);
uint64_t link_launch_time_mask(Link *l);
int link_phc_index(Link *l);

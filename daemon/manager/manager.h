/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Manager owns the event loop, the netlink socket, the capability cache
 * and the links; it brings the links in line with the schedules folder
 * (manager-sync.c) and samples their statistics (manager-stats.c). It does
 * not know the bus: the bus layer (manager-bus.c, link-bus.c) installs an
 * observer and the links' property callback. tbsd --once is a Manager in
 * one-shot mode. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caps-cache.h"
#include "cpu-budget.h"
#include "link.h"
#include "nl-qdisc.h"

/* Without a metrics file the statistics sampler stops this many sampling
 * intervals after the last bus read of statistics. */
#define MANAGER_STATS_LINGER_INTERVALS 3

typedef struct Manager Manager;

typedef struct ManagerConfig {
        const char *config_dir;
        const char *admin_group;        /* group whose members may call privileged methods */
        const char *schedule_group;     /* group whose members may also call ApplySchedule,
                                         * RemoveSchedule and GetSchedule (schedule-bus.h); NULL: none */
        uint32_t schedule_group_may;    /* the schedule keys that grant rights (lib/schedule-rights.h)
                                         * the schedule group may set: bits 1 << ScheduleRight */
        uint64_t clock_interval_usec;   /* period of the clock checks */
        uint64_t stats_interval_usec;   /* statistics sampling period while sampling; 0: never
                                         * sample, every read dumps */
        const char *metrics_file;       /* Prometheus text file written on every sample, or NULL */
        const char *state_dir;          /* where streams added over the bus are kept; NULL: nowhere */
        bool one_shot;                  /* tbsd --once: load, apply and stop; no event loop,
                                         * signals, link watch, sampler or clock checks */
} ManagerConfig;

/* What a layer above the manager is told (the bus, manager-bus.c, installs
 * it). Every member may be NULL. */
typedef struct ManagerObserver {
        void (*link_added)(Manager *m, Link *l);
        void (*link_removed)(Manager *m, Link *l);
        /** An Event (link "*" for the manager itself), message escaped. */
        void (*event)(Manager *m, const char *link, const char *kind, const char *message);
} ManagerObserver;

struct Manager {
        sd_event *event;                /* NULL when one_shot */
        sd_bus *bus;                    /* set by the bus layer (manager_connect_bus()), or NULL */
        struct BusQueue *bus_queue;     /* the bus layer's signals, sent when the loop is idle */
        const ManagerObserver *observer;
        bool one_shot;
        bool socket_guard_known;        /* link_ctx.socket_guard decided by a load (at the daemon's start
                                         * not: guards an earlier run left are taken off unless wanted) */
        char *config_dir;
        char *admin_group;              /* may call privileged methods; NULL: root only */
        char *schedule_group;           /* may call the schedule methods too; NULL: none */
        uint32_t schedule_group_may;    /* ManagerConfig's */
        struct RefusalLog *refusals;    /* refused privileged calls, logged per caller with a limit */
        CpuBudget validate_budget;      /* CPU time of untrusted callers' Validate() (manager-bus.c) */
        uint64_t clock_interval_usec;
        NlQdisc *nl;                    /* netlink socket for qdisc changes and dumps */
        CapsCache *caps;                /* capability probe results by ifindex */
        CapsSystemSocket probe_sock;    /* the probes' ioctls and index lookups go through it */
        CapsIO probe_io;                /* the probes' system calls, on probe_sock */
        bool probe_sock_open;           /* false in a Manager not made by manager_new() */
        DeviceFacts load_facts;         /* manager_facts_for()'s answer */
        LinkContext link_ctx;           /* what every link works with and reports to */
        struct LinkWatch *watch;        /* rtnetlink link and qdisc notifications */
        bool names_current;             /* every link notification is read: the capability cache's
                                         * name -> index is the kernel's (manager_sync_dir()) */
        uint64_t stats_interval_usec;
        char *metrics_file;
        int metrics_file_error;         /* -errno of the last write, 0 when it worked (log on change) */
        sd_event_source *stats_timer;   /* periodic with a metrics file, else only while read */
        uint64_t stats_sampled_usec;    /* CLOCK_MONOTONIC of the newest sample; 0: none */
        uint64_t stats_read_usec;       /* CLOCK_MONOTONIC of the last bus read of statistics */
        QueueCounters *kept_counters;   /* of the links since sampling last paused, one block */
        sd_event_source *reconcile;     /* deferred look at links marked dirty */
        struct ScheduleDirStamps *dir_stamps;  /* versions of the folder's files as last read */
        struct ScheduleStoreCache *store_cache; /* the state folder's documents as ListSchedules() and
                                                 * ApplySchedules() last read them (schedule-store.h) */
        uint64_t store_generation;      /* changes at every load (any caller's apply or removal, a reload
                                         * of the folders), so at every change of the kept documents;
                                         * starts at a random value, so a restarted tbsd's is not an old
                                         * one: ListSchedulesGeneration(), ApplySchedulesIfGeneration() */
        int8_t last_reload_ok;          /* the last load of the folder (start or reload): 1 every file
                                         * read, 0 with errors, -1 none yet */
        uint64_t last_reload_success_usec;  /* CLOCK_REALTIME of the last load without errors; 0: none */

        Link **links;                   /* in the order they were made */
        size_t n_links;
        struct NameIndex *links_by_name;  /* name -> link, made with the first link */
        struct NameIndex *links_by_ifindex;  /* ifindex -> the first link with it, rebuilt
                                              * when stale (manager_find_link_by_ifindex()) */
        bool links_by_ifindex_stale;
};

/** Create the manager: netlink socket, capability cache, and unless
 *  config->one_shot the event loop, signal handlers (SIGTERM/SIGINT exit,
 *  SIGHUP reloads), link watch and statistics sampler. The bus is the
 *  caller's (manager_connect_bus(), manager-bus.h). */
int manager_new(const ManagerConfig *config, Manager **ret);
void manager_free(Manager *m);

/** The index of the interface called name, 0 when there is none: one
 *  RTM_GETLINK (caps_system_ifindex()), so that a name a caller gives never
 *  reaches the kernel's module loader. */
int manager_ifindex(Manager *m, const char *name);

/** Load the configuration folder and apply every schedule. */
int manager_start(Manager *m);
/** Run the event loop until asked to exit. Returns 0 or -errno. */
int manager_run(Manager *m);

/** Re-read the folder: apply new and changed schedules, remove tbsd's
 *  qdiscs from interfaces whose file is gone (unlinked), leave interfaces
 *  whose new file is invalid for any reason exactly as they were. Returns
 *  0, or -EINVAL when some file was invalid (ret_error then has a line per
 *  invalid file), or -EPERM when the folder is refused (ret_error says why). */
int manager_reload(Manager *m, char **ret_error);

/* One qdisc dump shared by every link a pass looks at, taken when the
 * first of them needs it (a pass with nothing to do dumps nothing). With
 * links_only, only the trees of the interfaces the Manager has links on
 * are kept: a pass over those links, on a machine with many more
 * interfaces, neither keeps nor parses the others' (a link whose index
 * changed after the dump finds no tree and is dumped on its own). */
typedef struct SharedDump {
        QDiscTreeSet set;
        bool links_only;
        bool dumped, ok;
} SharedDump;

void shared_dump_done(SharedDump *d);
/** The trees of every interface, dumped at the first call, or NULL when
 *  the dump failed (callers then dump per link). */
const QDiscTreeSet *shared_dump_get(Manager *m, SharedDump *d);

struct ScheduleDir;
/** Load the configuration folder (files unchanged since the last load are
 *  not read again). Returns 0, or -errno, logged; for a refused folder
 *  (-EPERM) *ret_error (when not NULL) says why. */
int manager_load_dir(Manager *m, struct ScheduleDir *ret, char **ret_error);

/** Bring the links in line with a loaded folder: apply new and changed
 *  schedules; a file that cannot be taken for any reason keeps the link
 *  its path (or interface) declared last time exactly as it is, with a
 *  StateReason and an Event saying why; only a link no file keeps any more
 *  (its file unlinked, or naming another interface now) loses tbsd's
 *  qdiscs and is forgotten. Returns 0, -EINVAL when some file was invalid
 *  (*ret_error, when not NULL: a line per invalid file), or -ENOMEM. */
int manager_sync_dir(Manager *m, struct ScheduleDir *dir, char **ret_error);

/** schedule_dir_load()'s facts_for (userdata: the Manager): the facts of
 *  the interface's probe through the manager's capability cache, NULL when
 *  there is no such interface or the probe failed. Valid until the next
 *  call. */
const DeviceFacts *manager_facts_for(const char *ifname, void *userdata);

/** The link called name, or NULL. */
Link *manager_find_link(Manager *m, const char *name);
/** The first link (in the order they were made) whose index is ifindex,
 *  or NULL. */
Link *manager_find_link_by_ifindex(Manager *m, int ifindex);
/** A new link of m (working with m->link_ctx), announced to the observer. */
int manager_new_link(Manager *m, const char *name, Link **ret);
/** Forget and free l, announced to the observer. */
void manager_free_link(Manager *m, Link *l);

/** Set up the statistics sampler (a timer, off until the first read
 *  unless there is a metrics file; none with --stats-interval 0). */
int manager_stats_setup(Manager *m);

/** Take a statistics sample of every link (one dump for all of them) and
 *  write the metrics file when one is configured. Returns 0 or -errno. */
int manager_sample_stats(Manager *m);

/** A bus client reads the statistics of l (the Statistics property,
 *  Describe(); the links' statistics_read callback): take a fresh sample
 *  first when the newest one is older than the sampling interval or l has
 *  none, and keep the sampler running for MANAGER_STATS_LINGER_INTERVALS
 *  intervals after this read (without a metrics file nobody else consumes
 *  the samples, so the sampler stops then). With sampling off
 *  (--stats-interval 0) every read takes a sample of l alone, without
 *  rates. Returns 1 and *ret_sampled_usec (the sample's CLOCK_MONOTONIC
 *  time) when it took a sample, 0 when the newest one is recent enough, or
 *  -errno when the dump failed. */
int manager_stats_read(Manager *m, Link *l, uint64_t *ret_sampled_usec);

/** Hand the heap's free pages back to the kernel (after a burst of work). */
void manager_release_free_memory(void);

/** Look at l again soon (coalesced): re-apply when it (re)appeared, check
 *  for drift when it is configured. */
void manager_mark_dirty(Manager *m, Link *l);

/** Broadcast the Manager's Event(link, kind, message) signal and log it. */
void manager_emit_event(Manager *m, const char *link, const char *kind, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/** Tell systemd our one-line status ("3 links configured, 1 degraded"). */
void manager_notify_status(Manager *m);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Manager owns the event loop, the bus connection and the links. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "caps-cache.h"
#include "link.h"
#include "nl-qdisc.h"

/* Without a metrics file the statistics sampler stops this many sampling
 * intervals after the last bus read of statistics. */
#define MANAGER_STATS_LINGER_INTERVALS 3

typedef struct ManagerConfig {
        const char *config_dir;
        const char *admin_group;        /* group whose members may call privileged methods */
        uint64_t clock_interval_usec;   /* period of the clock checks */
        bool use_bus;                   /* false: no D-Bus (tests, --once style runs) */
        uint64_t stats_interval_usec;   /* statistics sampling period while sampling; 0: never
                                         * sample, every read dumps */
        const char *metrics_file;       /* Prometheus text file written on every sample, or NULL */
} ManagerConfig;

struct Manager {
        sd_event *event;
        sd_bus *bus;
        char *config_dir;
        char *admin_group;              /* may call privileged methods; NULL: root only */
        struct RefusalLog *refusals;    /* refused privileged calls, logged per caller with a limit */
        uint64_t clock_interval_usec;
        NlQdisc *nl;                    /* netlink socket for qdisc changes and dumps */
        CapsCache *caps;                /* capability probe results by ifindex */
        CapsSystemSocket probe_sock;    /* the probes' ioctls and index lookups go through it */
        CapsIO probe_io;                /* the probes' system calls, on probe_sock */
        bool probe_sock_open;           /* false in a Manager not made by manager_new() */
        struct LinkWatch *watch;        /* rtnetlink link and qdisc notifications */
        uint64_t stats_interval_usec;
        char *metrics_file;
        int metrics_file_error;         /* -errno of the last write, 0 when it worked (log on change) */
        sd_event_source *stats_timer;   /* periodic with a metrics file, else only while read */
        uint64_t stats_sampled_usec;    /* CLOCK_MONOTONIC of the newest sample; 0: none */
        uint64_t stats_read_usec;       /* CLOCK_MONOTONIC of the last bus read of statistics */
        QueueCounters *kept_counters;   /* of the links since sampling last paused, one block */
        sd_event_source *reconcile;     /* deferred look at links marked dirty */
        struct ScheduleDirStamps *dir_stamps;  /* versions of the folder's files as last read */

        Link **links;
        size_t n_links;
};

/** Create the manager: event loop, signal handlers (SIGTERM/SIGINT exit,
 *  SIGHUP reloads), and the bus connection with its objects. */
int manager_new(const ManagerConfig *config, Manager **ret);
void manager_free(Manager *m);

/** The index of the interface called name, 0 when there is none. Asks on
 *  the manager's socket: if_nametoindex() opens and closes one per call. */
int manager_ifindex(Manager *m, const char *name);

/** The whole daemon: create, load and apply, serve until SIGTERM, tear down.
 *  Returns 0 on a clean exit or -errno. */
int manager_main(const ManagerConfig *config);

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
 * first of them needs it (a pass with nothing to do dumps nothing). */
typedef struct SharedDump {
        QDiscTreeSet set;
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

Link *manager_find_link(Manager *m, const char *name);
int manager_add_link(Manager *m, Link *l);
void manager_drop_link(Manager *m, Link *l);

/** Take a statistics sample of every link (one dump for all of them) and
 *  write the metrics file when one is configured. Returns 0 or -errno. */
int manager_sample_stats(Manager *m);

/** A bus client reads statistics (the Statistics property, Describe()):
 *  take a fresh sample first when the newest one is older than the
 *  sampling interval, and keep the sampler running for
 *  MANAGER_STATS_LINGER_INTERVALS intervals after this read (without a
 *  metrics file nobody else consumes the samples, so the sampler stops
 *  then). Returns 1 when it took a sample, 0 when the newest one is recent
 *  enough or sampling is off (--stats-interval 0), or -errno when the dump
 *  failed. */
int manager_stats_read(Manager *m);

/** Look at l again soon (coalesced): re-apply when it (re)appeared, check
 *  for drift when it is configured. */
void manager_mark_dirty(Manager *m, Link *l);

/** Broadcast the Manager's Event(link, kind, message) signal and log it. */
void manager_emit_event(Manager *m, const char *link, const char *kind, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/** Tell systemd our one-line status ("3 links configured, 1 degraded"). */
void manager_notify_status(Manager *m);

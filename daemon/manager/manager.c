/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <systemd/sd-daemon.h>

#include "link-watch.h"
#include "refusal-log.h"
#include "log.h"
#include "bus-queue.h"
#include "manager.h"
#include "name-index.h"
#include "schedule-dir.h"
#include "schedule-store.h"
#include "sd-cleanup.h"
#include "utf8.h"
#include "time-util.h"

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        log_info("received %s, exiting", strsignal((int) si->ssi_signo));
        (void) sd_notify(false, "STOPPING=1");
        return sd_event_exit(m->event, 0);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        _cleanup_free_ char *error = NULL;
        Manager *m = userdata;

        log_info("received SIGHUP, reloading %s", m->config_dir);
        (void) manager_reload(m, &error);
        return 0;
}

/* Coalesce a burst of notifications (a tree install sends one per qdisc)
 * into one look per link. Short, so a change is acted on well within 1 s. */
#define RECONCILE_DELAY_USEC (20 * 1000ULL)

static int on_reconcile(sd_event_source *s, uint64_t usec, void *userdata) {
        _cleanup_(shared_dump_done) SharedDump dump = {};
        Manager *m = userdata;

        /* One dump serves every dirty link. link_reconcile() may mark links
         * dirty again (our own changes notify us too); those get the next
         * round. */
        for (size_t i = 0; i < m->n_links; i++) {
                Link *l = m->links[i];

                if (!l->dirty)
                        continue;
                l->dirty = false;
                link_reconcile(l, shared_dump_get(m, &dump));
        }
        manager_notify_status(m);
        return 0;
}

void manager_mark_dirty(Manager *m, Link *l) {
        uint64_t now;
        int r;

        if (l)
                l->dirty = true;
        else
                for (size_t i = 0; i < m->n_links; i++)
                        m->links[i]->dirty = true;

        if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        if (m->reconcile) {
                int enabled = SD_EVENT_OFF;

                (void) sd_event_source_get_enabled(m->reconcile, &enabled);
                if (enabled != SD_EVENT_OFF)
                        return; /* already due */
                (void) sd_event_source_set_time(m->reconcile, now + RECONCILE_DELAY_USEC);
                (void) sd_event_source_set_enabled(m->reconcile, SD_EVENT_ONESHOT);
                return;
        }
        r = sd_event_add_time(m->event, &m->reconcile, CLOCK_MONOTONIC, now + RECONCILE_DELAY_USEC, 0,
                              on_reconcile, m);
        if (r < 0)
                log_warning_errno(r, "cannot schedule a reconcile: %m");
}

/* Index every link with an index, the first in order winning (put from
 * the last). */
static int links_by_ifindex_build(Manager *m) {
        int r;

        if (!m->links_by_ifindex) {
                r = name_index_new(true, &m->links_by_ifindex);
                if (r < 0)
                        return r;
        }
        name_index_clear(m->links_by_ifindex);
        for (size_t i = m->n_links; i > 0; i--)
                if (m->links[i - 1]->ifindex > 0) {
                        r = name_index_put(m->links_by_ifindex, NULL, m->links[i - 1]->ifindex, m->links[i - 1]);
                        if (r < 0)
                                return r;
                }
        m->links_by_ifindex_stale = false;
        return 0;
}

Link *manager_find_link_by_ifindex(Manager *m, int ifindex) {
        /* A notification burst (every qdisc of an apply notifies) asks
         * many times between two changes of the links' indexes. */
        if (ifindex > 0 && (m->links_by_ifindex_stale || !m->links_by_ifindex) &&
            links_by_ifindex_build(m) < 0)
                m->links_by_ifindex_stale = true;
        if (ifindex > 0 && !m->links_by_ifindex_stale)
                return name_index_get(m->links_by_ifindex, NULL, ifindex);
        for (size_t i = 0; i < m->n_links; i++)
                if (m->links[i]->ifindex == ifindex)
                        return m->links[i];
        return NULL;
}

static void on_link_ifindex_changed(Link *l, void *userdata) {
        Manager *m = userdata;

        m->links_by_ifindex_stale = true;
}

static void on_watch_event(const LinkWatchEvent *ev, void *userdata) {
        Manager *m = userdata;
        Link *l;

        switch (ev->kind) {
        case LINK_WATCH_LINK_NEW:
                (void) caps_cache_invalidate(m->caps, ev->ifindex);
                /* A configured name appeared, or an index we manage changed
                 * (renamed away, queues changed): look at both. */
                if (ev->ifname[0] && (l = manager_find_link(m, ev->ifname)) && l->ifindex != ev->ifindex)
                        manager_mark_dirty(m, l);
                l = manager_find_link_by_ifindex(m, ev->ifindex);
                if (l && strcmp(l->name, ev->ifname) != 0)
                        manager_mark_dirty(m, l);
                break;
        case LINK_WATCH_LINK_DEL:
                (void) caps_cache_invalidate(m->caps, ev->ifindex);
                l = manager_find_link_by_ifindex(m, ev->ifindex);
                if (l)
                        link_vanished(l);
                break;
        case LINK_WATCH_QDISC:
                l = manager_find_link_by_ifindex(m, ev->ifindex);
                if (l)
                        manager_mark_dirty(m, l);
                break;
        case LINK_WATCH_OVERRUN:
                (void) caps_cache_invalidate(m->caps, 0);
                manager_mark_dirty(m, NULL);
                break;
        default:
                break;
        }
}

static void on_link_event(Link *l, const char *kind, const char *message, void *userdata) {
        manager_emit_event(userdata, l->name, kind, "%s", message);
}

static void on_link_state_changed(Link *l, LinkState old_state, void *userdata) {
        manager_notify_status(userdata);
}

/* tbsd --once: the index an interface had when its file was checked
 * (manager_facts_for() probed it a moment ago), else asked now. */
static int one_shot_ifindex_of(const char *name, void *userdata) {
        Manager *m = userdata;

        return caps_cache_ifindex_of(m->caps, name) ?: manager_ifindex(m, name);
}

/* The daemon: while a load of the folder runs right after every pending
 * link notification was read (manager_sync_dir()), the index the
 * capability cache holds for the name (a rename, removal or new link
 * drops the cache's entry of that index), else asked now. */
static int daemon_ifindex_of(const char *name, void *userdata) {
        Manager *m = userdata;
        int ifindex = m->names_current ? caps_cache_ifindex_of(m->caps, name) : 0;

        return ifindex > 0 ? ifindex : manager_ifindex(m, name);
}

static int on_link_statistics_read(Link *l, uint64_t *ret_sampled_usec, void *userdata) {
        return manager_stats_read(userdata, l, ret_sampled_usec);
}

int manager_new(const ManagerConfig *config, Manager **ret) {
        Manager *m;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
        m->last_reload_ok = -1;
        if (getrandom(&m->store_generation, sizeof(m->store_generation), GRND_NONBLOCK) !=
            (ssize_t) sizeof(m->store_generation))
                m->store_generation = now_usec(CLOCK_REALTIME);
        /* Under 2^52: exact in JSON's numbers (busctl --json, jq), with
         * room for as many changes as a daemon can see. */
        m->store_generation &= (UINT64_C(1) << 52) - 1;
        m->one_shot = config->one_shot;
        m->socket_guard_known = m->one_shot;    /* --once leaves a guard an earlier run put in */
        m->clock_interval_usec = config->clock_interval_usec;
        m->stats_interval_usec = config->stats_interval_usec;
        if (config->metrics_file && !(m->metrics_file = strdup(config->metrics_file))) {
                free(m);
                return -ENOMEM;
        }
        m->config_dir = strdup(config->config_dir);
        if (!m->config_dir) {
                manager_free(m);
                return -ENOMEM;
        }
        /* Looked up when a caller other than root needs it (bus-access.c). */
        if (config->admin_group && *config->admin_group && !(m->admin_group = strdup(config->admin_group))) {
                manager_free(m);
                return -ENOMEM;
        }
        if (config->schedule_group && *config->schedule_group &&
            !(m->schedule_group = strdup(config->schedule_group))) {
                manager_free(m);
                return -ENOMEM;
        }
        m->schedule_group_may = config->schedule_group_may;

        r = nl_qdisc_new(&m->nl);
        if (r < 0) {
                log_error_errno(r, "cannot open the netlink socket: %m");
                goto fail;
        }
        r = caps_system_socket_open(&m->probe_sock, &m->probe_io);
        if (r < 0) {
                log_error_errno(r, "cannot open a socket for interface ioctls: %m");
                goto fail;
        }
        m->probe_sock_open = true;
        r = caps_cache_new(&m->probe_io, &m->caps);
        if (r < 0)
                goto fail;
        m->link_ctx = (LinkContext) {
                .nl = m->nl,
                .caps = m->caps,
                .sock = &m->probe_sock,
                .clock_interval_usec = m->clock_interval_usec,
                .one_shot = m->one_shot,
                .state_dir = config->state_dir,
                .userdata = m,
                .on_event = on_link_event,
                .on_state_changed = on_link_state_changed,
                .on_statistics_read = on_link_statistics_read,
                .on_ifindex_changed = on_link_ifindex_changed,
        };
        if (m->one_shot) {
                m->link_ctx.ifindex_of = one_shot_ifindex_of;
                *ret = m;
                return 0;
        }

        r = sd_event_default(&m->event);
        if (r < 0)
                goto fail;
        m->link_ctx.event = m->event;
        m->link_ctx.ifindex_of = daemon_ifindex_of;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        if ((r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m)) < 0 ||
            (r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m)) < 0)
                goto fail;
        r = link_watch_new(m->event, on_watch_event, m, &m->watch);
        if (r < 0) {
                log_error_errno(r, "cannot watch rtnetlink for link and qdisc changes: %m");
                goto fail;
        }
        r = manager_stats_setup(m);
        if (r < 0)
                goto fail;
        /* Sends WATCHDOG=1 on its own when WatchdogSec= is set. */
        (void) sd_event_set_watchdog(m->event, true);

        *ret = m;
        return 0;
fail:
        manager_free(m);
        return r;
}

void manager_free(Manager *m) {
        if (!m)
                return;
        while (m->n_links > 0)
                manager_free_link(m, m->links[m->n_links - 1]);
        free(m->links);
        name_index_free(m->links_by_name);
        name_index_free(m->links_by_ifindex);
        free(m->kept_counters);
        sd_event_source_disable_unref(m->reconcile);
        sd_event_source_disable_unref(m->stats_timer);
        free(m->metrics_file);
        link_watch_free(m->watch);
        nl_qdisc_free(m->nl);
        caps_cache_free(m->caps);
        if (m->probe_sock_open)
                caps_system_socket_close(&m->probe_sock);
        schedule_dir_stamps_free(m->dir_stamps);
        schedule_store_cache_free(m->store_cache);
        bus_queue_free(m->bus_queue);   /* sends what the links' removal queued */
        sd_bus_flush_close_unref(m->bus);
        refusal_log_free(m->refusals);
        sd_event_unref(m->event);
        free(m->config_dir);
        free(m->admin_group);
        free(m->schedule_group);
        free(m);
}

/* The outcome of a load of the folder (start or reload), for the metrics:
 * r < 0 when a file or the folder could not be taken. */
static void manager_note_load(Manager *m, int r) {
        m->last_reload_ok = r >= 0;
        if (r >= 0)
                m->last_reload_success_usec = now_usec(CLOCK_REALTIME);
}

int manager_start(Manager *m) {
        ScheduleDir dir = {};
        int r;

        r = manager_load_dir(m, &dir, NULL);
        if (r < 0)
                return r;
        manager_note_load(m, manager_sync_dir(m, &dir, NULL));
        schedule_dir_done(&dir);
        manager_release_free_memory();
        if (m->n_links == 0)
                log_notice("no schedules in %s", m->config_dir);
        return 0;
}

/* How many files of a load were read (not only compared by their stat). */
static size_t files_read(const ScheduleDir *d) {
        size_t n = 0;

        for (size_t i = 0; i < d->n; i++)
                n += !d->files[i].unchanged;
        return n;
}

int manager_reload(Manager *m, char **ret_error) {
        ScheduleDir dir = {};
        uint64_t t0 = now_usec(CLOCK_MONOTONIC);
        int r;

        (void) sd_notify(false, "RELOADING=1");
        /* Whatever the load finds, the kept documents may have changed
         * since the last: a caller holding the old generation lists again. */
        m->store_generation++;
        r = manager_load_dir(m, &dir, ret_error);
        if (r >= 0) {
                log_debug("reload: %zu file(s) listed, %zu read: %.1f ms", dir.n, files_read(&dir),
                          (double) (now_usec(CLOCK_MONOTONIC) - t0) / 1e3);
                t0 = now_usec(CLOCK_MONOTONIC);
                r = manager_sync_dir(m, &dir, ret_error);
                log_debug("reload: links brought in line: %.1f ms", (double) (now_usec(CLOCK_MONOTONIC) - t0) / 1e3);
                schedule_dir_done(&dir);
                manager_release_free_memory();
        }
        manager_note_load(m, r);
        manager_emit_event(m, "*", "reloaded", "configuration folder %s re-read%s", m->config_dir,
                           r < 0 ? " (with errors)" : "");
        (void) sd_notify(false, "READY=1");
        manager_notify_status(m);
        return r;
}

int manager_run(Manager *m) {
        if (m->metrics_file)
                (void) manager_sample_stats(m);
        (void) sd_notify(false, "READY=1");
        manager_notify_status(m);
        return sd_event_loop(m->event);
}

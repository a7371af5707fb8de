/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-daemon.h>

#include "bus-manager.h"
#include "link-watch.h"
#include "metrics-file.h"
#include "refusal-log.h"
#include "log.h"
#include "manager.h"
#include "schedule-dir.h"
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

void shared_dump_done(SharedDump *d) {
        qdisc_tree_set_done(&d->set);
}

const QDiscTreeSet *shared_dump_get(Manager *m, SharedDump *d) {
        if (!d->dumped) {
                d->ok = nl_qdisc_dump_all(m->nl, &d->set) >= 0;
                d->dumped = true;
        }
        return d->ok ? &d->set : NULL;
}

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

static Link *find_link_by_ifindex(Manager *m, int ifindex) {
        for (size_t i = 0; i < m->n_links; i++)
                if (m->links[i]->ifindex == ifindex)
                        return m->links[i];
        return NULL;
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
                l = find_link_by_ifindex(m, ev->ifindex);
                if (l && strcmp(l->name, ev->ifname) != 0)
                        manager_mark_dirty(m, l);
                break;
        case LINK_WATCH_LINK_DEL:
                (void) caps_cache_invalidate(m->caps, ev->ifindex);
                l = find_link_by_ifindex(m, ev->ifindex);
                if (l)
                        link_vanished(l);
                break;
        case LINK_WATCH_QDISC:
                l = find_link_by_ifindex(m, ev->ifindex);
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

int manager_sample_stats(Manager *m) {
        _cleanup_(qdisc_tree_set_done) QDiscTreeSet set = {};
        uint64_t mono, real;
        int r;

        r = nl_qdisc_dump_all(m->nl, &set);
        if (r < 0)
                return log_debug_errno(r, "statistics dump failed: %m");
        mono = now_usec(CLOCK_MONOTONIC);
        real = now_usec(CLOCK_REALTIME);

        for (size_t i = 0; i < m->n_links; i++) {
                Link *l = m->links[i];
                QDiscTree t = {};

                if (l->ifindex <= 0 || qdisc_tree_set_take_slim(&set, l->ifindex, &t) < 0)
                        continue;
                link_take_sample(l, &t, mono, real);
        }
        m->stats_sampled_usec = mono;
        if (m->metrics_file)
                metrics_file_update(m);
        return 0;
}

/* Loading and applying every schedule, or a spell of statistics reads,
 * leaves free memory spread over the heap between what stays (links,
 * schedules): hand its whole free pages back to the kernel, glibc only
 * trims the heap's top by itself. */
static void release_free_memory(void) {
        struct mallinfo2 mi;

        (void) malloc_trim(0);
        mi = mallinfo2();
        log_debug("heap: %zu KiB in use, %zu KiB free in %zu KiB, %zu KiB mapped apart",
                  mi.uordblks / 1024, mi.fordblks / 1024, mi.arena / 1024, mi.hblkhd / 1024);
}

/* Nobody reads statistics any more: the samples are not needed until the
 * next read, which takes a fresh one. Only the counters the first rate
 * after the pause starts from are kept. */
static void drop_samples(Manager *m) {
        links_drop_samples(m->links, m->n_links, &m->kept_counters);
        m->stats_sampled_usec = 0;
        release_free_memory();
}

static uint64_t stats_linger_usec(Manager *m) {
        return MANAGER_STATS_LINGER_INTERVALS * m->stats_interval_usec;
}

static int on_stats_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        /* The metrics file is a consumer that never stops reading; without
         * one, nobody has read for a while: sleep until the next read. */
        if (!m->metrics_file && usec >= m->stats_read_usec + stats_linger_usec(m)) {
                log_debug("nobody reads statistics: sampling paused");
                drop_samples(m);
                return sd_event_source_set_enabled(s, SD_EVENT_OFF);
        }
        (void) manager_sample_stats(m);
        (void) sd_event_source_set_time(s, usec + m->stats_interval_usec);
        return 0;
}

int manager_stats_read(Manager *m) {
        int enabled = SD_EVENT_OFF, r = 0;
        uint64_t now;

        if (m->stats_interval_usec == 0 || !m->stats_timer)
                return 0;
        now = now_usec(CLOCK_MONOTONIC);
        m->stats_read_usec = now;
        (void) sd_event_source_get_enabled(m->stats_timer, &enabled);
        if (m->stats_sampled_usec == 0 || now - m->stats_sampled_usec >= m->stats_interval_usec) {
                r = manager_sample_stats(m);
                r = r < 0 ? r : 1;
                /* The next sample one interval after this one, not at once. */
                (void) sd_event_source_set_time(m->stats_timer, now + m->stats_interval_usec);
        } else if (enabled == SD_EVENT_OFF)
                (void) sd_event_source_set_time(m->stats_timer, m->stats_sampled_usec + m->stats_interval_usec);
        if (enabled == SD_EVENT_OFF) {
                log_debug("statistics read: sampling every %.3g s", (double) m->stats_interval_usec / 1e6);
                (void) sd_event_source_set_enabled(m->stats_timer, SD_EVENT_ON);
        }
        return r;
}

int manager_new(const ManagerConfig *config, Manager **ret) {
        Manager *m;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m)
                return -ENOMEM;
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

        r = sd_event_default(&m->event);
        if (r < 0)
                goto fail;
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
        if (m->stats_interval_usec > 0) {
                uint64_t now;

                r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
                if (r >= 0)
                        /* Accuracy of 1 % of the period lets the loop batch wakeups. */
                        r = sd_event_add_time(m->event, &m->stats_timer, CLOCK_MONOTONIC,
                                              now + m->stats_interval_usec, m->stats_interval_usec / 100,
                                              on_stats_timer, m);
                if (r < 0)
                        goto fail;
                /* With a metrics file, sample all the time; else the first
                 * read starts the sampler (manager_stats_read()). */
                (void) sd_event_source_set_enabled(m->stats_timer, m->metrics_file ? SD_EVENT_ON : SD_EVENT_OFF);
        }
        /* Sends WATCHDOG=1 on its own when WatchdogSec= is set. */
        (void) sd_event_set_watchdog(m->event, true);

        if (config->use_bus) {
                r = manager_connect_bus(m);
                if (r < 0)
                        goto fail;
        }
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
                link_free(m->links[m->n_links - 1]);
        free(m->links);
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
        sd_bus_flush_close_unref(m->bus);
        refusal_log_free(m->refusals);
        sd_event_unref(m->event);
        free(m->config_dir);
        free(m->admin_group);
        free(m);
}

Link *manager_find_link(Manager *m, const char *name) {
        for (size_t i = 0; i < m->n_links; i++)
                if (strcmp(m->links[i]->name, name) == 0)
                        return m->links[i];
        return NULL;
}

int manager_ifindex(Manager *m, const char *name) {
        return (int) caps_system_ifindex(m->probe_sock_open ? &m->probe_sock : NULL, name);
}

int manager_add_link(Manager *m, Link *l) {
        Link **n = reallocarray(m->links, m->n_links + 1, sizeof(Link *));
        if (!n)
                return -ENOMEM;
        m->links = n;
        m->links[m->n_links++] = l;
        return 0;
}

void manager_drop_link(Manager *m, Link *l) {
        for (size_t i = 0; i < m->n_links; i++)
                if (m->links[i] == l) {
                        memmove(m->links + i, m->links + i + 1, (m->n_links - i - 1) * sizeof(Link *));
                        m->n_links--;
                        return;
                }
}

void manager_emit_event(Manager *m, const char *link, const char *kind, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        if (!text_is_safe(msg)) {
                /* It may quote a file name; the signal needs valid UTF-8. */
                char *e = text_escape(msg);

                free(msg);
                msg = e;
                if (!msg)
                        return;
        }
        if (strcmp(link, "*") == 0)
                log_info("%s: %s", kind, msg);
        else
                log_link_info(link, "%s: %s", kind, msg);
        if (m->bus)
                (void) sd_bus_emit_signal(m->bus, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "Event", "sss",
                                          link, kind, msg);
}

void manager_notify_status(Manager *m) {
        size_t count[_LINK_STATE_MAX] = {};

        for (size_t i = 0; i < m->n_links; i++)
                count[m->links[i]->state]++;
        (void) sd_notifyf(false, "STATUS=%zu links configured, %zu degraded, %zu failed, %zu absent",
                          count[LINK_STATE_CONFIGURED], count[LINK_STATE_DEGRADED],
                          count[LINK_STATE_FAILED], count[LINK_STATE_ABSENT]);
}

int manager_start(Manager *m) {
        ScheduleDir dir = {};
        int r;

        r = manager_load_dir(m, &dir, NULL);
        if (r < 0)
                return r;
        (void) manager_sync_dir(m, &dir, NULL);
        schedule_dir_done(&dir);
        release_free_memory();
        if (m->n_links == 0)
                log_notice("no schedules in %s", m->config_dir);
        return 0;
}

int manager_reload(Manager *m, char **ret_error) {
        ScheduleDir dir = {};
        int r;

        (void) sd_notify(false, "RELOADING=1");
        r = manager_load_dir(m, &dir, ret_error);
        if (r >= 0) {
                r = manager_sync_dir(m, &dir, ret_error);
                schedule_dir_done(&dir);
                release_free_memory();
        }
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

int manager_main(const ManagerConfig *config) {
        Manager *m = NULL;
        int r;

        r = manager_new(config, &m);
        if (r < 0)
                return r;
        r = manager_start(m);
        if (r >= 0)
                r = manager_run(m);
        manager_free(m);
        return r;
}

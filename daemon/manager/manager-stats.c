/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The statistics sampler: one dump of every interface per sampling
 * interval, handed to the links as samples (link-stats.c), while someone
 * reads statistics, or all the time with a metrics file. */
#include <errno.h>
#include <time.h>

#include "log.h"
#include "manager.h"
#include "metrics-file.h"

static uint64_t now_usec(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000;
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

                if (l->ifindex <= 0)
                        continue;
                /* An interface the dump left out gets an empty sample: its
                 * statistics are read from this round, not dumped again. */
                if (qdisc_tree_set_take_slim(&set, l->ifindex, &t) < 0)
                        t = (QDiscTree) { .ifindex = l->ifindex };
                (void) nl_qdisc_add_class_stats(m->nl, &t);     /* offloaded taprio only */
                link_take_sample(l, &t, mono, real);
        }
        m->stats_sampled_usec = mono;
        if (m->metrics_file) {
                MetricsDaemon d = {
                        .version = TBS_VERSION,
                        .last_reload_ok = m->last_reload_ok,
                        .last_reload_success_usec = m->last_reload_success_usec,
                };

                metrics_file_update(&d, m->links, m->n_links, m->metrics_file, &m->metrics_file_error);
        }
        return 0;
}

/* Nobody reads statistics any more: the samples are not needed until the
 * next read, which takes a fresh one. Only the counters the first rate
 * after the pause starts from are kept. */
static void drop_samples(Manager *m) {
        links_drop_samples(m->links, m->n_links, &m->kept_counters);
        m->stats_sampled_usec = 0;
        manager_release_free_memory();
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

/* Sampling off (--stats-interval 0): every read dumps. The link keeps
 * what this read saw as a sample of its own, without rates. */
static int sample_one(Manager *m, Link *l, uint64_t *ret_sampled_usec) {
        QDiscTree t = {};
        uint64_t mono;
        int r;

        if (l->ifindex <= 0)
                return 0;
        r = nl_qdisc_dump(m->nl, l->ifindex, &t);
        mono = now_usec(CLOCK_MONOTONIC);
        /* A failed dump leaves an empty sample: nothing is shown. */
        link_take_single_sample(l, &t, mono, now_usec(CLOCK_REALTIME));
        if (r < 0)
                return r;
        *ret_sampled_usec = mono;
        return 1;
}

int manager_stats_read(Manager *m, Link *l, uint64_t *ret_sampled_usec) {
        int enabled = SD_EVENT_OFF, r = 0;
        uint64_t now;

        if (m->stats_interval_usec == 0 || !m->stats_timer)
                return l ? sample_one(m, l, ret_sampled_usec) : 0;
        now = now_usec(CLOCK_MONOTONIC);
        m->stats_read_usec = now;
        (void) sd_event_source_get_enabled(m->stats_timer, &enabled);
        if (m->stats_sampled_usec == 0 || now - m->stats_sampled_usec >= m->stats_interval_usec ||
            (l && l->ifindex > 0 && !link_last_sample(l, NULL))) {
                r = manager_sample_stats(m);
                if (r >= 0) {
                        r = 1;
                        *ret_sampled_usec = m->stats_sampled_usec;
                }
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

int manager_stats_setup(Manager *m) {
        uint64_t now;
        int r;

        if (m->stats_interval_usec == 0)
                return 0;
        r = sd_event_now(m->event, CLOCK_MONOTONIC, &now);
        if (r >= 0)
                /* Accuracy of 1 % of the period lets the loop batch wakeups. */
                r = sd_event_add_time(m->event, &m->stats_timer, CLOCK_MONOTONIC, now + m->stats_interval_usec,
                                      m->stats_interval_usec / 100, on_stats_timer, m);
        if (r < 0)
                return r;
        /* With a metrics file, sample all the time; else the first read
         * starts the sampler (manager_stats_read()). */
        (void) sd_event_source_set_enabled(m->stats_timer, m->metrics_file ? SD_EVENT_ON : SD_EVENT_OFF);
        return 0;
}

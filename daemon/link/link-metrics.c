/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "clock-check.h"
#include "link-internal.h"
#include "link-metrics.h"
#include "macro.h"
#include "nl-qdisc.h"

const char *link_ptp4l_socket(const Link *l) {
        if (!l->schedule || !l->schedule->clock.configured)
                return NULL;
        return l->schedule->clock.ptp4l_socket ?: "default";
}

size_t link_metrics_n_queues(Link *l) {
        return l->schedule ? l->schedule->n_txqueues : 0;
}

/* Queue want of the schedule as the sample t shows it (t NULL: no sample). */
static void queue_metrics(Link *l, const EtfSpec *want, const QDiscTree *t, MetricsQueue *ret) {
        const InstalledQueue *q = t ? qdisc_tree_find_queue(t, want->queue) : NULL;

        *ret = (MetricsQueue) {
                .queue = want->queue,
                .qdisc = q ? q->qdisc.kind : NULL,
                .offload = q && installed_queue_is_declarable(q) && q->etf.kind == want->kind &&
                           q->etf.offload == OFFLOAD_ON,
                .installed = q && installed_queue_is_declarable(q) && q->etf.kind == want->kind,
        };
        if (q) {
                const QDiscStats *st = &q->qdisc.stats;

                /* As Describe() writes them: int64 in JSON. */
                ret->counters[METRICS_PACKETS] = (int64_t) st->packets;
                ret->counters[METRICS_BYTES] = (int64_t) st->bytes;
                ret->counters[METRICS_DROPS] = st->drops;
                ret->counters[METRICS_OVERLIMITS] = st->overlimits;
                ret->counters[METRICS_REQUEUES] = st->requeues;
                ret->counters[METRICS_DEADLINE_MISSES] = (int64_t) (q->is_etf || q->child.kind[0] ? q->deadline_misses : 0);
                ret->counters[METRICS_INVALID] = (int64_t) (q->is_etf || q->child.kind[0] ? q->invalid : 0);
                ret->counters[METRICS_BACKLOG_BYTES] = st->backlog_bytes;
                ret->counters[METRICS_BACKLOG_PACKETS] = st->qlen;
                ret->has_counters = (1u << _METRICS_COUNTER_MAX) - 1;
                ret->taprio_stats[METRICS_TAPRIO_WINDOW_DROPS] = (int64_t) q->offload.window_drops;
                ret->taprio_stats[METRICS_TAPRIO_TX_OVERRUNS] = (int64_t) q->offload.tx_overruns;
                ret->has_taprio_stats = (uint8_t) ((q->offload.has_window_drops ? 1u << METRICS_TAPRIO_WINDOW_DROPS : 0) |
                                                   (q->offload.has_tx_overruns ? 1u << METRICS_TAPRIO_TX_OVERRUNS : 0));
        }
}

void link_metrics(Link *l, MetricsQueue *queues, MetricsLink *ret) {
        ClockStatus buf;
        const ClockStatus *c = link_clock_status(l, &buf);
        const QDiscTree *t = link_last_sample(l, NULL);
        size_t n = link_metrics_n_queues(l);

        *ret = (MetricsLink) {
                .interface = l->name,
                .state = link_state_to_string(l->state),
                .has_clock = true,
                .clock_state = clock_state_to_string(c->state) ?: "unsynced",
                .ptp4l = link_ptp4l_socket(l),
                .port_state = c->has_port_state ? c->port_state : NULL,
                .clock_checked_at_usec = c->checked_at_usec,
                .has_counters = true,
                .counters = {
                        [METRICS_LINK_RELOADS] = l->counters.reloads,
                        [METRICS_LINK_APPLIES] = l->counters.applies,
                        [METRICS_LINK_DRIFT_REPAIRS] = l->counters.drift_repairs,
                        [METRICS_LINK_APPLY_FAILURES] = l->counters.apply_failures,
                },
                .queues = n > 0 ? queues : NULL,
                .n_queues = n,
        };
        if (c->has_time_status) {
                ret->clock_values[METRICS_CLOCK_MASTER_OFFSET_NS] = c->master_offset_ns;
                ret->has_clock_values |= 1u << METRICS_CLOCK_MASTER_OFFSET_NS;
        }
        if (c->has_current_ds) {
                ret->clock_values[METRICS_CLOCK_MEAN_PATH_DELAY_NS] = c->mean_path_delay_ns;
                ret->has_clock_values |= 1u << METRICS_CLOCK_MEAN_PATH_DELAY_NS;
        }
        if (c->has_phc_offset) {
                ret->clock_values[METRICS_CLOCK_PHC_OFFSET_NS] = c->phc_sys_offset_ns;
                ret->has_clock_values |= 1u << METRICS_CLOCK_PHC_OFFSET_NS;
        }
        if (c->has_tai_offset) {
                ret->clock_values[METRICS_CLOCK_TAI_OFFSET_S] = c->tai_offset_s;
                ret->has_clock_values |= 1u << METRICS_CLOCK_TAI_OFFSET_S;
        }
        if (t && t->has_root) {
                const QDiscStats *st = &t->root.stats;

                ret->taprio_stats[METRICS_TAPRIO_WINDOW_DROPS] = st->offload.window_drops;
                ret->taprio_stats[METRICS_TAPRIO_TX_OVERRUNS] = st->offload.tx_overruns;
                ret->has_taprio_stats = (uint8_t) ((st->offload.has_window_drops ? 1u << METRICS_TAPRIO_WINDOW_DROPS : 0) |
                                                   (st->offload.has_tx_overruns ? 1u << METRICS_TAPRIO_TX_OVERRUNS : 0));
        }
        for (size_t i = 0; i < n; i++)
                queue_metrics(l, &l->schedule->txqueues[i], t, &queues[i]);
        /* the running launch-time monitors' figures (docs/fidelity.md) */
        ret->n_launch = link_launch_stats(l, &ret->launch);
        link_mac_merge_metrics(l, ret);
}

int links_write_metrics_file(const MetricsDaemon *d, Link **links, size_t n, const char *path) {
        _cleanup_free_ MetricsLink *v = NULL;
        _cleanup_free_ MetricsQueue *queues = NULL;
        size_t total = 0, at = 0;

        for (size_t i = 0; i < n; i++)
                total += link_metrics_n_queues(links[i]);
        v = calloc(n ?: 1, sizeof(MetricsLink));
        queues = calloc(total ?: 1, sizeof(MetricsQueue));
        if (!v || !queues)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                link_metrics(links[i], &queues[at], &v[i]);
                at += v[i].n_queues;
        }
        return metrics_write_daemon_file(d, v, n, path);
}

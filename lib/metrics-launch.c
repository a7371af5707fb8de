/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time error families of the exposition (docs/metrics.md,
 * docs/fidelity.md), from each link's monitored queues (MetricsLink.launch,
 * LaunchQueueStats of lib/launch-hist.h):
 *   tbs_launch_error_seconds{device,queue,source}  histogram: _bucket{le} cumulative with
 *                                                  le the bucket bounds in seconds, _sum, _count
 *   tbs_launch_probes_sent_total{device,queue}
 *   tbs_launch_probes_dropped_total{device,queue,reason="missed"|"invalid"}
 *   tbs_launch_probes_unstamped_total{device,queue}
 * Pure: the samples are a function of the typed values only. */
#include <inttypes.h>
#include <stdio.h>

#include "launch-hist.h"
#include "macro.h"
#include "metrics-internal.h"

enum {
        FAMILY_ERROR,
        FAMILY_SENT,
        FAMILY_DROPPED,
        FAMILY_UNSTAMPED,
};

const MetricsFamilyInfo metrics_launch_families[METRICS_LAUNCH_FAMILIES] = {
        [FAMILY_ERROR] = { "tbs_launch_error_seconds", "histogram",
                           "Launch-time error of the queue's probe frames: transmit time stamp - requested "
                           "launch time (negative: early)." },
        [FAMILY_SENT] = { "tbs_launch_probes_sent_total", "counter",
                          "Probe frames the launch-time monitor handed to the queue." },
        [FAMILY_DROPPED] = { "tbs_launch_probes_dropped_total", "counter",
                             "Probe frames the queue dropped: launch time missed in the queue, or refused as "
                             "invalid." },
        [FAMILY_UNSTAMPED] = { "tbs_launch_probes_unstamped_total", "counter",
                               "Probe frames that left without a transmit time stamp or a drop report." },
};

static Value int_value(uint64_t v) {
        /* Counts as the other families write them: int64 (a wrap needs 2^63 probes). */
        return (Value) { .kind = NUM_INT, .i = v > INT64_MAX ? INT64_MAX : (int64_t) v };
}

/* A bound (ns) as an "le" value in seconds: the shortest form that reads
 * back as the same double ("-0.01", "5e-05", "1e-07"), as Prometheus'
 * client libraries write them. */
static void format_le(int64_t ns, char buf[static 32]) {
        snprintf(buf, 32, "%g", (double) ns / 1e9);
}

static void render_error(Sink *s, const Label *base, const LaunchQueueStats *q) {
        const char *family = metrics_launch_families[FAMILY_ERROR].name;
        Label lb[4] = { base[0], base[1], base[2] };
        uint64_t cumulative = 0;
        char le[32];
        Value v;

        for (unsigned b = 0; b < LAUNCH_HIST_BUCKETS && s->error == 0; b++) {
                cumulative += q->hist.bucket[b];
                if (b < LAUNCH_HIST_BOUNDS)
                        format_le(launch_hist_bounds_ns[b], le);
                else
                        snprintf(le, sizeof(le), "+Inf");
                lb[3] = (Label) { "le", le };
                metrics_sink_sample(s, family, "_bucket", lb, 4, int_value(cumulative));
        }
        v = (Value) { .kind = NUM_DECIMAL };
        metrics_format_seconds(q->hist.sum_ns, v.text);
        metrics_sink_sample(s, family, "_sum", base, 3, v);
        metrics_sink_sample(s, family, "_count", base, 3, int_value(q->hist.count));
}

static void render_queue(Sink *s, unsigned family, const char *device, const LaunchQueueStats *q,
                         bool has_hist) {
        const MetricsFamilyInfo *f = &metrics_launch_families[family];
        const char *source = launch_stamp_source_to_string(q->source) ?: "none";
        char queue[16];

        snprintf(queue, sizeof(queue), "%" PRIu32, q->queue);
        Label lb[] = { { "device", device }, { "queue", queue }, { "source", source } };

        switch (family) {
        case FAMILY_ERROR:
                if (has_hist)
                        render_error(s, lb, q);
                return;
        case FAMILY_SENT:
                metrics_sink_sample(s, f->name, NULL, lb, 2, int_value(q->sent));
                return;
        case FAMILY_DROPPED:
                lb[2] = (Label) { "reason", "missed" };
                metrics_sink_sample(s, f->name, NULL, lb, 3, int_value(q->missed));
                lb[2] = (Label) { "reason", "invalid" };
                metrics_sink_sample(s, f->name, NULL, lb, 3, int_value(q->invalid));
                return;
        case FAMILY_UNSTAMPED:
                metrics_sink_sample(s, f->name, NULL, lb, 2, int_value(q->unstamped));
                return;
        }
}

void metrics_launch_render_family(Sink *s, unsigned i, const MetricsLink *links, size_t n) {
        for (size_t j = 0; j < n && s->error == 0; j++)
                for (size_t k = 0; k < links[j].n_launch && s->error == 0; k++)
                        render_queue(s, i, links[j].interface ?: "", &links[j].launch[k],
                                     !links[j].launch_without_hist);
}

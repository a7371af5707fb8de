/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus text exposition (format 0.0.4, what node_exporter's textfile
 * collector reads and what a scrape answers with) of tbsd's links, rendered
 * from typed samples (MetricsLink below): tbsd's --metrics-file fills them
 * from its links (daemon/link/link-metrics.c), `tbsctl metrics` from the status
 * documents Describe() returns (metrics_link_from_json(), lib/metrics-json.c).
 *
 * Families (HELP and TYPE lines are always written, in this order, each
 * family's samples grouped under them; labels always in this order;
 * "device" is the interface's name again, the label node_exporter uses, so
 * that series join node_exporter's):
 *   tbs_build_info{version}                       gauge 1 (daemon only)
 *   tbs_config_last_reload_successful             gauge 1/0 (daemon only, after a reload)
 *   tbs_config_last_reload_success_timestamp_seconds gauge (daemon only)
 *   tbs_link_state{interface,device,state}        gauge, 1 for the current state, 0 for the others
 *   tbs_link_reloads_total, tbs_link_applies_total, tbs_link_drift_repairs_total,
 *   tbs_link_apply_failures_total {interface,device} counters since tbsd started
 *   tbs_link_ptp4l_info{interface,device,ptp4l}   gauge 1: the ptp4l the link's clock check asks
 *   tbs_clock_state{interface,device,state}       gauge, same pattern for the clock check state
 *   tbs_clock_synced{interface,device}            gauge, 1 when the clock state is "synced"
 *   tbs_clock_last_check_timestamp_seconds{interface,device} gauge (when checked)
 *   tbs_ptp_port_state{interface,device,state}    gauge, state-set of ptp4l's port state (when known)
 *   tbs_clock_phc_offset_seconds{interface,device} gauge, PHC - CLOCK_TAI (when measured)
 *   tbs_clock_master_offset_seconds{ptp4l}        gauge, ptp4l's offset from master (when known)
 *   tbs_clock_mean_path_delay_seconds{ptp4l}      gauge (when known)
 *   tbs_clock_tai_offset_seconds                  gauge, kernel TAI - UTC offset (when known)
 *   tbs_launch_time_offload{interface,device,queue,qdisc} gauge, 1 when the queue's etf is offloaded
 *   tbs_queue_installed{interface,device,queue,qdisc} gauge, 1 when the declared etf is installed
 *   tbs_queue_packets_total, tbs_queue_bytes_total, tbs_queue_drops_total,
 *   tbs_queue_requeues_total, tbs_queue_deadline_misses_total, tbs_queue_invalid_total
 *                        {interface,device,queue,qdisc} counters of the queue's qdisc
 *   tbs_queue_backlog_bytes, tbs_queue_backlog_packets {interface,device,queue,qdisc} gauges
 *   tbs_launch_error_seconds{device,queue,source} histogram of the launch-time monitor
 *                        (_bucket{le} cumulative, le in seconds, _sum, _count; lib/metrics-launch.c)
 *   tbs_launch_probes_sent_total{device,queue}, tbs_launch_probes_dropped_total{device,queue,reason},
 *   tbs_launch_probes_unstamped_total{device,queue} counters of the monitor's probes
 *                        (the launch families only for monitored queues, docs/fidelity.md)
 *   tbs_mac_merge_tx_enabled, tbs_mac_merge_tx_active{interface,device} gauges,
 *   tbs_mac_merge_verify_status{interface,device,status} gauge state-set,
 *   tbs_mac_merge_fragments_total{interface,device,direction}, tbs_mac_merge_reassembled_frames_total,
 *   tbs_mac_merge_reassembly_errors_total, tbs_mac_merge_smd_errors_total, tbs_mac_merge_holds_total
 *                        {interface,device} counters: the MAC merge layer, only where the device
 *                        has one (lib/metrics-mac-merge.c)
 * The ptp4l-wide values have one series per ptp4l socket (several links may
 * share one ptp4l), from the first link that has them; the system-wide TAI
 * offset has one series without labels. No per-second gauges (rate() makes
 * them) and no overlimits counter (etf's overlimits are its deadline misses).
 * A queue whose "stats" is null (nothing installed) has no counter samples;
 * a counter whose key is missing from "stats" is left out (in the typed
 * sample: a value whose bit is not set). The "qdisc" label is the
 * installed kind, or "none". Times are in seconds, written as exact
 * decimals of the nanosecond values. Label values are escaped (\\, \", \n).
 * No "# EOF" line: the output is the Prometheus text format, not OpenMetrics. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "launch-hist.h"

/* ---- The typed samples ---- */

/* The clock values of a link. */
typedef enum MetricsClockValue {
        METRICS_CLOCK_MASTER_OFFSET_NS,         /* tbs_clock_master_offset_seconds, per ptp4l */
        METRICS_CLOCK_MEAN_PATH_DELAY_NS,       /* tbs_clock_mean_path_delay_seconds, per ptp4l */
        METRICS_CLOCK_PHC_OFFSET_NS,            /* tbs_clock_phc_offset_seconds */
        METRICS_CLOCK_TAI_OFFSET_S,             /* tbs_clock_tai_offset_seconds, system-wide */
        _METRICS_CLOCK_VALUE_MAX,
} MetricsClockValue;

/* The counters and gauges of a queue's qdisc (the document's "stats"). */
typedef enum MetricsCounter {
        METRICS_PACKETS,
        METRICS_BYTES,
        METRICS_DROPS,
        METRICS_OVERLIMITS,
        METRICS_REQUEUES,
        METRICS_DEADLINE_MISSES,
        METRICS_INVALID,
        METRICS_BACKLOG_BYTES,
        METRICS_BACKLOG_PACKETS,
        _METRICS_COUNTER_MAX,
} MetricsCounter;

/* What happened to a link since tbsd started (the document's "counters"). */
typedef enum MetricsLinkCounter {
        METRICS_LINK_RELOADS,                   /* loads of the folder that declared or kept it */
        METRICS_LINK_APPLIES,                   /* applies that succeeded */
        METRICS_LINK_DRIFT_REPAIRS,             /* trees restored after a change outside tbsd */
        METRICS_LINK_APPLY_FAILURES,            /* applies that failed */
        _METRICS_LINK_COUNTER_MAX,
} MetricsLinkCounter;

/* taprio's offload statistics of a link's root (Linux 6.5+, only the ones
 * the driver gives: a software taprio has none). */
typedef enum MetricsTaprioStat {
        METRICS_TAPRIO_WINDOW_DROPS,            /* tbs_taprio_window_drops_total */
        METRICS_TAPRIO_TX_OVERRUNS,             /* tbs_taprio_tx_overruns_total */
        _METRICS_TAPRIO_STAT_MAX,
} MetricsTaprioStat;

/* One declared TX queue. A value is there when its bit ((1u << index)) is
 * set in the mask beside it; the others are left out of the exposition. */
typedef struct MetricsQueue {
        int64_t queue;                          /* the "queue" label */
        const char *qdisc;                      /* installed kind; NULL: "none" */
        int8_t offload;                         /* 1, 0, or -1: unknown (no sample) */
        int8_t installed;                       /* 1, 0, or -1: unknown */
        uint16_t has_counters;                  /* bit per MetricsCounter */
        int64_t counters[_METRICS_COUNTER_MAX];
        uint8_t has_taprio_stats;               /* bit per MetricsTaprioStat: its taprio class's */
        int64_t taprio_stats[_METRICS_TAPRIO_STAT_MAX];
} MetricsQueue;

/* The MAC merge layer's counters (Describe()'s "mac_merge.counters"). */
typedef enum MetricsMacMergeCounter {
        METRICS_MM_REASSEMBLY_ERRORS,           /* "reassembly_errors" */
        METRICS_MM_SMD_ERRORS,                  /* "smd_errors" */
        METRICS_MM_REASSEMBLY_OK,               /* "reassembly_ok" */
        METRICS_MM_RX_FRAGMENTS,                /* "rx_fragments" */
        METRICS_MM_TX_FRAGMENTS,                /* "tx_fragments" */
        METRICS_MM_HOLD,                        /* "hold" */
        _METRICS_MM_COUNTER_MAX,
} MetricsMacMergeCounter;

/* A device's MAC merge layer (lib/metrics-mac-merge.c). */
typedef struct MetricsMacMerge {
        bool tx_enabled, tx_active;
        uint8_t verify_status;                  /* 0 unknown .. 5 disabled (metrics_mac_merge_verify_status()) */
        uint8_t has_counters;                   /* bit per MetricsMacMergeCounter */
        uint64_t counters[_METRICS_MM_COUNTER_MAX];
} MetricsMacMerge;

/* A counter's key in Describe()'s "mac_merge.counters" ("reassembly_errors"). */
const char *metrics_mac_merge_counter_key(MetricsMacMergeCounter c);
/* "unknown", "initial", "verifying", "succeeded", "failed", "disabled"; and
 * back (0 for a word it does not know). */
const char *metrics_mac_merge_verify_status(uint8_t status);
int metrics_mac_merge_verify_status_from_string(const char *s);

/* One link. The strings are borrowed: they must live until it is rendered. */
typedef struct MetricsLink {
        const char *interface;
        const char *state;                      /* the D-Bus State name; NULL: none is 1 */
        bool has_clock;                         /* the clock families get samples */
        const char *clock_state;                /* the clock check's state name; NULL: none is 1 */
        uint8_t has_clock_values;               /* bit per MetricsClockValue */
        int64_t clock_values[_METRICS_CLOCK_VALUE_MAX]; /* ns, or s for the TAI offset */
        const char *ptp4l;                      /* the ptp4l socket the clock check asks; NULL: none */
        const char *port_state;                 /* ptp4l's state of the link's port; NULL: unknown */
        uint64_t clock_checked_at_usec;         /* CLOCK_REALTIME of the last check; 0: none */
        bool has_counters;
        uint64_t counters[_METRICS_LINK_COUNTER_MAX];
        uint8_t has_taprio_stats;               /* bit per MetricsTaprioStat */
        uint64_t taprio_stats[_METRICS_TAPRIO_STAT_MAX];
        MetricsQueue *queues;
        size_t n_queues;
        const LaunchQueueStats *launch;         /* the monitored queues, ascending (launch families) */
        size_t n_launch;
        bool launch_without_hist;               /* only the probe counters are known: no histogram */
        bool has_mac_merge;                     /* the device has a MAC merge layer: mac_merge holds it */
        MetricsMacMerge mac_merge;
} MetricsLink;

/* What the daemon as a whole reports (tbsd's metrics file). */
typedef struct MetricsDaemon {
        const char *version;                    /* tbs_build_info; NULL: left out */
        int8_t last_reload_ok;                  /* 1, 0, or -1: no reload yet (left out) */
        uint64_t last_reload_success_usec;      /* CLOCK_REALTIME; 0: none (left out) */
} MetricsDaemon;

/** Write the exposition of d (NULL: no daemon samples) and links[0..n)
 *  (in the order given) to out. Returns as metrics_render_links(). */
int metrics_render_daemon(const MetricsDaemon *d, const MetricsLink *links, size_t n, FILE *out);

/** The same as JSON (as metrics_render_links_json()). */
int metrics_render_daemon_json(const MetricsDaemon *d, const MetricsLink *links, size_t n,
                               struct json_object **ret);

/** metrics_render_daemon() into path atomically (as metrics_write_file()). */
int metrics_write_daemon_file(const MetricsDaemon *d, const MetricsLink *links, size_t n, const char *path);

/** Write the exposition of links[0..n) (in the order given) to out.
 *  Returns 0, or the -errno of the failed write (-EIO when the stream
 *  failed without one). */
int metrics_render_links(const MetricsLink *links, size_t n, FILE *out);

/** The same samples as JSON (the format of metrics_render_json() below).
 *  Returns 0 and *ret, or -ENOMEM. */
int metrics_render_links_json(const MetricsLink *links, size_t n, struct json_object **ret);

/** metrics_render_links() into path atomically, as metrics_write_file()
 *  below. Returns 0 or -errno. Does not log. */
int metrics_write_links_file(const MetricsLink *links, size_t n, const char *path);

/** Read a status document (a Describe() JSON object) into *ret: the values
 *  the exposition shows, with the rules above (a value of the wrong JSON
 *  type counts as missing). A txqueue's "monitor" object (unless its
 *  "running" is false) gives its launch
 *  figures: "source", "sent", "missed", "invalid", "unstamped" as Describe()
 *  writes them, and the histogram when the object also has "sum_ns" and
 *  "buckets" (LAUNCH_HIST_BUCKETS counts, not cumulative: what tbsctl adds
 *  from the Link's LaunchTimeError property); without them the link has
 *  launch_without_hist set. The strings of *ret point into doc, which must
 *  outlive it; its queues are allocated (metrics_link_done()).
 *  Returns 0, -EINVAL when doc is not an object, or -ENOMEM; *ret untouched
 *  on failure. */
int metrics_link_from_json(struct json_object *doc, MetricsLink *ret);

/** Free what metrics_link_from_json() allocated. Accepts a zeroed link. */
void metrics_link_done(MetricsLink *l);

/** metrics_link_from_json() of docs[0..n) into a new array (*ret, *ret_n;
 *  free with metrics_links_free()); NULL entries and non-objects are
 *  skipped. Returns 0 or -ENOMEM. */
int metrics_links_from_json(struct json_object *const *docs, size_t n, MetricsLink **ret, size_t *ret_n);
MetricsLink *metrics_links_free(MetricsLink *links, size_t n);

/* ---- The same from status documents (lib/metrics-json.c) ---- */

/** Write the exposition of n link status documents (Describe() JSON
 *  objects, in the order given; NULL entries and non-objects are skipped)
 *  to out. Returns 0, -ENOMEM or -EIO. */
int metrics_render(struct json_object *const *links, size_t n, FILE *out);

/** Same as metrics_render() into a new NUL-terminated string (*ret, to be
 *  freed by the caller). Returns 0, -ENOMEM or -EIO; *ret untouched on failure. */
int metrics_render_string(struct json_object *const *links, size_t n, char **ret);

/** The same samples as JSON (`tbsctl --json metrics`): an array of the
 *  families in the order above, each
 *    {"name": "tbs_link_state", "type": "gauge", "help": "...",
 *     "samples": [{"labels": {"interface": "eth0", "state": "configured"}, "value": 1}, ...]}
 *  with every family present (samples [] when none), labels as in the
 *  text form (unescaped: JSON escapes them itself), values as JSON numbers
 *  (seconds as the exact decimals of the text form; a value that is not
 *  finite as null). Returns 0 and *ret, or -ENOMEM. */
int metrics_render_json(struct json_object *const *links, size_t n, struct json_object **ret);

/** Write the exposition to path atomically, for node_exporter's textfile
 *  collector: a temporary file in the same folder ("path" + ".XXXXXX"),
 *  mode 0644, flushed and fsync'd, then renamed over path. On failure the
 *  temporary file is removed and path keeps its old content.
 *  Returns 0 or -errno. Does not log. */
int metrics_write_file(struct json_object *const *links, size_t n, const char *path);

/* The same, one document at a time: the caller can build a document, add
 * it and free it before the next (each is read into a typed sample that
 * owns copies of its strings). */
typedef struct MetricsWriter MetricsWriter;
int metrics_writer_new(MetricsWriter **ret);
/** Take the samples of link (a status document; NULL and non-objects add
 *  nothing). */
void metrics_writer_add(MetricsWriter *w, struct json_object *link);
/** Write every family's header and samples to out. Returns 0, -ENOMEM, or
 *  the -errno of the failed write (-EIO when the stream failed earlier
 *  without one). */
int metrics_writer_finish(MetricsWriter *w, FILE *out);
/** metrics_write_file() of what was added. */
int metrics_writer_write_file(MetricsWriter *w, const char *path);
MetricsWriter *metrics_writer_free(MetricsWriter *w);

/** Format a nanosecond count as an exact decimal number of seconds
 *  ("-0.000001234", "2", "1.5") into buf. Returns buf. */
char *metrics_format_seconds(int64_t ns, char buf[static 32]);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus text exposition (format 0.0.4, what node_exporter's textfile
 * collector reads and what a scrape answers with) of tbsd's link status
 * documents, the JSON that Describe() returns. Used by `tbsctl metrics`
 * and by tbsd's --metrics-file.
 *
 * Families (HELP and TYPE lines are always written, in this order, each
 * family's samples grouped under them; labels always in this order):
 *   tbs_link_state{interface,state}               gauge, 1 for the current state, 0 for the others
 *   tbs_clock_state{interface,state}              gauge, same pattern for the clock check state
 *   tbs_clock_synced{interface}                   gauge, 1 when the clock state is "synced"
 *   tbs_clock_master_offset_seconds{interface}    gauge, ptp4l's offset from master (when known)
 *   tbs_clock_mean_path_delay_seconds{interface}  gauge (when known)
 *   tbs_clock_phc_offset_seconds{interface}       gauge, PHC - CLOCK_TAI (when measured)
 *   tbs_clock_tai_offset_seconds{interface}       gauge, kernel TAI - UTC offset (when known)
 *   tbs_launch_time_offload{interface,queue,qdisc} gauge, 1 when the queue's etf is offloaded
 *   tbs_queue_installed{interface,queue,qdisc}    gauge, 1 when the declared etf is installed
 *   tbs_queue_packets_total, tbs_queue_bytes_total, tbs_queue_drops_total,
 *   tbs_queue_overlimits_total, tbs_queue_requeues_total,
 *   tbs_queue_deadline_misses_total, tbs_queue_invalid_total
 *                        {interface,queue,qdisc}  counters of the queue's qdisc
 *   tbs_queue_backlog_bytes, tbs_queue_backlog_packets {interface,queue,qdisc} gauges
 *   tbs_queue_packets_per_second, tbs_queue_bytes_per_second,
 *   tbs_queue_drops_per_second, tbs_queue_deadline_misses_per_second,
 *   tbs_queue_invalid_per_second {interface,queue,qdisc}
 *                        gauges from the queue's optional "rates" object
 * A queue whose "stats" is null (nothing installed) has no counter samples;
 * a counter whose key is missing from "stats" is left out. The "qdisc" label
 * is the installed kind, or "none". Times are in seconds, written as exact
 * decimals of the nanosecond values. Label values are escaped (\\, \", \n).
 * No "# EOF" line: the output is the Prometheus text format, not OpenMetrics. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Write the exposition of n link status documents (Describe() JSON
 *  objects, in the order given; NULL entries and non-objects are skipped)
 *  to out. Returns 0, or -EIO when writing failed. */
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
 *  (seconds as the exact decimals of the text form; a rate that is not
 *  finite as null). Returns 0 and *ret, or -ENOMEM. */
int metrics_render_json(struct json_object *const *links, size_t n, struct json_object **ret);

/** Write the exposition to path atomically, for node_exporter's textfile
 *  collector: a temporary file in the same folder ("path" + ".XXXXXX"),
 *  mode 0644, flushed and fsync'd, then renamed over path. On failure the
 *  temporary file is removed and path keeps its old content.
 *  Returns 0 or -errno. Does not log. */
int metrics_write_file(struct json_object *const *links, size_t n, const char *path);

/* The same, one document at a time: each link's samples are rendered when
 * it is added, so the caller can build a document, add it and free it
 * before the next (the documents of hundreds of links take megabytes, their
 * samples tens of KiB per link). */
typedef struct MetricsWriter MetricsWriter;
int metrics_writer_new(MetricsWriter **ret);
/** Render link (a status document; NULL and non-objects add nothing). */
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The metrics of status documents (Describe() JSON, what tbsctl has from the
 * bus): each document is read once into a MetricsLink and rendered by the
 * same code as the daemon's typed samples (lib/metrics.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json-util.h"
#include "macro.h"
#include "metrics.h"

/* The document's keys of the typed values, indexed by their enums. */
static const char *const clock_keys[_METRICS_CLOCK_VALUE_MAX] = {
        [METRICS_CLOCK_MASTER_OFFSET_NS] = "master_offset_ns",
        [METRICS_CLOCK_MEAN_PATH_DELAY_NS] = "mean_path_delay_ns",
        [METRICS_CLOCK_PHC_OFFSET_NS] = "phc_sys_offset_ns",
        [METRICS_CLOCK_TAI_OFFSET_S] = "tai_offset_s",
};

static const char *const counter_keys[_METRICS_COUNTER_MAX] = {
        [METRICS_PACKETS] = "packets",
        [METRICS_BYTES] = "bytes",
        [METRICS_DROPS] = "drops",
        [METRICS_OVERLIMITS] = "overlimits",
        [METRICS_REQUEUES] = "requeues",
        [METRICS_DEADLINE_MISSES] = "deadline_misses",
        [METRICS_INVALID] = "invalid",
        [METRICS_BACKLOG_BYTES] = "backlog_bytes",
        [METRICS_BACKLOG_PACKETS] = "backlog_packets",
};

static const char *const link_counter_keys[_METRICS_LINK_COUNTER_MAX] = {
        [METRICS_LINK_RELOADS] = "reloads",
        [METRICS_LINK_APPLIES] = "applies",
        [METRICS_LINK_DRIFT_REPAIRS] = "drift_repairs",
        [METRICS_LINK_APPLY_FAILURES] = "apply_failures",
};

/* The keys of taprio's offload statistics in the root's "stats". */
static const char *const taprio_stat_keys[_METRICS_TAPRIO_STAT_MAX] = {
        [METRICS_TAPRIO_WINDOW_DROPS] = "window_drops",
        [METRICS_TAPRIO_TX_OVERRUNS] = "tx_overruns",
};

static bool is_object(struct json_object *o) {
        return o && json_object_is_type(o, json_type_object);
}

/* Member key of o when it is a JSON integer (absent, null or another type:
 * false). */
static bool get_int(struct json_object *o, const char *key, int64_t *ret) {
        struct json_object *v = json_get(o, key);

        if (!v || !json_object_is_type(v, json_type_int))
                return false;
        *ret = json_object_get_int64(v);
        return true;
}

/* A boolean member as 1 or 0, -1 when it is not a boolean. */
static int8_t get_tristate(struct json_object *o, const char *key) {
        struct json_object *v = json_get(o, key);

        if (!v || !json_object_is_type(v, json_type_boolean))
                return -1;
        return json_object_get_boolean(v) ? 1 : 0;
}

/* "checked_at" as clock_status_to_json() writes it ("2026-12-03T06:00:00.123456Z",
 * the fraction optional) in microseconds since the epoch; 0 when it is not
 * such a time. */
static uint64_t get_time_usec(struct json_object *o, const char *key) {
        const char *t = json_get_string(o, key), *end;
        struct tm tm = {};
        uint64_t usec = 0;
        time_t sec;

        if (!t || !(end = strptime(t, "%Y-%m-%dT%H:%M:%S", &tm)))
                return 0;
        if (*end == '.') {
                unsigned digits = 0;

                for (end++; *end >= '0' && *end <= '9'; end++)
                        if (digits++ < 6)
                                usec = usec * 10 + (uint64_t) (*end - '0');
                for (; digits < 6; digits++)
                        usec *= 10;
        }
        if (strcmp(end, "Z") != 0)
                return 0;
        sec = timegm(&tm);
        if (sec <= 0)
                return 0;
        return (uint64_t) sec * 1000000u + usec;
}

static void queue_from_json(struct json_object *q, MetricsQueue *ret) {
        struct json_object *stats = json_get(q, "stats");

        *ret = (MetricsQueue) {
                .queue = json_get_int(q, "queue", -1),
                .qdisc = json_get_string(q, "qdisc"),
                .offload = get_tristate(q, "offload"),
                .installed = get_tristate(q, "installed"),
        };
        for (unsigned i = 0; i < _METRICS_COUNTER_MAX; i++)
                if (get_int(stats, counter_keys[i], &ret->counters[i]))
                        ret->has_counters |= 1u << i;
        for (unsigned i = 0; i < _METRICS_TAPRIO_STAT_MAX; i++)
                if (get_int(stats, taprio_stat_keys[i], &ret->taprio_stats[i]) && ret->taprio_stats[i] >= 0)
                        ret->has_taprio_stats |= 1u << i;
}

static uint64_t get_count(struct json_object *o, const char *key) {
        int64_t v = 0;

        return get_int(o, key, &v) && v > 0 ? (uint64_t) v : 0;
}

static LaunchStampSource get_source(struct json_object *o) {
        const char *s = json_get_string(o, "source");

        for (LaunchStampSource i = 0; s && i < _LAUNCH_STAMP_MAX; i++)
                if (strcmp(s, launch_stamp_source_to_string(i)) == 0)
                        return i;
        return LAUNCH_STAMP_NONE;
}

/* The histogram of a "monitor" object: "sum_ns" and "buckets" (per bucket,
 * not cumulative). False when either is missing or malformed. */
static bool hist_from_json(struct json_object *m, LaunchHist *ret) {
        struct json_object *b = json_get(m, "buckets");
        LaunchHist h = {};

        if (!get_int(m, "sum_ns", &h.sum_ns) || !b || !json_object_is_type(b, json_type_array) ||
            json_object_array_length(b) != LAUNCH_HIST_BUCKETS)
                return false;
        for (size_t i = 0; i < LAUNCH_HIST_BUCKETS; i++) {
                struct json_object *v = json_object_array_get_idx(b, i);

                if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
                        return false;
                h.bucket[i] = (uint64_t) json_object_get_int64(v);
                h.count += h.bucket[i];
        }
        *ret = h;
        return true;
}

/* A "monitor" object of a monitor that runs: Describe() has one for
 * every queue whose schedule asks for it, with "running": false while the
 * tree is not installed (the metrics file has no series for those). */
static bool is_running(struct json_object *m) {
        return is_object(m) && json_get_bool(m, "running", 1);
}

/* The monitored queues of the "txqueues" array qs (each with a running
 * "monitor" object) into l->launch. */
static int launch_from_json(struct json_object *qs, MetricsLink *l) {
        size_t len = json_object_array_length(qs), n = 0;
        LaunchQueueStats *v;

        for (size_t j = 0; j < len; j++)
                n += is_running(json_get(json_object_array_get_idx(qs, j), "monitor"));
        if (n == 0)
                return 0;
        v = calloc(n, sizeof(LaunchQueueStats));
        if (!v)
                return -ENOMEM;
        for (size_t j = 0; j < len; j++) {
                struct json_object *q = json_object_array_get_idx(qs, j), *m = json_get(q, "monitor");
                LaunchQueueStats *st = &v[l->n_launch];

                if (!is_running(m))
                        continue;
                *st = (LaunchQueueStats) {
                        .queue = (uint32_t) json_get_int(q, "queue", 0),
                        .source = get_source(m),
                        .sent = get_count(m, "sent"),
                        .missed = get_count(m, "missed"),
                        .invalid = get_count(m, "invalid"),
                        .unstamped = get_count(m, "unstamped"),
                };
                if (!hist_from_json(m, &st->hist))
                        l->launch_without_hist = true;
                l->n_launch++;
        }
        l->launch = v;
        return 0;
}

/* Describe()'s "mac_merge" (null where the device has none). */
static void mac_merge_from_json(struct json_object *m, MetricsLink *l) {
        struct json_object *n = json_get(m, "counters");

        if (!is_object(m))
                return;
        l->has_mac_merge = true;
        l->mac_merge.tx_enabled = get_tristate(m, "tx_enabled") > 0;
        l->mac_merge.tx_active = get_tristate(m, "tx_active") > 0;
        l->mac_merge.verify_status =
                (uint8_t) metrics_mac_merge_verify_status_from_string(json_get_string(m, "verify_status"));
        for (unsigned i = 0; i < _METRICS_MM_COUNTER_MAX; i++) {
                int64_t v;

                if (get_int(n, metrics_mac_merge_counter_key(i), &v) && v >= 0) {
                        l->mac_merge.counters[i] = (uint64_t) v;
                        l->mac_merge.has_counters |= (uint8_t) (1u << i);
                }
        }
}

int metrics_link_from_json(struct json_object *doc, MetricsLink *ret) {
        struct json_object *clock, *qs, *counters;
        MetricsLink l;
        size_t n = 0;

        if (!is_object(doc))
                return -EINVAL;
        clock = json_get(doc, "clock");
        l = (MetricsLink) {
                .interface = json_get_string(doc, "interface"),
                .state = json_get_string(doc, "state"),
                .has_clock = is_object(clock),
                .clock_state = json_get_string(clock, "state"),
                .ptp4l = json_get_string(clock, "ptp4l_socket"),
                .port_state = json_get_string(clock, "port_state"),
                .clock_checked_at_usec = get_time_usec(clock, "checked_at"),
        };
        counters = json_get(doc, "counters");
        l.has_counters = is_object(counters);
        for (unsigned i = 0; i < _METRICS_LINK_COUNTER_MAX; i++) {
                int64_t v = 0;

                if (get_int(counters, link_counter_keys[i], &v) && v >= 0)
                        l.counters[i] = (uint64_t) v;
        }
        for (unsigned i = 0; i < _METRICS_CLOCK_VALUE_MAX; i++)
                if (get_int(clock, clock_keys[i], &l.clock_values[i]))
                        l.has_clock_values |= 1u << i;
        mac_merge_from_json(json_get(doc, "mac_merge"), &l);
        for (unsigned i = 0; i < _METRICS_TAPRIO_STAT_MAX; i++) {
                int64_t v = 0;

                if (get_int(json_get(json_get(doc, "root"), "stats"), taprio_stat_keys[i], &v) && v >= 0) {
                        l.taprio_stats[i] = (uint64_t) v;
                        l.has_taprio_stats |= 1u << i;
                }
        }

        qs = json_get(doc, "txqueues");
        if (qs && json_object_is_type(qs, json_type_array)) {
                size_t len = json_object_array_length(qs);

                for (size_t j = 0; j < len; j++)
                        n += is_object(json_object_array_get_idx(qs, j));
                if (n > 0) {
                        l.queues = calloc(n, sizeof(MetricsQueue));
                        if (!l.queues)
                                return -ENOMEM;
                }
                for (size_t j = 0; j < len; j++) {
                        struct json_object *q = json_object_array_get_idx(qs, j);

                        if (is_object(q))
                                queue_from_json(q, &l.queues[l.n_queues++]);
                }
                if (launch_from_json(qs, &l) < 0) {
                        free(l.queues);
                        return -ENOMEM;
                }
        }
        *ret = l;
        return 0;
}

void metrics_link_done(MetricsLink *l) {
        l->queues = mfree(l->queues);
        l->n_queues = 0;
        free((LaunchQueueStats *) l->launch); /* allocated by launch_from_json() */
        l->launch = NULL;
        l->n_launch = 0;
}

MetricsLink *metrics_links_free(MetricsLink *links, size_t n) {
        for (size_t i = 0; links && i < n; i++)
                metrics_link_done(&links[i]);
        free(links);
        return NULL;
}

int metrics_links_from_json(struct json_object *const *docs, size_t n, MetricsLink **ret, size_t *ret_n) {
        MetricsLink *v = calloc(n ?: 1, sizeof(MetricsLink));
        size_t k = 0;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                int r;

                if (!is_object(docs[i]))
                        continue;
                r = metrics_link_from_json(docs[i], &v[k]);
                if (r < 0) {
                        metrics_links_free(v, k);
                        return r;
                }
                k++;
        }
        *ret = v;
        *ret_n = k;
        return 0;
}

int metrics_render(struct json_object *const *docs, size_t n, FILE *out) {
        MetricsLink *v = NULL;
        size_t k = 0;
        int r;

        r = metrics_links_from_json(docs, n, &v, &k);
        if (r < 0)
                return r;
        r = metrics_render_links(v, k, out);
        metrics_links_free(v, k);
        return r;
}

int metrics_render_string(struct json_object *const *docs, size_t n, char **ret) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        r = metrics_render(docs, n, f);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

int metrics_render_json(struct json_object *const *docs, size_t n, struct json_object **ret) {
        MetricsLink *v = NULL;
        size_t k = 0;
        int r;

        r = metrics_links_from_json(docs, n, &v, &k);
        if (r < 0)
                return r;
        r = metrics_render_links_json(v, k, ret);
        metrics_links_free(v, k);
        return r;
}

int metrics_write_file(struct json_object *const *docs, size_t n, const char *path) {
        MetricsLink *v = NULL;
        size_t k = 0;
        int r;

        r = metrics_links_from_json(docs, n, &v, &k);
        if (r < 0)
                return r;
        r = metrics_write_links_file(v, k, path);
        metrics_links_free(v, k);
        return r;
}

/* The writer keeps each added document's typed sample, with its strings
 * copied into one block per link (the document may be freed at once). */
struct MetricsWriter {
        MetricsLink *links;
        char **strings;
        size_t n, allocated;
        bool failed;
};

int metrics_writer_new(MetricsWriter **ret) {
        MetricsWriter *w = calloc(1, sizeof(MetricsWriter));

        if (!w)
                return -ENOMEM;
        *ret = w;
        return 0;
}

MetricsWriter *metrics_writer_free(MetricsWriter *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < w->n; i++)
                free(w->strings[i]);
        metrics_links_free(w->links, w->n);
        free(w->strings);
        free(w);
        return NULL;
}

static size_t string_size(const char *s) {
        return s ? strlen(s) + 1 : 0;
}

/* Copy *s to *at and point it there. */
static void move_string(const char **s, char **at) {
        size_t n = string_size(*s);

        if (n == 0)
                return;
        memcpy(*at, *s, n);
        *s = *at;
        *at += n;
}

/* Copy l's strings into one new block (*ret) and point l at the copies. */
static int own_strings(MetricsLink *l, char **ret) {
        size_t size = string_size(l->interface) + string_size(l->state) + string_size(l->clock_state) +
                      string_size(l->ptp4l) + string_size(l->port_state);
        char *block, *at;

        for (size_t i = 0; i < l->n_queues; i++)
                size += string_size(l->queues[i].qdisc);
        block = at = malloc(size ?: 1);
        if (!block)
                return -ENOMEM;
        move_string(&l->interface, &at);
        move_string(&l->state, &at);
        move_string(&l->clock_state, &at);
        move_string(&l->ptp4l, &at);
        move_string(&l->port_state, &at);
        for (size_t i = 0; i < l->n_queues; i++)
                move_string(&l->queues[i].qdisc, &at);
        *ret = block;
        return 0;
}

void metrics_writer_add(MetricsWriter *w, struct json_object *doc) {
        MetricsLink l;

        if (!is_object(doc))
                return;
        if (w->n == w->allocated) {
                size_t a = w->allocated ? 2 * w->allocated : 8;
                MetricsLink *links = reallocarray(w->links, a, sizeof(MetricsLink));
                char **strings;

                if (links)
                        w->links = links;
                strings = links ? reallocarray(w->strings, a, sizeof(char *)) : NULL;
                if (!strings) {
                        w->failed = true;
                        return;
                }
                w->strings = strings;
                w->allocated = a;
        }
        if (metrics_link_from_json(doc, &l) < 0) {
                w->failed = true;
                return;
        }
        if (own_strings(&l, &w->strings[w->n]) < 0) {
                metrics_link_done(&l);
                w->failed = true;
                return;
        }
        w->links[w->n++] = l;
}

int metrics_writer_finish(MetricsWriter *w, FILE *out) {
        if (w->failed)
                return -ENOMEM;
        return metrics_render_links(w->links, w->n, out);
}

int metrics_writer_write_file(MetricsWriter *w, const char *path) {
        if (w->failed)
                return -ENOMEM;
        return metrics_write_links_file(w->links, w->n, path);
}

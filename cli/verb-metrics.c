/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl metrics: the Prometheus text exposition of every link's status
 * (lib/metrics.h), for a scrape wrapper or a textfile collector; with
 * --json the same samples as JSON (metrics_render_links_json()). The
 * Describe() documents are read into typed samples once, and rendered by
 * the code that writes tbsd's --metrics-file. The launch-time histogram's
 * buckets and sum are not in Describe(): they come from the Link's
 * LaunchTimeError property and are added to each monitored queue's
 * "monitor" object first (lib/metrics.h, metrics_link_from_json()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "json-util.h"
#include "launch-hist.h"
#include "log.h"
#include "metrics.h"
#include "sd-cleanup.h"
#include "verbs.h"

static struct json_object *monitor_of(struct json_object *doc, uint32_t queue) {
        struct json_object *qs = json_get(doc, "txqueues");

        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i);

                if (json_get_int(q, "queue", -1) == (int64_t) queue)
                        return json_get(q, "monitor");
        }
        return NULL;
}

static bool has_monitor(struct json_object *doc) {
        struct json_object *qs = json_get(doc, "txqueues");

        for (size_t i = 0; qs && i < json_object_array_length(qs); i++)
                if (json_get(json_object_array_get_idx(qs, i), "monitor"))
                        return true;
        return false;
}

/* Read one struct of LaunchTimeError (a(ustttttttxxxxxat), dbus/org.tsn.Tbs.xml)
 * and add its "sum_ns" and "buckets" to the queue's monitor object in doc.
 * Returns 1, 0 at the end of the array, or -errno. */
static int read_launch_entry(sd_bus_message *m, struct json_object *doc) {
        uint64_t sent, missed, invalid, unstamped, count, early, late;
        int64_t sum, min, p50, p99, max;
        struct json_object *mon, *buckets = NULL;
        const uint64_t *b;
        size_t size;
        const char *source;
        uint32_t queue;
        int r;

        r = sd_bus_message_enter_container(m, 'r', "ustttttttxxxxxat");
        if (r <= 0)
                return r;
        r = sd_bus_message_read(m, "ustttttttxxxxx", &queue, &source, &sent, &missed, &invalid, &unstamped, &count,
                                &early, &late, &sum, &min, &p50, &p99, &max);
        if (r < 0)
                return r;
        r = sd_bus_message_read_array(m, 't', (const void **) &b, &size);
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        mon = monitor_of(doc, queue);
        if (!mon || size != LAUNCH_HIST_BUCKETS * sizeof(uint64_t))
                return 1; /* not in the document (it changed between the calls), or other edges */
        buckets = json_object_new_array();
        for (size_t i = 0; buckets && i < LAUNCH_HIST_BUCKETS; i++)
                if (json_object_array_add(buckets, json_object_new_int64(b[i] > INT64_MAX ? INT64_MAX
                                                                                           : (int64_t) b[i])) < 0)
                        return -ENOMEM;
        if (json_add_made(mon, "buckets", buckets) < 0 || json_add_made(mon, "sum_ns", json_object_new_int64(sum)) < 0)
                return -ENOMEM;
        return 1;
}

/* Add the histograms of doc's monitored queues from the Link's
 * LaunchTimeError property. A daemon without the property leaves the
 * documents as they are (the probe counters only). */
static int add_launch_histograms(sd_bus *bus, struct json_object *doc) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        const char *ifname = json_get_string(doc, "interface");
        int r;

        if (!ifname || !has_monitor(doc))
                return 0;
        r = client_get_link(bus, ifname, &path);
        if (r < 0)
                return r;
        r = sd_bus_get_property(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE, "LaunchTimeError", &error, &reply,
                                "a(ustttttttxxxxxat)");
        if (r < 0) {
                if (sd_bus_error_has_names(&error, SD_BUS_ERROR_UNKNOWN_PROPERTY, SD_BUS_ERROR_INVALID_ARGS))
                        return 0;
                return client_call_failed(ifname, &error, r);
        }
        r = sd_bus_message_enter_container(reply, 'a', "(ustttttttxxxxxat)");
        while (r > 0)
                r = read_launch_entry(reply, doc);
        if (r < 0)
                return log_error_errno(r, "%s: LaunchTimeError: bad reply: %m", ifname);
        return 0;
}

int verb_metrics(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *docs = NULL;
        _cleanup_free_ struct json_object **v = NULL;
        MetricsLink *links = NULL;
        size_t n, n_links = 0;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_describe_links(bus, argc, argv, &docs);
        if (r < 0)
                return client_exit_status(r);
        n = json_object_array_length(docs);
        v = calloc(n ?: 1, sizeof(struct json_object *));
        if (!v)
                return client_exit_status(log_error_errno(ENOMEM, "out of memory"));
        for (size_t i = 0; i < n; i++) {
                v[i] = json_object_array_get_idx(docs, i);
                r = add_launch_histograms(bus, v[i]);
                if (r < 0)
                        return client_exit_status(r);
        }
        r = metrics_links_from_json(v, n, &links, &n_links);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "cannot build the metrics: %m"));
        if (arg_json) {
                _cleanup_json_ struct json_object *o = NULL;

                r = metrics_render_links_json(links, n_links, &o);
                metrics_links_free(links, n_links);
                if (r < 0)
                        return client_exit_status(log_error_errno(r, "cannot build the metrics: %m"));
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
                if (fflush(stdout) != 0)
                        return client_exit_status(log_error_errno(errno, "cannot write the metrics: %m"));
                return TBSCTL_EXIT_OK;
        }
        r = metrics_render_links(links, n_links, stdout);
        metrics_links_free(links, n_links);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "cannot write the metrics: %m"));
        return TBSCTL_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl metrics: the Prometheus text exposition of every link's status
 * (lib/metrics.h), for a scrape wrapper or a textfile collector; with
 * --json the same samples as JSON (metrics_render_links_json()). The
 * Describe() documents are read into typed samples once, and rendered by
 * the code that writes tbsd's --metrics-file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "json-util.h"
#include "log.h"
#include "metrics.h"
#include "sd-cleanup.h"
#include "verbs.h"

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
        for (size_t i = 0; i < n; i++)
                v[i] = json_object_array_get_idx(docs, i);
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

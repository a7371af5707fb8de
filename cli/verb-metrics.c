/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl metrics: the Prometheus text exposition of every link's status
 * (lib/metrics.h), for a scrape wrapper or a textfile collector. */
#include <stdio.h>

#include "client.h"
#include "json-util.h"
#include "log.h"
#include "metrics.h"
#include "sd-cleanup.h"
#include "verbs.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);

typedef struct Docs {
        struct json_object **v;
        size_t n;
} Docs;

static void docs_done(Docs *d) {
        for (size_t i = 0; i < d->n; i++)
                json_object_put(d->v[i]);
        free(d->v);
}

int verb_metrics(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_(strv_freep) char **all = NULL;
        _cleanup_(docs_done) Docs docs = {};
        char **names = argv;
        size_t n = (size_t) argc;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return client_exit_status(r);
        if (argc == 0) {
                r = client_list_links(bus, &all);
                if (r < 0)
                        return client_exit_status(r);
                names = all;
                for (n = 0; all[n]; n++)
                        ;
        }
        docs.v = calloc(n ?: 1, sizeof(struct json_object *));
        if (!docs.v)
                return client_exit_status(log_error_errno(ENOMEM, "out of memory"));
        for (size_t i = 0; i < n; i++) {
                r = client_describe(bus, names[i], &docs.v[i]);
                if (r < 0)
                        return client_exit_status(r);
                docs.n++;
        }
        r = metrics_render(docs.v, docs.n, stdout);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "cannot write the metrics: %m"));
        return TBSCTL_EXIT_OK;
}

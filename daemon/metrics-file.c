/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "json-util.h"
#include "log.h"
#include "metrics-file.h"
#include "metrics.h"
#include "nl-qdisc.h"

int metrics_file_write(Link **links, size_t n, const char *path) {
        MetricsWriter *w = NULL;
        int r;

        r = metrics_writer_new(&w);
        if (r < 0)
                return r;
        /* One link's status document at a time: all of them at once would
         * be megabytes with hundreds of links, every sampling interval. */
        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                const QDiscTree *t = link_last_sample(l, NULL);
                struct json_object *doc = NULL;

                /* A link without a sample (absent) is still described: its
                 * state is a metric too. */
                if (link_describe_tree(l, t ?: &(QDiscTree) {}, &doc) >= 0) {
                        metrics_writer_add(w, doc);
                        json_object_put(doc);
                }
        }
        r = metrics_writer_write_file(w, path);
        metrics_writer_free(w);
        return r < 0 ? r : 0;
}

void metrics_file_update(Link **links, size_t n, const char *path, int *last_error) {
        int r = metrics_file_write(links, n, path);

        /* Every sampling interval would repeat the same line: say it when
         * the error starts or changes, and once when writing works again. */
        if (r < 0 && r != *last_error)
                log_warning_errno(r, "cannot write the metrics file %s: %m (not repeated while it persists)", path);
        else if (r >= 0 && *last_error < 0)
                log_info("metrics file %s written again", path);
        *last_error = r < 0 ? r : 0;
}

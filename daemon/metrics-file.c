/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>

#include "json-util.h"
#include "link.h"
#include "log.h"
#include "metrics-file.h"
#include "metrics.h"

int metrics_file_write(Manager *m, const char *path) {
        struct json_object **docs;
        size_t n = 0;
        int r;

        docs = calloc(m->n_links + 1, sizeof(struct json_object *));
        if (!docs)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_links; i++) {
                Link *l = m->links[i];
                const QDiscTree *t = link_last_sample(l, NULL);

                /* A link without a sample (absent) is still described: its
                 * state is a metric too. */
                if (link_describe_tree(l, t ?: &(QDiscTree) {}, &docs[n]) >= 0)
                        n++;
        }

        r = metrics_write_file(docs, n, path);
        for (size_t i = 0; i < n; i++)
                json_object_put(docs[i]);
        free(docs);
        return r < 0 ? r : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics-render [--write PATH | --json] DOC.json...: the Prometheus
 * exposition of status documents read from files (lib/metrics.h), on
 * standard output or, with --write, atomically into PATH; with --json the
 * samples as JSON (what tbsctl --json metrics prints). For the format and
 * dashboard tests. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "metrics.h"

int main(int argc, char *argv[]) {
        struct json_object *docs[64] = {};
        const char *path = NULL;
        bool json = false;
        size_t n = 0;
        int i = 1, r;

        if (argc > 2 && strcmp(argv[1], "--write") == 0) {
                path = argv[2];
                i = 3;
        } else if (argc > 1 && strcmp(argv[1], "--json") == 0) {
                json = true;
                i = 2;
        }
        for (; i < argc && n < ELEMENTSOF(docs); i++) {
                docs[n] = json_object_from_file(argv[i]);
                if (!docs[n]) {
                        fprintf(stderr, "%s: cannot read JSON: %s\n", argv[i], json_util_get_last_err());
                        return 1;
                }
                n++;
        }
        if (json) {
                struct json_object *o = NULL;

                r = metrics_render_json(docs, n, &o);
                if (r >= 0)
                        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
                json_object_put(o);
        } else
                r = path ? metrics_write_file(docs, n, path) : metrics_render(docs, n, stdout);
        for (size_t j = 0; j < n; j++)
                json_object_put(docs[j]);
        if (r < 0) {
                fprintf(stderr, "cannot write the metrics: %s\n", strerror(-r));
                return 1;
        }
        return 0;
}

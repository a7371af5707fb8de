/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The document's keys back to the YANG nodes they came from (nc-origin.h). */
#include "nc-origin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int nc_origin_add(struct nc_origin **list, const char *key, const char *node, const void *source) {
        struct nc_origin *o = calloc(1, sizeof(*o));

        if (!o || !(o->key = strdup(key)) || !(o->node = strdup(node))) {
                nc_origin_free(o);
                return -ENOMEM;
        }
        o->source = source;
        o->next = *list;
        *list = o;
        return 0;
}

void nc_origin_free(struct nc_origin *list) {
        while (list) {
                struct nc_origin *next = list->next;
                free(list->key);
                free(list->node);
                free(list);
                list = next;
        }
}

const char *nc_origin_line_key(const char *line, char *buf, size_t size) {
        const char *by = line ? strstr(line, ") by ") : NULL;
        const char *start = by ? strstr(by, ": ") : NULL;
        const char *end;

        if (!start || size == 0)
                return NULL;
        start += 2;
        end = strstr(start, ": ");
        if (!end || end == start || (size_t) (end - start) >= size)
                return NULL;
        memcpy(buf, start, (size_t) (end - start));
        buf[end - start] = 0;
        return buf;
}

const struct nc_origin *nc_origin_find(const struct nc_origin *list, const char *key) {
        const struct nc_origin *best = NULL;
        size_t best_len = 0;

        for (const struct nc_origin *o = key ? list : NULL; o; o = o->next) {
                size_t n = strlen(o->key);

                if (n <= best_len || strncmp(o->key, key, n) != 0)
                        continue;
                if (key[n] == 0 || key[n] == '.' || key[n] == '[') {
                        best = o;
                        best_len = n;
                }
        }
        return best;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl status, list, caps, clock, stats: read-only views of Describe().
 * Human and JSON output come from the same document: the JSON is printed
 * as is, the human form is rendered from it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json-util.h"
#include "launch-print.h"
#include "status-render.h"
#include "log.h"
#include "qdisc-kind.h"
#include "sd-cleanup.h"
#include "utf8.h"
#include "verbs.h"

static void print_json(struct json_object *o) {
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* Describe every named link (or all of them) and render each document (or
 * its member `key`); with --json print them as one value: the document
 * itself when one link was named, an array otherwise. */
static int for_links(int argc, char *argv[], const char *key, void (*render)(struct json_object *)) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *docs = NULL, *out = NULL;
        size_t n;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_describe_links(bus, argc, argv, &docs);
        if (r < 0)
                return client_exit_status(r);
        if (!arg_json)
                (void) json_escape_strings(docs);  /* names and reasons quote outside text */
        n = json_object_array_length(docs);
        out = json_object_new_array();
        for (size_t i = 0; i < n; i++) {
                struct json_object *d = json_object_array_get_idx(docs, i);
                struct json_object *v = key ? json_get(d, key) : d;

                if (arg_json) {
                        json_object_array_add(out, json_object_get(v));
                        continue;
                }
                if (i > 0)
                        putchar('\n');
                if (key)
                        printf("%s:\n", str_or(d, "interface", "?"));
                render(v);
        }
        if (arg_json)
                print_json(argc == 1 && n == 1 ? json_object_array_get_idx(out, 0) : out);
        return TBSCTL_EXIT_OK;
}

int verb_status(int argc, char *argv[]) {
        return for_links(argc, argv, NULL, render_status);
}

int verb_caps(int argc, char *argv[]) {
        return for_links(argc, argv, "capabilities", render_caps);
}

int verb_clock(int argc, char *argv[]) {
        return for_links(argc, argv, "clock", render_clock);
}

static void render_stats(struct json_object *d) {
        struct json_object *qs = json_get(d, "txqueues");
        char offload[96];

        printf("%-6s %-8s %12s %14s %10s %10s %10s %10s\n", "QUEUE", "QDISC", "PACKETS", "BYTES",
               "DROPS", "MISSED", "INVALID", "BACKLOG");
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *st = json_get(q, "stats");
                printf("%-6" PRId64 " %-8s %12" PRId64 " %14" PRId64 " %10" PRId64 " %10" PRId64 " %10" PRId64
                       " %10" PRId64 "\n",
                       json_get_int(q, "queue", -1), str_or(q, "qdisc", "none"), json_get_int(st, "packets", 0),
                       json_get_int(st, "bytes", 0), json_get_int(st, "drops", 0),
                       json_get_int(st, "deadline_misses", 0), json_get_int(st, "invalid", 0),
                       json_get_int(st, "backlog_bytes", 0));
        }
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), offload, sizeof(offload)))
                printf("root %s: %s\n", str_or(json_get(d, "root"), "qdisc", "?"), offload);
        print_launch_queues(stdout, qs);
}

static struct json_object *stats_document(struct json_object *d) {
        struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
        struct json_object *qs = json_get(d, "txqueues");
        char buf[96];

        json_add_string(o, "interface", json_get_string(d, "interface"));
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *e = json_object_new_object();
                json_add(e, "queue", json_object_new_int64(json_get_int(q, "queue", -1)));
                json_add_string(e, "qdisc", json_get_string(q, "qdisc"));
                json_add(e, "stats", json_object_get(json_get(q, "stats")));
                /* Describe()'s object as it is (monitored queues only) */
                if (json_get(q, "monitor"))
                        json_add(e, "monitor", json_object_get(json_get(q, "monitor")));
                json_object_array_add(arr, e);
        }
        json_add(o, "txqueues", arr);
        /* taprio's offload statistics, where the kernel gives them */
        if (taprio_offload_stats(json_get(json_get(d, "root"), "stats"), buf, sizeof(buf))) {
                struct json_object *r = json_object_new_object(), *st = json_get(json_get(d, "root"), "stats");

                if (json_get(st, "window_drops"))
                        json_add(r, "window_drops", json_object_get(json_get(st, "window_drops")));
                if (json_get(st, "tx_overruns"))
                        json_add(r, "tx_overruns", json_object_get(json_get(st, "tx_overruns")));
                json_add(o, "root_offload_stats", r);
        }
        return o;
}

int verb_stats(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *d = NULL, *s = NULL;
        int r;

        if (arg_watch >= 0 || argc > 1)
                return stats_watch(argc, argv);
        r = client_connect(&bus);
        if (r >= 0)
                r = client_describe(bus, argv[0], &d);
        if (r < 0)
                return client_exit_status(r);
        if (arg_json) {
                s = stats_document(d);
                print_json(s);
        } else {
                (void) json_escape_strings(d);
                render_stats(d);
        }
        return TBSCTL_EXIT_OK;
}

/* One row of tbsctl list, from a link's Describe() document. */
typedef struct ListRow {
        struct json_object *doc;
        const char *path;
        int64_t ifindex;
} ListRow;

/* The order of every listing (client_compare_names()): by name. */
static int list_row_compare(const void *a, const void *b) {
        const ListRow *x = a, *y = b;

        return client_compare_names(str_or(x->doc, "interface", ""), str_or(y->doc, "interface", ""));
}

/* Queues whose qdisc runs in the device, and queues with an etf (or cbs)
 * qdisc declared. */
static void offload_counts(struct json_object *d, int64_t *ret_offloaded, int64_t *ret_queues) {
        struct json_object *qs = json_get(d, "txqueues");

        *ret_offloaded = *ret_queues = 0;
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i);

                (*ret_queues)++;
                if (json_get_bool(q, "offload", 0))
                        (*ret_offloaded)++;
        }
}

int verb_list(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_json_ struct json_object *arr = json_object_new_array(), *docs = NULL;
        _cleanup_free_ ListRow *rows = NULL;
        const char *name, *path, *state;
        size_t n = 0;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return client_exit_status(r);
        r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "ListLinks",
                               &error, &reply, NULL);
        if (r < 0)
                return client_exit_status(client_call_failed("ListLinks", &error, r));
        r = client_describe_links(bus, 0, NULL, &docs);
        if (r < 0)
                return client_exit_status(r);
        rows = calloc(json_object_array_length(docs) + 1, sizeof(ListRow));
        if (!rows)
                return client_exit_status(log_error_errno(-ENOMEM, "list: %m"));
        r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        if (r < 0)
                return client_exit_status(log_error_errno(r, "ListLinks: bad reply: %m"));
        while ((r = sd_bus_message_read(reply, "(sos)", &name, &path, &state)) > 0)
                /* Pair each path with its document (a link that went away
                 * between the two calls has none and is left out). */
                for (size_t i = 0; i < json_object_array_length(docs); i++) {
                        struct json_object *d = json_object_array_get_idx(docs, i);

                        if (strcmp(str_or(d, "interface", ""), name) != 0 || n >= json_object_array_length(docs))
                                continue;
                        rows[n++] = (ListRow) { .doc = d, .path = path, .ifindex = json_get_int(d, "ifindex", 0) };
                        break;
                }
        if (r < 0)
                return client_exit_status(log_error_errno(r, "ListLinks: bad reply: %m"));
        qsort(rows, n, sizeof(ListRow), list_row_compare);

        if (!arg_json) {
                (void) json_escape_strings(docs);
                printf("%3s %-16s %-11s %-14s %s%s\n", "IDX", "LINK", "STATE", "CLOCK", "OFFLOAD",
                       arg_verbose ? " PATH" : "");
        }
        for (size_t i = 0; i < n; i++) {
                struct json_object *d = rows[i].doc;
                int64_t offloaded, queues;
                char idx[24], off[48];

                offload_counts(d, &offloaded, &queues);
                if (arg_json) {
                        struct json_object *e = json_object_new_object();
                        json_add_string(e, "interface", str_or(d, "interface", NULL));
                        json_add_string(e, "state", str_or(d, "state", NULL));
                        json_add_string(e, "path", rows[i].path);
                        json_add(e, "ifindex", json_object_new_int64(rows[i].ifindex));
                        json_add_string(e, "clock_state", json_get_string(json_get(d, "clock"), "state"));
                        json_add(e, "offloaded_queues", json_object_new_int64(offloaded));
                        json_add(e, "queues", json_object_new_int64(queues));
                        json_object_array_add(arr, e);
                        continue;
                }
                if (rows[i].ifindex > 0)
                        snprintf(idx, sizeof(idx), "%" PRId64, rows[i].ifindex);
                else
                        snprintf(idx, sizeof(idx), "-");
                snprintf(off, sizeof(off), "%" PRId64 "/%" PRId64, offloaded, queues);
                printf("%3s %-16s %-11s %-14s %-*s%s%s\n", idx, str_or(d, "interface", "?"),
                       str_or(d, "state", "?"), str_or(json_get(d, "clock"), "state", "-"),
                       arg_verbose ? 7 : 0, off, arg_verbose ? " " : "", arg_verbose ? rows[i].path : "");
        }
        if (arg_json)
                print_json(arr);
        else
                printf("\n%zu link%s listed.\n", n, n == 1 ? "" : "s");
        return TBSCTL_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl stats IFACE --watch [SECONDS]: the per-queue counters again every
 * SECONDS (default 1) until interrupted, with rates computed here from two
 * successive samples. With --json, one JSON object a line per sample. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "json-util.h"
#include "launch-print.h"
#include "log.h"
#include "parse-number.h"
#include "sd-cleanup.h"
#include "verbs.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        stop = 1;
}

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static const char *const counters[] = { "packets", "bytes", "drops", "deadline_misses", "invalid" };

static struct json_object *find_queue(struct json_object *doc, int64_t queue) {
        struct json_object *qs = json_get(doc, "txqueues");

        for (size_t i = 0; qs && i < json_object_array_length(qs); i++)
                if (json_get_int(json_object_array_get_idx(qs, i), "queue", -1) == queue)
                        return json_object_array_get_idx(qs, i);
        return NULL;
}

/* Rate of key between two stats objects dt seconds apart; -1 when unknown. */
static double rate(struct json_object *prev, struct json_object *cur, const char *key, double dt) {
        if (!prev || !cur || dt <= 0 || !json_get(prev, key) || !json_get(cur, key))
                return -1;
        return (double) (json_get_int(cur, key, 0) - json_get_int(prev, key, 0)) / dt;
}

static void print_sample(struct json_object *doc, struct json_object *prev, double dt, double t) {
        struct json_object *qs = json_get(doc, "txqueues");

        if (arg_json) {
                _cleanup_json_ struct json_object *o = json_object_new_object();
                struct json_object *arr = json_object_new_array();

                json_add_string(o, "interface", json_get_string(doc, "interface"));
                json_add(o, "interval_s", prev ? json_new_double_ms(dt) : NULL);
                for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                        struct json_object *q = json_object_array_get_idx(qs, i), *e = json_object_new_object();
                        struct json_object *st = json_get(q, "stats");
                        struct json_object *pst = json_get(find_queue(prev, json_get_int(q, "queue", -1)), "stats");
                        struct json_object *rates = NULL;

                        json_add(e, "queue", json_object_new_int64(json_get_int(q, "queue", -1)));
                        json_add_string(e, "qdisc", json_get_string(q, "qdisc"));
                        json_add(e, "stats", json_object_get(st));
                        if (pst && st && !json_object_is_type(st, json_type_null)) {
                                rates = json_object_new_object();
                                for (size_t k = 0; k < ELEMENTSOF(counters); k++) {
                                        char name[48];
                                        double r = rate(pst, st, counters[k], dt);
                                        snprintf(name, sizeof(name), "%s_per_second", counters[k]);
                                        json_add(rates, name, r >= 0 ? json_object_new_double(r) : NULL);
                                }
                        }
                        json_add(e, "rates", rates);
                        if (json_get(q, "monitor"))
                                json_add(e, "monitor", json_object_get(json_get(q, "monitor")));
                        json_object_array_add(arr, e);
                }
                json_add(o, "txqueues", arr);
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
                fflush(stdout);
                return;
        }
        if (isatty(STDOUT_FILENO))
                fputs("\033[H\033[2J", stdout);
        printf("%s, every %.3g s (Ctrl-C to stop)\n", json_get_string(doc, "interface") ?: "?", arg_watch);
        printf("%-6s %-6s %12s %10s %10s %10s %10s %10s %10s %10s\n", "QUEUE", "QDISC", "PACKETS", "PKT/S", "DROPS",
               "MISSED", "MISSED/S", "INVALID", "INVALID/S", "BACKLOG");
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *st = json_get(q, "stats");
                struct json_object *pst = json_get(find_queue(prev, json_get_int(q, "queue", -1)), "stats");
                char r[3][16];
                const char *keys[3] = { "packets", "deadline_misses", "invalid" };

                for (int k = 0; k < 3; k++) {
                        double v = rate(pst, st, keys[k], dt);
                        if (v < 0)
                                snprintf(r[k], sizeof(r[k]), "-");
                        else
                                snprintf(r[k], sizeof(r[k]), "%.1f", v);
                }
                printf("%-6" PRId64 " %-6s %12" PRId64 " %10s %10" PRId64 " %10" PRId64 " %10s %10" PRId64
                       " %10s %10" PRId64 "\n",
                       json_get_int(q, "queue", -1), json_get_string(q, "qdisc") ?: "-",
                       json_get_int(st, "packets", 0), r[0], json_get_int(st, "drops", 0),
                       json_get_int(st, "deadline_misses", 0), r[1], json_get_int(st, "invalid", 0), r[2],
                       json_get_int(st, "backlog_bytes", 0));
        }
        print_launch_queues(stdout, qs);
        (void) t;
        fflush(stdout);
}

int stats_watch(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_json_ struct json_object *prev = NULL;
        struct sigaction sa = { .sa_handler = on_signal };
        double prev_t = 0;
        int r;

        if (argc > 1) {
                uint64_t ns;

                if (arg_watch > 0) {
                        log_error("stats: the interval is given twice (--watch=%g and '%s')", arg_watch, argv[1]);
                        return TBSCTL_EXIT_USAGE;
                }
                if (parse_seconds_arg("stats: SECONDS", argv[1], false, WATCH_MIN_NS, WATCH_MAX_NS, &ns) < 0)
                        return TBSCTL_EXIT_USAGE;
                arg_watch = (double) ns / 1e9;
        }
        if (arg_watch <= 0)
                arg_watch = 1;
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);

        r = client_connect(&bus);
        if (r < 0)
                return client_exit_status(r);
        while (!stop) {
                _cleanup_json_ struct json_object *doc = NULL;
                struct timespec ts;
                uint64_t ns;
                double t;

                r = client_describe(bus, argv[0], &doc);
                if (r < 0)
                        return client_exit_status(r);
                t = now_s();
                if (!arg_json)
                        (void) json_escape_strings(doc);
                print_sample(doc, prev, t - prev_t, t);
                json_object_put(prev);
                prev = TAKE_PTR(doc);
                prev_t = t;
                /* arg_watch is within [WATCH_MIN_NS, WATCH_MAX_NS] (parsed strictly) */
                ns = (uint64_t) (arg_watch * 1e9 + 0.5);
                ts.tv_sec = (time_t) (ns / NSEC_PER_SEC);
                ts.tv_nsec = (long) (ns % NSEC_PER_SEC);
                /* A sleep that fails for another reason than a signal
                 * would turn the loop into a spin: stop instead. */
                while (!stop && nanosleep(&ts, &ts) < 0)
                        if (errno != EINTR)
                                return client_exit_status(log_error_errno(errno, "stats: cannot sleep: %m"));
        }
        return TBSCTL_EXIT_OK;
}

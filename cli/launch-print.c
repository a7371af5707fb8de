/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "json-util.h"
#include "launch-print.h"

char *format_ns_human(int64_t ns, char buf[static 32]) {
        static const struct {
                double div;
                const char *unit;
        } units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" } };
        double a = ns < 0 ? -(double) ns : (double) ns;

        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
                if (a >= units[i].div) {
                        double v = (double) ns / units[i].div;
                        int decimals = a / units[i].div >= 100 ? 0 : a / units[i].div >= 10 ? 1 : 2;

                        snprintf(buf, 32, "%.*f %s", decimals, v, units[i].unit);
                        return buf;
                }
        snprintf(buf, 32, "%" PRId64 " ns", ns);
        return buf;
}

static struct json_object *new_u64(uint64_t v) {
        return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t) v);
}

int launch_stats_to_json(const LaunchQueueStats *s, struct json_object *o) {
        static const double quantiles[] = { 0.5, 0.99 };
        static const char *const quantile_keys[] = { "p50_ns", "p99_ns" };
        bool any = s->hist.count > 0;
        int r = 0;

        r |= json_add_string(o, "source", launch_stamp_source_to_string(s->source) ?: "none");
        r |= json_add_made(o, "sent", new_u64(s->sent));
        r |= json_add_made(o, "missed", new_u64(s->missed));
        r |= json_add_made(o, "invalid", new_u64(s->invalid));
        r |= json_add_made(o, "unstamped", new_u64(s->unstamped));
        r |= json_add_made(o, "count", new_u64(s->hist.count));
        r |= json_add_made(o, "early", new_u64(s->hist.early));
        r |= json_add_made(o, "late", new_u64(s->hist.late));
        r |= json_add(o, "min_ns", any ? json_object_new_int64(s->hist.min_ns) : NULL);
        for (size_t i = 0; i < 2; i++) {
                int64_t v = 0;

                r |= json_add(o, quantile_keys[i],
                              any && launch_hist_quantile(&s->hist, quantiles[i], &v) == 0 ? json_object_new_int64(v)
                                                                                         : NULL);
        }
        r |= json_add(o, "max_ns", any ? json_object_new_int64(s->hist.max_ns) : NULL);
        return r < 0 ? -ENOMEM : 0;
}

static const char *figure(struct json_object *m, const char *key, char buf[static 32]) {
        struct json_object *v = json_get(m, key);

        if (!v || !json_object_is_type(v, json_type_int))
                return "-";
        return format_ns_human(json_object_get_int64(v), buf);
}

void print_launch_figures(FILE *out, struct json_object *m) {
        char p50[32], p99[32], max[32];

        fprintf(out,
                "source %s, sent %" PRId64 ", p50 %s, p99 %s, max %s, early %" PRId64 ", late %" PRId64
                ", missed %" PRId64 ", invalid %" PRId64 ", unstamped %" PRId64,
                json_get_string(m, "source") ?: "none", json_get_int(m, "sent", 0), figure(m, "p50_ns", p50),
                figure(m, "p99_ns", p99), figure(m, "max_ns", max), json_get_int(m, "early", 0),
                json_get_int(m, "late", 0), json_get_int(m, "missed", 0), json_get_int(m, "invalid", 0),
                json_get_int(m, "unstamped", 0));
}

void print_launch_queues(FILE *out, struct json_object *qs) {
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *m = json_get(q, "monitor");

                if (!m || !json_object_is_type(m, json_type_object))
                        continue;
                fprintf(out, "queue %" PRId64 " launch error: ", json_get_int(q, "queue", -1));
                print_launch_figures(out, m);
                fputc('\n', out);
        }
}

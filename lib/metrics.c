/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-util.h"
#include "metrics.h"
#include "saturate.h"

/* The states a link and a clock check can be in (dbus/org.tsn.Tbs.xml):
 * every one gets a series so that a state change never makes one vanish. */
static const char *const link_states[] = { "pending", "configured", "degraded", "failed", "absent", NULL };
static const char *const clock_states[] = { "synced", "unsynced", "no-ptp4l", "no-phc", "not-configured", NULL };

/* Where a family's samples come from in a MetricsLink. */
typedef enum Source {
        SOURCE_LINK_STATE,
        SOURCE_CLOCK_STATE,
        SOURCE_CLOCK_SYNCED,
        SOURCE_CLOCK_NS,        /* clock_values[index], ns written as seconds */
        SOURCE_CLOCK_S,         /* clock_values[index], seconds */
        SOURCE_QUEUE_OFFLOAD,
        SOURCE_QUEUE_INSTALLED,
        SOURCE_QUEUE_COUNTER,   /* counters[index] */
        SOURCE_QUEUE_RATE,      /* rates[index] */
} Source;

typedef struct Family {
        const char *name, *type, *help;
        Source source;
        unsigned index;
} Family;

/* The families in output order. */
static const Family families[] = {
        { "tbs_link_state", "gauge", "State of the link: 1 for the current state.", SOURCE_LINK_STATE, 0 },
        { "tbs_clock_state", "gauge", "State of the link's clock check: 1 for the current state.",
          SOURCE_CLOCK_STATE, 0 },
        { "tbs_clock_synced", "gauge", "1 when the link's clock check finds the clocks in sync.",
          SOURCE_CLOCK_SYNCED, 0 },
        { "tbs_clock_master_offset_seconds", "gauge",
          "Offset of the PTP port's clock from its master, as ptp4l reports it.",
          SOURCE_CLOCK_NS, METRICS_CLOCK_MASTER_OFFSET_NS },
        { "tbs_clock_mean_path_delay_seconds", "gauge", "Mean path delay to the PTP master, as ptp4l reports it.",
          SOURCE_CLOCK_NS, METRICS_CLOCK_MEAN_PATH_DELAY_NS },
        { "tbs_clock_phc_offset_seconds", "gauge", "Offset of the NIC's PTP hardware clock from CLOCK_TAI.",
          SOURCE_CLOCK_NS, METRICS_CLOCK_PHC_OFFSET_NS },
        { "tbs_clock_tai_offset_seconds", "gauge", "The kernel's TAI - UTC offset.",
          SOURCE_CLOCK_S, METRICS_CLOCK_TAI_OFFSET_S },
        { "tbs_launch_time_offload", "gauge", "1 when the queue's etf qdisc runs with launch-time offload in the NIC.",
          SOURCE_QUEUE_OFFLOAD, 0 },
        { "tbs_queue_installed", "gauge", "1 when the queue's declared etf qdisc is installed.",
          SOURCE_QUEUE_INSTALLED, 0 },
        { "tbs_queue_packets_total", "counter", "Packets the queue's qdisc sent.",
          SOURCE_QUEUE_COUNTER, METRICS_PACKETS },
        { "tbs_queue_bytes_total", "counter", "Bytes the queue's qdisc sent.",
          SOURCE_QUEUE_COUNTER, METRICS_BYTES },
        { "tbs_queue_drops_total", "counter",
          "Packets the queue's qdisc dropped (deadline misses and invalid included).",
          SOURCE_QUEUE_COUNTER, METRICS_DROPS },
        { "tbs_queue_overlimits_total", "counter", "Overlimit events of the queue's qdisc.",
          SOURCE_QUEUE_COUNTER, METRICS_OVERLIMITS },
        { "tbs_queue_requeues_total", "counter", "Packets the driver handed back to the queue's qdisc.",
          SOURCE_QUEUE_COUNTER, METRICS_REQUEUES },
        { "tbs_queue_deadline_misses_total", "counter",
          "etf: packets dropped because their launch time passed in the queue.",
          SOURCE_QUEUE_COUNTER, METRICS_DEADLINE_MISSES },
        { "tbs_queue_invalid_total", "counter",
          "etf: packets refused at enqueue (launch time in the past, wrong clock, no SO_TXTIME).",
          SOURCE_QUEUE_COUNTER, METRICS_INVALID },
        { "tbs_queue_backlog_bytes", "gauge", "Bytes waiting in the queue's qdisc.",
          SOURCE_QUEUE_COUNTER, METRICS_BACKLOG_BYTES },
        { "tbs_queue_backlog_packets", "gauge", "Packets waiting in the queue's qdisc.",
          SOURCE_QUEUE_COUNTER, METRICS_BACKLOG_PACKETS },
        { "tbs_queue_packets_per_second", "gauge", "Packets per second over tbsd's last sampling interval.",
          SOURCE_QUEUE_RATE, METRICS_PACKETS_PER_SECOND },
        { "tbs_queue_bytes_per_second", "gauge", "Bytes per second over tbsd's last sampling interval.",
          SOURCE_QUEUE_RATE, METRICS_BYTES_PER_SECOND },
        { "tbs_queue_drops_per_second", "gauge", "Drops per second over tbsd's last sampling interval.",
          SOURCE_QUEUE_RATE, METRICS_DROPS_PER_SECOND },
        { "tbs_queue_deadline_misses_per_second", "gauge",
          "Deadline misses per second over tbsd's last sampling interval.",
          SOURCE_QUEUE_RATE, METRICS_DEADLINE_MISSES_PER_SECOND },
        { "tbs_queue_invalid_per_second", "gauge", "Invalid packets per second over tbsd's last sampling interval.",
          SOURCE_QUEUE_RATE, METRICS_INVALID_PER_SECOND },
};

_Static_assert(ELEMENTSOF(families) == 3 + _METRICS_CLOCK_VALUE_MAX + 2 + _METRICS_COUNTER_MAX + _METRICS_RATE_MAX,
               "one family per typed value");

char *metrics_format_seconds(int64_t ns, char buf[static 32]) {
        uint64_t a = u64_magnitude(ns);
        uint64_t frac = a % 1000000000u;
        int len;

        len = snprintf(buf, 32, "%s%" PRIu64, ns < 0 ? "-" : "", a / 1000000000u);
        if (frac) {
                snprintf(buf + len, (size_t) (32 - len), ".%09" PRIu64, frac);
                for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
                        *e = 0;
        }
        return buf;
}

/* Where one family's samples go: a text stream, or a JSON array. */
typedef struct Sink {
        FILE *out;                      /* NULL: JSON */
        struct json_object *samples;
        int error;                      /* the first -errno (text) or -ENOMEM (JSON) */
} Sink;

typedef struct Label {
        const char *name;
        const char *value;
} Label;

/* A sample's value: an integer, an exact decimal (seconds from ns), or a
 * float. */
typedef struct Value {
        enum { NUM_INT, NUM_DECIMAL, NUM_FLOAT } kind;
        int64_t i;
        double d;
        char text[32];
} Value;

/* A label value with \, " and newline escaped. */
static void put_label(FILE *out, bool first, const char *name, const char *value) {
        fprintf(out, "%s%s=\"", first ? "" : ",", name);
        for (const char *p = value; *p; p++)
                switch (*p) {
                case '\\':
                        fputs("\\\\", out);
                        break;
                case '"':
                        fputs("\\\"", out);
                        break;
                case '\n':
                        fputs("\\n", out);
                        break;
                default:
                        fputc(*p, out);
                }
        fputc('"', out);
}

static struct json_object *value_to_json(const Value *v) {
        switch (v->kind) {
        case NUM_INT:
                return json_object_new_int64(v->i);
        case NUM_DECIMAL:
                /* the exact decimal, as the text exposition writes it */
                return json_object_new_double_s(strtod(v->text, NULL), v->text);
        default:
                /* JSON has no NaN or infinities */
                return isfinite(v->d) ? json_object_new_double(v->d) : NULL;
        }
}

static void sample_json(Sink *s, const Label *labels, size_t n, const Value *v) {
        struct json_object *o = json_object_new_object(), *l = json_object_new_object();

        if (!o || !l) {
                json_object_put(o);
                json_object_put(l);
                s->error = -ENOMEM;
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (json_add_string(l, labels[i].name, labels[i].value) < 0)
                        s->error = -ENOMEM;
        if (json_add(o, "labels", l) < 0 || json_add(o, "value", value_to_json(v)) < 0 ||
            json_object_array_add(s->samples, o) < 0) {
                json_object_put(o);
                s->error = -ENOMEM;
        }
}

/* One sample of family f: "NAME{LABELS} VALUE" or a JSON object. */
static void sample(Sink *s, const Family *f, const Label *labels, size_t n, const Value v) {
        FILE *out = s->out;

        if (!out) {
                sample_json(s, labels, n, &v);
                return;
        }
        fprintf(out, "%s{", f->name);
        for (size_t i = 0; i < n; i++)
                put_label(out, i == 0, labels[i].name, labels[i].value);
        switch (v.kind) {
        case NUM_INT:
                fprintf(out, "} %" PRId64 "\n", v.i);
                break;
        case NUM_DECIMAL:
                fprintf(out, "} %s\n", v.text);
                break;
        default:
                fprintf(out, "} %.15g\n", v.d);
        }
        /* A write error's errno (ENOSPC, EDQUOT, EIO) is what the caller
         * reports: take it where it happens (errno was cleared before). */
        if (s->error == 0 && ferror(out))
                s->error = errno > 0 ? -errno : -EIO;
}

static Value int_value(int64_t i) {
        return (Value) { .kind = NUM_INT, .i = i };
}

/* The enum pattern: one series per known state, 1 for the current one; a
 * state the table does not know gets a series of its own. */
static void render_state(Sink *s, const Family *f, const char *interface, const char *cur,
                         const char *const *states) {
        bool known = false;

        for (const char *const *st = states; *st; st++) {
                bool is = cur && strcmp(cur, *st) == 0;
                Label l[] = { { "interface", interface }, { "state", *st } };

                known = known || is;
                sample(s, f, l, ELEMENTSOF(l), int_value(is ? 1 : 0));
        }
        if (cur && !known) {
                Label l[] = { { "interface", interface }, { "state", cur } };

                sample(s, f, l, ELEMENTSOF(l), int_value(1));
        }
}

/* The value family f takes from queue q; false when q has none. */
static bool queue_value(const Family *f, const MetricsQueue *q, Value *ret) {
        switch (f->source) {
        case SOURCE_QUEUE_OFFLOAD:
                if (q->offload < 0)
                        return false;
                *ret = int_value(q->offload > 0);
                return true;
        case SOURCE_QUEUE_INSTALLED:
                if (q->installed < 0)
                        return false;
                *ret = int_value(q->installed > 0);
                return true;
        case SOURCE_QUEUE_COUNTER:
                if (!(q->has_counters & (1u << f->index)))
                        return false;
                *ret = int_value(q->counters[f->index]);
                return true;
        case SOURCE_QUEUE_RATE:
                if (!(q->has_rates & (1u << f->index)))
                        return false;
                *ret = (Value) { .kind = NUM_FLOAT, .d = q->rates[f->index] };
                return true;
        default:
                return false;
        }
}

static void render_queues(Sink *s, const Family *f, const MetricsLink *l, const char *interface) {
        for (size_t j = 0; j < l->n_queues; j++) {
                const MetricsQueue *q = &l->queues[j];
                char queue[24];
                Value v;

                if (!queue_value(f, q, &v))
                        continue;
                snprintf(queue, sizeof(queue), "%" PRId64, q->queue);
                Label lb[] = { { "interface", interface }, { "queue", queue }, { "qdisc", q->qdisc ?: "none" } };
                sample(s, f, lb, ELEMENTSOF(lb), v);
        }
}

/* Family f's samples of link l. */
static void render_family(Sink *s, const Family *f, const MetricsLink *l) {
        const char *interface = l->interface ?: "";
        Label li[] = { { "interface", interface } };
        Value v;

        switch (f->source) {
        case SOURCE_LINK_STATE:
                render_state(s, f, interface, l->state, link_states);
                return;
        case SOURCE_CLOCK_STATE:
                if (l->has_clock)
                        render_state(s, f, interface, l->clock_state, clock_states);
                return;
        case SOURCE_CLOCK_SYNCED:
                if (l->has_clock)
                        sample(s, f, li, ELEMENTSOF(li),
                               int_value(l->clock_state && strcmp(l->clock_state, "synced") == 0));
                return;
        case SOURCE_CLOCK_NS:
        case SOURCE_CLOCK_S:
                if (!(l->has_clock_values & (1u << f->index)))
                        return;
                if (f->source == SOURCE_CLOCK_NS) {
                        v = (Value) { .kind = NUM_DECIMAL };
                        metrics_format_seconds(l->clock_values[f->index], v.text);
                } else
                        v = int_value(l->clock_values[f->index]);
                sample(s, f, li, ELEMENTSOF(li), v);
                return;
        default:
                render_queues(s, f, l, interface);
        }
}

static void header(FILE *out, const Family *f) {
        /* The help texts are ours: no backslash or newline to escape. */
        fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
}

int metrics_render_links(const MetricsLink *links, size_t n, FILE *out) {
        Sink s = { .out = out };

        /* Family by family, straight into out: no copy of the text. */
        errno = 0;
        for (size_t i = 0; i < ELEMENTSOF(families) && s.error == 0; i++) {
                header(out, &families[i]);
                for (size_t j = 0; j < n && s.error == 0; j++)
                        render_family(&s, &families[i], &links[j]);
                if (s.error == 0 && ferror(out))
                        s.error = errno > 0 ? -errno : -EIO;
        }
        if (s.error < 0)
                return s.error;
        if (fflush(out) != 0)
                return negative_errno();
        if (ferror(out))
                return -EIO;
        return 0;
}

int metrics_render_links_json(const MetricsLink *links, size_t n, struct json_object **ret) {
        _cleanup_json_ struct json_object *all = json_object_new_array();

        if (!all)
                return -ENOMEM;
        for (size_t i = 0; i < ELEMENTSOF(families); i++) {
                const Family *fi = &families[i];
                struct json_object *f = json_object_new_object();
                Sink s = { .samples = json_object_new_array() };

                if (!f || json_object_array_add(all, f) < 0) {
                        json_object_put(f);
                        json_object_put(s.samples);
                        return -ENOMEM;
                }
                if (json_add_string(f, "name", fi->name) < 0 || json_add_string(f, "type", fi->type) < 0 ||
                    json_add_string(f, "help", fi->help) < 0 || !s.samples || json_add(f, "samples", s.samples) < 0)
                        return -ENOMEM;
                for (size_t j = 0; j < n && s.error == 0; j++)
                        render_family(&s, fi, &links[j]);
                if (s.error < 0)
                        return s.error;
        }
        *ret = TAKE_PTR(all);
        return 0;
}

int metrics_write_links_file(const MetricsLink *links, size_t n, const char *path) {
        _cleanup_free_ char *tmp = NULL;
        FILE *f;
        int fd, r;

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fchmod(fd, 0644) < 0) {
                r = negative_errno();
                close(fd);
                goto fail;
        }
        f = fdopen(fd, "w");
        if (!f) {
                r = negative_errno();
                close(fd);
                goto fail;
        }
        r = metrics_render_links(links, n, f);
        if (r >= 0 && fsync(fileno(f)) < 0)
                r = negative_errno();
        if (fclose(f) != 0 && r >= 0)
                r = negative_errno();
        if (r < 0)
                goto fail;
        if (rename(tmp, path) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;

fail:
        (void) unlink(tmp);
        return r;
}


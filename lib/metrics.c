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

typedef enum ValueKind {
        VALUE_INT,      /* a JSON integer, written as is */
        VALUE_NS,       /* a JSON integer of nanoseconds, written as seconds */
        VALUE_S,        /* a JSON integer of seconds */
        VALUE_BOOL,     /* a JSON boolean, written as 1 or 0 */
        VALUE_FLOAT,    /* a JSON number, written as a float */
} ValueKind;

/* A per-link gauge from a member of one of the document's objects. */
typedef struct LinkFamily {
        const char *name;
        const char *help;
        const char *object;     /* member of the document holding the value */
        const char *key;
        ValueKind kind;
} LinkFamily;

static const LinkFamily clock_families[] = {
        { "tbs_clock_master_offset_seconds", "Offset of the PTP port's clock from its master, as ptp4l reports it.",
          "clock", "master_offset_ns", VALUE_NS },
        { "tbs_clock_mean_path_delay_seconds", "Mean path delay to the PTP master, as ptp4l reports it.",
          "clock", "mean_path_delay_ns", VALUE_NS },
        { "tbs_clock_phc_offset_seconds", "Offset of the NIC's PTP hardware clock from CLOCK_TAI.",
          "clock", "phc_sys_offset_ns", VALUE_NS },
        { "tbs_clock_tai_offset_seconds", "The kernel's TAI - UTC offset.",
          "clock", "tai_offset_s", VALUE_S },
};

/* A per-queue value; object NULL means a member of the queue itself. */
typedef struct QueueFamily {
        const char *name;
        const char *type;
        const char *help;
        const char *object;
        const char *key;
        ValueKind kind;
} QueueFamily;

static const QueueFamily queue_families[] = {
        { "tbs_launch_time_offload", "gauge", "1 when the queue's etf qdisc runs with launch-time offload in the NIC.",
          NULL, "offload", VALUE_BOOL },
        { "tbs_queue_installed", "gauge", "1 when the queue's declared etf qdisc is installed.",
          NULL, "installed", VALUE_BOOL },
        { "tbs_queue_packets_total", "counter", "Packets the queue's qdisc sent.",
          "stats", "packets", VALUE_INT },
        { "tbs_queue_bytes_total", "counter", "Bytes the queue's qdisc sent.",
          "stats", "bytes", VALUE_INT },
        { "tbs_queue_drops_total", "counter", "Packets the queue's qdisc dropped (deadline misses and invalid included).",
          "stats", "drops", VALUE_INT },
        { "tbs_queue_overlimits_total", "counter", "Overlimit events of the queue's qdisc.",
          "stats", "overlimits", VALUE_INT },
        { "tbs_queue_requeues_total", "counter", "Packets the driver handed back to the queue's qdisc.",
          "stats", "requeues", VALUE_INT },
        { "tbs_queue_deadline_misses_total", "counter", "etf: packets dropped because their launch time passed in the queue.",
          "stats", "deadline_misses", VALUE_INT },
        { "tbs_queue_invalid_total", "counter",
          "etf: packets refused at enqueue (launch time in the past, wrong clock, no SO_TXTIME).",
          "stats", "invalid", VALUE_INT },
        { "tbs_queue_backlog_bytes", "gauge", "Bytes waiting in the queue's qdisc.",
          "stats", "backlog_bytes", VALUE_INT },
        { "tbs_queue_backlog_packets", "gauge", "Packets waiting in the queue's qdisc.",
          "stats", "backlog_packets", VALUE_INT },
        { "tbs_queue_packets_per_second", "gauge", "Packets per second over tbsd's last sampling interval.",
          "rates", "packets_per_second", VALUE_FLOAT },
        { "tbs_queue_bytes_per_second", "gauge", "Bytes per second over tbsd's last sampling interval.",
          "rates", "bytes_per_second", VALUE_FLOAT },
        { "tbs_queue_drops_per_second", "gauge", "Drops per second over tbsd's last sampling interval.",
          "rates", "drops_per_second", VALUE_FLOAT },
        { "tbs_queue_deadline_misses_per_second", "gauge",
          "Deadline misses per second over tbsd's last sampling interval.",
          "rates", "deadline_misses_per_second", VALUE_FLOAT },
        { "tbs_queue_invalid_per_second", "gauge", "Invalid packets per second over tbsd's last sampling interval.",
          "rates", "invalid_per_second", VALUE_FLOAT },
};

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

/* The families in output order: the three fixed ones, then the tables. */
enum {
        FAMILY_LINK_STATE,
        FAMILY_CLOCK_STATE,
        FAMILY_CLOCK_SYNCED,
        FAMILY_CLOCK_FIRST,
        FAMILY_QUEUE_FIRST = FAMILY_CLOCK_FIRST + ELEMENTSOF(clock_families),
        N_FAMILIES = FAMILY_QUEUE_FIRST + ELEMENTSOF(queue_families),
};

typedef struct FamilyInfo {
        const char *name, *type, *help;
} FamilyInfo;

static FamilyInfo family_info(size_t i) {
        switch (i) {
        case FAMILY_LINK_STATE:
                return (FamilyInfo) { "tbs_link_state", "gauge", "State of the link: 1 for the current state." };
        case FAMILY_CLOCK_STATE:
                return (FamilyInfo) { "tbs_clock_state", "gauge",
                                      "State of the link's clock check: 1 for the current state." };
        case FAMILY_CLOCK_SYNCED:
                return (FamilyInfo) { "tbs_clock_synced", "gauge",
                                      "1 when the link's clock check finds the clocks in sync." };
        default:
                if (i < FAMILY_QUEUE_FIRST) {
                        const LinkFamily *f = &clock_families[i - FAMILY_CLOCK_FIRST];

                        return (FamilyInfo) { f->name, "gauge", f->help };
                } else {
                        const QueueFamily *f = &queue_families[i - FAMILY_QUEUE_FIRST];

                        return (FamilyInfo) { f->name, f->type, f->help };
                }
        }
}

/* Each family's samples collect in a buffer of their own (text) or an
 * array (JSON) while the links come one by one; the exposition is the
 * families one after the other. */
struct MetricsWriter {
        bool json;
        FILE *family[N_FAMILIES];
        char *text[N_FAMILIES];
        size_t size[N_FAMILIES];
        struct json_object *samples[N_FAMILIES];
        bool failed;
};

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

static void sample_json(MetricsWriter *w, size_t family, const Label *labels, size_t n, const Value *v) {
        struct json_object *o = json_object_new_object(), *l = json_object_new_object();

        if (!o || !l || !w->samples[family]) {
                json_object_put(o);
                json_object_put(l);
                w->failed = true;
                return;
        }
        for (size_t i = 0; i < n; i++)
                if (json_add_string(l, labels[i].name, labels[i].value) < 0)
                        w->failed = true;
        if (json_add(o, "labels", l) < 0 || json_add(o, "value", value_to_json(v)) < 0 ||
            json_object_array_add(w->samples[family], o) < 0) {
                json_object_put(o);
                w->failed = true;
        }
}

/* One sample of family: "NAME{LABELS} VALUE" or a JSON object. */
static void sample(MetricsWriter *w, size_t family, const Label *labels, size_t n, const Value *v) {
        FILE *out = w->family[family];

        if (w->json) {
                sample_json(w, family, labels, n, v);
                return;
        }
        fprintf(out, "%s{", family_info(family).name);
        for (size_t i = 0; i < n; i++)
                put_label(out, i == 0, labels[i].name, labels[i].value);
        switch (v->kind) {
        case NUM_INT:
                fprintf(out, "} %" PRId64 "\n", v->i);
                break;
        case NUM_DECIMAL:
                fprintf(out, "} %s\n", v->text);
                break;
        default:
                fprintf(out, "} %.15g\n", v->d);
        }
}

static void header(FILE *out, const char *name, const char *type, const char *help) {
        /* The help texts are ours: no backslash or newline to escape. */
        fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static bool is_object(struct json_object *o) {
        return o && json_object_is_type(o, json_type_object);
}

static const char *interface_of(struct json_object *d) {
        return json_get_string(d, "interface") ?: "";
}

/* The value of member key of o; false when it is absent, null or of the
 * wrong type. */
static bool get_value(struct json_object *o, const char *key, ValueKind kind, Value *ret) {
        struct json_object *v = json_get(o, key);

        if (!v)
                return false;
        switch (kind) {
        case VALUE_BOOL:
                if (!json_object_is_type(v, json_type_boolean))
                        return false;
                *ret = (Value) { .kind = NUM_INT, .i = json_object_get_boolean(v) ? 1 : 0 };
                return true;
        case VALUE_FLOAT:
                if (json_object_is_type(v, json_type_int))
                        *ret = (Value) { .kind = NUM_INT, .i = json_object_get_int64(v) };
                else if (json_object_is_type(v, json_type_double))
                        *ret = (Value) { .kind = NUM_FLOAT, .d = json_object_get_double(v) };
                else
                        return false;
                return true;
        case VALUE_INT:
        case VALUE_NS:
        case VALUE_S:
                if (!json_object_is_type(v, json_type_int))
                        return false;
                if (kind == VALUE_NS) {
                        *ret = (Value) { .kind = NUM_DECIMAL };
                        metrics_format_seconds(json_object_get_int64(v), ret->text);
                } else
                        *ret = (Value) { .kind = NUM_INT, .i = json_object_get_int64(v) };
                return true;
        }
        return false;
}

/* The enum pattern: one series per known state, 1 for the current one; a
 * state the table does not know gets a series of its own. */
static void render_state(MetricsWriter *w, size_t family, struct json_object *d, const char *object,
                         const char *const *states) {
        struct json_object *o = object ? json_get(d, object) : d;
        const char *cur;
        bool known = false;

        if (!is_object(d) || !is_object(o))
                return;
        cur = json_get_string(o, "state");
        for (const char *const *s = states; *s; s++) {
                bool is = cur && strcmp(cur, *s) == 0;
                Label l[] = { { "interface", interface_of(d) }, { "state", *s } };

                known = known || is;
                sample(w, family, l, ELEMENTSOF(l), &(Value) { .kind = NUM_INT, .i = is ? 1 : 0 });
        }
        if (cur && !known) {
                Label l[] = { { "interface", interface_of(d) }, { "state", cur } };

                sample(w, family, l, ELEMENTSOF(l), &(Value) { .kind = NUM_INT, .i = 1 });
        }
}

static void render_clock_synced(MetricsWriter *w, struct json_object *d) {
        struct json_object *c = json_get(d, "clock");
        Label l[] = { { "interface", interface_of(d) } };
        const char *s;

        if (!is_object(d) || !is_object(c))
                return;
        s = json_get_string(c, "state");
        sample(w, FAMILY_CLOCK_SYNCED, l, ELEMENTSOF(l),
               &(Value) { .kind = NUM_INT, .i = s && strcmp(s, "synced") == 0 ? 1 : 0 });
}

static void render_link_family(MetricsWriter *w, size_t family, const LinkFamily *f, struct json_object *d) {
        struct json_object *o = json_get(d, f->object);
        Label l[] = { { "interface", interface_of(d) } };
        Value v;

        if (!is_object(d) || !get_value(o, f->key, f->kind, &v))
                return;
        sample(w, family, l, ELEMENTSOF(l), &v);
}

static void render_queue_family(MetricsWriter *w, size_t family, const QueueFamily *f, struct json_object *d) {
        struct json_object *qs = json_get(d, "txqueues");

        if (!is_object(d) || !qs || !json_object_is_type(qs, json_type_array))
                return;
        for (size_t j = 0; j < json_object_array_length(qs); j++) {
                struct json_object *q = json_object_array_get_idx(qs, j);
                struct json_object *o = f->object ? json_get(q, f->object) : q;
                char queue[24];
                Value v;

                if (!is_object(q) || !get_value(o, f->key, f->kind, &v))
                        continue;
                snprintf(queue, sizeof(queue), "%" PRId64, json_get_int(q, "queue", -1));
                Label l[] = { { "interface", interface_of(d) }, { "queue", queue },
                              { "qdisc", json_get_string(q, "qdisc") ?: "none" } };
                sample(w, family, l, ELEMENTSOF(l), &v);
        }
}

MetricsWriter *metrics_writer_free(MetricsWriter *w) {
        if (!w)
                return NULL;
        for (size_t i = 0; i < N_FAMILIES; i++) {
                if (w->family[i])
                        fclose(w->family[i]);
                free(w->text[i]);
                json_object_put(w->samples[i]);
        }
        free(w);
        return NULL;
}

static int writer_new(bool json, MetricsWriter **ret) {
        MetricsWriter *w = calloc(1, sizeof(MetricsWriter));

        if (!w)
                return -ENOMEM;
        w->json = json;
        for (size_t i = 0; i < N_FAMILIES; i++) {
                if (json)
                        w->samples[i] = json_object_new_array();
                else
                        w->family[i] = open_memstream(&w->text[i], &w->size[i]);
                if (json ? !w->samples[i] : !w->family[i]) {
                        metrics_writer_free(w);
                        return -ENOMEM;
                }
        }
        *ret = w;
        return 0;
}

int metrics_writer_new(MetricsWriter **ret) {
        return writer_new(false, ret);
}

void metrics_writer_add(MetricsWriter *w, struct json_object *link) {
        render_state(w, FAMILY_LINK_STATE, link, NULL, link_states);
        render_state(w, FAMILY_CLOCK_STATE, link, "clock", clock_states);
        render_clock_synced(w, link);
        for (size_t i = 0; i < ELEMENTSOF(clock_families); i++)
                render_link_family(w, FAMILY_CLOCK_FIRST + i, &clock_families[i], link);
        for (size_t i = 0; i < ELEMENTSOF(queue_families); i++)
                render_queue_family(w, FAMILY_QUEUE_FIRST + i, &queue_families[i], link);
}

int metrics_writer_finish(MetricsWriter *w, FILE *out) {
        if (w->json)
                return -EINVAL;
        for (size_t i = 0; i < N_FAMILIES; i++) {
                FamilyInfo f = family_info(i);

                if (fflush(w->family[i]) != 0 || ferror(w->family[i]))
                        return -ENOMEM;
                header(out, f.name, f.type, f.help);
                /* A write error's errno (ENOSPC, EDQUOT, EIO) is what the
                 * caller reports: take it where it happens. */
                if (w->size[i] > 0 && fwrite(w->text[i], 1, w->size[i], out) != w->size[i])
                        return negative_errno();
        }
        if (fflush(out) != 0)
                return negative_errno();
        if (ferror(out))
                return -EIO;
        return 0;
}

int metrics_render_json(struct json_object *const *links, size_t n, struct json_object **ret) {
        _cleanup_json_ struct json_object *all = NULL;
        MetricsWriter *w = NULL;
        int r;

        r = writer_new(true, &w);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                metrics_writer_add(w, links[i]);
        all = json_object_new_array();
        if (!all || w->failed) {
                metrics_writer_free(w);
                return -ENOMEM;
        }
        for (size_t i = 0; i < N_FAMILIES; i++) {
                struct json_object *f = json_object_new_object();
                FamilyInfo fi = family_info(i);

                if (!f || json_object_array_add(all, f) < 0) {
                        json_object_put(f);
                        metrics_writer_free(w);
                        return -ENOMEM;
                }
                if (json_add_string(f, "name", fi.name) < 0 || json_add_string(f, "type", fi.type) < 0 ||
                    json_add_string(f, "help", fi.help) < 0 || json_add(f, "samples", TAKE_PTR(w->samples[i])) < 0) {
                        metrics_writer_free(w);
                        return -ENOMEM;
                }
        }
        metrics_writer_free(w);
        *ret = TAKE_PTR(all);
        return 0;
}

/* A writer with links added. */
static int writer_of(struct json_object *const *links, size_t n, MetricsWriter **ret) {
        int r = metrics_writer_new(ret);

        for (size_t i = 0; r >= 0 && i < n; i++)
                metrics_writer_add(*ret, links[i]);
        return r;
}

int metrics_render(struct json_object *const *links, size_t n, FILE *out) {
        MetricsWriter *w = NULL;
        int r;

        r = writer_of(links, n, &w);
        if (r < 0)
                return r;
        r = metrics_writer_finish(w, out);
        metrics_writer_free(w);
        return r;
}

int metrics_render_string(struct json_object *const *links, size_t n, char **ret) {
        char *buf = NULL;
        size_t size = 0;
        FILE *f;
        int r;

        f = open_memstream(&buf, &size);
        if (!f)
                return -ENOMEM;
        r = metrics_render(links, n, f);
        if (fclose(f) != 0 && r >= 0)
                r = -ENOMEM;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret = buf;
        return 0;
}

int metrics_writer_write_file(MetricsWriter *w, const char *path) {
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
        r = metrics_writer_finish(w, f);
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

int metrics_write_file(struct json_object *const *links, size_t n, const char *path) {
        MetricsWriter *w = NULL;
        int r;

        r = writer_of(links, n, &w);
        if (r < 0)
                return r;
        r = metrics_writer_write_file(w, path);
        metrics_writer_free(w);
        return r;
}

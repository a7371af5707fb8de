/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sample sink of the metrics (metrics-internal.h): one sample as a line
 * of the text exposition or a JSON object, and seconds written exactly.
 * Apart from lib/metrics.c, which calls the families' files
 * (metrics-launch.c, metrics-mac-merge.c) that write through this one. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "metrics.h"
#include "metrics-internal.h"
#include "saturate.h"

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

/* A label value with \, " and newline escaped. */
static void put_label(FILE *out, bool first, const char *name, const char *value) {
        fprintf(out, "%s%s=\"", first ? "{" : ",", name);
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
        if (v->kind == NUM_INT)
                return json_object_new_int64(v->i);
        /* the exact decimal, as the text exposition writes it */
        return json_object_new_double_s(strtod(v->text, NULL), v->text);
}

static void sample_json(Sink *s, const char *name, const Label *labels, size_t n, const Value *v) {
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
        if ((name && json_add_string(o, "name", name) < 0) || json_add(o, "labels", l) < 0 ||
            json_add(o, "value", value_to_json(v)) < 0 || json_object_array_add(s->samples, o) < 0) {
                json_object_put(o);
                s->error = -ENOMEM;
        }
}

void metrics_sink_sample(Sink *s, const char *family, const char *suffix, const Label *labels, size_t n,
                         const Value v) {
        FILE *out = s->out;

        if (!out) {
                char name[128];

                if (suffix)
                        snprintf(name, sizeof(name), "%s%s", family, suffix);
                sample_json(s, suffix ? name : NULL, labels, n, &v);
                return;
        }
        fputs(family, out);
        if (suffix)
                fputs(suffix, out);
        for (size_t i = 0; i < n; i++)
                put_label(out, i == 0, labels[i].name, labels[i].value);
        if (n > 0)
                fputc('}', out);
        if (v.kind == NUM_INT)
                fprintf(out, " %" PRId64 "\n", v.i);
        else
                fprintf(out, " %s\n", v.text);
        /* A write error's errno (ENOSPC, EDQUOT, EIO) is what the caller
         * reports: take it where it happens (errno was cleared before). */
        if (s->error == 0 && ferror(out))
                s->error = errno > 0 ? -errno : -EIO;
}

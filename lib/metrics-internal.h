/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What lib/metrics.c shares with the files that render some of its
 * families (lib/metrics-launch.c, metrics-mac-merge.c): the sample sink
 * (lib/metrics-sink.c) and a family's header.
 * Not for callers of lib/metrics.h. */
#pragma once

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"

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

/* A sample's value: an integer or an exact decimal (seconds from ns). */
typedef struct Value {
        enum { NUM_INT, NUM_DECIMAL } kind;
        int64_t i;
        char text[32];
} Value;

/* A family's name, type and help text, as its HELP and TYPE lines say. */
typedef struct MetricsFamilyInfo {
        const char *name, *type, *help;
} MetricsFamilyInfo;

/** One sample of family into s: "FAMILY{LABELS} VALUE" (FAMILY followed by
 *  suffix, e.g. "_bucket", when suffix is not NULL), or a JSON object
 *  {"labels", "value"} (with "name": the sample's full name when suffix is
 *  not NULL). A write error is kept in s->error. */
void metrics_sink_sample(Sink *s, const char *family, const char *suffix, const Label *labels, size_t n,
                         Value v);

/* The launch-time error families (lib/metrics-launch.c), in output order. */
#define METRICS_LAUNCH_FAMILIES 4
extern const MetricsFamilyInfo metrics_launch_families[METRICS_LAUNCH_FAMILIES];

/** The samples of launch family i (0 .. METRICS_LAUNCH_FAMILIES - 1) of
 *  links[0..n), into s. */
void metrics_launch_render_family(Sink *s, unsigned i, const MetricsLink *links, size_t n);

/* The MAC merge layer's families (lib/metrics-mac-merge.c), after the
 * launch-time ones. */
#define METRICS_MAC_MERGE_FAMILIES 8
extern const MetricsFamilyInfo metrics_mac_merge_families[METRICS_MAC_MERGE_FAMILIES];
void metrics_mac_merge_render_family(Sink *s, unsigned i, const MetricsLink *links, size_t n);

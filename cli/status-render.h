/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The human form of Describe()'s document (tbsctl status, caps, clock):
 * rendered to stdout from the same document --json prints as is. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "json-util.h"

/* o's string member key, or def when it is missing or empty. */
static inline const char *str_or(struct json_object *o, const char *key, const char *def) {
        const char *s = json_get_string(o, key);
        return s && *s ? s : def;
}

/* One link's Describe() document, as `tbsctl status` shows it. */
void render_status(struct json_object *d);
/* Its "capabilities" object (`tbsctl caps`). */
void render_caps(struct json_object *c);
/* Its "clock" object (`tbsctl clock`). */
void render_clock(struct json_object *c);
/* taprio's offload statistics of the root or of a queue (Linux 6.5+), only
 * those the kernel gives, into buf; NULL when it gives none. */
const char *taprio_offload_stats(struct json_object *st, char *buf, size_t size);

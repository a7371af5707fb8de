/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The taprio root keys of issue 24: base_time_ns (a time or "now") and
 * max_sdu (one limit per traffic class). Internal to lib/schedule-parse.c. */
#include <string.h>

#include "schedule-fields.h"

/* base_time_ns: nanoseconds of the schedule's clock, or "now". */
void parse_base_time(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX];
        const JsonNode *v;
        int64_t x;

        v = member(p, "root", root, "base_time_ns", false);
        if (!v)
                return;
        if (json_is(v, JSON_STRING)) {
                if (strcmp(v->text, "now") != 0 || has_nul(v))
                        perr(p, "root.base_time_ns", "must be a time in nanoseconds or \"now\", got %s",
                             show(v, sh));
                else
                        r->base_time_now = true;
                return;
        }
        if (as_int(p, "root.base_time_ns", v, 0, INT64_MAX, &x) >= 0)
                r->base_time_ns = x;
}

/* max_sdu: bytes per traffic class (the count is checked against num_tc by
 * the validator); 0 is no limit. ETH_MAX_MTU is the largest MTU any device
 * has; the kernel refuses more than the device's own. */
void parse_max_sdu(Parser *p, const JsonNode *root, RootSpec *r) {
        const JsonNode *a;
        size_t n;

        a = get_container(p, "root", root, "max_sdu", false, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n == 0 || n > TBS_MAX_TC) {
                perr(p, "root.max_sdu", "must have one entry per traffic class (1 to %u), got %zu",
                     TBS_MAX_TC, n);
                return;
        }
        r->max_sdu_given = true;
        r->n_max_sdu = (uint8_t) n;
        for (size_t i = 0; i < n; i++) {
                int64_t x;

                if (as_int_index(p, "root.max_sdu", a, i, 0, TBS_MAX_SDU, &x) >= 0)
                        r->max_sdu[i] = (uint32_t) x;
        }
}

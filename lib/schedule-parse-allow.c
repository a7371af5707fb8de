/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The top-level "allow" key: the names of the time-sync safety checks
 * (lib/schedule-safety.h) whose findings the file accepts. Internal to
 * lib/schedule-parse.c. */
#include <stdio.h>

#include "schedule-fields.h"
#include "schedule-safety.h"

static const char *allow_names(char buf[static 160]) {
        size_t at = 0;

        buf[0] = 0;
        for (int c = 0; c < _SAFETY_CHECK_MAX; c++)
                at += (size_t) snprintf(buf + at, 160 - at, "%s\"%s\"", c == 0 ? "" : ", ",
                                        safety_check_to_string(c));
        return buf;
}

void parse_allow(Parser *p, const JsonNode *top, Schedule *s) {
        char path[JPATH_MAX], sh[SHOW_MAX], names[160];
        const JsonNode *a;
        size_t n;

        a = get_container(p, NULL, top, "allow", false, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        for (size_t i = 0; i < n; i++) {
                const JsonNode *v = json_index(a, i);
                SafetyCheck c;

                jpath_index(path, "allow", i);
                if (v->kind == JSON_NULL) {
                        perr(p, path, "must be a check name, got null");
                        continue;
                }
                if (!expect_type(p, path, v, JSON_STRING))
                        continue;
                c = has_nul(v) ? _SAFETY_CHECK_INVALID : safety_check_from_string(v->text);
                if (c < 0) {
                        perr(p, path, "unknown check %s; expected one of %s", show(v, sh), allow_names(names));
                        continue;
                }
                if (s->allow & (1U << c)) {
                        perr(p, path, "lists \"%s\" a second time", safety_check_to_string(c));
                        continue;
                }
                s->allow |= 1U << c;
        }
}

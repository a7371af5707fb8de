/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule-hints.h"

#define HINT_PREFIX " (tc's notation; write "

/* tc's key names (command line and `tc -j`) and the schedule key each is. */
static const struct {
        const char *tc;
        const char *key;
} tc_keys[] = {
        { "tc", "num_tc" },
        { "map", "priority_map" },
        { "base-time", "base_time_ns" },
        { "base_time", "base_time_ns" },
        { "cycle-time", "cycle_time_ns" },
        { "cycle_time", "cycle_time_ns" },
        { "cycle-time-extension", "cycle_time_extension_ns" },
        { "cycle_time_extension", "cycle_time_extension_ns" },
        { "txtime-delay", "txtime_delay_ns" },
        { "txtime_delay", "txtime_delay_ns" },
        { "sched-entry", "entries" },
        { "schedule", "entries" },
        { "cmd", "command" },
        { "gatemask", "gate_mask" },
        { "interval", "interval_ns" },
        { "delta", "delta_ns" },
        { "idleslope", "idle_slope_kbps" },
        { "sendslope", "send_slope_kbps" },
        { "hicredit", "hi_credit_bytes" },
        { "locredit", "lo_credit_bytes" },
        { "flags", "mode" },
        { "hw", "hw_offload" },
};

static bool key_active(const char *name, const KeySpec *keys, size_t n_keys, unsigned active) {
        for (size_t i = 0; i < n_keys; i++)
                if (strcmp(keys[i].name, name) == 0)
                        return keys[i].kinds & active;
        return false;
}

/* An integer value, or a string of one in C notation ("0x1", "1"). */
static bool value_uint(const JsonNode *v, unsigned long *ret) {
        const char *s;
        char *end;

        if (json_is(v, JSON_INTEGER)) {
                int64_t x = v->i;

                if (x < 0)
                        return false;
                *ret = (unsigned long) x;
                return true;
        }
        if (json_is(v, JSON_BOOLEAN)) {
                *ret = v->b;
                return true;
        }
        if (!json_is(v, JSON_STRING))
                return false;
        s = v->text;
        if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
                return false;
        errno = 0;
        *ret = strtoul(s, &end, 0);
        return errno == 0 && !*end;
}

bool tc_hint_key(const char *key, const JsonNode *val, const KeySpec *keys, size_t n_keys, unsigned active,
                 char buf[static TC_HINT_MAX]) {
        unsigned long x;

        buf[0] = 0;
        for (size_t i = 0; i < ELEMENTSOF(tc_keys); i++) {
                const char *to = tc_keys[i].key;

                if (strcmp(tc_keys[i].tc, key) != 0 || !key_active(to, keys, n_keys, active))
                        continue;
                if (strcmp(to, "mode") == 0 && value_uint(val, &x) && x <= 2) {
                        /* taprio's flags: 0x1 txtime-assist, 0x2 full offload */
                        static const char *const modes[] = { "software", "txtime-assist", "full-offload" };

                        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "\"mode\": \"%s\")", modes[x]);
                } else if (strcmp(to, "hw_offload") == 0 && value_uint(val, &x))
                        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "\"hw_offload\": %s)", x ? "true" : "false");
                else
                        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "\"%s\")", to);
                return true;
        }
        return false;
}

/* One "COUNT@OFFSET" at *s (digits only), advancing *s. */
static bool parse_count_offset(const char **s, unsigned long *count, unsigned long *offset) {
        char *end;

        if (**s < '0' || **s > '9')
                return false;
        *count = strtoul(*s, &end, 10);
        if (*end != '@' || end[1] < '0' || end[1] > '9' || *count == 0 || *count > 65535)
                return false;
        *offset = strtoul(end + 1, &end, 10);
        if (*offset > 65535)
                return false;
        *s = end;
        return true;
}

bool tc_hint_queues(const JsonNode *v, bool whole_list, char buf[static TC_HINT_MAX]) {
        const char *s;
        size_t at, n = 0;
        unsigned long c, o;

        buf[0] = 0;
        if (!json_is(v, JSON_STRING))
                return false;
        s = v->text;
        at = (size_t) snprintf(buf, TC_HINT_MAX, HINT_PREFIX "%s", whole_list ? "[" : "");
        for (;;) {
                while (whole_list && *s == ' ')
                        s++;
                if (!*s)
                        break;
                if (n >= (whole_list ? TBS_MAX_TC : 1) || !parse_count_offset(&s, &c, &o))
                        goto no;
                at += (size_t) snprintf(buf + at, TC_HINT_MAX - at, "%s{\"count\": %lu, \"offset\": %lu}",
                                        n > 0 ? ", " : "", c, o);
                n++;
                if (*s && (!whole_list || *s != ' '))
                        goto no;
        }
        if (n == 0)
                goto no;
        snprintf(buf + at, TC_HINT_MAX - at, "%s)", whole_list ? "]" : "");
        return true;
no:
        buf[0] = 0;
        return false;
}

bool tc_hint_priority_map(const JsonNode *v, char buf[static TC_HINT_MAX]) {
        const char *s;
        size_t at, n = 0;

        buf[0] = 0;
        if (!json_is(v, JSON_STRING))
                return false;
        s = v->text;
        at = (size_t) snprintf(buf, TC_HINT_MAX, HINT_PREFIX "[");
        for (;;) {
                unsigned long x;
                char *end;

                while (*s == ' ')
                        s++;
                if (!*s)
                        break;
                if (*s < '0' || *s > '9' || n >= TBS_PRIO_MAP_LEN)
                        goto no;
                x = strtoul(s, &end, 10);
                if (x >= TBS_MAX_TC || (*end && *end != ' '))
                        goto no;
                at += (size_t) snprintf(buf + at, TC_HINT_MAX - at, "%s%lu", n > 0 ? ", " : "", x);
                n++;
                s = end;
        }
        /* tc fills the priorities left out with class 0 */
        for (; n > 0 && n < TBS_PRIO_MAP_LEN; n++)
                at += (size_t) snprintf(buf + at, TC_HINT_MAX - at, ", 0");
        if (n == 0)
                goto no;
        snprintf(buf + at, TC_HINT_MAX - at, "])");
        return true;
no:
        buf[0] = 0;
        return false;
}

bool tc_hint_command(const char *s, char buf[static TC_HINT_MAX]) {
        static const char *const names[] = { ['S'] = "set-gates", ['H'] = "set-and-hold", ['R'] = "set-and-release" };

        buf[0] = 0;
        if (!s || !s[0] || s[1] || (unsigned char) s[0] >= ELEMENTSOF(names) || !names[(unsigned char) s[0]])
                return false;
        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "\"%s\")", names[(unsigned char) s[0]]);
        return true;
}

bool tc_hint_gate_mask(const JsonNode *v, char buf[static TC_HINT_MAX]) {
        const char *s;
        size_t n;

        buf[0] = 0;
        if (!json_is(v, JSON_STRING))
                return false;
        s = v->text;
        n = strlen(s);
        if (has_nul(v) || n == 0 || n > 8 || strspn(s, "0123456789abcdefABCDEF") != n)
                return false;
        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "\"0x%s\")", s);
        return true;
}

bool tc_hint_bool(const JsonNode *v, char buf[static TC_HINT_MAX]) {
        int64_t x;

        buf[0] = 0;
        if (!json_is(v, JSON_INTEGER))
                return false;
        x = v->i;
        if (x != 0 && x != 1)
                return false;
        snprintf(buf, TC_HINT_MAX, HINT_PREFIX "%s)", x ? "true" : "false");
        return true;
}

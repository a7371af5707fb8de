/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "schedule.h"
#include "string-table.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

void root_spec_done(RootSpec *r) {
        if (!r)
                return;
        free(r->taprio.entries);
        free(r->taprio.oper.entries);
        *r = (RootSpec) {};
}

static void streams_spec_done(StreamsSpec *t) {
        for (size_t i = 0; i < t->n; i++)
                free(t->items[i].name);
        free(t->items);
        *t = (StreamsSpec) {};
}

void schedule_free(Schedule *s) {
        if (!s)
                return;
        streams_spec_done(&s->streams);
        free(s->source);
        root_spec_done(&s->root);
        free(s->txqueues);
        free(s->clock.ptp4l_socket);
        free(s->sockets.group);
        free(s);
}

int schedule_copy(const Schedule *s, Schedule **ret) {
        _cleanup_schedule_ Schedule *c = NULL;

        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = *s;
        c->source = NULL;
        c->root.taprio.entries = NULL;
        c->root.taprio.oper = (GateSchedule) {};     /* only a kernel dump has one */
        c->txqueues = NULL;
        c->clock.ptp4l_socket = NULL;
        c->sockets.group = NULL;
        c->streams.items = NULL;
        c->streams.n = 0;

        if (s->source && !(c->source = strdup(s->source)))
                return -ENOMEM;
        if (s->root.taprio.n_entries > 0) {
                c->root.taprio.entries = calloc(s->root.taprio.n_entries, sizeof(GateEntry));
                if (!c->root.taprio.entries)
                        return -ENOMEM;
                memcpy(c->root.taprio.entries, s->root.taprio.entries, s->root.taprio.n_entries * sizeof(GateEntry));
        }
        if (s->n_txqueues > 0) {
                c->txqueues = calloc(s->n_txqueues, sizeof(EtfSpec));
                if (!c->txqueues)
                        return -ENOMEM;
                memcpy(c->txqueues, s->txqueues, s->n_txqueues * sizeof(EtfSpec));
        }
        if (s->clock.ptp4l_socket && !(c->clock.ptp4l_socket = strdup(s->clock.ptp4l_socket)))
                return -ENOMEM;
        if (s->sockets.group && !(c->sockets.group = strdup(s->sockets.group)))
                return -ENOMEM;
        if (s->streams.n > 0) {
                c->streams.items = calloc(s->streams.n, sizeof(StreamSpec));
                if (!c->streams.items)
                        return -ENOMEM;
                for (size_t i = 0; i < s->streams.n; i++) {
                        c->streams.items[i] = s->streams.items[i];
                        c->streams.items[i].name = NULL;
                        c->streams.n = i + 1;
                        if (!(c->streams.items[i].name = strdup(s->streams.items[i].name)))
                                return -ENOMEM;
                }
        }

        *ret = TAKE_PTR(c);
        return 0;
}

bool group_name_is_valid(const char *name) {
        size_t n;

        if (!name)
                return false;
        n = strlen(name);
        if (n == 0 || n > TBS_GROUP_NAME_MAX)
                return false;
        if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_'))
                return false;
        for (size_t i = 1; i < n; i++) {
                char c = name[i];

                if (c == '$' && i == n - 1)
                        break;
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                      c == '-' || c == '.'))
                        return false;
        }
        return true;
}

const EtfSpec *schedule_find_txqueue(const Schedule *s, uint32_t queue) {
        for (size_t i = 0; i < s->n_txqueues; i++)
                if (s->txqueues[i].queue == queue)
                        return &s->txqueues[i];
        return NULL;
}

bool root_tc_has_queue(const RootSpec *r, int tc, uint32_t queue) {
        if (tc < 0 || (unsigned) tc >= r->num_tc || tc >= TBS_MAX_TC)
                return false;
        return queue >= r->queues[tc].offset && queue < (uint32_t) r->queues[tc].offset + r->queues[tc].count;
}

uint32_t root_tcs_of_queue(const RootSpec *r, uint32_t queue) {
        unsigned n = r->num_tc < TBS_MAX_TC ? r->num_tc : TBS_MAX_TC;
        uint32_t mask = 0;

        for (unsigned tc = 0; tc < n; tc++)
                if (queue - r->queues[tc].offset < r->queues[tc].count && queue >= r->queues[tc].offset)
                        mask |= 1U << tc;
        return mask;
}

int root_tc_of_queue(const RootSpec *r, uint32_t queue) {
        uint32_t mask = root_tcs_of_queue(r, queue);

        return mask ? __builtin_ctz(mask) : -ENOENT;
}

static bool root_tc_has_priority(const RootSpec *r, int tc) {
        for (unsigned p = 0; p < TBS_PRIO_MAP_LEN; p++)
                if (r->priority_map[p] == tc)
                        return true;
        return false;
}

int root_send_tc_of_queue(const RootSpec *r, uint32_t queue) {
        uint32_t mask = root_tcs_of_queue(r, queue);
        int reached = -1;

        if (mask == 0)
                return -ENOENT;
        for (int tc = 0; tc < TBS_MAX_TC; tc++) {
                if (!(mask & (1U << tc)) || !root_tc_has_priority(r, tc))
                        continue;
                if (r->queues[tc].count == 1)
                        return tc;
                if (reached < 0)
                        reached = tc;
        }
        return reached >= 0 ? reached : __builtin_ctz(mask);
}

bool root_has_preemptible(const RootSpec *r) {
        for (unsigned i = 0; i < TBS_MAX_TC; i++)
                if (r->fp[i] == TBS_FP_PREEMPTIBLE)
                        return true;
        return false;
}

bool monitor_spec_equal(const MonitorSpec *a, const MonitorSpec *b) {
        if (a->enabled != b->enabled)
                return false;
        return !a->enabled || (a->interval_ms == b->interval_ms && a->frames == b->frames);
}

uint32_t monitor_spec_probes_per_s(const MonitorSpec *m) {
        if (!m->enabled || m->interval_ms == 0)
                return 0;
        return (uint32_t) (((uint64_t) m->frames * 1000 + m->interval_ms - 1) / m->interval_ms);
}

bool schedule_monitor_over_budget(const Schedule *s, uint64_t used, size_t *ret_index, uint64_t *ret_total) {
        bool over = false;

        for (size_t i = 0; i < s->n_txqueues; i++) {
                used += monitor_spec_probes_per_s(&s->txqueues[i].monitor);
                if (!over && used > TBS_MONITOR_MAX_PROBES_PER_S) {
                        over = true;
                        *ret_index = i;
                }
        }
        if (ret_total)
                *ret_total = used;
        return over;
}

static const char *const taprio_mode_table[_TAPRIO_MODE_MAX] = {
        [TAPRIO_MODE_SOFTWARE] = "software",
        [TAPRIO_MODE_TXTIME_ASSIST] = "txtime-assist",
        [TAPRIO_MODE_FULL_OFFLOAD] = "full-offload",
};

static const char *const gate_command_table[_GATE_COMMAND_MAX] = {
        [GATE_SET_GATES] = "set-gates",
        [GATE_SET_AND_HOLD] = "set-and-hold",
        [GATE_SET_AND_RELEASE] = "set-and-release",
};

static const char *const offload_mode_table[_OFFLOAD_MODE_MAX] = {
        [OFFLOAD_OFF] = "off",
        [OFFLOAD_ON] = "on",
        [OFFLOAD_AUTO] = "auto",
};

static const char *const drift_policy_table[_DRIFT_POLICY_MAX] = {
        [DRIFT_ENFORCE] = "enforce",
        [DRIFT_REPORT] = "report",
};

DEFINE_STRING_TABLE_LOOKUP(taprio_mode, TaprioMode, taprio_mode_table, -EINVAL)
DEFINE_STRING_TABLE_LOOKUP(gate_command, GateCommand, gate_command_table, -EINVAL)
DEFINE_STRING_TABLE_TO_STRING(offload_mode, OffloadMode, offload_mode_table)
DEFINE_STRING_TABLE_LOOKUP(drift_policy, DriftPolicy, drift_policy_table, -EINVAL)

static const struct {
        clockid_t id;
        const char *name;
} clock_names[] = {
        { CLOCK_REALTIME,  "CLOCK_REALTIME" },
        { CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
        { CLOCK_BOOTTIME,  "CLOCK_BOOTTIME" },
        { CLOCK_TAI,       "CLOCK_TAI" },
};

const char *clockid_to_string(clockid_t c) {
        for (size_t i = 0; i < ELEMENTSOF(clock_names); i++)
                if (clock_names[i].id == c)
                        return clock_names[i].name;
        return NULL;
}

int clockid_from_string(const char *s) {
        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(clock_names); i++)
                if (strcasecmp(s, clock_names[i].name) == 0 ||
                    strcasecmp(s, clock_names[i].name + strlen("CLOCK_")) == 0)
                        return clock_names[i].id;
        return -EINVAL;
}

/* v in lower-case hex without leading zeros at buf; returns the end. */
static char *put_hex(char *buf, unsigned v) {
        char d[8];
        size_t n = 0;

        do
                d[n++] = "0123456789abcdef"[v & 0xfU];
        while ((v >>= 4) > 0);
        while (n > 0)
                *buf++ = d[--n];
        return buf;
}

/* "%x:" or "%x:%x" without printf: plans name every step with it. */
const char *tc_handle_to_string(uint32_t handle, char buf[static 16]) {
        char *e = put_hex(buf, handle >> 16);

        *e++ = ':';
        if ((handle & 0xffffU) != 0)
                e = put_hex(e, handle & 0xffffU);
        *e = 0;
        return buf;
}

static unsigned long hex_field(const char *s, size_t n) {
        unsigned long v = 0;

        for (size_t i = 0; i < n; i++)
                v = v << 4 | (unsigned long) (s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10);
        return v;
}

int tc_handle_from_string(const char *s, uint32_t *ret) {
        static const char hex[] = "0123456789abcdefABCDEF";
        unsigned long maj, min;
        size_t a, b;

        /* Exactly MAJ:[MIN] with 1-4 hex digits each: strtoul() would also
         * take white space, a sign and "0x", and tc a missing colon. */
        if (!s)
                return -EINVAL;
        a = strspn(s, hex);
        if (a == 0 || a > 4 || s[a] != ':')
                return -EINVAL;
        b = strspn(s + a + 1, hex);
        if (b > 4 || s[a + 1 + b] != 0)
                return -EINVAL;
        maj = hex_field(s, a);
        min = hex_field(s + a + 1, b);
        if (maj == 0)
                return -EINVAL;
        *ret = (uint32_t) (maj << 16 | min);
        return 0;
}

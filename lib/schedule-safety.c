/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "qdisc-kind.h"
#include "schedule-safety.h"
#include "string-table.h"

#define NSEC_PER_SEC INT64_C(1000000000)

static const char *const safety_check_table[_SAFETY_CHECK_MAX] = {
        [SAFETY_PTP_GATE] = "ptp-gate",
        [SAFETY_PTP_ETF] = "ptp-etf",
        [SAFETY_ASSIST_DELAY] = "assist-delay",
        [SAFETY_DELTA_CYCLE] = "delta-cycle",
        [SAFETY_BASE_TIME] = "base-time",
        [SAFETY_SOFTWARE_GATE_INTERVAL] = "software-gate-interval",
};

DEFINE_STRING_TABLE_LOOKUP(safety_check, SafetyCheck, safety_check_table, -EINVAL)

typedef struct Checker {
        const Schedule *s;
        DiagList *diags;
        uint32_t failed;
        bool oom;
} Checker;

/* One finding: "PATH: CHECK: REASON; to accept it, add "CHECK" to "allow"". */
static void finding(Checker *c, DiagSeverity sev, SafetyCheck check, const char *path, const char *reason) {
        const char *name = safety_check_to_string(check);

        if (diag_add(c->diags, sev, c->s->source, path, "%s: %s; to accept it, add \"%s\" to \"allow\"", name,
                     reason, name) < 0)
                c->oom = true;
        if (sev == DIAG_ERROR)
                c->failed |= 1U << check;
}

int schedule_ptp_tc(const Schedule *s) {
        const RootSpec *r = &s->root;

        if (s->clock.ptp_priority >= TBS_PRIO_MAP_LEN || r->num_tc < 1 || r->num_tc > TBS_MAX_TC ||
            r->priority_map[s->clock.ptp_priority] >= r->num_tc)
                return -ERANGE;
        return r->priority_map[s->clock.ptp_priority];
}

uint64_t frame_time_ns(uint32_t wire_bytes, uint32_t speed_mbps) {
        uint64_t bits_x1000 = (uint64_t) wire_bytes * 8 * 1000;

        if (speed_mbps == 0)
                return UINT64_MAX;
        return (bits_x1000 + speed_mbps - 1) / speed_mbps;
}

/* The link speed for the ptp-gate check: the device's, else the file's
 * (a queue's, such as a cbs's link_speed_mbps), else 0 (the caller
 * assumes the default). */
static uint32_t known_link_speed(const Schedule *s, const DeviceFacts *facts) {
        if (facts && facts->link_speed_mbps > 0)
                return facts->link_speed_mbps;
        for (size_t i = 0; i < s->n_txqueues; i++) {
                const QDiscVTable *vt = qdisc_vtable_for_child(s->txqueues[i].kind);

                if (vt && vt->file_link_speed && vt->file_link_speed(&s->txqueues[i]) > 0)
                        return vt->file_link_speed(&s->txqueues[i]);
        }
        return 0;
}

/* Every cycle opens PTP's class for one maximum-size frame. Each entry is
 * judged alone: Linux 6.1's taprio lets a frame through only when it ends
 * before the close of the entry it starts in, even when the next entry
 * keeps the gate open. */
static void check_ptp_gate(Checker *c, const DeviceFacts *facts, int tc) {
        const Schedule *s = c->s;
        uint32_t speed = known_link_speed(s, facts), longest = 0;
        size_t at = SIZE_MAX;
        uint64_t need;
        char reason[512], longest_text[96];
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(&s->root, &buf);

        if (!g || g->n_entries == 0)
                return;
        need = frame_time_ns(TBS_PTP_FRAME_WIRE_BYTES, speed ?: TBS_SAFETY_DEFAULT_LINK_SPEED_MBPS);
        for (size_t i = 0; i < g->n_entries; i++)
                if ((g->entries[i].gate_mask & (1U << tc)) && g->entries[i].interval_ns >= longest) {
                        longest = g->entries[i].interval_ns;
                        at = i;
                }
        if (at != SIZE_MAX && longest >= need)
                return;
        if (at == SIZE_MAX)
                snprintf(longest_text, sizeof(longest_text), "no entry opens it");
        else
                snprintf(longest_text, sizeof(longest_text),
                         "the longest entry that opens it, entries[%zu], is %" PRIu32 " ns", at, longest);
        snprintf(reason, sizeof(reason),
                 "traffic class %d carries PTP (clock.ptp_priority %u through root.priority_map), but %s; a "
                 "maximum-size frame (%u bytes on the wire) takes %" PRIu64 " ns at %" PRIu32 " Mbit/s%s, so "
                 "ptp4l's messages would wait for a gate that never lets them out; open class %d for at least "
                 "%" PRIu64 " ns in one entry of every cycle",
                 tc, s->clock.ptp_priority, longest_text, TBS_PTP_FRAME_WIRE_BYTES, need,
                 speed ?: TBS_SAFETY_DEFAULT_LINK_SPEED_MBPS,
                 speed ? "" : " (assumed: the link speed is not known)", tc, need);
        finding(c, DIAG_ERROR, SAFETY_PTP_GATE, "root.entries", reason);
}

/* etf drops every packet whose launch time is in the past, and a packet
 * without one has launch time 0; without skip_sock_check it also drops
 * every packet of a socket without SO_TXTIME. Only taprio in txtime-assist
 * mode stamps ptp4l's frames, and then skip_sock_check lets them through. */
static void check_ptp_etf(Checker *c, int tc) {
        const Schedule *s = c->s;
        const RootSpec *r = &s->root;
        bool assist = root_stamps_txtime(r);
        char path[64], reason[512];

        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];
                const EtfOptions *etf = etf_spec_etf(q);

                if (!etf || !root_tc_has_queue(r, tc, q->queue))
                        continue;
                if (assist && etf->skip_sock_check)
                        continue;
                snprintf(path, sizeof(path), q->etf_child ? "txqueues[%zu].child" : "txqueues[%zu]", i);
                if (assist)
                        snprintf(reason, sizeof(reason),
                                 "queue %" PRIu32 " carries PTP (traffic class %d, clock.ptp_priority %u); taprio "
                                 "stamps ptp4l's frames with a launch time, but this etf drops them since "
                                 "ptp4l's socket has no SO_TXTIME; set skip_sock_check to true",
                                 q->queue, tc, s->clock.ptp_priority);
                else
                        snprintf(reason, sizeof(reason),
                                 "queue %" PRIu32 " carries PTP (traffic class %d, clock.ptp_priority %u), and "
                                 "etf drops every packet without a launch time, ptp4l's included; map priority "
                                 "%u (root.priority_map[%u]) to a traffic class whose queues have no etf",
                                 q->queue, tc, s->clock.ptp_priority, s->clock.ptp_priority,
                                 s->clock.ptp_priority);
                finding(c, DIAG_ERROR, SAFETY_PTP_ETF, path, reason);
        }
}

/* An etf as the root, or under a cbs root, takes every packet of the
 * interface: ptp4l's have no launch time and are dropped. */
static void check_ptp_etf_root(Checker *c) {
        const RootSpec *r = &c->s->root;

        if (!etf_spec_has_etf(&r->leaf))
                return;
        finding(c, DIAG_ERROR, SAFETY_PTP_ETF, r->leaf.etf_child ? "root.child" : "root",
                "every packet of the interface passes this etf, and etf drops every packet without a launch "
                "time, ptp4l's included; PTP cannot run on this interface");
}

/* taprio stamps a frame txtime_delay_ns ahead at the least; etf hands it
 * to the device delta_ns before its launch time: with a shorter delay the
 * frame reaches etf after that moment and is sent late or dropped. */
static void check_assist_delay(Checker *c) {
        const Schedule *s = c->s;
        uint32_t delay = root_stamp_delay_ns(&s->root);
        char path[64], reason[384];

        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];
                const EtfOptions *etf = txq_releases_at_txtime(q) ? etf_spec_etf(q) : NULL;

                if (!etf || (int64_t) delay >= etf->delta_ns)
                        continue;
                snprintf(path, sizeof(path), "txqueues[%zu].delta_ns", i);
                snprintf(reason, sizeof(reason),
                         "is %" PRIi32 " ns, more than root.txtime_delay_ns (%" PRIu32 " ns): taprio stamps "
                         "launch times only txtime_delay_ns ahead, and etf must release a frame delta_ns before "
                         "its launch time, so frames of queue %" PRIu32 " arrive too late and are dropped; make "
                         "txtime_delay_ns at least %" PRIi32,
                         etf->delta_ns, delay, q->queue, etf->delta_ns);
                finding(c, DIAG_ERROR, SAFETY_ASSIST_DELAY, path, reason);
        }
}

static void check_delta_cycle(Checker *c, int64_t cycle) {
        const Schedule *s = c->s;
        char path[64], reason[384];

        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];
                const EtfOptions *etf = txq_releases_at_txtime(q) ? etf_spec_etf(q) : NULL;

                if (!etf || etf->delta_ns <= cycle)
                        continue;
                snprintf(path, sizeof(path), "txqueues[%zu].delta_ns", i);
                snprintf(reason, sizeof(reason),
                         "is %" PRIi32 " ns, longer than the taprio cycle (%" PRIi64 " ns): etf hands frames to "
                         "the device more than a cycle before their launch time, so frames of a later cycle "
                         "wait in the device's queue in front of this cycle's",
                         etf->delta_ns, cycle);
                finding(c, DIAG_WARNING, SAFETY_DELTA_CYCLE, path, reason);
        }
}

/* taprio starts a schedule whose base time has passed at the first cycle
 * boundary after now: base + (n + 1) * cycle, n = (now - base) / cycle
 * (taprio_get_start_time()). When the cycle does not divide a second (nor
 * a second the cycle), those boundaries fall at a different point of each
 * second, so where the schedule starts depends on when it is installed. */
static void check_base_time(Checker *c, const GateSchedule *g, int64_t now_ns) {
        const RootSpec *r = &c->s->root;
        int64_t cycle = g->cycle_time_ns, base = g->base_time_ns, n, start;
        char reason[512];

        /* "now" (base_time_now) starts wherever the kernel is; 0, the default, asks for nothing. */
        if (r->taprio.base_time_now || base <= 0 || cycle <= 0 || now_ns - base < TBS_SAFETY_PAST_BASE_NS)
                return;
        if (NSEC_PER_SEC % cycle == 0 || cycle % NSEC_PER_SEC == 0)
                return;
        n = (now_ns - base) / cycle + 1;
        start = base + n * cycle;
        snprintf(reason, sizeof(reason),
                 "is %" PRIi64 " s in the past and the cycle time (%" PRIi64 " ns) does not divide a second, "
                 "so the cycles begin at a different point of every second: installed now, the schedule would "
                 "really start at %" PRIi64 ".%09" PRIi64 " (base_time_ns + %" PRIi64 " cycles), %" PRIi64
                 " ns after a whole second; give a base time in the future or a cycle time that divides 1 s",
                 (now_ns - base) / NSEC_PER_SEC, cycle, start / NSEC_PER_SEC, start % NSEC_PER_SEC, n,
                 start % NSEC_PER_SEC);
        finding(c, DIAG_WARNING, SAFETY_BASE_TIME, "root.base_time_ns", reason);
}

/* Without full offload taprio ends every entry with a kernel timer
 * (an hrtimer interrupt, then the queues are woken): the shorter the
 * entries, the more of the CPU the gates take, whatever the traffic
 * (docs/schedule-format.md, "Software intervals"). */
static void check_software_gate_interval(Checker *c, const GateSchedule *g) {
        const RootSpec *r = &c->s->root;
        char path[64], reason[384];

        for (size_t i = 0; i < g->n_entries; i++) {
                if (g->entries[i].interval_ns >= TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS)
                        continue;
                snprintf(path, sizeof(path), "root.entries[%zu].interval_ns", i);
                snprintf(reason, sizeof(reason),
                         "is %" PRIu32 " ns, shorter than %d ns in %s mode: the kernel runs a timer at the end "
                         "of every entry, and entries this short take a large share of the CPU "
                         "(docs/schedule-format.md, \"Software intervals\"); use longer entries or "
                         "\"full-offload\" on a NIC that runs gate schedules",
                         g->entries[i].interval_ns, TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS,
                         taprio_mode_to_string(r->taprio.mode) ?: "?");
                finding(c, DIAG_ERROR, SAFETY_SOFTWARE_GATE_INTERVAL, path, reason);
        }
}

static bool allowed(const Schedule *s, SafetyCheck check) {
        return s->allow & (1U << check);
}

int schedule_safety_check(const Schedule *s, const DeviceFacts *facts, int64_t now_ns, DiagList *diags,
                          uint32_t *ret_failed) {
        Checker c = { .s = s, .diags = diags };
        const RootSpec *r = &s->root;
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(r, &buf);  /* the rules of a gate list: taprio's */
        bool taprio = g;
        int tc = schedule_ptp_tc(s);

        if (tc >= 0 && taprio && !allowed(s, SAFETY_PTP_GATE))
                check_ptp_gate(&c, facts, tc);
        if (tc >= 0 && !allowed(s, SAFETY_PTP_ETF))
                check_ptp_etf(&c, tc);
        if (root_is_leaf(r) && !allowed(s, SAFETY_PTP_ETF))
                check_ptp_etf_root(&c);
        if (taprio && root_stamps_txtime(r) && !allowed(s, SAFETY_ASSIST_DELAY))
                check_assist_delay(&c);
        if (taprio && g->cycle_time_ns > 0 && !allowed(s, SAFETY_DELTA_CYCLE))
                check_delta_cycle(&c, g->cycle_time_ns);
        if (taprio && !allowed(s, SAFETY_BASE_TIME))
                check_base_time(&c, g, now_ns);
        if (taprio && !root_gates_in_nic(r) && !allowed(s, SAFETY_SOFTWARE_GATE_INTERVAL))
                check_software_gate_interval(&c, g);

        if (c.oom)
                return -ENOMEM;
        if (ret_failed)
                *ret_failed = c.failed;
        return 0;
}

int schedule_safety_check_now(const Schedule *s, const DeviceFacts *facts, DiagList *diags,
                              uint32_t *ret_failed) {
        struct timespec ts;
        int64_t now = 0;

        /* Only a taprio root's base-time rule reads the clock: other
         * schedules (checked at every load and before every apply) make no
         * system call for it. */
        if (root_gates(&s->root) && !allowed(s, SAFETY_BASE_TIME) &&
            clock_gettime(root_launch_clock(&s->root), &ts) == 0)
                now = (int64_t) ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
        return schedule_safety_check(s, facts, now, diags, ret_failed);
}

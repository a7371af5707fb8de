/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio: TCA_OPTIONS is a nest (NLA_F_NESTED, as iproute2 sends it) of
 * TCA_TAPRIO_ATTR_* attributes: clockid, flags, PRIOMAP (struct tc_mqprio_qopt),
 * txtime delay, base/cycle times and the entry list (NLA_F_NESTED),
 * itself a list of TCA_TAPRIO_SCHED_ENTRY nests (command u8, gate mask u32,
 * interval u32).
 *
 * Linux 6.1 also takes and dumps the per-class max SDU: TCA_TAPRIO_ATTR_TC_ENTRY
 * nests (index u32, max SDU u32), repeated at the top level; Linux 6.4
 * adds fp u32 (frame preemption, root.fp) to them, which 6.1 ignores.
 *
 * sch_taprio.c dumps the operational schedule at the top level and a
 * pending one inside TCA_TAPRIO_ATTR_ADMIN_SCHED; the most recently
 * configured one, the admin schedule when there is one, is what is
 * compared, the running one is kept beside it (RootSpec.oper). */
#include <inttypes.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qdisc-kind.h"
#include "taprio-sdu.h"
#include "taprio.h"

static int taprio_fill_options(struct nl_msg *m, const void *spec) {
        const RootSpec *r = spec;
        uint8_t qopt[sizeof(struct tc_mqprio_qopt)];
        struct nlattr *nest, *list;
        uint32_t flags;

        if (r->kind != ROOT_TAPRIO)
                return -EINVAL;
        switch (r->taprio.mode) {
        case TAPRIO_MODE_SOFTWARE:
                flags = 0;
                break;
        case TAPRIO_MODE_TXTIME_ASSIST:
                flags = TCA_TAPRIO_ATTR_FLAG_TXTIME_ASSIST;
                break;
        case TAPRIO_MODE_FULL_OFFLOAD:
                flags = TCA_TAPRIO_ATTR_FLAG_FULL_OFFLOAD;
                break;
        default:
                return -EINVAL;
        }

        nest = nla_nest_start(m, TCA_OPTIONS);
        if (!nest)
                return -ENOMEM;
        nest->nla_type = TCA_OPTIONS | NLA_F_NESTED;

        /* Attribute order as iproute2 6.1 sends it, so the bytes can be
         * compared with what tc sends. Full offload runs on the NIC's clock;
         * the kernel neither wants nor dumps one. */
        if (r->taprio.mode != TAPRIO_MODE_FULL_OFFLOAD &&
            nla_put_s32(m, TCA_TAPRIO_ATTR_SCHED_CLOCKID, r->taprio.clockid) < 0)
                return -ENOMEM;
        if (nla_put_u32(m, TCA_TAPRIO_ATTR_FLAGS, flags) < 0)
                return -ENOMEM;
        qdisc_qopt_from_root(r, qopt);
        if (nla_put(m, TCA_TAPRIO_ATTR_PRIOMAP, sizeof(qopt), qopt) < 0)
                return -ENOMEM;
        if (r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST &&
            nla_put_u32(m, TCA_TAPRIO_ATTR_TXTIME_DELAY, r->taprio.txtime_delay_ns) < 0)
                return -ENOMEM;
        if (nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_BASE_TIME, r->taprio.base_time_ns) < 0)
                return -ENOMEM;
        if (r->taprio.cycle_time_ns > 0 &&
            nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME, r->taprio.cycle_time_ns) < 0)
                return -ENOMEM;
        if (r->taprio.cycle_time_extension_ns != 0 &&
            nla_put_s64(m, TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME_EXTENSION, r->taprio.cycle_time_extension_ns) < 0)
                return -ENOMEM;

        /* Per-class max SDU (Linux 6.1): one TCA_TAPRIO_ATTR_TC_ENTRY nest per
         * traffic class in use, also for 0 (the kernel keeps a class's
         * earlier value when a change leaves its entry out). Only when the
         * schedule asks: a kernel without them ignores the attribute. */
        /* Frame preemption (root.fp, Linux 6.4) goes into the same
         * entries, after the max SDU, as iproute2 6.15 sends them. */
        for (unsigned tc = 0; (r->taprio.max_sdu_given || r->fp_given) && tc < r->num_tc && tc < TBS_MAX_TC; tc++) {
                struct nlattr *t = nla_nest_start(m, TCA_TAPRIO_ATTR_TC_ENTRY);

                if (!t)
                        return -ENOMEM;
                t->nla_type = TCA_TAPRIO_ATTR_TC_ENTRY | NLA_F_NESTED;
                if (nla_put_u32(m, TCA_TAPRIO_TC_ENTRY_INDEX, tc) < 0 ||
                    (r->taprio.max_sdu_given && nla_put_u32(m, TCA_TAPRIO_TC_ENTRY_MAX_SDU, r->taprio.max_sdu[tc]) < 0) ||
                    (r->fp_given && nla_put_u32(m, TBS_TCA_TAPRIO_TC_ENTRY_FP, r->fp[tc] ?: TBS_FP_EXPRESS) < 0))
                        return -ENOMEM;
                if (qdisc_nest_end(m, t) < 0)
                        return -EMSGSIZE;
        }

        list = nla_nest_start(m, TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST);
        if (!list)
                return -ENOMEM;
        list->nla_type = TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST | NLA_F_NESTED;
        for (size_t i = 0; i < r->taprio.n_entries; i++) {
                struct nlattr *e;

                /* Like iproute2: NLA_F_NESTED on the list, not on each entry
                 * (sch_taprio.c parses entries without strict checking). */
                e = nla_nest_start(m, TCA_TAPRIO_SCHED_ENTRY);
                if (!e)
                        return -ENOMEM;
                e->nla_type = TCA_TAPRIO_SCHED_ENTRY;
                if (nla_put_u8(m, TCA_TAPRIO_SCHED_ENTRY_CMD, (uint8_t) r->taprio.entries[i].command) < 0 ||
                    nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_GATE_MASK, r->taprio.entries[i].gate_mask) < 0 ||
                    nla_put_u32(m, TCA_TAPRIO_SCHED_ENTRY_INTERVAL, r->taprio.entries[i].interval_ns) < 0)
                        return -ENOMEM;
                if (qdisc_nest_end(m, e) < 0)
                        return -EMSGSIZE;
        }
        /* nla_len is 16 bits: libnl refuses (and cuts off) a nest above
         * 64 KiB. Sent without its list, the schedule would look empty to
         * the kernel; the request fails instead. */
        return qdisc_nest_end(m, list) ?: qdisc_nest_end(m, nest);
}

static int get_s64(const struct nlattr *a, int64_t *ret) {
        if (!a)
                return 0;
        if (nla_len(a) < (int) sizeof(int64_t))
                return -EBADMSG;
        memcpy(ret, nla_data(a), sizeof(int64_t));
        return 0;
}

static int get_u32(const struct nlattr *a, uint32_t *ret) {
        if (!a)
                return 0;
        if (nla_len(a) < (int) sizeof(uint32_t))
                return -EBADMSG;
        memcpy(ret, nla_data(a), sizeof(uint32_t));
        return 0;
}

/* Base time, cycle times and entries from a schedule's attributes (the top
 * level of TCA_OPTIONS, or the ADMIN_SCHED nest: the same attribute ids). */
static int parse_schedule(struct nlattr **tb, GateSchedule *r) {
        _cleanup_free_ GateEntry *entries = NULL;
        struct nlattr *e;
        size_t n = 0;
        int rem, k;

        k = get_s64(tb[TCA_TAPRIO_ATTR_SCHED_BASE_TIME], &r->base_time_ns);
        if (k >= 0)
                k = get_s64(tb[TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME], &r->cycle_time_ns);
        if (k >= 0)
                k = get_s64(tb[TCA_TAPRIO_ATTR_SCHED_CYCLE_TIME_EXTENSION], &r->cycle_time_extension_ns);
        if (k < 0)
                return k;

        if (tb[TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST])
                nla_for_each_nested(e, tb[TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST], rem) {
                        struct nlattr *etb[TCA_TAPRIO_SCHED_ENTRY_MAX + 1];
                        GateEntry g = {};
                        uint32_t cmd = 0;
                        GateEntry *t;

                        if (nla_type(e) != TCA_TAPRIO_SCHED_ENTRY)
                                continue;
                        if (nla_parse_nested(etb, TCA_TAPRIO_SCHED_ENTRY_MAX, e, NULL) < 0)
                                return -EBADMSG;
                        if (etb[TCA_TAPRIO_SCHED_ENTRY_CMD]) {
                                if (nla_len(etb[TCA_TAPRIO_SCHED_ENTRY_CMD]) < 1)
                                        return -EBADMSG;
                                cmd = nla_get_u8(etb[TCA_TAPRIO_SCHED_ENTRY_CMD]);
                        }
                        if (cmd >= _GATE_COMMAND_MAX)
                                return -EBADMSG;
                        g.command = (GateCommand) cmd;
                        k = get_u32(etb[TCA_TAPRIO_SCHED_ENTRY_GATE_MASK], &g.gate_mask);
                        if (k >= 0)
                                k = get_u32(etb[TCA_TAPRIO_SCHED_ENTRY_INTERVAL], &g.interval_ns);
                        if (k < 0)
                                return k;

                        t = reallocarray(entries, n + 1, sizeof(GateEntry));
                        if (!t)
                                return -ENOMEM;
                        entries = t;
                        entries[n++] = g;
                }

        r->entries = TAKE_PTR(entries);
        r->n_entries = n;
        return 0;
}

/* The TCA_TAPRIO_ATTR_TC_ENTRY nests (repeated at the top level of
 * TCA_OPTIONS, so not through the parse table, which keeps the last). A
 * kernel that knows them dumps one per class, 16 in all (Linux 6.1). */
static int parse_tc_entries(const struct nlattr *options, RootSpec *r) {
        const struct nlattr *a;
        int rem;

        nla_for_each_nested(a, (struct nlattr *) options, rem) {
                struct nlattr *etb[TBS_TCA_TAPRIO_TC_ENTRY_MAX + 1];
                uint32_t tc = UINT32_MAX, sdu = 0, fp = 0;
                int k;

                if (nla_type(a) != TCA_TAPRIO_ATTR_TC_ENTRY)
                        continue;
                if (nla_parse_nested(etb, TBS_TCA_TAPRIO_TC_ENTRY_MAX, (struct nlattr *) a, NULL) < 0)
                        return -EBADMSG;
                k = get_u32(etb[TCA_TAPRIO_TC_ENTRY_INDEX], &tc);
                if (k >= 0)
                        k = get_u32(etb[TCA_TAPRIO_TC_ENTRY_MAX_SDU], &sdu);
                if (k >= 0)
                        k = get_u32(etb[TBS_TCA_TAPRIO_TC_ENTRY_FP], &fp);
                if (k < 0)
                        return k;
                if (tc == UINT32_MAX)
                        return -EBADMSG;
                r->taprio.max_sdu_dumped = true;
                /* Linux 6.4+ dumps fp in each entry; 6.1 has none */
                if (etb[TBS_TCA_TAPRIO_TC_ENTRY_FP])
                        r->fp_dumped = true;
                if (tc < TBS_MAX_TC) {
                        r->taprio.max_sdu[tc] = sdu;
                        r->fp[tc] = fp > 0xff ? 0xff : (uint8_t) fp;
                }
        }
        return 0;
}

static int taprio_parse_options(const struct nlattr *options, void *ret_spec) {
        struct nlattr *tb[TCA_TAPRIO_ATTR_MAX + 1];
        RootSpec r = { .kind = ROOT_TAPRIO, .taprio.clockid = CLOCK_TAI };
        GateSchedule g = {};
        uint32_t flags = 0;
        int32_t clockid;
        int k;

        if (!options)
                return -EBADMSG;
        if (nla_parse_nested(tb, TCA_TAPRIO_ATTR_MAX, (struct nlattr *) options, NULL) < 0)
                return -EBADMSG;
        if (!tb[TCA_TAPRIO_ATTR_PRIOMAP])
                return -EBADMSG;
        k = qdisc_qopt_to_root(nla_data(tb[TCA_TAPRIO_ATTR_PRIOMAP]),
                               nla_len(tb[TCA_TAPRIO_ATTR_PRIOMAP]), &r);
        if (k < 0)
                return k;
        r.mqprio.hw_offload = false;

        if (tb[TCA_TAPRIO_ATTR_SCHED_CLOCKID]) {
                if (nla_len(tb[TCA_TAPRIO_ATTR_SCHED_CLOCKID]) < (int) sizeof(int32_t))
                        return -EBADMSG;
                memcpy(&clockid, nla_data(tb[TCA_TAPRIO_ATTR_SCHED_CLOCKID]), sizeof(clockid));
                r.taprio.clockid = clockid;
        }
        k = get_u32(tb[TCA_TAPRIO_ATTR_FLAGS], &flags);
        if (k < 0)
                return k;
        if (flags & TCA_TAPRIO_ATTR_FLAG_FULL_OFFLOAD)
                r.taprio.mode = TAPRIO_MODE_FULL_OFFLOAD;
        else if (flags & TCA_TAPRIO_ATTR_FLAG_TXTIME_ASSIST)
                r.taprio.mode = TAPRIO_MODE_TXTIME_ASSIST;
        else
                r.taprio.mode = TAPRIO_MODE_SOFTWARE;
        k = get_u32(tb[TCA_TAPRIO_ATTR_TXTIME_DELAY], &r.taprio.txtime_delay_ns);
        if (k < 0)
                return k;

        k = parse_tc_entries(options, &r);
        if (k < 0)
                return k;

        /* The newest schedule goes into the RootSpec's own fields (what is
         * compared); a running one beside a pending admin schedule into
         * r.oper. */
        if (tb[TCA_TAPRIO_ATTR_ADMIN_SCHED]) {
                struct nlattr *atb[TCA_TAPRIO_ATTR_MAX + 1];

                if (nla_parse_nested(atb, TCA_TAPRIO_ATTR_MAX, tb[TCA_TAPRIO_ATTR_ADMIN_SCHED], NULL) < 0)
                        return -EBADMSG;
                k = parse_schedule(atb, &g);
                if (k < 0)
                        return k;
                r.taprio.admin_pending = true;
                if (tb[TCA_TAPRIO_ATTR_SCHED_ENTRY_LIST]) {
                        k = parse_schedule(tb, &r.taprio.oper);
                        if (k < 0) {
                                free(g.entries);
                                return k;
                        }
                }
        } else {
                k = parse_schedule(tb, &g);
                if (k < 0)
                        return k;
        }
        r.taprio.base_time_ns = g.base_time_ns;
        r.taprio.cycle_time_ns = g.cycle_time_ns;
        r.taprio.cycle_time_extension_ns = g.cycle_time_extension_ns;
        r.taprio.entries = g.entries;
        r.taprio.n_entries = g.n_entries;

        *(RootSpec *) ret_spec = r;
        return 0;
}

/* Per-class entries (TCA_TAPRIO_ATTR_TC_ENTRY, one per class, all zero by
 * default): their max_sdu is in the model (root.max_sdu); an entry that
 * cannot be read is not. */
static const char *taprio_unexpressed(const struct nlattr *options) {
        struct nlattr *tb[TCA_TAPRIO_ATTR_MAX + 1], *e;
        int rem;

        if (!options || nla_parse_nested(tb, TCA_TAPRIO_ATTR_MAX, (struct nlattr *) options, NULL) < 0)
                return NULL;
        nla_for_each_attr(e, nla_data(options), nla_len(options), rem) {
                struct nlattr *etb[TBS_TCA_TAPRIO_TC_ENTRY_MAX + 1];
                uint32_t sdu = 0, fp = 0;

                if (nla_type(e) != TCA_TAPRIO_ATTR_TC_ENTRY)
                        continue;
                if (nla_parse_nested(etb, TBS_TCA_TAPRIO_TC_ENTRY_MAX, e, NULL) < 0)
                        return "taprio per-class entries that cannot be read";
                if (get_u32(etb[TCA_TAPRIO_TC_ENTRY_MAX_SDU], &sdu) < 0)
                        return "taprio per-class entries without a max SDU";
                if (get_u32(etb[TBS_TCA_TAPRIO_TC_ENTRY_FP], &fp) < 0 || fp > TBS_FP_PREEMPTIBLE)
                        return "taprio per-class frame preemption that cannot be read";
        }
        return NULL;
}

/* taprio's own part of two roots' compare: clock, times, mode, max SDU and
 * the gate list. */
bool taprio_schedule_equal(const RootSpec *a, const RootSpec *b) {
        if (a->taprio.clockid != b->taprio.clockid || a->taprio.base_time_ns != b->taprio.base_time_ns ||
            a->taprio.cycle_time_ns != b->taprio.cycle_time_ns ||
            a->taprio.cycle_time_extension_ns != b->taprio.cycle_time_extension_ns ||
            a->taprio.mode != b->taprio.mode || a->taprio.n_entries != b->taprio.n_entries)
                return false;
        if (a->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST && a->taprio.txtime_delay_ns != b->taprio.txtime_delay_ns)
                return false;
        for (unsigned i = 0; i < a->num_tc && i < TBS_MAX_TC; i++)
                if (a->taprio.max_sdu[i] != b->taprio.max_sdu[i])
                        return false;
        for (size_t i = 0; i < a->taprio.n_entries; i++)
                if (a->taprio.entries[i].command != b->taprio.entries[i].command ||
                    a->taprio.entries[i].gate_mask != b->taprio.entries[i].gate_mask ||
                    a->taprio.entries[i].interval_ns != b->taprio.entries[i].interval_ns)
                        return false;
        return true;
}

static bool taprio_equal(const void *a, const void *b) {
        const RootSpec *x = a, *y = b;
        RootSpec xx, yy;

        if (x->kind != ROOT_TAPRIO || y->kind != ROOT_TAPRIO)
                return false;
        /* Full offload has no clock in the kernel's dump. */
        if (x->taprio.mode == TAPRIO_MODE_FULL_OFFLOAD && y->taprio.mode == TAPRIO_MODE_FULL_OFFLOAD) {
                xx = *x;
                yy = *y;
                xx.taprio.clockid = yy.taprio.clockid = 0;
                x = &xx;
                y = &yy;
        }
        return root_head_equal(x, y) && root_classes_equal(x, y) && taprio_schedule_equal(x, y);
}

int64_t qdisc_clock_now_ns(clockid_t clock) {
        struct timespec ts;

        if (clock_gettime(clock, &ts) < 0)
                return 0;
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

clockid_t taprio_time_clock(const RootSpec *r) {
        return r->taprio.mode == TAPRIO_MODE_FULL_OFFLOAD ? CLOCK_TAI : r->taprio.clockid;
}

void taprio_settle_base_time(RootSpec *want, const RootSpec *installed, int64_t now_ns) {
        if (want->kind == ROOT_TAPRIO && installed->kind == ROOT_TAPRIO &&
            taprio_base_time_satisfied(want, installed->taprio.base_time_ns, now_ns))
                want->taprio.base_time_ns = installed->taprio.base_time_ns;
}

/* Linux refuses to change a running taprio's traffic classes, flags or
 * clock; tbsd also re-creates it for another txtime delay, which the
 * kernel would apply at once rather than with the new schedule. */
static const char *taprio_in_place_blocker(const RootSpec *installed, const RootSpec *want, char *buf,
                                           size_t size) {
        if (installed->handle != want->handle)
                snprintf(buf, size, "handle differs");
        else if (installed->taprio.mode != want->taprio.mode)
                snprintf(buf, size, "mode %s instead of %s", taprio_mode_to_string(installed->taprio.mode) ?: "?",
                         taprio_mode_to_string(want->taprio.mode) ?: "?");
        else if (installed->num_tc != want->num_tc)
                snprintf(buf, size, "num_tc %u instead of %u", installed->num_tc, want->num_tc);
        else if (memcmp(installed->priority_map, want->priority_map, sizeof(want->priority_map)) != 0)
                snprintf(buf, size, "priority_map differs");
        else if (memcmp(installed->queues, want->queues, want->num_tc * sizeof(QueueRange)) != 0)
                snprintf(buf, size, "queues differ");
        else if (want->taprio.mode != TAPRIO_MODE_FULL_OFFLOAD && installed->taprio.clockid != want->taprio.clockid)
                snprintf(buf, size, "clockid %s instead of %s", clockid_to_string(installed->taprio.clockid) ?: "?",
                         clockid_to_string(want->taprio.clockid) ?: "?");
        else if (want->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST && installed->taprio.txtime_delay_ns != want->taprio.txtime_delay_ns)
                snprintf(buf, size, "txtime_delay_ns %" PRIu32 " instead of %" PRIu32,
                         installed->taprio.txtime_delay_ns, want->taprio.txtime_delay_ns);
        else
                return NULL;
        return buf;
}

/* The first start of a cycle of (base, cycle) at or after t; t when cycle
 * is not positive or the arithmetic would overflow. */
static int64_t taprio_next_cycle_start(int64_t base, int64_t cycle, int64_t t) {
        int64_t n, off, start;

        if (cycle <= 0)
                return t;
        if (t <= base)
                return base;
        if (__builtin_sub_overflow(t, base, &off))
                return t;
        n = off / cycle + (off % cycle != 0);
        if (__builtin_mul_overflow(n, cycle, &off) || __builtin_add_overflow(base, off, &start))
                return t;
        return start;
}

/* The base time of a schedule changed in place: want's own when it lies
 * after now_ns; otherwise (past, or "now") the first cycle start of the
 * running schedule at or after now_ns + want's change margin (so the
 * switch falls on a cycle boundary), or now_ns + margin when no schedule
 * runs. running: the installed root. */
static int64_t taprio_change_base_time(const RootSpec *running, const RootSpec *want, int64_t now_ns) {
        int64_t margin = want->taprio.change_margin_ns > 0 ? want->taprio.change_margin_ns : TBS_TAPRIO_CHANGE_MARGIN_NS;
        int64_t base, cycle, t;

        if (!want->taprio.base_time_now && want->taprio.base_time_ns > now_ns)
                return want->taprio.base_time_ns;
        if (__builtin_add_overflow(now_ns, margin, &t))
                return want->taprio.base_time_ns;
        /* The running schedule: oper beside a pending admin one; a pending
         * one that has not started yet runs next from its own base time. */
        if (running->taprio.admin_pending && running->taprio.oper.n_entries > 0) {
                base = running->taprio.oper.base_time_ns;
                cycle = running->taprio.oper.cycle_time_ns;
        } else {
                base = running->taprio.base_time_ns;
                cycle = running->taprio.cycle_time_ns;
        }
        return taprio_next_cycle_start(base, cycle, t);
}

static bool same_gate_schedule(const RootSpec *a, const RootSpec *b) {
        return a->taprio.cycle_time_ns == b->taprio.cycle_time_ns && a->taprio.cycle_time_extension_ns == b->taprio.cycle_time_extension_ns &&
               a->taprio.n_entries == b->taprio.n_entries &&
               (a->taprio.n_entries == 0 || memcmp(a->taprio.entries, b->taprio.entries, a->taprio.n_entries * sizeof(GateEntry)) == 0);
}

/* The schedule with its base time settled, TC entries always (a class left
 * out keeps its old max SDU). Only the max SDUs differ: the same schedule
 * goes again with the installed base time (the kernel starts it on a cycle
 * boundary of the running one, which it is). */
static void taprio_settle_change(RootSpec *r, const RootSpec *installed, int64_t now_ns) {
        if (same_gate_schedule(installed, r) && taprio_base_time_satisfied(r, installed->taprio.base_time_ns, now_ns))
                r->taprio.base_time_ns = installed->taprio.base_time_ns;
        else
                r->taprio.base_time_ns = taprio_change_base_time(installed, r, now_ns);
        r->taprio.max_sdu_given = r->taprio.max_sdu_given || installed->taprio.max_sdu_dumped || taprio_tc_entries_unreported(installed);
}

/* Linux 6.1 (sch_taprio.c): grafting a child deactivates the device,
 * which resets the root, and a software taprio's reset cancels the timer
 * that runs its gate schedule, for good: the schedule of a new root never
 * starts (no oper schedule: every SO_TXTIME packet is dropped at enqueue),
 * a running one stops where it was. The same schedule sent once more as a
 * change after the children starts the timer again (from the schedule's
 * next cycle). */
static bool taprio_restart_after_graft(const RootSpec *r) {
        return r->taprio.mode == TAPRIO_MODE_SOFTWARE;
}

/* A kernel without per-class max SDU ignores the attribute, and its
 * taprio dumps none. */
static const char *taprio_kernel_lacks(const RootSpec *want, const RootSpec *installed) {
        if (root_has_max_sdu(want) && !installed->taprio.max_sdu_dumped && !taprio_tc_entries_unreported(installed))
                return "root.max_sdu: this kernel does not support a per-class max SDU (its taprio reports no "
                       "TCA_TAPRIO_ATTR_TC_ENTRY); nothing changed";
        return NULL;
}

static void taprio_settle_installed(RootSpec *want, const RootSpec *installed, const DeviceFacts *f) {
        taprio_settle_base_time(want, installed, qdisc_clock_now_ns(taprio_time_clock(want)));
        taprio_settle_max_sdu(want, installed, f);
}

static bool taprio_stamps_txtime(const RootSpec *r) {
        return r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST;
}

static bool taprio_gates_in_nic(const RootSpec *r) {
        return r->taprio.mode == TAPRIO_MODE_FULL_OFFLOAD;
}

static const GateSchedule *taprio_gate_schedule(const RootSpec *r, GateSchedule *buf) {
        *buf = (GateSchedule) {
                .base_time_ns = r->taprio.base_time_ns,
                .cycle_time_ns = r->taprio.cycle_time_ns,
                .cycle_time_extension_ns = r->taprio.cycle_time_extension_ns,
                .entries = r->taprio.entries,
                .n_entries = r->taprio.n_entries,
        };
        return buf;
}

static void taprio_set_gate_list(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns) {
        r->taprio.entries = entries;
        r->taprio.n_entries = n;
        r->taprio.cycle_time_ns = cycle_ns;
        r->taprio.cycle_time_given = false;
}

static GateEntry *entries_dup(const GateEntry *e, size_t n) {
        GateEntry *c = calloc(n, sizeof(GateEntry));

        if (c)
                memcpy(c, e, n * sizeof(GateEntry));
        return c;
}

static int taprio_copy(RootSpec *to, const RootSpec *from, bool with_running) {
        to->taprio.entries = NULL;
        to->taprio.oper.entries = NULL;
        if (!with_running)
                to->taprio.oper = (GateSchedule) {};
        if (from->taprio.n_entries > 0 && !(to->taprio.entries = entries_dup(from->taprio.entries, from->taprio.n_entries)))
                return -ENOMEM;
        if (with_running && from->taprio.oper.n_entries > 0 &&
            !(to->taprio.oper.entries = entries_dup(from->taprio.oper.entries, from->taprio.oper.n_entries)))
                return -ENOMEM;
        return 0;
}

static void taprio_dump_as_file(RootSpec *r, bool effective) {
        int64_t sum = 0;

        if (effective) {
                r->taprio.cycle_time_given = true;
                r->taprio.max_sdu_given = r->taprio.max_sdu_dumped;
                return;
        }
        /* The kernel dumps the cycle time it runs, given or summed; the file
         * states it only when it is not the sum (what the parser assumes). */
        for (size_t i = 0; i < r->taprio.n_entries; i++)
                sum += r->taprio.entries[i].interval_ns;
        r->taprio.cycle_time_given = r->taprio.cycle_time_ns != sum;
}

static void taprio_init(void *spec) {
        RootSpec *r = spec;

        r->taprio.clockid = CLOCK_TAI;
        r->taprio.mode = TAPRIO_MODE_SOFTWARE;
}

static void taprio_settle_now(RootSpec *r, int64_t now_ns) {
        if (r->taprio.base_time_now)
                r->taprio.base_time_ns = now_ns;     /* a new root: from its next cycle on */
}

static uint32_t taprio_stamp_delay_ns(const RootSpec *r) {
        return r->taprio.txtime_delay_ns;
}

/* Without an etf, taprio checks a launch time on its own clock
 * (is_valid_interval()). */
static clockid_t taprio_launch_clock(const RootSpec *r) {
        return r->taprio.clockid;
}

/* The root keys of a taprio, as messages list them; their parsing, rules
 * and JSON are in kinds/taprio-keys.c. streams, link_speed_mbps and
 * guard_frame_bytes are the streams' (lib/schedule-parse-streams.c). */
static const KindKey taprio_root_keys[] = {
        { "clockid", false },
        { "base_time_ns", false },
        { "change_margin_ns", false },
        { "max_sdu", false },
        { "fp", false },
        { "cycle_time_ns", false },
        { "cycle_time_extension_ns", false },
        { "mode", false },
        { "txtime_delay_ns", false },
        { "entries", false },
        { "streams", false },
        { "link_speed_mbps", false },
        { "guard_frame_bytes", false },
};

bool taprio_base_time_satisfied(const RootSpec *want, int64_t installed_ns, int64_t now_ns) {
        if (want->taprio.base_time_now)
                return true;
        if (installed_ns == want->taprio.base_time_ns)
                return true;
        return want->taprio.base_time_ns <= now_ns && installed_ns > want->taprio.base_time_ns;
}

static bool taprio_queues_may_overlap(const RootSpec *r) {
        return r->taprio.mode == TAPRIO_MODE_TXTIME_ASSIST;
}

const QDiscVTable qdisc_taprio_vtable = {
        .kind = "taprio",
        .article = "a",
        .root = true,
        .default_child = "pfifo",
        .traffic_classes = true,
        .fill_options = taprio_fill_options,
        .parse_options = taprio_parse_options,
        .equal = taprio_equal,
        .unexpressed = taprio_unexpressed,
        .root_keys = taprio_root_keys,
        .n_root_keys = ELEMENTSOF(taprio_root_keys),
        .parse_root = taprio_parse_root,
        .verify_root = taprio_verify_root,
        .root_to_json = taprio_root_to_json,
        .in_place_blocker = taprio_in_place_blocker,
        .settle_change = taprio_settle_change,
        .time_clock = taprio_time_clock,
        .restart_after_graft = taprio_restart_after_graft,
        .kernel_lacks = taprio_kernel_lacks,
        .sends_max_sdu = true,
        .gates = true,
        .gate_schedule = taprio_gate_schedule,
        .stamp_delay_ns = taprio_stamp_delay_ns,
        .set_gate_list = taprio_set_gate_list,
        .copy = taprio_copy,
        .dump_as_file = taprio_dump_as_file,
        .settle_now = taprio_settle_now,
        .init = taprio_init,
        .launch_clock = taprio_launch_clock,
        .stamps_txtime = taprio_stamps_txtime,
        .gates_in_nic = taprio_gates_in_nic,
        .refuses_txq_stab = true,
        .queues_may_overlap = taprio_queues_may_overlap,
        .settle_installed = taprio_settle_installed,
        .describe_root = taprio_describe_root,
        .class_stats = true,
};

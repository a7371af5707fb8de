/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of qdisc kinds: a kind is here once, as a root and, when it
 * can sit on a TX queue, as a queue's qdisc. Adding a kind: its file
 * (kinds/KIND.c), its lines here, its RootKind or TxqKind value. */
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-hints.h"
#include "schedule-verifier.h"
#include "taprio.h"

const QDiscVTable *const qdisc_root_vtables[_ROOT_KIND_MAX] = {
        [ROOT_MQPRIO] = &qdisc_mqprio_vtable,
        [ROOT_TAPRIO] = &qdisc_taprio_vtable,
        [ROOT_ETF] = &qdisc_etf_root_vtable,
        [ROOT_CBS] = &qdisc_cbs_root_vtable,
};

const QDiscVTable *const qdisc_txq_vtables[_TXQ_KIND_MAX] = {
        [TXQ_ETF] = &qdisc_etf_vtable,
        [TXQ_CBS] = &qdisc_cbs_vtable,
};

static const QDiscVTable *const all_vtables[] = {
        &qdisc_mqprio_vtable,
        &qdisc_taprio_vtable,
        &qdisc_etf_vtable,
        &qdisc_cbs_vtable,
};

const QDiscVTable *qdisc_vtable_txq_by_name(const char *name, size_t len) {
        if (!name)
                return NULL;
        for (TxqKind k = 0; k < _TXQ_KIND_MAX; k++) {
                const QDiscVTable *vt = qdisc_txq_vtables[k];

                if ((strncmp(vt->kind, name, len) == 0 && vt->kind[len] == 0) ||
                    (vt->old_name && strncmp(vt->old_name, name, len) == 0 && vt->old_name[len] == 0))
                        return vt;
        }
        return NULL;
}

const QDiscVTable *qdisc_vtable_by_kind(const char *kind) {
        if (!kind)
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(all_vtables); i++)
                if (strcmp(all_vtables[i]->kind, kind) == 0)
                        return all_vtables[i];
        return NULL;
}

const QDiscVTable *qdisc_vtable_root_by_kind(const char *kind) {
        if (!kind)
                return NULL;
        for (RootKind k = 0; k < _ROOT_KIND_MAX; k++)
                if (strcmp(qdisc_root_vtables[k]->kind, kind) == 0)
                        return qdisc_root_vtables[k];
        return NULL;
}

const char *qdisc_kind_names(char buf[static 96], bool roots, bool quoted, const char *conj) {
        size_t n = roots ? _ROOT_KIND_MAX : _TXQ_KIND_MAX, at = 0;

        buf[0] = 0;
        for (size_t i = 0; i < n && at < 96; i++)
                at += (size_t) snprintf(buf + at, 96 - at, "%s%s%s%s", i == 0 ? "" : i + 1 == n ? conj : ", ",
                                        quoted ? "\"" : "", roots ? qdisc_root_vtables[i]->kind : qdisc_txq_vtables[i]->kind,
                                        quoted ? "\"" : "");
        return buf;
}

bool root_queues_may_overlap(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->queues_may_overlap && vt->queues_may_overlap(r);
}

bool root_is_leaf(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && !vt->traffic_classes;
}

const char *root_kind_to_string(RootKind k) {
        const QDiscVTable *vt = qdisc_vtable_for_root(k);

        return vt ? vt->kind : NULL;
}

RootKind root_kind_from_string(const char *s) {
        for (RootKind k = 0; s && k < _ROOT_KIND_MAX; k++)
                if (strcmp(qdisc_root_vtables[k]->kind, s) == 0)
                        return k;
        return _ROOT_KIND_INVALID;
}

const char *txq_kind_to_string(TxqKind k) {
        const QDiscVTable *vt = qdisc_vtable_for_child(k);

        return vt ? vt->kind : NULL;
}

TxqKind txq_kind_from_string(const char *s) {
        for (TxqKind k = 0; s && k < _TXQ_KIND_MAX; k++)
                if (strcmp(qdisc_txq_vtables[k]->kind, s) == 0)
                        return k;
        return _TXQ_KIND_INVALID;
}

bool root_spec_equal(const RootSpec *a, const RootSpec *b) {
        if (!root_head_equal(a, b))
                return false;
        if (root_is_leaf(a))
                return etf_spec_equal(&a->leaf, &b->leaf);
        if (!root_classes_equal(a, b))
                return false;
        if (a->kind == ROOT_MQPRIO)
                return a->mqprio.hw_offload == b->mqprio.hw_offload;
        return taprio_schedule_equal(a, b);
}

const char *root_in_place_blocker(const RootSpec *installed, const RootSpec *want, char *buf, size_t size) {
        const QDiscVTable *vt = qdisc_vtable_for_root(want->kind);

        if (installed->kind != want->kind)
                snprintf(buf, size, "root kind %s instead of %s", root_kind_to_string(installed->kind) ?: "?",
                         root_kind_to_string(want->kind) ?: "?");
        else if (!vt || !vt->in_place_blocker)
                snprintf(buf, size, "%s cannot change in place", root_kind_to_string(want->kind) ?: "?");
        else
                return vt->in_place_blocker(installed, want, buf, size);
        return buf;
}

bool root_restart_after_graft(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->restart_after_graft && vt->restart_after_graft(r);
}

void root_settle_installed(RootSpec *want, const RootSpec *installed, const DeviceFacts *f) {
        const QDiscVTable *vt = qdisc_vtable_for_root(want->kind);

        if (vt && vt->settle_installed)
                vt->settle_installed(want, installed, f);
}

bool root_stamps_txtime(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->stamps_txtime && vt->stamps_txtime(r);
}

bool root_gates_in_nic(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->gates_in_nic && vt->gates_in_nic(r);
}

bool root_gates(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->gates;
}

const GateSchedule *root_gate_schedule(const RootSpec *r, GateSchedule *buf) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->gate_schedule ? vt->gate_schedule(r, buf) : NULL;
}

void root_set_gate_list(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        if (vt && vt->set_gate_list)
                vt->set_gate_list(r, entries, n, cycle_ns);
}

void root_take_gate_list(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns) {
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(r, &buf);

        if (!g) {
                free(entries);
                return;
        }
        free(g->entries);
        root_set_gate_list(r, entries, n, cycle_ns);
}

void root_drop_gate_list(RootSpec *r) {
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(r, &buf);

        if (g)
                root_take_gate_list(r, NULL, 0, g->cycle_time_ns);
}

int root_spec_copy(RootSpec *to, const RootSpec *from, bool with_running) {
        const QDiscVTable *vt = qdisc_vtable_for_root(from->kind);

        *to = *from;
        return vt && vt->copy ? vt->copy(to, from, with_running) : 0;
}

void root_spec_init(RootSpec *r) {
        for (size_t i = 0; i < _ROOT_KIND_MAX; i++)
                if (qdisc_root_vtables[i] && qdisc_root_vtables[i]->init)
                        qdisc_root_vtables[i]->init(r);
}

void etf_spec_init(EtfSpec *q) {
        for (size_t i = 0; i < _TXQ_KIND_MAX; i++)
                if (qdisc_txq_vtables[i] && qdisc_txq_vtables[i]->init)
                        qdisc_txq_vtables[i]->init(q);
}

void root_dump_as_file(RootSpec *r, bool effective) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        if (vt && vt->dump_as_file)
                vt->dump_as_file(r, effective);
}

uint32_t root_stamp_delay_ns(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->stamp_delay_ns && root_stamps_txtime(r) ? vt->stamp_delay_ns(r) : 0;
}

clockid_t root_launch_clock(const RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_root(r->kind);

        return vt && vt->launch_clock ? vt->launch_clock(r) : CLOCK_TAI;
}

bool etf_spec_equal(const EtfSpec *a, const EtfSpec *b) {
        const QDiscVTable *vt = qdisc_vtable_for_child(a->kind);

        return vt && a->kind == b->kind && vt->equal(a, b);
}

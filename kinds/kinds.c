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
        if (len == 3 && strcmp(name, "tbs") == 0)
                return &qdisc_etf_vtable;
        for (TxqKind k = 0; k < _TXQ_KIND_MAX; k++)
                if (strncmp(qdisc_txq_vtables[k]->kind, name, len) == 0 && qdisc_txq_vtables[k]->kind[len] == 0)
                        return qdisc_txq_vtables[k];
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

int qdisc_nest_end(struct nl_msg *m, struct nlattr *start) {
        return nla_nest_end(m, start) < 0 ? -EMSGSIZE : 0;
}

struct json_object *kind_offload_to_json(OffloadMode m) {
        if (m == OFFLOAD_AUTO)
                return json_object_new_string("auto");
        return json_object_new_boolean(m == OFFLOAD_ON);
}

void kind_parse_offload(Parser *p, const char *prefix, const JsonNode *e, OffloadMode *ret) {
        char path[JPATH_MAX], sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *v;

        v = member(p, prefix, e, "offload", false);
        if (!v)
                return;
        if (json_is(v, JSON_BOOLEAN)) {
                *ret = v->b ? OFFLOAD_ON : OFFLOAD_OFF;
                return;
        }
        if (json_is(v, JSON_STRING) && strcmp(v->text, "auto") == 0 &&
            str_len(v) == 4) {
                *ret = OFFLOAD_AUTO;
                return;
        }
        (void) tc_hint_bool(v, hint);
        perr(p, jpath_key(path, prefix, "offload"), "must be true, false or \"auto\", got %s%s", show(v, sh), hint);
}

void qdisc_qopt_from_root(const RootSpec *r, void *buf) {
        struct tc_mqprio_qopt q = {
                .num_tc = r->num_tc,
                .hw = r->kind == ROOT_MQPRIO && r->hw_offload ? TC_MQPRIO_HW_OFFLOAD_TCS : 0,
        };

        memcpy(q.prio_tc_map, r->priority_map, sizeof(q.prio_tc_map));
        for (unsigned i = 0; i < r->num_tc && i < TC_QOPT_MAX_QUEUE; i++) {
                q.count[i] = r->queues[i].count;
                q.offset[i] = r->queues[i].offset;
        }
        memcpy(buf, &q, sizeof(q));
}

int qdisc_qopt_to_root(const void *buf, size_t len, RootSpec *r) {
        struct tc_mqprio_qopt q;

        if (len < sizeof(q))
                return -EBADMSG;
        memcpy(&q, buf, sizeof(q));
        if (q.num_tc > TC_QOPT_MAX_QUEUE)
                return -EBADMSG;

        r->num_tc = q.num_tc;
        memcpy(r->priority_map, q.prio_tc_map, sizeof(r->priority_map));
        for (unsigned i = 0; i < TBS_MAX_TC; i++)
                r->queues[i] = i < q.num_tc ? (QueueRange) { .count = q.count[i], .offset = q.offset[i] }
                                            : (QueueRange) {};
        r->hw_offload = q.hw != 0;
        return 0;
}

void kind_parse_fp(Parser *p, const JsonNode *root, RootSpec *r) {
        char path[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *a;
        size_t n;

        a = get_container(p, "root", root, "fp", false, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n == 0 || n > TBS_MAX_TC) {
                perr(p, "root.fp", "must have one entry per traffic class (1 to %u), got %zu", TBS_MAX_TC, n);
                return;
        }
        r->fp_given = true;
        r->n_fp = (uint8_t) n;
        for (size_t i = 0; i < n; i++) {
                const JsonNode *v = json_index(a, i);

                if (json_is(v, JSON_STRING) && str_len(v) == 1 && (v->text[0] == 'E' || v->text[0] == 'P'))
                        r->fp[i] = v->text[0] == 'E' ? TBS_FP_EXPRESS : TBS_FP_PREEMPTIBLE;
                else
                        perr(p, jpath_index(path, "root.fp", i),
                             "must be \"E\" (express) or \"P\" (preemptible), got %s", show(v, sh));
        }
}

int kind_fp_to_json(struct json_object *o, const RootSpec *r) {
        _cleanup_json_ struct json_object *a = NULL;

        if (!r->fp_given && !root_has_preemptible(r))
                return 0;
        a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (unsigned tc = 0; tc < r->num_tc && tc < TBS_MAX_TC; tc++) {
                struct json_object *e = json_object_new_string(r->fp[tc] == TBS_FP_PREEMPTIBLE ? "P" : "E");

                if (!e || json_object_array_add(a, e) < 0) {
                        json_object_put(e);
                        return -ENOMEM;
                }
        }
        return json_add_made(o, "fp", TAKE_PTR(a));
}

void kind_verify_fp(Verifier *v, const RootSpec *r) {
        if (r->fp_given && r->num_tc >= 1 && r->n_fp != r->num_tc)
                verr(v, "root.fp", "must have one entry per traffic class (num_tc is %u), got %u",
                     r->num_tc, r->n_fp);
}

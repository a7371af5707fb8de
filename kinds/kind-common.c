/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What several kinds share (qdisc-kind.h, "shared by the kinds"): netlink
 * nests, mqprio's qopt that taprio reuses, "offload" and "fp" keys. Apart
 * from the table (kinds.c), which names every kind, so the kinds call down
 * to this file and the table calls up to them, never round. */
#include <errno.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-hints.h"
#include "schedule-verifier.h"

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
                .hw = r->kind == ROOT_MQPRIO && r->mqprio.hw_offload ? TC_MQPRIO_HW_OFFLOAD_TCS : 0,
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
        r->mqprio.hw_offload = q.hw != 0;
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

bool root_head_equal(const RootSpec *a, const RootSpec *b) {
        return a->kind == b->kind && a->handle == b->handle && a->num_tc == b->num_tc &&
               stab_equal(&a->stab, &b->stab);
}

/* Frame preemption is compared only when a side gives it (a schedule
 * without "fp" means what it meant before the key existed); then both
 * sides must know it: a dump without fp (a kernel before 6.4) is not a
 * schedule with fp. 0 is express, as the kernel defaults. */
static bool root_fp_equal(const RootSpec *a, const RootSpec *b) {
        if (!a->fp_given && !b->fp_given)
                return true;
        if (!(a->fp_given || a->fp_dumped) || !(b->fp_given || b->fp_dumped))
                return false;
        for (unsigned i = 0; i < a->num_tc && i < TBS_MAX_TC; i++)
                if ((a->fp[i] ?: TBS_FP_EXPRESS) != (b->fp[i] ?: TBS_FP_EXPRESS))
                        return false;
        return true;
}

bool root_classes_equal(const RootSpec *a, const RootSpec *b) {
        if (memcmp(a->priority_map, b->priority_map, sizeof(a->priority_map)) != 0)
                return false;
        for (unsigned i = 0; i < a->num_tc && i < TBS_MAX_TC; i++)
                if (a->queues[i].count != b->queues[i].count ||
                    a->queues[i].offset != b->queues[i].offset)
                        return false;
        return root_fp_equal(a, b);
}

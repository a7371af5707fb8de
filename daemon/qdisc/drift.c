/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drift.h"
#include "qdisc-plan.h"
#include "qdisc.h"

static int describe(char **ret, const char *fmt, ...) _printf_(2, 3);
static int describe(char **ret, const char *fmt, ...) {
        va_list ap;
        int r;

        if (!ret)
                return 1;
        va_start(ap, fmt);
        r = vasprintf(ret, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 1;
}

int drift_describe(const QDiscTree *t, const Schedule *s, const DeviceFacts *facts, char **ret_description) {
        const QDiscVTable *vt;
        RootSpec want = s->root;
        char h1[16], h2[16], diff[96];

        if (want.handle == 0)
                want.handle = TBS_DEFAULT_ROOT_HANDLE;
        vt = qdisc_vtable_for_root(want.kind);
        if (!vt)
                return -EINVAL;

        if (!t->has_root || !t->root_known || t->root.handle != want.handle || t->root_spec.kind != want.kind)
                return describe(ret_description, "root is %s %s instead of %s %s",
                                t->has_root ? t->root.kind : "missing",
                                t->has_root ? tc_handle_to_string(t->root.handle, h1) : "",
                                vt->kind, tc_handle_to_string(want.handle, h2));
        root_settle_installed(&want, &t->root_spec, facts);
        if (root_is_leaf(&want)) {
                _cleanup_free_ char *why = NULL;

                if (plan_resolve_leaf(&want, facts, &why) < 0)
                        return describe(ret_description, "%s", why ?: "root: values unknown");
                if (want.leaf.etf_child && !t->root_spec.leaf.etf_child)
                        return describe(ret_description, "root %s %s has no etf under it", vt->kind,
                                        tc_handle_to_string(want.handle, h1));
                if (!want.leaf.etf_child && t->root_spec.leaf.etf_child)
                        return describe(ret_description, "root %s %s has an etf under it, which is not declared",
                                        vt->kind, tc_handle_to_string(want.handle, h1));
                if (!vt->equal(&want, &t->root_spec))
                        return describe(ret_description, "root %s %s %s", vt->kind,
                                        tc_handle_to_string(want.handle, h1),
                                        qdisc_vtable_for_child(want.leaf.kind)->difference(&t->root_spec.leaf,
                                                                                           &want.leaf, diff));
        } else if (!vt->equal(&want, &t->root_spec))
                return describe(ret_description, "root %s %s has other options than declared", vt->kind,
                                tc_handle_to_string(want.handle, h1));

        for (size_t i = 0; i < s->n_txqueues; i++) {
                EtfSpec want_q = s->txqueues[i];
                const EtfSpec *e = &want_q;
                const InstalledQueue *iq = qdisc_tree_find_queue(t, e->queue);
                const char *kind = txq_kind_to_string(e->kind) ?: "?";
                _cleanup_free_ char *why = NULL;
                EtfOffloadPlan plan = etf_offload_plan(e, facts, NULL);

                if (plan_resolve_values(&want_q, facts, &why) < 0)
                        return describe(ret_description, "%s", why ?: "txqueue: values unknown");
                plan_resolve_etf_child(&want_q, facts);
                if (!iq)
                        return describe(ret_description, "txqueue %u: no qdisc (%s declared)", e->queue, kind);
                if (installed_queue_is_declarable(iq) && iq->etf.kind == e->kind && e->etf_child != iq->etf.etf_child)
                        return describe(ret_description, e->etf_child ? "txqueue %u: %s %s has no etf under it" :
                                        "txqueue %u: %s %s has an etf under it, which is not declared", e->queue,
                                        kind, tc_handle_to_string(iq->qdisc.handle, h1));
                if (!installed_queue_is_declarable(iq) || iq->etf.kind != e->kind)
                        return describe(ret_description, "txqueue %u: %s %s instead of %s", e->queue,
                                        iq->qdisc.kind, tc_handle_to_string(iq->qdisc.handle, h1), kind);
                if (!etf_matches_plan(&iq->etf, e, plan))
                        return describe(ret_description, "txqueue %u: %s %s %s", e->queue, kind,
                                        tc_handle_to_string(iq->qdisc.handle, h1),
                                        qdisc_vtable_for_child(e->kind)->difference(&iq->etf, e, diff));
        }
        for (size_t i = 0; i < t->n_queues; i++)
                if (installed_queue_is_declarable(&t->queues[i]) && !schedule_find_txqueue(s, t->queues[i].queue))
                        return describe(ret_description, "txqueue %u: %s %s is not declared",
                                        t->queues[i].queue, t->queues[i].qdisc.kind,
                                        tc_handle_to_string(t->queues[i].qdisc.handle, h1));
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qdiscs on TX queues: a "txqueues" entry (etf or cbs, a cbs's etf
 * "child", a queue's "stab") and the same keys for an etf or cbs as the
 * root. Internal to lib/schedule-parse.c. */
#include <stdlib.h>
#include <string.h>

#include "schedule-fields.h"
#include "schedule-hints.h"

static void parse_offload(Parser *p, const char *prefix, const JsonNode *e, OffloadMode *ret) {
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

enum {
        TXK_ETF = 1U << TXQ_ETF,
        TXK_CBS = 1U << TXQ_CBS,
        TXK_ANY = TXK_ETF | TXK_CBS,
        TXK_CLASSES = 1U << _TXQ_KIND_MAX,    /* an etf or cbs root: the keys of a root with classes */
};

/* The keys of an etf (a txqueues entry, a root etf or a cbs's child). */
static void parse_etf_keys(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, OffloadMode *offload) {
        int64_t x;

        parse_clockid(p, path, e, &q->clockid);
        if (get_int(p, path, e, "delta_ns", true, 0, INT32_MAX, &x) > 0)
                q->delta_ns = x;
        parse_offload(p, path, e, offload);
        (void) get_bool(p, path, e, "deadline_mode", &q->deadline_mode);
        (void) get_bool(p, path, e, "skip_sock_check", &q->skip_sock_check);
}

/* A cbs's "child": the etf under it (the kernel's parent CBS_HANDLE:1). */
static void parse_etf_child(Parser *p, const char *path, const JsonNode *e, EtfSpec *q) {
        static const KeySpec keys[] = {
                { "qdisc", K_ANY },
                { "clockid", K_ANY },
                { "delta_ns", K_ANY },
                { "offload", K_ANY },
                { "deadline_mode", K_ANY },
                { "skip_sock_check", K_ANY },
        };
        char cpath[JPATH_MAX], qpath[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *c, *v = NULL;
        const char *t;

        c = json_member(e, "child");
        if (!c)
                return;
        jpath_key(cpath, path, "child");
        if (!expect_type(p, cpath, c, JSON_OBJECT))
                return;
        check_keys(p, cpath, c, keys, ELEMENTSOF(keys), K_ANY);
        t = get_string(p, cpath, c, "qdisc", false, &v);
        if (t && (strcmp(t, "etf") != 0 || str_len(v) != 3))
                perr(p, jpath_key(qpath, cpath, "qdisc"),
                     "unknown qdisc %s; the qdisc under a cbs can only be \"etf\"", show(v, sh));
        q->etf_child = true;
        q->child_offload = OFFLOAD_AUTO;
        parse_etf_keys(p, cpath, c, q, &q->child_offload);
}

static void parse_txqueue(Parser *p, const char *path, const JsonNode *e, EtfSpec *q) {
        static const KeySpec keys[] = {
                { "queue", TXK_ANY },
                { "qdisc", TXK_ANY },
                { "clockid", TXK_ETF },
                { "delta_ns", TXK_ETF },
                { "offload", TXK_ANY },
                { "deadline_mode", TXK_ETF },
                { "skip_sock_check", TXK_ETF },
                { "monitor", TXK_ETF },
                { "idle_slope_kbps", TXK_CBS },
                { "send_slope_kbps", TXK_CBS },
                { "hi_credit_bytes", TXK_CBS },
                { "lo_credit_bytes", TXK_CBS },
                { "bandwidth_kbps", TXK_CBS },
                { "max_frame_bytes", TXK_CBS },
                { "max_interference_bytes", TXK_CBS },
                { "link_speed_mbps", TXK_CBS },
                { "child", TXK_CBS },
                { "stab", TXK_ANY },
        };
        static const char *const only[_TXQ_KIND_MAX] = {
                [TXQ_ETF] = "only valid for an etf queue (\"qdisc\": \"etf\")",
                [TXQ_CBS] = "only valid for a cbs queue (\"qdisc\": \"cbs\")",
        };
        char qpath[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *v = NULL;
        const char *t;
        int64_t x;

        if (!expect_type(p, path, e, JSON_OBJECT))
                return;
        /* The kind decides which keys are known: look before checking them. */
        if ((v = json_member(e, "qdisc")) && json_is(v, JSON_STRING) &&
            strcmp(v->text, "cbs") == 0 && str_len(v) == 3)
                q->kind = TXQ_CBS;
        check_keys_only(p, path, e, keys, ELEMENTSOF(keys), 1U << q->kind, only);

        if (get_int(p, path, e, "queue", true, 0, TBS_MAX_QUEUE, &x) > 0)
                q->queue = (uint32_t) x;
        t = get_string(p, path, e, "qdisc", false, &v);
        if (t) {
                if (strcmp(t, "tbs") == 0 && str_len(v) == 3)
                        q->spelled_tbs = true;
                else if (q->kind != TXQ_CBS && (strcmp(t, "etf") != 0 || str_len(v) != 3))
                        perr(p, jpath_key(qpath, path, "qdisc"),
                             "unknown qdisc %s; expected \"etf\" (or its old name \"tbs\") or \"cbs\"",
                             show(v, sh));
        }
        parse_stab(p, path, e, &q->stab);
        if (q->kind == TXQ_CBS) {
                parse_offload(p, path, e, &q->offload);
                parse_cbs(p, path, e, &q->cbs);
                parse_etf_child(p, path, e, q);
                return;
        }
        parse_etf_keys(p, path, e, q, &q->offload);
        parse_monitor(p, path, e, &q->monitor);
}

/* An etf or cbs as the root: the keys of a txqueues entry of that kind
 * (without queue and monitor), and the handle. */
void parse_root_leaf(Parser *p, const JsonNode *root, RootSpec *r) {
        static const KeySpec keys[] = {
                { "qdisc", TXK_ANY },
                { "handle", TXK_ANY },
                { "clockid", TXK_ETF },
                { "delta_ns", TXK_ETF },
                { "offload", TXK_ANY },
                { "deadline_mode", TXK_ETF },
                { "skip_sock_check", TXK_ETF },
                { "idle_slope_kbps", TXK_CBS },
                { "send_slope_kbps", TXK_CBS },
                { "hi_credit_bytes", TXK_CBS },
                { "lo_credit_bytes", TXK_CBS },
                { "bandwidth_kbps", TXK_CBS },
                { "max_frame_bytes", TXK_CBS },
                { "max_interference_bytes", TXK_CBS },
                { "link_speed_mbps", TXK_CBS },
                { "child", TXK_CBS },
                { "stab", TXK_ANY },
                { "num_tc", TXK_CLASSES },
                { "priority_map", TXK_CLASSES },
                { "queues", TXK_CLASSES },
        };
        static const char *const only[] = {
                [TXQ_ETF] = "only valid for an etf root (\"qdisc\": \"etf\")",
                [TXQ_CBS] = "only valid for a cbs root (\"qdisc\": \"cbs\")",
                [_TXQ_KIND_MAX] = "only valid for an mqprio or taprio root (a single etf or cbs as the root "
                                  "has no traffic classes)",
        };
        EtfSpec *q = &r->leaf;

        *q = (EtfSpec) {
                .kind = r->kind == ROOT_CBS ? TXQ_CBS : TXQ_ETF,
                .clockid = CLOCK_TAI,
                .offload = OFFLOAD_AUTO,
        };
        r->num_tc = 0;
        check_keys_only(p, "root", root, keys, ELEMENTSOF(keys), 1U << q->kind, only);
        parse_handle(p, root, r);
        parse_stab(p, "root", root, &r->stab);
        if (q->kind == TXQ_CBS) {
                parse_offload(p, "root", root, &q->offload);
                parse_cbs(p, "root", root, &q->cbs);
                parse_etf_child(p, "root", root, q);
        } else
                parse_etf_keys(p, "root", root, q, &q->offload);
}

void parse_txqueues(Parser *p, const JsonNode *top, Schedule *s) {
        char path[JPATH_MAX];
        const JsonNode *a;
        size_t n;

        a = get_container(p, NULL, top, "txqueues", false, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n == 0)
                return;
        s->txqueues = calloc(n, sizeof(EtfSpec));
        if (!s->txqueues) {
                p->oom = true;
                return;
        }
        s->n_txqueues = n;
        for (size_t i = 0; i < n; i++) {
                s->txqueues[i] = (EtfSpec) {
                        .clockid = CLOCK_TAI,
                        .offload = OFFLOAD_AUTO,
                };
                parse_txqueue(p, jpath_index(path, "txqueues", i), json_index(a, i),
                              &s->txqueues[i]);
        }
}

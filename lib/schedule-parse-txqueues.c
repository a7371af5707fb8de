/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qdiscs on TX queues: a "txqueues" entry and the same keys for an etf
 * or cbs as the root. Which keys a kind takes and what they mean is the
 * kind's (kinds/KIND.c, found in the table by "qdisc"); here are the keys
 * every kind takes (queue, qdisc, handle, stab). Internal to
 * lib/schedule-parse.c. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc-kind.h"
#include "schedule-fields.h"

/* The key table of a txqueues entry (or of a root that is one qdisc):
 * the common keys, then each kind's (bit 1 << TxqKind), in the table's
 * order; a root's also names the keys of a root with traffic classes. */
#define TXK_ANY ((1U << _TXQ_KIND_MAX) - 1)
#define TXK_CLASSES (1U << _TXQ_KIND_MAX)
static_assert(_TXQ_KIND_MAX + 1 <= KEY_TABLE_KINDS, "KeyTable.only holds a text per kind");

/* The keys every kind takes, before and after the kinds' own. */
static const KeySpec queue_keys_first[] = {
        { "queue", TXK_ANY },
        { "qdisc", TXK_ANY },
};
static const KeySpec root_keys_first[] = {
        { "qdisc", TXK_ANY },
        { "handle", TXK_ANY },
};
static const KeySpec keys_last[] = {
        { "stab", TXK_ANY },
};
/* The keys of a root with traffic classes, named in a leaf root's errors. */
static const KeySpec root_keys_classes[] = {
        { "num_tc", TXK_CLASSES },
        { "priority_map", TXK_CLASSES },
        { "queues", TXK_CLASSES },
};

static void txq_keys_build(KeyTable *t, bool as_root) {
        if (as_root)
                key_table_add_all(t, root_keys_first, ELEMENTSOF(root_keys_first));
        else
                key_table_add_all(t, queue_keys_first, ELEMENTSOF(queue_keys_first));
        for (TxqKind k = 0; k < _TXQ_KIND_MAX; k++) {
                const QDiscVTable *vt = qdisc_vtable_for_child(k);

                for (size_t i = 0; i < vt->n_keys; i++)
                        if (!as_root || !vt->keys[i].queue_only)
                                key_table_add(t, vt->keys[i].name, 1U << k);
                snprintf(t->only_text[k], sizeof(t->only_text[k]), "only valid for %s %s %s (\"qdisc\": \"%s\")",
                         vt->article, vt->kind, as_root ? "root" : "queue", vt->kind);
                t->only[k] = t->only_text[k];
        }
        key_table_add_all(t, keys_last, ELEMENTSOF(keys_last));
        if (as_root) {
                key_table_add_all(t, root_keys_classes, ELEMENTSOF(root_keys_classes));
                t->only[_TXQ_KIND_MAX] = "only valid for an mqprio or taprio root (a single etf or cbs as the root "
                                         "has no traffic classes)";
        }
}

/* The key table of a txqueues entry (as_root false) or of a root that is
 * one qdisc, built from the kinds' tables once: the kinds are constant,
 * and building it for every queue of every file would cost more than
 * checking the keys. */
static const KeyTable *txq_keys(bool as_root) {
        static KeyTable tables[2];
        static bool built[2];

        if (!built[as_root]) {
                txq_keys_build(&tables[as_root], as_root);
                built[as_root] = true;
        }
        return &tables[as_root];
}

/* The kind that "qdisc" of e names (etf when it names none, or none the
 * table knows: that error is the caller's). */
static const QDiscVTable *txq_kind_of(const JsonNode *e) {
        const JsonNode *v = json_member(e, "qdisc");
        const QDiscVTable *vt = NULL;

        if (v && json_is(v, JSON_STRING))
                vt = qdisc_vtable_txq_by_name(v->text, str_len(v));
        return vt ?: qdisc_vtable_for_child(TXQ_ETF);
}

static void parse_txqueue(Parser *p, const char *path, const JsonNode *e, EtfSpec *q) {
        char qpath[JPATH_MAX], sh[SHOW_MAX], names[128] = "";
        const KeyTable *keys = txq_keys(false);
        const QDiscVTable *vt;
        const JsonNode *v = NULL;
        const char *t;
        int64_t x;

        if (!expect_type(p, path, e, JSON_OBJECT))
                return;
        /* The kind decides which keys are known: look before checking them. */
        vt = txq_kind_of(e);
        q->kind = vt->txq;
        check_keys_only(p, path, e, keys->keys, keys->n, 1U << q->kind, keys->only);

        if (get_int(p, path, e, "queue", true, 0, TBS_MAX_QUEUE, &x) > 0)
                q->queue = (uint32_t) x;
        t = get_string(p, path, e, "qdisc", false, &v);
        if (t && strcmp(t, "tbs") == 0 && str_len(v) == 3)
                q->spelled_tbs = true;
        else if (t && !qdisc_vtable_txq_by_name(t, str_len(v))) {
                for (TxqKind k = 0; k < _TXQ_KIND_MAX; k++) {
                        const char *old = qdisc_vtable_for_child(k)->old_name;

                        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s\"%s\"%s%s%s",
                                 k == 0 ? "" : k + 1 == _TXQ_KIND_MAX ? " or " : ", ", txq_kind_to_string(k),
                                 old ? " (or its old name \"" : "", old ?: "", old ? "\")" : "");
                }
                perr(p, jpath_key(qpath, path, "qdisc"), "unknown qdisc %s; expected %s", show(v, sh), names);
        }
        parse_stab(p, path, e, &q->stab);
        vt->parse(p, path, e, q, false);
}

/* An etf or cbs as the root: the keys of a txqueues entry of that kind
 * (without queue and the queue-only keys), and the handle. */
void parse_root_leaf(Parser *p, const JsonNode *root, RootSpec *r) {
        const QDiscVTable *vt = qdisc_vtable_for_child(qdisc_vtable_for_root(r->kind)->txq);
        const KeyTable *keys = txq_keys(true);
        EtfSpec *q = &r->leaf;

        *q = (EtfSpec) {
                .kind = vt->txq,
                .offload = OFFLOAD_AUTO,
        };
        etf_spec_init(q);
        r->num_tc = 0;
        check_keys_only(p, "root", root, keys->keys, keys->n, 1U << q->kind, keys->only);
        parse_handle(p, root, r);
        parse_stab(p, "root", root, &r->stab);
        vt->parse(p, "root", root, q, true);
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
                        .offload = OFFLOAD_AUTO,
                };
                etf_spec_init(&s->txqueues[i]);
                parse_txqueue(p, jpath_index(path, "txqueues", i), json_index(a, i),
                              &s->txqueues[i]);
        }
}

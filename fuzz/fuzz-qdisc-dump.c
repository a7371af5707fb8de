/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: the bytes of an RTM_GETQDISC dump answer (a sequence of
 * netlink messages, as recv() returns them) through qdisc_tree_parse_dump()
 * and qdisc_tree_set_parse() (daemon/qdisc/qdisc-tree.c, with the kinds'
 * parse_options() in qdisc-*.c), then
 * what tbsd does with the tree: find queues, compare specs, and render the
 * root the way `tbsctl status` shows it (schedule_to_json()), and import
 * the tree as `tbsctl import` does (a schedule file, or one line why not).
 *
 * A dump holds every interface's qdiscs (the recorded dumps under
 * tests/unit/fixtures/qdisc are seeds as they are), so the input is parsed
 * once for each interface index its messages name (at most MAX_IFINDEX),
 * each time skipping the others' messages. Invariants: the
 * return code is one the contract names; queues are sorted, belong to the
 * root and are within TC_H_MIN; a spec equals itself; the one-pass split
 * of qdisc_tree_set_parse() gives, for every interface, the tree
 * qdisc_tree_parse_dump() gives, and fails exactly when one of those does. */
#include <errno.h>
#include <stdbool.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "json-util.h"
#include "nl-qdisc.h"
#include "qdisc-import.h"
#include "qdisc.h"
#include "schedule-json.h"
#include "schedule.h"

#define MAX_IFINDEX 4

/* The distinct tcm_ifindex values of the well-formed messages, in order. */
static size_t find_ifindexes(const uint8_t *data, size_t size, int ret[static MAX_IFINDEX]) {
        size_t n = 0, off = 0;

        while (n < MAX_IFINDEX && size - off >= NLMSG_HDRLEN + sizeof(struct tcmsg)) {
                struct nlmsghdr h;
                struct tcmsg t;
                bool seen = false;

                memcpy(&h, data + off, sizeof(h));
                if (h.nlmsg_len < NLMSG_HDRLEN + sizeof(t) || h.nlmsg_len > size - off)
                        break;
                memcpy(&t, data + off + NLMSG_HDRLEN, sizeof(t));
                for (size_t i = 0; i < n; i++)
                        seen = seen || ret[i] == t.tcm_ifindex;
                if (!seen)
                        ret[n++] = t.tcm_ifindex;
                off += NLMSG_ALIGN(h.nlmsg_len);
                if (off > size)
                        break;
        }
        return n;
}

static void use_tree(const QDiscTree *t) {
        char h[16];

        if (t->root_known) {
                const QDiscVTable *vt = qdisc_vtable_for_root(t->root_spec.kind);
                Schedule tmp = { .root = t->root_spec };
                _cleanup_json_ struct json_object *o = NULL;

                fuzz_check(vt && strcmp(vt->kind, t->root.kind) == 0, "root kind '%s'", t->root.kind);
                fuzz_check(vt->equal(&t->root_spec, &t->root_spec), "root spec differs from itself");
                /* As link.c's root_json() renders an installed root. */
                tmp.root.taprio.cycle_time_given = true;
                o = schedule_to_json(&tmp);
                fuzz_check(o, "schedule_to_json failed");
                fuzz_check(json_object_to_json_string(o), "no JSON text");
        }
        (void) tc_handle_to_string(t->root.handle, h);

        for (size_t i = 0; i < t->n_queues; i++) {
                const InstalledQueue *q = &t->queues[i];

                fuzz_check(i == 0 || t->queues[i - 1].queue <= q->queue, "queues not sorted");
                fuzz_check(q->queue < 0xffff, "queue %u", q->queue);
                fuzz_check(TC_H_MAJ(q->qdisc.parent) == TC_H_MAJ(t->root.handle), "child of another root");
                fuzz_check(qdisc_tree_find_queue(t, q->queue), "find_queue misses queue %u", q->queue);
                (void) tc_handle_to_string(q->qdisc.handle, h);
                (void) tc_handle_to_string(q->qdisc.parent, h);
                if (q->is_etf) {
                        fuzz_check(q->etf.queue == q->queue, "etf queue %u != %u", q->etf.queue, q->queue);
                        fuzz_check(qdisc_etf_vtable.equal(&q->etf, &q->etf), "etf spec differs from itself");
                        fuzz_check(q->etf.offload == OFFLOAD_ON || q->etf.offload == OFFLOAD_OFF,
                                   "dumped offload not resolved");
                        (void) clockid_to_string(q->etf.etf.clockid);
                        fuzz_check(q->invalid <= q->qdisc.stats.drops, "invalid > drops");
                }
                if (q->is_cbs) {
                        fuzz_check(!q->is_etf && q->etf.kind == TXQ_CBS, "cbs queue %u not of kind cbs", q->queue);
                        fuzz_check(q->etf.queue == q->queue, "cbs queue %u != %u", q->etf.queue, q->queue);
                        fuzz_check(qdisc_cbs_vtable.equal(&q->etf, &q->etf), "cbs spec differs from itself");
                        fuzz_check(q->etf.offload == OFFLOAD_ON || q->etf.offload == OFFLOAD_OFF,
                                   "dumped cbs offload not resolved");
                }
        }
        fuzz_check(!qdisc_tree_find_queue(t, UINT32_MAX) || t->n_queues > 0, "phantom queue");

        {
                _cleanup_free_ char *text = NULL, *why = NULL;
                int k = qdisc_tree_import(t, "eth0", "pfifo_fast", &text, &why);

                fuzz_check(k == 0 || k == -EOPNOTSUPP || k == -ENOMEM, "import returned %d", k);
                fuzz_check(k != 0 || (text && !why), "import: no text");
                fuzz_check(k != -EOPNOTSUPP || (why && !text && !strchr(why, '\n')), "import: no one-line reason");
        }
}

static bool installed_equal(const InstalledQDisc *a, const InstalledQDisc *b) {
        return strcmp(a->kind, b->kind) == 0 && a->handle == b->handle && a->parent == b->parent &&
               memcmp(&a->stats, &b->stats, sizeof(a->stats)) == 0 &&
               a->options_len == b->options_len && a->options_nested == b->options_nested &&
               (a->options_len == 0 || memcmp(a->options, b->options, a->options_len) == 0);
}

/* The two parsers agree on a tree. */
static void check_same_tree(const QDiscTree *a, const QDiscTree *b) {
        fuzz_check(a->ifindex == b->ifindex, "ifindex");
        fuzz_check(a->has_root == b->has_root && installed_equal(&a->root, &b->root), "root differs");
        fuzz_check(a->root_known == b->root_known, "root_known differs");
        if (a->root_known)
                fuzz_check(qdisc_vtable_for_root(a->root_spec.kind)->equal(&a->root_spec, &b->root_spec) &&
                           a->root_spec.handle == b->root_spec.handle, "root spec differs");
        fuzz_check(a->n_handles == b->n_handles &&
                   (a->n_handles == 0 || memcmp(a->handles, b->handles, a->n_handles * sizeof(uint32_t)) == 0),
                   "handles differ");
        fuzz_check(a->n_queues == b->n_queues, "%zu queues != %zu", a->n_queues, b->n_queues);
        for (size_t i = 0; i < a->n_queues; i++) {
                const InstalledQueue *x = &a->queues[i], *y = &b->queues[i];

                fuzz_check(x->queue == y->queue && x->is_etf == y->is_etf && x->is_cbs == y->is_cbs &&
                           installed_equal(&x->qdisc, &y->qdisc) &&
                           (!installed_queue_is_declarable(x) || etf_spec_equal(&x->etf, &y->etf)) &&
                           x->deadline_misses == y->deadline_misses && x->invalid == y->invalid,
                           "queue %zu differs", i);
        }
}

/* Parse for one interface; returns the result code, and on success checks
 * the tree against the set's (set NULL: the set parse failed). */
static int parse_for(const uint8_t *data, size_t size, int ifindex, const QDiscTreeSet *set) {
        QDiscTree t = {};
        int r;

        r = qdisc_tree_parse_dump(data, size, ifindex, &t);
        if (r < 0) {
                fuzz_check(r == -EBADMSG || r == -ENOMEM, "parse_dump returned %d", r);
                fuzz_check(t.n_queues == 0 && !t.queues && !t.handles, "*ret touched on failure");
                return r;
        }
        fuzz_check(r == 0, "parse_dump returned %d", r);
        fuzz_check(t.ifindex == ifindex, "tree of ifindex %d for %d", t.ifindex, ifindex);
        use_tree(&t);
        if (set) {
                const QDiscTree *st = qdisc_tree_set_find(set, ifindex);

                if (st)
                        check_same_tree(&t, st);
                else
                        fuzz_check(!t.has_root && t.n_queues == 0 && t.n_handles == 0,
                                   "set has no tree for ifindex %d, the single parse has one", ifindex);
        }
        qdisc_tree_done(&t);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        QDiscTreeSet set = {};
        int ifindex[MAX_IFINDEX];
        bool all_ok = true;
        size_t n;
        int r;

        r = qdisc_tree_set_parse(data, size, &set);
        fuzz_check(r == 0 || r == -EBADMSG || r == -ENOMEM, "set_parse returned %d", r);
        if (r == 0) {
                for (size_t i = 0; i < set.n; i++) {
                        fuzz_check(i == 0 || set.trees[i - 1].ifindex < set.trees[i].ifindex,
                                   "set not sorted by ifindex");
                        fuzz_check(qdisc_tree_set_find(&set, set.trees[i].ifindex) == &set.trees[i],
                                   "set_find misses ifindex %d", set.trees[i].ifindex);
                        /* Every tree against its single parse (a few: each reads the whole dump). */
                        if (i < MAX_IFINDEX)
                                fuzz_check(parse_for(data, size, set.trees[i].ifindex, &set) == 0,
                                           "set_parse succeeded, parse_dump of ifindex %d failed",
                                           set.trees[i].ifindex);
                }
        }

        n = find_ifindexes(data, size, ifindex);
        if (n == 0)
                all_ok = parse_for(data, size, 1, r == 0 ? &set : NULL) == 0 && all_ok;
        for (size_t i = 0; i < n; i++)
                all_ok = parse_for(data, size, ifindex[i], r == 0 ? &set : NULL) == 0 && all_ok;
        if (!all_ok)
                fuzz_check(r < 0, "parse_dump failed for an interface, set_parse succeeded");

        if (r == 0 && set.n > 0) {
                QDiscTree taken = {};
                int idx = set.trees[0].ifindex;

                fuzz_check(qdisc_tree_set_take_slim(&set, idx, &taken) == 0, "set_take failed");
                fuzz_check(taken.ifindex == idx, "taken tree of ifindex %d", taken.ifindex);
                fuzz_check(qdisc_tree_set_find(&set, idx), "taken tree no longer found");
                qdisc_tree_done(&taken);
        }
        qdisc_tree_set_done(&set);
        return 0;
}

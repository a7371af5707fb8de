/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/tc_ematch/tc_em_meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/route/act/gact.h>
#include <netlink/route/act/skbedit.h>
#include <netlink/route/action.h>
#include <netlink/route/classifier.h>
#include <netlink/route/cls/basic.h>
#include <netlink/route/cls/ematch.h>
#include <netlink/route/cls/ematch/meta.h>
#include <netlink/route/qdisc.h>

#include "macro.h"
#include "nl-socket-guard.h"
#include "qdisc-plan.h"

#define CLSACT_HANDLE TC_H_MAKE(TC_H_CLSACT, 0)
#define EGRESS_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS)
#define INGRESS_PARENT TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS)

static void cls_putp(struct rtnl_cls **c) {
        if (*c)
                rtnl_cls_put(*c);
}
static void qdisc_putp(struct rtnl_qdisc **q) {
        if (*q)
                rtnl_qdisc_put(*q);
}
static void act_putp(struct rtnl_act **a) {
        if (*a)
                rtnl_act_put(*a);
}

/* Count the filters of one clsact parent: ours (kind "basic" at a guard
 * preference) into *present, the rest into *others. */
static int read_parent(NlQdisc *nl, int ifindex, uint32_t parent, uint32_t *present, unsigned *others) {
        _cleanup_free_ void *buf = NULL;
        size_t len = 0;
        int k;

        k = nl_filter_dump_raw(nl, ifindex, parent, &buf, &len);
        if (k < 0)
                return k;
        for (const struct nlmsghdr *h = buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
                const struct tcmsg *t = NLMSG_DATA(h);
                const struct nlattr *kind;
                unsigned pref;

                if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) || t->tcm_ifindex != ifindex)
                        continue;
                pref = TC_H_MAJ(t->tcm_info) >> 16;
                kind = nlmsg_find_attr((struct nlmsghdr *) h, sizeof(*t), TCA_KIND);
                if (parent == EGRESS_PARENT && pref >= SOCKET_GUARD_PREF_FIRST &&
                    pref < SOCKET_GUARD_PREF_FIRST + SOCKET_GUARD_FILTERS && kind &&
                    strncmp(nla_data(kind), "basic", (size_t) nla_len(kind)) == 0)
                        *present |= UINT32_C(1) << (pref - SOCKET_GUARD_PREF_FIRST);
                else if (others)
                        (*others)++;
        }
        return 0;
}

int nl_socket_guard_read(NlQdisc *nl, int ifindex, uint32_t *ret_present, unsigned *ret_others) {
        uint32_t present = 0;
        unsigned others = 0;
        int k;

        k = read_parent(nl, ifindex, EGRESS_PARENT, &present, &others);
        if (k >= 0 && ret_others)
                k = read_parent(nl, ifindex, INGRESS_PARENT, &present, &others);
        if (k < 0)
                return k;
        *ret_present = present;
        if (ret_others)
                *ret_others = others;
        return 0;
}

static int clsact_request(int ifindex, bool add, struct nl_msg **ret) {
        _cleanup_(qdisc_putp) struct rtnl_qdisc *q = rtnl_qdisc_alloc();
        int k;

        if (!q)
                return -ENOMEM;
        rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
        rtnl_tc_set_parent(TC_CAST(q), TC_H_CLSACT);
        rtnl_tc_set_handle(TC_CAST(q), CLSACT_HANDLE);
        k = rtnl_tc_set_kind(TC_CAST(q), "clsact");
        if (k < 0)
                return nl_errno(k);
        k = add ? rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_EXCL, ret)
                : rtnl_qdisc_build_delete_request(q, ret);
        return k < 0 ? nl_errno(k) : 0;
}

static struct rtnl_cls *guard_cls(int ifindex, uint16_t pref) {
        struct rtnl_cls *c = rtnl_cls_alloc();

        if (!c)
                return NULL;
        rtnl_tc_set_ifindex(TC_CAST(c), ifindex);
        rtnl_tc_set_parent(TC_CAST(c), EGRESS_PARENT);
        rtnl_cls_set_prio(c, pref);
        rtnl_cls_set_protocol(c, ETH_P_ALL);
        if (rtnl_tc_set_kind(TC_CAST(c), "basic") < 0) {
                rtnl_cls_put(c);
                return NULL;
        }
        return c;
}

/* The values of an em_meta match: libnl-route 3.7 never frees them (its
 * meta_free() is not called by rtnl_ematch_free()), so they stay ours and
 * are taken off the match before the filter is put (a libnl that frees
 * them then finds NULL). */
typedef struct MetaValues {
        struct rtnl_ematch *match;
        struct rtnl_meta_value *left, *right;
} MetaValues;

static void meta_values_done(MetaValues *v) {
        if (v->match) {
                rtnl_ematch_meta_set_lvalue(v->match, NULL);
                rtnl_ematch_meta_set_rvalue(v->match, NULL);
        }
        rtnl_meta_value_put(v->left);
        rtnl_meta_value_put(v->right);
}

/* "(nfmark >> shift) == value" as an ematch tree of one em_meta match. */
static struct rtnl_ematch_tree *mark_match(const SocketGuardFilter *f, MetaValues *v) {
        struct rtnl_ematch_tree *tree = rtnl_ematch_tree_alloc(TCF_EM_PROG_TC);
        struct rtnl_ematch *e = rtnl_ematch_alloc();

        v->left = rtnl_meta_value_alloc_id(TCF_META_TYPE_INT, TCF_META_ID_NFMARK, f->shift, 0);
        v->right = rtnl_meta_value_alloc_int(f->value);
        if (!tree || !e || !v->left || !v->right || rtnl_ematch_set_kind(e, TCF_EM_META) < 0) {
                if (e)
                        rtnl_ematch_free(e);
                rtnl_ematch_tree_free(tree);
                return NULL;
        }
        rtnl_ematch_meta_set_lvalue(e, v->left);
        rtnl_ematch_meta_set_rvalue(e, v->right);
        rtnl_ematch_meta_set_operand(e, TCF_EM_OPND_EQ);
        rtnl_ematch_tree_add(tree, e);
        v->match = e;
        return tree;
}

/* libnl-route 3.7 opens each ematch of the list (TCA_EMATCH_TREE_LIST's
 * entries 1..n) with nla_nest_start(), which sets NLA_F_NESTED in the
 * type; the kernel compares the raw type with the entry's number
 * (tcf_em_tree_validate(): "rt_match->nla_type != idx + 1") and refuses the
 * filter with EINVAL and no message. An entry is a tcf_ematch_hdr and the
 * match's data, not nested attributes: the flag goes. (daemon/qdisc/README.md
 * ("Netlink") has the upstream report.) */
static void ematch_list_unflag(struct nl_msg *m) {
        struct nlattr *opts, *tree, *list, *e;
        int rem;

        opts = nlmsg_find_attr(nlmsg_hdr(m), sizeof(struct tcmsg), TCA_OPTIONS);
        tree = opts ? nla_find(nla_data(opts), nla_len(opts), TCA_BASIC_EMATCHES) : NULL;
        list = tree ? nla_find(nla_data(tree), nla_len(tree), TCA_EMATCH_TREE_LIST) : NULL;
        if (!list)
                return;
        nla_for_each_nested(e, list, rem)
                e->nla_type &= (uint16_t) ~NLA_F_NESTED;
}

static int filter_add_request(int ifindex, const SocketGuardFilter *f, struct nl_msg **ret) {
        _cleanup_(cls_putp) struct rtnl_cls *c = guard_cls(ifindex, f->pref);
        _cleanup_(act_putp) struct rtnl_act *a = rtnl_act_alloc();
        /* Declared after c: taken off the match and freed before c is put. */
        _cleanup_(meta_values_done) MetaValues values = {};
        struct rtnl_ematch_tree *tree;
        int k;

        if (!c || !a)
                return -ENOMEM;
        tree = mark_match(f, &values);
        if (!tree)
                return -ENOMEM;
        rtnl_basic_set_ematch(c, tree);
        if (f->action == SOCKET_GUARD_PIN) {
                k = rtnl_tc_set_kind(TC_CAST(a), "skbedit");
                if (k >= 0)
                        k = rtnl_skbedit_set_priority(a, f->priority);
                if (k >= 0)
                        k = rtnl_skbedit_set_action(a, TC_ACT_OK);
        } else {
                k = rtnl_tc_set_kind(TC_CAST(a), "gact");
                if (k >= 0)
                        k = rtnl_gact_set_action(a, TC_ACT_SHOT);
        }
        if (k >= 0)
                k = rtnl_basic_add_action(c, a);
        if (k >= 0)
                k = rtnl_cls_build_add_request(c, NLM_F_CREATE | NLM_F_EXCL, ret);
        if (k < 0)
                return nl_errno(k);
        ematch_list_unflag(*ret);
        return 0;
}

static int filter_delete_request(int ifindex, uint16_t pref, struct nl_msg **ret) {
        _cleanup_(cls_putp) struct rtnl_cls *c = guard_cls(ifindex, pref);
        int k;

        if (!c)
                return -ENOMEM;
        k = rtnl_cls_build_delete_request(c, 0, ret);
        return k < 0 ? nl_errno(k) : 0;
}

static void free_msgs(struct nl_msg **m, size_t n) {
        for (size_t i = 0; i < n; i++)
                nlmsg_free(m[i]);
}

int nl_socket_guard_undo(NlQdisc *nl, int ifindex, const SocketGuardUndo *undo) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        int k, r = 0;

        if (undo->created_clsact) {
                /* The filters go with it. */
                k = clsact_request(ifindex, false, &m);
                return k < 0 ? k : nl_transport_request(nl, m);
        }
        for (unsigned i = 0; i < SOCKET_GUARD_FILTERS; i++) {
                _cleanup_nlmsg_ struct nl_msg *d = NULL;

                if (!(undo->added & (UINT32_C(1) << i)))
                        continue;
                k = filter_delete_request(ifindex, (uint16_t) (SOCKET_GUARD_PREF_FIRST + i), &d);
                if (k >= 0)
                        k = nl_transport_request(nl, d);
                if (k < 0 && r == 0)
                        r = k;
        }
        return r;
}

int nl_socket_guard_install(NlQdisc *nl, int ifindex, uint32_t present, SocketGuardUndo *ret_undo,
                            char **ret_error) {
        SocketGuardFilter plan[SOCKET_GUARD_FILTERS];
        struct nl_msg *msgs[1 + SOCKET_GUARD_FILTERS] = {};
        NlRequest reqs[1 + SOCKET_GUARD_FILTERS] = {};
        unsigned filter_of[1 + SOCKET_GUARD_FILTERS];
        SocketGuardUndo undo = {};
        size_t n = 0;
        int k, failed = -1;

        *ret_undo = undo;
        if ((present & SOCKET_GUARD_ALL_PRESENT) == SOCKET_GUARD_ALL_PRESENT)
                return 0;
        k = socket_guard_plan(ifindex, plan);
        if (k < 0) {
                if (asprintf(ret_error, "socket guard: interface index %d is above %d, the marks have no room "
                             "for it", ifindex, SOCKET_GUARD_IFINDEX_MAX) < 0)
                        *ret_error = NULL;
                return k;
        }
        /* clsact first; "exists" is an answer too (ours or the operator's). */
        k = clsact_request(ifindex, true, &msgs[n]);
        if (k < 0)
                goto fail_build;
        filter_of[n++] = UINT32_MAX;
        for (unsigned i = 0; i < SOCKET_GUARD_FILTERS; i++) {
                if (present & (UINT32_C(1) << i))
                        continue;
                k = filter_add_request(ifindex, &plan[i], &msgs[n]);
                if (k < 0)
                        goto fail_build;
                filter_of[n++] = i;
        }
        for (size_t i = 0; i < n; i++)
                reqs[i].msg = msgs[i];
        k = nl_transport_exchange(nl, reqs, n);
        for (size_t i = 0; i < n; i++) {
                int e = reqs[i].exchange_error ?: reqs[i].error;

                if (i == 0 && e == -EEXIST)
                        continue;
                if (e < 0) {
                        if (failed < 0)
                                failed = (int) i;
                        continue;
                }
                if (i == 0)
                        undo.created_clsact = true;
                else
                        undo.added |= UINT32_C(1) << filter_of[i];
        }
        if (failed >= 0) {
                _cleanup_free_ char *step = NULL;
                int e = reqs[failed].exchange_error ?: reqs[failed].error;

                if (failed == 0)
                        step = strdup("socket guard: adding the clsact qdisc");
                else if (asprintf(&step, "socket guard: adding the egress filter of preference %u (basic, %s)",
                                  plan[filter_of[failed]].pref,
                                  plan[filter_of[failed]].action == SOCKET_GUARD_PIN ? "skbedit" : "gact") < 0)
                        step = NULL;
                *ret_error = qdisc_step_error(reqs[failed].ext_ack ?: "", e, step ?: "socket guard");
                (void) nl_socket_guard_undo(nl, ifindex, &undo);
                nl_requests_done(reqs, n);
                free_msgs(msgs, n);
                return e;
        }
        nl_requests_done(reqs, n);
        free_msgs(msgs, n);
        *ret_undo = undo;
        return k < 0 ? k : 1;

fail_build:
        free_msgs(msgs, n);
        *ret_error = strdup("socket guard: building the requests failed");
        return k;
}

int nl_socket_guard_remove(NlQdisc *nl, int ifindex, char **ret_error) {
        uint32_t present = 0;
        unsigned others = 0;
        int k;

        k = nl_socket_guard_read(nl, ifindex, &present, &others);
        if (k < 0 || present == 0) {
                if (k < 0)
                        *ret_error = qdisc_step_error(nl_transport_ext_ack(nl), k, "socket guard: reading the filters");
                return k < 0 ? k : 0;
        }
        /* Nothing but ours on it: the clsact goes (with the filters). */
        k = nl_socket_guard_undo(nl, ifindex, &(SocketGuardUndo) {
                        .created_clsact = others == 0,
                        .added = present,
                });
        if (k < 0)
                *ret_error = qdisc_step_error(nl_transport_ext_ack(nl), k, "socket guard: removing it");
        return k;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "qdisc.h"

bool qdisc_root_delete_first(const char *old_kind, const char *new_kind) {
        const QDiscVTable *o = qdisc_vtable_by_kind(old_kind), *n = qdisc_vtable_by_kind(new_kind);

        return o && n && o->traffic_classes && n->traffic_classes;
}

/* libnl's own default is a page per message, which hundreds of interfaces
 * times five requests turn into megabytes of touched memory. Requests
 * without a gate list are below 300 bytes; libnl messages do not grow, so
 * a taprio root gets room for each entry on top. */
#define REQUEST_SIZE QDISC_REQUEST_SIZE
#define REQUEST_SIZE_PER_ENTRY 32
/* TCA_STAB: its nest, the sizespec and a table of at most TBS_STAB_TSIZE_MAX slots */
#define QDISC_STAB_SIZE (64 + TBS_STAB_TSIZE_MAX * sizeof(uint16_t))

static int request_new_sized(int type, int flags, int ifindex, uint32_t handle, uint32_t parent,
                             const char *kind, size_t size, struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
        struct tcmsg t = {
                .tcm_family = AF_UNSPEC,
                .tcm_ifindex = ifindex,
                .tcm_handle = handle,
                .tcm_parent = parent,
        };

        m = nlmsg_alloc_size(size);
        if (!m)
                return -ENOMEM;
        if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, flags))
                return -ENOMEM;
        if (nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0)
                return -ENOMEM;
        if (kind && nla_put_string(m, TCA_KIND, kind) < 0)
                return -ENOMEM;

        *ret = TAKE_PTR(m);
        return 0;
}

int qdisc_request_new(int type, int flags, int ifindex, uint32_t handle, uint32_t parent,
                      const char *kind, struct nl_msg **ret) {
        return request_new_sized(type, flags, ifindex, handle, parent, kind, REQUEST_SIZE, ret);
}

int qdisc_request_with_options(int type, int flags, int ifindex, uint32_t handle, uint32_t parent,
                               const char *kind, const void *options, size_t len, bool nested,
                               struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
        int k;

        if (len > UINT16_MAX - NLA_HDRLEN)
                return -EMSGSIZE;
        k = request_new_sized(type, flags, ifindex, handle, parent, kind, REQUEST_SIZE + NLA_ALIGN(len), &m);
        if (k < 0)
                return k;
        if (options && nla_put(m, TCA_OPTIONS | (nested ? NLA_F_NESTED : 0), (int) len, options) < 0)
                return -ENOMEM;
        if (nlmsg_hdr(m)->nlmsg_len > QDISC_REQUEST_MAX)
                return -EMSGSIZE;

        *ret = TAKE_PTR(m);
        return 0;
}

int qdisc_put_stab(struct nl_msg *m, const StabSpec *s) {
        uint16_t table[TBS_STAB_TSIZE_MAX];
        struct tc_sizespec spec;
        struct nlattr *nest;

        if (!stab_needs_request(s))
                return 0;
        stab_sizespec(s, &spec);
        if (spec.tsize > TBS_STAB_TSIZE_MAX)
                return -EINVAL;         /* a dumped table larger than the format's */
        nest = nla_nest_start(m, TCA_STAB);
        if (!nest || nla_put(m, TCA_STAB_BASE, sizeof(spec), &spec) < 0)
                return -EMSGSIZE;
        if (spec.tsize > 0) {
                stab_table(s, &spec, table);
                if (nla_put(m, TCA_STAB_DATA, (int) (spec.tsize * sizeof(uint16_t)), table) < 0)
                        return -EMSGSIZE;
        }
        return qdisc_nest_end(m, nest);
}

/* A copy of *m with room for TCA_STAB: a request libnl-route built (mqprio)
 * has only the room its own attributes take. */
static int request_with_stab_room(struct nl_msg **m) {
        struct nlmsghdr *h = nlmsg_hdr(*m);
        struct nl_msg *c;

        c = nlmsg_alloc_size(h->nlmsg_len + QDISC_STAB_SIZE);
        if (!c)
                return -ENOMEM;
        if (!nlmsg_put(c, h->nlmsg_pid, h->nlmsg_seq, h->nlmsg_type, nlmsg_datalen(h), h->nlmsg_flags)) {
                nlmsg_free(c);
                return -ENOMEM;
        }
        memcpy(nlmsg_data(nlmsg_hdr(c)), nlmsg_data(h), (size_t) nlmsg_datalen(h));
        nlmsg_free(*m);
        *m = c;
        return 0;
}

/* The entries of r's gate list, for a request's room (0: no gates). */
static size_t gate_entries(const RootSpec *r) {
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(r, &buf);

        return g ? g->n_entries : 0;
}

static int root_request(int ifindex, const RootSpec *r, bool change, struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
        const QDiscVTable *vt;
        int k;

        vt = qdisc_vtable_for_root(r->kind);
        if (!vt)
                return -EINVAL;
        if (change && !vt->fill_options)
                return -EOPNOTSUPP;
        if (!change && vt->build_request) {
                k = vt->build_request(ifindex, r, &m);
                if (k >= 0 && stab_needs_request(&r->stab))
                        k = request_with_stab_room(&m);
        } else {
                /* A change names the running root by its handle, without
                 * NLM_F_CREATE (tc qdisc replace/change): the kernel hands
                 * the options to the qdisc's change(). */
                k = request_new_sized(RTM_NEWQDISC, change ? NLM_F_REPLACE : NLM_F_CREATE | NLM_F_REPLACE,
                                      ifindex, r->handle, TC_H_ROOT, vt->kind,
                                      REQUEST_SIZE + gate_entries(r) * REQUEST_SIZE_PER_ENTRY +
                                              (stab_needs_request(&r->stab) ? QDISC_STAB_SIZE : 0), &m);
                if (k >= 0)
                        k = vt->fill_options(m, r);
        }
        if (k < 0)
                return k;
        /* also on a change: one without TCA_STAB takes the kernel's table away */
        k = qdisc_put_stab(m, &r->stab);
        if (k < 0)
                return k;
        if (nlmsg_hdr(m)->nlmsg_len > QDISC_REQUEST_MAX)
                return -EMSGSIZE;

        *ret = TAKE_PTR(m);
        return 0;
}

int qdisc_root_request(int ifindex, const RootSpec *r, struct nl_msg **ret) {
        return root_request(ifindex, r, false, ret);
}

int qdisc_root_change_request(int ifindex, const RootSpec *r, struct nl_msg **ret) {
        return root_request(ifindex, r, true, ret);
}

int qdisc_etf_request(int ifindex, uint32_t root_handle, uint32_t handle, const EtfSpec *e,
                      bool offload, struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
        const QDiscVTable *vt = qdisc_vtable_for_child(e->kind);
        EtfSpec resolved = *e;
        int k;

        if (!vt || e->queue >= 0xffff || TC_H_MIN(handle) != 0)
                return -EINVAL;
        resolved.offload = offload ? OFFLOAD_ON : OFFLOAD_OFF;
        k = request_new_sized(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex,
                              handle, TC_H_MAKE(TC_H_MAJ(root_handle), e->queue + 1), vt->kind,
                              REQUEST_SIZE + (stab_needs_request(&e->stab) ? QDISC_STAB_SIZE : 0), &m);
        if (k < 0)
                return k;
        k = vt->fill_options(m, &resolved);
        if (k < 0)
                return k;
        k = qdisc_put_stab(m, &e->stab);
        if (k < 0)
                return k;

        *ret = TAKE_PTR(m);
        return 0;
}

int qdisc_etf_child_request(int ifindex, uint32_t parent, uint32_t handle, const EtfSpec *e, bool offload,
                            struct nl_msg **ret) {
        _cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
        EtfSpec etf = etf_spec_etf_part(e);
        int k;

        if (TC_H_MIN(handle) != 0 || TC_H_MIN(parent) == 0 || !etf_spec_has_etf(e))
                return -EINVAL;
        etf.offload = offload ? OFFLOAD_ON : OFFLOAD_OFF;
        k = qdisc_request_new(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, ifindex, handle, parent,
                              qdisc_etf_vtable.kind, &m);
        if (k < 0)
                return k;
        k = qdisc_etf_vtable.fill_options(m, &etf);
        if (k < 0)
                return k;

        *ret = TAKE_PTR(m);
        return 0;
}

struct nlattr *qdisc_request_options(struct nl_msg *m) {
        return nlmsg_find_attr(nlmsg_hdr(m), sizeof(struct tcmsg), TCA_OPTIONS);
}

void leaf_settle_unresolved(RootSpec *want, const RootSpec *installed) {
        const QDiscVTable *vt = qdisc_vtable_for_child(want->leaf.kind);
        EtfSpec *w = &want->leaf;
        const EtfSpec *h = &installed->leaf;

        if (!root_is_leaf(want) || want->kind != installed->kind || !vt)
                return;
        if (w->offload == OFFLOAD_AUTO)
                w->offload = h->offload;
        if (w->etf_child && w->child_offload == OFFLOAD_AUTO)
                w->child_offload = h->child_offload;
        if (vt->settle_unresolved)
                vt->settle_unresolved(w, h);
}

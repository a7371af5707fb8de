/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cbs: TCA_OPTIONS is a nest holding TCA_CBS_PARMS = struct tc_cbs_qopt
 * (offload, hicredit, locredit, idleslope, sendslope), as sch_cbs.c parses
 * and dumps it. The spec's four values must be resolved (a cbs queue given
 * by bandwidth: cbs_spec_resolve()) before they are sent or compared. */
#include <linux/pkt_sched.h>
#include <string.h>

#include "qdisc.h"

static int cbs_fill_options(struct nl_msg *m, const void *spec) {
        const EtfSpec *e = spec;
        struct tc_cbs_qopt q = {
                .hicredit = e->cbs.hi_credit_bytes,
                .locredit = e->cbs.lo_credit_bytes,
                .idleslope = e->cbs.idle_slope_kbps,
                .sendslope = e->cbs.send_slope_kbps,
        };
        struct nlattr *nest;

        if (e->kind != TXQ_CBS || e->offload == OFFLOAD_AUTO)
                return -EINVAL;
        q.offload = e->offload == OFFLOAD_ON;

        /* iproute2 sends this nest without NLA_F_NESTED; so do we. */
        nest = nla_nest_start(m, TCA_OPTIONS);
        if (!nest)
                return -ENOMEM;
        nest->nla_type = TCA_OPTIONS;
        if (nla_put(m, TCA_CBS_PARMS, sizeof(q), &q) < 0)
                return -ENOMEM;
        return qdisc_nest_end(m, nest);
}

static int cbs_parse_options(const struct nlattr *options, void *ret_spec) {
        struct nlattr *tb[TCA_CBS_MAX + 1];
        struct tc_cbs_qopt q;

        if (!options)
                return -EBADMSG;
        if (nla_parse_nested(tb, TCA_CBS_MAX, (struct nlattr *) options, NULL) < 0)
                return -EBADMSG;
        if (!tb[TCA_CBS_PARMS] || nla_len(tb[TCA_CBS_PARMS]) < (int) sizeof(q))
                return -EBADMSG;
        memcpy(&q, nla_data(tb[TCA_CBS_PARMS]), sizeof(q));

        *(EtfSpec *) ret_spec = (EtfSpec) {
                .kind = TXQ_CBS,
                .offload = q.offload ? OFFLOAD_ON : OFFLOAD_OFF,
                .cbs = {
                        .idle_slope_kbps = q.idleslope,
                        .send_slope_kbps = q.sendslope,
                        .hi_credit_bytes = q.hicredit,
                        .lo_credit_bytes = q.locredit,
                },
        };
        return 0;
}

static bool cbs_equal(const void *a, const void *b) {
        return etf_spec_equal(a, b);
}

const QDiscVTable qdisc_cbs_vtable = {
        .kind = "cbs",
        .root = false,
        .fill_options = cbs_fill_options,
        .parse_options = cbs_parse_options,
        .equal = cbs_equal,
};

/* cbs as the root: the same options, from and into RootSpec.leaf (the
 * etf under it, if any, is the dump parser's: qdisc-tree.c). */
static int cbs_root_fill_options(struct nl_msg *m, const void *spec) {
        return cbs_fill_options(m, &((const RootSpec *) spec)->leaf);
}

static int cbs_root_parse_options(const struct nlattr *options, void *ret_spec) {
        RootSpec *r = ret_spec;

        *r = (RootSpec) { .kind = ROOT_CBS };
        return cbs_parse_options(options, &r->leaf);
}

static bool cbs_root_equal(const void *a, const void *b) {
        return root_spec_equal(a, b);
}

const QDiscVTable qdisc_cbs_root_vtable = {
        .kind = "cbs",
        .root = true,
        .default_child = "pfifo",       /* cbs grafts a pfifo as its inner qdisc */
        .fill_options = cbs_root_fill_options,
        .parse_options = cbs_root_parse_options,
        .equal = cbs_root_equal,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etf: TCA_OPTIONS is a nest holding TCA_ETF_PARMS = struct tc_etf_qopt
 * (delta ns, clockid, flags), as sch_etf.c parses and dumps it. */
#include <linux/pkt_sched.h>
#include <string.h>

#include "qdisc.h"

static int etf_fill_options(struct nl_msg *m, const void *spec) {
        const EtfSpec *e = spec;
        struct tc_etf_qopt q = {
                .delta = e->delta_ns,
                .clockid = e->clockid,
        };
        struct nlattr *nest;

        if (e->offload == OFFLOAD_AUTO)
                return -EINVAL;
        if (e->offload == OFFLOAD_ON)
                q.flags |= TC_ETF_OFFLOAD_ON;
        if (e->deadline_mode)
                q.flags |= TC_ETF_DEADLINE_MODE_ON;
        if (e->skip_sock_check)
                q.flags |= TC_ETF_SKIP_SOCK_CHECK;

        /* iproute2 sends this nest without NLA_F_NESTED; so do we. */
        nest = nla_nest_start(m, TCA_OPTIONS);
        if (!nest)
                return -ENOMEM;
        nest->nla_type = TCA_OPTIONS;
        if (nla_put(m, TCA_ETF_PARMS, sizeof(q), &q) < 0)
                return -ENOMEM;
        return qdisc_nest_end(m, nest);
}

static int etf_parse_options(const struct nlattr *options, void *ret_spec) {
        struct nlattr *tb[TCA_ETF_MAX + 1];
        struct tc_etf_qopt q;

        if (!options)
                return -EBADMSG;
        if (nla_parse_nested(tb, TCA_ETF_MAX, (struct nlattr *) options, NULL) < 0)
                return -EBADMSG;
        if (!tb[TCA_ETF_PARMS] || nla_len(tb[TCA_ETF_PARMS]) < (int) sizeof(q))
                return -EBADMSG;
        memcpy(&q, nla_data(tb[TCA_ETF_PARMS]), sizeof(q));

        *(EtfSpec *) ret_spec = (EtfSpec) {
                .clockid = q.clockid,
                .delta_ns = q.delta,
                .offload = q.flags & TC_ETF_OFFLOAD_ON ? OFFLOAD_ON : OFFLOAD_OFF,
                .deadline_mode = q.flags & TC_ETF_DEADLINE_MODE_ON,
                .skip_sock_check = q.flags & TC_ETF_SKIP_SOCK_CHECK,
        };
        return 0;
}

static bool etf_equal(const void *a, const void *b) {
        return etf_spec_equal(a, b);
}

const QDiscVTable qdisc_etf_vtable = {
        .kind = "etf",
        .root = false,
        .fill_options = etf_fill_options,
        .parse_options = etf_parse_options,
        .equal = etf_equal,
};

/* etf as the root: the same options, from and into RootSpec.leaf. */
static int etf_root_fill_options(struct nl_msg *m, const void *spec) {
        return etf_fill_options(m, &((const RootSpec *) spec)->leaf);
}

static int etf_root_parse_options(const struct nlattr *options, void *ret_spec) {
        RootSpec *r = ret_spec;
        int k;

        *r = (RootSpec) { .kind = ROOT_ETF };
        k = etf_parse_options(options, &r->leaf);
        r->leaf.kind = TXQ_ETF;
        return k;
}

static bool root_equal(const void *a, const void *b) {
        return root_spec_equal(a, b);
}

const QDiscVTable qdisc_etf_root_vtable = {
        .kind = "etf",
        .root = true,
        .fill_options = etf_root_fill_options,
        .parse_options = etf_root_parse_options,
        .equal = root_equal,
};

EtfOffloadPlan etf_offload_plan(const EtfSpec *e, const DeviceFacts *f, const char **ret_reason) {
        const char *reason;
        EtfOffloadPlan p;

        switch (e->offload) {
        case OFFLOAD_ON:
                p = ETF_PLAN_HARDWARE;
                reason = "offload requested";
                break;
        case OFFLOAD_OFF:
                p = ETF_PLAN_SOFTWARE;
                reason = "software mode requested";
                break;
        case OFFLOAD_AUTO:
                if (f && f->offload_known) {
                        uint64_t mask = e->kind == TXQ_CBS ? f->cbs_offload_mask : f->launch_time_mask;

                        if (e->queue < 64 && (mask & (UINT64_C(1) << e->queue))) {
                                p = ETF_PLAN_HARDWARE;
                                reason = e->kind == TXQ_CBS ? "the device shapes this queue itself (cbs offload)"
                                                            : "the device supports launch time on this queue";
                        } else if (e->kind == TXQ_CBS) {
                                p = ETF_PLAN_SOFTWARE;
                                reason = "no cbs offload on this queue of the device";
                        } else {
                                p = ETF_PLAN_SOFTWARE;
                                reason = f->offload_reason ?: "no launch-time support on this queue";
                        }
                } else {
                        p = ETF_PLAN_TRY_HARDWARE;
                        reason = "device capabilities unknown: offload tried first";
                }
                break;
        default:
                return _ETF_PLAN_INVALID;
        }

        if (ret_reason)
                *ret_reason = reason;
        return p;
}

bool etf_matches_plan(const EtfSpec *installed, const EtfSpec *e, EtfOffloadPlan p) {
        const QDiscVTable *vt = qdisc_vtable_for_child(e->kind);
        EtfSpec want = *e;

        if (!vt || installed->kind != e->kind)
                return false;
        switch (p) {
        case ETF_PLAN_SOFTWARE:
                want.offload = OFFLOAD_OFF;
                break;
        case ETF_PLAN_HARDWARE:
                want.offload = OFFLOAD_ON;
                break;
        case ETF_PLAN_TRY_HARDWARE:
                want.offload = installed->offload;
                break;
        default:
                return false;
        }
        return vt->equal(installed, &want);
}

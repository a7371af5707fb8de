/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mqprio: TCA_OPTIONS carries a struct tc_mqprio_qopt directly (not a nest),
 * as sch_mqprio.c reads and dumps it; the kernel dumps it padded to
 * NLA_ALIGN(sizeof) bytes and iproute2 sends the same length, so we do too. */
#include <linux/pkt_sched.h>
#include <string.h>

#include "qdisc.h"

static int mqprio_fill_options(struct nl_msg *m, const void *spec) {
        const RootSpec *r = spec;
        uint8_t buf[NLA_ALIGN(sizeof(struct tc_mqprio_qopt))] = {};

        if (r->kind != ROOT_MQPRIO)
                return -EINVAL;
        qdisc_qopt_from_root(r, buf);
        if (nla_put(m, TCA_OPTIONS, sizeof(buf), buf) < 0)
                return -ENOMEM;
        return 0;
}

static int mqprio_parse_options(const struct nlattr *options, void *ret_spec) {
        RootSpec r = { .kind = ROOT_MQPRIO };
        int k;

        if (!options)
                return -EBADMSG;
        /* Attributes after the struct (mode, shaper, rates) are not part of the model. */
        k = qdisc_qopt_to_root(nla_data(options), nla_len(options), &r);
        if (k < 0)
                return k;

        *(RootSpec *) ret_spec = r;
        return 0;
}

static bool mqprio_equal(const void *a, const void *b) {
        return root_spec_equal(a, b);
}

const QDiscVTable qdisc_mqprio_vtable = {
        .kind = "mqprio",
        .root = true,
        .default_child = NULL,
        .fill_options = mqprio_fill_options,
        .parse_options = mqprio_parse_options,
        .equal = mqprio_equal,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mqprio: its one root key of its own is hw_offload (num_tc, priority_map
 * and queues are every such root's). libnl-route 3.7 knows this kind, so
 * the request is its object (struct rtnl_qdisc with rtnl_qdisc_mqprio_*())
 * and its encoder. The
 * TCA_OPTIONS it sends carries a struct tc_mqprio_qopt directly, padded to
 * NLA_ALIGN(sizeof) bytes, as sch_mqprio.c reads and dumps it; libnl marks
 * the attribute NLA_F_NESTED, which the kernel ignores for TCA_OPTIONS (the
 * only difference from iproute2's bytes, tests/unit/test-qdisc-msg.c).
 * The dump is parsed here: the model's comparison needs only the struct. */
#include <linux/pkt_sched.h>
#include <string.h>

#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/mqprio.h>
#include <netlink/errno.h>
#include <netlink/route/tc.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-hints.h"

static void rtnl_qdisc_putp(struct rtnl_qdisc **q) {
        if (*q)
                rtnl_qdisc_put(*q);
}

static int mqprio_build_request(int ifindex, const void *spec, struct nl_msg **ret) {
        _cleanup_(rtnl_qdisc_putp) struct rtnl_qdisc *q = NULL;
        const RootSpec *r = spec;
        uint8_t map[TC_QOPT_BITMASK + 1];
        uint16_t count[TC_QOPT_MAX_QUEUE] = {}, offset[TC_QOPT_MAX_QUEUE] = {};
        int k;

        if (r->kind != ROOT_MQPRIO || r->num_tc > TC_QOPT_MAX_QUEUE)
                return -EINVAL;
        for (unsigned i = 0; i < r->num_tc; i++) {
                count[i] = r->queues[i].count;
                offset[i] = r->queues[i].offset;
        }
        memcpy(map, r->priority_map, sizeof(map));

        /* libnl-route allocates its request at libnl's default size, a page:
         * hundreds of interfaces planned at once would touch a page each.
         * tbsd's other messages are sized where they are built. */
        nlmsg_set_default_size(QDISC_REQUEST_SIZE);
        q = rtnl_qdisc_alloc();
        if (!q)
                return -ENOMEM;
        rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
        rtnl_tc_set_handle(TC_CAST(q), r->handle);
        rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
        k = rtnl_tc_set_kind(TC_CAST(q), qdisc_mqprio_vtable.kind);
        if (k >= 0)
                k = rtnl_qdisc_mqprio_set_num_tc(q, r->num_tc);
        if (k >= 0)
                k = rtnl_qdisc_mqprio_set_priomap(q, map, (int) sizeof(map));
        if (k >= 0)
                k = rtnl_qdisc_mqprio_set_queue(q, count, offset, TC_QOPT_MAX_QUEUE);
        if (k >= 0)
                k = rtnl_qdisc_mqprio_hw_offload(q, r->hw_offload ? TC_MQPRIO_HW_OFFLOAD_TCS : 0);
        if (k >= 0)
                k = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, ret);
        /* libnl's NLE_* codes, not errno values */
        return k >= 0 ? 0 : k == -NLE_NOMEM ? -ENOMEM : k == -NLE_MSGSIZE ? -EMSGSIZE : -EINVAL;
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

/* sch_mqprio.c dumps TCA_OPTIONS as the struct (padded) followed by
 * TCA_MQPRIO_* attributes, present only when they were configured. The
 * defaults (mode dcb, shaper dcb) are what a schedule's mqprio is. */
static const char *mqprio_unexpressed(const struct nlattr *options) {
        struct nlattr *tb[TCA_MQPRIO_MAX + 1] = {};
        const size_t head = NLA_ALIGN(sizeof(struct tc_mqprio_qopt));
        uint16_t v;

        if (!options || (size_t) nla_len(options) <= head)
                return NULL;
        if (nla_parse(tb, TCA_MQPRIO_MAX, (struct nlattr *) ((const uint8_t *) nla_data(options) + head),
                      nla_len(options) - (int) head, NULL) < 0)
                return "mqprio options after the queue map that cannot be read";
        if (tb[TCA_MQPRIO_MODE] && nla_len(tb[TCA_MQPRIO_MODE]) >= (int) sizeof(v)) {
                memcpy(&v, nla_data(tb[TCA_MQPRIO_MODE]), sizeof(v));
                if (v != TC_MQPRIO_MODE_DCB)
                        return "mqprio mode channel";
        }
        if (tb[TCA_MQPRIO_SHAPER] && nla_len(tb[TCA_MQPRIO_SHAPER]) >= (int) sizeof(v)) {
                memcpy(&v, nla_data(tb[TCA_MQPRIO_SHAPER]), sizeof(v));
                if (v != TC_MQPRIO_SHAPER_DCB)
                        return "mqprio shaper bw_rlimit";
        }
        if (tb[TCA_MQPRIO_MIN_RATE64] || tb[TCA_MQPRIO_MAX_RATE64])
                return "mqprio min_rate/max_rate";
        return NULL;
}

static bool mqprio_equal(const void *a, const void *b) {
        return root_spec_equal(a, b);
}

/* ---- the schedule's keys ---- */

static const KindKey mqprio_root_keys[] = {
        { "hw_offload", false },
};

static void mqprio_parse_root(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *v = json_member(root, "hw_offload");

        if (v && tc_hint_bool(v, hint))
                perr(p, "root.hw_offload", "must be a boolean, got %s%s", show(v, sh), hint);
        else
                (void) get_bool(p, "root", root, "hw_offload", &r->hw_offload);
}

static int mqprio_root_to_json(struct json_object *o, const RootSpec *r) {
        return json_add_made(o, "hw_offload", json_object_new_boolean(r->hw_offload));
}

const QDiscVTable qdisc_mqprio_vtable = {
        .kind = "mqprio",
        .article = "an",
        .root = true,
        .default_child = NULL,
        .traffic_classes = true,
        .build_request = mqprio_build_request,
        .parse_options = mqprio_parse_options,
        .equal = mqprio_equal,
        .unexpressed = mqprio_unexpressed,
        .root_keys = mqprio_root_keys,
        .n_root_keys = ELEMENTSOF(mqprio_root_keys),
        .parse_root = mqprio_parse_root,
        .root_to_json = mqprio_root_to_json,
};

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mqprio: its one root key of its own is hw_offload (num_tc, priority_map
 * and queues are every such root's). libnl-route 3.7 knows this kind, so
 * the request is its object (struct rtnl_qdisc with rtnl_qdisc_mqprio_*())
 * and its encoder. The
 * TCA_OPTIONS it sends carries a struct tc_mqprio_qopt directly, padded to
 * NLA_ALIGN(sizeof) bytes, as sch_mqprio.c reads and dumps it; libnl marks
 * the attribute NLA_F_NESTED, which the kernel ignores for TCA_OPTIONS (the
 * only difference from iproute2's bytes, tests/unit/test-qdisc-msg.c).
 * The dump is parsed here: the model's comparison needs only the struct
 * and, from Linux 6.4, the TC entries' fp. A schedule with "fp" is sent
 * without libnl-route (mqprio_build_raw()). */
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/mqprio.h>
#include <netlink/errno.h>
#include <netlink/route/tc.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-hints.h"
#include "schedule-verifier.h"

static void rtnl_qdisc_putp(struct rtnl_qdisc **q) {
        if (*q)
                rtnl_qdisc_put(*q);
}

/* With root.fp (Linux 6.4): libnl-route 3.7 has no TC entries, so the
 * request is built here as iproute2 6.15 sends `tc qdisc add ... mqprio
 * ... fp E P ...`: TCA_OPTIONS (no NLA_F_NESTED) holding the struct,
 * padded, then one TCA_MQPRIO_TC_ENTRY nest (NLA_F_NESTED) per class with
 * its index and fp. Without fp the request stays libnl's, byte for byte. */
static int mqprio_build_raw(int ifindex, const RootSpec *r, struct nl_msg **ret) {
        _cleanup_nlmsg_ struct nl_msg *m = NULL;
        uint8_t qopt[NLA_ALIGN(sizeof(struct tc_mqprio_qopt))] = {};
        struct tcmsg t = {
                .tcm_family = AF_UNSPEC,
                .tcm_ifindex = ifindex,
                .tcm_handle = r->handle,
                .tcm_parent = TC_H_ROOT,
        };
        struct nlattr *opts;

        m = nlmsg_alloc_size(QDISC_REQUEST_SIZE + TBS_MAX_TC * 24);
        if (!m)
                return -ENOMEM;
        if (!nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, RTM_NEWQDISC, 0, NLM_F_CREATE | NLM_F_REPLACE) ||
            nlmsg_append(m, &t, sizeof(t), NLMSG_ALIGNTO) < 0 ||
            nla_put_string(m, TCA_KIND, qdisc_mqprio_vtable.kind) < 0)
                return -ENOMEM;
        opts = nla_nest_start(m, TCA_OPTIONS);
        if (!opts)
                return -ENOMEM;
        opts->nla_type = TCA_OPTIONS;   /* a struct first: not flagged nested, as tc sends it */
        qdisc_qopt_from_root(r, qopt);
        if (nlmsg_append(m, qopt, sizeof(qopt), 0) < 0)
                return -ENOMEM;
        for (unsigned tc = 0; tc < r->num_tc && tc < TBS_MAX_TC; tc++) {
                struct nlattr *e = nla_nest_start(m, TBS_TCA_MQPRIO_TC_ENTRY);

                if (!e)
                        return -ENOMEM;
                e->nla_type = TBS_TCA_MQPRIO_TC_ENTRY | NLA_F_NESTED;
                if (nla_put_u32(m, TBS_TCA_MQPRIO_TC_ENTRY_INDEX, tc) < 0 ||
                    nla_put_u32(m, TBS_TCA_MQPRIO_TC_ENTRY_FP, r->fp[tc] ?: TBS_FP_EXPRESS) < 0)
                        return -ENOMEM;
                if (qdisc_nest_end(m, e) < 0)
                        return -EMSGSIZE;
        }
        if (qdisc_nest_end(m, opts) < 0)
                return -EMSGSIZE;
        *ret = TAKE_PTR(m);
        return 0;
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
        if (r->fp_given)
                return mqprio_build_raw(ifindex, r, ret);

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
                k = rtnl_qdisc_mqprio_hw_offload(q, r->mqprio.hw_offload ? TC_MQPRIO_HW_OFFLOAD_TCS : 0);
        if (k >= 0)
                k = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, ret);
        /* libnl's NLE_* codes, not errno values */
        return k >= 0 ? 0 : k == -NLE_NOMEM ? -ENOMEM : k == -NLE_MSGSIZE ? -EMSGSIZE : -EINVAL;
}

/* Linux 6.4+ dumps one TCA_MQPRIO_TC_ENTRY per class (16) after the
 * struct, each with its fp; 6.1 none. Repeated attributes: walked, not
 * parsed into a table (which keeps the last). */
static int parse_tc_entries(const struct nlattr *options, RootSpec *r) {
        const size_t head = NLA_ALIGN(sizeof(struct tc_mqprio_qopt));
        struct nlattr *a;
        int rem;

        if ((size_t) nla_len(options) <= head)
                return 0;
        nla_for_each_attr(a, (struct nlattr *) ((const uint8_t *) nla_data(options) + head),
                          nla_len(options) - (int) head, rem) {
                struct nlattr *etb[TBS_TCA_MQPRIO_TC_ENTRY_MAX + 1];
                uint32_t tc, fp = 0;

                if (nla_type(a) != TBS_TCA_MQPRIO_TC_ENTRY)
                        continue;
                if (nla_parse_nested(etb, TBS_TCA_MQPRIO_TC_ENTRY_MAX, a, NULL) < 0 ||
                    !etb[TBS_TCA_MQPRIO_TC_ENTRY_INDEX] ||
                    nla_len(etb[TBS_TCA_MQPRIO_TC_ENTRY_INDEX]) < (int) sizeof(uint32_t))
                        return -EBADMSG;
                tc = nla_get_u32(etb[TBS_TCA_MQPRIO_TC_ENTRY_INDEX]);
                if (etb[TBS_TCA_MQPRIO_TC_ENTRY_FP]) {
                        if (nla_len(etb[TBS_TCA_MQPRIO_TC_ENTRY_FP]) < (int) sizeof(uint32_t))
                                return -EBADMSG;
                        fp = nla_get_u32(etb[TBS_TCA_MQPRIO_TC_ENTRY_FP]);
                        r->fp_dumped = true;
                }
                if (tc < TBS_MAX_TC)
                        r->fp[tc] = fp > 0xff ? 0xff : (uint8_t) fp;
        }
        return 0;
}

static int mqprio_parse_options(const struct nlattr *options, void *ret_spec) {
        RootSpec r = { .kind = ROOT_MQPRIO };
        int k;

        if (!options)
                return -EBADMSG;
        /* Attributes after the struct (mode, shaper, rates) are not part of
         * the model, but for the TC entries' fp. */
        k = qdisc_qopt_to_root(nla_data(options), nla_len(options), &r);
        if (k < 0)
                return k;
        k = parse_tc_entries(options, &r);
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
        /* TC entries (fp, Linux 6.4+) are in the model (root.fp) */
        return NULL;
}

static bool mqprio_equal(const void *x, const void *y) {
        const RootSpec *a = x, *b = y;

        return root_head_equal(a, b) && root_classes_equal(a, b) && a->mqprio.hw_offload == b->mqprio.hw_offload;
}

/* ---- the schedule's keys ---- */

static const KindKey mqprio_root_keys[] = {
        { "hw_offload", false },
        { "fp", false },
};

static void mqprio_parse_root(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *v = json_member(root, "hw_offload");

        if (v && tc_hint_bool(v, hint))
                perr(p, "root.hw_offload", "must be a boolean, got %s%s", show(v, sh), hint);
        else
                (void) get_bool(p, "root", root, "hw_offload", &r->mqprio.hw_offload);
        kind_parse_fp(p, root, r);
}

/* Linux (6.12 measured) takes attributes after the struct only with hw 1:
 * "mqprio TCA_OPTIONS can only contain netlink attributes in hardware
 * mode" otherwise. */
static void mqprio_verify_root(Verifier *v, const Schedule *s, const DeviceFacts *f) {
        kind_verify_fp(v, &s->root);
        if (s->root.fp_given && !s->root.mqprio.hw_offload)
                verr(v, "root.fp", "needs \"hw_offload\": true on an mqprio: the kernel takes per-class "
                     "frame preemption only from an mqprio offloaded to the NIC");
}

static int mqprio_root_to_json(struct json_object *o, const RootSpec *r) {
        if (json_add_made(o, "hw_offload", json_object_new_boolean(r->mqprio.hw_offload)) < 0)
                return -ENOMEM;
        return kind_fp_to_json(o, r);
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
        .verify_root = mqprio_verify_root,
        .root_to_json = mqprio_root_to_json,
};

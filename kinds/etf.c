/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etf (Earliest TxTime First, "tbs" in its original patch set) on a TX
 * queue, as the root, or under a cbs: everything tbsd knows about it.
 *
 * Its keys are clockid, delta_ns, offload, deadline_mode and
 * skip_sock_check, and on a TX queue the launch-time "monitor". TCA_OPTIONS
 * is a nest holding TCA_ETF_PARMS = struct tc_etf_qopt (delta ns, clockid,
 * flags), as sch_etf.c parses and dumps it. */
#include <errno.h>
#include <inttypes.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <string.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-verifier.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* ---- the schedule's keys ---- */

static const KindKey etf_keys[] = {
        { "clockid", false },
        { "delta_ns", false },
        { "offload", false },
        { "deadline_mode", false },
        { "skip_sock_check", false },
        { "monitor", true },
};

void etf_parse_keys(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, OffloadMode *offload) {
        int64_t x;

        parse_clockid(p, path, e, &q->etf.clockid);
        if (get_int(p, path, e, "delta_ns", true, 0, INT32_MAX, &x) > 0)
                q->etf.delta_ns = (int32_t) x;
        kind_parse_offload(p, path, e, offload);
        (void) get_bool(p, path, e, "deadline_mode", &q->etf.deadline_mode);
        (void) get_bool(p, path, e, "skip_sock_check", &q->etf.skip_sock_check);
}

static void etf_parse(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, bool as_root) {
        etf_parse_keys(p, path, e, q, &q->offload);
        if (!as_root)
                parse_monitor(p, path, e, &q->monitor);
}

int etf_keys_to_json(struct json_object *o, const EtfSpec *q, OffloadMode offload) {
        const char *clock = clockid_to_string(q->etf.clockid);

        if (json_add(o, "clockid", clock ? json_object_new_string(clock) : NULL) < 0 ||
            json_add_made(o, "delta_ns", json_object_new_int64(q->etf.delta_ns)) < 0 ||
            json_add_made(o, "offload", kind_offload_to_json(offload)) < 0 ||
            json_add_made(o, "deadline_mode", json_object_new_boolean(q->etf.deadline_mode)) < 0 ||
            json_add_made(o, "skip_sock_check", json_object_new_boolean(q->etf.skip_sock_check)) < 0)
                return -ENOMEM;
        return 0;
}

static int etf_to_json(struct json_object *o, const EtfSpec *q) {
        if (etf_keys_to_json(o, q, q->offload) < 0)
                return -ENOMEM;
        if (q->monitor.enabled) {
                _cleanup_json_ struct json_object *m = json_object_new_object();

                if (!m ||
                    json_add_made(m, "interval_ms", json_object_new_int64(q->monitor.interval_ms)) < 0 ||
                    json_add_made(m, "frames", json_object_new_int64(q->monitor.frames)) < 0 ||
                    json_add_made(o, "monitor", TAKE_PTR(m)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* ---- rules ---- */

/* The settings of one etf (a txqueues entry, a cbs's child or the root),
 * its keys under at; offload is its own (a cbs child's is child_offload). */
void etf_verify_qdisc(Verifier *v, const EtfSpec *q, const Where *at, OffloadMode offload, const DeviceFacts *facts) {
        char path[VERIFY_PATH_MAX], cn[32];

        if (q->etf.clockid != CLOCK_TAI)
                verr(v, where_key(path, at, "clockid"),
                     "must be CLOCK_TAI: the kernel's etf qdisc accepts only CLOCK_TAI, got %s",
                     clock_name(q->etf.clockid, cn));
        if (q->etf.delta_ns < 0) /* a dumped tree's: tc can install one */
                verr(v, where_key(path, at, "delta_ns"),
                     "must be between 0 and %d, got %" PRIi32, INT32_MAX, q->etf.delta_ns);
        if ((unsigned) offload >= _OFFLOAD_MODE_MAX)
                verr(v, where_key(path, at, "offload"), "unknown offload mode %d", (int) offload);
        else if (offload == OFFLOAD_ON && facts && facts->offload_known &&
                 !queue_in_mask(facts->launch_time_mask, q->queue))
                verr(v, where_key(path, at, "offload"),
                     "launch-time offload is not available on queue %" PRIu32 "%s%s",
                     q->queue, facts->offload_reason ? ": " : " of this device",
                     facts->offload_reason ?: "");
}

static void etf_verify(Verifier *v, const EtfSpec *q, const Where *at, const DeviceFacts *facts) {
        etf_verify_qdisc(v, q, at, q->offload, facts);
}

/* ---- the kernel's options ---- */

static int etf_fill_options(struct nl_msg *m, const void *spec) {
        const EtfSpec *e = spec;
        struct tc_etf_qopt q = {
                .delta = e->etf.delta_ns,
                .clockid = e->etf.clockid,
        };
        struct nlattr *nest;

        if (e->offload == OFFLOAD_AUTO)
                return -EINVAL;
        if (e->offload == OFFLOAD_ON)
                q.flags |= TC_ETF_OFFLOAD_ON;
        if (e->etf.deadline_mode)
                q.flags |= TC_ETF_DEADLINE_MODE_ON;
        if (e->etf.skip_sock_check)
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
                .etf.clockid = q.clockid,
                .etf.delta_ns = q.delta,
                .offload = q.flags & TC_ETF_OFFLOAD_ON ? OFFLOAD_ON : OFFLOAD_OFF,
                .etf.deadline_mode = q.flags & TC_ETF_DEADLINE_MODE_ON,
                .etf.skip_sock_check = q.flags & TC_ETF_SKIP_SOCK_CHECK,
        };
        return 0;
}

/* As installed (the monitor is tbsd's, never the kernel's). */
bool etf_qdisc_equal(const EtfSpec *a, const EtfSpec *b) {
        return a->kind == TXQ_ETF && b->kind == TXQ_ETF && stab_equal(&a->stab, &b->stab) &&
               a->queue == b->queue && a->etf.clockid == b->etf.clockid &&
               a->etf.delta_ns == b->etf.delta_ns && a->offload == b->offload &&
               a->etf.deadline_mode == b->etf.deadline_mode &&
               a->etf.skip_sock_check == b->etf.skip_sock_check;
}

static bool etf_equal(const void *a, const void *b) {
        return etf_qdisc_equal(a, b);
}

/* ---- what the engine, Describe() and tbsctl need ---- */

const char *etf_difference(const EtfSpec *have, const EtfSpec *want, char buf[static 96]) {
        if (have->etf.delta_ns != want->etf.delta_ns)
                snprintf(buf, 96, "delta %lld ns instead of %lld ns", (long long) have->etf.delta_ns,
                         (long long) want->etf.delta_ns);
        else if (have->etf.clockid != want->etf.clockid)
                snprintf(buf, 96, "clock %s instead of %s", clockid_to_string(have->etf.clockid) ?: "?",
                         clockid_to_string(want->etf.clockid) ?: "?");
        else if (have->etf.deadline_mode != want->etf.deadline_mode)
                snprintf(buf, 96, "deadline_mode %s", have->etf.deadline_mode ? "on" : "off");
        else if (have->etf.skip_sock_check != want->etf.skip_sock_check)
                snprintf(buf, 96, "skip_sock_check %s", have->etf.skip_sock_check ? "on" : "off");
        else
                snprintf(buf, 96, "offload %s", have->offload == OFFLOAD_ON ? "on" : "off");
        return buf;
}

static bool etf_offload_available(const DeviceFacts *f, uint32_t queue, const char **ret_reason) {
        bool yes = queue_in_mask(f->launch_time_mask, queue);

        *ret_reason = yes ? "the device supports launch time on this queue"
                          : f->offload_reason ?: "no launch-time support on this queue";
        return yes;
}

/* Describe() gives every queue's etf settings (clockid, delta_ns,
 * deadline_mode, skip_sock_check: a cbs's are its child's); this is the
 * phrase for them. */
static void etf_status_text(struct json_object *q, char *buf, size_t size) {
        snprintf(buf, size, "%s, delta %" PRId64 " ns%s%s", json_get_string(q, "clockid") ?: "no clockid",
                 json_get_int(q, "delta_ns", 0), json_get_bool(q, "deadline_mode", 0) ? ", deadline_mode" : "",
                 json_get_bool(q, "skip_sock_check", 0) ? ", skip_sock_check" : "");
}

bool etf_spec_has_etf(const EtfSpec *e) {
        return e->kind == TXQ_ETF || e->etf_child;
}

static void etf_init(void *spec) {
        EtfSpec *q = spec;

        q->etf.clockid = CLOCK_TAI;     /* an etf queue's, or a cbs's etf child's */
}

const EtfOptions *etf_spec_etf(const EtfSpec *e) {
        return etf_spec_has_etf(e) ? &e->etf : NULL;
}

EtfSpec etf_spec_etf_part(const EtfSpec *e) {
        EtfSpec r = *e;

        if (e->kind != TXQ_ETF) {
                r.kind = TXQ_ETF;
                r.offload = e->child_offload;
                r.cbs = (CbsSpec) {};
                r.etf_child = false;
                r.child_offload = OFFLOAD_OFF;
                r.stab = (StabSpec) {};     /* the cbs's, not its etf's */
        }
        return r;
}

const QDiscVTable qdisc_etf_vtable = {
        .kind = "etf",
        .article = "an",
        .root = false,
        .init = etf_init,
        .fill_options = etf_fill_options,
        .parse_options = etf_parse_options,
        .equal = etf_equal,
        .txq = TXQ_ETF,
        .old_name = "tbs",
        .releases_at_txtime = true,
        .keys = etf_keys,
        .n_keys = ELEMENTSOF(etf_keys),
        .parse = etf_parse,
        .verify = etf_verify,
        .to_json = etf_to_json,
        .status_text = etf_status_text,
        .difference = etf_difference,
        .offload_available = etf_offload_available,
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

/* An etf root's leaf is an etf (both parsers set it so). */
static bool root_equal(const void *x, const void *y) {
        const RootSpec *a = x, *b = y;

        return root_head_equal(a, b) && etf_qdisc_equal(&a->leaf, &b->leaf);
}

const QDiscVTable qdisc_etf_root_vtable = {
        .kind = "etf",
        .article = "an",
        .root = true,
        .fill_options = etf_root_fill_options,
        .parse_options = etf_root_parse_options,
        .equal = root_equal,
        .txq = TXQ_ETF,
};

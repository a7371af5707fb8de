/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cbs, the credit-based shaper (IEEE 802.1Q 8.6.8.2), on a TX queue or as
 * the root: everything tbsd knows about it.
 *
 * The file gives the kernel's four values (idle_slope_kbps,
 * send_slope_kbps, hi_credit_bytes, lo_credit_bytes) or a reserved
 * bandwidth to compute them from (cbs.h); a cbs may hold an etf as its
 * "child" (the kernel's parent CBS_HANDLE:1), whose keys are etf's.
 * TCA_OPTIONS is a nest holding TCA_CBS_PARMS = struct tc_cbs_qopt
 * (offload, hicredit, locredit, idleslope, sendslope), as sch_cbs.c
 * parses and dumps it; the four values must be resolved (cbs_resolve())
 * before they are sent or compared. */
#include <errno.h>
#include <inttypes.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <string.h>

#include "cbs.h"
#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-fields.h"
#include "schedule-verifier.h"

/* ---- the four values from a bandwidth (IEEE 802.1Q Annex L) ---- */

/* a * b / d rounded away from zero; d > 0. */
static int64_t mul_div_away(int64_t a, int64_t b, int64_t d) {
        int64_t n = a * b;

        if (n >= 0)
                return (n + d - 1) / d;
        return -((-n + d - 1) / d);
}

int cbs_compute(uint32_t bandwidth_kbps, uint32_t max_frame_bytes, uint32_t max_interference_bytes,
                uint32_t link_speed_mbps, CbsSpec *ret) {
        int64_t rate, idle, send, hi, lo;

        if (link_speed_mbps == 0 || max_frame_bytes == 0 || max_interference_bytes == 0)
                return -EINVAL;
        if (max_frame_bytes > TBS_CBS_MAX_FRAME_BYTES || max_interference_bytes > TBS_CBS_MAX_FRAME_BYTES)
                return -ERANGE;
        rate = (int64_t) link_speed_mbps * 1000;
        idle = bandwidth_kbps;
        if (idle == 0 || idle > rate || rate > INT32_MAX)
                return -ERANGE;
        send = idle - rate;
        hi = mul_div_away(max_interference_bytes, idle, rate);
        lo = mul_div_away(max_frame_bytes, send, rate);

        /* send == 0 (all of the link reserved) leaves loCredit 0: the
         * kernel would then never hold the queue back, which is what a
         * reservation of the whole link means, but the sign rules want
         * a negative sendSlope, so the caller's check refuses it. */
        ret->idle_slope_kbps = (int32_t) idle;
        ret->send_slope_kbps = (int32_t) send;
        ret->hi_credit_bytes = (int32_t) hi;
        ret->lo_credit_bytes = (int32_t) lo;
        return 0;
}

uint32_t cbs_link_speed(const CbsSpec *c, uint32_t device_speed_mbps) {
        return c->link_speed_mbps ?: device_speed_mbps;
}

int cbs_spec_resolve(const CbsSpec *c, uint32_t device_speed_mbps, CbsSpec *ret) {
        CbsSpec r = *c;
        uint32_t speed;
        int k;

        if (!c->from_bandwidth) {
                *ret = r;
                return 0;
        }
        speed = cbs_link_speed(c, device_speed_mbps);
        if (speed == 0)
                return -ENODATA;
        k = cbs_compute(c->bandwidth_kbps, c->max_frame_bytes, c->max_interference_bytes, speed, &r);
        if (k < 0)
                return k;
        *ret = r;
        return 0;
}

/* ---- the schedule's keys ---- */

static const KindKey cbs_keys[] = {
        { "offload", false },
        { "idle_slope_kbps", false },
        { "send_slope_kbps", false },
        { "hi_credit_bytes", false },
        { "lo_credit_bytes", false },
        { "bandwidth_kbps", false },
        { "max_frame_bytes", false },
        { "max_interference_bytes", false },
        { "link_speed_mbps", false },
        { "child", false },
};

/* The four kernel values, or bandwidth_kbps and max_frame_bytes (plus
 * optionally max_interference_bytes and link_speed_mbps) to compute them
 * from. */
static void cbs_parse_values(Parser *p, const char *path, const JsonNode *e, CbsSpec *c) {
        static const char *const raw[] = { "idle_slope_kbps", "send_slope_kbps", "hi_credit_bytes",
                                           "lo_credit_bytes" };
        char kpath[JPATH_MAX];
        bool have_raw = false, have_bw;
        int64_t x;

        for (size_t i = 0; i < ELEMENTSOF(raw); i++)
                if (json_member(e, raw[i]))
                        have_raw = true;
        have_bw = json_member(e, "bandwidth_kbps");
        if (have_raw && have_bw) {
                perr(p, jpath_key(kpath, path, "bandwidth_kbps"),
                     "give either bandwidth_kbps (with max_frame_bytes) or the four values idle_slope_kbps, "
                     "send_slope_kbps, hi_credit_bytes and lo_credit_bytes, not both");
                return;
        }
        if (!have_raw && !have_bw) {
                perr(p, path, "a cbs queue needs bandwidth_kbps and max_frame_bytes, or idle_slope_kbps, "
                     "send_slope_kbps, hi_credit_bytes and lo_credit_bytes");
                return;
        }
        if (have_raw) {
                static const char *const bw_keys[] = { "max_frame_bytes", "max_interference_bytes" };

                for (size_t i = 0; i < ELEMENTSOF(bw_keys); i++)
                        if (json_member(e, bw_keys[i]))
                                perr(p, jpath_key(kpath, path, bw_keys[i]),
                                     "only valid with bandwidth_kbps (the raw values need no frame sizes)");
                if (get_int(p, path, e, "idle_slope_kbps", true, 1, INT32_MAX, &x) > 0)
                        c->idle_slope_kbps = (int32_t) x;
                if (get_int(p, path, e, "send_slope_kbps", true, INT32_MIN, -1, &x) > 0)
                        c->send_slope_kbps = (int32_t) x;
                if (get_int(p, path, e, "hi_credit_bytes", true, 1, INT32_MAX, &x) > 0)
                        c->hi_credit_bytes = (int32_t) x;
                if (get_int(p, path, e, "lo_credit_bytes", true, INT32_MIN, -1, &x) > 0)
                        c->lo_credit_bytes = (int32_t) x;
        } else {
                c->from_bandwidth = true;
                c->max_interference_bytes = TBS_CBS_DEFAULT_INTERFERENCE_BYTES;
                if (get_int(p, path, e, "bandwidth_kbps", true, 1, TBS_CBS_MAX_RATE_KBPS, &x) > 0)
                        c->bandwidth_kbps = (uint32_t) x;
                if (get_int(p, path, e, "max_frame_bytes", true, 1, TBS_CBS_MAX_FRAME_BYTES, &x) > 0)
                        c->max_frame_bytes = (uint32_t) x;
                if (get_int(p, path, e, "max_interference_bytes", false, 1, TBS_CBS_MAX_FRAME_BYTES, &x) > 0)
                        c->max_interference_bytes = (uint32_t) x;
        }
        if (get_int(p, path, e, "link_speed_mbps", false, 1, TBS_MAX_LINK_SPEED_MBPS, &x) > 0)
                c->link_speed_mbps = (uint32_t) x;
        /* With the speed in the file the values are known now (and shown
         * by --json); a bandwidth above it is left for the validator. */
        if (c->from_bandwidth && c->link_speed_mbps > 0)
                (void) cbs_spec_resolve(c, 0, c);
}

/* The "child": the etf under the cbs (the kernel's parent CBS_HANDLE:1). */
static void cbs_parse_child(Parser *p, const char *path, const JsonNode *e, EtfSpec *q) {
        static const KeySpec keys[] = {
                { "qdisc", K_ANY },
                { "clockid", K_ANY },
                { "delta_ns", K_ANY },
                { "offload", K_ANY },
                { "deadline_mode", K_ANY },
                { "skip_sock_check", K_ANY },
        };
        char cpath[JPATH_MAX], qpath[JPATH_MAX], sh[SHOW_MAX];
        const JsonNode *c, *v = NULL;
        const char *t;

        c = json_member(e, "child");
        if (!c)
                return;
        jpath_key(cpath, path, "child");
        if (!expect_type(p, cpath, c, JSON_OBJECT))
                return;
        check_keys(p, cpath, c, keys, ELEMENTSOF(keys), K_ANY);
        t = get_string(p, cpath, c, "qdisc", false, &v);
        if (t && (strcmp(t, "etf") != 0 || str_len(v) != 3))
                perr(p, jpath_key(qpath, cpath, "qdisc"),
                     "unknown qdisc %s; the qdisc under a cbs can only be \"etf\"", show(v, sh));
        q->etf_child = true;
        q->child_offload = OFFLOAD_AUTO;
        etf_parse_keys(p, cpath, c, q, &q->child_offload);
}

static void cbs_parse(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, bool as_root) {
        kind_parse_offload(p, path, e, &q->offload);
        cbs_parse_values(p, path, e, &q->cbs);
        cbs_parse_child(p, path, e, q);
}

/* The keys in the form the file gave them: a bandwidth (and what it is
 * computed with) or the four kernel values, so the output reads back;
 * then the etf under it. */
static int cbs_to_json(struct json_object *o, const EtfSpec *q) {
        const CbsSpec *c = &q->cbs;

        if (json_add_made(o, "offload", kind_offload_to_json(q->offload)) < 0)
                return -ENOMEM;
        if (c->from_bandwidth) {
                if (json_add_made(o, "bandwidth_kbps", json_object_new_int64(c->bandwidth_kbps)) < 0 ||
                    json_add_made(o, "max_frame_bytes", json_object_new_int64(c->max_frame_bytes)) < 0 ||
                    json_add_made(o, "max_interference_bytes", json_object_new_int64(c->max_interference_bytes)) < 0)
                        return -ENOMEM;
        } else if (json_add_made(o, "idle_slope_kbps", json_object_new_int64(c->idle_slope_kbps)) < 0 ||
                   json_add_made(o, "send_slope_kbps", json_object_new_int64(c->send_slope_kbps)) < 0 ||
                   json_add_made(o, "hi_credit_bytes", json_object_new_int64(c->hi_credit_bytes)) < 0 ||
                   json_add_made(o, "lo_credit_bytes", json_object_new_int64(c->lo_credit_bytes)) < 0)
                return -ENOMEM;
        if (c->link_speed_mbps != 0 &&
            json_add_made(o, "link_speed_mbps", json_object_new_int64(c->link_speed_mbps)) < 0)
                return -ENOMEM;
        if (q->etf_child) {
                _cleanup_json_ struct json_object *ch = json_object_new_object();

                if (!ch || json_add_made(ch, "qdisc", json_object_new_string("etf")) < 0 ||
                    etf_keys_to_json(ch, q, q->child_offload) < 0 || json_add_made(o, "child", TAKE_PTR(ch)) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* ---- rules ---- */

/* One cbs: signs, the port rate, offload; then its etf. */
static void cbs_verify(Verifier *v, const EtfSpec *q, const Where *at, const DeviceFacts *facts) {
        uint32_t speed = cbs_link_speed(&q->cbs, facts ? facts->link_speed_mbps : 0);
        char path[VERIFY_PATH_MAX];
        const CbsSpec c = q->cbs;
        Where child = *at;

        child.child = true;
        if (q->etf_child)
                etf_verify_qdisc(v, q, &child, q->child_offload, facts);

        if ((unsigned) q->offload >= _OFFLOAD_MODE_MAX)
                verr(v, where_key(path, at, "offload"), "unknown offload mode %d", (int) q->offload);
        else if (q->offload == OFFLOAD_ON && facts && facts->offload_known &&
                 !queue_in_mask(facts->cbs_offload_mask, q->queue))
                verr(v, where_key(path, at, "offload"),
                     "cbs offload is not available on queue %" PRIu32 " of this device%s", q->queue,
                     facts->cbs_offload_mask ? " (the NIC shapes only some of its queues)" : "");

        /* From a bandwidth, the formulas give the right signs whenever
         * the bandwidth is below the port rate. */
        if (q->cbs.from_bandwidth) {
                if (speed > 0 && (uint64_t) q->cbs.bandwidth_kbps >= (uint64_t) speed * 1000)
                        verr(v, where_key(path, at, "bandwidth_kbps"),
                             "must be below the link's rate of %" PRIu32 " kbit/s (link speed %" PRIu32
                             " Mbit/s), got %" PRIu32, speed * 1000, speed, q->cbs.bandwidth_kbps);
                return;
        }
        /* The standard's signs (8.6.8.2, Annex L); the kernel takes any
         * values, and a wrong sign makes a shaper that never sends or
         * never holds back. */
        if (c.idle_slope_kbps <= 0)
                verr(v, where_key(path, at, "idle_slope_kbps"), "must be above 0, got %" PRIi32,
                     c.idle_slope_kbps);
        if (c.send_slope_kbps >= 0)
                verr(v, where_key(path, at, "send_slope_kbps"), "must be below 0, got %" PRIi32,
                     c.send_slope_kbps);
        if (c.hi_credit_bytes <= 0)
                verr(v, where_key(path, at, "hi_credit_bytes"), "must be above 0, got %" PRIi32,
                     c.hi_credit_bytes);
        if (c.lo_credit_bytes >= 0)
                verr(v, where_key(path, at, "lo_credit_bytes"), "must be below 0, got %" PRIi32,
                     c.lo_credit_bytes);
        if (speed == 0)
                return;
        if ((int64_t) c.idle_slope_kbps > (int64_t) speed * 1000)
                verr(v, where_key(path, at, "idle_slope_kbps"),
                     "must be at most the link's rate of %" PRIu32 " kbit/s, got %" PRIi32, speed * 1000,
                     c.idle_slope_kbps);
        else if ((int64_t) c.send_slope_kbps != (int64_t) c.idle_slope_kbps - (int64_t) speed * 1000)
                vwarn(v, where_key(path, at, "send_slope_kbps"),
                      "is %" PRIi32 " kbit/s, but idle_slope_kbps minus the link's rate (%" PRIu32
                      " Mbit/s) is %" PRIi64 " (IEEE 802.1Q 8.6.8.2); installed as given",
                      c.send_slope_kbps, speed, (int64_t) c.idle_slope_kbps - (int64_t) speed * 1000);
}

/* All cbs queues together: one link speed, and their reservations fit it. */
static void cbs_verify_schedule(Verifier *v, const Schedule *s, const DeviceFacts *facts) {
        uint32_t speed = 0;
        size_t first = SIZE_MAX;
        int64_t sum = 0;
        char path[VERIFY_PATH_MAX];

        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];

                if (q->kind != TXQ_CBS || q->cbs.link_speed_mbps == 0)
                        continue;
                if (speed == 0) {
                        speed = q->cbs.link_speed_mbps;
                        first = i;
                } else if (q->cbs.link_speed_mbps != speed)
                        verr(v, pathf(path, "txqueues[%zu].link_speed_mbps", i),
                             "is %" PRIu32 ", but txqueues[%zu] says %" PRIu32 ": a link has one speed",
                             q->cbs.link_speed_mbps, first, speed);
        }
        if (speed == 0 && facts)
                speed = facts->link_speed_mbps;
        if (speed == 0)
                return;
        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];

                if (q->kind == TXQ_CBS)
                        sum += q->cbs.from_bandwidth ? (int64_t) q->cbs.bandwidth_kbps
                                                     : (int64_t) q->cbs.idle_slope_kbps;
        }
        if (sum > (int64_t) speed * 1000)
                verr(v, "txqueues",
                     "the cbs queues reserve %" PRIi64 " kbit/s in all (the sum of their idle slopes), "
                     "more than the link's %" PRIu32 " kbit/s (%" PRIu32 " Mbit/s)",
                     sum, speed * 1000, speed);
}

/* ---- the kernel's options ---- */

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

/* As installed: the four values, offload, and the etf under it if any. */
static bool cbs_equal(const void *x, const void *y) {
        const EtfSpec *a = x, *b = y;
        EtfSpec ea, eb;

        if (a->kind != TXQ_CBS || b->kind != TXQ_CBS || a->queue != b->queue || a->offload != b->offload ||
            !stab_equal(&a->stab, &b->stab) ||
            a->cbs.idle_slope_kbps != b->cbs.idle_slope_kbps ||
            a->cbs.send_slope_kbps != b->cbs.send_slope_kbps ||
            a->cbs.hi_credit_bytes != b->cbs.hi_credit_bytes ||
            a->cbs.lo_credit_bytes != b->cbs.lo_credit_bytes || a->etf_child != b->etf_child)
                return false;
        if (!a->etf_child)
                return true;
        ea = etf_spec_etf_part(a);
        eb = etf_spec_etf_part(b);
        return etf_qdisc_equal(&ea, &eb);
}

/* ---- what the engine, Describe() and tbsctl need ---- */

static int cbs_resolve(EtfSpec *e, const DeviceFacts *facts, const char *label, char **ret_error) {
        uint32_t speed = facts ? facts->link_speed_mbps : 0;
        int k;

        k = cbs_spec_resolve(&e->cbs, speed, &e->cbs);
        if (k == -ENODATA) {
                if (asprintf(ret_error, "%s (cbs): bandwidth_kbps needs the link speed, which the device does not "
                             "report (is the link down?); give link_speed_mbps", label) < 0)
                        *ret_error = NULL;
        } else if (k < 0) {
                if (asprintf(ret_error, "%s (cbs): bandwidth_kbps %u does not fit the link speed of %u Mbit/s",
                             label, e->cbs.bandwidth_kbps, cbs_link_speed(&e->cbs, speed)) < 0)
                        *ret_error = NULL;
        }
        return k;
}

/* A bandwidth not yet computed takes the installed four values. */
static void cbs_settle_unresolved(EtfSpec *w, const EtfSpec *h) {
        if (w->cbs.from_bandwidth && w->cbs.idle_slope_kbps == 0) {
                w->cbs.idle_slope_kbps = h->cbs.idle_slope_kbps;
                w->cbs.send_slope_kbps = h->cbs.send_slope_kbps;
                w->cbs.hi_credit_bytes = h->cbs.hi_credit_bytes;
                w->cbs.lo_credit_bytes = h->cbs.lo_credit_bytes;
        }
}

static uint32_t cbs_file_link_speed(const EtfSpec *q) {
        return q->cbs.link_speed_mbps;
}

static bool cbs_offload_available(const DeviceFacts *f, uint32_t queue, const char **ret_reason) {
        bool yes = queue_in_mask(f->cbs_offload_mask, queue);

        *ret_reason = yes ? "the device shapes this queue itself (cbs offload)"
                          : "no cbs offload on this queue of the device";
        return yes;
}

/* As installed, else as declared (0 while a bandwidth waits for the link speed). */
static int cbs_describe(struct json_object *o, const EtfSpec *e) {
        if (json_add_made(o, "idle_slope_kbps", json_object_new_int64(e->cbs.idle_slope_kbps)) < 0 ||
            json_add_made(o, "send_slope_kbps", json_object_new_int64(e->cbs.send_slope_kbps)) < 0 ||
            json_add_made(o, "hi_credit_bytes", json_object_new_int64(e->cbs.hi_credit_bytes)) < 0 ||
            json_add_made(o, "lo_credit_bytes", json_object_new_int64(e->cbs.lo_credit_bytes)) < 0)
                return -ENOMEM;
        return 0;
}

static void cbs_status_text(struct json_object *q, char *buf, size_t size) {
        snprintf(buf, size, "idleslope %" PRId64 " kbit/s, sendslope %" PRId64 " kbit/s, hicredit %" PRId64
                 " B, locredit %" PRId64 " B", json_get_int(q, "idle_slope_kbps", 0),
                 json_get_int(q, "send_slope_kbps", 0), json_get_int(q, "hi_credit_bytes", 0),
                 json_get_int(q, "lo_credit_bytes", 0));
}

static const char *cbs_difference(const EtfSpec *have, const EtfSpec *want, char buf[static 96]) {
        const CbsSpec *h = &have->cbs, *w = &want->cbs;

        if (h->idle_slope_kbps != w->idle_slope_kbps)
                snprintf(buf, 96, "idleslope %d kbit/s instead of %d", h->idle_slope_kbps, w->idle_slope_kbps);
        else if (h->send_slope_kbps != w->send_slope_kbps)
                snprintf(buf, 96, "sendslope %d kbit/s instead of %d", h->send_slope_kbps, w->send_slope_kbps);
        else if (h->hi_credit_bytes != w->hi_credit_bytes)
                snprintf(buf, 96, "hicredit %d bytes instead of %d", h->hi_credit_bytes, w->hi_credit_bytes);
        else if (h->lo_credit_bytes != w->lo_credit_bytes)
                snprintf(buf, 96, "locredit %d bytes instead of %d", h->lo_credit_bytes, w->lo_credit_bytes);
        else if (have->offload != want->offload || !want->etf_child)
                snprintf(buf, 96, "offload %s", have->offload == OFFLOAD_ON ? "on" : "off");
        else {
                EtfSpec he = etf_spec_etf_part(have), we = etf_spec_etf_part(want);
                char eb[96];

                snprintf(buf, 96, "etf under it: %s", etf_difference(&he, &we, eb));
        }
        return buf;
}

const QDiscVTable qdisc_cbs_vtable = {
        .kind = "cbs",
        .article = "a",
        .root = false,
        .fill_options = cbs_fill_options,
        .parse_options = cbs_parse_options,
        .equal = cbs_equal,
        .txq = TXQ_CBS,
        .keys = cbs_keys,
        .n_keys = ELEMENTSOF(cbs_keys),
        .parse = cbs_parse,
        .verify = cbs_verify,
        .verify_schedule = cbs_verify_schedule,
        .to_json = cbs_to_json,
        .describe = cbs_describe,
        .status_text = cbs_status_text,
        .difference = cbs_difference,
        .resolve = cbs_resolve,
        .settle_unresolved = cbs_settle_unresolved,
        .offload_available = cbs_offload_available,
        .file_link_speed = cbs_file_link_speed,
        .takes_etf_child = true,
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

/* A cbs root's leaf is a cbs (both parsers set it so). */
static bool cbs_root_equal(const void *x, const void *y) {
        const RootSpec *a = x, *b = y;

        return root_head_equal(a, b) && cbs_equal(&a->leaf, &b->leaf);
}

const QDiscVTable qdisc_cbs_root_vtable = {
        .kind = "cbs",
        .article = "a",
        .root = true,
        .default_child = "pfifo",       /* cbs grafts a pfifo as its inner qdisc */
        .fill_options = cbs_root_fill_options,
        .parse_options = cbs_root_parse_options,
        .equal = cbs_root_equal,
        .txq = TXQ_CBS,
        .takes_etf_child = true,
};

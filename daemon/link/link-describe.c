/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The link's status document: Describe(), `tbsctl status --json`, and
 * what the metrics are rendered from. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps-probe.h"
#include "json-util.h"
#include "link-internal.h"
#include "schedule-store.h"
#include "link-metrics.h"
#include "nl-qdisc.h"
#include "qdisc-kind.h"
#include "qdisc-owner.h"
#include "schedule-json.h"
#include "utf8.h"

static struct json_object *stats_json(const QDiscStats *st, const InstalledQueue *q) {
        struct json_object *o = json_object_new_object();
        const TaprioOffloadStats *off;

        json_add(o, "packets", json_object_new_int64((int64_t) st->packets));
        json_add(o, "bytes", json_object_new_int64((int64_t) st->bytes));
        json_add(o, "drops", json_object_new_int64(st->drops));
        json_add(o, "overlimits", json_object_new_int64(st->overlimits));
        json_add(o, "requeues", json_object_new_int64(st->requeues));
        json_add(o, "backlog_bytes", json_object_new_int64(st->backlog_bytes));
        json_add(o, "backlog_packets", json_object_new_int64(st->qlen));
        /* taprio's offload statistics, the root's or its class's: only the
         * ones the kernel gives */
        off = q ? &q->offload : &st->offload;
        if (off->has_window_drops)
                json_add(o, "window_drops", json_object_new_int64((int64_t) off->window_drops));
        if (off->has_tx_overruns)
                json_add(o, "tx_overruns", json_object_new_int64((int64_t) off->tx_overruns));
        if (q) {
                json_add(o, "deadline_misses", json_object_new_int64((int64_t) (q->is_etf || q->child.kind[0] ? q->deadline_misses : 0)));
                json_add(o, "invalid", json_object_new_int64((int64_t) (q->is_etf || q->child.kind[0] ? q->invalid : 0)));
        }
        return o;
}

/* A taprio root's "class_stats": one object per traffic class, "class"
 * and the offload counters the kernel gave for every TX queue of the
 * class, summed (IEEE 802.1Q counts them per class); a counter it did not
 * give is left out, not 0. */
static struct json_object *class_stats_json(const QDiscTree *t) {
        struct json_object *a = json_object_new_array();

        for (unsigned tc = 0; a && tc < t->root_spec.num_tc && tc < TBS_MAX_TC; tc++) {
                struct json_object *o = json_object_new_object();
                TaprioOffloadStats st;

                qdisc_tree_class_offload_stats(t, tc, &st);
                json_add(o, "class", json_object_new_int64(tc));
                if (st.has_window_drops)
                        json_add(o, "window_drops", json_object_new_int64((int64_t) st.window_drops));
                if (st.has_tx_overruns)
                        json_add(o, "tx_overruns", json_object_new_int64((int64_t) st.tx_overruns));
                json_object_array_add(a, o);
        }
        return a;
}

static struct json_object *offload_requested_json(OffloadMode m) {
        if (m == OFFLOAD_AUTO)
                return json_object_new_string("auto");
        return json_object_new_boolean(m == OFFLOAD_ON);
}

/* Whose the root is: "owner" ("tbsd": the tree tbsd installed or would
 * install; "default": the kernel's own root, handle 0, such as noqueue,
 * pfifo_fast or mq; "foreign": anyone else's, "owner_reason" says why it
 * is not tbsd's). */
static void root_owner_json(struct json_object *o, Link *l, const QDiscTree *t) {
        _cleanup_free_ char *why = NULL;
        const RootSpec *ours[2];
        int k;

        link_own_roots(l, ours);
        k = qdisc_root_owner(t, ours, ELEMENTSOF(ours), l->rt->caps ? &l->rt->facts : NULL, &why);
        json_add_string(o, "owner", k >= 0 ? root_owner_to_string(k) : NULL);
        json_add_string(o, "owner_reason", why);
}

static struct json_object *root_json(Link *l, const QDiscTree *t) {
        _cleanup_json_ struct json_object *o = NULL;
        struct json_object *spec = NULL;
        char h[16];

        if (!t->has_root)
                return NULL;
        if (t->root_known) {
                /* The schedule format's own view of the root, as installed. */
                Schedule tmp = { .root = t->root_spec };
                _cleanup_json_ struct json_object *full = NULL;
                const QDiscVTable *vt;

                /* Report the effective values (taprio's cycle time, given or
                 * derived, and the max SDUs of a kernel that reports them). */
                root_dump_as_file(&tmp.root, true);
                full = schedule_to_json(&tmp);
                spec = json_get(full, "root");
                o = spec ? json_object_get(spec) : json_object_new_object();
                vt = qdisc_vtable_for_root(t->root_spec.kind);
                if (vt && vt->describe_root)
                        vt->describe_root(o, &t->root_spec);
        } else
                o = json_object_new_object();
        json_add_string(o, "qdisc", t->root.kind);
        json_add_string(o, "handle", tc_handle_to_string(t->root.handle, h));
        /* whether the keys of the schedule format above describe it (a
         * kind tbsd reads: mqprio, taprio, etf, cbs), or only its kind */
        json_add(o, "modeled", json_object_new_boolean(t->root_known));
        root_owner_json(o, l, t);
        json_add(o, "stats", stats_json(&t->root.stats, NULL));
        if (t->root_known && qdisc_vtable_for_root(t->root_spec.kind) &&
            qdisc_vtable_for_root(t->root_spec.kind)->class_stats)
                json_add(o, "class_stats", class_stats_json(t));
        return TAKE_PTR(o);
}

static struct json_object *ns_or_null(bool have, int64_t v) {
        return have ? json_object_new_int64(v) : NULL;
}

/* The "monitor" object of a queue whose schedule entry has the key: the
 * setting, whether the monitor runs now (the tree is installed), and its
 * figures (zero, and null quantiles, until a probe was stamped). */
static struct json_object *monitor_json(Link *l, const EtfSpec *want) {
        const LaunchQueueStats *all, *st = NULL, zero = { .queue = want->queue };
        size_t n = link_launch_stats(l, &all);
        struct json_object *o = json_object_new_object();
        const char *stamps, *stamps_why;
        int64_t p50 = 0, p99 = 0;
        bool have;

        for (size_t i = 0; i < n; i++)
                if (all[i].queue == want->queue)
                        st = &all[i];
        json_add(o, "interval_ms", json_object_new_int64(want->monitor.interval_ms));
        json_add(o, "frames", json_object_new_int64(want->monitor.frames));
        json_add(o, "running", json_object_new_boolean(st != NULL));
        if (!st)
                st = &zero;
        have = st->hist.count > 0;
        (void) launch_hist_quantile(&st->hist, 0.5, &p50);
        (void) launch_hist_quantile(&st->hist, 0.99, &p99);
        json_add_string(o, "source", launch_stamp_source_to_string(st->source));
        /* what the monitor asks for now (source: what the last stamped
         * probe had), and why: docs/fidelity.md */
        stamps = link_launch_stamps(l, want->queue, &stamps_why);
        json_add_string(o, "stamps_requested", stamps);
        json_add_string(o, "stamps_reason", stamps_why);
        json_add(o, "sent", json_object_new_int64((int64_t) st->sent));
        json_add(o, "missed", json_object_new_int64((int64_t) st->missed));
        json_add(o, "invalid", json_object_new_int64((int64_t) st->invalid));
        json_add(o, "unstamped", json_object_new_int64((int64_t) st->unstamped));
        json_add(o, "count", json_object_new_int64((int64_t) st->hist.count));
        json_add(o, "early", json_object_new_int64((int64_t) st->hist.early));
        json_add(o, "late", json_object_new_int64((int64_t) st->hist.late));
        json_add(o, "min_ns", ns_or_null(have, st->hist.min_ns));
        json_add(o, "p50_ns", ns_or_null(have, p50));
        json_add(o, "p99_ns", ns_or_null(have, p99));
        json_add(o, "max_ns", ns_or_null(have, st->hist.max_ns));
        return o;
}

static struct json_object *queue_json(Link *l, const EtfSpec *want, const QDiscTree *t) {
        const InstalledQueue *q = t ? qdisc_tree_find_queue(t, want->queue) : NULL;
        const QueueApplyResult *res = link_last_result(l, want->queue);
        bool installed = q && installed_queue_is_declarable(q) && q->etf.kind == want->kind;
        const EtfSpec *e = installed ? &q->etf : want;
        const QDiscVTable *vt = qdisc_vtable_for_child(want->kind);
        struct json_object *o = json_object_new_object();
        QueueRates rates;
        char h[16];

        json_add(o, "queue", json_object_new_int64(want->queue));
        json_add_string(o, "qdisc", q ? q->qdisc.kind : NULL);
        json_add_string(o, "declared_qdisc", txq_kind_to_string(want->kind));
        json_add(o, "installed", json_object_new_boolean(installed));
        json_add_string(o, "handle", q ? tc_handle_to_string(q->qdisc.handle, h) : NULL);
        json_add_string(o, "parent", q ? tc_handle_to_string(q->qdisc.parent, h) : NULL);
        json_add_string(o, "clockid", clockid_to_string(e->etf.clockid));
        json_add(o, "delta_ns", json_object_new_int64(e->etf.delta_ns));
        json_add(o, "offload", json_object_new_boolean(installed && q->etf.offload == OFFLOAD_ON));
        json_add(o, "offload_requested", offload_requested_json(want->offload));
        /* offload_requested is true, false or "auto" (the schedule's own
         * spelling, kept for compatibility); this one is always a string. */
        json_add_string(o, "offload_requested_mode",
                        want->offload == OFFLOAD_AUTO ? "auto" : want->offload == OFFLOAD_ON ? "on" : "off");
        json_add_string(o, "offload_reason", res ? res->reason : NULL);
        if (vt && vt->describe)
                (void) vt->describe(o, e);      /* the kind's own values (a member it cannot add stays out) */
        json_add(o, "deadline_mode", json_object_new_boolean(e->etf.deadline_mode));
        json_add(o, "skip_sock_check", json_object_new_boolean(e->etf.skip_sock_check));
        if (want->etf_child || (q && q->child.kind[0])) {
                /* The etf under the cbs (the keys above are its settings). */
                struct json_object *c = json_object_new_object();

                json_add_string(c, "qdisc", q && q->child.kind[0] ? q->child.kind : NULL);
                json_add_string(c, "declared_qdisc", want->etf_child ? "etf" : NULL);
                json_add_string(c, "handle", q && q->child.kind[0] ? tc_handle_to_string(q->child.handle, h) : NULL);
                json_add(c, "offload", json_object_new_boolean(installed && q->etf.etf_child &&
                                                               q->etf.child_offload == OFFLOAD_ON));
                json_add(c, "offload_requested", offload_requested_json(want->child_offload));
                json_add(c, "stats", q && q->child.kind[0] ? stats_json(&q->child.stats, NULL) : NULL);
                json_add(o, "child", c);
        }
        if (q)
                json_add(o, "stats", stats_json(&q->qdisc.stats, q));
        else
                json_add(o, "stats", NULL);
        if (link_queue_rates(l, want->queue, &rates) >= 0) {
                struct json_object *r = json_object_new_object();
                json_add(r, "interval_s", json_new_double_ms(rates.interval_s));
                json_add(r, "packets_per_second", json_object_new_double(rates.packets_per_second));
                json_add(r, "bytes_per_second", json_object_new_double(rates.bytes_per_second));
                json_add(r, "drops_per_second", json_object_new_double(rates.drops_per_second));
                json_add(r, "deadline_misses_per_second", json_object_new_double(rates.deadline_misses_per_second));
                json_add(r, "invalid_per_second", json_object_new_double(rates.invalid_per_second));
                json_add(o, "rates", r);
        } else
                json_add(o, "rates", NULL);
        if (want->monitor.enabled)
                json_add(o, "monitor", monitor_json(l, want));
        return o;
}

/* The kernel's operstate and carrier of the interface (sysfs), or NULL
 * when the interface is absent or the value unreadable (carrier reads
 * fail with EINVAL while the interface is down). */
static struct json_object *sysfs_net_value(const char *ifname, const char *attr, bool boolean) {
        char path[128], buf[32];
        bool ok;
        FILE *f;

        if (!ifname || strchr(ifname, '/') || snprintf(path, sizeof(path), "/sys/class/net/%s/%s", ifname, attr) >=
            (int) sizeof(path))
                return NULL;
        f = fopen(path, "re");
        if (!f)
                return NULL;
        ok = fgets(buf, sizeof(buf), f);
        fclose(f);
        if (!ok)
                return NULL;
        buf[strcspn(buf, "\n")] = 0;
        if (boolean)
                return json_object_new_boolean(strcmp(buf, "1") == 0);
        return json_object_new_string(buf);
}

int link_describe_tree(Link *l, const QDiscTree *given, struct json_object **ret) {
        _cleanup_json_ struct json_object *o = json_object_new_object();
        struct json_object *qs;
        QDiscTree own = {};
        const QDiscTree *tree = given;
        bool have_tree = given;
        ClockStatus clock;

        if (!o)
                return -ENOMEM;
        if (!given && l->ifindex > 0 && nl_qdisc_dump(l->ctx->nl, l->ifindex, &own) >= 0) {
                tree = &own;
                have_tree = true;
        }

        json_add_string(o, "interface", l->name);
        json_add(o, "ifindex", json_object_new_int(l->ifindex));
        json_add_string(o, "state", link_state_to_string(l->state));
        json_add_string(o, "state_reason", l->state_reason);
        json_add(o, "operstate", l->ifindex > 0 ? sysfs_net_value(l->name, "operstate", false) : NULL);
        json_add(o, "carrier", l->ifindex > 0 ? sysfs_net_value(l->name, "carrier", true) : NULL);
        {
                _cleanup_free_ char *f = NULL;

                /* A folder entry's name need not be UTF-8; D-Bus needs it. */
                json_add_string(o, "schedule_file", l->schedule_file ? text_safe(l->schedule_file, &f) : NULL);
        }
        {
                /* "file" (the schedules folder), or who gave it with
                 * ApplySchedule() (schedule-store.h); printable ASCII. */
                _cleanup_free_ char *origin = NULL;

                if (l->schedule_file)
                        (void) schedule_store_origin(l->ctx->state_dir, l->schedule_file, &origin);
                json_add_string(o, "origin", origin);
        }
        json_add(o, "root", have_tree ? root_json(l, tree) : NULL);
        qs = json_object_new_array();
        for (size_t i = 0; l->schedule && i < l->schedule->n_txqueues; i++)
                json_object_array_add(qs, queue_json(l, &l->schedule->txqueues[i], have_tree ? tree : NULL));
        json_add(o, "txqueues", qs);
        {
                /* The MAC merge layer first: reading it may learn whether
                 * the device has one, which the capabilities then say. */
                struct json_object *mm = link_mac_merge_json(l),
                                   *caps = l->rt->caps ? caps_to_json(l->rt->caps) : NULL;

                link_mac_merge_note_caps(l, caps);
                json_add(o, "capabilities", caps);
                json_add(o, "mac_merge", mm);
        }
        {
                struct json_object *c = clock_status_to_json(link_clock_status(l, &clock)),
                                   *n = json_object_new_object();

                /* The ptp4l the check asks, as the schedule names it; the socket
                 * it reached; how ptp4l's news come and what they cost. */
                if (c) {
                        const ClockCheck *cc = l->rt->clock;

                        json_add_string(c, "ptp4l_socket", link_ptp4l_socket(l));
                        json_add_string(c, "ptp4l_socket_used", cc ? clock_check_socket(cc) : NULL);
                        json_add_string(c, "ptp4l_updates",
                                        !cc ? NULL : clock_check_subscribed(cc) ? "notifications" : "polling");
                        json_add(c, "ptp4l_requests",
                                 cc ? json_object_new_int64((int64_t) clock_check_requests(cc)) : NULL);
                        json_add(c, "ptp4l_notifications",
                                 cc ? json_object_new_int64((int64_t) clock_check_notifications(cc)) : NULL);
                }
                json_add(o, "clock", c);
                json_add(n, "reloads", json_object_new_int64((int64_t) l->counters.reloads));
                json_add(n, "applies", json_object_new_int64((int64_t) l->counters.applies));
                json_add(n, "drift_repairs", json_object_new_int64((int64_t) l->counters.drift_repairs));
                json_add(n, "apply_failures", json_object_new_int64((int64_t) l->counters.apply_failures));
                json_add(n, "changes_refused", json_object_new_int64((int64_t) l->counters.changes_refused));
                json_add(o, "counters", n);
        }
        qdisc_tree_done(&own);
        *ret = TAKE_PTR(o);
        return 0;
}

int link_describe(Link *l, struct json_object **ret) {
        return link_describe_tree(l, NULL, ret);
}

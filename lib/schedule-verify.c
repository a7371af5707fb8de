/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "json-util.h"
#include "qdisc-kind.h"
#include "schedule-safety.h"
#include "schedule-streams.h"
#include "schedule-verifier.h"
#include "schedule-verify.h"
#include "show.h"
#include "taprio-windows.h"
#include "utf8.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

#define JPATH_MAX VERIFY_PATH_MAX

/* A string value as it appears in messages: JSON-quoted with escapes (so a
 * newline in a value cannot break the one-line diagnostic), cut at a UTF-8
 * character boundary when long, as schedule-parse.c's show() does. */
static const char *show_string(const char *s, char buf[static SHOW_MAX]) {
        _cleanup_json_ json_object *o = json_object_new_string(s);
        const char *t;

        t = o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) : NULL;
        if (!t)
                return "a string";
        return show_json_text(t, buf);
}

const char *ifname_problem(const char *name, size_t len) {
        /* The kernel's dev_valid_name(), then what D-Bus needs. */
        if (len == 0)
                return "must not be empty";
        if (len >= IFNAMSIZ)
                return "must be at most 15 bytes long (IFNAMSIZ - 1)";
        if (memchr(name, 0, len))
                return "must not contain a NUL character";
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
                return "must not be \".\" or \"..\"";
        if (memchr(name, '/', len))
                return "must not contain '/'";
        if (memchr(name, ':', len))
                return "must not contain ':'";
        for (size_t i = 0; i < len; i++)
                if (name[i] == ' ' || (name[i] >= '\t' && name[i] <= '\r'))
                        return "must not contain whitespace";
        if (!utf8_is_valid_n(name, len))
                return "must be valid UTF-8";
        /* The kernel's isspace() counts byte 0xa0 too (Latin-1's no-break
         * space), so it refuses every name holding that byte, such as "à"
         * (c3 a0) in UTF-8. */
        if (memchr(name, 0xa0, len))
                return "must not contain the byte 0xa0 (the kernel counts it as whitespace)";
        return NULL;
}

/* "queue 3" or "queues 3-5", for the queues [first, end). */
static const char *queue_span(unsigned first, unsigned end, char buf[static 32]) {
        if (end == first + 1)
                snprintf(buf, 32, "queue %u", first);
        else
                snprintf(buf, 32, "queues %u-%u", first, end - 1);
        return buf;
}

static void verify_ifname(Verifier *v, const Schedule *s) {
        const char *problem = ifname_problem(s->ifname, strnlen(s->ifname, IFNAMSIZ));

        if (problem)
                verr(v, "interface", "%s", problem);
}

static void verify_handle(Verifier *v, const RootSpec *r) {
        char h[16];

        tc_handle_to_string(r->handle, h);
        if ((r->handle >> 16) == 0)
                verr(v, "root.handle", "must be a qdisc handle such as \"100:\", got \"%s\"", h);
        else if ((r->handle & 0xffffU) != 0)
                verr(v, "root.handle", "must have minor number 0, such as \"100:\", got \"%s\"", h);
        else if ((r->handle >> 16) == 0xffffU)
                verr(v, "root.handle",
                     "major number ffff is reserved for the ingress and clsact qdiscs, got \"%s\"", h);
}

/* Where classes may share queues (taprio in txtime-assist mode), their
 * ranges may overlap and come in any order, as Linux 6.1 lets them; the
 * queues they cover together must still leave none out: the first queue
 * after the lowest range's start that no class holds is named. */
static void verify_queue_union(Verifier *v, const RootSpec *r) {
        char path[JPATH_MAX], span[32];
        unsigned first = UINT_MAX, end = 0, hole, hole_end;

        for (unsigned tc = 0; tc < r->num_tc; tc++)
                if (r->queues[tc].count > 0) {
                        unsigned o = r->queues[tc].offset, e = o + r->queues[tc].count;

                        first = o < first ? o : first;
                        end = e > end ? e : end;
                }
        for (hole = first; hole < end && root_tcs_of_queue(r, hole) != 0; hole++)
                ;
        if (hole >= end)
                return;
        for (hole_end = hole; hole_end < end && root_tcs_of_queue(r, hole_end) == 0; hole_end++)
                ;
        /* the class starting at the hole's end */
        for (unsigned tc = 0; tc < r->num_tc; tc++)
                if (r->queues[tc].count > 0 && r->queues[tc].offset == hole_end) {
                        verr(v, pathf(path, "root.queues[%u].offset", tc),
                             "leaves %s in no traffic class; the queues of all traffic classes together must "
                             "be contiguous, so it must be at most %u, got %u",
                             queue_span(hole, hole_end, span), hole, hole_end);
                        return;
                }
}

static void verify_queues(Verifier *v, const RootSpec *r, const DeviceFacts *facts) {
        char path[JPATH_MAX], span[32];
        bool overlap = root_queues_may_overlap(r);

        for (unsigned tc = 0; tc < r->num_tc; tc++) {
                const QueueRange *q = &r->queues[tc];
                unsigned end = (unsigned) q->offset + q->count;

                if (q->count == 0) {
                        verr(v, pathf(path, "root.queues[%u].count", tc),
                             "must be between 1 and 65535, got 0");
                        continue;
                }
                if (!overlap && tc > 0 && r->queues[tc - 1].count > 0 &&
                    q->offset != (unsigned) r->queues[tc - 1].offset + r->queues[tc - 1].count) {
                        unsigned prev_end = (unsigned) r->queues[tc - 1].offset + r->queues[tc - 1].count;
                        int other = -1;

                        for (unsigned j = 0; j < tc && other < 0; j++) {
                                unsigned o = r->queues[j].offset, e = o + r->queues[j].count;

                                if (q->offset < e && o < end)
                                        other = (int) j;
                        }
                        pathf(path, "root.queues[%u].offset", tc);
                        if (other >= 0)
                                verr(v, path, "overlaps traffic class %d (%s); must be %u, got %u", other,
                                     queue_span(r->queues[other].offset,
                                                (unsigned) r->queues[other].offset + r->queues[other].count, span),
                                     prev_end, q->offset);
                        else if (q->offset > prev_end)
                                verr(v, path, "leaves %s in no traffic class; traffic classes must use "
                                     "contiguous queues, so it must be %u, got %u",
                                     queue_span(prev_end, q->offset, span), prev_end, q->offset);
                        else
                                verr(v, path, "must start where traffic class %u ends; traffic classes must use "
                                     "contiguous queues in order, so it must be %u, got %u",
                                     tc - 1, prev_end, q->offset);
                }
                if (facts && facts->tx_queues > 0 && end > facts->tx_queues)
                        verr(v, pathf(path, "root.queues[%u]", tc),
                             "uses %s, but the device has %u TX queue%s",
                             queue_span(q->offset, end, span), facts->tx_queues,
                             facts->tx_queues == 1 ? "" : "s");
        }
        if (!overlap)
                return;
        verify_queue_union(v, r);
        /* Shared queues do not lift taprio's other rule (Linux 6.1): no
         * more classes than the device has TX queues. */
        if (facts && facts->tx_queues > 0 && r->num_tc > facts->tx_queues)
                verr(v, "root.num_tc", "is %u, but the device has %u TX queue%s; taprio takes at most one traffic "
                     "class per TX queue, also where classes share queues", (unsigned) r->num_tc, facts->tx_queues,
                     facts->tx_queues == 1 ? "" : "s");
}

/* The rules of every root; a root with traffic classes its kind's too. */
static void verify_root(Verifier *v, const Schedule *s, const DeviceFacts *facts) {
        const RootSpec *r = &s->root;
        const QDiscVTable *vt;
        char path[JPATH_MAX];

        if ((unsigned) r->kind >= _ROOT_KIND_MAX) {
                verr(v, "root.qdisc", "unknown root qdisc kind %d", (int) r->kind);
                return;
        }
        verify_handle(v, r);
        if (stab_refusal(&r->stab))
                verr(v, "root.stab", "%s", stab_refusal(&r->stab));
        if (root_is_leaf(r)) {
                qdisc_vtable_for_child(r->leaf.kind)->verify(v, &r->leaf, &(Where) { .prefix = "root" }, facts);
                return;
        }
        if (r->num_tc < 1 || r->num_tc > TBS_MAX_TC)
                verr(v, "root.num_tc", "must be between 1 and %u, got %u", TBS_MAX_TC, r->num_tc);
        else {
                for (unsigned i = 0; i < TBS_PRIO_MAP_LEN; i++)
                        if (r->priority_map[i] >= r->num_tc)
                                verr(v, pathf(path, "root.priority_map[%u]", i),
                                     "traffic class %u does not exist (num_tc is %u)",
                                     r->priority_map[i], r->num_tc);
                verify_queues(v, r, facts);
        }
        vt = qdisc_vtable_for_root(r->kind);
        if (vt->verify_root)
                vt->verify_root(v, s, facts);
}

/* Under a taprio root the probes' launch times must lie in the class's
 * gate windows (kinds/taprio-windows.h): a class that never opens takes
 * none; a window must hold a probe frame's transmission time on either
 * side of its launch time, checked when the link speed is known (the
 * device's, or the streams' root.link_speed_mbps). */
static void verify_monitor_windows(Verifier *v, const Schedule *s, int tc, const EtfSpec *q, size_t i,
                                   const DeviceFacts *facts) {
        _cleanup_free_ TxtimeWindow *w = NULL;
        const char *list = s->streams.n > 0 ? "root.streams" : "root.entries";
        uint32_t speed = facts && facts->link_speed_mbps > 0 ? facts->link_speed_mbps : s->streams.link_speed_mbps;
        char path[JPATH_MAX];
        uint64_t guard, longest;
        GateSchedule buf;
        const GateSchedule *g = root_gate_schedule(&s->root, &buf);
        int n;

        if (schedule_streams_pending(s) || !g || g->n_entries == 0)
                return;         /* entries not known yet, or said for root.entries */
        n = txtime_windows(&s->root, (unsigned) tc, &w);
        if (n == -ENOMEM)
                v->oom = true;
        if (n < 0)
                return;         /* said for root */
        if (n == 0) {
                verr(v, pathf(path, "txqueues[%zu].monitor", i),
                     "traffic class %d of queue %" PRIu32 " never opens in the gate list (%s): taprio drops "
                     "every launch time of the class, so no probe frame can pass", tc, q->queue, list);
                return;
        }
        if (speed == 0)
                return;
        guard = txtime_probe_guard_ns(speed);
        longest = txtime_windows_longest(w, (size_t) n);
        if (longest <= 2 * guard)
                verr(v, pathf(path, "txqueues[%zu].monitor", i),
                     "traffic class %d of queue %" PRIu32 " opens for at most %" PRIu64 " ns at a time (%s); a "
                     "probe frame needs more than %" PRIu64 " ns: its transmission time at %" PRIu32
                     " Mbit/s (%" PRIu64 " ns) on either side of its launch time",
                     tc, q->queue, longest, list, 2 * guard, speed, guard);
}

/* A monitored etf queue: the probe frames must reach it, and only it, and
 * their launch times must pass the root (mqprio checks none, taprio its
 * gate windows). A socket reaches a traffic class by its priority; a class
 * of several TX queues spreads its flows over them by hash, so the probes
 * could land on another queue. A queue that serves several classes
 * (txtime-assist) is probed through root_send_tc_of_queue()'s class, as
 * the monitor does. The interval and frames ranges are the parser's. */
static void verify_monitor(Verifier *v, const Schedule *s, const EtfSpec *q, size_t i, const DeviceFacts *facts) {
        const RootSpec *r = &s->root;
        char path[JPATH_MAX];
        int tc = root_send_tc_of_queue(r, q->queue);
        unsigned p;

        if (tc < 0)
                return;         /* said for txqueues[i].queue */
        if (r->queues[tc].count != 1) {
                verr(v, pathf(path, "txqueues[%zu].monitor", i),
                     "queue %" PRIu32 " shares traffic class %d with %u other queue%s; the kernel spreads a "
                     "class's flows over its queues, so probe frames cannot be aimed at one of them; give the "
                     "monitored queue a traffic class of its own",
                     q->queue, tc, (unsigned) r->queues[tc].count - 1, r->queues[tc].count == 2 ? "" : "s");
                return;
        }
        for (p = 0; p < TBS_PRIO_MAP_LEN; p++)
                if (r->priority_map[p] == tc)
                        break;
        if (p == TBS_PRIO_MAP_LEN) {
                verr(v, pathf(path, "txqueues[%zu].monitor", i),
                     "no socket priority maps to traffic class %d of queue %" PRIu32
                     " (root.priority_map), so no probe frame can reach it", tc, q->queue);
                return;
        }
        if (root_gates(r))
                verify_monitor_windows(v, s, tc, q, i, facts);
}

static void verify_txqueues(Verifier *v, const Schedule *s, const DeviceFacts *facts) {
        const RootSpec *r = &s->root;
        const QDiscVTable *root_vt = qdisc_vtable_for_root(r->kind);
        bool tcs_ok = r->num_tc >= 1 && r->num_tc <= TBS_MAX_TC;
        char path[JPATH_MAX];

        if (root_is_leaf(r) && s->n_txqueues > 0) {
                verr(v, "txqueues", "must be left out under a root %s: a single qdisc as the root has no TX "
                     "queues of its own to put qdiscs on (a cbs root takes an etf as its \"child\")",
                     root_kind_to_string(r->kind));
                return;
        }
        for (size_t i = 0; i < s->n_txqueues; i++) {
                const EtfSpec *q = &s->txqueues[i];
                const QDiscVTable *vt;

                if (q->queue > UINT16_MAX - 1)
                        verr(v, pathf(path, "txqueues[%zu].queue", i), "must be between 0 and %u, got %" PRIu32,
                             UINT16_MAX - 1, q->queue);
                else {
                        bool dup = false;

                        for (size_t j = 0; j < i && !dup; j++)
                                if (s->txqueues[j].queue == q->queue) {
                                        verr(v, pathf(path, "txqueues[%zu].queue", i),
                                             "queue %" PRIu32 " is already configured by txqueues[%zu]",
                                             q->queue, j);
                                        dup = true;
                                }
                        if (!dup && tcs_ok && root_tc_of_queue(r, q->queue) < 0)
                                verr(v, pathf(path, "txqueues[%zu].queue", i),
                                     "queue %" PRIu32 " is in no traffic class of root.queues",
                                     q->queue);
                }
                if (stab_refusal(&q->stab))
                        verr(v, pathf(path, "txqueues[%zu].stab", i), "%s", stab_refusal(&q->stab));
                else if (q->stab.given && root_vt && root_vt->refuses_txq_stab)
                        verr(v, pathf(path, "txqueues[%zu].stab", i),
                             "a TX queue's size table needs an mqprio root: under %s the kernel refuses it "
                             "(\"STAB not supported on a non root\"); give %s's as root.stab", root_vt->kind,
                             root_vt->kind);
                vt = qdisc_vtable_for_child(q->kind);
                if (!vt) {
                        verr(v, pathf(path, "txqueues[%zu].qdisc", i), "unknown qdisc kind %d", (int) q->kind);
                        continue;
                }
                vt->verify(v, q, &(Where) { .prefix = "txqueues", .index = i }, facts);
                if (!vt->releases_at_txtime)
                        continue;
                if (q->monitor.enabled && tcs_ok)
                        verify_monitor(v, s, q, i, facts);
                /* For PTP's queue the ptp-etf check says it, as an error. */
                if (root_stamps_txtime(r) && !etf_spec_etf(q)->skip_sock_check &&
                    (s->allow & (1U << SAFETY_PTP_ETF) || !root_tc_has_queue(r, schedule_ptp_tc(s), q->queue)))
                        vwarn(v, pathf(path, "txqueues[%zu].skip_sock_check", i),
                              "taprio in txtime-assist mode stamps every packet with a launch time, and "
                              "etf drops stamped packets from sockets without SO_TXTIME; set "
                              "skip_sock_check to true unless every sender uses SO_TXTIME");
        }
}

static void verify_clock(Verifier *v, const ClockSpec *c) {
        struct sockaddr_un sa;
        char sh[SHOW_MAX];

        if (!c->configured)
                return;
        if (c->ptp4l_socket) {
                if (c->ptp4l_socket[0] == 0)
                        verr(v, "clock.ptp4l_socket", "must not be empty");
                else if (c->ptp4l_socket[0] != '/')
                        verr(v, "clock.ptp4l_socket", "must be an absolute path, got %s",
                             show_string(c->ptp4l_socket, sh));
                else if (strlen(c->ptp4l_socket) >= sizeof(sa.sun_path))
                        verr(v, "clock.ptp4l_socket", "must be shorter than %zu bytes (sun_path)",
                             sizeof(sa.sun_path));
        }
        if (c->transport_specific > 15)
                verr(v, "clock.transport_specific", "must be between 0 and 15, got %u", c->transport_specific);
        verify_at_least(v, "clock.max_master_offset_ns", c->max_master_offset_ns, 1);
        verify_at_least(v, "clock.max_phc_offset_ns", c->max_phc_offset_ns, 1);
}

/* "mac_merge": the rules between its keys, as Linux 6.12's MM_SET judges
 * them, and root.fp's preemptible classes against it. A "P" without
 * mac_merge.tx_enabled is a warning, not an error: the kernel takes fp
 * on mqprio and taprio without a MAC merge layer (the classes then leave
 * whole, as express frames: nothing is preempted, nothing is lost), and
 * files with fp were valid before "mac_merge" existed and must stay so;
 * the MAC merge layer may also be set by other means (a vendor tool, the
 * switch's LLDP agent). */
static void verify_mac_merge(Verifier *v, const Schedule *s, size_t errors_before) {
        const MacMergeSpec *m = &s->mac_merge;

        if (m->tx_given && m->tx_enabled && m->pmac_given && !m->pmac_enabled)
                verr(v, "mac_merge.pmac_enabled", "must be true when tx_enabled is true (preemptible frames "
                     "need the pMAC; the kernel refuses it)");
        if (m->verify_given && m->verify_enabled && !(m->tx_given && m->tx_enabled))
                verr(v, "mac_merge.verify_enabled", "needs \"tx_enabled\": true (verification is the "
                     "transmit side's handshake with the link partner)");
        /* Only on a schedule the kernel would take: else it is noise. */
        if (diag_errors(v->diags) == errors_before && root_has_preemptible(&s->root) &&
            !(m->tx_given && m->tx_enabled))
                vwarn(v, "root.fp", "has preemptible (\"P\") traffic classes, but mac_merge.tx_enabled is not "
                      "true: without the MAC merge layer's transmit side nothing is preempted (set \"mac_merge\": "
                      "{\"tx_enabled\": true} to have tbsd enable it)");
}

/* "mac_merge" against the device: one without a MAC merge layer cannot
 * have it set, and the daemon refuses the file at the apply. Unknown (not
 * probed, the question failed) passes: the apply finds out. The device is
 * asked here, only for a file that has the key (facts->ask_mac_merge). */
static void verify_mac_merge_device(Verifier *v, const Schedule *s, const DeviceFacts *facts) {
        DeviceMacMerge has;
        int r;

        if (!facts || !s->mac_merge.configured)
                return;
        has = facts->mac_merge;
        if (has == DEVICE_MAC_MERGE_UNKNOWN && facts->ask_mac_merge) {
                r = facts->ask_mac_merge(facts->ask_userdata);
                has = r < 0 ? DEVICE_MAC_MERGE_UNKNOWN : r > 0 ? DEVICE_MAC_MERGE_PRESENT : DEVICE_MAC_MERGE_ABSENT;
        }
        if (has == DEVICE_MAC_MERGE_ABSENT)
                verr(v, "mac_merge", "the device %s%shas no MAC merge layer (ethtool netlink MM_GET: not supported "
                     "by its driver, or a kernel before 6.3), so its frames cannot be preempted; leave "
                     "\"mac_merge\" out on this device", facts->ifname ?: "", facts->ifname ? " " : "");
}

/* Streams whose gate list waits for the device's link speed: computed
 * here with facts' speed into *ret (its entries are then checked like any
 * others), or a line why not; without facts the entries' checks wait for
 * the apply, which computes them with the probed speed. Returns 1 with
 * *ret, else 0. */
static int verify_pending_streams(Verifier *v, const Schedule *s, const DeviceFacts *facts, StreamSchedule *ret) {
        _cleanup_free_ char *why = NULL;
        int k;

        if (!facts)
                return 0;       /* nothing known (the daemon's first load, --no-probe): at apply time */
        k = schedule_streams_compute(s, facts->link_speed_mbps, ret, &why);
        if (k == -ENOMEM)
                v->oom = true;
        else if (k == -ENODATA)
                verr(v, "root.link_speed_mbps", "%s", why ?: "the link speed is unknown");
        else if (k < 0)
                verr(v, "root.streams", "%s", why ?: "cannot be scheduled");
        return k == 0;
}

/* The file's monitors alone within the daemon's probe budget (the
 * folder's sum is schedule_dir_load()'s). */
static void verify_monitor_budget(Verifier *v, const Schedule *s) {
        char path[JPATH_MAX];
        uint64_t total;
        size_t i;

        if (schedule_monitor_over_budget(s, 0, &i, &total))
                verr(v, pathf(path, "txqueues[%zu].monitor", i),
                     "the file's monitors send %" PRIu64 " probe frames a second, above tbsd's budget of %d "
                     "for all monitors (fewer frames, a longer interval_ms or fewer monitored queues)",
                     total, TBS_MONITOR_MAX_PROBES_PER_S);
}

int schedule_verify(const Schedule *s, const DeviceFacts *facts, DiagList *diags) {
        Verifier v = { .file = s->source, .diags = diags };
        size_t errors = diag_errors(diags);
        _cleanup_(stream_schedule_done) StreamSchedule computed = {};
        Schedule with;

        if (schedule_streams_pending(s) && verify_pending_streams(&v, s, facts, &computed) > 0) {
                with = *s;
                root_set_gate_list(&with.root, computed.entries, computed.n_entries, (int64_t) computed.cycle_ns);
                s = &with;
        }

        verify_ifname(&v, s);
        verify_root(&v, s, facts);
        verify_txqueues(&v, s, facts);
        for (TxqKind k = 0; k < _TXQ_KIND_MAX; k++)
                if (qdisc_vtable_for_child(k)->verify_schedule)
                        qdisc_vtable_for_child(k)->verify_schedule(&v, s, facts);
        verify_monitor_budget(&v, s);
        verify_clock(&v, &s->clock);
        verify_mac_merge(&v, s, errors);
        verify_mac_merge_device(&v, s, facts);
        /* The safety checks judge a schedule the kernel would take: on one
         * with errors already their findings would be noise. */
        if (diag_errors(diags) == errors && schedule_safety_check_now(s, facts, diags, NULL) < 0)
                v.oom = true;

        if (v.oom)
                return -ENOMEM;
        return diag_errors(diags) > errors ? -EINVAL : 0;
}

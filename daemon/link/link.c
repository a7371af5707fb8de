/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link's lifecycle and state: creation, the schedule it holds, its state
 * and StateReason (from the apply, drift and the clock), and what it
 * reports through its context. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps-cache.h"
#include "json-util.h"
#include "link-internal.h"
#include "log.h"
#include "qdisc-kind.h"
#include "qdisc-plan.h"
#include "schedule-json.h"
#include "schedule-streams.h"
#include "stream-state.h"
#include "string-table.h"
#include "utf8.h"

static const char *const link_state_table[_LINK_STATE_MAX] = {
        [LINK_STATE_PENDING] = "pending",
        [LINK_STATE_CONFIGURED] = "configured",
        [LINK_STATE_DEGRADED] = "degraded",
        [LINK_STATE_FAILED] = "failed",
        [LINK_STATE_ABSENT] = "absent",
};

DEFINE_STRING_TABLE_TO_STRING(link_state, LinkState, link_state_table)

int link_new(const LinkContext *ctx, const char *name, Link **ret) {
        Link *l;

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->ctx = ctx;
        l->state = LINK_STATE_PENDING;
        l->rt = calloc(1, sizeof(LinkRuntime));
        l->name = strdup(name);
        l->state_reason = strdup("not applied yet");
        if (!l->rt || !l->name || !l->state_reason) {
                free(l->state_reason);
                free(l->name);
                free(l->rt);
                free(l);
                return -ENOMEM;
        }
        *ret = l;
        return 0;
}

Link *link_free(Link *l) {
        if (!l)
                return NULL;
        launch_monitors_free(l->rt->monitors);
        link_forget_gates(l);
        clock_check_free(l->rt->clock);
        caps_cache_unref(l->rt->caps);
        apply_report_done(&l->rt->last);
        link_forget_previous(l);
        sd_event_source_disable_unref(l->rt->retry);
        sd_event_source_disable_unref(l->rt->relock_timer);
        qdisc_tree_done(l->stats.sample);
        free(l->stats.sample);
        if (l->stats.prev_owned)
                free(l->stats.prev);
        free(l->rt->drift);
        free(l->rt->base_reason);
        free(l->rt);
        free(l->kept_note);
        schedule_free(l->schedule);
        free(l->schedule_file);
        free(l->state_reason);
        free(l->name);
        free(l);
        return NULL;
}

/* The properties a link reports, in the order a held change names them. */
static const char *const link_property_table[] = {
        "Index", "State", "StateReason", "ClockState", "Driver", "LaunchTimeQueues", "PhcIndex",
};

static void link_send_changed(Link *l, char **names) {
        if (l->ctx->on_properties_changed && names[0])
                l->ctx->on_properties_changed(l, names, l->ctx->bus_userdata);
}

void link_emit_changed(Link *l, const char *first, ...) {
        char *names[16];
        size_t n = 0;
        va_list ap;

        if (!l->ctx->on_properties_changed)
                return;
        va_start(ap, first);
        for (const char *p = first; p && n < ELEMENTSOF(names) - 1; p = va_arg(ap, const char *)) {
                if (l->hold_changes > 0) {
                        bool known = false;

                        for (size_t i = 0; i < ELEMENTSOF(link_property_table); i++)
                                if (strcmp(p, link_property_table[i]) == 0) {
                                        l->pending_changes |= 1u << i;
                                        known = true;
                                }
                        if (known)
                                continue;
                }
                names[n++] = (char *) p;
        }
        va_end(ap);
        names[n] = NULL;
        link_send_changed(l, names);
}

void link_hold_changes(Link *l) {
        l->hold_changes++;
}

void link_release_changes(Link *l) {
        char *names[ELEMENTSOF(link_property_table) + 1];
        size_t n = 0;

        if (l->hold_changes == 0 || --l->hold_changes > 0)
                return;
        for (size_t i = 0; i < ELEMENTSOF(link_property_table); i++)
                if (l->pending_changes & (1u << i))
                        names[n++] = (char *) link_property_table[i];
        names[n] = NULL;
        l->pending_changes = 0;
        link_send_changed(l, names);
}

void link_emit_event(Link *l, const char *kind, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;
        int r;

        if (!l->ctx->on_event)
                return;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        l->ctx->on_event(l, kind, msg, l->ctx->userdata);
}

void link_set_error(char **ret_error, const char *fmt, ...) {
        va_list ap;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
}

void link_forget_previous(Link *l) {
        schedule_free(l->rt->previous);
        l->rt->previous = NULL;
}

void link_set_ifindex(Link *l, int ifindex) {
        if (l->ifindex == ifindex)
                return;
        l->ifindex = ifindex;
        l->rt->mm_layer = MM_LAYER_UNKNOWN;
        if (l->ctx->on_ifindex_changed)
                l->ctx->on_ifindex_changed(l, l->ctx->userdata);
}

int link_lookup_ifindex(Link *l) {
        if (l->ctx->ifindex_of)
                return l->ctx->ifindex_of(l->name, l->ctx->userdata);
        return (int) caps_system_ifindex(l->ctx->sock, l->name);
}

/* The kept note (link_set_kept_note()) is appended to the reason. */
static void link_set_state_va(Link *l, const char *also, LinkState state, const char *reason_fmt, va_list ap)
        _printf_(4, 0);
static void link_set_state_va(Link *l, const char *also, LinkState state, const char *reason_fmt, va_list ap) {
        char *base = NULL, *reason = NULL;
        bool state_changed, reason_changed;
        LinkState old = l->state;

        if (vasprintf(&base, reason_fmt, ap) < 0)
                base = NULL;
        if (base) {
                if (!l->kept_note)
                        reason = strdup(base);
                else if (asprintf(&reason, "%s; %s", base, l->kept_note) < 0)
                        reason = NULL;
        }
        if (reason && !text_is_safe(reason)) {
                /* It may quote a file name: StateReason goes on the bus,
                 * which takes valid UTF-8 only, and into one-line logs. */
                char *e = text_escape(reason);

                free(reason);
                reason = e;
        }
        if (!reason) {
                free(base);
                if (also)
                        link_emit_changed(l, also, NULL);
                return;
        }
        free(l->rt->base_reason);
        l->rt->base_reason = base;

        state_changed = l->state != state;
        reason_changed = strcmp(l->state_reason, reason) != 0;
        if (!state_changed && !reason_changed) {
                free(reason);
                /* the same state after an apply: the schedule may have
                 * changed its monitors alone */
                link_update_monitors(l);
                if (also)
                        link_emit_changed(l, also, NULL);
                return;
        }
        free(l->state_reason);
        l->state_reason = reason;
        l->state = state;
        link_update_monitors(l);
        if (state_changed)
                log_link_full_errno(l->name, l->ctx->one_shot ? LOG_DEBUG : LOG_INFO, 0, "state %s: %s",
                                    link_state_to_string(state), reason);
        link_emit_changed(l, "State", "StateReason", also, NULL);
        if (l->ctx->on_state_changed)
                l->ctx->on_state_changed(l, old, l->ctx->userdata);
}

void link_set_state(Link *l, LinkState state, const char *reason_fmt, ...) {
        va_list ap;

        va_start(ap, reason_fmt);
        link_set_state_va(l, NULL, state, reason_fmt, ap);
        va_end(ap);
}

void link_set_state_also(Link *l, const char *also, LinkState state, const char *reason_fmt, ...) {
        va_list ap;

        va_start(ap, reason_fmt);
        link_set_state_va(l, also, state, reason_fmt, ap);
        va_end(ap);
}

void link_set_kept_note(Link *l, const char *note) {
        char *n = NULL;

        if (!note && !l->kept_note)
                return;
        if (note && l->kept_note && strcmp(note, l->kept_note) == 0)
                return;
        if (note && !(n = strdup(note)))
                return;
        free(l->kept_note);
        l->kept_note = n;
        link_set_state(l, l->state, "%s", l->rt->base_reason ?: l->state_reason);
}

int link_note_refused(Link *l, const char *file, const char *refusal, const char *why) {
        _cleanup_free_ char *note = NULL;
        int r;

        if (file && l->schedule_file && strcmp(file, l->schedule_file) == 0)
                r = asprintf(&note, "the new version of %s %s (%s); the previous version stays in force", file,
                             refusal, why);
        else
                r = asprintf(&note, "%s %s (%s); the schedule of %s stays in force", file ?: "its file", refusal,
                             why, l->schedule_file ?: "the previous file");
        if (r < 0)
                return -ENOMEM;
        link_set_kept_note(l, note);
        link_emit_event(l, "failed", "%s", note);
        return 0;
}

bool link_keep_previous(Link *l, const char *refusal, const char *why) {
        _cleanup_free_ char *refused = NULL;
        char *file;

        /* Only while its tree is in place (not after the interface went). */
        if (!l->rt->previous || !l->rt->applied)
                return false;
        /* The file of the version in force (the same path unless the file
         * was renamed meanwhile). */
        file = l->rt->previous->source ? strdup(l->rt->previous->source) : NULL;
        if (file) {
                refused = l->schedule_file;
                l->schedule_file = file;
        } else
                refused = l->schedule_file ? strdup(l->schedule_file) : NULL;
        schedule_free(l->schedule);
        l->schedule = TAKE_PTR(l->rt->previous);
        (void) link_note_refused(l, refused, refusal, why);
        return true;
}

static char *canonical_text(const Schedule *s) {
        struct json_object *o;
        char *t;

        o = schedule_to_json(s);
        if (!o)
                return NULL;
        t = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return t;
}

/* Whether two schedules install the same thing: their canonical JSON texts
 * are equal. Built afresh each time rather than kept per link: with
 * hundreds of links the kept texts were the largest part of the heap.
 * Returns 1 when they differ, 0 when not, -ENOMEM. */
static int schedule_differs(const Schedule *a, const Schedule *b) {
        _cleanup_free_ char *ta = NULL, *tb = NULL;

        ta = canonical_text(a);
        tb = canonical_text(b);
        if (!ta || !tb)
                return -ENOMEM;
        return strcmp(ta, tb) != 0;
}

int link_set_schedule(Link *l, const char *file, Schedule *s, const DiagList *errors) {
        char *f = NULL;
        int changed = 1;

        if (file && !(f = strdup(file))) {
                schedule_free(s);
                return -ENOMEM;
        }
        if (s && l->ctx->state_dir) {
                _cleanup_free_ char *why = NULL;
                int k = stream_state_merge(l->ctx->state_dir, s, &why);

                if (k == -ENOMEM) {
                        free(f);
                        schedule_free(s);
                        return k;
                }
                if (k < 0)
                        log_link_warning(l->name, "the streams added over the bus are left out: %s",
                                         why ?: strerror(-k));
        }
        if (s && l->schedule)
                changed = schedule_differs(s, l->schedule);
        if (changed < 0) {
                free(f);
                schedule_free(s);
                return changed;
        }

        free(l->schedule_file);
        l->schedule_file = f;
        if (changed && l->schedule && l->rt->applied && !l->rt->previous)
                /* The old schedule's tree stays installed until the new
                 * one is: kept, to put back if the new one is refused. */
                l->rt->previous = TAKE_PTR(l->schedule);
        schedule_free(l->schedule);
        l->schedule = s;
        link_resolve_streams(l);
        return changed;
}

void link_resolve_streams(Link *l) {
        _cleanup_free_ char *why = NULL;

        if (!l->schedule || l->schedule->streams.n == 0)
                return;
        /* A failure leaves no entries; device_verify() reports it, with
         * the same line, before anything is applied. */
        (void) schedule_resolve_streams(l->schedule, l->rt->caps ? l->rt->facts.link_speed_mbps : 0, &why);
}

static bool clock_degrades(ClockState s) {
        return s == CLOCK_STATE_UNSYNCED || s == CLOCK_STATE_NO_PTP4L;
}

void link_update_installed_state_also(Link *l, const char *also) {
        const ClockStatus *st;

        if (!l->rt->applied) {
                link_end_ptp_relock(l);         /* nothing installed: nothing to wait for */
                if (also)
                        link_emit_changed(l, also, NULL);
                return;
        }
        if (l->rt->drift) {
                link_set_state_also(l, also, LINK_STATE_DEGRADED, "drift: %s", l->rt->drift);
                return;
        }
        if (!l->rt->clock) {
                l->rt->relock = (PtpRelock) {};
                link_set_state_also(l, also, LINK_STATE_CONFIGURED, "schedule installed");
                return;
        }
        st = clock_check_status(l->rt->clock);
        switch (ptp_relock_judge(&l->rt->relock, st, now_usec(CLOCK_REALTIME))) {
        case RELOCK_WAIT:
                link_set_state_also(l, also, LINK_STATE_PENDING,
                                    "waiting for PTP to lock again: the apply switched on an offload and %s resets "
                                    "the link for it (at most %llu s)%s%s",
                                    l->rt->caps && l->rt->caps->driver[0] ? l->rt->caps->driver : "the driver",
                                    (unsigned long long) (TBS_PTP_RELOCK_TIMEOUT_USEC / USEC_PER_SEC),
                                    st->checked_at_usec > 0 ? "; clock " : "",
                                    st->checked_at_usec > 0 ? clock_state_to_string(st->state) : "");
                return;
        case RELOCK_LOCKED:
                l->rt->relock_timer = sd_event_source_disable_unref(l->rt->relock_timer);
                link_emit_event(l, "clock", "PTP locked again after the NIC reset");
                break;
        case RELOCK_TIMEOUT:
                l->rt->relock_timer = sd_event_source_disable_unref(l->rt->relock_timer);
                link_emit_event(l, "clock", "PTP did not lock again within %llu s of the NIC reset",
                                (unsigned long long) (TBS_PTP_RELOCK_TIMEOUT_USEC / USEC_PER_SEC));
                break;
        default:
                break;
        }
        if (st->checked_at_usec > 0 && clock_degrades(st->state))
                link_set_state_also(l, also, LINK_STATE_DEGRADED, "clock %s: %s%s", clock_state_to_string(st->state),
                                    st->reason, l->rt->relock.timed_out ? " (since the NIC reset)" : "");
        else
                link_set_state_also(l, also, LINK_STATE_CONFIGURED, "schedule installed%s%s%s",
                                    st->checked_at_usec > 0 ? "; clock " : "",
                                    st->checked_at_usec > 0 ? clock_state_to_string(st->state) : "",
                                    l->rt->relock.timed_out ? "; PTP has not locked since the NIC reset" : "");
}

void link_end_ptp_relock(Link *l) {
        l->rt->relock = (PtpRelock) {};
        l->rt->relock_timer = sd_event_source_disable_unref(l->rt->relock_timer);
}

/* The clock as the link shows it: the running check's status, or what
 * stands in for one: "not-configured" only when the schedule really has no
 * clock section; a declared clock that nobody checks (the schedule is not
 * installed: failed, pending after Remove(), absent) is "unsynced" with the
 * reason, as before a first check. */
const ClockStatus *link_clock_status(Link *l, ClockStatus *buf) {
        if (l->rt->clock)
                return clock_check_status(l->rt->clock);
        *buf = (ClockStatus) { .phc_offset_method = _PHC_OFFSET_METHOD_INVALID };
        if (!l->schedule || !l->schedule->clock.configured) {
                buf->state = CLOCK_STATE_NOT_CONFIGURED;
                snprintf(buf->reason, sizeof(buf->reason), "%s",
                         l->schedule ? "the schedule has no clock section" : "no valid schedule");
        } else if (l->rt->applied) {
                buf->state = CLOCK_STATE_UNSYNCED;
                snprintf(buf->reason, sizeof(buf->reason), "not checked: the clock check could not start");
        } else {
                buf->state = CLOCK_STATE_UNSYNCED;
                snprintf(buf->reason, sizeof(buf->reason), "not checked while the schedule is not installed (%s)",
                         link_state_to_string(l->state));
        }
        return buf;
}

const char *link_clock_state(Link *l) {
        ClockStatus buf;

        return clock_state_to_string(link_clock_status(l, &buf)->state);
}

const char *link_driver(Link *l) {
        return l->rt->caps ? l->rt->caps->driver : "";
}

uint32_t link_probed_speed_mbps(Link *l) {
        return l->rt->caps ? l->rt->facts.link_speed_mbps : 0;
}

uint64_t link_launch_time_mask(Link *l) {
        return l->rt->caps ? l->rt->caps->launch_time_mask : 0;
}

const LinkCaps *link_caps(Link *l) {
        return l->rt->caps;
}

const char *link_tree_missing(Link *l) {
        if (!l->schedule)
                return "its schedule file is invalid";
        if (l->ifindex <= 0 || l->state == LINK_STATE_ABSENT)
                return "the interface does not exist";
        if (!link_is_installed(l))
                return l->state == LINK_STATE_FAILED ? "its schedule could not be installed"
                                                     : "its schedule is not installed";
        if (l->rt->drift)
                return "its tree was changed outside tbsd (drift policy report)";
        return NULL;
}

int link_phc_index(Link *l) {
        return l->rt->caps ? l->rt->caps->phc_index : -1;
}

const QueueApplyResult *link_last_result(Link *l, uint32_t queue) {
        for (size_t i = 0; i < l->rt->last.n_queues; i++)
                if (l->rt->last.queues[i].queue == queue)
                        return &l->rt->last.queues[i];
        return NULL;
}

unsigned link_tx_queues(const Link *l) {
        return l->ifindex > 0 && l->rt->caps ? l->rt->caps->tx_queues : 0;
}

/* A root without classes (a single etf, or a cbs with an etf under it):
 * every frame passes that etf whatever its priority, so queue 0 and
 * priority 0; the offload is the one the apply resolves for the root
 * (plan_resolve_leaf()) with the link's facts. */
static int leaf_txtime_params(Link *l, uint32_t queue, uint32_t *ret_priority, int32_t *ret_clockid,
                              bool *ret_deadline, int32_t *ret_delta, bool *ret_offload) {
        EtfSpec e = l->schedule->root.leaf;
        const EtfOptions *etf = etf_spec_etf(&e);

        if (queue != 0)
                return -ERANGE;
        if (!etf)      /* a cbs root without an etf takes no launch times */
                return -ENOENT;
        plan_resolve_leaf_offload(&e, l->rt->caps ? &l->rt->facts : NULL);
        *ret_priority = 0;
        *ret_clockid = (int32_t) etf->clockid;
        *ret_deadline = etf->deadline_mode;
        *ret_delta = etf->delta_ns;
        *ret_offload = (e.etf_child ? e.child_offload : e.offload) == OFFLOAD_ON;
        return 0;
}

int link_txtime_params(Link *l, uint32_t queue, uint32_t *ret_priority, int32_t *ret_clockid,
                       bool *ret_deadline, int32_t *ret_delta, bool *ret_offload) {
        const QueueApplyResult *res;
        const EtfOptions *etf;
        const EtfSpec *e;
        int tc;

        if (!l->schedule)
                return -ENOENT;
        if (root_is_leaf(&l->schedule->root))
                return leaf_txtime_params(l, queue, ret_priority, ret_clockid, ret_deadline, ret_delta,
                                          ret_offload);
        e = schedule_find_txqueue(l->schedule, queue);
        etf = e ? etf_spec_etf(e) : NULL;
        if (!etf)   /* a cbs queue without an etf takes no launch times */
                return -ENOENT;
        tc = root_send_tc_of_queue(&l->schedule->root, queue);
        if (tc < 0)
                return -ENODATA;
        /* The lowest priority the map sends to the queue's traffic class
         * (of a queue that serves several classes, the one a sender uses:
         * root_send_tc_of_queue()). mqprio/taprio look at skb->priority &
         * 15; a class with several queues spreads its flows over them by
         * hash. */
        for (uint32_t p = 0; p < TBS_PRIO_MAP_LEN; p++)
                if (l->schedule->root.priority_map[p] == tc) {
                        res = link_last_result(l, queue);
                        *ret_priority = p;
                        *ret_clockid = (int32_t) etf->clockid;
                        *ret_deadline = etf->deadline_mode;
                        *ret_delta = etf->delta_ns;
                        /* a cbs's etf: its own offload (the result is the cbs's) */
                        *ret_offload = e->etf_child ? e->child_offload == OFFLOAD_ON :
                                       res ? res->offload : false;
                        return 0;
                }
        return -ENODATA;
}

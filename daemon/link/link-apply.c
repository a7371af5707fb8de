/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Installing a link's schedule: find the interface, probe it, check the
 * schedule against it, hand it to the netlink engine (alone or batched
 * with other links), take the outcome (state, events, clock check, retry
 * timer); and removing tbsd's tree again. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "caps-cache.h"
#include "device-check.h"
#include "link-internal.h"
#include "log.h"
#include "nl-qdisc.h"
#include "qdisc-kind.h"
#include "schedule-streams.h"

#define RETRY_FIRST_USEC (1000 * 1000ULL)
#define RETRY_MAX_USEC (60 * 1000 * 1000ULL)

/* Failures worth another try later: the device was busy, went away midway
 * or the kernel was short of memory. A refused configuration is not. */
static bool error_may_pass(int r) {
        return r == -EBUSY || r == -EAGAIN || r == -ENOBUFS || r == -ENOMEM || r == -ENETDOWN ||
               r == -ETIMEDOUT || r == -EINTR;
}

/* Every check whose state or reason changed: the link's StateReason quotes
 * the clock's reason, so it follows at once, in the same signal as
 * ClockState when that changed too. */
static void on_clock_changed(ClockCheck *cc, ClockState old_state, const ClockStatus *status, void *userdata) {
        Link *l = userdata;
        bool state_changed = old_state != status->state;

        if (state_changed && old_state != _CLOCK_STATE_INVALID)
                link_emit_event(l, "clock", "%s -> %s: %s", clock_state_to_string(old_state),
                                clock_state_to_string(status->state), status->reason);
        link_update_installed_state_also(l, state_changed ? "ClockState" : NULL);
}

static int link_start_clock(Link *l) {
        int phc = l->rt->caps ? l->rt->caps->phc_index : -1;
        int r;

        l->rt->clock = clock_check_free(l->rt->clock);
        if (!l->schedule->clock.configured || l->ctx->one_shot)
                return 0;
        r = clock_check_new(l->ctx->event, l->name, &l->schedule->clock, phc, on_clock_changed, l, &l->rt->clock);
        if (r < 0)
                return log_link_warning_errno(l->name, r, "cannot start the clock check: %m");
        r = clock_check_start(l->rt->clock, l->ctx->clock_interval_usec);
        if (r < 0)
                return log_link_warning_errno(l->name, r, "cannot start the clock check: %m");
        return 0;
}

static void link_probe(Link *l) {
        const LinkCaps *c;
        _cleanup_free_ char *old_driver = NULL;
        uint64_t old_mask = link_launch_time_mask(l);
        int old_phc = link_phc_index(l), r;

        r = caps_cache_get(l->ctx->caps, l->ifindex, l->name, &c);
        if (r < 0) {
                log_link_debug_errno(l->name, r, "capability probe failed: %m");
                l->rt->caps = caps_cache_unref(l->rt->caps);
                l->rt->facts = (DeviceFacts) {};
                return;
        }
        old_driver = strdup(link_driver(l));
        c = caps_cache_ref(c);
        if (c != l->rt->caps)
                l->rt->mm_layer = MM_LAYER_UNKNOWN;     /* asked again where needed */
        caps_cache_unref(l->rt->caps);
        l->rt->caps = c;
        caps_to_device_facts(l->rt->caps, &l->rt->facts);
        /* The properties the probe gives, each reported only when it changed
         * (a monitor must not see "Driver=veth" on every apply). */
        if (!old_driver || strcmp(old_driver, link_driver(l)) != 0)
                link_emit_changed(l, "Driver", NULL);
        if (old_mask != link_launch_time_mask(l))
                link_emit_changed(l, "LaunchTimeQueues", NULL);
        if (old_phc != link_phc_index(l))
                link_emit_changed(l, "PhcIndex", NULL);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Link *l = userdata;

        log_link_info(l->name, "retrying the apply (attempt %u)", l->rt->retries + 1);
        (void) link_apply(l, NULL);
        return 0;
}

/* Exponential backoff: 1 s, 2 s, 4 s, ... 60 s. */
void link_schedule_retry(Link *l) {
        uint64_t delay = RETRY_FIRST_USEC << (l->rt->retries < 6 ? l->rt->retries : 6), now;
        int r;

        if (l->ctx->one_shot || !l->ctx->event)
                return;
        if (delay > RETRY_MAX_USEC)
                delay = RETRY_MAX_USEC;
        l->rt->retries++;
        if (sd_event_now(l->ctx->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        l->rt->retry = sd_event_source_disable_unref(l->rt->retry);
        r = sd_event_add_time(l->ctx->event, &l->rt->retry, CLOCK_MONOTONIC, now + delay, 0, on_retry, l);
        if (r < 0)
                log_link_warning_errno(l->name, r, "cannot schedule a retry: %m");
        else
                log_link_info(l->name, "will retry in %llu s", (unsigned long long) (delay / 1000000));
}

static int on_relock_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        Link *l = userdata;

        l->rt->relock_timer = sd_event_source_disable_unref(l->rt->relock_timer);
        link_hold_changes(l);
        link_update_installed_state(l);
        link_release_changes(l);
        return 0;
}

void link_begin_ptp_relock(Link *l) {
        int r;

        ptp_relock_begin(&l->rt->relock, now_usec(CLOCK_REALTIME));
        log_link_info(l->name, "%s resets the link when an offload is switched on: waiting for PTP to lock again",
                      l->rt->caps && l->rt->caps->driver[0] ? l->rt->caps->driver : "the driver");
        l->rt->relock_timer = sd_event_source_disable_unref(l->rt->relock_timer);
        if (!l->ctx->event)
                return;
        /* One microsecond past the bound, so that the judgement sees it passed. */
        r = sd_event_add_time_relative(l->ctx->event, &l->rt->relock_timer, CLOCK_REALTIME,
                                       TBS_PTP_RELOCK_TIMEOUT_USEC + 1, 0, on_relock_timeout, l);
        if (r < 0)
                log_link_warning_errno(l->name, r, "cannot bound the wait for PTP: %m");
}

bool link_retry_pending(Link *l) {
        int enabled = SD_EVENT_OFF;

        if (l->rt->retry)
                (void) sd_event_source_get_enabled(l->rt->retry, &enabled);
        return enabled != SD_EVENT_OFF;
}

/* The end of every apply: tell the context (tbsd --once prints it), hand
 * the reason on. Takes error over. Returns r. */
static int apply_end(Link *l, int r, char *error, const ApplyReport *report, char **ret_error) {
        if (l->ctx->on_applied)
                l->ctx->on_applied(l, r, error, report, l->ctx->applied_userdata);
        if (ret_error)
                *ret_error = error;
        else
                free(error);
        return r;
}

/* When the streams added over the bus are what makes s not fit the
 * device (s without them passes device_verify()): "; the cause is the N
 * stream(s) added over the bus (AddStream: NAMES): the file's own streams
 * fit", else NULL (also without memory). */
static char *bus_streams_cause(const Schedule *s, const LinkCaps *caps) {
        _cleanup_schedule_ Schedule *alone = NULL;
        _cleanup_free_ char *names = NULL;
        DiagList diags = {};
        size_t n_bus = 0, k = 0;
        char *t = NULL;
        int r;

        for (size_t i = 0; i < s->streams.n; i++) {
                const StreamSpec *st = &s->streams.items[i];

                if (!st->from_bus)
                        continue;
                n_bus++;
                if (asprintf(&t, "%s%s%s", names ?: "", names ? ", " : "", st->name) < 0)
                        return NULL;
                free(names);
                names = t;
        }
        if (n_bus == 0 || n_bus == s->streams.n || schedule_copy(s, &alone) < 0)
                return NULL;
        for (size_t i = 0; i < alone->streams.n; i++) {
                StreamSpec *st = &alone->streams.items[i];

                if (st->from_bus)
                        free(st->name);
                else
                        alone->streams.items[k++] = *st;
        }
        alone->streams.n = k;
        /* The gate list is computed again, without them. */
        alone->streams.resolved_speed_mbps = 0;
        root_drop_gate_list(&alone->root);
        r = device_verify(alone, caps, &diags);
        diag_list_clear(&diags);
        if (r < 0)
                return NULL;
        if (asprintf(&t, "; the cause is the %zu stream%s added over the bus (AddStream: %s): the file's own "
                     "streams fit", n_bus, n_bus == 1 ? "" : "s", names) < 0)
                return NULL;
        return t;
}

/* The device check refused l's schedule: diags holds why. The first error
 * as "FILE: PATH: REASON" in *ret_line, and as "PATH: REASON" in *ret_why,
 * each followed by what bus_streams_cause() says. Returns 0 or -ENOMEM. */
static int device_refusal(Link *l, const DiagList *diags, char **ret_line, char **ret_why) {
        _cleanup_free_ char *line = NULL, *why = NULL, *cause = NULL;

        for (size_t i = 0; i < diags->n; i++) {
                const Diag *e = &diags->items[i];

                if (e->severity != DIAG_ERROR)
                        continue;
                line = diag_format(e);
                if (!line || asprintf(&why, "%s%s%s", e->path ?: "", e->path ? ": " : "", e->reason) < 0)
                        return -ENOMEM;
                break;
        }
        cause = bus_streams_cause(l->schedule, l->rt->caps);
        if (asprintf(ret_line, "%s%s", line ?: "schedule does not fit the device", cause ?: "") < 0)
                return -ENOMEM;
        if (asprintf(ret_why, "%s%s", why ?: "it does not fit the device", cause ?: "") < 0) {
                *ret_line = mfree(*ret_line);
                return -ENOMEM;
        }
        return 0;
}

/* A schedule refused before anything was sent (the device check, the
 * MAC merge layer): line for the state and *ret_error, why for the kept
 * note. A new version refused while the previous one's tree is in place:
 * that one stays in force and served. */
static void refused_before_engine(Link *l, const char *line, const char *why, char **ret_error) {
        l->counters.apply_failures++;
        if (!link_keep_previous(l, "is refused", why)) {
                link_set_state(l, LINK_STATE_FAILED, "%s", line);
                link_emit_event(l, "failed", "%s", l->state_reason);
        }
        link_set_error(ret_error, "%s", line);
}

/* What comes before the engine: the interface's index, the probe, the
 * checks that need the device. Returns 0 when the link may go to the
 * engine, else its result (state, events and *ret_error taken care of). */
static int apply_prepare(Link *l, char **ret_error) {
        _cleanup_free_ char *mm_line = NULL, *guard_line = NULL;
        DiagList diags = {};
        int ifindex, r;

        if (!l->schedule) {
                link_set_error(ret_error, "%s", l->state_reason);
                return -EINVAL;
        }
        ifindex = link_lookup_ifindex(l);
        if (ifindex <= 0) {
                if (l->ifindex != 0 || l->state != LINK_STATE_ABSENT)
                        link_emit_event(l, "absent", "interface %s does not exist", l->name);
                link_set_ifindex(l, 0);
                l->rt->applied = false;
                link_end_ptp_relock(l);
                link_emit_changed(l, "Index", NULL);
                link_set_state(l, LINK_STATE_ABSENT, "interface %s does not exist; waiting for it", l->name);
                link_set_error(ret_error, "interface %s does not exist", l->name);
                return -ENODEV;
        }
        if (ifindex != l->ifindex) {
                link_set_ifindex(l, ifindex);
                link_emit_changed(l, "Index", NULL);
        }
        link_probe(l);

        /* Checks that need the device: queue ranges, offload on queues
         * without launch time, the link's rate. Nothing is changed when
         * they fail. The same function makes them for tbsd --check and
         * tbsctl validate --device. */
        l->schedule->source = l->schedule->source ?: (l->schedule_file ? strdup(l->schedule_file) : NULL);
        link_resolve_streams(l);
        r = device_verify(l->schedule, l->rt->caps, &diags);
        if (r < 0) {
                _cleanup_free_ char *line = NULL, *why = NULL;

                r = device_refusal(l, &diags, &line, &why);
                diag_list_clear(&diags);
                if (r < 0)
                        return r;
                refused_before_engine(l, line, why, ret_error);
                return -EINVAL;
        }
        diag_list_clear(&diags);

        /* The MAC merge layer ("mac_merge") before the tree: read, refused
         * without one, set; put back by apply_finish() on a failure. */
        r = link_mac_merge_prepare(l, &mm_line);
        if (r < 0) {
                if (mm_line)
                        refused_before_engine(l, mm_line, mm_line, ret_error);
                return r;
        }
        /* The socket guard, also before the tree: taken back by
         * apply_finish() on a failure. */
        r = link_socket_guard_prepare(l, &guard_line);
        if (r < 0) {
                ApplyReport none = {};

                (void) link_mac_merge_finish(l, r, &none);
                apply_report_done(&none);
                if (guard_line)
                        refused_before_engine(l, guard_line, guard_line, ret_error);
                return r;
        }
        return 0;
}

static const DeviceFacts *link_facts(Link *l) {
        return l->rt->caps ? &l->rt->facts : NULL;
}

/* The engine's outcome r with its report (taken over): state, events,
 * clock check, retry. Returns r. */
static int apply_finish(Link *l, int r, ApplyReport *report, char **ret_error) {
        char *error = NULL;

        r = link_socket_guard_finish(l, r, report);
        r = link_mac_merge_finish(l, r, report);

        /* The tree may be another: the monitors read the gates again. */
        if (r != 0)
                link_forget_gates(l);

        if (r == -EAGAIN && report->n_messages == 0 && !report->rolled_back) {
                /* The kernel's dump left the interface out: nothing is known
                 * about its tree and nothing was sent. Not a failure of the
                 * schedule: the state stays, the apply is tried again. */
                if (!l->ctx->one_shot)
                        log_link_warning(l->name, "%s; trying again later", report->error ?: strerror(-r));
                link_set_error(&error, "%s", report->error ?: strerror(-r));
                link_schedule_retry(l);
                r = apply_end(l, r, error, report, ret_error);
                apply_report_done(report);
                return r;
        }
        if (r < 0 && !report->rollback_error && (report->rolled_back || report->n_messages == 0) &&
            l->rt->previous) {
                /* Refused, and the previous schedule's tree is in place
                 * again (restored, or nothing was changed): that schedule
                 * stays in force and served; a reload tries the new
                 * version again. */
                _cleanup_free_ char *why = NULL;

                l->counters.apply_failures++;
                if (asprintf(&why, "%s%s", report->error ?: strerror(-r),
                             report->n_messages > 0 ? "; previous qdiscs restored" : "") < 0)
                        why = NULL;
                (void) link_keep_previous(l, "was refused by the kernel", why ?: strerror(-r));
                link_set_error(&error, "%s", report->error ?: strerror(-r));
                r = apply_end(l, r, error, report, ret_error);
                apply_report_done(report);
                return r;
        }
        if (r < 0) {
                l->counters.apply_failures++;
                link_set_state(l, LINK_STATE_FAILED, "%s%s%s", report->error ?: strerror(-r),
                               report->rolled_back ? " (previous qdiscs restored)" : "",
                               report->rollback_error ? "; restoring failed too" : "");
                link_emit_event(l, "failed", "%s", l->state_reason);
                link_set_error(&error, "%s", report->error ?: strerror(-r));
                l->rt->applied = false;
                link_end_ptp_relock(l);
                if (error_may_pass(r))
                        link_schedule_retry(l);
                r = apply_end(l, r, error, report, ret_error);
                apply_report_done(report);
                return r;
        }
        l->counters.applies++;
        l->rt->retries = 0;
        l->removed = false;
        l->rt->drift = mfree(l->rt->drift);
        apply_report_done(&l->rt->last);
        l->rt->last = *report;
        *report = (ApplyReport) {};
        l->rt->applied = true;
        link_forget_previous(l);
        if (r > 0 && l->rt->last.root_changed_in_place)
                link_emit_event(l, "applied", "%u change(s) sent, root changed in place (schedule from base "
                                "time %" PRIi64 ")", l->rt->last.n_messages, l->rt->last.admin_base_time_ns);
        else if (r > 0)
                link_emit_event(l, "applied", "%u change(s) sent%s", l->rt->last.n_messages,
                                l->rt->last.root_replaced ? ", root replaced" : "");
        else
                log_link_debug(l->name, "unchanged");

        if (!l->rt->clock || r > 0)
                (void) link_start_clock(l);
        if (r > 0 && l->rt->clock && apply_resets_link(l->rt->caps, l->schedule, &l->rt->last))
                link_begin_ptp_relock(l);
        link_update_installed_state(l);
        return apply_end(l, r, NULL, &l->rt->last, ret_error);
}

/* ApplyJob.planned: say what happens to the root before it happens. */
static void apply_planned(const QDiscPlan *p, void *userdata) {
        Link *l = userdata;

        if (p->root_change == PLAN_RECREATE_ROOT)
                log_link_notice(l->name, "requires re-creating the root: %s (its children are re-created, "
                                "packets queued in them are dropped)", p->root_why);
        else if (p->root_change == PLAN_CHANGE_ROOT_IN_PLACE)
                log_link_info(l->name, "changing the gate schedule in place: the new schedule starts at "
                              "base time %" PRIi64, p->base_time_ns);
}

int link_apply(Link *l, char **ret_error) {
        return link_apply_from(l, NULL, ret_error);
}

int link_apply_from(Link *l, const QDiscTreeSet *set, char **ret_error) {
        ApplyReport report = {};
        char *error = NULL;
        int r;

        /* What the apply changes is reported at its end, in one signal. */
        link_hold_changes(l);
        r = apply_prepare(l, &error);
        if (r < 0) {
                r = apply_end(l, r, error, NULL, ret_error);
                link_release_changes(l);
                return r;
        }
        /* Without a tree from the set the interface is dumped first. */
        (void) nl_qdisc_apply_many(l->ctx->nl, &(ApplyJob) {
                        .ifindex = l->ifindex,
                        .schedule = l->schedule,
                        .facts = link_facts(l),
                        .tree = set ? qdisc_tree_set_find(set, l->ifindex) : NULL,
                        .planned = apply_planned,
                        .userdata = l,
                }, 1, &report, &r);
        r = apply_finish(l, r, &report, ret_error);
        link_release_changes(l);
        return r;
}

int links_apply(Link **links, size_t n, const QDiscTreeSet *set, int *ret_results, char **ret_errors) {
        _cleanup_free_ ApplyJob *jobs = NULL;
        _cleanup_free_ size_t *link_of = NULL;
        _cleanup_free_ int *results = NULL;
        ApplyReport *reports = NULL;
        size_t n_jobs = 0;
        int n_ok = 0;

        if (n == 0)
                return 0;
        jobs = calloc(n, sizeof(ApplyJob));
        link_of = calloc(n, sizeof(size_t));
        results = calloc(n, sizeof(int));
        reports = calloc(n, sizeof(ApplyReport));
        if (!set || !jobs || !link_of || !results || !reports) {
                /* Without a shared dump (or memory for a batch): one by one. */
                free(reports);
                for (size_t i = 0; i < n; i++) {
                        int r = link_apply_from(links[i], set, ret_errors ? &ret_errors[i] : NULL);

                        if (ret_results)
                                ret_results[i] = r;
                        n_ok += r >= 0;
                }
                return n_ok;
        }

        for (size_t i = 0; i < n; i++) {
                Link *l = links[i];
                char *error = NULL;
                int r;

                link_hold_changes(l);
                r = apply_prepare(l, &error);
                if (r < 0) {
                        r = apply_end(l, r, error, NULL, ret_errors ? &ret_errors[i] : NULL);
                        link_release_changes(l);
                        if (ret_results)
                                ret_results[i] = r;
                        continue;
                }
                jobs[n_jobs] = (ApplyJob) {
                        .ifindex = l->ifindex,
                        .schedule = l->schedule,
                        .facts = link_facts(l),
                        /* NULL when the dump had none: dumped again and judged */
                        .tree = qdisc_tree_set_find(set, l->ifindex),
                        .planned = apply_planned,
                        .userdata = l,
                };
                link_of[n_jobs++] = i;
        }
        if (n_jobs > 0)
                (void) nl_qdisc_apply_many(links[0]->ctx->nl, jobs, n_jobs, reports, results);
        for (size_t j = 0; j < n_jobs; j++) {
                int r = apply_finish(links[link_of[j]], results[j], &reports[j],
                                     ret_errors ? &ret_errors[link_of[j]] : NULL);

                link_release_changes(links[link_of[j]]);
                if (ret_results)
                        ret_results[link_of[j]] = r;
                n_ok += r >= 0;
        }
        free(reports);
        return n_ok;
}

int link_remove_qdiscs(Link *l, char **ret_error) {
        return link_remove_qdiscs_from(l, NULL, ret_error);
}

void link_own_roots(Link *l, const RootSpec *ret[static 2]) {
        ret[0] = l->schedule ? &l->schedule->root : NULL;
        ret[1] = l->rt->previous ? &l->rt->previous->root : NULL;
}

int link_remove_qdiscs_from(Link *l, const QDiscTreeSet *set, char **ret_error) {
        _cleanup_free_ char *err = NULL;
        const RootSpec *ours[2];
        int ifindex, r;

        link_own_roots(l, ours);
        ifindex = link_lookup_ifindex(l);
        if (ifindex <= 0) {
                link_set_error(ret_error, "interface %s does not exist", l->name);
                return -ENODEV;
        }
        r = nl_qdisc_remove_from(l->ctx->nl, ifindex, set ? qdisc_tree_set_find(set, ifindex) : NULL, ours,
                                 ELEMENTSOF(ours), l->rt->caps ? &l->rt->facts : NULL, &err);
        if (r < 0 && r != -EEXIST) {
                link_set_error(ret_error, "removing the root qdisc failed: %s", err ?: strerror(-r));
                return r;
        }
        /* The guard goes with the tree (a failure to is logged). */
        (void) link_socket_guard_remove(l, ifindex);
        link_hold_changes(l);   /* ClockState with State and StateReason */
        l->rt->applied = false;
        link_end_ptp_relock(l);
        l->removed = true;
        l->rt->drift = mfree(l->rt->drift);
        l->rt->clock = clock_check_free(l->rt->clock);
        link_forget_previous(l);
        link_emit_changed(l, "ClockState", NULL);
        if (r == -EEXIST) {
                /* Nothing of tbsd's is installed: the link is set aside all
                 * the same, and the administrator's tree stays. */
                link_set_state(l, LINK_STATE_PENDING, "%s, left in place; 'tbsctl apply %s' or a reload installs "
                               "the schedule over it", err ?: "the root qdisc is not tbsd's", l->name);
                link_emit_event(l, "foreign", "%s, left in place", err ?: "the root qdisc is not tbsd's");
                link_set_error(ret_error, "%s, left in place", err ?: "the root qdisc is not tbsd's");
                link_release_changes(l);
                return r;
        }
        link_set_state(l, LINK_STATE_PENDING, "qdiscs removed; 'tbsctl apply %s' or a reload installs them again",
                       l->name);
        link_release_changes(l);
        link_emit_event(l, "removed", "%s",
                        r > 0 ? "default root qdisc restored" : "nothing installed, default root in place");
        return r;
}

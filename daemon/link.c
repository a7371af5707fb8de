/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-manager.h"
#include "caps-cache.h"
#include "clock-check.h"
#include "device-check.h"
#include "drift.h"
#include "caps-probe.h"
#include "json-util.h"
#include "link.h"
#include "log.h"
#include "manager.h"
#include "nl-qdisc.h"
#include "qdisc-owner.h"
#include "schedule-json.h"
#include "schedule-verify.h"
#include "utf8.h"

/* What a rate needs of one TX queue's qdisc in the previous sample (48
 * bytes where the InstalledQueue it comes from has 144). */
struct QueueCounters {
        uint32_t queue;
        uint32_t handle;
        uint32_t kind_hash;             /* kind_hash() of the qdisc's kind */
        uint32_t drops;                 /* as QDiscStats: a rate wraps with the kernel's counter */
        uint64_t packets;
        uint64_t bytes;
        uint64_t deadline_misses;
        uint64_t invalid;
};

/* FNV-1a of a qdisc kind: with the handle, what tells a rate that the
 * queue still has the qdisc of the previous sample (a qdisc created anew
 * starts its counters again). 4 bytes where the name takes 16. */
static uint32_t kind_hash(const char *kind) {
        uint32_t h = 2166136261u;

        for (const unsigned char *p = (const unsigned char *) kind; *p; p++)
                h = (h ^ *p) * 16777619u;
        return h;
}

struct LinkRuntime {
        const LinkCaps *caps;           /* the last probe's result (shared with the cache), or NULL */
        DeviceFacts facts;
        ClockCheck *clock;
        ApplyReport last;               /* of the last successful apply */
        bool applied;
        /* The root tbsd installed when it is not the schedule's: the
         * previous schedule's, kept when a new one replaced it and has not
         * been installed yet. Still tbsd's to remove (qdisc-owner.h). NULL
         * when the tree, if any, is the schedule's (nearly always). */
        RootSpec *installed_root;
        char *drift;                    /* the drift being reported (policy "report"), or NULL */
        char *base_reason;              /* StateReason as last set, without the kept note */
        sd_event_source *retry;         /* re-apply after a failure that may pass */
        unsigned retries;

        /* The last statistics sample (manager_sample_stats), allocated at
         * the first; of the one before it only the counters rates need. */
        QDiscTree *sample;
        QueueCounters *prev;            /* owned, or in links_drop_samples()'s block when !prev_owned */
        size_t n_prev;
        bool prev_owned;
        uint64_t sample_usec, prev_usec;        /* CLOCK_MONOTONIC; 0: none */
        uint64_t sample_realtime_usec;
};

/* Failures worth another try later: the device was busy, went away midway
 * or the kernel was short of memory. A refused configuration is not. */
static bool error_may_pass(int r) {
        return r == -EBUSY || r == -EAGAIN || r == -ENOBUFS || r == -ENOMEM || r == -ENETDOWN ||
               r == -ETIMEDOUT || r == -EINTR;
}

static void forget_installed_root(Link *l) {
        if (!l->rt->installed_root)
                return;
        root_spec_done(l->rt->installed_root);
        l->rt->installed_root = mfree(l->rt->installed_root);
}

#define RETRY_FIRST_USEC (1000 * 1000ULL)
#define RETRY_MAX_USEC (60 * 1000 * 1000ULL)

static const char *const link_state_table[_LINK_STATE_MAX] = {
        [LINK_STATE_PENDING] = "pending",
        [LINK_STATE_CONFIGURED] = "configured",
        [LINK_STATE_DEGRADED] = "degraded",
        [LINK_STATE_FAILED] = "failed",
        [LINK_STATE_ABSENT] = "absent",
};

const char *link_state_to_string(LinkState s) {
        if (s < 0 || s >= _LINK_STATE_MAX)
                return NULL;
        return link_state_table[s];
}

int link_new(Manager *m, const char *name, Link **ret) {
        Link *l;
        int r;

        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->manager = m;
        l->state = LINK_STATE_PENDING;
        l->rt = calloc(1, sizeof(LinkRuntime));
        l->name = strdup(name);
        l->state_reason = strdup("not applied yet");
        if (!l->rt || !l->name || !l->state_reason) {
                r = -ENOMEM;
                goto fail;
        }
        r = link_object_path(name, &l->object_path);
        if (r < 0)
                goto fail;
        r = manager_add_link(m, l);
        if (r < 0)
                goto fail;
        link_bus_added(l);
        *ret = l;
        return 0;
fail:
        free(l->object_path);
        free(l->state_reason);
        free(l->name);
        free(l->rt);
        free(l);
        return r;
}

void link_free(Link *l) {
        if (!l)
                return;
        link_bus_removed(l);
        manager_drop_link(l->manager, l);
        clock_check_free(l->rt->clock);
        caps_cache_unref(l->rt->caps);
        apply_report_done(&l->rt->last);
        forget_installed_root(l);
        sd_event_source_disable_unref(l->rt->retry);
        qdisc_tree_done(l->rt->sample);
        free(l->rt->sample);
        if (l->rt->prev_owned)
                free(l->rt->prev);
        free(l->rt->drift);
        free(l->rt->base_reason);
        free(l->rt);
        free(l->kept_note);
        schedule_free(l->schedule);
        free(l->schedule_file);
        free(l->state_reason);
        free(l->object_path);
        free(l->name);
        free(l);
}

/* link_set_state(), with also (NULL: none): another property that changed
 * with it, sent in the same PropertiesChanged signal. The kept note
 * (link_set_kept_note()) is appended to the reason. */
static void link_set_state_va(Link *l, const char *also, LinkState state, const char *reason_fmt, va_list ap)
        _printf_(4, 0);
static void link_set_state_va(Link *l, const char *also, LinkState state, const char *reason_fmt, va_list ap) {
        char *base = NULL, *reason = NULL;
        bool state_changed, reason_changed;

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
                if (also)
                        link_emit_changed(l, also, NULL);
                return;
        }
        free(l->state_reason);
        l->state_reason = reason;
        l->state = state;
        if (state_changed)
                log_link_info(l->name, "state %s: %s", link_state_to_string(state), reason);
        link_emit_changed(l, "State", "StateReason", also, NULL);
        manager_notify_status(l->manager);
}

void link_set_state(Link *l, LinkState state, const char *reason_fmt, ...) {
        va_list ap;

        va_start(ap, reason_fmt);
        link_set_state_va(l, NULL, state, reason_fmt, ap);
        va_end(ap);
}

static void link_set_state_also(Link *l, const char *also, LinkState state, const char *reason_fmt, ...)
        _printf_(4, 5);
static void link_set_state_also(Link *l, const char *also, LinkState state, const char *reason_fmt, ...) {
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
        if (s && l->schedule)
                changed = schedule_differs(s, l->schedule);
        if (changed < 0) {
                free(f);
                schedule_free(s);
                return changed;
        }

        free(l->schedule_file);
        l->schedule_file = f;
        if (changed && l->schedule && l->rt->applied && !l->rt->installed_root) {
                /* The old schedule's tree stays installed until the new
                 * one is: its root moves over (no copy). Out of memory,
                 * only the new schedule's root counts as tbsd's. */
                l->rt->installed_root = malloc(sizeof(RootSpec));
                if (l->rt->installed_root) {
                        *l->rt->installed_root = l->schedule->root;
                        l->schedule->root.entries = NULL;
                        l->schedule->root.n_entries = 0;
                }
        }
        schedule_free(l->schedule);
        l->schedule = s;
        return changed;
}

static bool clock_degrades(ClockState s) {
        return s == CLOCK_STATE_UNSYNCED || s == CLOCK_STATE_NO_PTP4L;
}

/* configured or degraded, from the clock; only for an installed schedule.
 * also: a property that changed with it (see link_set_state_va()). */
static void link_update_installed_state_also(Link *l, const char *also) {
        const ClockStatus *st;

        if (!l->rt->applied) {
                if (also)
                        link_emit_changed(l, also, NULL);
                return;
        }
        if (l->rt->drift) {
                link_set_state_also(l, also, LINK_STATE_DEGRADED, "drift: %s", l->rt->drift);
                return;
        }
        if (!l->rt->clock) {
                link_set_state_also(l, also, LINK_STATE_CONFIGURED, "schedule installed");
                return;
        }
        st = clock_check_status(l->rt->clock);
        if (st->checked_at_usec > 0 && clock_degrades(st->state))
                link_set_state_also(l, also, LINK_STATE_DEGRADED, "clock %s: %s", clock_state_to_string(st->state),
                                    st->reason);
        else
                link_set_state_also(l, also, LINK_STATE_CONFIGURED, "schedule installed%s%s",
                                    st->checked_at_usec > 0 ? "; clock " : "",
                                    st->checked_at_usec > 0 ? clock_state_to_string(st->state) : "");
}

static void link_update_installed_state(Link *l) {
        link_update_installed_state_also(l, NULL);
}

/* Every check whose state or reason changed: the link's StateReason quotes
 * the clock's reason, so it follows at once, in the same signal as
 * ClockState when that changed too. */
static void on_clock_changed(ClockCheck *cc, ClockState old_state, const ClockStatus *status, void *userdata) {
        Link *l = userdata;
        bool state_changed = old_state != status->state;

        if (state_changed && old_state != _CLOCK_STATE_INVALID)
                manager_emit_event(l->manager, l->name, "clock", "%s -> %s: %s",
                                   clock_state_to_string(old_state), clock_state_to_string(status->state),
                                   status->reason);
        link_update_installed_state_also(l, state_changed ? "ClockState" : NULL);
}

static int link_start_clock(Link *l) {
        Manager *m = l->manager;
        int phc = l->rt->caps ? l->rt->caps->phc_index : -1;
        int r;

        l->rt->clock = clock_check_free(l->rt->clock);
        if (!l->schedule->clock.configured)
                return 0;
        r = clock_check_new(m->event, l->name, &l->schedule->clock, phc, on_clock_changed, l, &l->rt->clock);
        if (r < 0)
                return log_link_warning_errno(l->name, r, "cannot start the clock check: %m");
        r = clock_check_start(l->rt->clock, m->clock_interval_usec);
        if (r < 0)
                return log_link_warning_errno(l->name, r, "cannot start the clock check: %m");
        return 0;
}

static void link_probe(Link *l) {
        const LinkCaps *c;
        int r;

        r = caps_cache_get(l->manager->caps, l->ifindex, l->name, &c);
        if (r < 0) {
                log_link_debug_errno(l->name, r, "capability probe failed: %m");
                l->rt->caps = caps_cache_unref(l->rt->caps);
                l->rt->facts = (DeviceFacts) {};
                return;
        }
        c = caps_cache_ref(c);
        caps_cache_unref(l->rt->caps);
        l->rt->caps = c;
        caps_to_device_facts(l->rt->caps, &l->rt->facts);
        link_emit_changed(l, "Driver", "LaunchTimeQueues", "PhcIndex", NULL);
}

static void set_error(char **ret_error, const char *fmt, ...) _printf_(2, 3);
static void set_error(char **ret_error, const char *fmt, ...) {
        va_list ap;

        if (!ret_error)
                return;
        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Link *l = userdata;

        log_link_info(l->name, "retrying the apply (attempt %u)", l->rt->retries + 1);
        (void) link_apply(l, NULL);
        return 0;
}

/* Exponential backoff: 1 s, 2 s, 4 s, ... 60 s. */
static void link_schedule_retry(Link *l) {
        uint64_t delay = RETRY_FIRST_USEC << (l->rt->retries < 6 ? l->rt->retries : 6), now;
        int r;

        if (delay > RETRY_MAX_USEC)
                delay = RETRY_MAX_USEC;
        l->rt->retries++;
        if (sd_event_now(l->manager->event, CLOCK_MONOTONIC, &now) < 0)
                return;
        l->rt->retry = sd_event_source_disable_unref(l->rt->retry);
        r = sd_event_add_time(l->manager->event, &l->rt->retry, CLOCK_MONOTONIC, now + delay, 0, on_retry, l);
        if (r < 0)
                log_link_warning_errno(l->name, r, "cannot schedule a retry: %m");
        else
                log_link_info(l->name, "will retry in %llu s", (unsigned long long) (delay / 1000000));
}

static bool link_retry_pending(Link *l) {
        int enabled = SD_EVENT_OFF;

        if (l->rt->retry)
                (void) sd_event_source_get_enabled(l->rt->retry, &enabled);
        return enabled != SD_EVENT_OFF;
}

int link_apply(Link *l, char **ret_error) {
        return link_apply_from(l, NULL, ret_error);
}

int link_apply_from(Link *l, const QDiscTreeSet *set, char **ret_error) {
        Manager *m = l->manager;
        ApplyReport report = {};
        DiagList diags = {};
        int ifindex, r;

        if (!l->schedule) {
                set_error(ret_error, "%s", l->state_reason);
                return -EINVAL;
        }
        ifindex = manager_ifindex(l->manager, l->name);
        if (ifindex <= 0) {
                if (l->ifindex != 0 || l->state != LINK_STATE_ABSENT)
                        manager_emit_event(m, l->name, "absent", "interface %s does not exist", l->name);
                l->ifindex = 0;
                l->rt->applied = false;
                link_emit_changed(l, "Index", NULL);
                link_set_state(l, LINK_STATE_ABSENT, "interface %s does not exist; waiting for it", l->name);
                set_error(ret_error, "interface %s does not exist", l->name);
                return -ENODEV;
        }
        if (ifindex != l->ifindex) {
                l->ifindex = ifindex;
                link_emit_changed(l, "Index", NULL);
        }
        link_probe(l);

        /* Checks that need the device: queue ranges, offload on queues
         * without launch time. Nothing is changed when they fail. The same
         * function makes them for tbsd --check and tbsctl validate --device. */
        l->schedule->source = l->schedule->source ?: (l->schedule_file ? strdup(l->schedule_file) : NULL);
        r = device_verify(l->schedule, l->rt->caps, &diags);
        if (r < 0) {
                _cleanup_free_ char *line = NULL;

                for (size_t i = 0; i < diags.n && !line; i++)
                        if (diags.items[i].severity == DIAG_ERROR)
                                line = diag_format(&diags.items[i]);
                diag_list_clear(&diags);
                link_set_state(l, LINK_STATE_FAILED, "%s", line ?: "schedule does not fit the device");
                manager_emit_event(m, l->name, "failed", "%s", l->state_reason);
                set_error(ret_error, "%s", l->state_reason);
                return -EINVAL;
        }
        diag_list_clear(&diags);

        if (set) {
                const QDiscTree *t = qdisc_tree_set_find(set, ifindex);

                r = nl_qdisc_apply_with_tree(m->nl, ifindex, l->schedule, l->rt->caps ? &l->rt->facts : NULL,
                                             t ?: &(QDiscTree) { .ifindex = ifindex }, &report);
        } else
                r = nl_qdisc_apply(m->nl, ifindex, l->schedule, l->rt->caps ? &l->rt->facts : NULL, &report);
        if (r == -EAGAIN && report.n_messages == 0 && !report.rolled_back) {
                /* The kernel's dump left the interface out: nothing is known
                 * about its tree and nothing was sent. Not a failure of the
                 * schedule: the state stays, the apply is tried again. */
                log_link_warning(l->name, "%s; trying again later", report.error ?: strerror(-r));
                set_error(ret_error, "%s", report.error ?: strerror(-r));
                apply_report_done(&report);
                link_schedule_retry(l);
                return r;
        }
        if (r < 0) {
                link_set_state(l, LINK_STATE_FAILED, "%s%s%s", report.error ?: strerror(-r),
                               report.rolled_back ? " (previous qdiscs restored)" : "",
                               report.rollback_error ? "; restoring failed too" : "");
                manager_emit_event(m, l->name, "failed", "%s", l->state_reason);
                set_error(ret_error, "%s", report.error ?: strerror(-r));
                apply_report_done(&report);
                l->rt->applied = false;
                if (error_may_pass(r))
                        link_schedule_retry(l);
                return r;
        }
        l->rt->retries = 0;
        l->removed = false;
        l->rt->drift = mfree(l->rt->drift);
        apply_report_done(&l->rt->last);
        l->rt->last = report;
        l->rt->applied = true;
        forget_installed_root(l);
        if (r > 0)
                manager_emit_event(m, l->name, "applied", "%u change(s) sent%s", report.n_messages,
                                   report.root_replaced ? ", root replaced" : "");
        else
                log_link_debug(l->name, "unchanged");

        if (!l->rt->clock || r > 0)
                (void) link_start_clock(l);
        link_update_installed_state(l);
        return r;
}

int link_remove_qdiscs(Link *l, char **ret_error) {
        _cleanup_free_ char *err = NULL;
        const RootSpec *ours[2] = {
                l->schedule ? &l->schedule->root : NULL,
                l->rt->installed_root,
        };
        int ifindex, r;

        ifindex = manager_ifindex(l->manager, l->name);
        if (ifindex <= 0) {
                set_error(ret_error, "interface %s does not exist", l->name);
                return -ENODEV;
        }
        r = nl_qdisc_remove(l->manager->nl, ifindex, ours, ELEMENTSOF(ours), &err);
        if (r < 0 && r != -EEXIST) {
                set_error(ret_error, "removing the root qdisc failed: %s", err ?: strerror(-r));
                return r;
        }
        l->rt->applied = false;
        l->removed = true;
        l->rt->drift = mfree(l->rt->drift);
        l->rt->clock = clock_check_free(l->rt->clock);
        forget_installed_root(l);
        link_emit_changed(l, "ClockState", NULL);
        if (r == -EEXIST) {
                /* Nothing of tbsd's is installed: the link is set aside all
                 * the same, and the administrator's tree stays. */
                link_set_state(l, LINK_STATE_PENDING, "%s, left in place; Apply() or a reload installs "
                               "the schedule over it", err ?: "the root qdisc is not tbsd's");
                manager_emit_event(l->manager, l->name, "foreign", "%s, left in place",
                                   err ?: "the root qdisc is not tbsd's");
                set_error(ret_error, "%s, left in place", err ?: "the root qdisc is not tbsd's");
                return r;
        }
        link_set_state(l, LINK_STATE_PENDING, "qdiscs removed; Apply() or a reload installs them again");
        manager_emit_event(l->manager, l->name, "removed", "%s",
                           r > 0 ? "default root qdisc restored" : "nothing installed, default root in place");
        return r;
}

void link_vanished(Link *l) {
        if (l->ifindex == 0 && l->state == LINK_STATE_ABSENT)
                return;
        l->ifindex = 0;
        l->rt->applied = false;
        l->rt->drift = mfree(l->rt->drift);
        link_emit_changed(l, "Index", NULL);
        manager_emit_event(l->manager, l->name, "vanished", "interface %s is gone", l->name);
        link_set_state(l, LINK_STATE_ABSENT, "interface %s is gone; waiting for it to return", l->name);
}

void link_reconcile(Link *l, const QDiscTreeSet *set) {
        _cleanup_free_ char *what = NULL;
        const QDiscTree *tree;
        int ifindex, r;

        if (!l->schedule || l->removed)
                return;
        ifindex = manager_ifindex(l->manager, l->name);
        if (ifindex <= 0) {
                if (l->state != LINK_STATE_ABSENT)
                        link_vanished(l);
                return;
        }
        if (ifindex != l->ifindex || !l->rt->applied) {
                /* New, back, or renamed to a configured name. A failed link is
                 * retried only by its timer: re-applying on every notification
                 * would loop on our own rollback's notifications. */
                if (l->state == LINK_STATE_FAILED && ifindex == l->ifindex)
                        return;
                if (l->state == LINK_STATE_ABSENT || ifindex != l->ifindex)
                        manager_emit_event(l->manager, l->name, "appeared", "interface %s (index %d) is here",
                                           l->name, ifindex);
                (void) link_apply_from(l, set, NULL);
                return;
        }

        if (!set) {
                log_link_debug(l->name, "no qdisc dump for the drift check");
                return;
        }
        tree = qdisc_tree_set_find(set, ifindex);
        r = qdisc_dump_judge_ifindex(tree, ifindex);
        if (r < 0 && r != -EAGAIN)
                return;         /* gone meanwhile: the link watcher says so */
        if (r < 0) {
                /* Up, so a complete dump shows a root: this one was cut
                 * short (qdisc_dump_judge()). Judge nothing from it. */
                log_link_warning(l->name, "the kernel's qdisc dump leaves this interface out (cut short by a "
                                 "qdisc too large to dump); drift not checked%s",
                                 l->schedule->drift == DRIFT_ENFORCE ? ", checking again later" : "");
                /* The retry's apply dumps again and changes nothing while
                 * the dump stays incomplete (backing off up to 60 s). */
                if (l->schedule->drift == DRIFT_ENFORCE && !link_retry_pending(l))
                        link_schedule_retry(l);
                return;
        }
        r = drift_describe(tree ?: &(QDiscTree) { .ifindex = ifindex }, l->schedule,
                           l->rt->caps ? &l->rt->facts : NULL, &what);
        if (r < 0)
                return;
        if (r == 0) {
                if (l->rt->drift) {
                        l->rt->drift = mfree(l->rt->drift);
                        manager_emit_event(l->manager, l->name, "restored", "the tree matches the schedule again");
                        link_update_installed_state(l);
                }
                return;
        }

        if (l->schedule->drift == DRIFT_REPORT) {
                if (l->rt->drift && strcmp(l->rt->drift, what) == 0)
                        return;
                free(l->rt->drift);
                l->rt->drift = TAKE_PTR(what);
                manager_emit_event(l->manager, l->name, "drift", "%s (changed outside tbsd; policy report)",
                                   l->rt->drift);
                link_update_installed_state(l);
                return;
        }
        manager_emit_event(l->manager, l->name, "drift", "%s (changed outside tbsd; restoring)", what);
        r = link_apply_from(l, set, NULL);
        if (r >= 0)
                manager_emit_event(l->manager, l->name, "restored", "schedule %s re-installed",
                                   l->schedule_file ?: "");
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

uint64_t link_launch_time_mask(Link *l) {
        return l->rt->caps ? l->rt->caps->launch_time_mask : 0;
}

int link_phc_index(Link *l) {
        return l->rt->caps ? l->rt->caps->phc_index : -1;
}

static const QueueApplyResult *last_result(Link *l, uint32_t queue) {
        for (size_t i = 0; i < l->rt->last.n_queues; i++)
                if (l->rt->last.queues[i].queue == queue)
                        return &l->rt->last.queues[i];
        return NULL;
}

int link_txtime_params(Link *l, uint32_t queue, uint32_t *ret_priority, int32_t *ret_clockid,
                       bool *ret_deadline, uint32_t *ret_delta, bool *ret_offload) {
        const QueueApplyResult *res;
        const EtfSpec *e;
        int tc;

        if (!l->schedule)
                return -ENOENT;
        e = schedule_find_txqueue(l->schedule, queue);
        if (!e)
                return -ENOENT;
        tc = root_tc_of_queue(&l->schedule->root, queue);
        if (tc < 0)
                return -ENODATA;
        /* The lowest priority the map sends to the queue's traffic class.
         * mqprio/taprio look at skb->priority & 15; a class with several
         * queues spreads its flows over them by hash. */
        for (uint32_t p = 0; p < TBS_PRIO_MAP_LEN; p++)
                if (l->schedule->root.priority_map[p] == tc) {
                        res = last_result(l, queue);
                        *ret_priority = p;
                        *ret_clockid = (int32_t) e->clockid;
                        *ret_deadline = e->deadline_mode;
                        *ret_delta = (uint32_t) e->delta_ns;
                        *ret_offload = res ? res->offload : false;
                        return 0;
                }
        return -ENODATA;
}

static QueueCounters counters_of(const InstalledQueue *q) {
        QueueCounters c = {
                .queue = q->queue,
                .handle = q->qdisc.handle,
                .kind_hash = kind_hash(q->qdisc.kind),
                .packets = q->qdisc.stats.packets,
                .bytes = q->qdisc.stats.bytes,
                .drops = q->qdisc.stats.drops,
                .deadline_misses = q->deadline_misses,
                .invalid = q->invalid,
        };

        return c;
}

/* Keep the counters of the current sample as the previous one, in the
 * array of the last time when the queue count is the same (no allocation
 * per sample). On failure there is no previous sample (no rates until the
 * next). */
static void sample_keep_counters(LinkRuntime *rt) {
        const QDiscTree *t = rt->sample;

        /* No current sample: none yet, or it was dropped at a pause and its
         * counters are what prev holds already. */
        if (rt->sample_usec == 0)
                return;
        rt->prev_usec = 0;
        if (rt->n_prev != t->n_queues || !rt->prev_owned) {
                if (rt->prev_owned)
                        free(rt->prev);
                rt->prev = NULL;
                rt->n_prev = 0;
                rt->prev_owned = true;
                if (t->n_queues > 0) {
                        rt->prev = calloc(t->n_queues, sizeof(QueueCounters));
                        if (!rt->prev)
                                return;
                }
        }
        for (size_t i = 0; i < t->n_queues; i++)
                rt->prev[i] = counters_of(&t->queues[i]);
        rt->n_prev = t->n_queues;
        rt->prev_usec = rt->sample_usec;
}

void link_take_sample(Link *l, QDiscTree *tree, uint64_t mono_usec, uint64_t realtime_usec) {
        LinkRuntime *rt = l->rt;

        if (!rt->sample) {
                rt->sample = calloc(1, sizeof(QDiscTree));
                if (!rt->sample) {
                        qdisc_tree_done(tree);
                        return;
                }
        }
        sample_keep_counters(rt);
        qdisc_tree_done(rt->sample);
        *rt->sample = *tree;
        *tree = (QDiscTree) {};
        rt->sample_usec = mono_usec;
        rt->sample_realtime_usec = realtime_usec;
}

/* The counters of a paused link: those of its latest sample, or, when it
 * took none since the last pause, those kept then. */
static size_t counters_to_keep(const LinkRuntime *rt) {
        if (rt->sample_usec != 0 && rt->sample)
                return rt->sample->n_queues;
        return rt->prev_usec != 0 ? rt->n_prev : 0;
}

/* The counters of every link go into one new block, allocated before the
 * samples are freed: one small array per link would stay wherever the
 * samples were, each holding a page of the heap that is free otherwise
 * (measured at 256 links: 200 KiB more of the heap resident). */
void links_drop_samples(Link **links, size_t n_links, QueueCounters **store) {
        QueueCounters *k = NULL;
        size_t total = 0, at = 0;

        for (size_t i = 0; i < n_links; i++)
                total += counters_to_keep(links[i]->rt);
        if (total > 0)
                k = calloc(total, sizeof(QueueCounters));

        for (size_t i = 0; i < n_links; i++) {
                LinkRuntime *rt = links[i]->rt;
                size_t n = k ? counters_to_keep(rt) : 0;
                QueueCounters *c = n > 0 ? &k[at] : NULL;

                if (n > 0 && rt->sample_usec != 0 && rt->sample) {
                        for (size_t j = 0; j < n; j++)
                                c[j] = counters_of(&rt->sample->queues[j]);
                        rt->prev_usec = rt->sample_usec;
                } else if (n > 0)
                        memcpy(c, rt->prev, n * sizeof(QueueCounters));
                /* Out of memory: no counters, and the first rate after the
                 * pause is one interval after the first read. */
                if (rt->prev_owned)
                        free(rt->prev);
                rt->prev = c;
                rt->n_prev = n;
                rt->prev_owned = false;
                if (n == 0)
                        rt->prev_usec = 0;
                at += n;

                if (rt->sample) {
                        qdisc_tree_done(rt->sample);
                        rt->sample = mfree(rt->sample);
                }
                rt->sample_usec = 0;
                rt->sample_realtime_usec = 0;
        }
        /* No link points into the old block any more. */
        free(*store);
        *store = k;
}

const QDiscTree *link_last_sample(Link *l, uint64_t *ret_realtime_usec) {
        if (l->rt->sample_usec == 0)
                return NULL;
        if (ret_realtime_usec)
                *ret_realtime_usec = l->rt->sample_realtime_usec;
        return l->rt->sample;
}

const QDiscTree *link_sample_taken_at(Link *l, uint64_t mono_usec) {
        if (l->rt->sample_usec == 0 || l->rt->sample_usec != mono_usec)
                return NULL;
        return l->rt->sample;
}

static const QueueCounters *prev_counters(LinkRuntime *rt, uint32_t queue) {
        for (size_t i = 0; i < rt->n_prev; i++)
                if (rt->prev[i].queue == queue)
                        return &rt->prev[i];
        return NULL;
}

int link_queue_rates(Link *l, uint32_t queue, QueueRates *ret) {
        const QueueCounters *a;
        const InstalledQueue *b;
        double dt;

        if (l->rt->sample_usec == 0 || l->rt->prev_usec == 0 || l->rt->sample_usec <= l->rt->prev_usec)
                return -ENODATA;
        a = prev_counters(l->rt, queue);
        b = qdisc_tree_find_queue(l->rt->sample, queue);
        /* A re-created qdisc starts its counters again: no rate across it. */
        if (!a || !b || a->handle != b->qdisc.handle || a->kind_hash != kind_hash(b->qdisc.kind) ||
            b->qdisc.stats.packets < a->packets)
                return -ENODATA;
        dt = (double) (l->rt->sample_usec - l->rt->prev_usec) / 1e6;
        *ret = (QueueRates) {
                .interval_s = dt,
                .packets_per_second = (double) (b->qdisc.stats.packets - a->packets) / dt,
                .bytes_per_second = (double) (b->qdisc.stats.bytes - a->bytes) / dt,
                .drops_per_second = (double) (b->qdisc.stats.drops - a->drops) / dt,
                .deadline_misses_per_second = (double) (b->deadline_misses - a->deadline_misses) / dt,
                .invalid_per_second = (double) (b->invalid - a->invalid) / dt,
        };
        return 0;
}

/* ---- Describe() ---- */

static struct json_object *stats_json(const QDiscStats *st, const InstalledQueue *q) {
        struct json_object *o = json_object_new_object();

        json_add(o, "packets", json_object_new_int64((int64_t) st->packets));
        json_add(o, "bytes", json_object_new_int64((int64_t) st->bytes));
        json_add(o, "drops", json_object_new_int64(st->drops));
        json_add(o, "overlimits", json_object_new_int64(st->overlimits));
        json_add(o, "requeues", json_object_new_int64(st->requeues));
        json_add(o, "backlog_bytes", json_object_new_int64(st->backlog_bytes));
        json_add(o, "backlog_packets", json_object_new_int64(st->qlen));
        if (q) {
                json_add(o, "deadline_misses", json_object_new_int64((int64_t) (q->is_etf ? q->deadline_misses : 0)));
                json_add(o, "invalid", json_object_new_int64((int64_t) (q->is_etf ? q->invalid : 0)));
        }
        return o;
}

static struct json_object *offload_requested_json(OffloadMode m) {
        if (m == OFFLOAD_AUTO)
                return json_object_new_string("auto");
        return json_object_new_boolean(m == OFFLOAD_ON);
}

static struct json_object *root_json(const QDiscTree *t) {
        _cleanup_json_ struct json_object *o = NULL;
        struct json_object *spec = NULL;
        char h[16];

        if (!t->has_root)
                return NULL;
        if (t->root_known) {
                /* The schedule format's own view of the root, as installed. */
                Schedule tmp = { .root = t->root_spec };
                _cleanup_json_ struct json_object *full = NULL;

                /* Report the effective cycle time, given or derived. */
                tmp.root.cycle_time_given = true;
                full = schedule_to_json(&tmp);
                spec = json_get(full, "root");
                o = spec ? json_object_get(spec) : json_object_new_object();
        } else
                o = json_object_new_object();
        json_add_string(o, "qdisc", t->root.kind);
        json_add_string(o, "handle", tc_handle_to_string(t->root.handle, h));
        json_add(o, "stats", stats_json(&t->root.stats, NULL));
        return TAKE_PTR(o);
}

static struct json_object *queue_json(Link *l, const EtfSpec *want, const QDiscTree *t) {
        const InstalledQueue *q = t ? qdisc_tree_find_queue(t, want->queue) : NULL;
        const QueueApplyResult *res = last_result(l, want->queue);
        const EtfSpec *e = q && q->is_etf ? &q->etf : want;
        struct json_object *o = json_object_new_object();
        QueueRates rates;
        char h[16];

        json_add(o, "queue", json_object_new_int64(want->queue));
        json_add_string(o, "qdisc", q ? q->qdisc.kind : NULL);
        json_add(o, "installed", json_object_new_boolean(q && q->is_etf));
        json_add_string(o, "handle", q ? tc_handle_to_string(q->qdisc.handle, h) : NULL);
        json_add_string(o, "parent", q ? tc_handle_to_string(q->qdisc.parent, h) : NULL);
        json_add_string(o, "clockid", clockid_to_string(e->clockid));
        json_add(o, "delta_ns", json_object_new_int64(e->delta_ns));
        json_add(o, "offload", json_object_new_boolean(q && q->is_etf && q->etf.offload == OFFLOAD_ON));
        json_add(o, "offload_requested", offload_requested_json(want->offload));
        /* offload_requested is true, false or "auto" (the schedule's own
         * spelling, kept for compatibility); this one is always a string. */
        json_add_string(o, "offload_requested_mode",
                        want->offload == OFFLOAD_AUTO ? "auto" : want->offload == OFFLOAD_ON ? "on" : "off");
        json_add_string(o, "offload_reason", res ? res->reason : NULL);
        json_add(o, "deadline_mode", json_object_new_boolean(e->deadline_mode));
        json_add(o, "skip_sock_check", json_object_new_boolean(e->skip_sock_check));
        if (q)
                json_add(o, "stats", stats_json(&q->qdisc.stats, q));
        else
                json_add(o, "stats", NULL);
        if (link_queue_rates(l, want->queue, &rates) >= 0) {
                struct json_object *r = json_object_new_object();
                json_add(r, "interval_s", json_object_new_double(rates.interval_s));
                json_add(r, "packets_per_second", json_object_new_double(rates.packets_per_second));
                json_add(r, "bytes_per_second", json_object_new_double(rates.bytes_per_second));
                json_add(r, "drops_per_second", json_object_new_double(rates.drops_per_second));
                json_add(r, "deadline_misses_per_second", json_object_new_double(rates.deadline_misses_per_second));
                json_add(r, "invalid_per_second", json_object_new_double(rates.invalid_per_second));
                json_add(o, "rates", r);
        } else
                json_add(o, "rates", NULL);
        return o;
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
        if (!given && l->ifindex > 0 && nl_qdisc_dump(l->manager->nl, l->ifindex, &own) >= 0) {
                tree = &own;
                have_tree = true;
        }

        json_add_string(o, "interface", l->name);
        json_add(o, "ifindex", json_object_new_int(l->ifindex));
        json_add_string(o, "state", link_state_to_string(l->state));
        json_add_string(o, "state_reason", l->state_reason);
        {
                _cleanup_free_ char *f = NULL;

                /* A folder entry's name need not be UTF-8; D-Bus needs it. */
                json_add_string(o, "schedule_file", l->schedule_file ? text_safe(l->schedule_file, &f) : NULL);
        }
        json_add(o, "root", have_tree ? root_json(tree) : NULL);
        qs = json_object_new_array();
        for (size_t i = 0; l->schedule && i < l->schedule->n_txqueues; i++)
                json_object_array_add(qs, queue_json(l, &l->schedule->txqueues[i], have_tree ? tree : NULL));
        json_add(o, "txqueues", qs);
        json_add(o, "capabilities", l->rt->caps ? caps_to_json(l->rt->caps) : NULL);
        json_add(o, "clock", clock_status_to_json(link_clock_status(l, &clock)));
        qdisc_tree_done(&own);
        *ret = TAKE_PTR(o);
        return 0;
}

int link_describe(Link *l, struct json_object **ret) {
        return link_describe_tree(l, NULL, ret);
}

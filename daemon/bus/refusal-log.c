/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-caller limit on refusal log lines; see refusal-log.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "refusal-log.h"
#include "time-util.h"

void refusal_limiter_init(RefusalLimiter *l, uint64_t window_usec, unsigned burst) {
        *l = (RefusalLimiter) {
                .window_usec = window_usec ?: REFUSAL_LOG_WINDOW_USEC,
                .burst = burst ?: REFUSAL_LOG_BURST,
        };
}

static bool window_over(const RefusalLimiter *l, const RefusalCaller *c, uint64_t now_usec) {
        return now_usec - c->start_usec >= l->window_usec || now_usec < c->start_usec;
}

/* Close c's window: its summary, and the slot free again. */
static RefusalSummary close_window(const RefusalLimiter *l, RefusalCaller *c) {
        RefusalSummary s = { .uid = c->uid, .suppressed = c->suppressed, .window_usec = l->window_usec };

        *c = (RefusalCaller) {};
        return s;
}

bool refusal_limiter_admit(RefusalLimiter *l, uid_t uid, uint64_t now_usec, RefusalSummary *ret_summary) {
        RefusalCaller *c = NULL, *free_slot = NULL, *oldest = NULL;

        *ret_summary = (RefusalSummary) {};
        for (size_t i = 0; i < REFUSAL_LOG_CALLERS; i++) {
                RefusalCaller *x = &l->callers[i];

                if (!x->used) {
                        free_slot = free_slot ?: x;
                        continue;
                }
                if (x->uid == uid) {
                        c = x;
                        break;
                }
                if (!oldest || x->start_usec < oldest->start_usec)
                        oldest = x;
        }
        if (c && window_over(l, c, now_usec))
                *ret_summary = close_window(l, c);
        else if (!c && !free_slot) {
                *ret_summary = close_window(l, oldest);
                free_slot = oldest;
        }
        if (!c || !c->used) {
                c = c ?: free_slot;
                *c = (RefusalCaller) { .used = true, .uid = uid, .start_usec = now_usec };
        }
        if (c->logged < l->burst) {
                c->logged++;
                return true;
        }
        c->suppressed++;
        return false;
}

size_t refusal_limiter_expire(RefusalLimiter *l, uint64_t now_usec, RefusalSummary *ret, size_t max) {
        size_t n = 0;

        for (size_t i = 0; i < REFUSAL_LOG_CALLERS; i++) {
                RefusalCaller *c = &l->callers[i];

                if (!c->used || !window_over(l, c, now_usec))
                        continue;
                if (c->suppressed == 0) {
                        (void) close_window(l, c);
                        continue;
                }
                if (n == max)
                        continue;
                ret[n++] = close_window(l, c);
        }
        return n;
}

uint64_t refusal_limiter_next_end(const RefusalLimiter *l) {
        uint64_t end = UINT64_MAX;

        for (size_t i = 0; i < REFUSAL_LOG_CALLERS; i++) {
                const RefusalCaller *c = &l->callers[i];

                if (c->used && c->suppressed > 0 && c->start_usec + l->window_usec < end)
                        end = c->start_usec + l->window_usec;
        }
        return end;
}

struct RefusalLog {
        RefusalLimiter limiter;
        sd_event *event;
        sd_event_source *timer;
};

static void log_summary(const RefusalSummary *s) {
        if (s->suppressed == 0)
                return;
        log_notice("suppressed %" PRIu64 " more refusal%s from uid %u in the last %" PRIu64 " s", s->suppressed,
                   s->suppressed == 1 ? "" : "s", (unsigned) s->uid,
                   (uint64_t) ((s->window_usec + USEC_PER_SEC - 1) / USEC_PER_SEC));
}

static void arm_timer(RefusalLog *rl) {
        uint64_t end = refusal_limiter_next_end(&rl->limiter);
        int r;

        if (end == UINT64_MAX) {
                (void) sd_event_source_set_enabled(rl->timer, SD_EVENT_OFF);
                return;
        }
        r = sd_event_source_set_time(rl->timer, end);
        if (r >= 0)
                r = sd_event_source_set_enabled(rl->timer, SD_EVENT_ONESHOT);
        if (r < 0)
                log_debug_errno(r, "cannot arm the refusal summary timer: %m");
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        RefusalLog *rl = userdata;
        RefusalSummary sums[8];
        size_t n;

        do {
                n = refusal_limiter_expire(&rl->limiter, usec, sums, ELEMENTSOF(sums));
                for (size_t i = 0; i < n; i++)
                        log_summary(&sums[i]);
        } while (n == ELEMENTSOF(sums));
        arm_timer(rl);
        return 0;
}

int refusal_log_new(sd_event *e, RefusalLog **ret) {
        _cleanup_(refusal_log_freep) RefusalLog *rl = NULL;
        int r;

        rl = calloc(1, sizeof(*rl));
        if (!rl)
                return -ENOMEM;
        refusal_limiter_init(&rl->limiter, 0, 0);
        rl->event = sd_event_ref(e);
        r = sd_event_add_time(e, &rl->timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_timer, rl);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(rl->timer, "refusal-summary");
        (void) sd_event_source_set_enabled(rl->timer, SD_EVENT_OFF);
        *ret = TAKE_PTR(rl);
        return 0;
}

RefusalLog *refusal_log_free(RefusalLog *rl) {
        RefusalSummary sums[REFUSAL_LOG_CALLERS];
        size_t n;

        if (!rl)
                return NULL;
        /* Say what was counted but not yet summed up. */
        n = refusal_limiter_expire(&rl->limiter, UINT64_MAX, sums, ELEMENTSOF(sums));
        for (size_t i = 0; i < n; i++)
                log_summary(&sums[i]);
        sd_event_source_disable_unref(rl->timer);
        sd_event_unref(rl->event);
        free(rl);
        return NULL;
}

void refusal_log_note(RefusalLog *rl, uid_t uid, const char *fmt, ...) {
        RefusalSummary sum = {};
        uint64_t now = 0;
        bool admit = true;
        va_list ap;
        char *line = NULL;

        if (rl) {
                if (sd_event_now(rl->event, CLOCK_MONOTONIC, &now) < 0)
                        now = 0;
                admit = refusal_limiter_admit(&rl->limiter, uid, now, &sum);
                log_summary(&sum);
                arm_timer(rl);
        }
        if (!admit)
                return;
        va_start(ap, fmt);
        if (vasprintf(&line, fmt, ap) < 0)
                line = NULL;
        va_end(ap);
        log_notice("denied %s", line ?: "a privileged call");
        free(line);
}

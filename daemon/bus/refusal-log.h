/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging of refused privileged calls, limited per caller: the first
 * REFUSAL_LOG_BURST refusals of a user id within REFUSAL_LOG_WINDOW_USEC
 * are logged one line each, the rest are counted and summed up in one line
 * when that window ends ("suppressed K more refusals from uid U in the last
 * S s"). An unprivileged client calling Apply in a loop cannot fill the
 * journal: at most BURST + 1 lines per caller and window.
 *
 * The limiter itself is pure (times are given) so it can be tested; the
 * RefusalLog around it logs and keeps a timer for the summaries. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "macro.h"

#define REFUSAL_LOG_BURST 5
#define REFUSAL_LOG_WINDOW_USEC (10 * 1000 * 1000ULL)
/* Callers followed at once; beyond that the oldest window ends early. */
#define REFUSAL_LOG_CALLERS 32

typedef struct RefusalCaller {
        bool used;
        uid_t uid;
        uint64_t start_usec;          /* CLOCK_MONOTONIC: the window's first refusal */
        unsigned logged;
        uint64_t suppressed;
} RefusalCaller;

typedef struct RefusalLimiter {
        uint64_t window_usec;
        unsigned burst;
        RefusalCaller callers[REFUSAL_LOG_CALLERS];
} RefusalLimiter;

/* What to log for a window that ended with refusals left unlogged. */
typedef struct RefusalSummary {
        uid_t uid;
        uint64_t suppressed;          /* 0: nothing to report */
        uint64_t window_usec;
} RefusalSummary;

/** A limiter with window_usec and burst (0: the REFUSAL_LOG_* defaults). */
void refusal_limiter_init(RefusalLimiter *l, uint64_t window_usec, unsigned burst);

/** One refusal of uid at now_usec. Returns true when it is to be logged,
 *  false when it is only counted. *ret_summary (suppressed 0: none) is a
 *  window that ended just now, this caller's earlier one or, with every
 *  slot taken, the oldest caller's: log it first. */
bool refusal_limiter_admit(RefusalLimiter *l, uid_t uid, uint64_t now_usec, RefusalSummary *ret_summary);

/** End every window that is over at now_usec. Writes up to max summaries
 *  of the ones with suppressed refusals to ret and returns their number
 *  (windows beyond max stay for the next call). */
size_t refusal_limiter_expire(RefusalLimiter *l, uint64_t now_usec, RefusalSummary *ret, size_t max);

/** When the earliest window holding suppressed refusals ends (CLOCK_MONOTONIC
 *  µs); UINT64_MAX when there is none. */
uint64_t refusal_limiter_next_end(const RefusalLimiter *l);

typedef struct RefusalLog RefusalLog;

/** The limiter with its summary timer on e (referenced). */
int refusal_log_new(sd_event *e, RefusalLog **ret);
/** Logs what is still suppressed, frees. Accepts NULL; returns NULL. */
RefusalLog *refusal_log_free(RefusalLog *rl);
DEFINE_TRIVIAL_CLEANUP_FUNC(RefusalLog *, refusal_log_free);

/** Note a refusal of uid and log "denied <what>" (printf format) when the
 *  limiter lets it through, at notice level. rl NULL: always log. */
void refusal_log_note(RefusalLog *rl, uid_t uid, const char *fmt, ...) _printf_(3, 4);

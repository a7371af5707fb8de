/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Waiting for PTP after a NIC reset. Some drivers (igc) reset the link
 * when a launch-time, taprio or cbs offload is switched on; ptp4l loses
 * its lock with it. After such an apply the link stays "pending" until the
 * clock check finds the clock synced again, or until a bound passes
 * (docs/clock-checks.md). Pure functions: the link feeds them the apply's
 * report, the clock check's status and the time. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "caps-probe.h"
#include "clock-check.h"
#include "qdisc-plan.h"
#include "time-util.h"

/* The longest wait for the lock: ptp4l finds the link down, listens,
 * calibrates and brings its servo below max_master_offset_ns again. */
#define TBS_PTP_RELOCK_TIMEOUT_USEC (120 * USEC_PER_SEC)
/* A synced check counts only this long after the apply (or after a check
 * that saw the lock lost): before, ptp4l may not have noticed the reset. */
#define TBS_PTP_RELOCK_SETTLE_USEC (5 * USEC_PER_SEC)

typedef struct PtpRelock {
        bool waiting;                   /* an apply reset the NIC; the lock has not come back */
        bool lost_seen;                 /* a check since then found the clock not synced */
        bool timed_out;                 /* the last wait ended at the bound; until the next synced check */
        uint64_t since_usec;            /* CLOCK_REALTIME of that apply (as ClockStatus.checked_at_usec) */
} PtpRelock;

typedef enum RelockVerdict {
        RELOCK_IDLE,                    /* not waiting */
        RELOCK_WAIT,                    /* still waiting: the link stays pending */
        RELOCK_LOCKED,                  /* the clock is synced again: waiting ends now */
        RELOCK_TIMEOUT,                 /* the bound passed: waiting ends now */
        _RELOCK_VERDICT_MAX,
        _RELOCK_VERDICT_INVALID = -EINVAL,
} RelockVerdict;

/** Whether an apply reset the NIC's link: the device's driver resets it
 *  when an offload is switched on (caps->resets_link_on_offload), and the
 *  apply created a child with offload on, or a taprio root in full-offload
 *  mode. caps NULL (not probed): false. */
bool apply_resets_link(const LinkCaps *caps, const Schedule *s, const ApplyReport *report);

/** Start waiting at now_usec (CLOCK_REALTIME). */
void ptp_relock_begin(PtpRelock *p, uint64_t now_usec);

/** Judge the wait with the clock check's status (NULL: no check) at
 *  now_usec (CLOCK_REALTIME); updates p (waiting ends at RELOCK_LOCKED
 *  and RELOCK_TIMEOUT; timed_out is cleared by a synced check). */
RelockVerdict ptp_relock_judge(PtpRelock *p, const ClockStatus *st, uint64_t now_usec);

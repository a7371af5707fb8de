/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "ptp-relock.h"
#include "qdisc-kind.h"

bool apply_resets_link(const LinkCaps *caps, const Schedule *s, const ApplyReport *report) {
        if (!caps || !caps->resets_link_on_offload || !report || report->n_messages == 0)
                return false;
        if (report->root_replaced && root_gates_in_nic(&s->root))
                return true;
        for (size_t i = 0; i < report->n_queues; i++)
                if (report->queues[i].changed && report->queues[i].offload)
                        return true;
        return false;
}

void ptp_relock_begin(PtpRelock *p, uint64_t now_usec) {
        *p = (PtpRelock) { .waiting = true, .since_usec = now_usec };
}

RelockVerdict ptp_relock_judge(PtpRelock *p, const ClockStatus *st, uint64_t now_usec) {
        bool fresh = st && st->checked_at_usec > p->since_usec;

        if (!p->waiting) {
                if (st && st->checked_at_usec > 0 && st->state == CLOCK_STATE_SYNCED)
                        p->timed_out = false;
                return RELOCK_IDLE;
        }
        if (fresh && st->state != CLOCK_STATE_SYNCED)
                p->lost_seen = true;
        else if (fresh && (p->lost_seen || st->checked_at_usec - p->since_usec >= TBS_PTP_RELOCK_SETTLE_USEC)) {
                *p = (PtpRelock) {};
                return RELOCK_LOCKED;
        }
        if (now_usec >= p->since_usec && now_usec - p->since_usec >= TBS_PTP_RELOCK_TIMEOUT_USEC) {
                *p = (PtpRelock) { .timed_out = true };
                return RELOCK_TIMEOUT;
        }
        return RELOCK_WAIT;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's effective max SDU per traffic class (taprio-sdu.h). The
 * arithmetic follows the kernel's types, worked out from Linux 6.12's
 * sch_taprio.c (taprio_calculate_gate_durations(),
 * taprio_set_picos_per_byte(), duration_to_length(),
 * taprio_update_queue_max_sdu()): the frame length is a 32-bit value,
 * the stab overhead is subtracted in 32 bits and clamped as a signed
 * value, the hard header is subtracted in 32 bits (a span shorter than
 * the header wraps round to "above max_mtu" without a stab). */
#include <string.h>

#include "qdisc-kind.h"
#include "taprio-sdu.h"

/* Picoseconds per byte at a link speed, as the kernel keeps it: 8 * 10^6 /
 * Mbit/s, truncated; at least 17 (newer kernels' floor, which only
 * speeds above 470 Gbit/s reach). */
#define PICOS_PER_BYTE_MIN 17U

static uint64_t picos_per_byte(uint32_t speed_mbps) {
        uint64_t ppb;

        if (speed_mbps == 0)
                speed_mbps = TAPRIO_SDU_FALLBACK_SPEED_MBPS;
        ppb = UINT64_C(8000000) / speed_mbps;
        return ppb < PICOS_PER_BYTE_MIN ? PICOS_PER_BYTE_MIN : ppb;
}

uint64_t taprio_open_gate_span_ns(const GateEntry *entries, size_t n, unsigned tc) {
        uint64_t best = 0;

        if (tc >= 32)
                return 0;
        for (size_t i = 0; i < n; i++) {
                uint64_t span = 0;

                /* from entry i on, round the list once, while the gate stays open */
                for (size_t k = 0; k < n; k++) {
                        const GateEntry *e = &entries[(i + k) % n];

                        if (!(e->gate_mask & (UINT32_C(1) << tc)))
                                break;
                        span += e->interval_ns;
                }
                if (span > best)
                        best = span;
        }
        return best;
}

void taprio_kernel_max_sdu(const uint32_t asked[TBS_MAX_TC], unsigned num_tc, const GateEntry *entries, size_t n,
                           int64_t cycle_time_ns, const TaprioSduFacts *f, uint32_t ret[TBS_MAX_TC]) {
        uint64_t ppb = picos_per_byte(f->link_speed_mbps);
        uint64_t cycle = 0;

        memset(ret, 0, TBS_MAX_TC * sizeof(uint32_t));
        if (cycle_time_ns > 0)
                cycle = (uint64_t) cycle_time_ns;
        else
                for (size_t i = 0; i < n; i++)
                        cycle += entries[i].interval_ns;

        for (unsigned tc = 0; tc < num_tc && tc < TBS_MAX_TC; tc++) {
                uint32_t user = asked[tc] ? asked[tc] : UINT32_MAX;
                uint64_t span = taprio_open_gate_span_ns(entries, n, tc);
                uint32_t dynamic, max_sdu;

                if (span == cycle)
                        dynamic = UINT32_MAX;   /* the gate never closes: no limit of its own */
                else {
                        /* the bytes the span carries, kept in 32 bits */
                        uint32_t frame = (uint32_t) (span * 1000 / ppb);

                        if (f->stab) {
                                frame -= (uint32_t) f->stab_overhead;
                                if ((int32_t) frame < (int32_t) (f->hard_header_len + 1))
                                        frame = f->hard_header_len + 1;
                        }
                        dynamic = frame - f->hard_header_len;
                        if (f->max_mtu > 0 && dynamic > f->max_mtu)
                                dynamic = UINT32_MAX;
                }
                max_sdu = dynamic < user ? dynamic : user;
                ret[tc] = max_sdu == UINT32_MAX ? 0 : max_sdu;
        }
}

bool taprio_tc_entries_unreported(const RootSpec *installed) {
        return installed->kind == ROOT_TAPRIO && installed->taprio.admin_pending && installed->taprio.oper.n_entries == 0 &&
               !installed->taprio.max_sdu_dumped && !installed->fp_dumped;
}

void taprio_settle_max_sdu(RootSpec *want, const RootSpec *installed, const DeviceFacts *facts) {
        const GateEntry *entries = installed->taprio.entries;
        size_t n = installed->taprio.n_entries;
        int64_t cycle = installed->taprio.cycle_time_ns;
        uint32_t eff[TBS_MAX_TC];
        TaprioSduFacts f;

        if (want->kind == ROOT_TAPRIO && taprio_tc_entries_unreported(installed)) {
                memcpy(want->taprio.max_sdu, installed->taprio.max_sdu, sizeof(want->taprio.max_sdu));
                want->fp_given = false;
                return;
        }
        if (!facts || want->kind != ROOT_TAPRIO || installed->kind != ROOT_TAPRIO || !installed->taprio.max_sdu_dumped)
                return;
        /* The TC entries are the running schedule's: beside a pending admin
         * schedule, the one in oper. */
        if (installed->taprio.admin_pending) {
                entries = installed->taprio.oper.entries;
                n = installed->taprio.oper.n_entries;
                cycle = installed->taprio.oper.cycle_time_ns;
        }
        if (n == 0)
                return;
        f = (TaprioSduFacts) {
                .link_speed_mbps = facts->link_speed_mbps,
                .hard_header_len = TAPRIO_SDU_ETH_HARD_HEADER,
                .stab = installed->stab.given,
                .stab_overhead = installed->stab.overhead,
        };
        taprio_kernel_max_sdu(want->taprio.max_sdu, want->num_tc, entries, n, cycle, &f, eff);
        for (unsigned tc = 0; tc < want->num_tc && tc < TBS_MAX_TC; tc++)
                if (installed->taprio.max_sdu[tc] != want->taprio.max_sdu[tc] && installed->taprio.max_sdu[tc] == eff[tc])
                        want->taprio.max_sdu[tc] = installed->taprio.max_sdu[tc];
}

bool root_max_sdu_reported(const RootSpec *installed) {
        return installed->taprio.max_sdu_dumped;
}

bool root_max_sdu_sent(const RootSpec *r) {
        return r->taprio.max_sdu_given;
}

void root_send_max_sdu(RootSpec *r, bool send) {
        r->taprio.max_sdu_given = send;
}

bool root_has_max_sdu(const RootSpec *r) {
        for (unsigned i = 0; i < TBS_MAX_TC; i++)
                if (r->taprio.max_sdu[i] != 0)
                        return true;
        return false;
}

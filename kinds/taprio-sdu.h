/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The max SDU per traffic class a taprio dumps, as the kernel computes it.
 *
 * Linux 6.1 dumps TCA_TAPRIO_TC_ENTRY_MAX_SDU as it was asked. Later
 * kernels (6.12 here; sch_taprio.c taprio_update_queue_max_sdu(), run at
 * every change and when the link's speed changes) dump the *effective*
 * value of the running schedule: the smaller of the one asked (0: none)
 * and what the class's longest open gate span carries at the link speed,
 * that span's bytes less the root's stab overhead (never below one byte of
 * payload with a stab) less the device's hard header; none (0) when that
 * is above the device's max_mtu or when the class's gate is open the
 * whole cycle. So a schedule read back from 6.12 differs from the file in
 * max_sdu although the kernel does exactly what the file asked, and every
 * comparison (tbsd --once, the daemon's reconcile, drift, ownership) would
 * call the root changed.
 *
 * tbsd decides by behaviour, not by kernel version: a dumped value is
 * taken as the asked one when it equals either the asked value (6.1's
 * rule, and 6.12's where the gate carries more than asked) or the value
 * the rule above gives for the dumped gate list at the link speed.
 * Nothing else is: a max SDU changed by someone else to less than both is
 * still a difference (drift). The device's max_mtu needs no reading: when
 * the span's value is above it the kernel dumps the asked value (a max
 * SDU above max_mtu is refused), which is accepted anyway. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

/* The hard header of an Ethernet device (ETH_HLEN, ether_setup()): every
 * multi-queue device taprio runs on. */
#define TAPRIO_SDU_ETH_HARD_HEADER 14U
/* The speed the kernel assumes when the device reports none
 * (taprio_set_picos_per_byte(): SPEED_10). */
#define TAPRIO_SDU_FALLBACK_SPEED_MBPS 10U

typedef struct TaprioSduFacts {
        uint32_t link_speed_mbps;       /* 0: the device reports none (the kernel takes 10) */
        uint32_t max_mtu;               /* IFLA_MAX_MTU; 0: not known (no "above max_mtu" rule) */
        uint32_t hard_header_len;       /* dev->hard_header_len: 14 on Ethernet */
        bool stab;                      /* the root has a size table */
        int32_t stab_overhead;          /* its overhead (may be negative) */
} TaprioSduFacts;

/** The longest span, in ns, that class tc's gate stays open in a gate
 *  list, counted from each entry that opens it through the following
 *  entries (round the cycle) until one closes it; 0 when no entry opens
 *  it. A gate open in every entry spans the sum of all intervals. */
uint64_t taprio_open_gate_span_ns(const GateEntry *entries, size_t n, unsigned tc);

/** The max SDU per class the kernel's rule keeps (and a 6.12 dump shows)
 *  for asked[tc] (0: none) with the gate list entries[0..n) of cycle
 *  cycle_time_ns (0: the sum of the intervals), for classes below num_tc;
 *  the others 0. */
void taprio_kernel_max_sdu(const uint32_t asked[TBS_MAX_TC], unsigned num_tc, const GateEntry *entries, size_t n,
                           int64_t cycle_time_ns, const TaprioSduFacts *f, uint32_t ret[TBS_MAX_TC]);

/** Whether installed (a dumped taprio root) says nothing of its per-class
 *  entries because no schedule runs yet: Linux 6.12 dumps the max SDU and
 *  fp of the running (oper) schedule only, so a first schedule waiting for
 *  its base time dumps none (6.1 dumps them whatever runs). Then the dump
 *  is no sign that the kernel lacks them. */
bool taprio_tc_entries_unreported(const RootSpec *installed);

/** Before comparing want (a shallow copy of a schedule's taprio root)
 *  with the installed one: a class whose dumped max SDU is the kernel's
 *  effective value for want's (taprio_kernel_max_sdu() over the running
 *  gate list the dump's TC entries belong to, at facts' link speed, with
 *  the installed stab) takes the dumped value, so that equal() compares
 *  what the kernel does. Nothing without facts, for other kinds, or when
 *  the dump carries no TC entries; when it carries none because no
 *  schedule runs yet (taprio_tc_entries_unreported()), want's max SDUs and
 *  fp are taken for what the kernel has (it says nothing either way). */
void taprio_settle_max_sdu(RootSpec *want, const RootSpec *installed, const DeviceFacts *facts);

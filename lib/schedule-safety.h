/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The checks that keep a schedule from breaking time synchronisation
 * (docs/schedule-format.md, "Time-sync safety checks"). Part of
 * schedule_verify(), so tbsd --check, tbsctl validate, Validate() and
 * every apply run them. Each has a name that the file's top-level "allow"
 * list takes to accept what it finds: an allowed check is not run. */
#pragma once

#include <stdint.h>

#include "diag.h"
#include "schedule.h"

typedef enum SafetyCheck {
        SAFETY_PTP_GATE,        /* "ptp-gate": every cycle opens PTP's class for a maximum-size frame */
        SAFETY_PTP_ETF,         /* "ptp-etf": PTP's queues are not behind an etf that drops ptp4l's frames */
        SAFETY_ASSIST_DELAY,    /* "assist-delay": txtime_delay_ns >= every etf delta_ns (txtime-assist) */
        SAFETY_DELTA_CYCLE,     /* "delta-cycle": etf delta_ns longer than the taprio cycle (warning) */
        SAFETY_BASE_TIME,       /* "base-time": a past base time whose cycles drift through the second (warning) */
        SAFETY_SOFTWARE_GATE_INTERVAL, /* "software-gate-interval": a gate entry under
                                        * TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS without full offload */
        _SAFETY_CHECK_MAX,
        _SAFETY_CHECK_INVALID = -EINVAL,
} SafetyCheck;

/* A maximum-size frame on the wire: 1522 bytes (1500 payload, 14 header,
 * 4 VLAN tag, 4 FCS) plus 8 of preamble and SFD and 12 of inter-frame gap. */
#define TBS_PTP_FRAME_WIRE_BYTES 1542U
/* The link speed the ptp-gate check assumes when neither the device
 * (probe) nor the file (a cbs queue's link_speed_mbps) tells it. */
#define TBS_SAFETY_DEFAULT_LINK_SPEED_MBPS 1000U
/* A base time at least this far before now is "far in the past". */
#define TBS_SAFETY_PAST_BASE_NS INT64_C(1000000000)

const char *safety_check_to_string(SafetyCheck c);
SafetyCheck safety_check_from_string(const char *s);

/** The traffic class that carries PTP: root.priority_map[clock.ptp_priority],
 *  or -ERANGE when num_tc or the map is out of range (the validator reports
 *  that). */
int schedule_ptp_tc(const Schedule *s);

/** Nanoseconds one frame of @wire_bytes takes at @speed_mbps (rounded up). */
uint64_t frame_time_ns(uint32_t wire_bytes, uint32_t speed_mbps);

/** Run every check the file does not allow.
 *  @facts   the device's facts (link speed); NULL: unknown.
 *  @now_ns  the current time of the root's clock (base-time check); the
 *           caller reads it so that this function stays pure.
 *  @diags   one line per finding: "FILE: PATH: CHECK: REASON; ... add
 *           \"CHECK\" to \"allow\"" (errors, or warnings for delta-cycle
 *           and base-time).
 *  @ret_failed  optional: bit c set for each check that found an error.
 *  Returns 0, or -ENOMEM. */
int schedule_safety_check(const Schedule *s, const DeviceFacts *facts, int64_t now_ns, DiagList *diags,
                          uint32_t *ret_failed);

/** schedule_safety_check() at the current time of the schedule's taprio
 *  clock, read only when the base-time rule is judged (a taprio root that
 *  does not allow "base-time"); other schedules read no clock. */
int schedule_safety_check_now(const Schedule *s, const DeviceFacts *facts, DiagList *diags,
                              uint32_t *ret_failed);

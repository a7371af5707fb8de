/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-interface clock verification: do the grandmaster, the NIC's PHC and
 * CLOCK_TAI agree?
 *
 * Each check asks ptp4l (pmc_client) for PORT_DATA_SET, PORT_PROPERTIES_NP,
 * TIME_STATUS_NP, CURRENT_DATA_SET, PARENT_DATA_SET and
 * TIME_PROPERTIES_DATA_SET (a ptp4l with several ports answers the first two
 * once per port; the port whose interface is this one counts), reads the
 * kernel's TAI offset and measures PHC - CLOCK_TAI (phc_offset), then
 * decides a state with a one-line reason. The first failing rule decides:
 *
 *   not-configured  the schedule has no "clock" section (nothing is asked)
 *   no-ptp4l        no socket, nobody listening, or no answer in time
 *   unsynced        port not SLAVE/MASTER/GRAND_MASTER; no grandmaster (a
 *                   MASTER/GRAND_MASTER port is the grandmaster side and
 *                   needs none); |master offset| > max_master_offset_ns;
 *                   kernel TAI offset 0 or unreadable, or different from
 *                   the grandmaster's currentUtcOffset on the PTP timescale
 *                   when that is valid and traceable (the flags ptp4l's own
 *                   UTC correction trusts); PHC
 *                   unreadable or |PHC - TAI| > max_phc_offset_ns
 *   no-phc          all of the above hold but the interface has no PHC
 *                   (software time stamping only): PHC checks are skipped
 *   synced          everything holds
 *
 * The state names are a public contract (tbsctl, D-Bus ClockState). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "phc-offset.h"
#include "ptp-mgmt.h"
#include "schedule.h"

typedef enum ClockState {
        CLOCK_STATE_SYNCED,
        CLOCK_STATE_UNSYNCED,
        CLOCK_STATE_NO_PTP4L,
        CLOCK_STATE_NO_PHC,
        CLOCK_STATE_NOT_CONFIGURED,
        _CLOCK_STATE_MAX,
        _CLOCK_STATE_INVALID = -EINVAL,
} ClockState;

#define CLOCK_CHECK_DEFAULT_INTERVAL_USEC (2 * 1000 * 1000ULL)

/* The result of one check and every figure that led to it. has_* false:
 * the figure is unknown (null in JSON). */
typedef struct ClockStatus {
        ClockState state;
        char reason[160];

        bool has_port_state;
        char port_state[16];                  /* "SLAVE", ...; "UNKNOWN(n)" for a value outside the table */
        bool has_time_status;
        int64_t master_offset_ns;             /* TIME_STATUS_NP master_offset */
        int64_t ingress_time_ns;              /* TIME_STATUS_NP ingress_time: when that offset was
                                               * measured (not in the JSON; for tests) */
        bool gm_present;
        char gm_identity[19];                 /* "xxxxxx.xxxx.xxxxxx" */
        bool has_current_ds;
        int64_t mean_path_delay_ns;           /* CURRENT_DATA_SET meanPathDelay */
        uint16_t steps_removed;
        bool has_phc_offset;
        int64_t phc_sys_offset_ns;            /* PHC - CLOCK_TAI */
        PhcOffsetMethod phc_offset_method;
        bool has_tai_offset;
        int32_t tai_offset_s;                 /* kernel CLOCK_TAI - CLOCK_REALTIME */
        uint64_t checked_at_usec;             /* CLOCK_REALTIME; 0: not checked yet */
} ClockStatus;

/* What one check gathered; the input of clock_evaluate(). */
typedef struct ClockInputs {
        const char *ifname;                   /* for messages; may be NULL */
        int ptp4l_error;                      /* 0: ptp4l answered; -errno: why not */
        const char *ptp4l_socket;             /* for messages; may be NULL */
        uint64_t ptp4l_timeout_usec;          /* for the timeout message */
        int port_ds_error;                    /* per data set: 0 or as PmcReply.error;
                                               * -ENODEV: ptp4l has several ports, none on ifname */
        PtpPortDataSet port_ds;               /* this interface's port */
        size_t n_ports;                       /* PORT_DATA_SET answers (ports of ptp4l) */
        int time_status_error;
        PtpTimeStatusNp time_status;
        int current_ds_error;
        PtpCurrentDataSet current_ds;
        int time_properties_error;
        PtpTimePropertiesDataSet time_properties;
        int phc_index;                        /* -1: no PHC */
        int phc_error;                        /* 0 or -errno of open/measure */
        PhcOffset phc;
        int tai_error;
        int32_t tai_offset_s;
        uint64_t now_usec;                    /* CLOCK_REALTIME */
} ClockInputs;

/** "synced", "unsynced", "no-ptp4l", "no-phc", "not-configured"; NULL if invalid. */
const char *clock_state_to_string(ClockState s);
/** Inverse of clock_state_to_string(); -EINVAL for an unknown name. */
ClockState clock_state_from_string(const char *s);

/** Decide the state, reason and figures from one check's inputs under spec
 *  (the rules in this header's comment). Pure: no I/O. */
void clock_evaluate(const ClockSpec *spec, const ClockInputs *in, ClockStatus *ret);

/** Set st's state and its reason (printf format) (clock-rules.c). */
void clock_status_set(ClockStatus *st, ClockState state, const char *fmt, ...) _printf_(3, 4);

/** The status as a JSON object with the keys state, reason, port_state,
 *  master_offset_ns, mean_path_delay_ns, gm_present, gm_identity,
 *  steps_removed, phc_sys_offset_ns, phc_offset_method, tai_offset_s,
 *  checked_at (ISO 8601 UTC with microseconds, "2026-12-03T06:01:13.123456Z");
 *  unknown figures are null. Returns a new reference, or NULL on ENOMEM. */
struct json_object *clock_status_to_json(const ClockStatus *s);

typedef struct ClockCheck ClockCheck;

/** Called after the first completed check (old_state _CLOCK_STATE_INVALID)
 *  and after every check whose state or reason differs from the previous
 *  one (old_state == status->state: only the reason changed).
 *  status is valid during the call. The callback must not free cc. It may
 *  run from within clock_check_start() or clock_check_run_now() when the
 *  result is known at once (no ptp4l socket, not configured). */
typedef void (*clock_check_changed_fn)(ClockCheck *cc, ClockState old_state, const ClockStatus *status,
                                       void *userdata);

/** Create the clock check of one interface.
 *  e: event loop (referenced); ifname: for messages; spec: copied;
 *  phc_index: /dev/ptpN of the interface, -1 for none; cb may be NULL.
 *  The status is "unsynced"/"not checked yet" (or "not-configured") until
 *  the first check completes. Returns 0 and *ret; -ENOMEM; -errno from
 *  pmc_client_new() when the client socket cannot be made. */
int clock_check_new(sd_event *e, const char *ifname, const ClockSpec *spec, int phc_index,
                    clock_check_changed_fn cb, void *userdata, ClockCheck **ret);

/** Stop and free. Accepts NULL; returns NULL. */
ClockCheck *clock_check_free(ClockCheck *cc);
DEFINE_TRIVIAL_CLEANUP_FUNC(ClockCheck *, clock_check_free);

/** Check now and then every interval_usec (0: CLOCK_CHECK_DEFAULT_INTERVAL_USEC).
 *  ptp4l must answer within half the interval, at most 1 s and at least
 *  100 ms. Returns 0 or -errno from sd-event. */
int clock_check_start(ClockCheck *cc, uint64_t interval_usec);

/** Start a check now unless one is running (then that one's result will
 *  do). Returns 0. */
int clock_check_run_now(ClockCheck *cc);

/** The latest status (never NULL). */
const ClockStatus *clock_check_status(const ClockCheck *cc);

/** The ptp4l socket the check last reached: the schedule's ptp4l_socket,
 *  else the first default path where ptp4l took a request; NULL before any. */
const char *clock_check_socket(const ClockCheck *cc);

/** Management requests sent to ptp4l so far (queries and subscriptions). */
uint64_t clock_check_requests(const ClockCheck *cc);

/** Notifications received from ptp4l so far. */
uint64_t clock_check_notifications(const ClockCheck *cc);

/** True while ptp4l has taken the subscription to its notifications (the
 *  periodic checks then ask only for what notifications do not bring). */
bool clock_check_subscribed(const ClockCheck *cc);

/** True while a check waits for ptp4l. */
bool clock_check_running(const ClockCheck *cc);

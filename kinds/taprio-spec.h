/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio's own settings in the schedule model (RootSpec.taprio,
 * lib/schedule.h): its gate list, cycle, base time, clock, mode, txtime
 * delay, max SDU per class and what a dump adds. Everything else about
 * taprio is kinds/taprio.c and taprio-keys.c. On the model's floor
 * (scripts/check-rooms.py) because RootSpec holds it. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* 16 traffic classes at most (TBS_MAX_TC, TC_QOPT_MAX_QUEUE). */
#define TBS_TAPRIO_MAX_TC 16

/* Software and txtime-assist taprio run a timer per entry: shorter entries
 * stall the kernel (50 us entries slowed the test kernel 44-fold). The
 * floor of the "software-gate-interval" safety check (lib/schedule-safety.c),
 * which a file's "allow" lifts. */
#define TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS 100000

/* Default of root.change_margin_ns: how far after now a schedule changed
 * in place starts at the earliest (see taprio_change_base_time() in kinds/taprio.c). */
#define TBS_TAPRIO_CHANGE_MARGIN_NS 100000000LL
#define TBS_TAPRIO_CHANGE_MARGIN_MIN_NS 1000000LL
#define TBS_TAPRIO_CHANGE_MARGIN_MAX_NS 3600000000000LL

typedef enum TaprioMode {
        TAPRIO_MODE_SOFTWARE,       /* flags 0 */
        TAPRIO_MODE_TXTIME_ASSIST,  /* flags TAPRIO_ATTR_FLAG_TXTIME_ASSIST (0x1) */
        TAPRIO_MODE_FULL_OFFLOAD,   /* flags TAPRIO_ATTR_FLAG_FULL_OFFLOAD (0x2) */
        _TAPRIO_MODE_MAX,
        _TAPRIO_MODE_INVALID = -EINVAL
} TaprioMode;

/* Values equal the kernel's TC_TAPRIO_CMD_* */
typedef enum GateCommand {
        GATE_SET_GATES = 0,
        GATE_SET_AND_HOLD = 1,
        GATE_SET_AND_RELEASE = 2,
        _GATE_COMMAND_MAX,
        _GATE_COMMAND_INVALID = -EINVAL
} GateCommand;

typedef struct GateEntry {
        GateCommand command;
        uint32_t gate_mask;
        uint32_t interval_ns;
} GateEntry;

/* A taprio gate schedule as a kernel dump carries it besides the one the
 * TaprioSpec holds (the running "oper" schedule while another, newer
 * one waits for its base time). */
typedef struct GateSchedule {
        int64_t base_time_ns;
        int64_t cycle_time_ns;
        int64_t cycle_time_extension_ns;
        GateEntry *entries;
        size_t n_entries;
} GateSchedule;

typedef struct TaprioSpec {
        clockid_t clockid;                    /* CLOCK_TAI by default */
        int64_t base_time_ns;
        int64_t cycle_time_ns;                /* effective: sum of intervals when not given */
        bool cycle_time_given;
        int64_t cycle_time_extension_ns;
        TaprioMode mode;
        uint32_t txtime_delay_ns;             /* txtime-assist only */
        GateEntry *entries;
        size_t n_entries;
        bool base_time_now;                   /* the file said "now": any base time satisfies it */
        int64_t change_margin_ns;             /* an in-place change starts no earlier than now + this */
        uint32_t max_sdu[TBS_TAPRIO_MAX_TC];  /* bytes per traffic class, 0: no limit */
        bool max_sdu_given;                   /* the request carries TCA_TAPRIO_ATTR_TC_ENTRY */
        uint8_t n_max_sdu;                    /* entries the file gave (the validator wants num_tc) */

        /* from a kernel dump only */
        bool max_sdu_dumped;                  /* the dump carried TC entries: the kernel knows them */
        bool admin_pending;                   /* the schedule above is the admin one, waiting for
                                               * its base time */
        GateSchedule oper;                    /* with admin_pending: the running one (no entries:
                                               * none runs yet) */
} TaprioSpec;

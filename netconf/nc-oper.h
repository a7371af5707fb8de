/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational gate parameters of an interface (ieee802-dot1q-sched's
 * config false nodes) from tbsd's Link.Describe() document. Pure, so
 * that it is tested without libyuma or a bus. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "../lib/taprio-limits.h"

#define NC_OPER_MAX_ENTRIES TBS_TAPRIO_MAX_ENTRIES
#define NC_OPER_MAX_CLASSES 16

struct nc_oper {
        bool taprio;         /* the installed root is a taprio */
        clockid_t clockid;   /* its clock */
        bool change_pending; /* an admin schedule waits for its base time */
        int64_t base_time_ns, cycle_time_ns, cycle_time_extension_ns;
        unsigned n_entries;
        uint32_t gate_mask[NC_OPER_MAX_ENTRIES];
        uint32_t interval_ns[NC_OPER_MAX_ENTRIES];
        uint8_t operation[NC_OPER_MAX_ENTRIES]; /* enum nc_oper_operation */
        /* The admin schedule waiting for its base time (change_pending). */
        bool have_admin;
        int64_t admin_base_time_ns, admin_cycle_time_ns;
        /* transmission-overrun per traffic class: root.class_stats[].tx_overruns,
         * there only where the kernel gave a figure for every TX queue of the
         * class (a driver that offloads taprio and counts them, Linux 6.5+). */
        bool have_overruns[NC_OPER_MAX_CLASSES];
        uint64_t overruns[NC_OPER_MAX_CLASSES];
        /* config-change-error: the link's schedule changes that failed,
         * counters.apply_failures + counters.changes_refused. */
        bool have_change_errors;
        uint64_t change_errors;
};

enum nc_oper_operation { NC_OPER_SET_GATES, NC_OPER_SET_AND_HOLD, NC_OPER_SET_AND_RELEASE };

/* Read Describe()'s JSON text. Returns 0, or -1 when it is not a
 * document of that shape (then o->taprio is false). A root that is not a
 * taprio gives 0 with o->taprio false. */
int nc_oper_from_describe(const char *json, struct nc_oper *o);

/* The gate states in force at now_ns (on o->clockid): the mask of the
 * entry running then, bits above 7 dropped (the standard's octet); 255
 * (all open) before the base time, as Linux's taprio has no entry then,
 * and without a taprio. */
uint8_t nc_oper_gate_states(const struct nc_oper *o, int64_t now_ns);

/* The identity (ieee802-dot1q-sched, local name) of entry i's operation:
 * set-gate-states, set-and-hold-mac or set-and-release-mac. */
const char *nc_oper_operation_name(const struct nc_oper *o, unsigned i);

/* A gate control entry's gate-states-value: its mask, bits above 7
 * dropped (the standard's octet). */
uint8_t nc_oper_entry_gates(const struct nc_oper *o, unsigned i);

/* ns as the standard's rational-grouping (seconds, reduced): 0, or -1
 * when ns is not above 0 or the numerator does not fit 32 bits. */
int nc_oper_rational(int64_t ns, uint32_t *numerator, uint32_t *denominator);

/* ns as the standard's ptp-time-grouping: 0, or -1 when ns is below 0. */
int nc_oper_ptp_time(int64_t ns, uint64_t *seconds, uint32_t *nanoseconds);

/* config-change-time: when the pending admin schedule takes over, seen at
 * now_ns: its base time, or (a base time in the past) the first start of
 * its cycle not before now_ns, as taprio starts it. Returns 0, or -1 when
 * no change is pending. */
int nc_oper_config_change_time(const struct nc_oper *o, int64_t now_ns, int64_t *at_ns);

/* The rest of the operational state (tbsd's module, container state):
 * who gave the link its schedule (origin), the link's state and reason, the clock check's state and reason, and
 * per TX queue of the schedule the qdisc's counters and, where a launch
 * monitor runs, its histogram summary. */
#define NC_OPER_MAX_QUEUES 64

struct nc_oper_queue {
        uint32_t queue;
        bool have_stats;
        uint64_t sent_packets, sent_bytes, dropped, overlimits;
        bool monitor;                    /* a launch monitor runs on it */
        uint64_t launch_count, launch_early, launch_late;
        bool have_launch_minmax;
        int64_t launch_min_ns, launch_max_ns;
};

struct nc_oper_state {
        char origin[64];                 /* Describe()'s origin: "file", "netconf", ...; empty: none */
        char link_state[16];
        char link_reason[256];
        char clock_state[24];            /* empty without clock checks */
        char clock_reason[256];
        unsigned n_queues;
        struct nc_oper_queue queues[NC_OPER_MAX_QUEUES];
};

/* Read Describe()'s JSON text into st. Returns 0, or -1 when it is not a
 * JSON object. Missing members leave their fields empty or zero. */
int nc_oper_state_from_describe(const char *json, struct nc_oper_state *st);

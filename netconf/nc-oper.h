/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational gate parameters of an interface (ieee802-dot1q-sched's
 * config false nodes) from tbsd's Link.Describe() document. Pure, so
 * that it is tested without libyuma or a bus. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NC_OPER_MAX_ENTRIES 80

struct nc_oper {
        bool taprio;         /* the installed root is a taprio */
        clockid_t clockid;   /* its clock */
        bool change_pending; /* an admin schedule waits for its base time */
        int64_t base_time_ns, cycle_time_ns, cycle_time_extension_ns;
        unsigned n_entries;
        uint32_t gate_mask[NC_OPER_MAX_ENTRIES];
        uint32_t interval_ns[NC_OPER_MAX_ENTRIES];
};

/* Read Describe()'s JSON text. Returns 0, or -1 when it is not a
 * document of that shape (then o->taprio is false). A root that is not a
 * taprio gives 0 with o->taprio false. */
int nc_oper_from_describe(const char *json, struct nc_oper *o);

/* The gate states in force at now_ns (on o->clockid): the mask of the
 * entry running then, bits above 7 dropped (the standard's octet); 255
 * (all open) before the base time, as Linux's taprio has no entry then,
 * and without a taprio. */
uint8_t nc_oper_gate_states(const struct nc_oper *o, int64_t now_ns);

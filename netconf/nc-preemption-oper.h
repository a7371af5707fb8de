/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame preemption's operational nodes (ieee802-dot1dc-preemption-if's
 * preemption-active, ieee802-ethernet-mac-merge's admin-status and
 * statistics) from tbsd's Link.Describe() document, whose "mac_merge" is
 * what tbsd reads with ethtool netlink's MM_GET. Pure (tested without
 * libyuma, tests/unit/test-nc-preemption-oper.c). A value the device
 * cannot say is not set here, so its leaf is absent, never 0. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The statistics leaves, in the order of Describe()'s counters. */
#define NC_MM_COUNTERS 6
extern const char *const nc_mm_counter_leaves[NC_MM_COUNTERS];

struct nc_mm_oper {
        const char *merge_support;     /* "Supported", "NotSupported"; NULL: not known */
        const char *preemption_active; /* "true", "false"; NULL: not known */
        const char *verify_status;     /* one of the module's enumeration; NULL: not known */
        const char *status_tx;         /* "active", "inactive"; NULL: not known */
        unsigned counters_present;     /* bit i: counters[i] is said */
        uint64_t counters[NC_MM_COUNTERS];
};

/* Read Describe()'s JSON text into *o (everything unknown first).
 * Returns 0, or -1 when it is not a JSON object. */
int nc_mm_oper_from_describe(const char *json, struct nc_mm_oper *o);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* etf's own settings in the schedule model (EtfSpec.etf, lib/schedule.h;
 * an etf queue's, or a cbs's etf child's): struct tc_etf_qopt's clock,
 * delta and flags. Everything else about etf is kinds/etf.c. On the
 * model's floor (scripts/check-rooms.py) because EtfSpec holds it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

typedef struct EtfOptions {
        clockid_t clockid;                    /* only CLOCK_TAI is valid */
        int32_t delta_ns;                     /* the kernel's shape (tc_etf_qopt.delta); a file's is 0..INT32_MAX */
        bool deadline_mode;
        bool skip_sock_check;
} EtfOptions;

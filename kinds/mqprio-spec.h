/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mqprio's own settings in the schedule model (RootSpec.mqprio,
 * lib/schedule.h); everything else about mqprio is kinds/mqprio.c. On the
 * model's floor (scripts/check-rooms.py) because RootSpec holds it. */
#pragma once

#include <stdbool.h>

typedef struct MqprioSpec {
        bool hw_offload;                      /* "hw": the NIC maps the classes to queues */
} MqprioSpec;

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cleanup attributes for sd-bus and sd-event objects, on top of the
 * sd_*_unrefp() helpers libsystemd's headers define. Header only, so the
 * shared library itself needs no libsystemd. */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "macro.h"


#define _cleanup_bus_ _cleanup_(sd_bus_flush_close_unrefp)
#define _cleanup_bus_message_ _cleanup_(sd_bus_message_unrefp)
#define _cleanup_bus_slot_ _cleanup_(sd_bus_slot_unrefp)
#define _cleanup_event_ _cleanup_(sd_event_unrefp)
#define _cleanup_event_source_ _cleanup_(sd_event_source_unrefp)
#define _cleanup_bus_error_ _cleanup_(sd_bus_error_free)

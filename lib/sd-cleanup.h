/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cleanup helpers for sd-bus, sd-event and json-c objects. Header only, so
 * the shared library itself needs no libsystemd. */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(sd_bus *, sd_bus_flush_close_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(sd_bus_message *, sd_bus_message_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(sd_bus_slot *, sd_bus_slot_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(sd_event *, sd_event_unref);
DEFINE_TRIVIAL_CLEANUP_FUNC(sd_event_source *, sd_event_source_unref);

#define _cleanup_bus_ _cleanup_(sd_bus_flush_close_unrefp)
#define _cleanup_bus_message_ _cleanup_(sd_bus_message_unrefp)
#define _cleanup_bus_slot_ _cleanup_(sd_bus_slot_unrefp)
#define _cleanup_event_ _cleanup_(sd_event_unrefp)
#define _cleanup_event_source_ _cleanup_(sd_event_source_unrefp)
#define _cleanup_bus_error_ _cleanup_(sd_bus_error_free)

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.GetCapabilities() (daemon/manager/device-bus.c): what the
 * capability probe knows of an interface, whether or not tbsd manages it.
 * userdata: the Manager. */
#pragma once

#include <systemd/sd-bus.h>

/** GetCapabilities(s interface) -> (s capabilities_json): the probe's
 *  object of the interface (caps_to_json(), Describe()'s "capabilities",
 *  `tbsctl --json caps`), from the Manager's capability cache. Callable by
 *  the callers of GetSchedule (root, the admin group, the schedule group):
 *  the NETCONF server module derives a taprio root's mode from it. */
int device_bus_capabilities(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Link methods for sending applications: OpenTxtimeSocket() hands out
 * a socket set up for a TX queue's etf, GetTxtimeWindow() says when a
 * taprio root lets a traffic class send. Listed in link_bus_vtable
 * (link-bus.c); the Link is the userdata, the Manager the vtable's. */
#pragma once

#include <systemd/sd-bus.h>

/** OpenTxtimeSocket(u queue, s kind, a{sv} options)
 *  -> (h fd, u priority, i clockid, u txtime_flags, u delta_ns). */
int txtime_bus_open_socket(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** GetTxtimeWindow(u traffic_class)
 *  -> (t base_time_ns, t cycle_time_ns, a(tt) windows). */
int txtime_bus_get_window(sd_bus_message *msg, void *userdata, sd_bus_error *error);

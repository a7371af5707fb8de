/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Link.AddStream() / Link.RemoveStream() (daemon/manager/stream-bus.c). */
#pragma once

#include <systemd/sd-bus.h>

#include "manager.h"

/** AddStream(a{sv} stream) -> (t offset_ns, u traffic_class, u priority):
 *  place a stream (the keys of a file's stream) in the link's schedule,
 *  keep it in the state directory and apply; priority is the lowest socket
 *  priority of its class (4294967295: none). userdata: the Link. */
int stream_bus_add(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** RemoveStream(s name): take out a stream added over the bus. */
int stream_bus_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error);

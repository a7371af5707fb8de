/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The signals tbsd owes its bus clients, queued and sent once the event
 * loop is idle, in the manner of systemd's D-Bus queue: a method's reply
 * goes out before the signals its work caused, and the property changes of
 * one object are coalesced into one PropertiesChanged carrying the values
 * of the moment it is sent. Order is kept otherwise: an object is added
 * before its properties change and an Event follows the changes queued
 * before it. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

typedef struct BusQueue BusQueue;

/** A queue sending on bus from an idle (defer) source of event. */
int bus_queue_new(sd_bus *bus, sd_event *event, BusQueue **ret);
/** Send what is queued, then free the queue. NULL is fine. */
BusQueue *bus_queue_free(BusQueue *q);

/** InterfacesAdded of the object at path (its current properties). */
void bus_queue_object_added(BusQueue *q, const char *path);
/** InterfacesRemoved: what was queued for path and not sent is dropped
 *  (all of it, with no signal at all, when its addition was not sent
 *  either). */
void bus_queue_object_removed(BusQueue *q, const char *path);
/** PropertiesChanged of interface at path for names (NULL-terminated). */
void bus_queue_properties_changed(BusQueue *q, const char *path, const char *interface, char **names);
/** A signal "sss" of interface at path. */
void bus_queue_signal_sss(BusQueue *q, const char *path, const char *interface, const char *member,
                          const char *a, const char *b, const char *c);
/** Send everything queued now. */
void bus_queue_flush(BusQueue *q);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd's D-Bus objects: the Manager at /org/tsn/Tbs and one Link object per
 * interface below /org/tsn/Tbs/link (dbus/org.tsn.Tbs.xml). */
#pragma once

#include "bus-names.h"
#include "manager.h"

/** Connect to the system bus, register the objects, take org.tsn.Tbs and
 *  attach to the event loop. */
int manager_connect_bus(Manager *m);

/** Object path of a link name (sd_bus_path_encode). */
int link_object_path(const char *name, char **ret);

/** Emit PropertiesChanged for a link's properties (NULL-terminated names) */
void link_emit_changed(Link *l, const char *first, ...);

/** Announce a new / gone link object (ObjectManager InterfacesAdded/Removed). */
void link_bus_added(Link *l);
void link_bus_removed(Link *l);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Link objects on the bus (org.tsn.Tbs.Link below /org/tsn/Tbs/link). */
#pragma once

#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "manager.h"

/* Registered by manager_connect_bus() as a fallback vtable with the Manager
 * as userdata, with link_bus_find() and link_bus_enumerate(). */
extern const sd_bus_vtable link_bus_vtable[];

/** Object path of a link name (sd_bus_path_encode). */
int link_object_path(const char *name, char **ret);

/** sd-bus find callback: the Link of path (userdata: the Manager). */
int link_bus_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                  sd_bus_error *error);
/** sd-bus node enumerator: every link's object path (userdata: the Manager). */
int link_bus_enumerate(sd_bus *bus, const char *path, void *userdata, char ***ret_nodes, sd_bus_error *error);

/** LinkContext.properties_changed (bus_userdata: the sd_bus): emit
 *  PropertiesChanged for names. */
void link_bus_properties_changed(Link *l, char **names, void *bus_userdata);

/** ManagerObserver.link_added / link_removed: announce the link's object
 *  (ObjectManager InterfacesAdded / InterfacesRemoved). */
void link_bus_added(Manager *m, Link *l);
void link_bus_removed(Manager *m, Link *l);

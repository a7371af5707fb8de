/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd's D-Bus objects: the Manager at /org/tsn/Tbs and one Link object per
 * interface below /org/tsn/Tbs/link (dbus/org.tsn.Tbs.xml; link-bus.h). */
#pragma once

#include "bus-names.h"
#include "manager.h"

/** Connect to the system bus, register the objects, take org.tsn.Tbs,
 *  attach to the manager's event loop, and install the observer and the
 *  links' property callback that tell the bus of every change. */
int manager_connect_bus(Manager *m);

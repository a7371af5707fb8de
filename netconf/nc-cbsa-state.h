/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cbsa table's operational leaf on netconfd's values (nc-cbsa-state.c). */
#pragma once

#include "nc-sil-internal.h"

/* Each cbsa-parameter-table entry of the interface entry iface (of the
 * running datastore) gets oper-idle-slope, a virtual leaf read when a
 * <get> reaches it from the interface's Describe() document in the
 * module's view (nc-view.h). */
status_t nc_cbsa_add_oper(val_value_t *iface);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame preemption's operational nodes as netconfd's virtual nodes
 * (nc-preemption-state.c), for netconf/ only. */
#pragma once

#include "nc-sil-internal.h"

/* Adds, to one interface entry of the running datastore, the virtual
 * nodes read when a <get> reaches them: preemption-active under its
 * frame-preemption-parameters, admin-status and statistics under its
 * ethernet/mac-merge (where the entry has those containers). */
status_t nc_preemption_add_oper(val_value_t *entry);

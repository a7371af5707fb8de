/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Confirmed commits (RFC 6241 8.4, issue 48): netconfd rolls an
 * unconfirmed commit back (its timeout, <cancel-commit>, the session of a
 * commit without <persist> closing) by loading its copy of the running
 * datastore, calling no module; it then queues the notification
 * netconf-confirmed-commit (RFC 6470) with confirm-event "timeout" or
 * "cancel". The server module watches netconfd's notifications for it and
 * gives tbsd the running datastore back at once. */
#pragma once

#include "status.h"

/* Call rolled_back() whenever netconfd rolled a confirmed commit back
 * (the running datastore and the candidate are the previous ones by
 * then). */
status_t nc_confirmed_register(void (*rolled_back)(void));
void nc_confirmed_unregister(void);

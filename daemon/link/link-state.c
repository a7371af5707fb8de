/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a link's state says, for the link's files and the manager. Apart
 * from link.c, which sets the state and calls the monitor (link-monitor.c
 * asks this), so the calls between them run one way. */
#include "link-internal.h"

bool link_is_installed(const Link *l) {
        return l->state == LINK_STATE_CONFIGURED || l->state == LINK_STATE_DEGRADED ||
               (l->state == LINK_STATE_PENDING && l->rt->applied && l->rt->relock.waiting);
}

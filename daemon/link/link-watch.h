/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Watches rtnetlink for link and qdisc changes (RTNLGRP_LINK, RTNLGRP_TC)
 * from the event loop. It only reports what happened; the manager decides
 * what to do. A receive-buffer overrun (ENOBUFS) is reported as
 * LINK_WATCH_OVERRUN: notifications were lost, so everything must be
 * looked at again. */
#pragma once

#include <net/if.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef enum LinkWatchKind {
        LINK_WATCH_LINK_NEW,    /* RTM_NEWLINK: appeared, renamed or changed */
        LINK_WATCH_LINK_DEL,    /* RTM_DELLINK */
        LINK_WATCH_QDISC,       /* RTM_NEWQDISC / RTM_DELQDISC on ifindex */
        LINK_WATCH_OVERRUN,     /* notifications were lost */
        _LINK_WATCH_KIND_MAX,
        _LINK_WATCH_KIND_INVALID = -EINVAL,
} LinkWatchKind;

typedef struct LinkWatchEvent {
        LinkWatchKind kind;
        int ifindex;
        char ifname[IFNAMSIZ];  /* LINK_NEW / LINK_DEL; "" when the message had none */
} LinkWatchEvent;

typedef struct LinkWatch LinkWatch;
typedef void (*link_watch_fn)(const LinkWatchEvent *ev, void *userdata);

/** Open the notification socket and attach it to e. Returns 0 or -errno. */
int link_watch_new(sd_event *e, link_watch_fn cb, void *userdata, LinkWatch **ret);
/** Detach and close. Accepts NULL; returns NULL. */
LinkWatch *link_watch_free(LinkWatch *w);

/** Read every notification waiting on the socket now and report it, as the
 *  event loop would have: afterwards every link and qdisc change the kernel
 *  completed before the call has been reported (the kernel queues a
 *  notification before the change's own system call returns), or an
 *  overrun. Returns 0 or -errno. */
int link_watch_drain(LinkWatch *w);

/** Parse a buffer of rtnetlink notifications and call cb for each one that
 *  matters. Returns the number of events or -EBADMSG. (The seam the unit
 *  tests use.) */
int link_watch_parse(const void *buf, size_t len, link_watch_fn cb, void *userdata);

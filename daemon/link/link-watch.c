/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/msg.h>
#include <netlink/route/link.h>

#include "link-watch.h"
#include "log.h"

/* Large enough that a burst of qdisc changes on hundreds of links does not
 * overrun it; an overrun still only costs a re-dump. */
#define WATCH_RCVBUF (4 * 1024 * 1024)

struct LinkWatch {
        int fd;
        sd_event_source *source;
        link_watch_fn cb;
        void *userdata;
};

/* What libnl-route's link object says of the message: index and name. */
static void link_object_cb(struct nl_object *o, void *userdata) {
        LinkWatchEvent *ev = userdata;
        struct rtnl_link *l = (struct rtnl_link *) o;
        const char *name = rtnl_link_get_name(l);

        ev->ifindex = rtnl_link_get_ifindex(l);
        if (name)
                snprintf(ev->ifname, sizeof(ev->ifname), "%s", name);
}

/* Index and name of a link notification, read by libnl-route (struct
 * rtnl_link). A message its parser refuses (the kernel always names the
 * link; a message without IFLA_IFNAME is refused) still reports the index
 * of its header, with no name. */
static void event_from_link(const struct nlmsghdr *h, LinkWatchEvent *ev) {
        const struct ifinfomsg *ifi = NLMSG_DATA(h);
        struct nl_msg *m;

        ev->ifindex = ifi->ifi_index;
        ev->ifname[0] = 0;
        m = nlmsg_convert((struct nlmsghdr *) h);
        if (!m)
                return;
        nlmsg_set_proto(m, NETLINK_ROUTE);
        if (nl_msg_parse(m, link_object_cb, ev) < 0) {
                ev->ifindex = ifi->ifi_index;
                ev->ifname[0] = 0;
        }
        nlmsg_free(m);
}

int link_watch_parse(const void *buf, size_t len, link_watch_fn cb, void *userdata) {
        int n = 0;

        for (const struct nlmsghdr *h = buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
                LinkWatchEvent ev = {};

                switch (h->nlmsg_type) {
                case RTM_NEWLINK:
                case RTM_DELLINK:
                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
                                return -EBADMSG;
                        ev.kind = h->nlmsg_type == RTM_NEWLINK ? LINK_WATCH_LINK_NEW : LINK_WATCH_LINK_DEL;
                        event_from_link(h, &ev);
                        break;
                case RTM_NEWQDISC:
                case RTM_DELQDISC:
                case RTM_DELTFILTER:    /* the socket guard's filters (drift) */
                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct tcmsg)))
                                return -EBADMSG;
                        ev.kind = LINK_WATCH_QDISC;
                        ev.ifindex = ((const struct tcmsg *) NLMSG_DATA(h))->tcm_ifindex;
                        break;
                default:
                        continue;
                }
                cb(&ev, userdata);
                n++;
        }
        return n;
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        LinkWatch *w = userdata;
        /* Aligned for struct nlmsghdr. */
        static uint32_t buf[16384];

        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return 0;
                        if (errno == ENOBUFS) {
                                log_notice("netlink notifications were lost (receive buffer overrun): rescanning");
                                w->cb(&(LinkWatchEvent) { .kind = LINK_WATCH_OVERRUN }, w->userdata);
                                continue;
                        }
                        return log_warning_errno(errno, "netlink watch: recv failed: %m");
                }
                if (n == 0)
                        return 0;
                if (link_watch_parse(buf, (size_t) n, w->cb, w->userdata) < 0)
                        log_debug("netlink watch: malformed notification ignored");
        }
}

int link_watch_drain(LinkWatch *w) {
        return on_readable(w->source, w->fd, EPOLLIN, w);
}

int link_watch_new(sd_event *e, link_watch_fn cb, void *userdata, LinkWatch **ret) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
        static const int groups[] = { RTNLGRP_LINK, RTNLGRP_TC };
        int bufsize = WATCH_RCVBUF;
        LinkWatch *w;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->cb = cb;
        w->userdata = userdata;
        w->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (w->fd < 0) {
                r = negative_errno();
                goto fail;
        }
        /* SO_RCVBUFFORCE needs CAP_NET_ADMIN, which tbsd has; fall back quietly. */
        if (setsockopt(w->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)) < 0)
                (void) setsockopt(w->fd, SOL_SOCKET, SO_RCVBUF, &bufsize, sizeof(bufsize));
        if (bind(w->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
                r = negative_errno();
                goto fail;
        }
        for (size_t i = 0; i < ELEMENTSOF(groups); i++)
                if (setsockopt(w->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &groups[i], sizeof(int)) < 0) {
                        r = negative_errno();
                        goto fail;
                }
        r = sd_event_add_io(e, &w->source, w->fd, EPOLLIN, on_readable, w);
        if (r < 0)
                goto fail;
        *ret = w;
        return 0;
fail:
        link_watch_free(w);
        return r;
}

LinkWatch *link_watch_free(LinkWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        if (w->fd >= 0)
                close(w->fd);
        free(w);
        return NULL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interface names to indexes over rtnetlink (link-name.h). Why not
 * if_nametoindex() or SIOCGIFINDEX: every interface ioctl that names a
 * device goes through the kernel's dev_load(), which, in a process with
 * CAP_NET_ADMIN or CAP_SYS_MODULE, asks modprobe for "netdev-NAME" and
 * "NAME" when no device has that name. tbsd runs as root and takes names
 * from callers (the bus, NETCONF through it, schedule files): a name it
 * looked up that way would load whatever module a caller named, and wait
 * for modprobe while it does. RTM_GETLINK by IFLA_IFNAME only looks. */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "link-name.h"
#include "macro.h"
#include "utf8.h"

#ifndef RTEXT_FILTER_SKIP_STATS
#define RTEXT_FILTER_SKIP_STATS (1 << 3)
#endif

const char *link_name_refusal(const char *s) {
        size_t n = strlen(s);

        if (n == 0)
                return "is empty";
        if (n >= IFNAMSIZ)
                return "is longer than 15 bytes";
        if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return "is a folder's name";
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '/' || s[i] == ':' || s[i] == ' ')
                        return "has '/', ':' or a space, which no interface name has";
                if (s[i] == '%')
                        return "has '%', which no interface name has";
        }
        if (!text_is_safe(s))
                return "has control characters or is not UTF-8";
        return NULL;
}

int link_name_request(void *buf, size_t size, const char *ifname, uint32_t seq) {
        size_t n = ifname ? strlen(ifname) : 0;
        struct nlmsghdr *h = buf;
        struct ifinfomsg *ifi;
        struct rtattr *a;
        size_t len = NLMSG_LENGTH(sizeof(struct ifinfomsg)) + RTA_SPACE(IFNAMSIZ) + RTA_SPACE(sizeof(uint32_t));
        uint32_t mask = RTEXT_FILTER_SKIP_STATS;

        if (n == 0 || n >= IFNAMSIZ)
                return -EINVAL;
        if (size < len)
                return -ENOBUFS;
        memset(buf, 0, len);
        *h = (struct nlmsghdr) { .nlmsg_type = RTM_GETLINK, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = seq };
        ifi = NLMSG_DATA(h);
        ifi->ifi_family = AF_UNSPEC;
        h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));

        a = (struct rtattr *) ((uint8_t *) buf + NLMSG_ALIGN(h->nlmsg_len));
        a->rta_type = IFLA_IFNAME;
        a->rta_len = RTA_LENGTH(n + 1);
        memcpy(RTA_DATA(a), ifname, n + 1);
        h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);

        /* Counters are not wanted: a smaller answer. */
        a = (struct rtattr *) ((uint8_t *) buf + h->nlmsg_len);
        a->rta_type = IFLA_EXT_MASK;
        a->rta_len = RTA_LENGTH(sizeof(uint32_t));
        memcpy(RTA_DATA(a), &mask, sizeof(mask));
        h->nlmsg_len += RTA_ALIGN(a->rta_len);
        return (int) h->nlmsg_len;
}

int link_name_parse(const void *buf, size_t len, uint32_t seq, unsigned *ret_flags) {
        const struct nlmsghdr *h = buf;

        for (; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
                if (h->nlmsg_seq != seq)
                        continue;
                if (h->nlmsg_type == NLMSG_ERROR) {
                        const struct nlmsgerr *e = NLMSG_DATA(h);

                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
                                return -EBADMSG;
                        return e->error < 0 ? e->error : -EBADMSG;
                }
                if (h->nlmsg_type == RTM_NEWLINK) {
                        const struct ifinfomsg *ifi = NLMSG_DATA(h);

                        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) || ifi->ifi_index <= 0)
                                return -EBADMSG;
                        if (ret_flags)
                                *ret_flags = ifi->ifi_flags;
                        return ifi->ifi_index;
                }
        }
        return 0;       /* not answered yet */
}

/* The process's one rtnetlink socket for lookups, opened at the first
 * (a call naming a thousand interfaces makes a thousand lookups: one
 * request and one answer each, not a socket each); closed after an error
 * and opened again at the next lookup. */
static int shared_fd = -1;
static uint32_t shared_seq;

static int shared_socket(void) {
        struct timeval tv = { .tv_sec = 5 };

        if (shared_fd >= 0)
                return shared_fd;
        shared_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
        if (shared_fd < 0)
                return -errno;
        (void) setsockopt(shared_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return shared_fd;
}

static void shared_close(void) {
        if (shared_fd >= 0)
                (void) close(shared_fd);
        shared_fd = -1;
}

int link_name_lookup(const char *ifname, unsigned *ret_flags) {
        _Alignas(struct nlmsghdr) uint8_t req[128];
        /* The answer's head is all that is read: a longer answer is cut
         * (MSG_TRUNC), which keeps the head. */
        _Alignas(struct nlmsghdr) uint8_t buf[4096];
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        uint32_t seq = ++shared_seq ?: ++shared_seq;
        int fd, len, r;

        len = link_name_request(req, sizeof(req), ifname, seq);
        if (len < 0)
                return len;
        fd = shared_socket();
        if (fd < 0)
                return fd;
        if (sendto(fd, req, (size_t) len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0) {
                r = -errno;
                shared_close();
                return r;
        }
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EBADMSG;
                        shared_close();         /* an answer may still come: not on this socket */
                        return r;
                }
                /* 0: an older request's late answer, skipped */
                r = link_name_parse(buf, (size_t) n, seq, ret_flags);
                if (r == -EBADMSG)
                        shared_close();
                if (r != 0)
                        return r;
        }
}

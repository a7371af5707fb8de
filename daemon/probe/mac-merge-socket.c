/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process's one ethtool generic netlink socket around the MAC merge
 * layer's messages (mac-merge.h; the bytes are mac-merge.c's): the family
 * resolved at the first question, MM_GET, MM_SET, the probe's question.
 * Apart from the messages so that a unit test of their callers
 * (tests/unit/test-link-mac-merge.c) can stand in for these three. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "log.h"
#include "mac-merge.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define MM_BUF 16384   /* the family's description (every command, its groups) is the largest answer */

typedef struct Genl {
        int fd;
        uint32_t seq;
        uint16_t family;
        bool has_mm_get;
} Genl;

static void genl_close(Genl *g) {
        if (g->fd >= 0)
                (void) close(g->fd);
        g->fd = -1;
}

/* Sends the len bytes of req and reads answers into buf until parse says
 * done. parse: one of mm_parse_*() bound by the callers below. */
typedef int (*ParseFn)(const void *buf, size_t len, uint32_t seq, void *userdata, char *err, size_t err_size);

static int genl_transact(Genl *g, const void *req, size_t len, ParseFn parse, void *userdata, char *err,
                         size_t err_size) {
        /* One thread; the family's description is too large for a small stack. */
        static _Alignas(struct nlmsghdr) uint8_t buf[MM_BUF];
        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
        ssize_t n;
        int r;

        if (sendto(g->fd, req, len, 0, (struct sockaddr *) &kernel, sizeof(kernel)) < 0) {
                r = -errno;
                genl_close(g);          /* opened again at the next question */
                return r;
        }
        for (;;) {
                n = recv(g->fd, buf, sizeof(buf), 0);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        r = n < 0 ? -errno : -EBADMSG;
                        genl_close(g);
                        return r;
                }
                r = parse(buf, (size_t) n, g->seq, userdata, err, err_size);
                if (r == -EBADMSG)
                        genl_close(g);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
}

static int parse_family_cb(const void *buf, size_t len, uint32_t seq, void *userdata, char *err, size_t err_size) {
        Genl *g = userdata;

        return mm_parse_family(buf, len, seq, &g->family, &g->has_mm_get, err, err_size);
}

static int parse_get_cb(const void *buf, size_t len, uint32_t seq, void *userdata, char *err, size_t err_size) {
        return mm_parse_get(buf, len, seq, userdata, err, err_size);
}

static int parse_ack_cb(const void *buf, size_t len, uint32_t seq, void *userdata, char *err, size_t err_size) {
        return mm_parse_ack(buf, len, seq, err, err_size);
}

/* The process's one NETLINK_GENERIC socket with ethtool's family resolved,
 * opened at the first question (a daemon probing hundreds of interfaces
 * resolves the family once): 0, -ENOENT without the family, or -errno. */
static Genl shared = { .fd = -1 };

static int genl_get(Genl **ret, char *err, size_t err_size) {
        _Alignas(struct nlmsghdr) uint8_t req[128];
        struct timeval tv = { .tv_sec = 5 };
        Genl *g = &shared;
        int one = 1, len, r;

        if (g->fd >= 0) {
                *ret = g;
                return 0;
        }
        *g = (Genl) { .fd = -1, .seq = 1 };
        g->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
        if (g->fd < 0)
                return -errno;
        (void) setsockopt(g->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
        (void) setsockopt(g->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
        (void) setsockopt(g->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        len = mm_msg_get_family(req, sizeof(req), g->seq);
        r = len < 0 ? len : genl_transact(g, req, (size_t) len, parse_family_cb, g, err, err_size);
        if (r < 0) {
                log_debug("ethtool netlink: resolving the family: %s", strerror(-r));
                genl_close(g);
                return r;
        }
        *ret = g;
        return 0;
}

int mac_merge_get(int ifindex, MacMergeState *ret, char *err, size_t err_size) {
        _Alignas(struct nlmsghdr) uint8_t req[128];
        Genl *g;
        int len, r;

        r = genl_get(&g, err, err_size);
        if (r < 0)
                return r;
        g->seq++;
        len = mm_msg_get(req, sizeof(req), g->family, g->seq, ifindex);
        r = len < 0 ? len : genl_transact(g, req, (size_t) len, parse_get_cb, ret, err, err_size);
        log_debug("ethtool netlink: MM_GET ifindex %d: %s", ifindex, r < 0 ? strerror(-r) : "ok");
        return r;
}

int mac_merge_set(int ifindex, const MacMergeSpec *want, const MacMergeState *have, char *err, size_t err_size) {
        _Alignas(struct nlmsghdr) uint8_t req[256];
        Genl *g;
        int len, r;

        len = mm_msg_set(req, sizeof(req), 0, 0, ifindex, want, have);
        if (len <= 0)
                return len;
        r = genl_get(&g, err, err_size);
        if (r < 0)
                return r;
        g->seq++;
        len = mm_msg_set(req, sizeof(req), g->family, g->seq, ifindex, want, have);
        r = len < 0 ? len : genl_transact(g, req, (size_t) len, parse_ack_cb, NULL, err, err_size);
        log_debug("ethtool netlink: MM_SET ifindex %d: %s", ifindex, r < 0 ? strerror(-r) : "ok");
        return r < 0 ? r : 1;
}

int mac_merge_probe(int ifindex) {
        /* Whether this kernel has MM_GET at all is the same for every
         * device: the family's command list, read once with the family, so
         * that probing many interfaces on a kernel before 6.3 costs one
         * question, not one per interface. */
        MacMergeState s;
        Genl *g;
        int r;

        r = genl_get(&g, NULL, 0);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (!g->has_mm_get)
                return 0;
        r = mac_merge_get(ifindex, &s, NULL, 0);
        if (r == -EOPNOTSUPP)
                return 0;
        return r < 0 ? r : 1;
}

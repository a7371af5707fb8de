/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "string-table.h"
#include "txtime-socket.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif
#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif

static const char *const kind_names[_TXTIME_SOCKET_KIND_MAX] = {
        [TXTIME_SOCKET_PACKET] = "packet",
        [TXTIME_SOCKET_UDP4] = "udp4",
        [TXTIME_SOCKET_UDP6] = "udp6",
};

DEFINE_STRING_TABLE_TO_STRING(txtime_socket_kind, TxtimeSocketKind, kind_names)
DEFINE_STRING_TABLE_FROM_STRING(txtime_socket_kind, TxtimeSocketKind, kind_names, _TXTIME_SOCKET_KIND_INVALID)

uint32_t txtime_timestamping_flags(bool hardware) {
        uint32_t f = SOF_TIMESTAMPING_OPT_ID;

        if (hardware)
                return f | SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;
        return f | SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
}

bool txtime_hardware_tx_stamps(uint32_t so_timestamping, uint32_t tx_types) {
        const uint32_t need = SOF_TIMESTAMPING_TX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE;

        return (so_timestamping & need) == need && (tx_types & (UINT32_C(1) << HWTSTAMP_TX_ON));
}

static int set_int(int fd, int level, int name, int value) {
        return setsockopt(fd, level, name, &value, sizeof(value)) < 0 ? -errno : 0;
}

int txtime_socket_open(const TxtimeSocketSpec *spec, int *ret_fd, const char **ret_step) {
        _cleanup_close_ int fd = -EBADF;
        struct sock_txtime st = {
                .clockid = spec->clockid,
                .flags = spec->txtime_flags,
        };
        const char *step;
        int r;

        switch (spec->kind) {
        case TXTIME_SOCKET_PACKET: {
                struct sockaddr_ll sll = {
                        .sll_family = AF_PACKET,
                        .sll_protocol = htons(spec->protocol),
                        .sll_ifindex = spec->ifindex,
                };

                /* Protocol 0 first: the socket receives nothing until it
                 * is bound to the one interface and EtherType, so the
                 * application never finds other interfaces' frames queued. */
                step = "socket(AF_PACKET)";
                fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        goto fail_errno;
                step = "bind(AF_PACKET)";
                if (bind(fd, (const struct sockaddr *) &sll, sizeof(sll)) < 0)
                        goto fail_errno;
                break;
        }
        case TXTIME_SOCKET_UDP4:
        case TXTIME_SOCKET_UDP6: {
                bool v6 = spec->kind == TXTIME_SOCKET_UDP6;

                step = v6 ? "socket(AF_INET6)" : "socket(AF_INET)";
                fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        goto fail_errno;
                /* The same binding as SO_BINDTODEVICE, by index: a rename
                 * between the lookup and here cannot bind another device. */
                step = "SO_BINDTOIFINDEX";
                r = set_int(fd, SOL_SOCKET, SO_BINDTOIFINDEX, spec->ifindex);
                if (r < 0)
                        goto fail;
                /* Without it, UDP counts a packet etf refuses at enqueue
                 * and the send still returns its length (libtbs/tbs.h). */
                step = v6 ? "IPV6_RECVERR" : "IP_RECVERR";
                r = set_int(fd, v6 ? SOL_IPV6 : SOL_IP, v6 ? IPV6_RECVERR : IP_RECVERR, 1);
                if (r < 0)
                        goto fail;
                break;
        }
        default:
                *ret_step = "kind";
                return -EINVAL;
        }

        step = "SO_PRIORITY";
        r = set_int(fd, SOL_SOCKET, SO_PRIORITY, (int) spec->priority);
        if (r < 0)
                goto fail;
        step = "SO_TXTIME";
        if (setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)) < 0)
                goto fail_errno;
        if (spec->timestamping) {
                step = "SO_TIMESTAMPING";
                r = set_int(fd, SOL_SOCKET, SO_TIMESTAMPING, (int) spec->timestamping);
                if (r < 0)
                        goto fail;
        }
        *ret_fd = TAKE_FD(fd);
        return 0;

fail_errno:
        r = -errno;
fail:
        *ret_step = step;
        return r;
}

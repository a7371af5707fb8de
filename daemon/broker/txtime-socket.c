/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <string.h>
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

void txtime_packet_filter(int ifindex, uint16_t protocol, struct sock_filter prog[static TXTIME_PACKET_FILTER_LEN]) {
        const struct sock_filter p[TXTIME_PACKET_FILTER_LEN] = {
                /* A = the interface the frame came in on */
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t) (SKF_AD_OFF + SKF_AD_IFINDEX)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t) ifindex, 0, 5),
                /* A = its EtherType, host order */
                BPF_STMT(BPF_LD | BPF_H | BPF_ABS, (uint32_t) (SKF_AD_OFF + SKF_AD_PROTOCOL)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, protocol, 0, 3),
                /* not a copy of a frame this host sends (ETH_P_ALL sees those) */
                BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t) (SKF_AD_OFF + SKF_AD_PKTTYPE)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 1, 0),
                BPF_STMT(BPF_RET | BPF_K, UINT32_MAX),  /* the whole frame */
                BPF_STMT(BPF_RET | BPF_K, 0),           /* nothing */
        };

        memcpy(prog, p, sizeof(p));
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
                struct sock_filter prog[TXTIME_PACKET_FILTER_LEN];
                const struct sock_fprog fprog = { .len = TXTIME_PACKET_FILTER_LEN, .filter = prog };

                /* Protocol 0 first: the socket receives nothing until it
                 * is bound to the one interface and EtherType, so the
                 * application never finds other interfaces' frames queued. */
                step = "socket(AF_PACKET)";
                fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
                if (fd < 0)
                        goto fail_errno;
                /* The holder may bind() the socket again, to any interface
                 * and EtherType, ETH_P_ALL included: Linux asks no
                 * capability for that. The filter, which it cannot take
                 * off or replace once locked, keeps what it receives to
                 * this interface's frames of this EtherType. */
                txtime_packet_filter(spec->ifindex, spec->protocol, prog);
                step = "SO_ATTACH_FILTER";
                if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof(fprog)) < 0)
                        goto fail_errno;
                step = "SO_LOCK_FILTER";
                r = set_int(fd, SOL_SOCKET, SO_LOCK_FILTER, 1);
                if (r < 0)
                        goto fail;
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

        /* The holder cannot change it (CAP_NET_ADMIN); the guard's
         * filters on the interfaces act on it. */
        if (spec->mark != 0) {
                step = "SO_MARK";
                r = set_int(fd, SOL_SOCKET, SO_MARK, (int) spec->mark);
                if (r < 0)
                        goto fail;
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

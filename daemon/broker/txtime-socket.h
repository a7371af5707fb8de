/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sockets tbsd hands to applications (Link.OpenTxtimeSocket()):
 * created and set up here with the daemon's privileges, an application
 * without them could not set SO_TXTIME with CLOCK_TAI (Linux >= 5.8 wants
 * CAP_NET_ADMIN for any clock but CLOCK_MONOTONIC), SO_PRIORITY above 6
 * (CAP_NET_ADMIN or CAP_NET_RAW) or open an AF_PACKET socket (CAP_NET_RAW).
 * Options an application may change later without privileges (a bound
 * port, SO_TIMESTAMPING) are its own business; what it can do beyond the
 * socket's purpose is in SECURITY.md ("Sockets from tbsd"). */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "macro.h"

typedef enum TxtimeSocketKind {
        TXTIME_SOCKET_PACKET,           /* AF_PACKET, SOCK_RAW, bound to the interface and an EtherType */
        TXTIME_SOCKET_UDP4,             /* AF_INET, SOCK_DGRAM, bound to the device */
        TXTIME_SOCKET_UDP6,             /* AF_INET6, SOCK_DGRAM, bound to the device */
        _TXTIME_SOCKET_KIND_MAX,
        _TXTIME_SOCKET_KIND_INVALID = -EINVAL,
} TxtimeSocketKind;

/* Every setting of one socket. */
typedef struct TxtimeSocketSpec {
        TxtimeSocketKind kind;
        int ifindex;
        uint16_t protocol;              /* packet: the EtherType, host order */
        uint32_t priority;              /* SO_PRIORITY */
        uint32_t mark;                  /* SO_MARK: the socket guard's (socket-guard.h), 0: none */
        clockid_t clockid;              /* SO_TXTIME */
        uint32_t txtime_flags;          /* SO_TXTIME: SOF_TXTIME_* */
        uint32_t timestamping;          /* SO_TIMESTAMPING: SOF_TIMESTAMPING_* bits, 0: not set */
} TxtimeSocketSpec;

/** "packet", "udp4", "udp6"; NULL for another value. */
const char *txtime_socket_kind_to_string(TxtimeSocketKind k);
/** The kind of a name, or -EINVAL. */
TxtimeSocketKind txtime_socket_kind_from_string(const char *s);

/** The SO_TIMESTAMPING flags for transmit time stamps: hardware ones
 *  (TX_HARDWARE | RAW_HARDWARE) when hardware is true, software ones
 *  (TX_SOFTWARE | SOFTWARE) otherwise; always OPT_ID, so each report
 *  carries the packet's counter (tskey). */
uint32_t txtime_timestamping_flags(bool hardware);

/** Whether a NIC that reports so_timestamping (ETHTOOL_GET_TS_INFO's
 *  SOF_TIMESTAMPING_* bits) and tx_types (bit n: HWTSTAMP_TX_* n) can stamp
 *  transmitted packets in hardware. The stamps come only while its
 *  transmit time stamping is switched on (SIOCSHWTSTAMP; ptp4l -H does it). */
bool txtime_hardware_tx_stamps(uint32_t so_timestamping, uint32_t tx_types);

/* Instructions of txtime_packet_filter()'s program. */
#define TXTIME_PACKET_FILTER_LEN 8

/** The classic BPF receive filter of a packet socket for interface ifindex
 *  and EtherType protocol (host order), into prog: it passes a frame that
 *  came in on that interface with that EtherType (SKF_AD_IFINDEX,
 *  SKF_AD_PROTOCOL) and is not a copy of one sent by this host
 *  (SKF_AD_PKTTYPE PACKET_OUTGOING, which a socket re-bound to ETH_P_ALL
 *  would see), whole, and drops every other. */
void txtime_packet_filter(int ifindex, uint16_t protocol, struct sock_filter prog[static TXTIME_PACKET_FILTER_LEN]);

/** Create the socket of spec and set it up: a packet socket with
 *  txtime_packet_filter()'s filter, locked (SO_LOCK_FILTER: its holder can
 *  neither detach nor replace it), then bound to the interface and the
 *  EtherType (it receives nothing before that), a UDP
 *  socket bound to the device (SO_BINDTOIFINDEX: SO_BINDTODEVICE by index)
 *  with IP_RECVERR/IPV6_RECVERR, so that a launch time etf refuses comes
 *  back as an error of the send and on the error queue; then SO_PRIORITY,
 *  SO_TXTIME and, when spec->timestamping is set, SO_TIMESTAMPING. The
 *  descriptor is close-on-exec. Returns 0 and *ret_fd, or -errno with
 *  *ret_step naming the call that failed ("socket(AF_INET6)", "SO_TXTIME",
 *  ...); nothing is left open on failure. */
int txtime_socket_open(const TxtimeSocketSpec *spec, int *ret_fd, const char **ret_step);

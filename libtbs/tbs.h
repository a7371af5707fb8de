/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libtbs: what an application needs to send with a launch time through the
 * etf queues tbsd installs: a socket opened and configured by tbsd (which
 * holds CAP_NET_ADMIN) and handed over on the system bus, the gate windows
 * of a taprio traffic class, sends with a launch time and the error queue
 * decoded. Man page: libtbs(3).
 *
 * Every function returns 0 (or a count, or a descriptor) on success and a
 * negative errno on failure. The library keeps no global state: every
 * function is safe to call from several threads at once (on different
 * sockets, error structs and bus connections). */
#ifndef TBS_H
#define TBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* sd-bus's connection (<systemd/sd-bus.h>), for the *_on_bus() variants. */
struct sd_bus;

/* Why a call that talks to tbsd failed. Optional: every such function
 * takes a pointer that may be NULL; the struct belongs to the caller, so
 * threads each use their own. A call clears it first; on failure it holds: */
struct tbs_error {
        /* The negative errno the call returned (0 after a success). */
        int error;
        /* The D-Bus error name tbsd (or the bus) answered with, e.g.
         * "org.tsn.Tbs.Error.AccessDenied"; "" when the library itself
         * refused the arguments or could not reach the bus. */
        char name[128];
        /* One line, never empty after a failure: tbsd's own message, or
         * the library's (which names the function and the argument). */
        char message[512];
};

/* The one-line message of e: "" for NULL or after a success. */
const char *tbs_error_message(const struct tbs_error *e);

/* The socket to open: AF_PACKET SOCK_RAW bound to the interface (an
 * EtherType must be named), or SOCK_DGRAM UDP over IPv4 or IPv6 bound to
 * the device (SO_BINDTODEVICE; the caller may bind a port itself). */
enum tbs_socket_kind {
        TBS_SOCKET_PACKET = 0,
        TBS_SOCKET_UDP4,
        TBS_SOCKET_UDP6,
};

/* "packet", "udp4", "udp6" (the names of the D-Bus contract); NULL for a
 * value that is none of them. */
const char *tbs_socket_kind_to_string(enum tbs_socket_kind kind);

/* How the sender names where its packets go. */
enum tbs_target {
        TBS_TARGET_QUEUE = 0,      /* a TX queue number, from 0 */
        TBS_TARGET_TRAFFIC_CLASS,  /* a traffic class of the root's map */
        TBS_TARGET_PRIORITY,       /* a socket priority (0-15) */
};

/* Flags of tbs_open_txtime_socket(). */
/* Also ask for TX time stamps (SO_TIMESTAMPING): hardware ones where the
 * NIC has them, software otherwise; they come back on the error queue. */
#define TBS_OPEN_TX_TIMESTAMPS (1u << 0)
/* Accept a queue without an etf qdisc (a taprio txtime-assist or
 * skip_sock_check queue, where SO_TXTIME is optional). */
#define TBS_OPEN_ALLOW_NO_ETF (1u << 1)

/* What tbsd set on the socket it handed over. */
struct tbs_socket_info {
        /* SO_PRIORITY: maps to the queue through the installed root. */
        uint32_t priority;
        /* SO_TXTIME's clock: launch times are on it (CLOCK_TAI for etf). */
        int32_t clockid;
        /* SO_TXTIME's flags: SOF_TXTIME_REPORT_ERRORS always,
         * SOF_TXTIME_DEADLINE_MODE when the etf is in deadline mode. */
        uint32_t txtime_flags;
        /* The etf's delta: a packet is dequeued this long before its launch
         * time, so it must be queued earlier than that (0 without etf). */
        uint32_t delta_ns;
};

/* Ask tbsd on the system bus for a socket that reaches interface ifname's
 * etf queue named by target and value (a queue, a traffic class or a
 * priority), of the given kind; protocol is the EtherType (host byte order)
 * of a TBS_SOCKET_PACKET socket and must be 0 for UDP; flags are
 * TBS_OPEN_*. The socket comes with SO_PRIORITY and SO_TXTIME set; *ret_info
 * (may be NULL) says to what. Returns the descriptor (close-on-exec, the
 * caller's to close) or -errno: -EINVAL for bad arguments, -EACCES when the
 * caller is neither root, nor in tbsd's admin group, nor in the schedule's
 * sockets.group, -ENODEV for an interface tbsd does not manage, -ENETDOWN
 * for a link whose schedule is not installed, -EOPNOTSUPP for a queue
 * without etf (unless TBS_OPEN_ALLOW_NO_ETF), and others (libtbs(3)).
 * ret_error (may be NULL) gets the D-Bus error name and the reason in one
 * line. */
int tbs_open_txtime_socket(const char *ifname, enum tbs_target target, uint32_t value,
                           enum tbs_socket_kind kind, uint16_t protocol, unsigned flags,
                           struct tbs_socket_info *ret_info, struct tbs_error *ret_error);

/* The same on the caller's bus connection (sd-bus; the system bus, or a
 * private one in tests). */
int tbs_open_txtime_socket_on_bus(struct sd_bus *bus, const char *ifname, enum tbs_target target,
                                  uint32_t value, enum tbs_socket_kind kind, uint16_t protocol,
                                  unsigned flags, struct tbs_socket_info *ret_info,
                                  struct tbs_error *ret_error);

/* An open gate window of a traffic class, from the start of the cycle. */
struct tbs_window {
        uint64_t offset_ns;
        uint64_t length_ns;
};

/* The taprio schedule of interface ifname for traffic class tc: its base
 * time (ns, CLOCK_TAI) and cycle time (ns) in *ret_base_time_ns and
 * *ret_cycle_time_ns (either may be NULL), and the class's open windows in
 * windows[], which the caller owns, up to n_windows of them (windows may be
 * NULL when n_windows is 0). Returns the number of windows the class has,
 * which may exceed n_windows (call again with a larger array), or -errno
 * (the array's contents are then unspecified). For an mqprio root there
 * are no gates: 0, with base and cycle time 0. */
int tbs_get_txtime_window(const char *ifname, uint32_t tc, uint64_t *ret_base_time_ns,
                          uint64_t *ret_cycle_time_ns, struct tbs_window *windows, size_t n_windows,
                          struct tbs_error *ret_error);

/* The same on the caller's bus connection. */
int tbs_get_txtime_window_on_bus(struct sd_bus *bus, const char *ifname, uint32_t tc,
                                 uint64_t *ret_base_time_ns, uint64_t *ret_cycle_time_ns,
                                 struct tbs_window *windows, size_t n_windows, struct tbs_error *ret_error);

/* The first time base_ns + k * cycle_ns + offset_ns (k >= 0) later than
 * after_ns, in *ret_ns: where to launch the next packet of a cyclic sender
 * (all in ns on the socket's clock). base_ns may be 0 (cycles counted from
 * the clock's epoch, like taprio's base time in the past). Returns 0,
 * -EINVAL for cycle_ns 0 or offset_ns >= cycle_ns, -ERANGE when the time
 * does not fit 64 bits. */
int tbs_next_launch_time(uint64_t base_ns, uint64_t cycle_ns, uint64_t offset_ns, uint64_t after_ns,
                         uint64_t *ret_ns);

/* Send len bytes of buf on fd (a socket with SO_TXTIME set) to leave at
 * txtime_ns, a time on the clock the socket's SO_TXTIME names (CLOCK_TAI
 * for etf). The launch time travels as an SCM_TXTIME control message;
 * dest (dest_len bytes) may be NULL on a connected or bound packet socket.
 * flags are sendmsg()'s. Returns the number of bytes sent or -errno. A
 * packet that etf refuses at enqueue (its launch time already past) is
 * -ENOBUFS on a packet socket and on a UDP socket with IP_RECVERR or
 * IPV6_RECVERR set (without it, UDP counts the drop and returns the bytes);
 * either way the refusal is reported on the error queue
 * (tbs_tx_report_read()). A launch time that taprio refuses (outside the
 * class's gate windows) is -ENOBUFS too, without a report. */
ssize_t tbs_send_at(int fd, const void *buf, size_t len, uint64_t txtime_ns, const struct sockaddr *dest,
                    socklen_t dest_len, int flags);

enum tbs_tx_report_kind {
        TBS_TX_REPORT_OTHER = 0,     /* an error queue message that is none of the below */
        TBS_TX_REPORT_INVALID,       /* the launch time was refused at enqueue (SO_EE_CODE_TXTIME_INVALID_PARAM) */
        TBS_TX_REPORT_MISSED,        /* the launch time passed while the packet waited (SO_EE_CODE_TXTIME_MISSED) */
        TBS_TX_REPORT_TIMESTAMP,     /* a transmit time stamp (SO_TIMESTAMPING) */
};

/* One message of a socket's error queue, decoded. */
struct tbs_tx_report {
        enum tbs_tx_report_kind kind;
        /* INVALID, MISSED: the launch time of the packet that was dropped. */
        uint64_t txtime_ns;
        /* TIMESTAMP: when the packet left, in ns since the epoch of the
         * clock that stamped it: the NIC's PTP clock when hardware is true,
         * CLOCK_REALTIME otherwise. */
        int64_t tstamp_ns;
        bool hardware;
        /* TIMESTAMP with SOF_TIMESTAMPING_OPT_ID: the packet's counter. */
        uint32_t tskey;
        /* The errno the kernel put on the report: EINVAL for INVALID,
         * ECANCELED for MISSED, ENOMSG for a time stamp. */
        int error;
        /* How many bytes of the packet came back with the report (they are
         * in the caller's buffer of tbs_tx_report_read()). */
        size_t data_len;
};

/* Decode one message read with recvmsg(fd, msg, MSG_ERRQUEUE), whose data
 * was len bytes. Returns 0 and fills *ret (kind OTHER for a message that is
 * neither a launch-time report nor a time stamp), or -EBADMSG when msg
 * carries no extended error at all. */
int tbs_tx_report_decode(const struct msghdr *msg, size_t len, struct tbs_tx_report *ret);

/* Read and decode the next message of fd's error queue without waiting.
 * The packet's bytes that come back with it go to buf (size bytes, may be
 * NULL). Returns 0, -EAGAIN when the queue is empty, or -errno. */
int tbs_tx_report_read(int fd, void *buf, size_t size, struct tbs_tx_report *ret);

/* "invalid", "missed", "timestamp" or "other"; NULL for a value that is
 * none of them. */
const char *tbs_tx_report_kind_to_string(enum tbs_tx_report_kind kind);

#ifdef __cplusplus
}
#endif

#endif

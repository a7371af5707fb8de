/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libtbs: what an application needs to send with a launch time through the
 * etf queues tbsd installs.
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure. The library keeps no global state: every function is safe to
 * call from several threads at once on different sockets. */
#ifndef TBS_H
#define TBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Send len bytes of buf on fd (a socket with SO_TXTIME set) to leave at
 * txtime_ns, a time on the clock the socket's SO_TXTIME names (CLOCK_TAI
 * for etf). The launch time travels as an SCM_TXTIME control message;
 * dest (dest_len bytes) may be NULL on a connected or bound packet socket.
 * flags are sendmsg()'s. Returns the number of bytes sent or -errno. A
 * packet that etf refuses at enqueue (its launch time already past) is
 * -ENOBUFS on a packet socket and on a UDP socket with IP_RECVERR or
 * IPV6_RECVERR set (without it, UDP counts the drop and returns the bytes);
 * either way the refusal is reported on the error queue
 * (tbs_tx_report_read()). */
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

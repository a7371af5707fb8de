/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe frames with a launch time (SO_TXTIME) through an etf queue, and
 * what the kernel says about each: the socket error queue reports a frame
 * refused at enqueue (SO_EE_CODE_TXTIME_INVALID_PARAM) or dropped because
 * its launch time passed in the queue (SO_EE_CODE_TXTIME_MISSED), and with
 * hardware transmit time stamps, when it actually left.
 *
 * Frames are raw Ethernet (AF_PACKET, SOCK_DGRAM) to the broadcast address
 * or a given one (the daemon's monitor sends to the interface's own MAC
 * address) with the local experimental EtherType 0x88B5: they never leave
 * the link as routable traffic. Payload: "TBSP", seq (be32), txtime (be64
 * ns), zero padding to the Ethernet minimum. Transmit time stamps come
 * from the NIC (hardware, PHC time) or from the driver at xmit (software,
 * CLOCK_REALTIME). Used by `tbsctl selftest`, the daemon's launch-time
 * monitor and the test tool txtime-send. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TXTIME_PROBE_ETHERTYPE 0x88B5
#define TXTIME_PROBE_PAYLOAD   46

/* Which transmit time stamps txtime_probe_socket() asks for (bit set). */
#define TXTIME_PROBE_TSTAMP_HARDWARE (1u << 0) /* SOF_TIMESTAMPING_TX_HARDWARE | RAW_HARDWARE: ts[2] */
#define TXTIME_PROBE_TSTAMP_SOFTWARE (1u << 1) /* SOF_TIMESTAMPING_TX_SOFTWARE | SOFTWARE: ts[0] */

typedef enum TxtimeOutcome {
        TXTIME_OUTCOME_NONE,    /* no error reported (sent on time, as far as the qdisc can tell) */
        TXTIME_OUTCOME_MISSED,  /* SO_EE_CODE_TXTIME_MISSED: launch time passed in the queue */
        TXTIME_OUTCOME_INVALID, /* SO_EE_CODE_TXTIME_INVALID_PARAM: refused at enqueue */
        _TXTIME_OUTCOME_MAX,
        _TXTIME_OUTCOME_INVALID = -22,
} TxtimeOutcome;

typedef struct TxtimeProbe {
        uint32_t seq;
        uint64_t txtime_ns;     /* launch time in the socket's clock; 0: no SCM_TXTIME */
        bool sent;              /* sendmsg() accepted the frame */
        bool dropped_at_enqueue; /* sendmsg() said ENOBUFS: the qdisc dropped it at once */
        TxtimeOutcome outcome;
        bool has_hw_tstamp;
        int64_t hw_tstamp_ns;   /* hardware transmit time stamp (PHC time) */
        bool has_sw_tstamp;
        int64_t sw_tstamp_ns;   /* software transmit time stamp (CLOCK_REALTIME, taken by the driver at xmit) */
} TxtimeProbe;

/* nearest-rank statistics of a set of values */
typedef struct TxtimeDistribution {
        size_t n;
        int64_t min, median, p99, max;
} TxtimeDistribution;

/** Open an AF_PACKET SOCK_DGRAM socket bound to ifindex for the probe
 *  EtherType, with SO_PRIORITY priority and, when use_txtime, SO_TXTIME
 *  {clockid, SOF_TXTIME_REPORT_ERRORS | (deadline_mode ? SOF_TXTIME_DEADLINE_MODE : 0)};
 *  tstamps (TXTIME_PROBE_TSTAMP_* bits; true is TXTIME_PROBE_TSTAMP_HARDWARE)
 *  selects the SO_TIMESTAMPING transmit stamps: hardware (TX_HARDWARE |
 *  RAW_HARDWARE), software (TX_SOFTWARE | SOFTWARE), or both (a driver that
 *  stamps in hardware then gives no software stamp for the frame).
 *  Returns 0 and *ret_fd, or -errno (-EPERM/-EACCES without CAP_NET_RAW). */
int txtime_probe_socket(int ifindex, uint32_t priority, int32_t clockid, bool deadline_mode, bool use_txtime,
                        unsigned tstamps, int *ret_fd);

/** Change the socket's transmit time stamps to tstamps (as for
 *  txtime_probe_socket(); 0 switches them off). Returns 0 or -errno. */
int txtime_probe_timestamping(int fd, unsigned tstamps);

/** Send the probe frame p (p->seq, p->txtime_ns; txtime 0 sends no
 *  SCM_TXTIME) to the broadcast address. Sets p->sent, and
 *  p->dropped_at_enqueue when sendmsg() answered ENOBUFS (the qdisc dropped
 *  the frame at enqueue; that is still a frame sent). Returns 0 or -errno. */
int txtime_probe_send(int fd, int ifindex, TxtimeProbe *p);

/** txtime_probe_send() to the Ethernet address dst (6 bytes) instead of
 *  broadcast: the interface's own address keeps the frame on the segment
 *  (the peer drops it as not for it). Returns 0 or -errno. */
int txtime_probe_send_to(int fd, int ifindex, const uint8_t dst[static 6], TxtimeProbe *p);

/** The Ethernet address of ifindex (SIOCGIFHWADDR) into ret_mac.
 *  Returns 0, -EAFNOSUPPORT when the interface is not Ethernet, or -errno. */
int txtime_probe_own_mac(int ifindex, uint8_t ret_mac[static 6]);

/** Read the socket's error queue until it stayed empty for quiet_ms, and
 *  record each report in the probe it belongs to (matched by the txtime the
 *  kernel reports, or by the frame's sequence number for time stamps).
 *  Returns the number of reports matched to a probe, or -errno. */
int txtime_probe_collect(int fd, TxtimeProbe *probes, size_t n, int quiet_ms);

/** Read the error queue until it is empty, without waiting (for a caller
 *  that waits in its event loop for EPOLLERR), recording each report as
 *  txtime_probe_collect() does. Returns the number matched, or -errno. */
int txtime_probe_drain(int fd, TxtimeProbe *probes, size_t n);

/** txtime_probe_drain(), reading at most max_reports messages (the rest
 *  stay queued for the next call). */
int txtime_probe_drain_at_most(int fd, TxtimeProbe *probes, size_t n, size_t max_reports);

struct msghdr;
/** Record one error queue message (what recvmsg(MSG_ERRQUEUE) filled in:
 *  len bytes of data in msg->msg_iov[0], control messages in msg) in the
 *  probe it belongs to: an SO_EE_ORIGIN_TXTIME report (SOL_PACKET
 *  PACKET_TX_TIMESTAMP, or IP_RECVERR/IPV6_RECVERR) sets the outcome of the
 *  probe with that frame's sequence number or, failing that, with the
 *  reported txtime (ee_data high, ee_info low 32 bits); an
 *  SO_EE_ORIGIN_TIMESTAMPING report with SCM_TIMESTAMPING sets the hardware
 *  (ts[2]) and/or the software (ts[0]) time stamp of the probe whose frame
 *  came back with it (matched by its sequence number only).
 *  Returns 1 when matched, 0 when the message is not about a probe. */
int txtime_probe_handle_report(const struct msghdr *msg, size_t len, TxtimeProbe *probes, size_t n);

/** Sequence number and txtime of a probe frame's payload found anywhere in
 *  buf (the error queue returns frames with or without their Ethernet
 *  header). Returns 0, or -EBADMSG when buf holds no probe payload. */
int txtime_probe_parse(const void *buf, size_t len, uint32_t *ret_seq, uint64_t *ret_txtime);

/** Build a probe payload (TXTIME_PROBE_PAYLOAD bytes) into buf. */
void txtime_probe_payload(uint8_t buf[static TXTIME_PROBE_PAYLOAD], uint32_t seq, uint64_t txtime_ns);

/** Whether ifname's driver time stamps transmitted frames in hardware right
 *  now (SIOCGHWTSTAMP: tx_type on). Never changes the setting. Returns 1,
 *  or 0 with a reason in reason (size bytes), or -errno. */
int txtime_probe_hw_tx_timestamps(const char *ifname, char *reason, size_t size);

/** txtime_probe_hw_tx_timestamps() asked on the socket fd (any socket
 *  will do; a probe socket saves opening one), reason may be NULL. */
int txtime_probe_hw_tx_timestamps_on(int fd, const char *ifname, char *reason, size_t size);

/** min, median, 99th percentile and max (nearest rank: the value at rank
 *  ceil(p * n)) of n values; v is sorted in place. Returns 0, or -ENODATA
 *  when n is 0 (*ret untouched). */
int txtime_distribution(int64_t *v, size_t n, TxtimeDistribution *ret);

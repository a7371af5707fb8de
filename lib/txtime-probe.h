/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe frames with a launch time (SO_TXTIME) through an etf queue, and
 * what the kernel says about each: the socket error queue reports a frame
 * refused at enqueue (SO_EE_CODE_TXTIME_INVALID_PARAM) or dropped because
 * its launch time passed in the queue (SO_EE_CODE_TXTIME_MISSED), and with
 * hardware transmit time stamps, when it actually left.
 *
 * Frames are raw Ethernet (AF_PACKET, SOCK_DGRAM) to the broadcast address
 * with the local experimental EtherType 0x88B5: they never leave the link
 * as routable traffic. Payload: "TBSP", seq (be32), txtime (be64 ns),
 * zero padding to the Ethernet minimum. Used by `tbsctl selftest` and by
 * the test tool txtime-send. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TXTIME_PROBE_ETHERTYPE 0x88B5
#define TXTIME_PROBE_PAYLOAD   46

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
} TxtimeProbe;

/* nearest-rank statistics of a set of values */
typedef struct TxtimeDistribution {
        size_t n;
        int64_t min, median, p99, max;
} TxtimeDistribution;

/** Open an AF_PACKET SOCK_DGRAM socket bound to ifindex for the probe
 *  EtherType, with SO_PRIORITY priority and, when use_txtime, SO_TXTIME
 *  {clockid, SOF_TXTIME_REPORT_ERRORS | (deadline_mode ? SOF_TXTIME_DEADLINE_MODE : 0)};
 *  when hw_tstamps, SO_TIMESTAMPING with TX_HARDWARE | RAW_HARDWARE.
 *  Returns 0 and *ret_fd, or -errno (-EPERM/-EACCES without CAP_NET_RAW). */
int txtime_probe_socket(int ifindex, uint32_t priority, int32_t clockid, bool deadline_mode, bool use_txtime,
                        bool hw_tstamps, int *ret_fd);

/** Send the probe frame p (p->seq, p->txtime_ns; txtime 0 sends no
 *  SCM_TXTIME) to the broadcast address. Sets p->sent, and
 *  p->dropped_at_enqueue when sendmsg() answered ENOBUFS (the qdisc dropped
 *  the frame at enqueue; that is still a frame sent). Returns 0 or -errno. */
int txtime_probe_send(int fd, int ifindex, TxtimeProbe *p);

/** Read the socket's error queue until it stayed empty for quiet_ms, and
 *  record each report in the probe it belongs to (matched by the txtime the
 *  kernel reports, or by the frame's sequence number for time stamps).
 *  Returns the number of reports matched to a probe, or -errno. */
int txtime_probe_collect(int fd, TxtimeProbe *probes, size_t n, int quiet_ms);

struct msghdr;
/** Record one error queue message (what recvmsg(MSG_ERRQUEUE) filled in:
 *  len bytes of data in msg->msg_iov[0], control messages in msg) in the
 *  probe it belongs to: an SO_EE_ORIGIN_TXTIME report (SOL_PACKET
 *  PACKET_TX_TIMESTAMP, or IP_RECVERR/IPV6_RECVERR) sets the outcome of the
 *  probe with that frame's sequence number or, failing that, with the
 *  reported txtime (ee_data high, ee_info low 32 bits); an
 *  SO_EE_ORIGIN_TIMESTAMPING report with SCM_TIMESTAMPING sets the hardware
 *  time stamp (ts[2]) of the probe whose frame came back with it.
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

/** min, median, 99th percentile and max (nearest rank: the value at rank
 *  ceil(p * n)) of n values; v is sorted in place. Returns 0, or -ENODATA
 *  when n is 0 (*ret untouched). */
int txtime_distribution(int64_t *v, size_t n, TxtimeDistribution *ret);

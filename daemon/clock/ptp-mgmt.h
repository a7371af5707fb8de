/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The wire format of PTP (IEEE 1588-2008/2019) management messages as
 * linuxptp's ptp4l speaks it on its Unix datagram socket.
 *
 * One pair of functions converts between the wire and host structs:
 * ptp_mgmt_pack() and ptp_mgmt_unpack(). Everything on the wire is big
 * endian. A management message is
 *
 *   34 bytes  common header (messageType 0xD, versionPTP 2, ...)
 *   10 bytes  targetPortIdentity
 *    4 bytes  startingBoundaryHops, boundaryHops, actionField, reserved
 *    n bytes  one TLV: MANAGEMENT (type, length, managementId, data) or
 *             MANAGEMENT_ERROR_STATUS (type, length, error, id, reserved[4], text)
 *
 * Only the data sets tbsd reads are decoded; each has an exact data length,
 * and anything else is -EBADMSG. Nothing here logs. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PTP_MGMT_HEADER_LEN 34          /* common PTP header */
#define PTP_MGMT_MSG_LEN 48             /* header + management fields */
#define PTP_MGMT_TLV_LEN 6              /* type, length, managementId */
#define PTP_MGMT_GET_LEN (PTP_MGMT_MSG_LEN + PTP_MGMT_TLV_LEN)  /* a GET without data: 54 */
#define PTP_MGMT_ERROR_TLV_LEN 12       /* type, length, error, id, reserved[4] */
#define PTP_MGMT_MAX_LEN 1500           /* largest datagram ptp4l sends */

#define PTP_MSG_TYPE_MANAGEMENT 0xD
#define PTP_VERSION_MAJOR 2
#define PTP_CONTROL_MANAGEMENT 0x04
#define PTP_LOG_INTERVAL_MANAGEMENT 0x7f

/* TLV types */
#define PTP_TLV_MANAGEMENT 0x0001
#define PTP_TLV_MANAGEMENT_ERROR_STATUS 0x0002

/* managementId values tbsd decodes, with their data lengths */
#define PTP_MID_CURRENT_DATA_SET 0x2001          /* 18 bytes */
#define PTP_MID_PARENT_DATA_SET 0x2002           /* 32 bytes */
#define PTP_MID_TIME_PROPERTIES_DATA_SET 0x2003  /*  4 bytes */
#define PTP_MID_PORT_DATA_SET 0x2004             /* 26 bytes */
#define PTP_MID_TIME_STATUS_NP 0xC000            /* 50 bytes (linuxptp) */
#define PTP_MID_PORT_PROPERTIES_NP 0xC004        /* 13 bytes + interface name, padded to even (linuxptp) */
#define PTP_MID_SUBSCRIBE_EVENTS_NP 0xC003       /* 66 bytes: duration, event bitmask (linuxptp) */
#define PTP_TEXT_MAX 255                         /* longest PTPText */

/* SUBSCRIBE_EVENTS_NP: a bitmask of 64 bytes, event n is bit n % 8 of byte
 * n / 8. Which linuxptp sends which (its git history): PORT_STATE (the
 * PORT_DATA_SET of the port that changed state) since 1.5 (2014);
 * TIME_SYNC (TIME_STATUS_NP after every clock update, that is every Sync a
 * slave takes) since 4.0; PARENT_DATA_SET since 4.2. ptp4l keeps any bit
 * it is given, known or not, and echoes it. */
#define PTP_EVENT_BITMASK_LEN 64
#define PTP_MGMT_SUBSCRIBE_LEN (PTP_MGMT_GET_LEN + 2 + PTP_EVENT_BITMASK_LEN)  /* a SET with data: 120 */

typedef enum PtpNotifyEvent {
        PTP_NOTIFY_PORT_STATE = 0,
        PTP_NOTIFY_TIME_SYNC = 1,
        PTP_NOTIFY_PARENT_DATA_SET = 2,
} PtpNotifyEvent;

/* timePropertiesDS flags */
#define PTP_FLAG_LEAP_61 (1 << 0)
#define PTP_FLAG_LEAP_59 (1 << 1)
#define PTP_FLAG_UTC_OFFSET_VALID (1 << 2)
#define PTP_FLAG_PTP_TIMESCALE (1 << 3)
#define PTP_FLAG_TIME_TRACEABLE (1 << 4)
#define PTP_FLAG_FREQ_TRACEABLE (1 << 5)

typedef enum PtpMgmtAction {
        PTP_MGMT_GET = 0,
        PTP_MGMT_SET = 1,
        PTP_MGMT_RESPONSE = 2,
        PTP_MGMT_COMMAND = 3,
        PTP_MGMT_ACKNOWLEDGE = 4,
        _PTP_MGMT_ACTION_MAX,
        _PTP_MGMT_ACTION_INVALID = -EINVAL,
} PtpMgmtAction;

/* portState values; GRAND_MASTER is linuxptp's non-standard extension. */
typedef enum PtpPortState {
        PTP_PORT_INITIALIZING = 1,
        PTP_PORT_FAULTY = 2,
        PTP_PORT_DISABLED = 3,
        PTP_PORT_LISTENING = 4,
        PTP_PORT_PRE_MASTER = 5,
        PTP_PORT_MASTER = 6,
        PTP_PORT_PASSIVE = 7,
        PTP_PORT_UNCALIBRATED = 8,
        PTP_PORT_SLAVE = 9,
        PTP_PORT_GRAND_MASTER = 10,
        _PTP_PORT_STATE_MAX,
        _PTP_PORT_STATE_INVALID = -EINVAL,
} PtpPortState;

typedef struct PtpPortIdentity {
        uint8_t clock_identity[8];
        uint16_t port_number;
} PtpPortIdentity;

typedef struct PtpClockQuality {
        uint8_t clock_class;
        uint8_t clock_accuracy;
        uint16_t offset_scaled_log_variance;
} PtpClockQuality;

/* PORT_DATA_SET */
typedef struct PtpPortDataSet {
        PtpPortIdentity port_identity;
        uint8_t port_state;                   /* PtpPortState; unknown values kept as sent */
        int8_t log_min_delay_req_interval;
        int64_t peer_mean_path_delay;         /* TimeInterval: ns << 16 */
        int8_t log_announce_interval;
        uint8_t announce_receipt_timeout;
        int8_t log_sync_interval;
        uint8_t delay_mechanism;
        int8_t log_min_pdelay_req_interval;
        uint8_t version_number;
} PtpPortDataSet;

/* CURRENT_DATA_SET */
typedef struct PtpCurrentDataSet {
        uint16_t steps_removed;
        int64_t offset_from_master;           /* TimeInterval: ns << 16 */
        int64_t mean_path_delay;              /* TimeInterval: ns << 16 */
} PtpCurrentDataSet;

/* PARENT_DATA_SET */
typedef struct PtpParentDataSet {
        PtpPortIdentity parent_port_identity;
        uint8_t parent_stats;
        uint16_t observed_parent_offset_scaled_log_variance;
        int32_t observed_parent_clock_phase_change_rate;
        uint8_t grandmaster_priority1;
        PtpClockQuality grandmaster_clock_quality;
        uint8_t grandmaster_priority2;
        uint8_t grandmaster_identity[8];
} PtpParentDataSet;

/* TIME_PROPERTIES_DATA_SET */
typedef struct PtpTimePropertiesDataSet {
        int16_t current_utc_offset;           /* s */
        uint8_t flags;                        /* PTP_FLAG_* */
        uint8_t time_source;
} PtpTimePropertiesDataSet;

/* TIME_STATUS_NP (linuxptp) */
typedef struct PtpTimeStatusNp {
        int64_t master_offset;                /* ns */
        int64_t ingress_time;                 /* ns */
        int32_t cumulative_scaled_rate_offset;
        int32_t scaled_last_gm_phase_change;
        uint16_t gm_time_base_indicator;
        uint16_t last_gm_phase_change_ns_msb; /* ScaledNs, 96 bits */
        uint64_t last_gm_phase_change_ns_lsb;
        uint16_t last_gm_phase_change_frac;
        int32_t gm_present;                   /* non-zero: a grandmaster is known */
        uint8_t gm_identity[8];
} PtpTimeStatusNp;

/* PORT_PROPERTIES_NP (linuxptp): which interface a port is. */
typedef struct PtpPortPropertiesNp {
        PtpPortIdentity port_identity;
        uint8_t port_state;                   /* PtpPortState (GRAND_MASTER shows as MASTER) */
        uint8_t timestamping;                 /* linuxptp's enum timestamp_type */
        char interface[PTP_TEXT_MAX + 1];     /* NUL-terminated */
} PtpPortPropertiesNp;

/* SUBSCRIBE_EVENTS_NP (linuxptp): notify this client of the events whose
 * bits are set, for duration seconds (renewed by another SET; all bits 0
 * ends the subscription). */
typedef struct PtpSubscribeEventsNp {
        uint16_t duration;                    /* s */
        uint8_t bitmask[PTP_EVENT_BITMASK_LEN];
} PtpSubscribeEventsNp;

/* One management message in host byte order. */
typedef struct PtpMgmtMessage {
        uint8_t transport_specific;           /* high nibble of byte 0, 0..15 */
        uint8_t version;                      /* whole byte 1 (minor << 4 | major) */
        uint8_t domain;
        uint16_t sequence_id;
        PtpPortIdentity source;
        PtpPortIdentity target;
        uint8_t starting_boundary_hops;
        uint8_t boundary_hops;
        PtpMgmtAction action;

        uint16_t tlv_type;                    /* PTP_TLV_MANAGEMENT or _ERROR_STATUS */
        uint16_t management_id;               /* PTP_MID_*; the failed id for an error status */
        uint16_t error_code;                  /* managementErrorId, error status only */
        bool has_data;                        /* false: a GET/COMMAND without data */
        union {
                PtpPortDataSet port_ds;
                PtpCurrentDataSet current_ds;
                PtpParentDataSet parent_ds;
                PtpTimePropertiesDataSet time_properties_ds;
                PtpTimeStatusNp time_status_np;
                PtpPortPropertiesNp port_properties_np;
                PtpSubscribeEventsNp subscribe_events_np;
        } data;
} PtpMgmtMessage;

/** Wire data length of a decoded managementId (e.g. 26 for PORT_DATA_SET;
 *  for PORT_PROPERTIES_NP the 13 bytes before its interface name), or
 *  -EOPNOTSUPP for an id this module does not decode. */
int ptp_mgmt_data_len(uint16_t management_id);

/** Serialise *m into buf (big endian).
 *  Writes a MANAGEMENT TLV (with the data set when m->has_data) or, when
 *  m->tlv_type is PTP_TLV_MANAGEMENT_ERROR_STATUS, an error status TLV without
 *  display text. messageLength is computed.
 *  Returns the number of bytes written, -ENOBUFS if size is too small, or
 *  -EINVAL for an action, transport_specific or id that cannot be encoded. */
int ptp_mgmt_pack(const PtpMgmtMessage *m, void *buf, size_t size);

/** Parse one datagram of len bytes. Checks messageType (management),
 *  major version 2, messageLength == len, exactly one TLV that ends at the
 *  end of the datagram, and for a MANAGEMENT TLV with data the exact data
 *  length of its managementId (for PORT_PROPERTIES_NP: 13 bytes, the name,
 *  one pad byte if that is odd; a name with a NUL byte is malformed). A MANAGEMENT_ERROR_STATUS TLV is well formed:
 *  it is returned with tlv_type set and error_code/management_id filled.
 *  Returns 0 and fills *ret; -EBADMSG on a short, oversized or malformed
 *  message or an id this module does not decode (*ret untouched). */
int ptp_mgmt_unpack(const void *buf, size_t len, PtpMgmtMessage *ret);

/** Fill *ret with a GET request for management_id: version 2, control 0x04,
 *  logMessageInterval 0x7f, wildcard target (all-ones clock identity, port
 *  0xffff), boundary hops 0, and no data. source is the requester's port
 *  identity. */
void ptp_mgmt_init_get(PtpMgmtMessage *ret, uint16_t management_id, uint8_t domain,
                       uint8_t transport_specific, uint16_t sequence_id,
                       const PtpPortIdentity *source);

/** Fill *ret with a SET of SUBSCRIBE_EVENTS_NP as ptp_mgmt_init_get() fills
 *  a GET, with the data: duration_s and the events of the n_events given
 *  (each below PTP_EVENT_BITMASK_LEN * 8; others are ignored). */
void ptp_mgmt_init_subscribe(PtpMgmtMessage *ret, uint8_t domain, uint8_t transport_specific,
                             uint16_t sequence_id, const PtpPortIdentity *source, uint16_t duration_s,
                             const PtpNotifyEvent *events, size_t n_events);

/** Whether event is set in a SUBSCRIBE_EVENTS_NP bitmask. */
bool ptp_event_bitmask_get(const uint8_t bitmask[static PTP_EVENT_BITMASK_LEN], unsigned event);

/** Check that m answers a GET for expected_id: action RESPONSE and the same
 *  managementId. Returns 0; -EREMOTEIO when ptp4l sent an error status
 *  (see m->error_code); -EBADMSG when it is not a response or for another id. */
int ptp_mgmt_check_response(const PtpMgmtMessage *m, uint16_t expected_id);

/** "SLAVE", "LISTENING", ... for a port state; NULL for an unknown value. */
const char *ptp_port_state_to_string(int state);
/** Inverse of ptp_port_state_to_string(); -EINVAL for an unknown name. */
PtpPortState ptp_port_state_from_string(const char *s);
/** "PORT_DATA_SET", "TIME_STATUS_NP", ...; NULL for an id not decoded here. */
const char *ptp_mgmt_id_to_string(uint16_t management_id);
/** "NO_SUCH_ID", "WRONG_LENGTH", ... for a managementErrorId; NULL if unknown. */
const char *ptp_mgmt_error_to_string(uint16_t error_code);

/** Format a clock identity as pmc does ("001122.fffe.334455").
 *  buf must hold 19 bytes; returns buf. */
const char *ptp_clock_identity_to_string(const uint8_t id[static 8], char buf[static 19]);

/** Convert a TimeInterval (ns << 16) to whole ns, truncating toward zero. */
int64_t ptp_time_interval_to_ns(int64_t scaled);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PTP management messages: wire structs and the one pack/unpack pair.
 * Field layouts follow IEEE 1588 (15.4, 15.5) and linuxptp's extensions
 * (TIME_STATUS_NP). Wire structs are packed and only ever reached through
 * memcpy, so no field is read unaligned. */
#include <endian.h>
#include <string.h>

#include "macro.h"
#include "ptp-mgmt.h"
#include "string-table.h"

#define _packed_ __attribute__((packed))

struct wire_port_identity {
        uint8_t clock_identity[8];
        uint16_t port_number;
} _packed_;

struct wire_header {
        uint8_t tsmt;                         /* transportSpecific << 4 | messageType */
        uint8_t version;                      /* minorVersionPTP << 4 | versionPTP */
        uint16_t message_length;
        uint8_t domain;
        uint8_t reserved1;
        uint8_t flags[2];
        int64_t correction;
        uint32_t reserved2;
        struct wire_port_identity source;
        uint16_t sequence_id;
        uint8_t control;
        int8_t log_message_interval;
} _packed_;

struct wire_management {
        struct wire_header hdr;
        struct wire_port_identity target;
        uint8_t starting_boundary_hops;
        uint8_t boundary_hops;
        uint8_t action;                       /* reserved << 4 | actionField */
        uint8_t reserved;
} _packed_;

struct wire_tlv {
        uint16_t type;
        uint16_t length;                      /* bytes after this field */
} _packed_;

struct wire_mgmt_tlv {
        uint16_t type;
        uint16_t length;
        uint16_t id;
} _packed_;

struct wire_error_tlv {
        uint16_t type;
        uint16_t length;
        uint16_t error;
        uint16_t id;
        uint8_t reserved[4];
} _packed_;

struct wire_clock_quality {
        uint8_t clock_class;
        uint8_t clock_accuracy;
        uint16_t offset_scaled_log_variance;
} _packed_;

struct wire_port_ds {
        struct wire_port_identity port_identity;
        uint8_t port_state;
        int8_t log_min_delay_req_interval;
        int64_t peer_mean_path_delay;
        int8_t log_announce_interval;
        uint8_t announce_receipt_timeout;
        int8_t log_sync_interval;
        uint8_t delay_mechanism;
        int8_t log_min_pdelay_req_interval;
        uint8_t version_number;
} _packed_;

struct wire_current_ds {
        uint16_t steps_removed;
        int64_t offset_from_master;
        int64_t mean_path_delay;
} _packed_;

struct wire_parent_ds {
        struct wire_port_identity parent_port_identity;
        uint8_t parent_stats;
        uint8_t reserved;
        uint16_t observed_parent_offset_scaled_log_variance;
        int32_t observed_parent_clock_phase_change_rate;
        uint8_t grandmaster_priority1;
        struct wire_clock_quality grandmaster_clock_quality;
        uint8_t grandmaster_priority2;
        uint8_t grandmaster_identity[8];
} _packed_;

struct wire_time_properties_ds {
        int16_t current_utc_offset;
        uint8_t flags;
        uint8_t time_source;
} _packed_;

struct wire_time_status_np {
        int64_t master_offset;
        int64_t ingress_time;
        int32_t cumulative_scaled_rate_offset;
        int32_t scaled_last_gm_phase_change;
        uint16_t gm_time_base_indicator;
        uint16_t last_gm_phase_change_ns_msb;
        uint64_t last_gm_phase_change_ns_lsb;
        uint16_t last_gm_phase_change_frac;
        int32_t gm_present;
        uint8_t gm_identity[8];
} _packed_;

struct wire_port_properties_np {
        struct wire_port_identity port_identity;
        uint8_t port_state;
        uint8_t timestamping;
        uint8_t interface_length;             /* PTPText: length, then the bytes */
} _packed_;

struct wire_subscribe_events_np {
        uint16_t duration;
        uint8_t bitmask[PTP_EVENT_BITMASK_LEN];
} _packed_;

_Static_assert(sizeof(struct wire_header) == PTP_MGMT_HEADER_LEN, "PTP header is 34 bytes");
_Static_assert(sizeof(struct wire_management) == PTP_MGMT_MSG_LEN, "management message is 48 bytes");
_Static_assert(sizeof(struct wire_mgmt_tlv) == PTP_MGMT_TLV_LEN, "management TLV head is 6 bytes");
_Static_assert(sizeof(struct wire_error_tlv) == PTP_MGMT_ERROR_TLV_LEN, "error status TLV is 12 bytes");
_Static_assert(sizeof(struct wire_port_ds) == 26, "portDS is 26 bytes");
_Static_assert(sizeof(struct wire_current_ds) == 18, "currentDS is 18 bytes");
_Static_assert(sizeof(struct wire_parent_ds) == 32, "parentDS is 32 bytes");
_Static_assert(sizeof(struct wire_time_properties_ds) == 4, "timePropertiesDS is 4 bytes");
_Static_assert(sizeof(struct wire_time_status_np) == 50, "TIME_STATUS_NP is 50 bytes");
_Static_assert(sizeof(struct wire_port_properties_np) == 13, "PORT_PROPERTIES_NP head is 13 bytes");
_Static_assert(sizeof(struct wire_subscribe_events_np) == 66, "SUBSCRIBE_EVENTS_NP is 66 bytes");
_Static_assert(PTP_MGMT_SUBSCRIBE_LEN == 120, "a SUBSCRIBE_EVENTS_NP SET is 120 bytes");

static const struct {
        uint16_t id;
        uint16_t len;
        const char *name;
} mgmt_ids[] = {
        { PTP_MID_CURRENT_DATA_SET,         sizeof(struct wire_current_ds),         "CURRENT_DATA_SET" },
        { PTP_MID_PARENT_DATA_SET,          sizeof(struct wire_parent_ds),          "PARENT_DATA_SET" },
        { PTP_MID_TIME_PROPERTIES_DATA_SET, sizeof(struct wire_time_properties_ds), "TIME_PROPERTIES_DATA_SET" },
        { PTP_MID_PORT_DATA_SET,            sizeof(struct wire_port_ds),            "PORT_DATA_SET" },
        { PTP_MID_TIME_STATUS_NP,           sizeof(struct wire_time_status_np),     "TIME_STATUS_NP" },
        { PTP_MID_PORT_PROPERTIES_NP,       sizeof(struct wire_port_properties_np), "PORT_PROPERTIES_NP" },
        { PTP_MID_SUBSCRIBE_EVENTS_NP,      sizeof(struct wire_subscribe_events_np), "SUBSCRIBE_EVENTS_NP" },
};

/* PORT_PROPERTIES_NP's length for an interface name of n bytes. */
static size_t port_properties_len(size_t n) {
        size_t len = sizeof(struct wire_port_properties_np) + n;
        return len + (len & 1);
}

int ptp_mgmt_data_len(uint16_t management_id) {
        for (size_t i = 0; i < ELEMENTSOF(mgmt_ids); i++)
                if (mgmt_ids[i].id == management_id)
                        return mgmt_ids[i].len;
        return -EOPNOTSUPP;
}

const char *ptp_mgmt_id_to_string(uint16_t management_id) {
        for (size_t i = 0; i < ELEMENTSOF(mgmt_ids); i++)
                if (mgmt_ids[i].id == management_id)
                        return mgmt_ids[i].name;
        return NULL;
}

static const char *const port_state_table[_PTP_PORT_STATE_MAX] = {
        [PTP_PORT_INITIALIZING] = "INITIALIZING",
        [PTP_PORT_FAULTY] = "FAULTY",
        [PTP_PORT_DISABLED] = "DISABLED",
        [PTP_PORT_LISTENING] = "LISTENING",
        [PTP_PORT_PRE_MASTER] = "PRE_MASTER",
        [PTP_PORT_MASTER] = "MASTER",
        [PTP_PORT_PASSIVE] = "PASSIVE",
        [PTP_PORT_UNCALIBRATED] = "UNCALIBRATED",
        [PTP_PORT_SLAVE] = "SLAVE",
        [PTP_PORT_GRAND_MASTER] = "GRAND_MASTER",
};

DEFINE_STRING_TABLE_TO_STRING(ptp_port_state, int, port_state_table)
DEFINE_STRING_TABLE_FROM_STRING(ptp_port_state, PtpPortState, port_state_table, _PTP_PORT_STATE_INVALID)

const char *ptp_mgmt_error_to_string(uint16_t error_code) {
        switch (error_code) {
        case 0x0001: return "RESPONSE_TOO_BIG";
        case 0x0002: return "NO_SUCH_ID";
        case 0x0003: return "WRONG_LENGTH";
        case 0x0004: return "WRONG_VALUE";
        case 0x0005: return "NOT_SETABLE";
        case 0x0006: return "NOT_SUPPORTED";
        case 0xFFFE: return "GENERAL_ERROR";
        default: return NULL;
        }
}

const char *ptp_clock_identity_to_string(const uint8_t id[static 8], char buf[static 19]) {
        static const char hex[] = "0123456789abcdef";
        size_t j = 0;

        for (size_t i = 0; i < 8; i++) {
                if (i == 3 || i == 5)
                        buf[j++] = '.';
                buf[j++] = hex[id[i] >> 4];
                buf[j++] = hex[id[i] & 0xf];
        }
        buf[j] = '\0';
        return buf;
}

int64_t ptp_time_interval_to_ns(int64_t scaled) {
        return scaled / 65536;
}

void ptp_mgmt_init_get(PtpMgmtMessage *ret, uint16_t management_id, uint8_t domain,
                       uint8_t transport_specific, uint16_t sequence_id,
                       const PtpPortIdentity *source) {
        *ret = (PtpMgmtMessage) {
                .transport_specific = transport_specific,
                .version = PTP_VERSION_MAJOR,
                .domain = domain,
                .sequence_id = sequence_id,
                .source = *source,
                .target.port_number = 0xffff,
                .action = PTP_MGMT_GET,
                .tlv_type = PTP_TLV_MANAGEMENT,
                .management_id = management_id,
        };
        memset(ret->target.clock_identity, 0xff, sizeof(ret->target.clock_identity));
}

void ptp_mgmt_init_subscribe(PtpMgmtMessage *ret, uint8_t domain, uint8_t transport_specific,
                             uint16_t sequence_id, const PtpPortIdentity *source, uint16_t duration_s,
                             const PtpNotifyEvent *events, size_t n_events) {
        ptp_mgmt_init_get(ret, PTP_MID_SUBSCRIBE_EVENTS_NP, domain, transport_specific, sequence_id, source);
        ret->action = PTP_MGMT_SET;
        ret->has_data = true;
        ret->data.subscribe_events_np.duration = duration_s;
        for (size_t i = 0; i < n_events; i++) {
                unsigned e = (unsigned) events[i];

                if (e < PTP_EVENT_BITMASK_LEN * 8)
                        ret->data.subscribe_events_np.bitmask[e / 8] |= (uint8_t) (1U << (e % 8));
        }
}

bool ptp_event_bitmask_get(const uint8_t bitmask[static PTP_EVENT_BITMASK_LEN], unsigned event) {
        return event < PTP_EVENT_BITMASK_LEN * 8 && (bitmask[event / 8] & (1U << (event % 8)));
}

int ptp_mgmt_check_response(const PtpMgmtMessage *m, uint16_t expected_id) {
        if (m->action != PTP_MGMT_RESPONSE)
                return -EBADMSG;
        if (m->management_id != expected_id)
                return -EBADMSG;
        if (m->tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS)
                return -EREMOTEIO;
        if (!m->has_data)
                return -EBADMSG;
        return 0;
}

/* Host <-> wire for the pieces shared by several structs. */

static struct wire_port_identity port_identity_to_wire(const PtpPortIdentity *p) {
        struct wire_port_identity w;

        memcpy(w.clock_identity, p->clock_identity, sizeof(w.clock_identity));
        w.port_number = htobe16(p->port_number);
        return w;
}

static PtpPortIdentity port_identity_from_wire(const struct wire_port_identity *w) {
        PtpPortIdentity p;

        memcpy(p.clock_identity, w->clock_identity, sizeof(p.clock_identity));
        p.port_number = be16toh(w->port_number);
        return p;
}

/* Data sets: host -> wire. Returns the data length or -EINVAL. */
static int pack_data(const PtpMgmtMessage *m, uint8_t *out) {
        switch (m->management_id) {
        case PTP_MID_PORT_DATA_SET: {
                const PtpPortDataSet *d = &m->data.port_ds;
                struct wire_port_ds w = {
                        .port_identity = port_identity_to_wire(&d->port_identity),
                        .port_state = d->port_state,
                        .log_min_delay_req_interval = d->log_min_delay_req_interval,
                        .peer_mean_path_delay = (int64_t) htobe64((uint64_t) d->peer_mean_path_delay),
                        .log_announce_interval = d->log_announce_interval,
                        .announce_receipt_timeout = d->announce_receipt_timeout,
                        .log_sync_interval = d->log_sync_interval,
                        .delay_mechanism = d->delay_mechanism,
                        .log_min_pdelay_req_interval = d->log_min_pdelay_req_interval,
                        .version_number = d->version_number,
                };
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        case PTP_MID_CURRENT_DATA_SET: {
                const PtpCurrentDataSet *d = &m->data.current_ds;
                struct wire_current_ds w = {
                        .steps_removed = htobe16(d->steps_removed),
                        .offset_from_master = (int64_t) htobe64((uint64_t) d->offset_from_master),
                        .mean_path_delay = (int64_t) htobe64((uint64_t) d->mean_path_delay),
                };
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        case PTP_MID_PARENT_DATA_SET: {
                const PtpParentDataSet *d = &m->data.parent_ds;
                struct wire_parent_ds w = {
                        .parent_port_identity = port_identity_to_wire(&d->parent_port_identity),
                        .parent_stats = d->parent_stats,
                        .observed_parent_offset_scaled_log_variance =
                                htobe16(d->observed_parent_offset_scaled_log_variance),
                        .observed_parent_clock_phase_change_rate =
                                (int32_t) htobe32((uint32_t) d->observed_parent_clock_phase_change_rate),
                        .grandmaster_priority1 = d->grandmaster_priority1,
                        .grandmaster_clock_quality = {
                                .clock_class = d->grandmaster_clock_quality.clock_class,
                                .clock_accuracy = d->grandmaster_clock_quality.clock_accuracy,
                                .offset_scaled_log_variance =
                                        htobe16(d->grandmaster_clock_quality.offset_scaled_log_variance),
                        },
                        .grandmaster_priority2 = d->grandmaster_priority2,
                };
                memcpy(w.grandmaster_identity, d->grandmaster_identity, sizeof(w.grandmaster_identity));
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        case PTP_MID_TIME_PROPERTIES_DATA_SET: {
                const PtpTimePropertiesDataSet *d = &m->data.time_properties_ds;
                struct wire_time_properties_ds w = {
                        .current_utc_offset = (int16_t) htobe16((uint16_t) d->current_utc_offset),
                        .flags = d->flags,
                        .time_source = d->time_source,
                };
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        case PTP_MID_TIME_STATUS_NP: {
                const PtpTimeStatusNp *d = &m->data.time_status_np;
                struct wire_time_status_np w = {
                        .master_offset = (int64_t) htobe64((uint64_t) d->master_offset),
                        .ingress_time = (int64_t) htobe64((uint64_t) d->ingress_time),
                        .cumulative_scaled_rate_offset =
                                (int32_t) htobe32((uint32_t) d->cumulative_scaled_rate_offset),
                        .scaled_last_gm_phase_change =
                                (int32_t) htobe32((uint32_t) d->scaled_last_gm_phase_change),
                        .gm_time_base_indicator = htobe16(d->gm_time_base_indicator),
                        .last_gm_phase_change_ns_msb = htobe16(d->last_gm_phase_change_ns_msb),
                        .last_gm_phase_change_ns_lsb = htobe64(d->last_gm_phase_change_ns_lsb),
                        .last_gm_phase_change_frac = htobe16(d->last_gm_phase_change_frac),
                        .gm_present = (int32_t) htobe32((uint32_t) d->gm_present),
                };
                memcpy(w.gm_identity, d->gm_identity, sizeof(w.gm_identity));
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        case PTP_MID_PORT_PROPERTIES_NP: {
                const PtpPortPropertiesNp *d = &m->data.port_properties_np;
                size_t n = strnlen(d->interface, PTP_TEXT_MAX);
                struct wire_port_properties_np w = {
                        .port_identity = port_identity_to_wire(&d->port_identity),
                        .port_state = d->port_state,
                        .timestamping = d->timestamping,
                        .interface_length = (uint8_t) n,
                };
                size_t len = port_properties_len(n);

                memset(out, 0, len);
                memcpy(out, &w, sizeof(w));
                memcpy(out + sizeof(w), d->interface, n);
                return (int) len;
        }
        case PTP_MID_SUBSCRIBE_EVENTS_NP: {
                const PtpSubscribeEventsNp *d = &m->data.subscribe_events_np;
                struct wire_subscribe_events_np w = { .duration = htobe16(d->duration) };

                memcpy(w.bitmask, d->bitmask, sizeof(w.bitmask));
                memcpy(out, &w, sizeof(w));
                return sizeof(w);
        }
        default:
                return -EINVAL;
        }
}

/* Data sets: wire -> host; in holds len bytes. Returns 0, or -EBADMSG
 * unless len is exactly the data set's length. */
static int unpack_data(PtpMgmtMessage *m, const uint8_t *in, size_t len) {
        int want = ptp_mgmt_data_len(m->management_id);

        if (want < 0 || len < (size_t) want)
                return -EBADMSG;

        if (m->management_id == PTP_MID_PORT_PROPERTIES_NP) {
                struct wire_port_properties_np w;
                PtpPortPropertiesNp *d = &m->data.port_properties_np;

                memcpy(&w, in, sizeof(w));
                if (len != port_properties_len(w.interface_length))
                        return -EBADMSG;
                if (memchr(in + sizeof(w), '\0', w.interface_length))
                        return -EBADMSG;
                *d = (PtpPortPropertiesNp) {
                        .port_identity = port_identity_from_wire(&w.port_identity),
                        .port_state = w.port_state,
                        .timestamping = w.timestamping,
                };
                memcpy(d->interface, in + sizeof(w), w.interface_length);
                d->interface[w.interface_length] = '\0';
                return 0;
        }
        if (len != (size_t) want)
                return -EBADMSG;

        switch (m->management_id) {
        case PTP_MID_PORT_DATA_SET: {
                struct wire_port_ds w;
                memcpy(&w, in, sizeof(w));
                m->data.port_ds = (PtpPortDataSet) {
                        .port_identity = port_identity_from_wire(&w.port_identity),
                        .port_state = w.port_state,
                        .log_min_delay_req_interval = w.log_min_delay_req_interval,
                        .peer_mean_path_delay = (int64_t) be64toh((uint64_t) w.peer_mean_path_delay),
                        .log_announce_interval = w.log_announce_interval,
                        .announce_receipt_timeout = w.announce_receipt_timeout,
                        .log_sync_interval = w.log_sync_interval,
                        .delay_mechanism = w.delay_mechanism,
                        .log_min_pdelay_req_interval = w.log_min_pdelay_req_interval,
                        .version_number = w.version_number,
                };
                break;
        }
        case PTP_MID_CURRENT_DATA_SET: {
                struct wire_current_ds w;
                memcpy(&w, in, sizeof(w));
                m->data.current_ds = (PtpCurrentDataSet) {
                        .steps_removed = be16toh(w.steps_removed),
                        .offset_from_master = (int64_t) be64toh((uint64_t) w.offset_from_master),
                        .mean_path_delay = (int64_t) be64toh((uint64_t) w.mean_path_delay),
                };
                break;
        }
        case PTP_MID_PARENT_DATA_SET: {
                struct wire_parent_ds w;
                memcpy(&w, in, sizeof(w));
                m->data.parent_ds = (PtpParentDataSet) {
                        .parent_port_identity = port_identity_from_wire(&w.parent_port_identity),
                        .parent_stats = w.parent_stats,
                        .observed_parent_offset_scaled_log_variance =
                                be16toh(w.observed_parent_offset_scaled_log_variance),
                        .observed_parent_clock_phase_change_rate =
                                (int32_t) be32toh((uint32_t) w.observed_parent_clock_phase_change_rate),
                        .grandmaster_priority1 = w.grandmaster_priority1,
                        .grandmaster_clock_quality = {
                                .clock_class = w.grandmaster_clock_quality.clock_class,
                                .clock_accuracy = w.grandmaster_clock_quality.clock_accuracy,
                                .offset_scaled_log_variance =
                                        be16toh(w.grandmaster_clock_quality.offset_scaled_log_variance),
                        },
                        .grandmaster_priority2 = w.grandmaster_priority2,
                };
                memcpy(m->data.parent_ds.grandmaster_identity, w.grandmaster_identity,
                       sizeof(w.grandmaster_identity));
                break;
        }
        case PTP_MID_TIME_PROPERTIES_DATA_SET: {
                struct wire_time_properties_ds w;
                memcpy(&w, in, sizeof(w));
                m->data.time_properties_ds = (PtpTimePropertiesDataSet) {
                        .current_utc_offset = (int16_t) be16toh((uint16_t) w.current_utc_offset),
                        .flags = w.flags,
                        .time_source = w.time_source,
                };
                break;
        }
        case PTP_MID_TIME_STATUS_NP: {
                struct wire_time_status_np w;
                memcpy(&w, in, sizeof(w));
                m->data.time_status_np = (PtpTimeStatusNp) {
                        .master_offset = (int64_t) be64toh((uint64_t) w.master_offset),
                        .ingress_time = (int64_t) be64toh((uint64_t) w.ingress_time),
                        .cumulative_scaled_rate_offset =
                                (int32_t) be32toh((uint32_t) w.cumulative_scaled_rate_offset),
                        .scaled_last_gm_phase_change =
                                (int32_t) be32toh((uint32_t) w.scaled_last_gm_phase_change),
                        .gm_time_base_indicator = be16toh(w.gm_time_base_indicator),
                        .last_gm_phase_change_ns_msb = be16toh(w.last_gm_phase_change_ns_msb),
                        .last_gm_phase_change_ns_lsb = be64toh(w.last_gm_phase_change_ns_lsb),
                        .last_gm_phase_change_frac = be16toh(w.last_gm_phase_change_frac),
                        .gm_present = (int32_t) be32toh((uint32_t) w.gm_present),
                };
                memcpy(m->data.time_status_np.gm_identity, w.gm_identity, sizeof(w.gm_identity));
                break;
        }
        case PTP_MID_SUBSCRIBE_EVENTS_NP: {
                struct wire_subscribe_events_np w;
                memcpy(&w, in, sizeof(w));
                m->data.subscribe_events_np.duration = be16toh(w.duration);
                memcpy(m->data.subscribe_events_np.bitmask, w.bitmask, sizeof(w.bitmask));
                break;
        }
        }
        return 0;
}

int ptp_mgmt_pack(const PtpMgmtMessage *m, void *buf, size_t size) {
        uint8_t data[sizeof(struct wire_port_properties_np) + PTP_TEXT_MAX + 1];
        size_t tlv_len;
        int data_len = 0;

        if (m->transport_specific > 0xf)
                return -EINVAL;
        if (m->action < 0 || m->action >= _PTP_MGMT_ACTION_MAX)
                return -EINVAL;

        if (m->tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS)
                tlv_len = PTP_MGMT_ERROR_TLV_LEN;
        else if (m->tlv_type == PTP_TLV_MANAGEMENT) {
                if (m->has_data) {
                        data_len = pack_data(m, data);
                        if (data_len < 0)
                                return data_len;
                }
                tlv_len = PTP_MGMT_TLV_LEN + (size_t) data_len;
        } else
                return -EINVAL;

        size_t total = PTP_MGMT_MSG_LEN + tlv_len;
        if (size < total)
                return -ENOBUFS;

        struct wire_management w = {
                .hdr = {
                        .tsmt = (uint8_t) (m->transport_specific << 4 | PTP_MSG_TYPE_MANAGEMENT),
                        .version = m->version,
                        .message_length = htobe16((uint16_t) total),
                        .domain = m->domain,
                        .source = port_identity_to_wire(&m->source),
                        .sequence_id = htobe16(m->sequence_id),
                        .control = PTP_CONTROL_MANAGEMENT,
                        .log_message_interval = PTP_LOG_INTERVAL_MANAGEMENT,
                },
                .target = port_identity_to_wire(&m->target),
                .starting_boundary_hops = m->starting_boundary_hops,
                .boundary_hops = m->boundary_hops,
                .action = (uint8_t) m->action,
        };
        uint8_t *out = buf;
        memcpy(out, &w, sizeof(w));

        if (m->tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS) {
                struct wire_error_tlv e = {
                        .type = htobe16(PTP_TLV_MANAGEMENT_ERROR_STATUS),
                        .length = htobe16(PTP_MGMT_ERROR_TLV_LEN - sizeof(struct wire_tlv)),
                        .error = htobe16(m->error_code),
                        .id = htobe16(m->management_id),
                };
                memcpy(out + sizeof(w), &e, sizeof(e));
        } else {
                struct wire_mgmt_tlv t = {
                        .type = htobe16(PTP_TLV_MANAGEMENT),
                        .length = htobe16((uint16_t) (tlv_len - sizeof(struct wire_tlv))),
                        .id = htobe16(m->management_id),
                };
                memcpy(out + sizeof(w), &t, sizeof(t));
                memcpy(out + sizeof(w) + sizeof(t), data, (size_t) data_len);
        }
        return (int) total;
}

int ptp_mgmt_unpack(const void *buf, size_t len, PtpMgmtMessage *ret) {
        const uint8_t *in = buf;
        struct wire_management w;
        struct wire_tlv tlv;
        PtpMgmtMessage m = {};

        if (!buf || len < PTP_MGMT_MSG_LEN + sizeof(struct wire_tlv) || len > PTP_MGMT_MAX_LEN)
                return -EBADMSG;

        memcpy(&w, in, sizeof(w));
        if ((w.hdr.tsmt & 0x0f) != PTP_MSG_TYPE_MANAGEMENT)
                return -EBADMSG;
        if ((w.hdr.version & 0x0f) != PTP_VERSION_MAJOR)
                return -EBADMSG;
        if (be16toh(w.hdr.message_length) != len)
                return -EBADMSG;
        if ((w.action & 0x0f) >= _PTP_MGMT_ACTION_MAX)
                return -EBADMSG;

        m.transport_specific = w.hdr.tsmt >> 4;
        m.version = w.hdr.version;
        m.domain = w.hdr.domain;
        m.sequence_id = be16toh(w.hdr.sequence_id);
        m.source = port_identity_from_wire(&w.hdr.source);
        m.target = port_identity_from_wire(&w.target);
        m.starting_boundary_hops = w.starting_boundary_hops;
        m.boundary_hops = w.boundary_hops;
        m.action = (PtpMgmtAction) (w.action & 0x0f);

        /* Exactly one TLV, ending where the datagram ends. */
        memcpy(&tlv, in + sizeof(w), sizeof(tlv));
        m.tlv_type = be16toh(tlv.type);
        size_t tlv_len = be16toh(tlv.length);
        if (sizeof(w) + sizeof(tlv) + tlv_len != len)
                return -EBADMSG;

        if (m.tlv_type == PTP_TLV_MANAGEMENT_ERROR_STATUS) {
                struct wire_error_tlv e;

                /* error, id, reserved[4], then an optional PTPText (length byte + text) */
                if (tlv_len < sizeof(e) - sizeof(tlv))
                        return -EBADMSG;
                if (tlv_len > sizeof(e) - sizeof(tlv)) {
                        size_t text = in[sizeof(w) + sizeof(e)];
                        size_t rest = tlv_len - (sizeof(e) - sizeof(tlv));

                        /* the text plus its length byte, padded to an even length */
                        if (1 + text > rest || rest > 1 + text + 1)
                                return -EBADMSG;
                }
                memcpy(&e, in + sizeof(w), sizeof(e));
                m.error_code = be16toh(e.error);
                m.management_id = be16toh(e.id);
                *ret = m;
                return 0;
        }

        if (m.tlv_type != PTP_TLV_MANAGEMENT)
                return -EBADMSG;
        if (tlv_len < sizeof(uint16_t))
                return -EBADMSG;

        struct wire_mgmt_tlv t;
        memcpy(&t, in + sizeof(w), sizeof(t));
        m.management_id = be16toh(t.id);

        if (ptp_mgmt_data_len(m.management_id) < 0)
                return -EBADMSG;

        size_t data_len = tlv_len - sizeof(uint16_t);
        if (data_len == 0) {
                /* Only requests may come without data. */
                if (m.action != PTP_MGMT_GET && m.action != PTP_MGMT_COMMAND)
                        return -EBADMSG;
        } else {
                if (unpack_data(&m, in + sizeof(w) + sizeof(t), data_len) < 0)
                        return -EBADMSG;
                m.has_data = true;
        }

        *ret = m;
        return 0;
}

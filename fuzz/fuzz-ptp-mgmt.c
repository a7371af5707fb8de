/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: one datagram from ptp4l's management socket through
 * ptp_mgmt_unpack() (daemon/clock/ptp-mgmt.c), as pmc-client.c receives it, then
 * what the clock check does with a decoded message. Invariants:
 *  - unpack refuses what its contract says it refuses (length outside
 *    [52, 1500], messageLength != datagram length);
 *  - a decoded message packs again, and unpack(pack(m)) packs to the same
 *    bytes (the decoder and encoder agree);
 *  - ptp_mgmt_check_response() answers only 0, -EREMOTEIO or -EBADMSG. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "ptp-mgmt.h"

static void use_message(const PtpMgmtMessage *m) {
        static const uint16_t ids[] = {
                PTP_MID_CURRENT_DATA_SET, PTP_MID_PARENT_DATA_SET, PTP_MID_TIME_PROPERTIES_DATA_SET,
                PTP_MID_PORT_DATA_SET, PTP_MID_TIME_STATUS_NP, 0xffff,
        };
        char buf[19];

        for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
                int r = ptp_mgmt_check_response(m, ids[i]);
                fuzz_check(r == 0 || r == -EREMOTEIO || r == -EBADMSG, "check_response %d", r);
                if (r == 0)
                        fuzz_check(m->has_data && ptp_mgmt_data_len(ids[i]) > 0, "response without data");
        }
        (void) ptp_mgmt_id_to_string(m->management_id);
        (void) ptp_mgmt_error_to_string(m->error_code);
        (void) ptp_clock_identity_to_string(m->source.clock_identity, buf);
        fuzz_check(strlen(buf) == 18, "clock identity text '%s'", buf);
        if (m->has_data)
                switch (m->management_id) {
                case PTP_MID_PORT_DATA_SET:
                        (void) ptp_port_state_to_string(m->data.port_ds.port_state);
                        (void) ptp_time_interval_to_ns(m->data.port_ds.peer_mean_path_delay);
                        break;
                case PTP_MID_CURRENT_DATA_SET:
                        (void) ptp_time_interval_to_ns(m->data.current_ds.offset_from_master);
                        (void) ptp_time_interval_to_ns(m->data.current_ds.mean_path_delay);
                        break;
                default:
                        break;
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        uint8_t out1[PTP_MGMT_MAX_LEN], out2[PTP_MGMT_MAX_LEN];
        PtpMgmtMessage m, m2;
        int r, n1, n2;

        r = ptp_mgmt_unpack(data, size, &m);
        if (r < 0) {
                fuzz_check(r == -EBADMSG, "unpack returned %d", r);
                return 0;
        }
        fuzz_check(r == 0, "unpack returned %d", r);
        fuzz_check(size >= PTP_MGMT_MSG_LEN + 4 && size <= PTP_MGMT_MAX_LEN, "accepted %zu bytes", size);
        fuzz_check(((size_t) data[2] << 8 | data[3]) == size, "messageLength differs from datagram");
        use_message(&m);

        n1 = ptp_mgmt_pack(&m, out1, sizeof(out1));
        fuzz_check(n1 > 0, "decoded message does not pack: %d", n1);
        r = ptp_mgmt_unpack(out1, (size_t) n1, &m2);
        fuzz_check(r == 0, "packed message does not unpack: %d", r);
        n2 = ptp_mgmt_pack(&m2, out2, sizeof(out2));
        fuzz_check(n2 == n1 && memcmp(out1, out2, (size_t) n1) == 0, "pack/unpack disagree");
        /* Too small a buffer is refused, not overrun. */
        fuzz_check(ptp_mgmt_pack(&m, out2, (size_t) n1 - 1) == -ENOBUFS, "short buffer accepted");
        return 0;
}

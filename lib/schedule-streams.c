/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "qdisc-kind.h"
#include "schedule-safety.h"
#include "schedule-streams.h"

uint32_t schedule_streams_speed(const Schedule *s, uint32_t device_speed_mbps) {
        return s->streams.link_speed_mbps ?: device_speed_mbps;
}

int schedule_streams_compute(const Schedule *s, uint32_t device_speed_mbps, StreamSchedule *ret,
                             char **ret_error) {
        const RootSpec *r = &s->root;
        /* PTP's class: that of clock.ptp_priority (out of range: the
         * computation refuses the class with its line). */
        int t = schedule_ptp_tc(s);
        uint8_t ptp_tc = t >= 0 ? (uint8_t) t : TBS_MAX_TC;
        StreamScheduleParams pa = {
                .link_speed_mbps = schedule_streams_speed(s, device_speed_mbps),
                .guard_frame_bytes = s->streams.guard_frame_bytes ?: TBS_STREAM_DEFAULT_GUARD_FRAME_BYTES,
                .num_tc = r->num_tc,
                .ptp_tc = ptp_tc,
                /* A file that allows short software gates gets exact windows, as in full offload. */
                .min_interval_ns = root_gates_in_nic(r) ||
                                   (s->allow & (1U << SAFETY_SOFTWARE_GATE_INTERVAL)) ? 0
                                   : TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS,
        };

        *ret_error = NULL;
        if (pa.link_speed_mbps == 0) {
                if (asprintf(ret_error, "the streams need the link speed, which the device does not report "
                             "(is the link down?); give root.link_speed_mbps") < 0)
                        *ret_error = NULL;
                return -ENODATA;
        }
        return stream_schedule_compute(s->streams.items, s->streams.n, &pa, ret, ret_error);
}

int schedule_resolve_streams(Schedule *s, uint32_t device_speed_mbps, char **ret_error) {
        _cleanup_(stream_schedule_done) StreamSchedule c = {};
        uint32_t speed = schedule_streams_speed(s, device_speed_mbps);
        int k;

        *ret_error = NULL;
        if (s->streams.n == 0 || (speed != 0 && speed == s->streams.resolved_speed_mbps))
                return 0;
        k = schedule_streams_compute(s, device_speed_mbps, &c, ret_error);
        if (k < 0) {
                /* No stale gate list of another speed stays behind. */
                root_take_gate_list(&s->root, NULL, 0, 0);
                s->streams.resolved_speed_mbps = 0;
                return k;
        }
        root_take_gate_list(&s->root, TAKE_PTR(c.entries), c.n_entries, (int64_t) c.cycle_ns);
        s->streams.resolved_speed_mbps = speed;
        return 0;
}

bool schedule_streams_pending(const Schedule *s) {
        return s->streams.n > 0 && s->streams.resolved_speed_mbps == 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "schedule-cbs.h"

/* a * b / d rounded away from zero; d > 0. */
static int64_t mul_div_away(int64_t a, int64_t b, int64_t d) {
        int64_t n = a * b;

        if (n >= 0)
                return (n + d - 1) / d;
        return -((-n + d - 1) / d);
}

int cbs_compute(uint32_t bandwidth_kbps, uint32_t max_frame_bytes, uint32_t max_interference_bytes,
                uint32_t link_speed_mbps, CbsSpec *ret) {
        int64_t rate, idle, send, hi, lo;

        if (link_speed_mbps == 0 || max_frame_bytes == 0 || max_interference_bytes == 0)
                return -EINVAL;
        if (max_frame_bytes > TBS_CBS_MAX_FRAME_BYTES || max_interference_bytes > TBS_CBS_MAX_FRAME_BYTES)
                return -ERANGE;
        rate = (int64_t) link_speed_mbps * 1000;
        idle = bandwidth_kbps;
        if (idle == 0 || idle > rate || rate > INT32_MAX)
                return -ERANGE;
        send = idle - rate;
        hi = mul_div_away(max_interference_bytes, idle, rate);
        lo = mul_div_away(max_frame_bytes, send, rate);

        /* send == 0 (all of the link reserved) leaves loCredit 0: the
         * kernel would then never hold the queue back, which is what a
         * reservation of the whole link means, but the sign rules want
         * a negative sendSlope, so the caller's check refuses it. */
        ret->idle_slope_kbps = (int32_t) idle;
        ret->send_slope_kbps = (int32_t) send;
        ret->hi_credit_bytes = (int32_t) hi;
        ret->lo_credit_bytes = (int32_t) lo;
        return 0;
}

uint32_t cbs_link_speed(const CbsSpec *c, uint32_t device_speed_mbps) {
        return c->link_speed_mbps ?: device_speed_mbps;
}

int cbs_spec_resolve(const CbsSpec *c, uint32_t device_speed_mbps, CbsSpec *ret) {
        CbsSpec r = *c;
        uint32_t speed;
        int k;

        if (!c->from_bandwidth) {
                *ret = r;
                return 0;
        }
        speed = cbs_link_speed(c, device_speed_mbps);
        if (speed == 0)
                return -ENODATA;
        k = cbs_compute(c->bandwidth_kbps, c->max_frame_bytes, c->max_interference_bytes, speed, &r);
        if (k < 0)
                return k;
        *ret = r;
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The keys of a cbs queue ("qdisc": "cbs" in txqueues): the raw form or
 * the bandwidth form, computed at once when the file gives the link speed.
 * Internal to lib/schedule-parse.c. */
#include <string.h>

#include "schedule-cbs.h"
#include "schedule-fields.h"

/* A cbs queue: the four kernel parameters, or bandwidth_kbps and
 * max_frame_bytes (plus optionally max_interference_bytes and
 * link_speed_mbps) to compute them from (lib/schedule-cbs.c). */
void parse_cbs(Parser *p, const char *path, const JsonNode *e, CbsSpec *c) {
        static const char *const raw[] = { "idle_slope_kbps", "send_slope_kbps", "hi_credit_bytes",
                                           "lo_credit_bytes" };
        char kpath[JPATH_MAX];
        bool have_raw = false, have_bw;
        int64_t x;

        for (size_t i = 0; i < ELEMENTSOF(raw); i++)
                if (json_member(e, raw[i]))
                        have_raw = true;
        have_bw = json_member(e, "bandwidth_kbps");
        if (have_raw && have_bw) {
                perr(p, jpath_key(kpath, path, "bandwidth_kbps"),
                     "give either bandwidth_kbps (with max_frame_bytes) or the four values idle_slope_kbps, "
                     "send_slope_kbps, hi_credit_bytes and lo_credit_bytes, not both");
                return;
        }
        if (!have_raw && !have_bw) {
                perr(p, path, "a cbs queue needs bandwidth_kbps and max_frame_bytes, or idle_slope_kbps, "
                     "send_slope_kbps, hi_credit_bytes and lo_credit_bytes");
                return;
        }
        if (have_raw) {
                static const char *const bw_keys[] = { "max_frame_bytes", "max_interference_bytes" };

                for (size_t i = 0; i < ELEMENTSOF(bw_keys); i++)
                        if (json_member(e, bw_keys[i]))
                                perr(p, jpath_key(kpath, path, bw_keys[i]),
                                     "only valid with bandwidth_kbps (the raw values need no frame sizes)");
                if (get_int(p, path, e, "idle_slope_kbps", true, 1, INT32_MAX, &x) > 0)
                        c->idle_slope_kbps = (int32_t) x;
                if (get_int(p, path, e, "send_slope_kbps", true, INT32_MIN, -1, &x) > 0)
                        c->send_slope_kbps = (int32_t) x;
                if (get_int(p, path, e, "hi_credit_bytes", true, 1, INT32_MAX, &x) > 0)
                        c->hi_credit_bytes = (int32_t) x;
                if (get_int(p, path, e, "lo_credit_bytes", true, INT32_MIN, -1, &x) > 0)
                        c->lo_credit_bytes = (int32_t) x;
        } else {
                c->from_bandwidth = true;
                c->max_interference_bytes = TBS_CBS_DEFAULT_INTERFERENCE_BYTES;
                if (get_int(p, path, e, "bandwidth_kbps", true, 1, TBS_CBS_MAX_RATE_KBPS, &x) > 0)
                        c->bandwidth_kbps = (uint32_t) x;
                if (get_int(p, path, e, "max_frame_bytes", true, 1, TBS_CBS_MAX_FRAME_BYTES, &x) > 0)
                        c->max_frame_bytes = (uint32_t) x;
                if (get_int(p, path, e, "max_interference_bytes", false, 1, TBS_CBS_MAX_FRAME_BYTES, &x) > 0)
                        c->max_interference_bytes = (uint32_t) x;
        }
        if (get_int(p, path, e, "link_speed_mbps", false, 1, TBS_CBS_MAX_RATE_KBPS / 1000, &x) > 0)
                c->link_speed_mbps = (uint32_t) x;
        /* With the speed in the file the values are known now (and shown
         * by --json); a bandwidth above it is left for the validator. */
        if (c->from_bandwidth && c->link_speed_mbps > 0)
                (void) cbs_spec_resolve(c, 0, c);
}

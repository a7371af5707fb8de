/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The clock's verdict from what one check gathered (pure: no socket, no
 * clock read), and the status as JSON; see clock-check.h for the rules.
 * clock-check.c runs the checks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock-check.h"
#include "json-util.h"
#include "saturate.h"
#include "string-table.h"
#include "time-util.h"

#define USEC_PER_MSEC 1000ULL
/* A grandmaster's currentUtcOffset counts only on the PTP timescale and when
 * announced valid and traceable (as ptp4l's own UTC correction decides). */
#define UTC_TRUSTED_FLAGS (PTP_FLAG_PTP_TIMESCALE | PTP_FLAG_UTC_OFFSET_VALID | PTP_FLAG_TIME_TRACEABLE)

static const char *const clock_state_table[_CLOCK_STATE_MAX] = {
        [CLOCK_STATE_SYNCED] = "synced",
        [CLOCK_STATE_UNSYNCED] = "unsynced",
        [CLOCK_STATE_NO_PTP4L] = "no-ptp4l",
        [CLOCK_STATE_NO_PHC] = "no-phc",
        [CLOCK_STATE_NOT_CONFIGURED] = "not-configured",
};

DEFINE_STRING_TABLE_LOOKUP(clock_state, ClockState, clock_state_table, _CLOCK_STATE_INVALID)

void clock_status_set(ClockStatus *st, ClockState state, const char *fmt, ...) {
        va_list ap;

        st->state = state;
        va_start(ap, fmt);
        vsnprintf(st->reason, sizeof(st->reason), fmt, ap);
        va_end(ap);
}

static const char *mgmt_error_text(int error, char *buf, size_t size) {
        if (error == -ETIMEDOUT)
                return "no answer";
        if (error == -EBADMSG)
                return "malformed answer";
        if (error == -EREMOTEIO)
                return "error status";
        snprintf(buf, size, "%s", strerror(-error));
        return buf;
}

static void no_ptp4l_reason(const ClockInputs *in, ClockStatus *st) {
        const char *path = in->ptp4l_socket ?: "the ptp4l socket";

        switch (in->ptp4l_error) {
        case -ENOENT:
                clock_status_set(st, CLOCK_STATE_NO_PTP4L, "no ptp4l socket at %s", path);
                break;
        case -ECONNREFUSED:
                clock_status_set(st, CLOCK_STATE_NO_PTP4L, "nothing listens on %s (ptp4l not running)", path);
                break;
        case -ETIMEDOUT:
                clock_status_set(st, CLOCK_STATE_NO_PTP4L,
                          "no answer from ptp4l on %s within %" PRIu64 " ms (domain or transportSpecific differ?)",
                          path, (uint64_t) (in->ptp4l_timeout_usec / USEC_PER_MSEC));
                break;
        case -EAGAIN:
                /* A Unix datagram socket whose queue is full: ptp4l is not
                 * reading, or drops what it reads (another domain or
                 * transportSpecific) more slowly than requests arrive. */
                clock_status_set(st, CLOCK_STATE_NO_PTP4L,
                          "ptp4l on %s takes no requests (its socket queue is full; domain or transportSpecific differ?)",
                          path);
                break;
        default:
                clock_status_set(st, CLOCK_STATE_NO_PTP4L, "ptp4l on %s: %s", path, strerror(-in->ptp4l_error));
        }
}

void clock_evaluate(const ClockSpec *spec, const ClockInputs *in, ClockStatus *ret) {
        ClockStatus st = {
                .phc_offset_method = _PHC_OFFSET_METHOD_INVALID,
                .checked_at_usec = in->now_usec,
        };
        char buf[64];

        /* Keep every figure that is known, whatever the verdict. */
        if (spec->configured && in->ptp4l_error == 0) {
                if (in->port_ds_error == 0) {
                        const char *s = ptp_port_state_to_string(in->port_ds.port_state);
                        st.has_port_state = true;
                        if (s)
                                snprintf(st.port_state, sizeof(st.port_state), "%s", s);
                        else
                                snprintf(st.port_state, sizeof(st.port_state), "UNKNOWN(%u)",
                                         in->port_ds.port_state);
                }
                if (in->time_status_error == 0) {
                        st.has_time_status = true;
                        st.master_offset_ns = in->time_status.master_offset;
                        st.ingress_time_ns = in->time_status.ingress_time;
                        st.gm_present = in->time_status.gm_present != 0;
                        ptp_clock_identity_to_string(in->time_status.gm_identity, st.gm_identity);
                }
                if (in->current_ds_error == 0) {
                        st.has_current_ds = true;
                        st.mean_path_delay_ns = ptp_time_interval_to_ns(in->current_ds.mean_path_delay);
                        st.steps_removed = in->current_ds.steps_removed;
                }
        }
        if (spec->configured && in->tai_error == 0) {
                st.has_tai_offset = true;
                st.tai_offset_s = in->tai_offset_s;
        }
        if (spec->configured && in->phc_index >= 0 && in->phc_error == 0) {
                st.has_phc_offset = true;
                st.phc_sys_offset_ns = in->phc.offset_ns;
                st.phc_offset_method = in->phc.method;
        }

        if (!spec->configured) {
                clock_status_set(&st, CLOCK_STATE_NOT_CONFIGURED, "the schedule has no clock section");
                goto done;
        }
        if (in->ptp4l_error < 0) {
                no_ptp4l_reason(in, &st);
                goto done;
        }
        if (in->port_ds_error == -ENODEV) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "ptp4l has %zu ports, none on %s", in->n_ports,
                          in->ifname ?: "this interface");
                goto done;
        }
        if (in->port_ds_error < 0) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "ptp4l gave no PORT_DATA_SET (%s)",
                          mgmt_error_text(in->port_ds_error, buf, sizeof(buf)));
                goto done;
        }

        bool master = in->port_ds.port_state == PTP_PORT_MASTER ||
                      in->port_ds.port_state == PTP_PORT_GRAND_MASTER;
        if (!master && in->port_ds.port_state != PTP_PORT_SLAVE) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "port state %s", st.port_state);
                goto done;
        }
        if (in->time_status_error < 0) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "ptp4l gave no TIME_STATUS_NP (%s)",
                          mgmt_error_text(in->time_status_error, buf, sizeof(buf)));
                goto done;
        }
        if (!master && !st.gm_present) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "no grandmaster present");
                goto done;
        }
        if (offset_exceeds(st.master_offset_ns, spec->max_master_offset_ns)) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "master offset %" PRIi64 " ns exceeds %" PRIi64 " ns",
                          st.master_offset_ns, spec->max_master_offset_ns);
                goto done;
        }
        if (in->tai_error < 0) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "kernel TAI offset unreadable: %s", strerror(-in->tai_error));
                goto done;
        }
        if (in->tai_offset_s == 0) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "kernel TAI offset is 0 (unset)");
                goto done;
        }
        if (in->time_properties_error == 0 &&
            (in->time_properties.flags & UTC_TRUSTED_FLAGS) == UTC_TRUSTED_FLAGS &&
            in->time_properties.current_utc_offset != in->tai_offset_s) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "kernel TAI offset %" PRIi32 " s differs from the grandmaster's UTC offset %d s",
                          in->tai_offset_s, in->time_properties.current_utc_offset);
                goto done;
        }
        if (in->phc_index < 0) {
                clock_status_set(&st, CLOCK_STATE_NO_PHC,
                          "software time stamping only: PHC checks skipped (port %s, master offset %" PRIi64 " ns)",
                          st.port_state, st.master_offset_ns);
                goto done;
        }
        if (in->phc_error < 0) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "PHC /dev/ptp%d not measurable: %s", in->phc_index,
                          strerror(-in->phc_error));
                goto done;
        }
        if (offset_exceeds(in->phc.offset_ns, spec->max_phc_offset_ns)) {
                clock_status_set(&st, CLOCK_STATE_UNSYNCED, "PHC-to-TAI offset %" PRIi64 " ns exceeds %" PRIi64 " ns",
                          in->phc.offset_ns, spec->max_phc_offset_ns);
                goto done;
        }
        clock_status_set(&st, CLOCK_STATE_SYNCED, "port %s, master offset %" PRIi64 " ns, PHC-to-TAI offset %" PRIi64 " ns (%s)",
                  st.port_state, st.master_offset_ns, in->phc.offset_ns,
                  phc_offset_method_to_string(in->phc.method));
done:
        *ret = st;
}

static struct json_object *json_int_or_null(bool has, int64_t v) {
        return has ? json_object_new_int64(v) : NULL;
}

struct json_object *clock_status_to_json(const ClockStatus *s) {
        struct json_object *o = json_object_new_object();
        char when[40] = "";
        int r = 0;

        if (!o)
                return NULL;

        if (s->checked_at_usec > 0) {
                time_t sec = (time_t) (s->checked_at_usec / USEC_PER_SEC);
                struct tm tm;

                if (gmtime_r(&sec, &tm)) {
                        size_t n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
                        snprintf(when + n, sizeof(when) - n, ".%06uZ",
                                 (unsigned) (s->checked_at_usec % USEC_PER_SEC));
                }
        }

        r |= json_add_made(o, "state", json_object_new_string(clock_state_to_string(s->state) ?: "unsynced"));
        r |= json_add_made(o, "reason", json_object_new_string(s->reason));
        r |= json_add(o, "port_state", s->has_port_state ? json_object_new_string(s->port_state) : NULL);
        r |= json_add(o, "master_offset_ns", json_int_or_null(s->has_time_status, s->master_offset_ns));
        r |= json_add(o, "mean_path_delay_ns", json_int_or_null(s->has_current_ds, s->mean_path_delay_ns));
        r |= json_add(o, "gm_present", s->has_time_status ? json_object_new_boolean(s->gm_present) : NULL);
        r |= json_add(o, "gm_identity", s->has_time_status ? json_object_new_string(s->gm_identity) : NULL);
        r |= json_add(o, "steps_removed", json_int_or_null(s->has_current_ds, s->steps_removed));
        r |= json_add(o, "phc_sys_offset_ns", json_int_or_null(s->has_phc_offset, s->phc_sys_offset_ns));
        r |= json_add(o, "phc_offset_method",
                      s->has_phc_offset ? json_object_new_string(phc_offset_method_to_string(s->phc_offset_method))
                                        : NULL);
        r |= json_add(o, "tai_offset_s", json_int_or_null(s->has_tai_offset, s->tai_offset_s));
        r |= json_add(o, "checked_at", when[0] ? json_object_new_string(when) : NULL);
        if (r != 0) {
                json_object_put(o);
                return NULL;
        }
        return o;
}

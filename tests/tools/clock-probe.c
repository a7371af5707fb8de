/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock-probe: run tbsd's clock check (daemon/clock/clock-check.c, its native
 * ptp4l client and PHC measurement) against one ptp4l socket and print
 * clock_status_to_json() as one JSON line, plus "ingress_time_ns" (when
 * ptp4l answered: the time stamp of the Sync that master_offset_ns comes
 * from, so a test can match it to one pmc reading).
 *
 *   clock-probe [--interface NAME] [--socket PATH] [--domain N] [--transport-specific N]
 *               [--phc N] [--max-master-offset NS] [--max-phc-offset NS]
 *               [--interval-ms MS] [--until STATE] [--max-seconds S]
 *
 * Without --until: one check, print, exit 0.
 * --interface names the interface whose ptp4l port counts when ptp4l has
 * several (default "probe").
 * With --until: periodic checks every --interval-ms (default 200); print a
 * line at the first check and at every state change; exit 0 once the state
 * is STATE, 1 after --max-seconds (default 10). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock-check.h"
#include "log.h"

static const char *arg_until;
static bool done;
static int result = 1;

static void print_status(const ClockStatus *st) {
        struct json_object *o = clock_status_to_json(st);

        if (!o) {
                fprintf(stderr, "clock-probe: out of memory\n");
                exit(1);
        }
        /* Not part of the public keys: lets a test tie the offset to one pmc reading. */
        if (st->has_time_status)
                json_object_object_add(o, "ingress_time_ns", json_object_new_int64(st->ingress_time_ns));
        printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        fflush(stdout);
        json_object_put(o);
}

static void on_change(ClockCheck *cc, ClockState old_state, const ClockStatus *st, void *userdata) {
        print_status(st);
        if (!arg_until || strcmp(clock_state_to_string(st->state), arg_until) == 0) {
                done = true;
                result = 0;
        }
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        fprintf(stderr, "clock-probe: state %s not reached in time\n", arg_until ?: "(any)");
        done = true;
        result = 1;
        return 0;
}

static int parse_int(const char *s, long long min, long long max, long long *ret) {
        char *end;
        long long v;

        errno = 0;
        v = strtoll(s, &end, 0);
        if (errno || end == s || *end || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

int main(int argc, char *argv[]) {
        enum { ARG_INTERFACE = 0x0ff, ARG_SOCKET = 0x100, ARG_DOMAIN, ARG_TS, ARG_PHC, ARG_MMO, ARG_MPO, ARG_INTERVAL, ARG_UNTIL,
               ARG_MAX_SECONDS };
        static const struct option options[] = {
                { "interface",          required_argument, NULL, ARG_INTERFACE },
                { "socket",             required_argument, NULL, ARG_SOCKET },
                { "domain",             required_argument, NULL, ARG_DOMAIN },
                { "transport-specific", required_argument, NULL, ARG_TS },
                { "phc",                required_argument, NULL, ARG_PHC },
                { "max-master-offset",  required_argument, NULL, ARG_MMO },
                { "max-phc-offset",     required_argument, NULL, ARG_MPO },
                { "interval-ms",        required_argument, NULL, ARG_INTERVAL },
                { "until",              required_argument, NULL, ARG_UNTIL },
                { "max-seconds",        required_argument, NULL, ARG_MAX_SECONDS },
                {}
        };
        ClockSpec spec = { .configured = true, .max_master_offset_ns = 100, .max_phc_offset_ns = 1000 };
        long long v, phc = -1, interval_ms = 200, max_seconds = 10;
        const char *ifname = "probe";
        sd_event *e = NULL;
        sd_event_source *deadline = NULL;
        ClockCheck *cc = NULL;
        int c, r;

        log_set_program_name("clock-probe");
        /* stdout is the JSON; the check's own notes (which socket, the
         * subscription) would mix into a caller's 2>&1 */
        log_set_max_level(LOG_WARNING);
        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0) {
                r = 0;
                switch (c) {
                case ARG_INTERFACE: ifname = optarg; break;
                case ARG_SOCKET: spec.ptp4l_socket = optarg; break;
                case ARG_DOMAIN: r = parse_int(optarg, 0, 255, &v); spec.domain = (uint8_t) v; break;
                case ARG_TS: r = parse_int(optarg, 0, 15, &v); spec.transport_specific = (uint8_t) v; break;
                case ARG_PHC: r = parse_int(optarg, -1, 1023, &phc); break;
                case ARG_MMO: r = parse_int(optarg, 0, INT64_MAX, &v); spec.max_master_offset_ns = v; break;
                case ARG_MPO: r = parse_int(optarg, 0, INT64_MAX, &v); spec.max_phc_offset_ns = v; break;
                case ARG_INTERVAL: r = parse_int(optarg, 10, 60000, &interval_ms); break;
                case ARG_UNTIL: arg_until = optarg; break;
                case ARG_MAX_SECONDS: r = parse_int(optarg, 1, 3600, &max_seconds); break;
                default: return 2;
                }
                if (r < 0) {
                        fprintf(stderr, "clock-probe: bad value '%s'\n", optarg);
                        return 2;
                }
        }
        if (arg_until && clock_state_from_string(arg_until) < 0) {
                fprintf(stderr, "clock-probe: unknown state '%s'\n", arg_until);
                return 2;
        }

        r = sd_event_default(&e);
        if (r < 0)
                goto fail;
        r = clock_check_new(e, ifname, &spec, (int) phc, on_change, NULL, &cc);
        if (r < 0)
                goto fail;
        r = sd_event_add_time_relative(e, &deadline, CLOCK_MONOTONIC, (uint64_t) max_seconds * 1000000ULL, 0,
                                       on_deadline, NULL);
        if (r < 0)
                goto fail;

        if (arg_until)
                r = clock_check_start(cc, (uint64_t) interval_ms * 1000ULL);
        else
                r = clock_check_run_now(cc);
        if (r < 0)
                goto fail;

        while (!done) {
                r = sd_event_run(e, UINT64_MAX);
                if (r < 0)
                        goto fail;
        }

        clock_check_free(cc);
        sd_event_source_disable_unref(deadline);
        sd_event_unref(e);
        return result;
fail:
        log_error_errno(r, "%m");
        clock_check_free(cc);
        sd_event_source_disable_unref(deadline);
        sd_event_unref(e);
        return 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl selftest IFACE [QUEUE]: send a short burst of probe frames through
 * each installed etf queue (or the one named) with the socket settings the
 * daemon gives (GetTxtimeParams), read what the kernel reports on the error
 * queue, and compare with what the queue's qdisc counted (Describe() before
 * and after). It sends real traffic: raw Ethernet frames with the local
 * experimental EtherType 0x88B5 to the broadcast address, on the link only.
 * It changes no qdisc, no device setting and no schedule. The launch-time
 * error of the burst (transmit time stamp - launch time) is reported with
 * the figures of the daemon's launch-time monitor (lib/launch-hist.h,
 * docs/fidelity.md): hardware stamps where the NIC gives them (moved to
 * the queue's clock with the clock check's PHC offset), software stamps
 * (CLOCK_REALTIME, moved to the queue's clock) otherwise. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "json-util.h"
#include "launch-error.h"
#include "launch-print.h"
#include "launch-stamps.h"
#include "link-name.h"
#include "log.h"
#include "parse-number.h"
#include "schedule.h"
#include "utf8.h"
#include "sd-cleanup.h"
#include "txtime-probe.h"
#include "verbs.h"
#include "time-util.h"

#define SELFTEST_MARGIN_NS  50000000u       /* first launch time: now + delta + this */
#define SELFTEST_SPACING_NS 1000000u        /* between launch times */
#define SELFTEST_COUNTERS_WAIT_MS 3000      /* for the daemon's counters to catch up */

typedef struct TxtimeParams {
        uint32_t priority;
        int32_t clockid;
        int deadline_mode;
        uint32_t delta_ns;
        int offload;
} TxtimeParams;

static int get_params(sd_bus *bus, const char *path, const char *ifname, uint32_t queue, TxtimeParams *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        TxtimeParams p;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE, "GetTxtimeParams", &error, &reply, "u",
                               queue);
        if (r < 0)
                return client_call_failed(ifname, &error, r);
        r = sd_bus_message_read(reply, "uibub", &p.priority, &p.clockid, &p.deadline_mode, &p.delta_ns, &p.offload);
        if (r < 0)
                return log_error_errno(r, "GetTxtimeParams: bad reply: %m");
        *ret = p;
        return 0;
}

static struct json_object *find_queue(struct json_object *doc, uint32_t queue) {
        struct json_object *qs = json_get(doc, "txqueues");

        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i);
                if (json_get_int(q, "queue", -1) == (int64_t) queue)
                        return q;
        }
        return NULL;
}

/* An installed etf on the queue, or one under its cbs ("child"). */
static bool is_etf(struct json_object *q) {
        const char *k = json_get_string(q, "qdisc"), *c = json_get_string(json_get(q, "child"), "qdisc");
        return json_get_bool(q, "installed", 0) && ((k && strcmp(k, "etf") == 0) || (c && strcmp(c, "etf") == 0));
}

static int64_t queue_counter(struct json_object *doc, uint32_t queue, const char *key) {
        return json_get_int(json_get(find_queue(doc, queue), "stats"), key, 0);
}

static void sleep_until(clockid_t c, uint64_t t) {
        struct timespec ts = { .tv_sec = (time_t) (t / 1000000000u), .tv_nsec = (long) (t % 1000000000u) };

        while (clock_nanosleep(c, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

/* The offsets that move the burst's stamps to the queue's clock: the
 * kernel's (clock - CLOCK_REALTIME) and, when doc's clock check measured
 * it, the PHC's (its phc_sys_offset_ns is PHC - CLOCK_TAI). */
static void clock_offsets(struct json_object *doc, clockid_t clock, LaunchClockOffsets *ret) {
        struct json_object *phc = json_get(json_get(doc, "clock"), "phc_sys_offset_ns");
        LaunchClockOffsets o = {};
        int64_t tai = 0;

        o.has_realtime = launch_clock_offset_now(clock, &o.realtime_ns) >= 0;
        if (phc && json_object_is_type(phc, json_type_int) && launch_clock_offset_now(CLOCK_TAI, &tai) >= 0) {
                /* PHC - clock = (PHC - TAI) - (clock - TAI) */
                o.has_phc = true;
                o.phc_ns = json_object_get_int64(phc) - (o.realtime_ns - tai);
        }
        *ret = o;
}

/* Add the members of from that o does not have yet (the burst's keys that
 * already exist, sent/missed/invalid, keep their values). */
static void add_missing(struct json_object *o, struct json_object *from) {
        json_object_object_foreach(from, key, value)
                if (!json_object_object_get_ex(o, key, NULL))
                        json_add(o, key, json_object_get(value));
}

/* Send the burst through one queue; the result goes into a new JSON object. */
static int probe_queue(sd_bus *bus, const char *ifname, int ifindex, uint32_t queue, const TxtimeParams *p,
                       bool hw, const char *no_hw_reason, struct json_object *before, struct json_object **ret) {
        _cleanup_free_ TxtimeProbe *probes = NULL;
        _cleanup_free_ int64_t *errs = NULL;
        _cleanup_close_ int fd = -1;
        _cleanup_json_ struct json_object *o = NULL, *figures = NULL;
        struct json_object *after = NULL, *qd;
        LaunchClockOffsets offsets;
        LaunchQueueStats stats;
        int64_t c[_TXTIME_OUTCOME_MAX] = {};
        size_t n_errs = 0;
        uint64_t t0, last;
        int r;

        probes = calloc(arg_count, sizeof(TxtimeProbe));
        errs = calloc(arg_count, sizeof(int64_t));
        if (!probes || !errs)
                return log_error_errno(ENOMEM, "out of memory");
        /* Software stamps too: the launch error of a NIC without hardware ones. */
        r = txtime_probe_socket(ifindex, p->priority, p->clockid, p->deadline_mode, true,
                                TXTIME_PROBE_TSTAMP_SOFTWARE | (hw ? TXTIME_PROBE_TSTAMP_HARDWARE : 0), &fd);
        if (r == -EPERM || r == -EACCES)
                return log_error_errno(r, "selftest needs root: an AF_PACKET socket needs CAP_NET_RAW and "
                                          "SO_TXTIME with CLOCK_TAI needs CAP_NET_ADMIN: %m");
        if (r < 0)
                return log_error_errno(r, "%s: cannot open the probe socket: %m", ifname);

        t0 = now_nsec(p->clockid);
        for (unsigned i = 0; i < arg_count; i++) {
                probes[i] = (TxtimeProbe) {
                        .seq = i,
                        .txtime_ns = t0 + p->delta_ns + SELFTEST_MARGIN_NS + (uint64_t) i * SELFTEST_SPACING_NS,
                };
                r = txtime_probe_send(fd, ifindex, &probes[i]);
                if (r < 0)
                        return log_error_errno(r, "%s: queue %" PRIu32 ": send: %m", ifname, queue);
        }
        last = probes[arg_count - 1].txtime_ns;
        sleep_until(p->clockid, last + 20000000u);
        r = txtime_probe_collect(fd, probes, arg_count, 200);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read the error queue: %m", ifname);

        clock_offsets(before, p->clockid, &offsets);
        launch_stats_from_probes(queue, probes, arg_count, &offsets, &stats);
        for (unsigned i = 0; i < arg_count; i++) {
                c[probes[i].outcome]++;
                if (probes[i].has_hw_tstamp)
                        errs[n_errs++] = probes[i].hw_tstamp_ns - (int64_t) probes[i].txtime_ns;
        }

        /* What the qdisc counted: wait until the daemon's counters account
         * for the whole burst (it may sample them on an interval). */
        for (int waited = 0;; waited += 100) {
                json_object_put(after);
                after = NULL;
                r = client_describe(bus, ifname, &after);
                if (r < 0)
                        return r;
                if (queue_counter(after, queue, "packets") + queue_counter(after, queue, "drops") -
                            queue_counter(before, queue, "packets") - queue_counter(before, queue, "drops") >=
                    (int64_t) arg_count || waited >= SELFTEST_COUNTERS_WAIT_MS)
                        break;
                sleep_until(CLOCK_MONOTONIC, now_nsec(CLOCK_MONOTONIC) + 100000000u);
        }

        o = json_object_new_object();
        json_add(o, "queue", json_object_new_int64(queue));
        json_add(o, "socket_priority", json_object_new_int64(p->priority));
        json_add_string(o, "clockid", clockid_to_string(p->clockid) ?: "unknown");
        json_add(o, "delta_ns", json_object_new_int64(p->delta_ns));
        json_add(o, "deadline_mode", json_object_new_boolean(p->deadline_mode));
        json_add(o, "offload", json_object_new_boolean(p->offload));
        json_add(o, "sent", json_object_new_int64(arg_count));
        json_add(o, "on_time", json_object_new_int64(c[TXTIME_OUTCOME_NONE]));
        json_add(o, "missed", json_object_new_int64(c[TXTIME_OUTCOME_MISSED]));
        json_add(o, "invalid", json_object_new_int64(c[TXTIME_OUTCOME_INVALID]));
        if (n_errs > 0) {
                TxtimeDistribution d;
                struct json_object *e = json_object_new_object();

                (void) txtime_distribution(errs, n_errs, &d);
                json_add(e, "count", json_object_new_int64((int64_t) d.n));
                json_add(e, "min", json_object_new_int64(d.min));
                json_add(e, "median", json_object_new_int64(d.median));
                json_add(e, "p99", json_object_new_int64(d.p99));
                json_add(e, "max", json_object_new_int64(d.max));
                json_add(o, "launch_time_error_ns", e);
                json_add_string(o, "timestamps", "hardware");
        } else {
                json_add(o, "launch_time_error_ns", NULL);
                json_add_string(o, "timestamps", hw ? "no transmit time stamps: none came back"
                                                    : no_hw_reason);
        }
        qd = json_object_new_object();
        static const char *const keys[] = { "packets", "drops", "deadline_misses", "invalid" };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                json_add(qd, keys[i], json_object_new_int64(queue_counter(after, queue, keys[i]) -
                                                            queue_counter(before, queue, keys[i])));
        json_add(o, "qdisc", qd);
        figures = json_object_new_object();
        if (!figures || launch_stats_to_json(&stats, figures) < 0)
                return log_error_errno(ENOMEM, "out of memory");
        add_missing(o, figures);
        json_object_put(after);
        *ret = TAKE_PTR(o);
        return 0;
}

static void print_human(const char *name, struct json_object *q) {
        struct json_object *e = json_get(q, "launch_time_error_ns"), *qd = json_get(q, "qdisc");
        _cleanup_free_ char *buf = NULL;
        const char *ifname = text_safe(name, &buf);

        printf("%s queue %" PRId64 " (SO_PRIORITY %" PRId64 ", %s, delta %" PRId64 " ns%s, %s):\n", ifname,
               json_get_int(q, "queue", -1), json_get_int(q, "socket_priority", 0),
               json_get_string(q, "clockid") ?: "?", json_get_int(q, "delta_ns", 0),
               json_get_bool(q, "deadline_mode", 0) ? ", deadline mode" : "",
               json_get_bool(q, "offload", 0) ? "launch-time offload" : "software");
        printf("  sent %" PRId64 ", on time %" PRId64 ", missed %" PRId64 ", invalid %" PRId64 "\n",
               json_get_int(q, "sent", 0), json_get_int(q, "on_time", 0), json_get_int(q, "missed", 0),
               json_get_int(q, "invalid", 0));
        printf("  the qdisc counted: %" PRId64 " sent, %" PRId64 " deadline misses, %" PRId64
               " invalid, %" PRId64 " drops\n",
               json_get_int(qd, "packets", 0), json_get_int(qd, "deadline_misses", 0),
               json_get_int(qd, "invalid", 0), json_get_int(qd, "drops", 0));
        if (e && !json_object_is_type(e, json_type_null))
                printf("  launch time error (transmit time stamp - txtime): min %" PRId64 " ns, median %" PRId64
                       " ns, p99 %" PRId64 " ns, max %" PRId64 " ns (%" PRId64 " time stamps)\n",
                       json_get_int(e, "min", 0), json_get_int(e, "median", 0), json_get_int(e, "p99", 0),
                       json_get_int(e, "max", 0), json_get_int(e, "count", 0));
        else
                printf("  hardware time stamps: %s\n", json_get_string(q, "timestamps") ?: "unknown");
        printf("  launch error: ");
        print_launch_figures(stdout, q);
        putchar('\n');
}

int verb_selftest(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_free_ char *path = NULL;
        _cleanup_json_ struct json_object *doc = NULL, *out = NULL;
        struct json_object *qs, *arr;
        int64_t total[_TXTIME_OUTCOME_MAX] = {}, sent = 0;
        char reason[320] = "";
        uint64_t only = 0;
        bool have_only = argc > 1, hw;
        int ifindex, r;

        if (have_only && parse_uint_arg("selftest: QUEUE", argv[1], 0, TBS_MAX_QUEUE, &only) < 0)
                return TBSCTL_EXIT_USAGE;
        if (arg_count == 0) {
                log_error("selftest: --count must be at least 1");
                return TBSCTL_EXIT_USAGE;
        }
        r = client_connect(&bus);
        if (r >= 0)
                r = client_get_link(bus, argv[0], &path);
        if (r >= 0)
                r = client_describe(bus, argv[0], &doc);
        if (r < 0)
                return client_exit_status(r);
        ifindex = link_name_lookup(argv[0], NULL);
        if (ifindex <= 0)
                return client_exit_status(log_error_errno(ifindex ?: ENODEV, "%s: no such interface here: %m", argv[0]));
        if (have_only && !is_etf(find_queue(doc, (uint32_t) only))) {
                log_error("%s: TX queue %" PRIu64 " has no installed etf qdisc", argv[0], only);
                return TBSCTL_EXIT_FAILED;
        }
        r = txtime_probe_hw_tx_timestamps(argv[0], reason, sizeof(reason));
        if (r < 0) {
                log_debug_errno(r, "%s: SIOCGHWTSTAMP: %m", argv[0]);
                snprintf(reason, sizeof(reason), "cannot tell (SIOCGHWTSTAMP: %s)", strerror(-r));
        }
        hw = r > 0;
        if (!hw) {
                char tmp[sizeof(reason)];
                snprintf(tmp, sizeof(tmp), "no transmit time stamps: %s", reason);
                memcpy(reason, tmp, sizeof(reason));
        } else {
                /* Stamping is on: someone (ptp4l) waits for the NIC's stamps.
                 * Ask for them only where the NIC holds one for every frame
                 * of the burst beside that one's, as the daemon's monitor
                 * does: a selftest must not fault ptp4l's port. */
                struct json_object *caps = json_get(doc, "capabilities");
                int64_t slots = caps ? json_get_int(caps, "tx_stamp_slots", 0) : 0;
                LaunchStampChoice c = launch_stamps_choose(true, slots > 0 ? (unsigned) slots : 0, arg_count);

                if (c.stamps != LAUNCH_STAMPS_HARDWARE) {
                        hw = false;
                        snprintf(reason, sizeof(reason), "software stamps only: %s",
                                 launch_stamps_why_to_string(c.why));
                }
        }

        out = json_object_new_object();
        arr = json_object_new_array();
        json_add_string(out, "interface", argv[0]);
        json_add(out, "queues", arr);
        qs = json_get(doc, "txqueues");
        for (size_t i = 0; qs && i < json_object_array_length(qs); i++) {
                struct json_object *q = json_object_array_get_idx(qs, i), *res = NULL;
                uint32_t queue = (uint32_t) json_get_int(q, "queue", -1);
                TxtimeParams p = {};

                if (!is_etf(q) || (have_only && queue != only))
                        continue;
                r = get_params(bus, path, argv[0], queue, &p);
                if (r < 0)
                        return client_exit_status(r);
                r = probe_queue(bus, argv[0], ifindex, queue, &p, hw, reason, doc, &res);
                if (r < 0)
                        return client_exit_status(r);
                json_object_array_add(arr, res);
                sent += json_get_int(res, "sent", 0);
                total[TXTIME_OUTCOME_NONE] += json_get_int(res, "on_time", 0);
                total[TXTIME_OUTCOME_MISSED] += json_get_int(res, "missed", 0);
                total[TXTIME_OUTCOME_INVALID] += json_get_int(res, "invalid", 0);
                if (!arg_json)
                        print_human(argv[0], res);
        }
        if (json_object_array_length(arr) == 0) {
                log_error("%s: no installed etf queue to test", argv[0]);
                return TBSCTL_EXIT_FAILED;
        }
        json_add(out, "sent", json_object_new_int64(sent));
        json_add(out, "on_time", json_object_new_int64(total[TXTIME_OUTCOME_NONE]));
        json_add(out, "missed", json_object_new_int64(total[TXTIME_OUTCOME_MISSED]));
        json_add(out, "invalid", json_object_new_int64(total[TXTIME_OUTCOME_INVALID]));
        if (arg_json)
                puts(json_object_to_json_string_ext(out, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        /* A queue that misses launch times fails the test. */
        return total[TXTIME_OUTCOME_MISSED] || total[TXTIME_OUTCOME_INVALID] ? TBSCTL_EXIT_FAILED : TBSCTL_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Gate lists computed from streams (lib/stream-schedule.c): worked examples
 * whose entries are computed by hand in the comments, the refusals, and a
 * property test over random stream sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json-util.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-streams.h"
#include "schedule-verify.h"
#include "stream-schedule.h"

/* At 1 Gbit/s a byte takes 8 ns. A 128-byte frame: (128 + 24) * 8 = 1216 ns.
 * The guard band, one 1518-byte frame: (1518 + 24) * 8 = 12336 ns. */
#define W128 1216
#define GUARD 12336

static StreamScheduleParams params(uint8_t num_tc, uint8_t ptp_tc) {
        return (StreamScheduleParams) { .link_speed_mbps = 1000, .num_tc = num_tc, .ptp_tc = ptp_tc,
                                        .guard_frame_bytes = TBS_STREAM_DEFAULT_GUARD_FRAME_BYTES };
}

static StreamSpec fixed(const char *name, uint8_t tc, uint32_t period, uint32_t offset, uint32_t bytes,
                        uint32_t frames) {
        return (StreamSpec) { .name = (char *) name, .traffic_class = tc, .period_ns = period,
                              .offset_ns = offset, .offset_given = true, .max_frame_bytes = bytes,
                              .frames_per_period = frames };
}

static StreamSpec floating(const char *name, uint8_t tc, uint32_t period, uint32_t bytes, uint32_t frames) {
        StreamSpec s = fixed(name, tc, period, 0, bytes, frames);
        s.offset_given = false;
        return s;
}

static void expect_entries(const StreamSpec *st, size_t n, const StreamScheduleParams *p, uint64_t cycle,
                           const uint32_t (*want)[2], size_t n_want, StreamSchedule *ret) {
        char *err = NULL;
        int q = stream_schedule_compute(st, n, p, ret, &err);

        if (q < 0)
                fail_msg("refused: %s", err);
        assert_null(err);
        assert_int_equal(ret->cycle_ns, cycle);
        for (size_t i = 0; i < ret->n_entries && i < n_want; i++) {
                if (ret->entries[i].gate_mask != want[i][0] || ret->entries[i].interval_ns != want[i][1])
                        fail_msg("entry %zu: mask 0x%x for %u ns, expected 0x%x for %u ns", i,
                                 ret->entries[i].gate_mask, ret->entries[i].interval_ns, want[i][0], want[i][1]);
                assert_int_equal(ret->entries[i].command, GATE_SET_GATES);
        }
        assert_int_equal(ret->n_entries, n_want);
}

static void expect_refused(const StreamSpec *st, size_t n, const StreamScheduleParams *p, int code,
                           const char *line) {
        StreamSchedule r = {};
        char *err = NULL;

        assert_int_equal(stream_schedule_compute(st, n, p, &r, &err), code);
        assert_non_null(err);
        if (strcmp(err, line) != 0)
                fail_msg("got \"%s\"\nwanted \"%s\"", err, line);
        assert_null(strchr(err, '\n'));
        assert_null(r.entries);
        free(err);
}

static void test_wire_time(void **state) {
        assert_int_equal(stream_wire_time_ns(128, 1, 1000), W128);
        assert_int_equal(stream_wire_time_ns(1518, 1, 1000), GUARD);
        /* Short frames are padded to 60 bytes: (60 + 24) * 8 = 672 ns. */
        assert_int_equal(stream_wire_time_ns(1, 1, 1000), 672);
        /* 4 frames of 1500 at 100 Mbit/s: 1524 * 4 * 80 = 487680 ns. */
        assert_int_equal(stream_wire_time_ns(1500, 4, 100), 487680);
        /* 2.5 Gbit/s: 152 * 8000 / 2500 = 486.4 -> 487 (rounded up). */
        assert_int_equal(stream_wire_time_ns(128, 1, 2500), 487);
        assert_int_equal(stream_wire_time_ns(128, 1, 0), 0);
}

static void test_single_stream(void **state) {
        /* Classes 0-2, PTP in class 1, one stream in class 0 at offset 0:
         *   [0, 1216)              class 0 open              (the window)
         *   [1216, 987664)         classes 1, 2 open: 0x6    (best effort)
         *   [987664, 1000000)      all closed                (guard band before the next cycle's window) */
        StreamSpec st[] = { fixed("a", 0, 1000000, 0, 128, 1) };
        StreamScheduleParams p = params(3, 1);
        static const uint32_t want[][2] = { { 0x1, W128 }, { 0x6, 987664 - W128 }, { 0x0, GUARD } };
        _cleanup_(stream_schedule_done) StreamSchedule r = {};

        expect_entries(st, 1, &p, 1000000, want, 3, &r);
        assert_int_equal(r.offsets_ns[0], 0);
        assert_int_equal(r.window_ns[0], W128);
        assert_int_equal(r.n_windows, 1);
        assert_int_equal(r.be_mask, 0x6);
        assert_int_equal(r.utilisation_ppm, 1216);
}

static void test_two_periods(void **state) {
        /* a: class 0, every 1 ms at 0, one 128-byte frame (1216 ns).
         * b: class 1, every 2 ms at 500 us, four 1500-byte frames:
         *    (1500 + 24) * 4 * 8 = 48768 ns.
         * Cycle 2 ms; PTP in class 3; best effort is classes 2 and 3 (0xc).
         *   [0, 1216) a | [1216, 487664) be | [487664, 500000) guard | [500000, 548768) b
         *   | [548768, 987664) be | [987664, 1000000) guard | [1000000, 1001216) a
         *   | [1001216, 1987664) be | [1987664, 2000000) guard */
        StreamSpec st[] = { fixed("a", 0, 1000000, 0, 128, 1), fixed("b", 1, 2000000, 500000, 1500, 4) };
        StreamScheduleParams p = params(4, 3);
        static const uint32_t want[][2] = {
                { 0x1, W128 }, { 0xc, 486448 }, { 0x0, GUARD }, { 0x2, 48768 }, { 0xc, 438896 },
                { 0x0, GUARD }, { 0x1, W128 }, { 0xc, 986448 }, { 0x0, GUARD },
        };
        _cleanup_(stream_schedule_done) StreamSchedule r = {};

        expect_entries(st, 2, &p, 2000000, want, ELEMENTSOF(want), &r);
        assert_int_equal(r.n_windows, 3);
        assert_int_equal(r.windows[1].stream, 1);
        assert_int_equal(r.windows[1].start_ns, 500000);
        assert_int_equal(r.windows[2].start_ns, 1000000);
}

static void test_automatic_placement(void **state) {
        /* a fixed at 0 (1216 ns). c (500 us period) is placed before b (the
         * shorter period first), right after a: 1216, and so at 501216.
         * c: (256 + 24) * 2 * 8 = 4480 ns. b (1 ms, one 200-byte frame:
         * (200 + 24) * 8 = 1792 ns) then goes after c: 1216 + 4480 = 5696.
         *   [0, 1216) a | [1216, 5696) c | [5696, 7488) b | [7488, 488880) be
         *   | [488880, 501216) guard | [501216, 505696) c | [505696, 987664) be
         *   | [987664, 1000000) guard */
        StreamSpec st[] = { fixed("a", 0, 1000000, 0, 128, 1), floating("b", 1, 1000000, 200, 1),
                            floating("c", 1, 500000, 256, 2) };
        StreamScheduleParams p = params(3, 2);
        static const uint32_t want[][2] = {
                { 0x1, W128 }, { 0x2, 4480 + 1792 }, { 0x4, 488880 - 7488 }, { 0x0, GUARD },
                { 0x2, 4480 }, { 0x4, 987664 - 505696 }, { 0x0, GUARD },
        };
        _cleanup_(stream_schedule_done) StreamSchedule r = {};

        expect_entries(st, 3, &p, 1000000, want, ELEMENTSOF(want), &r);
        assert_int_equal(r.offsets_ns[0], 0);
        assert_int_equal(r.offsets_ns[1], 5696);
        assert_int_equal(r.offsets_ns[2], 1216);
}

static void test_guard_bands(void **state) {
        /* A window in the middle: the guard band right before it.
         *   [0, 487664) be | [487664, 500000) guard | [500000, 501216) a | [501216, 1000000) be */
        StreamSpec one[] = { fixed("a", 0, 1000000, 500000, 128, 1) };
        StreamScheduleParams p = params(2, 1);
        static const uint32_t want1[][2] = { { 0x2, 487664 }, { 0x0, GUARD }, { 0x1, W128 }, { 0x2, 498784 } };
        /* Two windows 10 us apart: the gap is shorter than a guard band,
         * so it stays closed; a window right after another needs none.
         *   [0, 1216) a | [1216, 10000) closed | [10000, 11216) b | [11216, 12432) c
         *   | [12432, 987664) be | [987664, 1000000) guard */
        StreamSpec three[] = { fixed("a", 0, 1000000, 0, 128, 1), fixed("b", 1, 1000000, 10000, 128, 1),
                               fixed("c", 2, 1000000, 11216, 128, 1) };
        StreamScheduleParams p3 = params(4, 3);
        static const uint32_t want3[][2] = { { 0x1, W128 }, { 0x0, 10000 - W128 }, { 0x2, W128 }, { 0x4, W128 },
                                             { 0x8, 987664 - 12432 }, { 0x0, GUARD } };
        /* Software taprio's shortest entry (100 us): the window and the
         * guard band grow to it.
         *   [0, 100000) a | [100000, 900000) be | [900000, 1000000) guard */
        StreamScheduleParams pmin = params(2, 1);
        static const uint32_t wantmin[][2] = { { 0x1, 100000 }, { 0x2, 800000 }, { 0x0, 100000 } };
        StreamSpec at0[] = { fixed("a", 0, 1000000, 0, 128, 1) };
        _cleanup_(stream_schedule_done) StreamSchedule r1 = {}, r3 = {}, rmin = {};

        expect_entries(one, 1, &p, 1000000, want1, ELEMENTSOF(want1), &r1);
        expect_entries(three, 3, &p3, 1000000, want3, ELEMENTSOF(want3), &r3);
        pmin.min_interval_ns = TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS;
        expect_entries(at0, 1, &pmin, 1000000, wantmin, ELEMENTSOF(wantmin), &rmin);
        /* A larger guard frame (9000-byte jumbo frames): (9000 + 24) * 8 = 72192 ns. */
        p.guard_frame_bytes = 9000;
        stream_schedule_done(&r1);
        static const uint32_t wantj[][2] = { { 0x2, 500000 - 72192 }, { 0x0, 72192 }, { 0x1, W128 },
                                             { 0x2, 498784 } };
        expect_entries(one, 1, &p, 1000000, wantj, ELEMENTSOF(wantj), &r1);
}

static void test_refusals(void **state) {
        StreamScheduleParams p = params(3, 2);
        /* b's window [1000, 2216) runs into a's [0, 1216) for 216 ns. */
        StreamSpec conflict[] = { fixed("a", 0, 1000000, 0, 128, 1), fixed("b", 1, 2000000, 1000, 128, 1) };
        /* 10 frames of 1500 bytes per ms at 10 Mbit/s: 1524 * 10 * 800 =
         * 12192000 ns a period: 1219.2 %. */
        StreamSpec over[] = { fixed("v", 0, 1000000, 0, 1500, 10) };
        StreamScheduleParams slow = params(3, 2);
        /* lcm(3 ms, 1 s) = 3 s, above the kernel's 2147483647 ns. */
        StreamSpec big[] = { floating("a", 0, 3000000, 128, 1), floating("b", 1, 1000000000, 128, 1) };
        /* x: [0, 200 us) every 1 ms; y: [1.3 ms, 1.7 ms) every 2 ms; z needs
         * 500 us every 1 ms (90 % in all): from 200 us it runs into y in
         * the second millisecond, from 700 us past its period. */
        StreamSpec full[] = { fixed("x", 0, 1000000, 0, 24976, 1), fixed("y", 1, 2000000, 1300000, 49976, 1),
                              floating("z", 1, 1000000, 62476, 1) };
        /* 98 % taken: the 20 us left are too short for a 1518-byte frame and
         * its guard band, so PTP would never be let out. */
        StreamSpec nobe[] = { fixed("x", 0, 1000000, 0, 122476, 1) };
        StreamSpec dup[] = { fixed("x", 0, 1000000, 0, 128, 1), fixed("x", 1, 1000000, 5000, 128, 1) };
        StreamSpec late[] = { fixed("x", 0, 1000000, 999000, 1500, 1) };
        StreamSpec slow_to_place[] = { fixed("b0", 1, 20000, 19300, 60, 1), fixed("b1", 1, 20000, 19450, 60, 1),
                                       fixed("b2", 1, 20000, 19600, 60, 1), fixed("b3", 1, 20000, 19750, 60, 1),
                                       floating("victim", 2, 20025, 60, 1) };
        StreamScheduleParams fast = { .link_speed_mbps = 10000, .num_tc = 3, .ptp_tc = 0,
                                      .guard_frame_bytes = 60 };

        slow.link_speed_mbps = 10;
        expect_refused(conflict, 2, &p, -EBUSY, "streams \"a\" and \"b\" overlap at 1000 ns of the cycle, for 216 ns");
        expect_refused(over, 1, &slow, -ENOSPC,
                       "the streams' windows take 1219.2 % of the cycle of 1000000 ns (above 100 % at 10 Mbit/s)");
        expect_refused(big, 2, &p, -ERANGE,
                       "the cycle (least common multiple of the periods) would be 3000000000 ns, the limit is "
                       "2147483647 ns");
        expect_refused(full, 3, &p, -EBUSY,
                       "stream \"z\": no free time of 500000 ns in its period of 1000000 ns (the other streams' "
                       "windows are in the way)");
        expect_refused(nobe, 1, &p, -ENOSPC,
                       "the streams leave no best-effort time of 12336 ns (one frame of 1518 bytes) in the cycle: "
                       "PTP's class 2 would never open");
        expect_refused(dup, 2, &p, -EINVAL, "two streams are named \"x\"");
        /* Four streams every 20 us at 19.3, 19.45, 19.6 and 19.75 us and
         * one more every 20.025 us: its 801 occurrences step 25 ns against
         * theirs, so each of the 3 205 candidate offsets fails only after
         * hundreds of checks, 305 488 in all (issue 37: any Validate()
         * caller could start that much work); the bound stops it. */
        expect_refused(slow_to_place, 5, &fast, -ERANGE,
                       "placing stream \"victim\" took more than 262144 checks of the windows already placed, the "
                       "bound of the computation: give streams offset_ns, or fewer streams or occurrences");
        expect_refused(late, 1, &p, -EINVAL,
                       "stream \"x\": its window of 12192 ns from offset 999000 ns ends past its period of "
                       "1000000 ns");
        p.link_speed_mbps = 0;
        expect_refused(dup, 2, &p, -EINVAL, "the link speed is not known (give link_speed_mbps)");
        p = params(2, 1);
        expect_refused(late, 1, &(StreamScheduleParams) { .link_speed_mbps = 1000, .num_tc = 2, .ptp_tc = 2 },
                       -EINVAL, "PTP's traffic class 2 is not one of the 2 classes");
        late[0].traffic_class = 5;
        expect_refused(late, 1, &p, -EINVAL, "stream \"x\": traffic class 5, but the root has 2 classes");
}

/* The gates open at time t of the cycle. */
static uint32_t mask_at(const StreamSchedule *r, uint64_t t) {
        uint64_t at = 0;

        t %= r->cycle_ns;
        for (size_t i = 0; i < r->n_entries; i++) {
                if (t < at + r->entries[i].interval_ns)
                        return r->entries[i].gate_mask;
                at += r->entries[i].interval_ns;
        }
        fail_msg("time %llu past the cycle", (unsigned long long) t);
        return 0;
}

/* Every entry boundary and the range's start inside [from, to) (circular):
 * the mask is constant between them, so checking those points checks all. */
static bool all_in_range(const StreamSchedule *r, uint64_t from, uint64_t to, uint32_t want, uint32_t forbid) {
        uint64_t at = 0;
        uint32_t m = mask_at(r, from);

        if ((m & want) != want || (m & forbid) != 0)
                return false;
        for (int lap = 0; lap < 2; lap++)
                for (size_t i = 0; i < r->n_entries; i++) {
                        uint64_t t = at + (uint64_t) lap * r->cycle_ns;

                        at += r->entries[i].interval_ns;
                        if (t > from && t < to) {
                                m = r->entries[i].gate_mask;
                                if ((m & want) != want || (m & forbid) != 0)
                                        return false;
                        }
                }
        return true;
}

static void check_properties(const StreamSpec *st, size_t n, const StreamScheduleParams *p,
                             const StreamSchedule *r) {
        uint64_t sum = 0, frame_ns = stream_wire_time_ns(p->guard_frame_bytes, 1, p->link_speed_mbps);
        bool ptp_opens = false;
        uint32_t stream_classes = 0;
        size_t count = 0;

        for (size_t i = 0; i < r->n_entries; i++) {
                assert_true(r->entries[i].interval_ns > 0);
                assert_true(r->entries[i].interval_ns >= p->min_interval_ns);
                assert_int_equal(r->entries[i].gate_mask >> p->num_tc, 0);
                if (i > 0)
                        assert_int_not_equal(r->entries[i].gate_mask, r->entries[i - 1].gate_mask);
                if ((r->entries[i].gate_mask & 1U << p->ptp_tc) && r->entries[i].interval_ns >= frame_ns)
                        ptp_opens = true;
                sum += r->entries[i].interval_ns;
        }
        assert_int_equal(sum, r->cycle_ns);
        assert_true(ptp_opens);
        for (size_t i = 0; i < n; i++) {
                uint64_t need = stream_wire_time_ns(st[i].max_frame_bytes, st[i].frames_per_period,
                                                    p->link_speed_mbps);

                assert_int_equal(r->cycle_ns % st[i].period_ns, 0);
                assert_true(r->window_ns[i] >= need);
                if (st[i].offset_given)
                        assert_int_equal(r->offsets_ns[i], st[i].offset_ns);
                assert_true(r->offsets_ns[i] + r->window_ns[i] <= st[i].period_ns);
                count += r->cycle_ns / st[i].period_ns;
                stream_classes |= 1U << st[i].traffic_class;
        }
        assert_int_equal(r->n_windows, count);
        for (size_t k = 0; k < r->n_windows; k++) {
                const StreamWindow *w = &r->windows[k];
                const StreamSpec *s = &st[w->stream];
                uint32_t bit = 1U << s->traffic_class;
                /* the classes that only best effort uses (PTP's class may
                 * also be a stream's, and then opens in its windows) */
                uint32_t be_only = r->be_mask & ~stream_classes;

                assert_int_equal(w->start_ns % s->period_ns, r->offsets_ns[w->stream]);
                assert_int_equal(w->length_ns, r->window_ns[w->stream]);
                if (k > 0)
                        assert_true(r->windows[k - 1].start_ns + r->windows[k - 1].length_ns <= w->start_ns);
                /* The occurrence lies in an open window of its class. */
                if (!all_in_range(r, w->start_ns, w->start_ns + w->length_ns, bit, 0))
                        fail_msg("stream %s at %llu: its class is not open for %llu ns", s->name,
                                 (unsigned long long) w->start_ns, (unsigned long long) w->length_ns);
                /* No best-effort gate open in its window or one guard frame before. */
                if (!all_in_range(r, w->start_ns + r->cycle_ns - frame_ns, w->start_ns + r->cycle_ns + w->length_ns,
                                  0, be_only))
                        fail_msg("stream %s at %llu: best effort open in its guard band or window", s->name,
                                 (unsigned long long) w->start_ns);
        }
}

static void test_random_sets(void **state) {
        static const uint32_t periods[] = { 125000, 250000, 500000, 1000000, 2000000, 4000000, 1500000, 3000000 };
        static const uint32_t speeds[] = { 100, 1000, 2500, 10000 };
        static const char *const names[] = { "s0", "s1", "s2", "s3", "s4", "s5" };
        unsigned ok = 0, refused = 0;

        srand(25);
        for (int it = 0; it < 3000; it++) {
                StreamScheduleParams p = { .link_speed_mbps = speeds[rand() % ELEMENTSOF(speeds)],
                                           .num_tc = (uint8_t) (2 + rand() % 7),
                                           .guard_frame_bytes = rand() % 4 ? 1518 : (uint32_t) (64 + rand() % 9000),
                                           .min_interval_ns = rand() % 3 ? 0 : TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS };
                StreamSpec st[6];
                size_t n = 1 + (size_t) rand() % ELEMENTSOF(st);
                StreamSchedule r = {};
                char *err = NULL;
                int q;

                p.ptp_tc = (uint8_t) (rand() % p.num_tc);
                for (size_t i = 0; i < n; i++) {
                        st[i] = floating(names[i], (uint8_t) (rand() % p.num_tc), periods[rand() % ELEMENTSOF(periods)],
                                         (uint32_t) (1 + rand() % 1518), (uint32_t) (1 + rand() % 4));
                        if (rand() % 3 == 0) {
                                st[i].offset_given = true;
                                st[i].offset_ns = (uint32_t) rand() % (st[i].period_ns / 2);
                        }
                }
                q = stream_schedule_compute(st, n, &p, &r, &err);
                if (q < 0) {
                        /* Refused with a reason, for one of the documented causes. */
                        assert_non_null(err);
                        assert_true(q == -EBUSY || q == -ENOSPC || q == -EINVAL);
                        assert_null(r.entries);
                        refused++;
                        free(err);
                        continue;
                }
                assert_null(err);
                check_properties(st, n, &p, &r);
                ok++;
                stream_schedule_done(&r);
        }
        /* Both outcomes are well represented. */
        print_message("%u computed, %u refused\n", ok, refused);
        assert_true(ok > 1000);
        assert_true(refused > 100);
}

/* A file with streams: parsed, computed at once with the file's link speed
 * (or later with the device's), shown as streams, parsed back the same. */
#define STREAMS_FILE_MODE(mode, speed, extra) \
        "{\"interface\": \"eth1\", \"root\": {\"qdisc\": \"taprio\", \"num_tc\": 3," \
        " \"priority_map\": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]," \
        " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1}, {\"count\": 2, \"offset\": 2}]," \
        " \"mode\": \"" mode "\"" speed ", \"streams\": [{\"name\": \"a\", \"traffic_class\": 0," \
        " \"period_ns\": 1000000, \"offset_ns\": 0, \"max_frame_bytes\": 128}]}, \"txqueues\": []" extra "}"
#define STREAMS_FILE(speed) STREAMS_FILE_MODE("full-offload", speed, "")

static Schedule *parse_ok(const char *text) {
        DiagList d = {};
        Schedule *s = NULL;

        assert_int_equal(schedule_parse_json("t.json", text, strlen(text), &d, &s), 0);
        assert_int_equal(diag_errors(&d), 0);
        diag_list_clear(&d);
        return s;
}

static void test_schedule_file(void **state) {
        /* The single-stream example with PTP's class 2 (priority 0's) and
         * best effort 0x6. */
        static const uint32_t want[][2] = { { 0x1, W128 }, { 0x6, 987664 - W128 }, { 0x0, GUARD } };
        _cleanup_schedule_ Schedule *s = parse_ok(STREAMS_FILE(", \"link_speed_mbps\": 1000"));
        _cleanup_schedule_ Schedule *back = NULL, *copy = NULL, *later = NULL;
        _cleanup_json_ json_object *o = NULL;
        _cleanup_free_ char *why = NULL;
        DeviceFacts facts = { .link_speed_mbps = 0 };
        DiagList d = {};
        const char *text;

        assert_int_equal(s->streams.n, 1);
        assert_string_equal(s->streams.items[0].name, "a");
        assert_int_equal(s->streams.resolved_speed_mbps, 1000);
        assert_int_equal(s->root.taprio.n_entries, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_int_equal(s->root.taprio.entries[i].gate_mask, want[i][0]);
                assert_int_equal(s->root.taprio.entries[i].interval_ns, want[i][1]);
        }
        assert_int_equal(s->root.taprio.cycle_time_ns, 1000000);
        assert_int_equal(schedule_verify(s, NULL, &d), 0);
        assert_int_equal(d.n, 0);

        /* Shown as streams (no entries), and that parses back the same. */
        o = schedule_to_json(s);
        assert_non_null(o);
        assert_false(json_object_object_get_ex(json_object_object_get(o, "root"), "entries", NULL));
        text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        back = parse_ok(text);
        assert_int_equal(back->root.taprio.n_entries, s->root.taprio.n_entries);
        assert_memory_equal(back->root.taprio.entries, s->root.taprio.entries, s->root.taprio.n_entries * sizeof(GateEntry));
        assert_int_equal(schedule_copy(s, &copy), 0);
        assert_string_equal(copy->streams.items[0].name, "a");
        assert_ptr_not_equal(copy->streams.items[0].name, s->streams.items[0].name);

        /* Without the speed in the file: nothing yet; a device without a
         * speed is refused; with the device's speed the same gate list. */
        later = parse_ok(STREAMS_FILE(""));
        assert_true(schedule_streams_pending(later));
        assert_int_equal(later->root.taprio.n_entries, 0);
        /* Nothing known about the device: the entries wait, quietly. */
        assert_int_equal(schedule_verify(later, NULL, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(schedule_verify(later, &facts, &d), -EINVAL);
        assert_int_equal(d.n, 1);
        diag_list_clear(&d);
        facts.link_speed_mbps = 1000;
        assert_int_equal(schedule_verify(later, &facts, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(schedule_resolve_streams(later, 1000, &why), 0);
        assert_false(schedule_streams_pending(later));
        assert_memory_equal(later->root.taprio.entries, s->root.taprio.entries, s->root.taprio.n_entries * sizeof(GateEntry));
        /* At 1 Mbit/s the guard band alone takes 12.3 ms: refused, and
         * no gate list of the other speed stays behind. */
        assert_int_equal(schedule_resolve_streams(later, 1, &why), -ENOSPC);
        assert_non_null(why);
        assert_true(schedule_streams_pending(later));
        assert_null(later->root.taprio.entries);
}

/* In software mode every window is made 100 us long at the least (the
 * floor of the "software-gate-interval" check); a file that allows the
 * check gets the exact windows, as in full offload. */
static void test_software_floor(void **state) {
        _cleanup_schedule_ Schedule *off = parse_ok(STREAMS_FILE(", \"link_speed_mbps\": 1000"));
        _cleanup_schedule_ Schedule *sw = parse_ok(STREAMS_FILE_MODE("software", ", \"link_speed_mbps\": 1000", ""));
        _cleanup_schedule_ Schedule *allowed = parse_ok(STREAMS_FILE_MODE(
                        "software", ", \"link_speed_mbps\": 1000", ", \"allow\": [\"software-gate-interval\"]"));
        DiagList d = {};

        assert_int_equal(off->root.taprio.entries[0].interval_ns, W128);
        assert_int_equal(sw->root.taprio.entries[0].gate_mask, 0x1);
        assert_int_equal(sw->root.taprio.entries[0].interval_ns, TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS);
        for (size_t i = 0; i < sw->root.taprio.n_entries; i++)
                assert_true(sw->root.taprio.entries[i].interval_ns >= TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS);
        assert_int_equal(schedule_verify(sw, NULL, &d), 0);
        assert_int_equal(d.n, 0);

        assert_int_equal(allowed->root.taprio.n_entries, off->root.taprio.n_entries);
        assert_memory_equal(allowed->root.taprio.entries, off->root.taprio.entries, off->root.taprio.n_entries * sizeof(GateEntry));
        assert_int_equal(allowed->root.taprio.cycle_time_ns, off->root.taprio.cycle_time_ns);
        assert_int_equal(schedule_verify(allowed, NULL, &d), 0);
        assert_int_equal(d.n, 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_wire_time),
                cmocka_unit_test(test_single_stream),
                cmocka_unit_test(test_two_periods),
                cmocka_unit_test(test_automatic_placement),
                cmocka_unit_test(test_guard_bands),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_random_sets),
                cmocka_unit_test(test_schedule_file),
                cmocka_unit_test(test_software_floor),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Streams added over the bus, kept in the state directory
 * (daemon/link/stream-state.c): written, read back into a freshly parsed
 * schedule, a name the file has left out, a damaged file refused whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule-parse.h"
#include "schedule-streams.h"
#include "stream-state.h"

static const char *const FILE_TEXT =
        "{\"interface\": \"ts0\", \"root\": {\"qdisc\": \"taprio\", \"num_tc\": 3,"
        " \"priority_map\": [2, 2, 2, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
        " \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1}, {\"count\": 2, \"offset\": 2}],"
        " \"link_speed_mbps\": 1000, \"streams\": [{\"name\": \"ctrl\", \"traffic_class\": 0,"
        " \"period_ns\": 1000000, \"offset_ns\": 0, \"max_frame_bytes\": 128}]}, \"txqueues\": []}";

static Schedule *parse(void) {
        DiagList d = {};
        Schedule *s = NULL;

        assert_int_equal(schedule_parse_json("ts0.json", FILE_TEXT, strlen(FILE_TEXT), &d, &s), 0);
        diag_list_clear(&d);
        return s;
}

static void write_text(const char *path, const char *text) {
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

static void test_save_and_merge(void **state) {
        char dir[] = "/tmp/test-stream-state-XXXXXX", path[128];
        _cleanup_schedule_ Schedule *s = parse(), *again = parse(), *entries = NULL;
        _cleanup_free_ char *why = NULL;
        StreamSpec *items;

        assert_non_null(mkdtemp(dir));
        /* The file's stream and one from the bus: only the latter is kept. */
        items = reallocarray(s->streams.items, 2, sizeof(StreamSpec));
        assert_non_null(items);
        s->streams.items = items;
        s->streams.items[1] = (StreamSpec) { .name = strdup("extra"), .traffic_class = 1, .period_ns = 2000000,
                                             .max_frame_bytes = 256, .frames_per_period = 2, .from_bus = true };
        s->streams.n = 2;
        assert_int_equal(stream_state_save(dir, s), 0);

        assert_int_equal(stream_state_merge(dir, again, &why), 1);
        assert_null(why);
        assert_int_equal(again->streams.n, 2);
        assert_string_equal(again->streams.items[1].name, "extra");
        assert_true(again->streams.items[1].from_bus);
        assert_false(again->streams.items[0].from_bus);
        assert_int_equal(again->streams.items[1].period_ns, 2000000);
        assert_int_equal(again->streams.items[1].frames_per_period, 2);
        assert_false(again->streams.items[1].offset_given);
        /* The gate list is to be computed again, with the new stream. */
        assert_true(schedule_streams_pending(again));
        assert_int_equal(schedule_resolve_streams(again, 0, &why), 0);
        assert_int_equal(again->root.taprio.cycle_time_ns, 2000000);

        /* A name the file has now is the file's. */
        snprintf(path, sizeof(path), "%s/streams/ts0.json", dir);
        write_text(path, "[{\"name\": \"ctrl\", \"traffic_class\": 1, \"period_ns\": 1000, \"max_frame_bytes\": 64}]");
        schedule_free(again);
        again = parse();
        assert_int_equal(stream_state_merge(dir, again, &why), 0);
        assert_int_equal(again->streams.n, 1);
        assert_int_equal(again->streams.items[0].traffic_class, 0);

        /* A damaged file is refused whole, with its line. */
        write_text(path, "[{\"name\": \"ok\", \"traffic_class\": 1, \"period_ns\": 1000, \"max_frame_bytes\": 64},"
                         " {\"name\": \"bad\", \"traffic_class\": 7, \"period_ns\": 1000, \"max_frame_bytes\": 64}]");
        assert_int_equal(stream_state_merge(dir, again, &why), -EINVAL);
        assert_non_null(why);
        assert_non_null(strstr(why, "[1].traffic_class: must be below num_tc (3), got 7"));
        assert_int_equal(again->streams.n, 1);
        free(why);
        why = NULL;

        /* A file that gives entries takes none. */
        write_text(path, "[{\"name\": \"ok\", \"traffic_class\": 1, \"period_ns\": 1000, \"max_frame_bytes\": 64}]");
        entries = calloc(1, sizeof(Schedule));
        assert_non_null(entries);
        snprintf(entries->ifname, sizeof(entries->ifname), "ts0");
        assert_int_equal(stream_state_merge(dir, entries, &why), 0);
        assert_int_equal(entries->streams.n, 0);

        /* Dropped with its schedule: 1 while there was a file, then 0. */
        assert_int_equal(stream_state_drop(dir, "ts0"), 1);
        assert_int_equal(access(path, F_OK), -1);
        assert_int_equal(stream_state_drop(dir, "ts0"), 0);

        /* No bus stream left: the file goes. */
        assert_int_equal(stream_state_save(dir, s), 0);
        assert_int_equal(access(path, F_OK), 0);
        s->streams.n = 1;
        free(s->streams.items[1].name);
        assert_int_equal(stream_state_save(dir, s), 0);
        assert_int_equal(access(path, F_OK), -1);
        snprintf(path, sizeof(path), "%s/streams", dir);
        assert_int_equal(rmdir(path), 0);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_save_and_merge),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/metrics.c: the exposition of recorded-shape status documents byte for
 * byte (tests/unit/fixtures/metrics/expected.prom), label escaping, exact
 * seconds, the enum pattern for unknown states, missing and null values,
 * and the atomic file write. The format itself is checked by a parser in
 * tests/unit/check-metrics.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-util.h"
#include "metrics.h"
#include "read-all.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/metrics/"

static char *render(struct json_object *const *docs, size_t n) {
        char *s = NULL;

        assert_int_equal(metrics_render_string(docs, n, &s), 0);
        assert_non_null(s);
        return s;
}

/* Only the lines of the output that are samples of family name. */
static char *samples_of(const char *text, const char *name) {
        size_t len = strlen(name), out = 0;
        char *r = calloc(1, strlen(text) + 1);

        assert_non_null(r);
        for (const char *p = text; *p;) {
                const char *e = strchr(p, '\n');
                size_t l = e ? (size_t) (e - p + 1) : strlen(p);

                if (strncmp(p, name, len) == 0 && (p[len] == '{' || p[len] == ' ')) {
                        memcpy(r + out, p, l);
                        out += l;
                }
                p += l;
        }
        return r;
}

static void test_golden(void **state) {
        struct json_object *docs[2] = {
                json_object_from_file(FIXTURES "eth0.json"),
                json_object_from_file(FIXTURES "veth1.json"),
        };
        char *want = read_all(FIXTURES "expected.prom"), *got;

        assert_non_null(docs[0]);
        assert_non_null(docs[1]);
        got = render(docs, 2);
        assert_string_equal(got, want);
        free(got);
        free(want);
        json_object_put(docs[0]);
        json_object_put(docs[1]);
}

/* The writer takes one document at a time (the daemon frees each before
 * building the next) and gives the same bytes as rendering them all. */
static void test_writer_one_at_a_time(void **state) {
        const char *files[] = { FIXTURES "eth0.json", FIXTURES "veth1.json" };
        char *want = read_all(FIXTURES "expected.prom"), *got = NULL;
        MetricsWriter *w = NULL;
        size_t size = 0;
        FILE *f;

        assert_int_equal(metrics_writer_new(&w), 0);
        for (size_t i = 0; i < 2; i++) {
                struct json_object *doc = json_object_from_file(files[i]);

                assert_non_null(doc);
                metrics_writer_add(w, doc);
                json_object_put(doc);
        }
        metrics_writer_add(w, NULL);    /* adds nothing */
        f = open_memstream(&got, &size);
        assert_non_null(f);
        assert_int_equal(metrics_writer_finish(w, f), 0);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(got, want);
        assert_null(metrics_writer_free(w));
        free(got);
        free(want);
}

static void test_no_links(void **state) {
        char *got = render(NULL, 0);

        /* Every family announced, no samples, no "# EOF". */
        assert_non_null(strstr(got, "# TYPE tbs_queue_deadline_misses_total counter\n"));
        assert_non_null(strstr(got, "# TYPE tbs_link_state gauge\n"));
        for (const char *p = got; *p; p = strchr(p, '\n') + 1)
                assert_int_equal(*p, '#');
        assert_null(strstr(got, "# EOF"));
        free(got);
}

static void test_escaping(void **state) {
        struct json_object *d = json_tokener_parse(
                "{\"interface\": \"a\\\"b\\\\c\\nd\", \"state\": \"configured\","
                " \"txqueues\": [{\"queue\": 3, \"qdisc\": \"e\\\"tf\", \"offload\": false}]}");
        char *got, *s;

        assert_non_null(d);
        got = render(&d, 1);
        s = samples_of(got, "tbs_launch_time_offload");
        assert_string_equal(s, "tbs_launch_time_offload{interface=\"a\\\"b\\\\c\\nd\",device=\"a\\\"b\\\\c\\nd\",queue=\"3\","
                              "qdisc=\"e\\\"tf\"} 0\n");
        free(s);
        /* No clock object: no clock samples at all. */
        s = samples_of(got, "tbs_clock_synced");
        assert_string_equal(s, "");
        free(s);
        free(got);
        json_object_put(d);
}

static void test_unknown_state_and_nulls(void **state) {
        struct json_object *d = json_tokener_parse(
                "{\"interface\": \"x\", \"state\": \"exploded\", \"clock\": {\"state\": \"unsynced\","
                " \"ptp4l_socket\": \"/run/x\", \"master_offset_ns\": 1000000001, \"phc_sys_offset_ns\": null, \"tai_offset_s\": \"37\"},"
                " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"pfifo\", \"offload\": false, \"installed\": false,"
                "   \"stats\": {\"packets\": 4, \"drops\": -1}}, 17, null]}");
        char *got, *s;

        assert_non_null(d);
        got = render(&d, 1);
        s = samples_of(got, "tbs_link_state");
        assert_string_equal(s, "tbs_link_state{interface=\"x\",device=\"x\",state=\"pending\"} 0\n"
                               "tbs_link_state{interface=\"x\",device=\"x\",state=\"configured\"} 0\n"
                               "tbs_link_state{interface=\"x\",device=\"x\",state=\"degraded\"} 0\n"
                               "tbs_link_state{interface=\"x\",device=\"x\",state=\"failed\"} 0\n"
                               "tbs_link_state{interface=\"x\",device=\"x\",state=\"absent\"} 0\n"
                               "tbs_link_state{interface=\"x\",device=\"x\",state=\"exploded\"} 1\n");
        free(s);
        s = samples_of(got, "tbs_clock_synced");
        assert_string_equal(s, "tbs_clock_synced{interface=\"x\",device=\"x\"} 0\n");
        free(s);
        s = samples_of(got, "tbs_clock_master_offset_seconds");
        assert_string_equal(s, "tbs_clock_master_offset_seconds{ptp4l=\"/run/x\"} 1.000000001\n");
        free(s);
        /* null and a string where a number belongs: left out. */
        s = samples_of(got, "tbs_clock_phc_offset_seconds");
        assert_string_equal(s, "");
        free(s);
        s = samples_of(got, "tbs_clock_tai_offset_seconds");
        assert_string_equal(s, "");
        free(s);
        s = samples_of(got, "tbs_queue_packets_total");
        assert_string_equal(s, "tbs_queue_packets_total{interface=\"x\",device=\"x\",queue=\"0\",qdisc=\"pfifo\"} 4\n");
        free(s);
        s = samples_of(got, "tbs_queue_deadline_misses_total");
        assert_string_equal(s, "");
        free(s);
        free(got);
        json_object_put(d);
}

static void test_seconds(void **state) {
        char buf[32];

        assert_string_equal(metrics_format_seconds(0, buf), "0");
        assert_string_equal(metrics_format_seconds(1, buf), "0.000000001");
        assert_string_equal(metrics_format_seconds(-1234, buf), "-0.000001234");
        assert_string_equal(metrics_format_seconds(1500000000, buf), "1.5");
        assert_string_equal(metrics_format_seconds(-2000000000, buf), "-2");
        assert_string_equal(metrics_format_seconds(INT64_MIN, buf), "-9223372036.854775808");
        assert_string_equal(metrics_format_seconds(INT64_MAX, buf), "9223372036.854775807");
}

/* A write that fails reports its own errno: /dev/full answers every write
 * with ENOSPC, which once came back as EIO. */
static void test_write_error_errno(void **state) {
        struct json_object *d = json_object_from_file(FIXTURES "eth0.json");
        MetricsWriter *w = NULL;
        FILE *f = fopen("/dev/full", "we");

        assert_non_null(d);
        assert_non_null(f);
        assert_int_equal(metrics_writer_new(&w), 0);
        metrics_writer_add(w, d);
        assert_int_equal(metrics_writer_finish(w, f), -ENOSPC);
        metrics_writer_free(w);
        fclose(f);
        json_object_put(d);
}

static void test_write_file(void **state) {
        char dir[] = "/tmp/tbs-test-metrics-XXXXXX", path[128], bad[160];
        struct json_object *d = json_object_from_file(FIXTURES "eth0.json");
        char *got, *want;
        struct stat st;

        assert_non_null(d);
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/tbsd.prom", dir);
        {
                FILE *f = fopen(path, "we");
                assert_non_null(f);
                fputs("old\n", f);
                fclose(f);
        }
        assert_int_equal(metrics_write_file(&d, 1, path), 0);
        got = read_all(path);
        want = render(&d, 1);
        assert_string_equal(got, want);
        free(got);
        free(want);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);

        /* A folder that does not exist: an error, nothing left behind. */
        snprintf(bad, sizeof(bad), "%s/missing/tbsd.prom", dir);
        assert_int_equal(metrics_write_file(&d, 1, bad), -ENOENT);

        /* Only tbsd.prom in the folder: no temporary file left. */
        {
                char cmd[256];
                snprintf(cmd, sizeof(cmd), "test \"$(ls -A %s)\" = tbsd.prom", dir);
                assert_int_equal(system(cmd), 0);
        }
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
        json_object_put(d);
}

/* tbsctl --json metrics: every family in order even without links; labels
 * as plain strings (JSON does its own escaping); seconds as the exact
 * decimal; the document's rates are not metrics (rate() makes them). */
static void test_json(void **state) {
        _cleanup_json_ struct json_object *none = NULL, *got = NULL;
        struct json_object *d = json_tokener_parse(
                "{\"interface\": \"a\\\"b\\nc\", \"state\": \"configured\","
                " \"clock\": {\"state\": \"synced\", \"ptp4l_socket\": \"/run/p\", \"master_offset_ns\": -1234},"
                " \"txqueues\": [{\"queue\": 3, \"qdisc\": \"etf\", \"offload\": true,"
                "                \"rates\": {\"packets_per_second\": 2.5}}]}");
        struct json_object *f, *smp;

        assert_non_null(d);
        /* JSON has no infinities: json-c reads 1e999 as one */
        json_object_object_add(json_get(json_object_array_get_idx(json_get(d, "txqueues"), 0), "rates"),
                               "bytes_per_second", json_object_new_double(1e308 * 10));

        assert_int_equal(metrics_render_json(NULL, 0, &none), 0);
        assert_int_equal(json_object_array_length(none), 43);
        f = json_object_array_get_idx(none, 0);
        assert_string_equal(json_get_string(f, "name"), "tbs_build_info");
        assert_string_equal(json_get_string(f, "type"), "gauge");
        assert_int_equal(json_object_array_length(json_get(f, "samples")), 0);
        assert_string_equal(json_get_string(json_object_array_get_idx(none, 26), "name"),
                            "tbs_queue_backlog_packets");
        assert_string_equal(json_get_string(json_object_array_get_idx(none, 27), "name"),
                            "tbs_taprio_window_drops_total");
        assert_string_equal(json_get_string(json_object_array_get_idx(none, 28), "name"),
                            "tbs_taprio_tx_overruns_total");
        assert_string_equal(json_get_string(json_object_array_get_idx(none, 30), "name"),
                            "tbs_queue_tx_overruns_total");
        assert_string_equal(json_get_string(json_object_array_get_idx(none, 31), "name"),
                            "tbs_launch_error_seconds");

        assert_int_equal(metrics_render_json(&d, 1, &got), 0);
        for (size_t i = 0; i < json_object_array_length(got); i++) {
                const char *name;

                f = json_object_array_get_idx(got, i);
                name = json_get_string(f, "name");
                smp = json_object_array_get_idx(json_get(f, "samples"), 0);
                if (strcmp(name, "tbs_link_state") == 0) {
                        assert_string_equal(json_get_string(json_get(smp, "labels"), "interface"), "a\"b\nc");
                        assert_int_equal(json_object_array_length(json_get(f, "samples")), 5);
                } else if (strcmp(name, "tbs_clock_master_offset_seconds") == 0)
                        assert_string_equal(json_object_to_json_string(json_get(smp, "value")), "-0.000001234");
                else if (strcmp(name, "tbs_launch_time_offload") == 0) {
                        assert_string_equal(json_get_string(json_get(smp, "labels"), "queue"), "3");
                        assert_int_equal(json_object_get_int64(json_get(smp, "value")), 1);
                }
                assert_null(strstr(name, "_per_second"));
        }
        json_object_put(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_golden),
                cmocka_unit_test(test_writer_one_at_a_time),
                cmocka_unit_test(test_no_links),
                cmocka_unit_test(test_escaping),
                cmocka_unit_test(test_unknown_state_and_nulls),
                cmocka_unit_test(test_seconds),
                cmocka_unit_test(test_write_file),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_write_error_errno),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

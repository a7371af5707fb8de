/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time error families of the exposition (lib/metrics-launch.c):
 * a known histogram renders to exact text (cumulative buckets with le in
 * seconds, _sum in seconds, _count) and the probe counters; the JSON form
 * names each histogram sample; a status document's "monitor" object reads
 * back into the same figures, and one without the buckets gives the
 * counters only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "launch-hist.h"
#include "metrics.h"

static char *render_links(const MetricsLink *links, size_t n) {
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);

        assert_non_null(f);
        assert_int_equal(metrics_render_links(links, n, f), 0);
        assert_int_equal(fclose(f), 0);
        return s;
}

/* The text of the launch families: from their first header on, up to the
 * MAC merge layer's families that follow them (cut there in text). */
static const char *launch_part(char *text) {
        char *p = strstr(text, "# HELP tbs_launch_error_seconds "), *end;

        assert_non_null(p);
        end = strstr(p, "# HELP tbs_mac_merge_tx_enabled ");
        assert_non_null(end);
        *end = 0;
        return p;
}

static const char *const headers[] = {
        "# HELP tbs_launch_error_seconds Launch-time error of the queue's probe frames: transmit time stamp - "
        "requested launch time (negative: early).\n"
        "# TYPE tbs_launch_error_seconds histogram\n",
        "# HELP tbs_launch_probes_sent_total Probe frames the launch-time monitor handed to the queue.\n"
        "# TYPE tbs_launch_probes_sent_total counter\n",
        "# HELP tbs_launch_probes_dropped_total Probe frames the queue dropped: launch time missed in the queue, "
        "or refused as invalid.\n"
        "# TYPE tbs_launch_probes_dropped_total counter\n",
        "# HELP tbs_launch_probes_unstamped_total Probe frames that left without a transmit time stamp or a "
        "drop report.\n"
        "# TYPE tbs_launch_probes_unstamped_total counter\n",
};

#define B(le, n) \
        "tbs_launch_error_seconds_bucket{device=\"veth0\",queue=\"3\",source=\"software\",le=\"" le "\"} " #n "\n"

/* Errors -2.5 us, -50 ns, 0, +700 ns and +20 ms (above the last bound). */
static const char want_known[] =
        B("-0.01", 0) B("-0.005", 0) B("-0.002", 0) B("-0.001", 0) B("-0.0005", 0) B("-0.0002", 0)
        B("-0.0001", 0) B("-5e-05", 0) B("-2e-05", 0) B("-1e-05", 0) B("-5e-06", 0)
        B("-2e-06", 1) B("-1e-06", 1) B("-5e-07", 1) B("-2e-07", 1) B("-1e-07", 1)
        B("1e-07", 3) B("2e-07", 3) B("5e-07", 3) B("1e-06", 4) B("2e-06", 4) B("5e-06", 4)
        B("1e-05", 4) B("2e-05", 4) B("5e-05", 4) B("0.0001", 4) B("0.0002", 4) B("0.0005", 4)
        B("0.001", 4) B("0.002", 4) B("0.005", 4) B("0.01", 4) B("+Inf", 5)
        "tbs_launch_error_seconds_sum{device=\"veth0\",queue=\"3\",source=\"software\"} 0.01999815\n"
        "tbs_launch_error_seconds_count{device=\"veth0\",queue=\"3\",source=\"software\"} 5\n";

static LaunchQueueStats known_queue(void) {
        LaunchQueueStats q = { .queue = 3, .source = LAUNCH_STAMP_SOFTWARE, .sent = 7, .missed = 1, .invalid = 1 };
        static const int64_t errors[] = { -2500, -50, 0, 700, 20000000 };

        for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
                launch_hist_add(&q.hist, errors[i]);
        return q;
}

static void test_known_histogram(void **state) {
        LaunchQueueStats q = known_queue();
        MetricsLink l = { .interface = "veth0", .launch = &q, .n_launch = 1 };
        char *text = render_links(&l, 1), *want = NULL;

        assert_true(asprintf(&want,
                             "%s%s"
                             "%stbs_launch_probes_sent_total{device=\"veth0\",queue=\"3\"} 7\n"
                             "%stbs_launch_probes_dropped_total{device=\"veth0\",queue=\"3\",reason=\"missed\"} 1\n"
                             "tbs_launch_probes_dropped_total{device=\"veth0\",queue=\"3\",reason=\"invalid\"} 1\n"
                             "%stbs_launch_probes_unstamped_total{device=\"veth0\",queue=\"3\"} 0\n",
                             headers[0], want_known, headers[1], headers[2], headers[3]) > 0);
        assert_string_equal(launch_part(text), want);
        free(want);
        free(text);
}

/* No monitored queue: the headers only, as every family. A queue without
 * time stamps yet: source "none", every bucket 0, _sum 0. */
static void test_empty(void **state) {
        LaunchQueueStats q = { .queue = 0 };
        MetricsLink none = { .interface = "a" }, empty = { .interface = "b", .launch = &q, .n_launch = 1 };
        char *text = render_links(&none, 1), *want = NULL;

        assert_true(asprintf(&want, "%s%s%s%s", headers[0], headers[1], headers[2], headers[3]) > 0);
        assert_string_equal(launch_part(text), want);
        free(text);
        free(want);

        text = render_links(&empty, 1);
        assert_non_null(strstr(text, "tbs_launch_error_seconds_bucket{device=\"b\",queue=\"0\",source=\"none\","
                                     "le=\"-0.01\"} 0\n"));
        assert_non_null(strstr(text, "tbs_launch_error_seconds_bucket{device=\"b\",queue=\"0\",source=\"none\","
                                     "le=\"+Inf\"} 0\n"));
        assert_non_null(strstr(text, "tbs_launch_error_seconds_sum{device=\"b\",queue=\"0\",source=\"none\"} 0\n"));
        free(text);
}

/* The JSON form: the histogram's samples carry their full name. */
static void test_json(void **state) {
        LaunchQueueStats q = known_queue();
        MetricsLink l = { .interface = "veth0", .launch = &q, .n_launch = 1 };
        struct json_object *all = NULL, *f, *s;

        assert_int_equal(metrics_render_links_json(&l, 1, &all), 0);
        /* the launch families come before the MAC merge layer's 8 */
        f = json_object_array_get_idx(all, json_object_array_length(all) - 8 - 4);
        assert_string_equal(json_get_string(f, "name"), "tbs_launch_error_seconds");
        assert_string_equal(json_get_string(f, "type"), "histogram");
        assert_int_equal(json_object_array_length(json_get(f, "samples")), LAUNCH_HIST_BUCKETS + 2);
        s = json_object_array_get_idx(json_get(f, "samples"), LAUNCH_HIST_BUCKETS - 1);
        assert_string_equal(json_get_string(s, "name"), "tbs_launch_error_seconds_bucket");
        assert_string_equal(json_get_string(json_get(s, "labels"), "le"), "+Inf");
        assert_int_equal(json_object_get_int64(json_get(s, "value")), 5);
        s = json_object_array_get_idx(json_get(f, "samples"), LAUNCH_HIST_BUCKETS);
        assert_string_equal(json_get_string(s, "name"), "tbs_launch_error_seconds_sum");
        assert_string_equal(json_object_to_json_string(json_get(s, "value")), "0.01999815");
        f = json_object_array_get_idx(all, json_object_array_length(all) - 8 - 2);
        assert_string_equal(json_get_string(f, "name"), "tbs_launch_probes_dropped_total");
        s = json_object_array_get_idx(json_get(f, "samples"), 0);
        assert_null(json_get(s, "name"));
        assert_string_equal(json_get_string(json_get(s, "labels"), "reason"), "missed");
        json_object_put(all);
}

/* A document's monitor object, with and without the histogram. */
static void test_from_document(void **state) {
        struct json_object *doc = json_tokener_parse(
                "{\"interface\": \"veth0\", \"txqueues\": ["
                " {\"queue\": 1},"
                " {\"queue\": 3, \"monitor\": {\"source\": \"software\", \"sent\": 7, \"missed\": 1, \"invalid\": 1,"
                "   \"unstamped\": 0, \"count\": 5, \"sum_ns\": 19998150, \"buckets\": "
                "   [0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,2,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,1]}}]}");
        struct json_object *q3 = json_object_array_get_idx(json_get(doc, "txqueues"), 1);
        MetricsLink l;
        char *text, *want = NULL;

        assert_non_null(doc);
        assert_int_equal(metrics_link_from_json(doc, &l), 0);
        assert_int_equal(l.n_launch, 1);
        assert_false(l.launch_without_hist);
        assert_int_equal(l.launch[0].hist.count, 5);
        text = render_links(&l, 1);
        assert_true(asprintf(&want, "%s%s", headers[0], want_known) > 0);
        assert_non_null(strstr(text, want));
        free(want);
        free(text);
        metrics_link_done(&l);

        /* 32 buckets: not a histogram of these edges; the counters stay */
        json_object_array_del_idx(json_get(json_get(q3, "monitor"), "buckets"), 0, 1);
        assert_int_equal(metrics_link_from_json(doc, &l), 0);
        assert_true(l.launch_without_hist);
        text = render_links(&l, 1);
        assert_null(strstr(text, "tbs_launch_error_seconds_bucket"));
        assert_non_null(strstr(text, "tbs_launch_probes_sent_total{device=\"veth0\",queue=\"3\"} 7\n"));
        free(text);
        metrics_link_done(&l);

        /* a monitor that does not run (tree not installed): no series */
        json_object_object_add(json_get(q3, "monitor"), "running", json_object_new_boolean(false));
        assert_int_equal(metrics_link_from_json(doc, &l), 0);
        assert_int_equal(l.n_launch, 0);
        metrics_link_done(&l);
        json_object_object_add(json_get(q3, "monitor"), "running", json_object_new_boolean(true));

        /* Describe()'s object as it is (no buckets), an unknown source */
        json_object_object_del(json_get(q3, "monitor"), "buckets");
        json_object_object_add(json_get(q3, "monitor"), "source", json_object_new_string("laser"));
        assert_int_equal(metrics_link_from_json(doc, &l), 0);
        assert_true(l.launch_without_hist);
        assert_int_equal(l.launch[0].source, LAUNCH_STAMP_NONE);
        assert_int_equal(l.launch[0].missed, 1);
        metrics_link_done(&l);
        json_object_put(doc);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_known_histogram),
                cmocka_unit_test(test_empty),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_from_document),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

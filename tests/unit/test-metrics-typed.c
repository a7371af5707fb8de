/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/metrics.c from typed samples: the MetricsLinks equivalent to the
 * fixture documents render to the same golden text
 * (tests/unit/fixtures/metrics/expected.prom) as the documents do, the
 * documents read into exactly those samples (metrics_link_from_json()),
 * and the typed rules: presence bits, unknown states, NULL strings, the
 * ptp4l-wide and system-wide values once, the daemon's samples, write
 * errors and the atomic file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-util.h"
#include "metrics.h"
#include "read-all.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/metrics/"

#define ALL_COUNTERS ((1u << _METRICS_COUNTER_MAX) - 1)
#define ALL_CLOCK ((1u << _METRICS_CLOCK_VALUE_MAX) - 1)

/* eth0.json and veth1.json as typed samples. */
static MetricsQueue eth0_queues[] = {
        {
                .queue = 0, .qdisc = "etf", .offload = 1, .installed = 1,
                .has_counters = ALL_COUNTERS,
                .counters = {
                        [METRICS_PACKETS] = 1000, [METRICS_BYTES] = 64000, [METRICS_DROPS] = 5,
                        [METRICS_OVERLIMITS] = 2, [METRICS_REQUEUES] = 1, [METRICS_DEADLINE_MISSES] = 2,
                        [METRICS_INVALID] = 3, [METRICS_BACKLOG_BYTES] = 128, [METRICS_BACKLOG_PACKETS] = 2,
                },
        },
        {
                .queue = 1, .qdisc = "etf", .offload = 0, .installed = 1,
                .has_counters = ALL_COUNTERS,
                .counters = {
                        [METRICS_PACKETS] = 500, [METRICS_BYTES] = 32000, [METRICS_DROPS] = 2,
                        [METRICS_INVALID] = 2,
                },
        },
};

/* eth0.json's monitor of queue 0: errors -150, 80, 120, 150, 180, 300,
 * 450, 900, 1500, 12000 ns; 12 sent, 1 missed, 1 unstamped. */
static const LaunchQueueStats eth0_launch[] = {
        {
                .queue = 0, .source = LAUNCH_STAMP_HARDWARE, .sent = 12, .missed = 1, .unstamped = 1,
                .hist = { .bucket = { [15] = 1, [16] = 1, [17] = 3, [18] = 2, [19] = 1, [20] = 1, [23] = 1 },
                          .count = 10, .sum_ns = 15530 },
        },
};

static MetricsQueue veth1_queues[] = {
        { .queue = 2, .qdisc = NULL, .offload = 0, .installed = 0 },
};

static const MetricsLink fixture_links[] = {
        {
                .interface = "eth0", .state = "configured",
                .has_clock = true, .clock_state = "synced",
                .has_clock_values = ALL_CLOCK,
                .clock_values = {
                        [METRICS_CLOCK_MASTER_OFFSET_NS] = -1234, [METRICS_CLOCK_MEAN_PATH_DELAY_NS] = 250,
                        [METRICS_CLOCK_PHC_OFFSET_NS] = 37000000012, [METRICS_CLOCK_TAI_OFFSET_S] = 37,
                },
                .ptp4l = "/var/run/ptp4l", .port_state = "SLAVE", .clock_checked_at_usec = 1796277600250000,
                .has_counters = true,
                .counters = { [METRICS_LINK_RELOADS] = 2, [METRICS_LINK_APPLIES] = 3,
                              [METRICS_LINK_DRIFT_REPAIRS] = 1 },
                .queues = eth0_queues, .n_queues = 2,
                .launch = eth0_launch, .n_launch = 1,
                /* eth0.json's "mac_merge" (the replayed ENETC-like port of test-mac-merge.c) */
                .has_mac_merge = true,
                .mac_merge = {
                        .tx_enabled = true, .tx_active = true, .verify_status = 3,
                        .has_counters = (1u << _METRICS_MM_COUNTER_MAX) - 1,
                        .counters = { [METRICS_MM_REASSEMBLY_ERRORS] = 3, [METRICS_MM_SMD_ERRORS] = 1,
                                      [METRICS_MM_REASSEMBLY_OK] = 120345, [METRICS_MM_RX_FRAGMENTS] = 240690,
                                      [METRICS_MM_TX_FRAGMENTS] = 98765, [METRICS_MM_HOLD] = 42 },
                },
        },
        {
                .interface = "veth1", .state = "degraded",
                .has_clock = true, .clock_state = "no-ptp4l",
                .ptp4l = "/run/ptp4l-as", .clock_checked_at_usec = 1796277600000000,
                .has_counters = true,
                .counters = { [METRICS_LINK_RELOADS] = 1, [METRICS_LINK_APPLY_FAILURES] = 5 },
                .queues = veth1_queues, .n_queues = 1,
        },
};

static char *render_links(const MetricsLink *links, size_t n) {
        char *s = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&s, &size);

        assert_non_null(f);
        assert_int_equal(metrics_render_links(links, n, f), 0);
        assert_int_equal(fclose(f), 0);
        return s;
}

static char *json_text(struct json_object *o) {
        char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));

        assert_non_null(s);
        return s;
}

static void load_fixtures(struct json_object *docs[static 2]) {
        docs[0] = json_object_from_file(FIXTURES "eth0.json");
        docs[1] = json_object_from_file(FIXTURES "veth1.json");
        assert_non_null(docs[0]);
        assert_non_null(docs[1]);
}

static void assert_str_or_null_equal(const char *a, const char *b) {
        if (!a || !b)
                assert_ptr_equal(a, b);
        else
                assert_string_equal(a, b);
}

static void assert_queue_equal(const MetricsQueue *a, const MetricsQueue *b) {
        assert_int_equal(a->queue, b->queue);
        assert_str_or_null_equal(a->qdisc, b->qdisc);
        assert_int_equal(a->offload, b->offload);
        assert_int_equal(a->installed, b->installed);
        assert_int_equal(a->has_counters, b->has_counters);
        for (unsigned i = 0; i < _METRICS_COUNTER_MAX; i++)
                if (a->has_counters & (1u << i))
                        assert_int_equal(a->counters[i], b->counters[i]);
}

static void assert_link_equal(const MetricsLink *a, const MetricsLink *b) {
        assert_str_or_null_equal(a->interface, b->interface);
        assert_str_or_null_equal(a->state, b->state);
        assert_int_equal(a->has_clock, b->has_clock);
        assert_str_or_null_equal(a->clock_state, b->clock_state);
        assert_str_or_null_equal(a->ptp4l, b->ptp4l);
        assert_str_or_null_equal(a->port_state, b->port_state);
        assert_int_equal(a->clock_checked_at_usec, b->clock_checked_at_usec);
        assert_int_equal(a->has_counters, b->has_counters);
        for (unsigned i = 0; i < _METRICS_LINK_COUNTER_MAX; i++)
                assert_int_equal(a->counters[i], b->counters[i]);
        assert_int_equal(a->has_clock_values, b->has_clock_values);
        for (unsigned i = 0; i < _METRICS_CLOCK_VALUE_MAX; i++)
                if (a->has_clock_values & (1u << i))
                        assert_int_equal(a->clock_values[i], b->clock_values[i]);
        assert_int_equal(a->n_queues, b->n_queues);
        for (size_t i = 0; i < a->n_queues; i++)
                assert_queue_equal(&a->queues[i], &b->queues[i]);
        assert_int_equal(a->launch_without_hist, b->launch_without_hist);
        assert_int_equal(a->n_launch, b->n_launch);
        for (size_t i = 0; i < a->n_launch; i++) {
                const LaunchQueueStats *x = &a->launch[i], *y = &b->launch[i];

                assert_int_equal(x->queue, y->queue);
                assert_int_equal(x->source, y->source);
                assert_int_equal(x->sent, y->sent);
                assert_int_equal(x->missed, y->missed);
                assert_int_equal(x->invalid, y->invalid);
                assert_int_equal(x->unstamped, y->unstamped);
                /* what the exposition shows of the histogram */
                assert_memory_equal(x->hist.bucket, y->hist.bucket, sizeof(x->hist.bucket));
                assert_int_equal(x->hist.count, y->hist.count);
                assert_int_equal(x->hist.sum_ns, y->hist.sum_ns);
        }
        assert_int_equal(a->has_mac_merge, b->has_mac_merge);
        if (a->has_mac_merge) {
                assert_int_equal(a->mac_merge.tx_enabled, b->mac_merge.tx_enabled);
                assert_int_equal(a->mac_merge.tx_active, b->mac_merge.tx_active);
                assert_int_equal(a->mac_merge.verify_status, b->mac_merge.verify_status);
                assert_int_equal(a->mac_merge.has_counters, b->mac_merge.has_counters);
                assert_memory_equal(a->mac_merge.counters, b->mac_merge.counters, sizeof(a->mac_merge.counters));
        }
}

/* The typed samples and the documents give the golden text byte for byte. */
static void test_golden_typed_and_json(void **state) {
        struct json_object *docs[2];
        char *want = read_all(FIXTURES "expected.prom"), *typed, *from_json = NULL;

        typed = render_links(fixture_links, ELEMENTSOF(fixture_links));
        assert_string_equal(typed, want);

        load_fixtures(docs);
        assert_int_equal(metrics_render_string(docs, 2, &from_json), 0);
        assert_string_equal(from_json, want);

        free(typed);
        free(from_json);
        free(want);
        json_object_put(docs[0]);
        json_object_put(docs[1]);
}

/* The documents read into exactly the typed samples above. */
static void test_from_json(void **state) {
        struct json_object *docs[4];
        MetricsLink *links = NULL, one;
        size_t n = 0;

        load_fixtures(docs);
        docs[2] = NULL;
        docs[3] = json_object_new_array();     /* not an object: skipped */
        assert_int_equal(metrics_links_from_json((struct json_object *[]) { docs[0], docs[2], docs[3], docs[1] }, 4,
                                                 &links, &n),
                         0);
        assert_int_equal(n, 2);
        for (size_t i = 0; i < n; i++)
                assert_link_equal(&links[i], &fixture_links[i]);
        assert_null(metrics_links_free(links, n));

        assert_int_equal(metrics_link_from_json(docs[3], &one), -EINVAL);
        for (size_t i = 0; i < ELEMENTSOF(docs); i++)
                json_object_put(docs[i]);
}

/* tbsctl --json metrics: the same JSON from the typed samples and from the
 * documents. */
static void test_json_form(void **state) {
        _cleanup_json_ struct json_object *typed = NULL, *from_docs = NULL;
        struct json_object *docs[2];
        char *a, *b;

        load_fixtures(docs);
        assert_int_equal(metrics_render_links_json(fixture_links, ELEMENTSOF(fixture_links), &typed), 0);
        assert_int_equal(metrics_render_json(docs, 2, &from_docs), 0);
        a = json_text(typed);
        b = json_text(from_docs);
        assert_string_equal(a, b);
        assert_int_equal(json_object_array_length(typed), 43);
        /* eth0's master offset as the exact decimal of the text form. */
        assert_non_null(strstr(a, "\"value\":-0.000001234"));
        free(a);
        free(b);
        json_object_put(docs[0]);
        json_object_put(docs[1]);
}

/* Only the lines of text that are samples of family name. */
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

static void assert_samples(const char *text, const char *name, const char *want) {
        char *s = samples_of(text, name);

        assert_string_equal(s, want);
        free(s);
}

/* What a typed sample leaves out, and what it shows of odd values. */
static void test_typed_rules(void **state) {
        MetricsQueue q[] = {
                { .queue = 7, .qdisc = NULL, .offload = -1, .installed = 1,
                  .has_counters = 1u << METRICS_DROPS, .counters = { [METRICS_DROPS] = INT64_MIN } },
        };
        MetricsLink l[] = {
                { .interface = NULL, .state = "exploded", .has_clock = false,
                  .has_clock_values = 1u << METRICS_CLOCK_TAI_OFFSET_S, .clock_values = { [METRICS_CLOCK_TAI_OFFSET_S] = 37 },
                  .queues = q, .n_queues = 1 },
                { .interface = "b\"\\\n", .state = NULL, .has_clock = true, .clock_state = NULL },
        };
        char *text = render_links(l, ELEMENTSOF(l));

        assert_samples(text, "tbs_link_state",
                       "tbs_link_state{interface=\"\",device=\"\",state=\"pending\"} 0\n"
                       "tbs_link_state{interface=\"\",device=\"\",state=\"configured\"} 0\n"
                       "tbs_link_state{interface=\"\",device=\"\",state=\"degraded\"} 0\n"
                       "tbs_link_state{interface=\"\",device=\"\",state=\"failed\"} 0\n"
                       "tbs_link_state{interface=\"\",device=\"\",state=\"absent\"} 0\n"
                       "tbs_link_state{interface=\"\",device=\"\",state=\"exploded\"} 1\n"
                       "tbs_link_state{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\",state=\"pending\"} 0\n"
                       "tbs_link_state{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\",state=\"configured\"} 0\n"
                       "tbs_link_state{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\",state=\"degraded\"} 0\n"
                       "tbs_link_state{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\",state=\"failed\"} 0\n"
                       "tbs_link_state{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\",state=\"absent\"} 0\n");
        /* No clock: no clock state series; a clock value is shown by its
         * bit; the system-wide TAI offset without labels. */
        assert_samples(text, "tbs_clock_synced",
                       "tbs_clock_synced{interface=\"b\\\"\\\\\\n\",device=\"b\\\"\\\\\\n\"} 0\n");
        assert_samples(text, "tbs_clock_tai_offset_seconds", "tbs_clock_tai_offset_seconds 37\n");
        assert_samples(text, "tbs_clock_master_offset_seconds", "");
        assert_samples(text, "tbs_ptp_port_state", "");
        assert_samples(text, "tbs_link_ptp4l_info", "");
        assert_samples(text, "tbs_clock_last_check_timestamp_seconds", "");
        assert_samples(text, "tbs_link_applies_total", "");
        assert_samples(text, "tbs_launch_time_offload", "");
        assert_samples(text, "tbs_queue_installed",
                       "tbs_queue_installed{interface=\"\",device=\"\",queue=\"7\",qdisc=\"none\"} 1\n");
        assert_samples(text, "tbs_queue_drops_total",
                       "tbs_queue_drops_total{interface=\"\",device=\"\",queue=\"7\",qdisc=\"none\"} "
                       "-9223372036854775808\n");
        assert_samples(text, "tbs_queue_packets_total", "");
        assert_samples(text, "tbs_build_info", "");
        free(text);
}

/* Values of one ptp4l (or of the system) are written once, from the first
 * link that has them, whichever links share it; the port state is a
 * state-set per link. */
static void test_shared_clock_values(void **state) {
        MetricsLink l[] = {
                { .interface = "a", .state = "configured", .has_clock = true, .clock_state = "synced",
                  .ptp4l = "/run/p1", .port_state = "SLAVE",
                  .has_clock_values = (1u << METRICS_CLOCK_MASTER_OFFSET_NS) | (1u << METRICS_CLOCK_TAI_OFFSET_S),
                  .clock_values = { [METRICS_CLOCK_MASTER_OFFSET_NS] = 5, [METRICS_CLOCK_TAI_OFFSET_S] = 37 } },
                { .interface = "b", .state = "configured", .has_clock = true, .clock_state = "synced",
                  .ptp4l = "/run/p1", .port_state = "MASTER",
                  .has_clock_values = (1u << METRICS_CLOCK_MASTER_OFFSET_NS) | (1u << METRICS_CLOCK_TAI_OFFSET_S),
                  .clock_values = { [METRICS_CLOCK_MASTER_OFFSET_NS] = 6, [METRICS_CLOCK_TAI_OFFSET_S] = 37 } },
                { .interface = "c", .state = "configured", .has_clock = true, .clock_state = "synced",
                  .ptp4l = "/run/p2", .port_state = "ODD",
                  .has_clock_values = 1u << METRICS_CLOCK_MASTER_OFFSET_NS,
                  .clock_values = { [METRICS_CLOCK_MASTER_OFFSET_NS] = -1500000000 } },
                /* No ptp4l: no ptp4l-wide series to key them by. */
                { .interface = "d", .state = "configured", .has_clock = true, .clock_state = "not-configured",
                  .has_clock_values = 1u << METRICS_CLOCK_MASTER_OFFSET_NS,
                  .clock_values = { [METRICS_CLOCK_MASTER_OFFSET_NS] = 9 } },
        };
        char *text = render_links(l, ELEMENTSOF(l)), *s;

        assert_samples(text, "tbs_clock_master_offset_seconds",
                       "tbs_clock_master_offset_seconds{ptp4l=\"/run/p1\"} 0.000000005\n"
                       "tbs_clock_master_offset_seconds{ptp4l=\"/run/p2\"} -1.5\n");
        assert_samples(text, "tbs_clock_tai_offset_seconds", "tbs_clock_tai_offset_seconds 37\n");
        assert_samples(text, "tbs_link_ptp4l_info",
                       "tbs_link_ptp4l_info{interface=\"a\",device=\"a\",ptp4l=\"/run/p1\"} 1\n"
                       "tbs_link_ptp4l_info{interface=\"b\",device=\"b\",ptp4l=\"/run/p1\"} 1\n"
                       "tbs_link_ptp4l_info{interface=\"c\",device=\"c\",ptp4l=\"/run/p2\"} 1\n");
        s = samples_of(text, "tbs_ptp_port_state");
        /* 10 known states for a, b and c, plus c's unknown one. */
        assert_non_null(strstr(s, "tbs_ptp_port_state{interface=\"a\",device=\"a\",state=\"SLAVE\"} 1\n"));
        assert_non_null(strstr(s, "tbs_ptp_port_state{interface=\"a\",device=\"a\",state=\"MASTER\"} 0\n"));
        assert_non_null(strstr(s, "tbs_ptp_port_state{interface=\"b\",device=\"b\",state=\"MASTER\"} 1\n"));
        assert_non_null(strstr(s, "tbs_ptp_port_state{interface=\"c\",device=\"c\",state=\"ODD\"} 1\n"));
        assert_non_null(strstr(s, "tbs_ptp_port_state{interface=\"c\",device=\"c\",state=\"SLAVE\"} 0\n"));
        assert_null(strstr(s, "interface=\"d\""));
        free(s);
        free(text);
}

/* The daemon's own samples: version, the last load of the folder. */
static void test_daemon_samples(void **state) {
        MetricsDaemon d = { .version = "1.2\"3", .last_reload_ok = 0, .last_reload_success_usec = 1796277600000001 };
        _cleanup_json_ struct json_object *j = NULL;
        char *text = NULL, *s;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);

        assert_non_null(f);
        assert_int_equal(metrics_render_daemon(&d, fixture_links, 1, f), 0);
        assert_int_equal(fclose(f), 0);
        assert_true(strncmp(text, "# HELP tbs_build_info ", 22) == 0);
        assert_samples(text, "tbs_build_info", "tbs_build_info{version=\"1.2\\\"3\"} 1\n");
        assert_samples(text, "tbs_config_last_reload_successful", "tbs_config_last_reload_successful 0\n");
        assert_samples(text, "tbs_config_last_reload_success_timestamp_seconds",
                       "tbs_config_last_reload_success_timestamp_seconds 1796277600.000001\n");
        free(text);

        /* No reload yet: left out. */
        d = (MetricsDaemon) { .version = "1", .last_reload_ok = -1 };
        assert_int_equal(metrics_render_daemon_json(&d, NULL, 0, &j), 0);
        s = json_text(json_object_array_get_idx(j, 1));
        assert_non_null(strstr(s, "\"tbs_config_last_reload_successful\""));
        assert_int_equal(json_object_array_length(json_get(json_object_array_get_idx(j, 1), "samples")), 0);
        free(s);
        s = json_text(json_object_array_get_idx(j, 0));
        assert_non_null(strstr(s, "\"version\":\"1\""));
        free(s);
}

/* A failed write reports its own errno (/dev/full: ENOSPC). */
static void test_write_error(void **state) {
        FILE *f = fopen("/dev/full", "we");

        assert_non_null(f);
        assert_int_equal(metrics_render_links(fixture_links, ELEMENTSOF(fixture_links), f), -ENOSPC);
        fclose(f);
}

static void test_write_links_file(void **state) {
        char dir[] = "/tmp/tbs-test-metrics-typed-XXXXXX", path[128], bad[160];
        char *got, *want = read_all(FIXTURES "expected.prom");
        struct stat st;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/tbsd.prom", dir);
        assert_int_equal(metrics_write_links_file(fixture_links, ELEMENTSOF(fixture_links), path), 0);
        got = read_all(path);
        assert_string_equal(got, want);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        snprintf(bad, sizeof(bad), "%s/missing/tbsd.prom", dir);
        assert_int_equal(metrics_write_links_file(fixture_links, 1, bad), -ENOENT);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);       /* no temporary file left */
        free(got);
        free(want);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_golden_typed_and_json),
                cmocka_unit_test(test_from_json),
                cmocka_unit_test(test_json_form),
                cmocka_unit_test(test_typed_rules),
                cmocka_unit_test(test_shared_clock_values),
                cmocka_unit_test(test_daemon_samples),
                cmocka_unit_test(test_write_error),
                cmocka_unit_test(test_write_links_file),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/link/link-metrics.c: tbsd's metrics file, read from the links as typed
 * samples, is byte for byte what the links' Describe() documents give
 * (what tbsctl metrics renders from the bus, and what the file was made of
 * before), for links in several states, with and without samples, rates
 * and installed qdiscs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json-util.h"
#include "link-metrics.h"
#include "link.h"
#include "metrics.h"
#include "nl-qdisc.h"
#include "schedule-parse.h"
#include "read-all.h"

static const char schedule_text[] =
        "{\"interface\": \"lm0\","
        " \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"
        "          \"priority_map\": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],"
        "          \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 3, \"offset\": 1}]},"
        " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"etf\", \"delta_ns\": 500000, \"offload\": false},"
        "              {\"queue\": 1, \"qdisc\": \"etf\", \"delta_ns\": 300000}],"
        " \"clock\": {\"ptp4l_socket\": \"/run/none\"}}";

static Schedule *parse_schedule(void) {
        DiagList d = {};
        Schedule *s = NULL;

        assert_int_equal(schedule_parse_json("lm.json", schedule_text, strlen(schedule_text), &d, &s), 0);
        diag_list_clear(&d);
        return s;
}

/* A sample as qdisc_tree_set_take_slim() gives it: queue 0 an etf (kind
 * kind0), queue 1 without a qdisc of tbsd's (absent from the tree). */
static void take_sample(Link *l, const char *kind0, uint64_t packets, uint64_t sec) {
        QDiscTree t = { .ifindex = 7, .has_root = true };
        InstalledQueue *q;

        snprintf(t.root.kind, sizeof(t.root.kind), "mqprio");
        t.root.handle = 0x1000000;
        t.queues = q = calloc(1, sizeof(InstalledQueue));
        assert_non_null(q);
        t.n_queues = 1;
        q->queue = 0;
        q->qdisc.handle = 0x80010000;
        q->qdisc.parent = 0x1000001;
        snprintf(q->qdisc.kind, sizeof(q->qdisc.kind), "%s", kind0);
        q->is_etf = strcmp(kind0, "etf") == 0;
        q->etf = (EtfSpec) { .queue = 0, .etf.clockid = 11, .etf.delta_ns = 500000, .offload = OFFLOAD_OFF };
        q->qdisc.stats = (QDiscStats) { .packets = packets, .bytes = packets * 64, .drops = 9, .overlimits = 4,
                                        .requeues = 1, .backlog_bytes = 128, .qlen = 2 };
        q->deadline_misses = 4;
        q->invalid = 5;
        link_take_sample(l, &t, sec * 1000000, sec * 1000000);
}

/* What the daemon wrote before: each link's Describe() document of its
 * last sample, carried as text (the bus) and rendered. */
static char *render_from_documents(Link **links, size_t n, struct json_object **ret_json) {
        struct json_object *docs[8] = {};
        char *s = NULL;

        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++) {
                const QDiscTree *t = link_last_sample(links[i], NULL);
                struct json_object *doc = NULL;

                assert_int_equal(link_describe_tree(links[i], t ?: &(QDiscTree) {}, &doc), 0);
                docs[i] = json_tokener_parse(json_object_to_json_string(doc));
                assert_non_null(docs[i]);
                json_object_put(doc);
        }
        assert_int_equal(metrics_render_string(docs, n, &s), 0);
        assert_int_equal(metrics_render_json(docs, n, ret_json), 0);
        for (size_t i = 0; i < n; i++)
                json_object_put(docs[i]);
        return s;
}

/* The daemon's typed path: link_metrics() of every link. */
static char *render_typed(Link **links, size_t n, struct json_object **ret_json) {
        MetricsQueue queues[16];
        MetricsLink v[8];
        size_t at = 0, size = 0;
        char *s = NULL;
        FILE *f;

        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++) {
                assert_true(at + link_metrics_n_queues(links[i]) <= 16);
                link_metrics(links[i], &queues[at], &v[i]);
                at += v[i].n_queues;
        }
        f = open_memstream(&s, &size);
        assert_non_null(f);
        assert_int_equal(metrics_render_links(v, n, f), 0);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(metrics_render_links_json(v, n, ret_json), 0);
        return s;
}

static void assert_same(Link **links, size_t n) {
        _cleanup_json_ struct json_object *ja = NULL, *jb = NULL;
        char *a = render_typed(links, n, &ja), *b = render_from_documents(links, n, &jb);
        char path[] = "/tmp/tbs-test-link-metrics-XXXXXX", *c;
        int fd = mkstemp(path);

        assert_string_equal(a, b);
        assert_string_equal(json_object_to_json_string(ja), json_object_to_json_string(jb));

        /* The metrics file: the same text. */
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(links_write_metrics_file(NULL, links, n, path), 0);
        c = read_all(path);
        assert_string_equal(c, a);
        assert_int_equal(unlink(path), 0);
        free(a);
        free(b);
        free(c);
}

static void test_same_as_documents(void **state) {
        LinkContext ctx = {};   /* nobody told: no manager, no bus */
        Link *a = NULL, *b = NULL, *c = NULL;
        Link *all[3];
        char *text = NULL;
        size_t size = 0;

        assert_int_equal(link_new(&ctx, "lm0", &a), 0);
        assert_int_equal(link_new(&ctx, "lm\"1", &b), 0);
        assert_int_equal(link_new(&ctx, "lm2", &c), 0);
        all[0] = a;
        all[1] = b;
        all[2] = c;

        /* No schedules, no samples: states only. */
        assert_same(all, 3);

        a->schedule = parse_schedule();
        a->state = LINK_STATE_CONFIGURED;
        b->schedule = parse_schedule();
        b->state = LINK_STATE_ABSENT;
        c->state = LINK_STATE_FAILED;
        assert_same(all, 3);

        /* One sample: counters, no rates yet. */
        take_sample(a, "etf", 100, 1);
        assert_same(all, 3);

        /* Two samples; what happened to the link, counted. */
        take_sample(a, "etf", 350, 3);
        a->counters = (LinkCounters) { .reloads = 3, .applies = 2, .drift_repairs = 1, .apply_failures = 4 };
        assert_same(all, 3);
        {
                _cleanup_json_ struct json_object *j = NULL;
                MetricsQueue q[2];
                MetricsLink l;
                FILE *f = open_memstream(&text, &size);

                link_metrics(a, q, &l);
                assert_non_null(f);
                assert_int_equal(metrics_render_links(&l, 1, f), 0);
                assert_int_equal(fclose(f), 0);
                assert_non_null(strstr(text, "tbs_queue_packets_total{interface=\"lm0\",device=\"lm0\",queue=\"0\","
                                             "qdisc=\"etf\"} 350\n"));
                assert_null(strstr(text, "_per_second"));
                assert_null(strstr(text, "tbs_queue_overlimits_total"));
                assert_non_null(strstr(text, "tbs_queue_installed{interface=\"lm0\",device=\"lm0\",queue=\"1\","
                                             "qdisc=\"none\"} 0\n"));
                assert_non_null(strstr(text, "tbs_clock_state{interface=\"lm0\",device=\"lm0\","
                                             "state=\"unsynced\"} 1\n"));
                assert_non_null(strstr(text, "tbs_link_ptp4l_info{interface=\"lm0\",device=\"lm0\","
                                             "ptp4l=\"/run/none\"} 1\n"));
                assert_non_null(strstr(text, "tbs_link_reloads_total{interface=\"lm0\",device=\"lm0\"} 3\n"));
                assert_non_null(strstr(text, "tbs_link_applies_total{interface=\"lm0\",device=\"lm0\"} 2\n"));
                assert_non_null(strstr(text, "tbs_link_drift_repairs_total{interface=\"lm0\",device=\"lm0\"} 1\n"));
                assert_non_null(strstr(text, "tbs_link_apply_failures_total{interface=\"lm0\",device=\"lm0\"} 4\n"));
                assert_null(strstr(text, "tbs_queue_packets_total{interface=\"lm0\",device=\"lm0\",queue=\"1\""));
                /* Without a daemon, no daemon samples (tbsctl's). */
                assert_null(strstr(text, "tbs_build_info{"));
                free(text);
        }

        /* Another kind on the queue: no rate across it, not installed. */
        take_sample(a, "pfifo", 20, 4);
        take_sample(b, "etf", 7, 4);
        assert_same(all, 3);

        link_free(a);
        link_free(b);
        link_free(c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_same_as_documents),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device checks of daemon/probe/device-check.c on recorded devices
 * (tests/unit/fixtures/caps/, replayed through caps-replay.c): what
 * `tbsd --check` and `tbsctl validate --device` report for a schedule on a
 * device, and that it is line for line what the daemon's own check before an
 * apply (device_verify() on its probe result) says. */
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

#include "caps-replay.h"
#include "device-check.h"
#include "schedule-dir.h"
#include "schedule-parse.h"

/* mqprio with 3 traffic classes over queues 0, 1 and 2..(2+TC2_COUNT-1), and
 * one etf on queue QUEUE with offload OFFLOAD (a JSON value). The etf may
 * sit on PTP's queue: these tests are about the device ("allow"). */
static char *schedule_text(const char *ifname, unsigned tc2_count, unsigned queue, const char *offload) {
        char *t;

        assert_true(asprintf(&t,
                             "{\"interface\": \"%s\",\n"
                             " \"root\": {\"qdisc\": \"mqprio\", \"handle\": \"100:\", \"num_tc\": 3,\n"
                             "  \"priority_map\": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],\n"
                             "  \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},\n"
                             "              {\"count\": %u, \"offset\": 2}]},\n"
                             " \"txqueues\": [{\"queue\": %u, \"delta_ns\": 300000, \"offload\": %s}],\n"
                             " \"allow\": [\"ptp-etf\"]}\n",
                             ifname, tc2_count, queue, offload) >= 0);
        return t;
}

static Schedule *parse(const char *file, const char *text) {
        DiagList diags = {};
        Schedule *s = NULL;

        assert_int_equal(schedule_parse_json(file, text, strlen(text), &diags, &s), 0);
        assert_int_equal(diags.n, 0);
        return s;
}

/* The diagnostics as lines joined by '\n'. */
static char *joined(const DiagList *l) {
        char *all = strdup("");

        assert_non_null(all);
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *line = diag_format(&l->items[i]), *prev = all;

                assert_non_null(line);
                assert_true(asprintf(&all, "%s%s%s", prev, i ? "\n" : "", line) >= 0);
        }
        return all;
}

/* What tbsctl validate --device=. says of TEXT on the recorded DEVICE, and
 * its return value in *ret_r. */
static char *validate_on(const char *device, const char *text, int *ret_r) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_schedule_ Schedule *s = parse("f.json", text);
        DiagList diags = {};
        Recording rec;
        CapsIO io;
        char *lines;

        recording_load(&rec, device);
        io = recording_io(&rec);
        device_probes_init(&probes, &io);
        *ret_r = device_check(&probes, s, s->ifname, true, &diags);
        lines = joined(&diags);
        assert_int_equal(*ret_r, diag_errors(&diags) > 0 ? -EINVAL : 0);
        diag_list_clear(&diags);
        return lines;
}

#define assert_validate(device, text, expected_r, expected)               \
        do {                                                              \
                _cleanup_free_ char *_t = (text), *_got = NULL;           \
                int _r;                                                   \
                _got = validate_on(device, _t, &_r);                      \
                assert_string_equal(_got, expected);                      \
                assert_int_equal(_r, expected_r);                         \
        } while (0)

static void test_offload_true(void **state) {
        /* veth: no launch time anywhere, with the probe's reason */
        assert_validate("veth", schedule_text("veth0", 2, 0, "true"), -EINVAL,
                        "f.json: txqueues[0].offload: launch-time offload is not available on queue 0: "
                        "veth: no launch-time (etf) offload in this driver");
        /* the 82576 is an igb without launch time */
        assert_validate("82576", schedule_text("enp5s0f0", 2, 0, "true"), -EINVAL,
                        "f.json: txqueues[0].offload: launch-time offload is not available on queue 0: "
                        "igb: launch time only on i210 queues 0 and 1; 8086:10c9 is not an i210");
        /* the i210 has it on queues 0 and 1, not on 2 */
        assert_validate("i210", schedule_text("enp3s0", 2, 0, "true"), 0, "");
        assert_validate("i210", schedule_text("enp3s0", 2, 2, "true"), -EINVAL,
                        "f.json: txqueues[0].offload: launch-time offload is not available on queue 2: "
                        "igb: launch time only on i210 queues 0 and 1");
        /* "auto" and false are never refused for the device */
        assert_validate("veth", schedule_text("veth0", 2, 0, "\"auto\""), 0, "");
        assert_validate("veth", schedule_text("veth0", 2, 1, "false"), 0, "");
}

static void test_queues_beyond_device(void **state) {
        /* queue 7 on the 4-queue veth: its traffic class does not fit */
        assert_validate("veth", schedule_text("veth0", 6, 7, "false"), -EINVAL,
                        "f.json: root.queues[2]: uses queues 2-7, but the device has 4 TX queues");
        /* the 82576 has 8 */
        assert_validate("82576", schedule_text("enp5s0f0", 6, 7, "false"), 0, "");
        assert_validate("82576", schedule_text("enp5s0f0", 7, 8, "false"), -EINVAL,
                        "f.json: root.queues[2]: uses queues 2-8, but the device has 8 TX queues");
}

/* A taprio root in MODE over queues 0-1 and 2-3, with no etf. */
static char *taprio_text(const char *ifname, const char *mode) {
        char *t;

        assert_true(asprintf(&t,
                             "{\"interface\": \"%s\",\n"
                             " \"root\": {\"qdisc\": \"taprio\", \"handle\": \"100:\", \"num_tc\": 2,\n"
                             "  \"mode\": \"%s\", \"clockid\": \"CLOCK_TAI\",\n"
                             "  \"priority_map\": [1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],\n"
                             "  \"queues\": [{\"count\": 2, \"offset\": 0}, {\"count\": 2, \"offset\": 2}],\n"
                             "  \"base_time_ns\": 1000000000, \"cycle_time_ns\": 1000000,\n"
                             "  \"entries\": [{\"gate_mask\": 1, \"interval_ns\": 300000},\n"
                             "              {\"gate_mask\": 2, \"interval_ns\": 700000}]}}\n",
                             ifname, mode) >= 0);
        return t;
}

/* taprio full offload: only where the table says the driver runs the gate
 * schedule itself (igc); software taprio anywhere. */
static void test_taprio_full_offload(void **state) {
        static const char refused[] =
                "f.json: root.mode: taprio full offload is not available on this device: its driver cannot "
                "run the gate schedule itself; use mode \"software\" or \"txtime-assist\"";

        assert_validate("i225", taprio_text("enp6s0", "full-offload"), 0, "");
        assert_validate("i210", taprio_text("enp3s0", "full-offload"), -EINVAL, refused);
        assert_validate("82576", taprio_text("enp5s0f0", "full-offload"), -EINVAL, refused);
        assert_validate("veth", taprio_text("veth0", "full-offload"), -EINVAL, refused);
        assert_validate("veth", taprio_text("veth0", "software"), 0, "");
}

/* A driver the table does not know: offload true is the kernel's to judge
 * (the daemon tries), but the queue count is still a fact. */
static void test_unknown_device(void **state) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_free_ char *t1 = schedule_text("veth0", 2, 0, "true"), *t2 = schedule_text("veth0", 3, 4, "true");
        _cleanup_schedule_ Schedule *s1 = parse("f.json", t1), *s2 = parse("f.json", t2);
        _cleanup_free_ char *l2 = NULL;
        DiagList diags = {};
        Recording rec;
        CapsIO io;

        recording_load(&rec, "veth");
        snprintf(rec.drvinfo.driver, sizeof(rec.drvinfo.driver), "mystery");
        io = recording_io(&rec);
        device_probes_init(&probes, &io);
        assert_int_equal(device_check(&probes, s1, "veth0", true, &diags), 0);
        assert_int_equal(diags.n, 0);
        assert_int_equal(device_probes_find(&probes, "veth0")->caps.confidence, CAPS_UNKNOWN);
        assert_int_equal(device_check(&probes, s2, "veth0", true, &diags), -EINVAL);
        l2 = joined(&diags);
        assert_string_equal(l2, "f.json: root.queues[2]: uses queues 2-4, but the device has 4 TX queues");
        diag_list_clear(&diags);

        /* nor is taprio full offload: the kernel tells at apply time */
        _cleanup_free_ char *t3 = taprio_text("veth0", "full-offload");
        _cleanup_schedule_ Schedule *s3 = parse("f.json", t3);
        assert_int_equal(device_check(&probes, s3, "veth0", true, &diags), 0);
        assert_int_equal(diags.n, 0);
}

/* An interface that is not there: a warning, not an error, and only for a
 * file that passes everything else. */
static void test_missing_interface(void **state) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_free_ char *good = schedule_text("veth9", 2, 0, "true"), *bad = schedule_text("veth9", 2, 9, "true");
        _cleanup_schedule_ Schedule *s = parse("f.json", good), *b = parse("b.json", bad);
        _cleanup_free_ char *lines = NULL;
        const DeviceProbe *d;
        DiagList diags = {};
        Recording rec;
        CapsIO io;

        recording_load(&rec, "veth");
        io = recording_io(&rec);
        device_probes_init(&probes, &io);

        assert_int_equal(device_check(&probes, s, "veth9", true, &diags), 0);
        assert_int_equal(diag_errors(&diags), 0);
        lines = joined(&diags);
        assert_string_equal(lines,
                            "f.json: interface: warning: interface veth9 does not exist on this machine; the device "
                            "checks (TX queues, launch-time offload) were skipped (tbsd waits for it and makes them "
                            "when it appears)");
        diag_list_clear(&diags);
        d = device_probes_find(&probes, "veth9");
        assert_non_null(d);
        assert_int_equal(d->error, -ENODEV);
        assert_null(device_probes_facts_for("veth9", &probes));

        /* checked against another interface than its own: no JSON path */
        assert_int_equal(device_check(&probes, s, "veth8", false, &diags), 0);
        free(lines);
        lines = joined(&diags);
        assert_string_equal(lines,
                            "f.json: warning: interface veth8 does not exist on this machine; the device checks "
                            "(TX queues, launch-time offload) were skipped");
        diag_list_clear(&diags);

        /* a file with an error of its own gets only that */
        assert_int_equal(device_check(&probes, b, "veth9", true, &diags), -EINVAL);
        free(lines);
        lines = joined(&diags);
        assert_string_equal(lines, "b.json: txqueues[0].queue: queue 9 is in no traffic class of root.queues");
        diag_list_clear(&diags);

        /* another probe failure says which */
        DeviceProbe failed = { .ifname = "eth0", .error = -EACCES };
        assert_int_equal(device_probe_note(&failed, "f.json", true, &diags), 0);
        free(lines);
        lines = joined(&diags);
        assert_string_equal(lines, "f.json: interface: warning: cannot probe interface eth0: Permission denied; "
                                   "the device checks (TX queues, launch-time offload) were skipped");
        diag_list_clear(&diags);
        failed.error = 0;
        assert_int_equal(device_probe_note(&failed, "f.json", true, &diags), 0);
        assert_int_equal(diags.n, 0);
}

/* Each interface is probed once, and the facts handed out stay valid while
 * more interfaces are probed. */
static void test_probed_once(void **state) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        const DeviceFacts *f;
        Recording rec;
        unsigned calls;
        CapsIO io;

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        device_probes_init(&probes, &io);
        f = device_probes_facts_for("enp3s0", &probes);
        assert_non_null(f);
        calls = rec.calls;
        assert_true(calls > 0);
        assert_ptr_equal(device_probes_facts_for("enp3s0", &probes), f);
        assert_int_equal(rec.calls, calls);     /* not asked again */
        for (unsigned i = 0; i < 20; i++) {
                char name[IFNAMSIZ];

                snprintf(name, sizeof(name), "gone%u", i);
                assert_null(device_probes_facts_for(name, &probes));
        }
        calls = rec.calls;
        assert_ptr_equal(device_probes_facts_for("enp3s0", &probes), f);
        assert_int_equal(rec.calls, calls);
        assert_int_equal(f->tx_queues, 4);
        assert_int_equal(f->launch_time_mask, 0x3);
        assert_true(f->offload_known);
        assert_int_equal(probes.n, 21);
        assert_ptr_equal(device_probes_get(&probes, "enp3s0"), device_probes_find(&probes, "enp3s0"));
}

/* tbsd --check loads its folder with device_probes_facts_for(); the daemon
 * checks each link with device_verify() on its own probe result. For every
 * schedule and device, both say the same lines. */
static void test_check_and_daemon_agree(void **state) {
        static const struct {
                const char *device;
                unsigned tc2_count, queue;
                const char *offload;
                const char *taprio_mode;        /* non-NULL: taprio_text() instead */
        } cases[] = {
                { "veth", 2, 0, "true", NULL },  { "veth", 2, 3, "\"auto\"", NULL },
                { "veth", 6, 7, "true", NULL },  { "82576", 2, 0, "true", NULL },
                { "82576", 6, 7, "false", NULL }, { "82576", 7, 8, "true", NULL },
                { "i210", 2, 1, "true", NULL },  { "i210", 2, 2, "true", NULL },
                { "i210", 3, 4, "false", NULL },
                { "veth", .taprio_mode = "full-offload" }, { "i225", .taprio_mode = "full-offload" },
                { "i210", .taprio_mode = "txtime-assist" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
                _cleanup_(schedule_dir_done) ScheduleDir d = {};
                _cleanup_free_ char *text = NULL, *path = NULL, *from_check = NULL, *from_daemon = NULL;
                _cleanup_schedule_ Schedule *s = NULL;
                char dir[] = "/tmp/test-device-check.XXXXXX";
                DiagList diags = {};
                Recording rec;
                LinkCaps caps;
                CapsIO io;
                FILE *f;

                recording_load(&rec, cases[i].device);
                text = cases[i].taprio_mode ? taprio_text(rec.ifname, cases[i].taprio_mode)
                                            : schedule_text(rec.ifname, cases[i].tc2_count, cases[i].queue,
                                                            cases[i].offload);
                assert_non_null(mkdtemp(dir));
                assert_true(asprintf(&path, "%s/%s.json", dir, rec.ifname) >= 0);
                f = fopen(path, "we");
                assert_non_null(f);
                assert_int_equal(fputs(text, f) >= 0, 1);
                assert_int_equal(fclose(f), 0);

                /* tbsd --check */
                io = recording_io(&rec);
                device_probes_init(&probes, &io);
                assert_int_equal(schedule_dir_load(dir, device_probes_facts_for, &probes, &d), 0);
                assert_int_equal(d.n, 1);
                from_check = joined(&d.files[0].diags);

                /* the daemon: its own probe, then device_verify() before the apply */
                s = parse(path, text);
                assert_int_equal(caps_probe(&io, rec.ifname, &caps), 0);
                (void) device_verify(s, &caps, &diags);
                from_daemon = joined(&diags);
                diag_list_clear(&diags);

                assert_string_equal(from_check, from_daemon);
                assert_int_equal(d.files[0].schedule == NULL, from_daemon[0] != '\0');
                assert_int_equal(unlink(path), 0);
                assert_int_equal(rmdir(dir), 0);
        }
}

/* The MAC merge question of a replayed device (CapsIO.mac_merge): what
 * mac_merge_probe() would answer, counted. */
static struct {
        int answer;             /* 1, 0 or -errno */
        unsigned calls;
} mm;

static int replay_mac_merge(void *userdata, const char *ifname) {
        Recording *rec = userdata;

        assert_string_equal(ifname, rec->ifname);
        mm.calls++;
        return mm.answer;
}

/* schedule_text() for IFNAME, with "mac_merge": {"tx_enabled": true} when
 * with_key. */
static char *mac_merge_text(const char *ifname, bool with_key) {
        char *t = schedule_text(ifname, 2, 0, "false"), *r;
        size_t n = strlen(t);

        assert_true(n > 2 && strcmp(t + n - 2, "}\n") == 0);
        t[n - 2] = 0;
        assert_true(asprintf(&r, "%s%s}\n", t, with_key ? ", \"mac_merge\": {\"tx_enabled\": true}" : "") >= 0);
        free(t);
        return r;
}

/* "mac_merge" on a device whose probe says it has no MAC merge layer is
 * refused by validate --device and tbsd --check alike, naming the device;
 * unknown passes (the apply finds out); the device is asked only for a
 * file with the key, and once. */
static void test_mac_merge(void **state) {
        static const char refused[] =
                "f.json: mac_merge: the device veth0 has no MAC merge layer (ethtool netlink MM_GET: not "
                "supported by its driver, or a kernel before 6.3), so its frames cannot be preempted; leave "
                "\"mac_merge\" out on this device";
        _cleanup_free_ char *with = mac_merge_text("veth0", true), *without = mac_merge_text("veth0", false);
        static const int answers[] = { 0, 1, -EIO };

        for (size_t i = 0; i < ELEMENTSOF(answers); i++) {
                _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
                _cleanup_schedule_ Schedule *sw = parse("f.json", with), *so = parse("f.json", without);
                _cleanup_free_ char *lines = NULL;
                DiagList diags = {};
                const DeviceProbe *d;
                Recording rec;
                CapsIO io;

                mm.answer = answers[i];
                mm.calls = 0;
                recording_load(&rec, "veth");
                io = recording_io(&rec);
                io.mac_merge = replay_mac_merge;
                device_probes_init(&probes, &io);

                /* without the key: valid, and the device not asked */
                assert_int_equal(device_check(&probes, so, "veth0", true, &diags), 0);
                assert_int_equal(diags.n, 0);
                assert_int_equal(mm.calls, 0);
                d = device_probes_find(&probes, "veth0");
                assert_non_null(d);
                assert_int_equal(d->caps.mac_merge, -1);

                /* with it: asked once, refused only where there is no layer */
                assert_int_equal(device_check(&probes, sw, "veth0", true, &diags), answers[i] == 0 ? -EINVAL : 0);
                lines = joined(&diags);
                assert_string_equal(lines, answers[i] == 0 ? refused : "");
                diag_list_clear(&diags);
                assert_int_equal(mm.calls, 1);
                assert_int_equal(d->caps.mac_merge, answers[i] < 0 ? -1 : answers[i]);
                (void) device_check(&probes, sw, "veth0", true, &diags);
                diag_list_clear(&diags);
                assert_int_equal(mm.calls, 1);
        }

        /* tbsd --check: the folder's files judged the same way */
        for (size_t i = 0; i < ELEMENTSOF(answers); i++) {
                _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
                _cleanup_(schedule_dir_done) ScheduleDir d = {};
                _cleanup_free_ char *path = NULL, *lines = NULL, *expected = NULL;
                char dir[] = "/tmp/test-device-check.XXXXXX";
                Recording rec;
                CapsIO io;
                FILE *f;

                mm.answer = answers[i];
                mm.calls = 0;
                assert_non_null(mkdtemp(dir));
                assert_true(asprintf(&path, "%s/veth0.json", dir) >= 0);
                f = fopen(path, "we");
                assert_non_null(f);
                assert_true(fputs(with, f) >= 0);
                assert_int_equal(fclose(f), 0);
                recording_load(&rec, "veth");
                io = recording_io(&rec);
                io.mac_merge = replay_mac_merge;
                device_probes_init(&probes, &io);
                assert_int_equal(schedule_dir_load(dir, device_probes_facts_for, &probes, &d), 0);
                assert_int_equal(d.n, 1);
                lines = joined(&d.files[0].diags);
                assert_true(asprintf(&expected, "%s%s", answers[i] == 0 ? path : "",
                                     answers[i] == 0 ? refused + strlen("f.json") : "") >= 0);
                assert_string_equal(lines, expected);
                assert_int_equal(d.files[0].schedule == NULL, answers[i] == 0);
                assert_int_equal(mm.calls, 1);
                assert_int_equal(unlink(path), 0);
                assert_int_equal(rmdir(dir), 0);
        }

        /* the daemon's check before an apply leaves it to the apply, which
         * reads the layer and refuses in its own line (link-mac-merge.c) */
        {
                _cleanup_schedule_ Schedule *sw = parse("f.json", with);
                DiagList diags = {};
                Recording rec;
                LinkCaps caps;

                probe_device("veth", &rec, &caps);
                caps.mac_merge = 0;
                assert_int_equal(device_verify(sw, &caps, &diags), 0);
                assert_int_equal(diags.n, 0);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_offload_true),
                cmocka_unit_test(test_queues_beyond_device),
                cmocka_unit_test(test_taprio_full_offload),
                cmocka_unit_test(test_unknown_device),
                cmocka_unit_test(test_missing_interface),
                cmocka_unit_test(test_probed_once),
                cmocka_unit_test(test_check_and_daemon_agree),
                cmocka_unit_test(test_mac_merge),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

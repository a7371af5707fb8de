/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device profiles (daemon/probe/caps-profile.c, tbsctl validate
 * --device-caps): the shipped profiles of recorded NICs say what the probe
 * says of the recording (tests/unit/fixtures/caps/); the examples written
 * for a NIC pass the device checks against its profile, and the ones that
 * need hardware fail them against a veth's; a profile that is not one is
 * refused in one line naming the file, the key and the reason. */
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

#include "caps-profile.h"
#include "caps-replay.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

#define PROFILES TBS_SOURCE_DIR "/examples/devices"

static void read_profile(const char *path, LinkCaps *caps) {
        DiagList diags = {};

        assert_int_equal(caps_profile_read(path, caps, &diags), 0);
        assert_int_equal(diags.n, 0);
}

/* The profile of a recorded device is the probe's result, in every fact the
 * device checks use (caps_to_device_facts()). */
static void check_recorded(const char *device) {
        _cleanup_free_ char *path = NULL;
        LinkCaps probed, profile;
        DeviceFacts a, b;
        Recording rec;

        probe_device(device, &rec, &probed);
        assert_true(asprintf(&path, "%s/%s.json", PROFILES, device) >= 0);
        read_profile(path, &profile);
        caps_to_device_facts(&probed, &a);
        caps_to_device_facts(&profile, &b);
        assert_string_equal(profile.driver, probed.driver);
        assert_int_equal(b.tx_queues, a.tx_queues);
        assert_int_equal(b.offload_known, a.offload_known);
        assert_int_equal(b.launch_time_mask, a.launch_time_mask);
        assert_int_equal(b.taprio_full_offload, a.taprio_full_offload);
        assert_int_equal(b.cbs_offload_mask, a.cbs_offload_mask);
        assert_int_equal(b.link_speed_mbps, a.link_speed_mbps);
        assert_int_equal(profile.hw_timestamping, probed.hw_timestamping);
        assert_int_equal(profile.taprio_txtime_assist, probed.taprio_txtime_assist);
        assert_string_equal(profile.reason, probed.reason);
}

static void test_recorded_profiles(void **state) {
        (void) state;
        check_recorded("i210");
        check_recorded("i225");
}

/* The errors of the device checks of examples/NAME against caps, joined. */
static char *verify_example(const char *name, const LinkCaps *caps) {
        _cleanup_free_ char *path = NULL, *text = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList diags = {};
        DeviceFacts facts;
        char *all = strdup("");
        size_t len;

        assert_non_null(all);
        assert_true(asprintf(&path, "%s/examples/%s", TBS_SOURCE_DIR, name) >= 0);
        assert_int_equal(schedule_read_file(path, NULL, &diags, &text, &len), 0);
        assert_int_equal(schedule_parse_json(path, text, len, &diags, &s), 0);
        caps_to_device_facts(caps, &facts);
        facts.ifname = s->ifname;
        (void) schedule_verify(s, &facts, &diags);
        for (size_t i = 0; i < diags.n; i++) {
                if (diags.items[i].severity != DIAG_ERROR)
                        continue;
                _cleanup_free_ char *line = diag_format(&diags.items[i]), *prev = all;

                assert_true(asprintf(&all, "%s%s%s", prev, prev[0] ? "\n" : "", line) >= 0);
        }
        diag_list_clear(&diags);
        return all;
}

static void test_examples_on_their_device(void **state) {
        static const struct {
                const char *example, *device;
                const char *on_veth;    /* an error the veth's recording gives, or NULL */
        } cases[] = {
                { "enetc-taprio-fp.json", "enetc", "root.mode: taprio full offload is not available on this device" },
                { "i210-mqprio-cbs-etf.json", "i210", NULL },
                { "i210-mqprio-cbs.json", "i210", NULL },
                { "i210-mqprio-launchtime.json", "i210", NULL },
                { "i210-taprio-txtime-assist.json", "i210", NULL },
                { "i225-taprio-txtime-assist.json", "i225", NULL },
        };
        LinkCaps veth;
        Recording rec;

        (void) state;
        probe_device("veth", &rec, &veth);
        veth.mac_merge = 0;     /* Linux 6.1 and veth: no MAC merge layer (kernel test mac-merge) */
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *path = NULL, *errors = NULL, *on_veth = NULL;
                LinkCaps caps;

                assert_true(asprintf(&path, "%s/%s.json", PROFILES, cases[i].device) >= 0);
                read_profile(path, &caps);
                errors = verify_example(cases[i].example, &caps);
                if (errors[0])
                        fail_msg("%s on %s: %s", cases[i].example, cases[i].device, errors);
                on_veth = verify_example(cases[i].example, &veth);
                if (cases[i].on_veth && !strstr(on_veth, cases[i].on_veth))
                        fail_msg("%s on a veth: expected '%s', got '%s'", cases[i].example, cases[i].on_veth, on_veth);
        }
}

/* A profile written to a file, read; the one line of the first problem. */
static char *refusal(const char *json) {
        char path[] = "/tmp/test-caps-profile-XXXXXX";
        DiagList diags = {};
        LinkCaps caps;
        char *line;
        int fd, r;

        fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, json, strlen(json)), (ssize_t) strlen(json));
        close(fd);
        r = caps_profile_read(path, &caps, &diags);
        unlink(path);
        assert_int_equal(r, -EINVAL);
        assert_true(diags.n >= 1);
        line = diag_format(&diags.items[0]);
        assert_non_null(line);
        assert_non_null(strstr(line, "/tmp/test-caps-profile-"));
        diag_list_clear(&diags);
        return line;
}

#define GOOD_REST "\"launch_time_queues\": [0], \"cbs_offload_queues\": [], \"taprio_full_offload\": false, " \
                  "\"confidence\": \"known\"}"

static void test_refused(void **state) {
        static const struct {
                const char *json, *expect;
        } cases[] = {
                { "{\"tx_queues\": 4, " GOOD_REST, ": driver: required key is missing" },
                { "{\"driver\": \"igb\", \"tx_queues\": 0, " GOOD_REST,
                  ": tx_queues: must be an integer between 1 and 4096, got 0" },
                { "{\"driver\": \"igb\", \"tx_queues\": 4, \"launch_time_queues\": [64], \"cbs_offload_queues\": [], "
                  "\"taprio_full_offload\": false, \"confidence\": \"known\"}",
                  ": launch_time_queues: must be an integer between 0 and 63, got 64" },
                { "{\"driver\": \"igb\", \"tx_queues\": 4, \"launch_time_queues\": [1, 1], \"cbs_offload_queues\": [], "
                  "\"taprio_full_offload\": false, \"confidence\": \"known\"}",
                  ": launch_time_queues: names a queue twice, got 1" },
                { "{\"driver\": \"igb\", \"tx_queues\": 4, \"launch_time_queues\": [], \"cbs_offload_queues\": [], "
                  "\"taprio_full_offload\": \"yes\", \"confidence\": \"known\"}",
                  ": taprio_full_offload: must be true or false, got \"yes\"" },
                { "{\"driver\": \"igb\", \"tx_queues\": 4, \"launch_time_queues\": [], \"cbs_offload_queues\": [], "
                  "\"taprio_full_offload\": false, \"confidence\": \"sure\"}",
                  ": confidence: must be \"known\", \"unsupported\" or \"unknown\", got \"sure\"" },
                { "[{\"driver\": \"igb\"}, {\"driver\": \"igc\"}]",
                  ": must be one object of `tbsctl --json caps IFACE` (or an array of one)" },
                { "{\"driver\": \"igb\", \"driver\": \"igc\"}", "not JSON at byte" },
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *line = refusal(cases[i].json);

                if (!strstr(line, cases[i].expect))
                        fail_msg("case %zu: expected '%s' in '%s'", i, cases[i].expect, line);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_recorded_profiles),
                cmocka_unit_test(test_examples_on_their_device),
                cmocka_unit_test(test_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl schedule IFACE|FILE: the cycle that tbsd computes from a schedule's
 * streams (docs/streams.md), as a timeline. Runs without a daemon, like
 * validate: the schedule is the file for IFACE in the folder the running
 * tbsd serves (the compiled-in folder, with a note, when none runs), or
 * FILE; the link speed the file's or, without one, this machine's
 * interface's, probed as tbsd probes it. */
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "device-check.h"
#include "json-util.h"
#include "log.h"
#include "schedule-dir.h"
#include "schedule-parse.h"
#include "schedule-streams.h"
#include "schedule-verify.h"
#include "stream-timeline.h"
#include "verbs.h"

static bool is_file_argument(const char *a) {
        size_t n = strlen(a);

        return strchr(a, '/') || (n > 5 && strcmp(a + n - 5, ".json") == 0);
}

/* The first error of a file, as its line. */
static void print_first_error(const DiagList *l) {
        for (size_t i = 0; i < l->n; i++)
                if (l->items[i].severity == DIAG_ERROR) {
                        _cleanup_free_ char *line = diag_format(&l->items[i]);

                        log_error("%s", line ?: "out of memory");
                        return;
                }
}

/* The folder of the running tbsd (its --config-dir may not be the
 * compiled-in one), else, with a note, the compiled-in folder. Returns a
 * new string or NULL. */
static char *schedules_folder(void) {
        _cleanup_free_ char *why = NULL;
        char *dir = NULL;

        if (client_config_dir(&dir, &why) >= 0)
                return dir;
        log_notice("%s: reading the compiled-in folder %s", why ?: "out of memory", TBS_CONFIG_DIR);
        return strdup(TBS_CONFIG_DIR);
}

/* The schedule of arg: a file, or the folder's file for an interface. */
static int load(const char *arg, Schedule **ret) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        _cleanup_free_ char *dir = NULL;
        DiagList l = {};
        int r;

        if (is_file_argument(arg)) {
                r = schedule_load_file(arg, NULL, &l, ret);
                if (r >= 0 && schedule_verify(*ret, NULL, &l) < 0) {
                        schedule_free(*ret);
                        *ret = NULL;
                        r = -EINVAL;
                }
                if (r < 0)
                        print_first_error(&l);
                diag_list_clear(&l);
                return r;
        }
        dir = schedules_folder();
        if (!dir)
                return log_error_errno(ENOMEM, "out of memory");
        r = schedule_dir_load(dir, NULL, NULL, &d);
        if (r < 0)
                return log_error_errno(r, "%s: cannot read the schedules: %m", dir);
        for (size_t i = 0; i < d.n; i++) {
                if (strcmp(d.files[i].ifname, arg) != 0)
                        continue;
                if (!d.files[i].schedule) {
                        print_first_error(&d.files[i].diags);
                        return -EINVAL;
                }
                *ret = TAKE_PTR(d.files[i].schedule);
                return 0;
        }
        log_error("%s: no schedule in %s names this interface", arg, dir);
        return -ENOENT;
}

int verb_schedule(int argc, char *argv[]) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_(stream_schedule_done) StreamSchedule c = {};
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_json_ json_object *t = NULL;
        _cleanup_free_ char *why = NULL;
        uint32_t device_speed = 0;
        int r;

        if (load(argv[0], &s) < 0)
                return 1;
        if (s->streams.n == 0) {
                log_error("%s: the schedule gives its entries itself, not streams (tbsctl status shows them)",
                          s->source ?: argv[0]);
                return 1;
        }
        if (s->streams.link_speed_mbps == 0) {
                const DeviceProbe *dp;

                device_probes_init(&probes, NULL);
                dp = device_probes_get(&probes, s->ifname);
                if (!dp)
                        { log_error("out of memory"); return 1; }
                if (dp->error == 0)
                        device_speed = dp->facts.link_speed_mbps;
        }
        r = schedule_streams_compute(s, device_speed, &c, &why);
        if (r == -ENOMEM)
                { log_error("out of memory"); return 1; }
        if (r < 0) {
                log_error("%s: root.streams: %s", s->source ?: argv[0], why ?: "cannot be scheduled");
                return 1;
        }
        t = stream_timeline_to_json(s, &c, schedule_streams_speed(s, device_speed));
        if (!t)
                { log_error("out of memory"); return 1; }
        if (arg_json)
                puts(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        else if (stream_timeline_print(stdout, t) < 0)
                return 1;
        return 0;
}

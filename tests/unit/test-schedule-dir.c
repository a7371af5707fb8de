/* SPDX-License-Identifier: GPL-2.0-or-later */
/* schedule_dir_load() on a real temporary folder: *.json only, sorted,
 * DIR/NAME in messages, duplicate interfaces refused in both files, device
 * facts handed to the validator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "schedule-dir.h"
#include "schedule-parse.h"

static char dir[] = "/tmp/tbs-test-dir-XXXXXX";

static const char *const names[] = {
        "b-eth0.json", "a-eth0.json", "c-eth1.json", "d-broken.json", "e-eth2-bad.json",
        "f-eth3.json", "notes.txt", ".hidden.json", "g.json.bak",
};

#define VALID(ifname, offload)                                                                  \
        "{\"interface\": \"" ifname "\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"      \
        " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"                                 \
        " \"queues\": [{\"count\": 4, \"offset\": 0}]},"                                        \
        " \"txqueues\": [{\"queue\": 2, \"delta_ns\": 100000, \"offload\": " offload "}],"          \
        " \"allow\": [\"ptp-etf\"]}\n"

static void write_file(const char *name, const char *text) {
        char path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_int_equal(fputs(text, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
}

static int setup(void **state) {
        if (!mkdtemp(dir))
                return -1;
        write_file("b-eth0.json", VALID("eth0", "\"auto\""));
        write_file("a-eth0.json", VALID("eth0", "\"auto\""));
        write_file("c-eth1.json", VALID("eth1", "\"auto\""));
        write_file("d-broken.json", "{\"interface\": \"eth9\",\n");
        write_file("e-eth2-bad.json", "{\"interface\": \"eth2\", \"root\": 5}");
        write_file("f-eth3.json", VALID("eth3", "true"));
        write_file("notes.txt", "not a schedule");
        write_file(".hidden.json", "{");
        write_file("g.json.bak", "{");
        return 0;
}

static int teardown(void **state) {
        char path[128];

        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                unlink(path);
        }
        return rmdir(dir);
}

static const DeviceFacts eth3_facts = {
        .tx_queues = 4,
        .offload_known = true,
        .launch_time_mask = 0x3,
        .offload_reason = "igb: launch time only on i210 queues 0 and 1",
};

static const DeviceFacts *facts_for(const char *ifname, void *userdata) {
        unsigned *calls = userdata;

        (*calls)++;
        return strcmp(ifname, "eth3") == 0 ? &eth3_facts : NULL;
}

static char *lines(const DiagList *l) {
        char *all = strdup("");

        assert_non_null(all);
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *line = diag_format(&l->items[i]), *prev = all;

                assert_non_null(line);
                assert_true(asprintf(&all, "%s%s%s", prev, i ? "\n" : "", line) >= 0);
        }
        return all;
}

#define assert_lines(l, expected)                                \
        do {                                                     \
                _cleanup_free_ char *_got = lines(l);            \
                assert_string_equal(_got, expected);             \
        } while (0)

static void test_load(void **state) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        char p[128], e[512];
        unsigned calls = 0;

        assert_int_equal(schedule_dir_load(dir, facts_for, &calls, &d), 0);
        assert_int_equal(d.n, 6);
        /* eth0 (twice), eth1, eth3 were verified; the broken files were not */
        assert_int_equal(calls, 4);

        snprintf(p, sizeof(p), "%s/a-eth0.json", dir);
        assert_string_equal(d.files[0].path, p);
        assert_string_equal(d.files[0].ifname, "eth0");
        assert_null(d.files[0].schedule);
        snprintf(e, sizeof(e), "%s/a-eth0.json: interface: interface \"eth0\" is configured by 2 files "
                 "(%s/a-eth0.json, %s/b-eth0.json); each interface must have exactly one schedule file",
                 dir, dir, dir);
        assert_lines(&d.files[0].diags, e);
        assert_false(schedule_dir_repeats(&d, 0, 0));

        assert_string_equal(d.files[1].ifname, "eth0");
        assert_null(d.files[1].schedule);
        /* the same error, naming both: a report prints it once */
        snprintf(e, sizeof(e), "%s/b-eth0.json: interface: interface \"eth0\" is configured by 2 files "
                 "(%s/a-eth0.json, %s/b-eth0.json); each interface must have exactly one schedule file",
                 dir, dir, dir);
        assert_lines(&d.files[1].diags, e);
        assert_true(schedule_dir_repeats(&d, 1, 0));

        assert_string_equal(d.files[2].ifname, "eth1");
        assert_non_null(d.files[2].schedule);
        assert_string_equal(d.files[2].schedule->ifname, "eth1");
        assert_int_equal(d.files[2].diags.n, 0);

        /* Unreadable JSON: no interface known */
        assert_string_equal(d.files[3].ifname, "");
        assert_null(d.files[3].schedule);
        snprintf(e, sizeof(e), "%s/d-broken.json: line 2, column 1: syntax error: unexpected end of file", dir);
        assert_lines(&d.files[3].diags, e);

        /* Invalid, but the interface it is for is known */
        assert_string_equal(d.files[4].ifname, "eth2");
        assert_null(d.files[4].schedule);
        snprintf(e, sizeof(e), "%s/e-eth2-bad.json: root: must be an object, got 5", dir);
        assert_lines(&d.files[4].diags, e);

        /* The facts reached the validator */
        assert_string_equal(d.files[5].ifname, "eth3");
        assert_null(d.files[5].schedule);
        snprintf(e, sizeof(e), "%s/f-eth3.json: txqueues[0].offload: launch-time offload is not available on "
                 "queue 2: igb: launch time only on i210 queues 0 and 1", dir);
        assert_lines(&d.files[5].diags, e);

        assert_int_equal(schedule_dir_errors(&d), 5);
}

static void test_trailing_slash(void **state) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        char withslash[64], p[128];

        snprintf(withslash, sizeof(withslash), "%s/", dir);
        assert_int_equal(schedule_dir_load(withslash, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 6);
        snprintf(p, sizeof(p), "%s/c-eth1.json", dir);
        assert_string_equal(d.files[2].path, p);
        /* Without facts the eth3 file is valid */
        assert_non_null(d.files[5].schedule);
        assert_int_equal(schedule_dir_errors(&d), 4);
}

static void test_missing_and_empty(void **state) {
        ScheduleDir d = { .n = 42 };
        char empty[] = "/tmp/tbs-test-empty-XXXXXX";

        assert_int_equal(schedule_dir_load("/nonexistent/schedules.d", NULL, NULL, &d), -ENOENT);
        assert_int_equal(d.n, 42);          /* untouched */

        assert_non_null(mkdtemp(empty));
        assert_int_equal(schedule_dir_load(empty, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 0);
        assert_int_equal(schedule_dir_errors(&d), 0);
        schedule_dir_done(&d);
        assert_int_equal(rmdir(empty), 0);
}

static ScheduleFile *file_named(ScheduleDir *d, const char *base) {
        for (size_t i = 0; i < d->n; i++) {
                const char *slash = strrchr(d->files[i].path, '/');

                if (strcmp(slash ? slash + 1 : d->files[i].path, base) == 0)
                        return &d->files[i];
        }
        fail_msg("%s not loaded", base);
        return NULL;
}

static void write_in(const char *folder, const char *name, const char *text) {
        char path[160];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", folder, name);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

/* A reload skips files whose version (stat) did not change, and sees
 * every change: content of the same size, mode, a duplicate, a new file. */
static void test_stamps(void **state) {
        char folder[] = "/tmp/tbs-test-stamps-XXXXXX", path[160];
        ScheduleDirStamps *stamps = NULL;
        ScheduleDir d = {};
        ScheduleFile *f;

        assert_non_null(mkdtemp(folder));
        write_in(folder, "a.json", VALID("eth0", "false"));
        write_in(folder, "b.json", VALID("eth1", "false"));
        write_in(folder, "c.json", "{\"interface\": \"eth2\",\n");
        schedule_dir_stamps_set_quiet(0);

        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_non_null(stamps);
        assert_non_null(file_named(&d, "a.json")->schedule);
        assert_false(file_named(&d, "a.json")->unchanged);
        schedule_dir_done(&d);

        /* Nothing changed: the valid files are not read again. */
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        f = file_named(&d, "a.json");
        assert_true(f->unchanged);
        assert_null(f->schedule);
        assert_string_equal(f->ifname, "eth0");
        assert_int_equal(f->diags.n, 0);
        assert_true(file_named(&d, "b.json")->unchanged);
        f = file_named(&d, "c.json");
        assert_false(f->unchanged);
        assert_true(f->diags.n > 0);
        assert_int_equal(schedule_dir_errors(&d), 1);
        /* ... and can be read in full on demand */
        assert_int_equal(schedule_dir_load_file(&d, (size_t) (file_named(&d, "a.json") - d.files)), 0);
        assert_non_null(file_named(&d, "a.json")->schedule);
        assert_false(file_named(&d, "a.json")->unchanged);
        schedule_dir_done(&d);

        /* Same size, other content (the ctime moves at least); a new mode. */
        write_in(folder, "b.json", VALID("eth1", "true "));
        snprintf(path, sizeof(path), "%s/a.json", folder);
        assert_int_equal(chmod(path, 0600), 0);
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_false(file_named(&d, "a.json")->unchanged);
        assert_non_null(file_named(&d, "a.json")->schedule);
        f = file_named(&d, "b.json");
        assert_false(f->unchanged);
        assert_non_null(f->schedule);
        assert_int_equal(f->schedule->txqueues[0].offload, OFFLOAD_ON);
        schedule_dir_done(&d);

        /* A second file for eth0: both refused, neither skipped, now or next time. */
        write_in(folder, "d.json", VALID("eth0", "false"));
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_false(file_named(&d, "a.json")->unchanged);
        assert_null(file_named(&d, "a.json")->schedule);
        assert_true(file_named(&d, "b.json")->unchanged);
        schedule_dir_done(&d);
        snprintf(path, sizeof(path), "%s/d.json", folder);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_false(file_named(&d, "a.json")->unchanged);
        assert_non_null(file_named(&d, "a.json")->schedule);
        schedule_dir_done(&d);

        /* A file written just now is read again until it has been quiet. */
        schedule_dir_stamps_set_quiet(2);
        write_in(folder, "e.json", VALID("eth4", "false"));
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_non_null(file_named(&d, "e.json")->schedule);
        schedule_dir_done(&d);
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_false(file_named(&d, "e.json")->unchanged);
        assert_non_null(file_named(&d, "e.json")->schedule);
        assert_true(file_named(&d, "b.json")->unchanged);
        schedule_dir_done(&d);

        stamps = schedule_dir_stamps_free(stamps);
        for (const char *const *n = (const char *const[]) { "a.json", "b.json", "c.json", "e.json", NULL }; *n; n++) {
                snprintf(path, sizeof(path), "%s/%s", folder, *n);
                (void) unlink(path);
        }
        assert_int_equal(rmdir(folder), 0);
}

#define MONITORED(ifname, frames)                                                               \
        "{\"interface\": \"" ifname "\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 2,"      \
        " \"priority_map\": [0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"                                 \
        " \"queues\": [{\"count\": 2, \"offset\": 0}, {\"count\": 1, \"offset\": 2}]},"        \
        " \"txqueues\": [{\"queue\": 2, \"delta_ns\": 100000, \"offload\": false,"             \
        " \"monitor\": {\"interval_ms\": 100, \"frames\": " frames "}}],"                        \
        " \"allow\": [\"ptp-etf\"]}\n"

/* The monitors of all files together stay within TBS_MONITOR_MAX_PROBES_PER_S
 * (issue 37: 16 links at 640 probes a second each took a core): a file
 * that would pass it is refused at its monitor, the next ones get the room
 * left; on a reload the files read unchanged keep theirs first. */
static void test_monitor_budget(void **state) {
        char folder[] = "/tmp/tbs-test-budget-XXXXXX", path[160];
        const char *const files[] = { "0.json", "a.json", "b.json", "c.json", "d.json" };
        ScheduleDirStamps *stamps = NULL;
        ScheduleDir d = {};
        ScheduleFile *f;
        char *l;

        assert_int_equal(TBS_MONITOR_MAX_PROBES_PER_S, 1000);
        assert_non_null(mkdtemp(folder));
        write_in(folder, "a.json", MONITORED("eth0", "64"));   /* 640 a second */
        write_in(folder, "b.json", MONITORED("eth1", "32"));   /* 960 */
        write_in(folder, "c.json", MONITORED("eth2", "8"));    /* 1040: refused */
        write_in(folder, "d.json", MONITORED("eth3", "4"));    /* 1000 */
        schedule_dir_stamps_set_quiet(0);

        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        for (const char *const *n = (const char *const[]) { "a.json", "b.json", "d.json", NULL }; *n; n++)
                assert_non_null(file_named(&d, *n)->schedule);
        f = file_named(&d, "c.json");
        assert_null(f->schedule);
        assert_int_equal(f->diags.n, 1);
        l = lines(&f->diags);
        snprintf(path, sizeof(path), "%s/c.json: txqueues[0].monitor: ", folder);
        assert_non_null(strstr(l, path));
        assert_non_null(strstr(l, ": txqueues[0].monitor: the file's monitors send 80 probe frames a second; with "
                                  "the 960 of the other files' that is above tbsd's budget of 1000 for all "
                                  "monitors"));
        free(l);
        assert_int_equal(schedule_dir_errors(&d), 1);
        schedule_dir_done(&d);

        /* A new file sorted first does not push out what runs. */
        write_in(folder, "0.json", MONITORED("eth5", "1"));
        assert_int_equal(schedule_dir_load_stamped(folder, &stamps, &d), 0);
        assert_true(file_named(&d, "a.json")->unchanged);
        assert_true(file_named(&d, "d.json")->unchanged);
        assert_null(file_named(&d, "0.json")->schedule);
        assert_null(file_named(&d, "c.json")->schedule);
        assert_int_equal(schedule_dir_errors(&d), 2);
        schedule_dir_done(&d);

        stamps = schedule_dir_stamps_free(stamps);
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                snprintf(path, sizeof(path), "%s/%s", folder, files[i]);
                (void) unlink(path);
        }
        assert_int_equal(rmdir(folder), 0);
}

/* The folder itself is held to the rules of its files. */
static void test_folder_refused(void **state) {
        char folder[] = "/tmp/tbs-test-folder-XXXXXX", link[64], want[256];
        ScheduleDir d = { .n = 42 };
        char *why = NULL;

        assert_non_null(mkdtemp(folder));
        write_in(folder, "a.json", VALID("eth0", "false"));
        assert_int_equal(schedule_dir_check_folder(folder, &why), 0);
        assert_null(why);

        assert_int_equal(chmod(folder, 0777), 0);
        assert_int_equal(schedule_dir_load(folder, NULL, NULL, &d), -EPERM);
        assert_int_equal(d.n, 42);
        assert_int_equal(schedule_dir_check_folder(folder, &why), -EPERM);
        snprintf(want, sizeof(want), "%s: is writable by others; refusing the schedules folder "
                 "(tbsd --allow-unsafe-files accepts it)", folder);
        assert_string_equal(why, want);
        why = mfree(why);

        assert_int_equal(chmod(folder, 0755), 0);
        snprintf(link, sizeof(link), "%s.link", folder);
        assert_int_equal(symlink(folder, link), 0);
        assert_int_equal(schedule_dir_load(link, NULL, NULL, &d), -EPERM);
        assert_int_equal(schedule_dir_check_folder(link, &why), -EPERM);
        snprintf(want, sizeof(want), "%s: is a symbolic link; refusing the schedules folder "
                 "(tbsd --allow-unsafe-files accepts it)", link);
        assert_string_equal(why, want);
        why = mfree(why);
        /* "LINK/" is the link too, not the folder it leads to. */
        strcat(link, "/");
        assert_int_equal(schedule_dir_load(link, NULL, NULL, &d), -EPERM);
        link[strlen(link) - 1] = 0;

        if (geteuid() == 0) {
                /* Root's folder, writable by a group that is not root. */
                assert_int_equal(chown(folder, 0, 100), 0);
                assert_int_equal(chmod(folder, 0775), 0);
                assert_int_equal(schedule_dir_check_folder(folder, &why), -EPERM);
                snprintf(want, sizeof(want), "%s: is writable by group 100; refusing the schedules folder "
                         "(tbsd --allow-unsafe-files accepts it)", folder);
                assert_string_equal(why, want);
                why = mfree(why);
        }

        schedule_dir_allow_unsafe_files(true);
        d = (ScheduleDir) {};
        assert_int_equal(schedule_dir_load(link, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 1);
        assert_non_null(d.files[0].schedule);
        schedule_dir_done(&d);
        schedule_dir_allow_unsafe_files(false);

        assert_int_equal(unlink(link), 0);
        snprintf(link, sizeof(link), "%s/a.json", folder);
        assert_int_equal(unlink(link), 0);
        assert_int_equal(rmdir(folder), 0);
}

/* A file that changes while it is read is refused for this load, never
 * taken in part: one that grew after the fstat() its reader went by, and
 * one whose size says less than what it gives (a /proc file). */
static void test_changed_while_read(void **state) {
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1, proc = -1;
        DiagList diags = {};
        char path[160], e[256];
        struct stat st;
        size_t len;

        write_in(dir, "growing.json.tmp", VALID("eth0", "false"));
        snprintf(path, sizeof(path), "%s/growing.json.tmp", dir);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        {
                FILE *f = fopen(path, "ae");

                assert_non_null(f);
                assert_true(fputs("        ", f) >= 0);
                assert_int_equal(fclose(f), 0);
        }
        assert_int_equal(schedule_read_opened(fd, &st, "growing.json", &diags, &text, &len), -EAGAIN);
        assert_null(text);
        assert_lines(&diags, "growing.json: the file changed while it was read; not used");
        diag_list_clear(&diags);
        assert_int_equal(unlink(path), 0);

        proc = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        assert_true(proc >= 0);
        assert_int_equal(schedule_read_fd(proc, "status", &diags, &text, &len, NULL), -EAGAIN);
        snprintf(e, sizeof(e), "status: the file changed while it was read; not used");
        assert_lines(&diags, e);
        diag_list_clear(&diags);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_load),
                cmocka_unit_test(test_trailing_slash),
                cmocka_unit_test(test_missing_and_empty),
                cmocka_unit_test(test_stamps),
                cmocka_unit_test(test_folder_refused),
                cmocka_unit_test(test_monitor_budget),
                cmocka_unit_test(test_changed_while_read),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}

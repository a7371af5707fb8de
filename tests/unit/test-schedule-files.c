/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration folder only takes files that only root could have
 * written, unless told otherwise (schedule_dir_allow_unsafe_files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schedule-dir.h"

static const char good[] =
        "{\"interface\": \"%s\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"
        " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
        " \"queues\": [{\"count\": 1, \"offset\": 0}]}}";

static char dir[64], saved_dir[64];

static void write_schedule(const char *name, const char *ifname, mode_t mode) {
        char path[128];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, good, ifname);
        fclose(f);
        assert_int_equal(chmod(path, mode), 0);
}

static const ScheduleFile *file_named(const ScheduleDir *d, const char *name) {
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(strrchr(d->files[i].path, '/') + 1, name) == 0)
                        return &d->files[i];
        fail_msg("no file %s", name);
        return NULL;
}

static char *first_error(const ScheduleFile *f) {
        for (size_t i = 0; i < f->diags.n; i++)
                if (f->diags.items[i].severity == DIAG_ERROR)
                        return diag_format(&f->diags.items[i]);
        return NULL;
}

static int setup(void **state) {
        char target[128], link[128];

        strcpy(dir, "/tmp/tbs-files.XXXXXX");
        assert_non_null(mkdtemp(dir));
        strcpy(saved_dir, dir);
        write_schedule("a.json", "eth0", 0644);
        write_schedule("b.json", "eth1", 0666);
        snprintf(target, sizeof(target), "%s/c.real", dir);
        write_schedule("c.real", "eth2", 0644);
        snprintf(link, sizeof(link), "%s/c.json", dir);
        assert_int_equal(symlink(target, link), 0);
        return 0;
}

static int teardown(void **state) {
        char cmd[128];

        schedule_dir_allow_unsafe_files(false);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static void test_refused(void **state) {
        ScheduleDir d = {};
        _cleanup_free_ char *b = NULL, *c = NULL;
        char want[256];

        schedule_dir_allow_unsafe_files(false);
        assert_int_equal(schedule_dir_load(dir, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 3);
        assert_non_null(file_named(&d, "a.json")->schedule);

        assert_null(file_named(&d, "b.json")->schedule);
        b = first_error(file_named(&d, "b.json"));
        snprintf(want, sizeof(want),
                 "%s/b.json: is writable by others; refusing it (tbsd --allow-unsafe-files accepts it)", dir);
        assert_string_equal(b, want);
        /* Refused before it was read: it names no interface. */
        assert_string_equal(file_named(&d, "b.json")->ifname, "");

        assert_null(file_named(&d, "c.json")->schedule);
        c = first_error(file_named(&d, "c.json"));
        snprintf(want, sizeof(want),
                 "%s/c.json: is a symbolic link; refusing it (tbsd --allow-unsafe-files accepts it)", dir);
        assert_string_equal(c, want);
        assert_string_equal(file_named(&d, "c.json")->ifname, "");
        schedule_dir_done(&d);
}

/* Whether the inotify watches saw mask since the last call. */
static bool inotify_saw(int fd, uint32_t mask) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        bool saw = false;
        ssize_t n;

        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *) p;

                        saw = saw || (ev->mask & mask);
                        p += sizeof(*ev) + ev->len;
                }
        return saw;
}

/* A refused file takes part in nothing: a symbolic link's target is never
 * opened, a world-writable file never read, and neither knocks out the
 * real file of the interface it names by the duplicate rule. */
static void test_refused_take_part_in_nothing(void **state) {
        char folder[] = "/tmp/tbs-refused-XXXXXX", outside[] = "/tmp/tbs-outside-XXXXXX";
        char path[160], target[160];
        ScheduleDir d = {};
        int in;

        assert_non_null(mkdtemp(folder));
        assert_non_null(mkdtemp(outside));
        snprintf(target, sizeof(target), "%s/secret.json", outside);
        {
                FILE *f = fopen(target, "we");

                assert_non_null(f);
                fprintf(f, good, "eth0");
                assert_int_equal(fclose(f), 0);
        }
        strcpy(dir, folder);
        write_schedule("eth0.json", "eth0", 0644);
        write_schedule("y-writable.json", "eth0", 0666);
        snprintf(path, sizeof(path), "%s/x-link.json", folder);
        assert_int_equal(symlink(target, path), 0);

        in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        assert_true(in >= 0);
        assert_true(inotify_add_watch(in, target, IN_OPEN | IN_ACCESS) >= 0);
        snprintf(path, sizeof(path), "%s/y-writable.json", folder);
        assert_true(inotify_add_watch(in, path, IN_ACCESS) >= 0);

        schedule_dir_allow_unsafe_files(false);
        assert_int_equal(schedule_dir_load(folder, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 3);
        assert_false(inotify_saw(in, IN_OPEN | IN_ACCESS));
        assert_non_null(file_named(&d, "eth0.json")->schedule);
        assert_int_equal(file_named(&d, "eth0.json")->diags.n, 0);
        assert_int_equal(file_named(&d, "x-link.json")->diags.n, 1);
        assert_string_equal(file_named(&d, "x-link.json")->ifname, "");
        assert_int_equal(file_named(&d, "y-writable.json")->diags.n, 1);
        assert_string_equal(file_named(&d, "y-writable.json")->ifname, "");
        schedule_dir_done(&d);

        /* Allowed, they are read and are duplicates like any other file. */
        schedule_dir_allow_unsafe_files(true);
        assert_int_equal(schedule_dir_load(folder, NULL, NULL, &d), 0);
        assert_true(inotify_saw(in, IN_OPEN | IN_ACCESS));
        assert_null(file_named(&d, "eth0.json")->schedule);
        /* one error naming the three files, not one per other file */
        assert_int_equal(file_named(&d, "eth0.json")->diags.n, 1);
        assert_non_null(strstr(file_named(&d, "eth0.json")->diags.items[0].reason, "is configured by 3 files ("));
        schedule_dir_done(&d);
        schedule_dir_allow_unsafe_files(false);

        close(in);
        for (const char *const *n = (const char *const[]) { "eth0.json", "y-writable.json", "x-link.json", NULL };
             *n; n++) {
                snprintf(path, sizeof(path), "%s/%s", folder, *n);
                assert_int_equal(unlink(path), 0);
        }
        assert_int_equal(rmdir(folder), 0);
        assert_int_equal(unlink(target), 0);
        assert_int_equal(rmdir(outside), 0);
        strcpy(dir, saved_dir);
}

static void test_allowed(void **state) {
        ScheduleDir d = {};

        schedule_dir_allow_unsafe_files(true);
        assert_int_equal(schedule_dir_load(dir, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 3);
        for (size_t i = 0; i < d.n; i++)
                assert_non_null(d.files[i].schedule);
        schedule_dir_done(&d);
}

static void test_foreign_owner(void **state) {
        ScheduleDir d = {};
        _cleanup_free_ char *e = NULL;
        char path[128], want[256];

        if (geteuid() != 0)
                skip(); /* only root can give a file to another user */
        write_schedule("d.json", "eth3", 0644);
        snprintf(path, sizeof(path), "%s/d.json", dir);
        assert_int_equal(chown(path, 65534, 65534), 0);
        schedule_dir_allow_unsafe_files(false);
        assert_int_equal(schedule_dir_load(dir, NULL, NULL, &d), 0);
        e = first_error(file_named(&d, "d.json"));
        snprintf(want, sizeof(want),
                 "%s/d.json: is owned by uid 65534, not root; refusing it (tbsd --allow-unsafe-files accepts it)",
                 dir);
        assert_string_equal(e, want);
        schedule_dir_done(&d);

        /* Root's file, writable by a group that is not root. */
        free(e);
        write_schedule("e.json", "eth4", 0664);
        snprintf(path, sizeof(path), "%s/e.json", dir);
        assert_int_equal(chown(path, 0, 100), 0);
        assert_int_equal(schedule_dir_load(dir, NULL, NULL, &d), 0);
        e = first_error(file_named(&d, "e.json"));
        snprintf(want, sizeof(want),
                 "%s/e.json: is writable by group 100; refusing it (tbsd --allow-unsafe-files accepts it)", dir);
        assert_string_equal(e, want);
        schedule_dir_done(&d);

        /* Group root is root. */
        assert_int_equal(chown(path, 0, 0), 0);
        assert_int_equal(schedule_dir_load(dir, NULL, NULL, &d), 0);
        assert_non_null(file_named(&d, "e.json")->schedule);
        schedule_dir_done(&d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_allowed),
                cmocka_unit_test(test_foreign_owner),
                cmocka_unit_test(test_refused_take_part_in_nothing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}

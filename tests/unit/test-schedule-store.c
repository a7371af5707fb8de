/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store of schedules given over the bus (schedule-store.c) on a real
 * temporary folder, and the loader reading it after the schedules folder
 * (schedule_dir_set_bus_folder()): order, the duplicate rule across both,
 * a missing store, stamps over both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schedule-dir.h"
#include "schedule-store.h"

#define VALID(ifname)                                                                           \
        "{\"interface\": \"" ifname "\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"      \
        " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"                                 \
        " \"queues\": [{\"count\": 4, \"offset\": 0}]},"                                        \
        " \"txqueues\": [{\"queue\": 2, \"delta_ns\": 100000, \"offload\": false}],"               \
        " \"allow\": [\"ptp-etf\"]}\n"

static char base[] = "/tmp/tbs-test-store-XXXXXX";
static char conf[128], state[128], store[160];

static void write_file(const char *dir, const char *name, const char *text) {
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        f = fopen(path, "we");
        assert_non_null(f);
        assert_true(fputs(text, f) >= 0);
        assert_int_equal(fclose(f), 0);
}

static const char *store_file(const char *name) {
        static char path[256];

        snprintf(path, sizeof(path), "%s/%s", store, name);
        return path;
}

static int setup(void **unused) {
        if (!mkdtemp(base))
                return -1;
        snprintf(conf, sizeof(conf), "%s/conf", base);
        snprintf(state, sizeof(state), "%s/state", base);
        snprintf(store, sizeof(store), "%s/" SCHEDULE_STORE_SUBDIR, state);
        return mkdir(conf, 0755);
}

static int teardown(void **unused) {
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

static void test_paths(void **unused) {
        char *p = schedule_store_path("/var/lib/tbsd", "eth0");

        assert_string_equal(p, "/var/lib/tbsd/schedules.d/eth0.json");
        assert_true(schedule_store_holds("/var/lib/tbsd", p));
        assert_false(schedule_store_holds("/var/lib/tbsd", "/etc/tbsd/schedules.d/eth0.json"));
        assert_false(schedule_store_holds("/var/lib/tbsd", "/var/lib/tbsd/schedules.dx/eth0.json"));
        assert_false(schedule_store_holds("/var/lib/tbsd", "/var/lib/tbsd/schedules.d/"));
        assert_false(schedule_store_holds("/var/lib/tbsd", "/var/lib/tbsd/schedules.d/a/eth0.json"));
        assert_false(schedule_store_holds(NULL, p));
        free(p);
}

static void test_origin_rules(void **unused) {
        const char *why = NULL;
        char long_origin[SCHEDULE_ORIGIN_MAX + 2];

        assert_true(schedule_origin_valid("netconf cnc-1@10.0.0.1", &why));
        assert_false(schedule_origin_valid("", &why));
        assert_string_equal(why, "is empty");
        assert_false(schedule_origin_valid("a\tb", &why));
        assert_string_equal(why, "must be printable ASCII");
        assert_false(schedule_origin_valid("caf\xc3\xa9", &why));
        assert_false(schedule_origin_valid("file", &why));
        memset(long_origin, 'x', sizeof(long_origin) - 1);
        long_origin[sizeof(long_origin) - 1] = 0;
        assert_false(schedule_origin_valid(long_origin, &why));
        long_origin[SCHEDULE_ORIGIN_MAX] = 0;
        assert_true(schedule_origin_valid(long_origin, &why));
}

static void test_write_read_drop(void **unused) {
        char *text = NULL, *origin = NULL, *path = NULL;
        struct stat st;

        assert_int_equal(schedule_store_read(state, "eth5", &text, &origin), -ENOENT);
        assert_int_equal(schedule_store_drop(state, "eth5"), 0);
        assert_int_equal(schedule_store_write(state, "eth5", VALID("eth5"), "netconf"), 0);
        assert_int_equal(stat(store, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(schedule_store_read(state, "eth5", &text, &origin), 0);
        assert_string_equal(text, VALID("eth5"));
        assert_string_equal(origin, "netconf");
        free(text);
        free(origin);

        path = schedule_store_path(state, "eth5");
        assert_int_equal(schedule_store_origin(state, path, &origin), 0);
        assert_string_equal(origin, "netconf");
        free(origin);
        assert_int_equal(schedule_store_origin(state, "/etc/tbsd/schedules.d/eth5.json", &origin), 0);
        assert_string_equal(origin, "file");
        free(origin);

        /* An origin edited by hand: a trailing newline is dropped, text
         * that is no origin is not shown. */
        write_file(store, ".eth5.origin", "by hand\n");
        assert_int_equal(schedule_store_origin(state, path, &origin), 0);
        assert_string_equal(origin, "by hand");
        free(origin);
        write_file(store, ".eth5.origin", "\x01\xff");
        assert_int_equal(schedule_store_origin(state, path, &origin), 0);
        assert_string_equal(origin, SCHEDULE_ORIGIN_UNKNOWN);
        free(origin);

        /* No temporary files are left behind. */
        {
                char tmp[256];

                snprintf(tmp, sizeof(tmp), "%s/.eth5.json.new", store);
                assert_int_equal(access(tmp, F_OK), -1);
        }
        assert_int_equal(schedule_store_drop(state, "eth5"), 1);
        assert_int_equal(schedule_store_read(state, "eth5", &text, NULL), -ENOENT);
        assert_int_equal(schedule_store_origin(state, path, &origin), 0);
        assert_string_equal(origin, SCHEDULE_ORIGIN_UNKNOWN);
        free(origin);
        free(path);
}

/* The interfaces the store keeps, sorted; an absent store keeps none. */
static void test_list(void **unused) {
        char absent[200], **names = NULL;
        size_t n = 99;

        snprintf(absent, sizeof(absent), "%s/none", base);
        assert_int_equal(schedule_store_list(absent, &names, &n), 0);
        assert_int_equal(n, 0);
        assert_null(names[0]);
        schedule_store_list_free(names);

        assert_int_equal(schedule_store_write(state, "vm1", VALID("vm1"), "netconf"), 0);
        assert_int_equal(schedule_store_write(state, "eth7", VALID("eth7"), "admin"), 0);
        write_file(store, ".hidden.json", "{}");
        write_file(store, "notes.txt", "x");
        assert_int_equal(schedule_store_list(state, &names, &n), 0);
        assert_int_equal(n, 2);
        assert_string_equal(names[0], "eth7");
        assert_string_equal(names[1], "vm1");
        assert_null(names[2]);
        schedule_store_list_free(names);
        assert_int_equal(schedule_store_drop(state, "vm1"), 1);
        assert_int_equal(schedule_store_drop(state, "eth7"), 1);
        assert_int_equal(unlink(store_file(".hidden.json")), 0);
        assert_int_equal(unlink(store_file("notes.txt")), 0);
}

static void test_load_both(void **unused) {
        ScheduleDir d = {};
        char other[192];

        write_file(conf, "eth0.json", VALID("eth0"));
        assert_int_equal(schedule_store_write(state, "eth1", VALID("eth1"), "netconf"), 0);
        assert_int_equal(schedule_store_write(state, "eth2", VALID("eth2"), "netconf"), 0);

        /* Without a bus folder set, only the folder. */
        schedule_dir_set_bus_folder(NULL);
        assert_int_equal(schedule_dir_load(conf, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 1);
        schedule_dir_done(&d);

        schedule_dir_set_bus_folder(store);
        assert_int_equal(schedule_dir_load(conf, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 3);
        assert_string_equal(d.files[0].ifname, "eth0");
        assert_string_equal(d.files[1].ifname, "eth1");
        assert_string_equal(d.files[2].ifname, "eth2");
        assert_true(schedule_store_holds(state, d.files[1].path));
        assert_non_null(d.files[1].schedule);
        assert_int_equal(schedule_dir_errors(&d), 0);
        schedule_dir_done(&d);

        /* One interface, one schedule: a file of the folder naming eth1 too
         * refuses both. */
        write_file(conf, "x-eth1.json", VALID("eth1"));
        assert_int_equal(schedule_dir_load(conf, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 4);
        assert_null(d.files[1].schedule);
        assert_null(d.files[2].schedule);
        assert_non_null(d.files[3].schedule);
        assert_int_equal(schedule_dir_errors(&d), 2);
        schedule_dir_done(&d);
        snprintf(other, sizeof(other), "%s/x-eth1.json", conf);
        assert_int_equal(unlink(other), 0);

        /* A missing store is an empty one. */
        snprintf(other, sizeof(other), "%s/none", base);
        schedule_dir_set_bus_folder(other);
        assert_int_equal(schedule_dir_load(conf, NULL, NULL, &d), 0);
        assert_int_equal(d.n, 1);
        schedule_dir_done(&d);
        schedule_dir_set_bus_folder(NULL);
}

static void test_stamps_over_both(void **unused) {
        ScheduleDirStamps *stamps = NULL;
        ScheduleDir d = {};

        /* The stamps of a load of both folders are kept sorted by path:
         * they serve the next load, and one listing the folders the
         * other way round (the store's paths first). */
        schedule_dir_stamps_set_quiet(0);
        for (int k = 0; k < 4; k++) {
                /* loads 0, 1: the folder first; 2, 3: the store first */
                schedule_dir_set_bus_folder(k < 2 ? store : conf);
                assert_int_equal(schedule_dir_load_stamped(k < 2 ? conf : store, &stamps, &d), 0);
                assert_int_equal(d.n, 3);
                for (size_t i = 0; i < d.n; i++)
                        assert_int_equal(d.files[i].unchanged, k > 0);
                schedule_dir_done(&d);
        }
        schedule_dir_stamps_free(stamps);
        schedule_dir_stamps_set_quiet(2);
        schedule_dir_set_bus_folder(NULL);
}

/* An interface may be called ".hid": its document is kept as
 * "%2ehid.json", which the loader reads (it skips hidden files), and is
 * found again by name and by path. */
static void test_leading_dot(void **unused) {
        _cleanup_free_ char *path = NULL, *text = NULL, *origin = NULL, *from_path = NULL;
        ScheduleDir d = {};
        char expect[256];
        size_t i;

        path = schedule_store_path(state, ".hid");
        assert_non_null(path);
        snprintf(expect, sizeof(expect), "%s/%%2ehid.json", store);
        assert_string_equal(path, expect);
        assert_true(schedule_store_holds(state, path));

        assert_int_equal(schedule_store_write(state, ".hid", VALID(".hid"), "netconf"), 0);
        assert_int_equal(access(expect, F_OK), 0);
        assert_int_equal(schedule_store_read(state, ".hid", &text, &origin), 0);
        assert_string_equal(text, VALID(".hid"));
        assert_string_equal(origin, "netconf");
        assert_int_equal(schedule_store_origin(state, path, &from_path), 0);
        assert_string_equal(from_path, "netconf");

        schedule_dir_set_bus_folder(store);
        assert_int_equal(schedule_dir_load(conf, NULL, NULL, &d), 0);
        assert_int_equal(schedule_dir_errors(&d), 0);
        for (i = 0; i < d.n && strcmp(d.files[i].ifname, ".hid") != 0; i++)
                ;
        assert_true(i < d.n);
        assert_string_equal(d.files[i].path, path);
        assert_non_null(d.files[i].schedule);
        schedule_dir_done(&d);
        schedule_dir_set_bus_folder(NULL);

        assert_int_equal(schedule_store_drop(state, ".hid"), 1);
        assert_int_equal(access(expect, F_OK), -1);
}

/* Many documents in one opened folder, synced once: each written or
 * removed as schedule_store_write() and schedule_store_drop() do it. */
static void test_many_at(void **unused) {
        char *text = NULL, *origin = NULL, **names = NULL;
        int dfd = schedule_store_open(state, true);
        size_t n = 0, before;

        assert_true(dfd >= 0);
        assert_int_equal(schedule_store_list(state, &names, &before), 0);
        schedule_store_list_free(names);
        assert_int_equal(schedule_store_write_at(dfd, "m1", VALID("m1"), "netconf"), 0);
        assert_int_equal(schedule_store_write_at(dfd, "m2", VALID("m2"), "admin"), 0);
        assert_int_equal(schedule_store_sync(dfd), 0);
        assert_int_equal(schedule_store_list(state, &names, &n), 0);
        assert_int_equal(n, before + 2);
        schedule_store_list_free(names);
        assert_int_equal(schedule_store_read_at(dfd, "m2", &text, &origin), 0);
        assert_string_equal(text, VALID("m2"));
        assert_string_equal(origin, "admin");
        free(text);
        free(origin);
        assert_int_equal(schedule_store_drop_at(dfd, "m1"), 1);
        assert_int_equal(schedule_store_drop_at(dfd, "m1"), 0);
        assert_int_equal(schedule_store_drop_at(dfd, "m2"), 1);
        assert_int_equal(schedule_store_sync(dfd), 0);
        assert_int_equal(schedule_store_read_at(dfd, "m2", &text, NULL), -ENOENT);
        assert_int_equal(close(dfd), 0);
}

/* read_cached()'s answer is the files' whatever happens to them behind the
 * store's back; with every file trusted at once (quiet 0) the copies are
 * used, with the default quiet time a fresh file is read each time. */
static void check_cached(int dfd, ScheduleStoreCache **cache, const char *ifname, const char *want_text,
                         const char *want_origin) {
        char *text = NULL, *origin = NULL;

        assert_int_equal(schedule_store_read_cached(dfd, cache, ifname, &text, &origin), 0);
        assert_string_equal(text, want_text);
        assert_string_equal(origin, want_origin);
        free(text);
        free(origin);
}

static void test_cache(void **unused) {
        ScheduleStoreCache *cache = NULL;
        char *text = NULL, *names_c1[] = { (char *) "c1", NULL };
        int dfd = schedule_store_open(state, true);

        assert_true(dfd >= 0);
        for (unsigned quiet = 0; quiet <= 2; quiet += 2) {
                schedule_dir_stamps_set_quiet(quiet);
                assert_int_equal(schedule_store_write(state, "c1", VALID("c1"), "netconf"), 0);
                assert_int_equal(schedule_store_write(state, "c2", VALID("c2"), "netconf"), 0);
                check_cached(dfd, &cache, "c1", VALID("c1"), "netconf");
                check_cached(dfd, &cache, "c1", VALID("c1"), "netconf");
                check_cached(dfd, &cache, "c2", VALID("c2"), "netconf");

                /* The document edited by hand, then its origin (in place, of
                 * another size: the same size within one tick of the clock
                 * is what the quiet time is for). */
                write_file(store, "c1.json", VALID("c1") "\n");
                check_cached(dfd, &cache, "c1", VALID("c1") "\n", "netconf");
                write_file(store, ".c1.origin", "by hand!");
                check_cached(dfd, &cache, "c1", VALID("c1") "\n", "by hand!");
                /* The origin removed: shown as the bus'. */
                assert_int_equal(unlink(store_file(".c1.origin")), 0);
                check_cached(dfd, &cache, "c1", VALID("c1") "\n", SCHEDULE_ORIGIN_UNKNOWN);
                write_file(store, ".c1.origin", "again");
                check_cached(dfd, &cache, "c1", VALID("c1") "\n", "again");
                /* Replaced by a symbolic link: refused as without a copy. */
                assert_int_equal(unlink(store_file("c1.json")), 0);
                assert_int_equal(symlink("c2.json", store_file("c1.json")), 0);
                assert_int_equal(schedule_store_read_cached(dfd, &cache, "c1", &text, NULL), -ELOOP);
                assert_int_equal(unlink(store_file("c1.json")), 0);
                /* Removed: gone, not answered from the copy. */
                assert_int_equal(schedule_store_read_cached(dfd, &cache, "c1", &text, NULL), -ENOENT);
                check_cached(dfd, &cache, "c2", VALID("c2"), "netconf");
                /* Written again through the store. */
                assert_int_equal(schedule_store_write(state, "c2", VALID("c1"), "admin"), 0);
                check_cached(dfd, &cache, "c2", VALID("c1"), "admin");

                /* Pruned to the interfaces listed: c2's copy goes, and c2 is
                 * still answered from its files. */
                schedule_store_cache_prune(cache, names_c1);
                check_cached(dfd, &cache, "c2", VALID("c1"), "admin");
                assert_int_equal(schedule_store_drop(state, "c1"), 0);
                assert_int_equal(schedule_store_drop(state, "c2"), 1);
        }
        schedule_dir_stamps_set_quiet(2);
        schedule_store_cache_free(cache);
        assert_int_equal(close(dfd), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_paths),
                cmocka_unit_test(test_origin_rules),
                cmocka_unit_test(test_write_read_drop),
                cmocka_unit_test(test_list),
                cmocka_unit_test(test_load_both),
                cmocka_unit_test(test_stamps_over_both),
                cmocka_unit_test(test_leading_dot),
                cmocka_unit_test(test_many_at),
                cmocka_unit_test(test_cache),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli/client.c: how tbsctl reports a failed D-Bus call: one line, the link
 * name once (tbsd's errors already start with "IFACE: "), escaped, and
 * the exit status for each kind of error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "log.h"

/* What fn(what, error, r) writes on stderr, and its return value. */
static char *call_failed(const char *what, const char *name, const char *message, int r, int *ret) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char path[] = "/tmp/tbs-test-client.XXXXXX", *buf;
        int fd, saved;
        FILE *f;
        long n;

        if (name)
                sd_bus_error_set(&e, name, message);
        fd = mkstemp(path);
        assert_true(fd >= 0);
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        *ret = client_call_failed(what, &e, r);
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        sd_bus_error_free(&e);

        f = fdopen(fd, "r");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        rewind(f);
        buf = calloc(1, (size_t) n + 1);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        unlink(path);
        return buf;
}

static void test_prefix_once(void **state) {
        static const struct {
                const char *what, *name, *message, *line;
                int r;
        } cases[] = {
                /* the "eth0: eth0: ..." */
                { "eth0", "org.tsn.Tbs.Error.ApplyFailed", "eth0: the kernel refused the etf qdisc",
                  "tbsctl: eth0: the kernel refused the etf qdisc\n", -EIO },
                { "eth0", "org.tsn.Tbs.Error.InvalidSchedule", "eth0: schedules.d/eth0.json: root: required key is missing",
                  "tbsctl: eth0: schedules.d/eth0.json: root: required key is missing\n", -EIO },
                /* a message about something else keeps the prefix */
                { "eth0", "org.tsn.Tbs.Error.NoSuchLink", "no link named 'eth0'",
                  "tbsctl: eth0: no link named 'eth0'\n", -ENODEV },
                { "eth0", "org.tsn.Tbs.Error.ApplyFailed", "eth0x: busy", "tbsctl: eth0: eth0x: busy\n", -EIO },
                { "eth0", "org.tsn.Tbs.Error.ApplyFailed", "eth0:busy", "tbsctl: eth0: eth0:busy\n", -EIO },
                { "Reload", "org.tsn.Tbs.Error.AccessDenied", "Reload needs root or the group tbs",
                  "tbsctl: Reload: Reload needs root or the group tbs\n", -EACCES },
                /* control characters escaped; a newline ends a line, and
                 * each line is named */
                { "e\x1b[2J", "org.tsn.Tbs.Error.ApplyFailed", "e\x1b[2J: file a\nb.json\x1b[0m",
                  "tbsctl: e\\x1b[2J: file a\ntbsctl: e\\x1b[2J: b.json\\x1b[0m\n", -EIO },
                /* Reload() names each invalid file on a line of its own */
                { "Reload", "org.tsn.Tbs.Error.InvalidSchedule",
                  "d/a.json: root: required key is missing\nd/b\\xff.json: line 1, column 2: syntax error\n",
                  "tbsctl: Reload: d/a.json: root: required key is missing\n"
                  "tbsctl: Reload: d/b\\xff.json: line 1, column 2: syntax error\n", -EIO },
                { "eth0", SD_BUS_ERROR_SERVICE_UNKNOWN, "The name is not activatable",
                  "tbsctl: tbsd is not reachable on the system bus (The name is not activatable): is the daemon running?\n",
                  -ENOTCONN },
        };

        log_set_program_name("tbsctl");
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r;
                _cleanup_free_ char *got = call_failed(cases[i].what, cases[i].name, cases[i].message, -EIO, &r);

                assert_string_equal(got, cases[i].line);
                assert_int_equal(r, cases[i].r);
        }
}

static void test_exit_status(void **state) {
        assert_int_equal(client_exit_status(0), TBSCTL_EXIT_OK);
        assert_int_equal(client_exit_status(-ENOTCONN), TBSCTL_EXIT_NO_DAEMON);
        assert_int_equal(client_exit_status(-EIO), TBSCTL_EXIT_FAILED);
        assert_int_equal(client_exit_status(-ENODEV), TBSCTL_EXIT_FAILED);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_prefix_once),
                cmocka_unit_test(test_exit_status),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

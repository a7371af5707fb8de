/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lib/log.c and lib/log-journal.c: the native journal encoding byte for
 * byte, $JOURNAL_STREAM matching, and where a message goes: to a journal
 * socket (a datagram socket this test binds) with PRIORITY=, TBS_LINK=,
 * ERRNO= when stderr is the journal stream, to stderr with "<N>" and
 * "IFNAME: " otherwise, and to stderr when the journal is not there. The
 * real journald reads these datagrams in the package-journal test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "log-journal.h"
#include "log.h"

static void test_encode_plain(void **state) {
        const JournalField f[] = { { "MESSAGE", "eth0 applied" }, { "PRIORITY", "6" }, { "TBS_LINK", "eth0" } };
        const char want[] = "MESSAGE=eth0 applied\nPRIORITY=6\nTBS_LINK=eth0\n";
        char *buf = NULL;
        size_t size = 0;

        assert_int_equal(journal_encode(f, 3, &buf, &size), 0);
        assert_int_equal(size, sizeof(want) - 1);
        assert_memory_equal(buf, want, size);
        free(buf);
}

static void test_encode_binary(void **state) {
        const JournalField f[] = { { "MESSAGE", "two\nlines" }, { "E", "" } };
        const char want[] = "MESSAGE\n\x09\0\0\0\0\0\0\0two\nlines\nE=\n";
        char *buf = NULL;
        size_t size = 0;

        assert_int_equal(journal_encode(f, 2, &buf, &size), 0);
        assert_int_equal(size, sizeof(want) - 1);
        assert_memory_equal(buf, want, size);
        free(buf);
}

static void test_encode_invalid(void **state) {
        const JournalField f[] = { { "MESSAGE", NULL } };
        char *buf = (char *) 1;
        size_t size = 7;

        assert_int_equal(journal_encode(f, 1, &buf, &size), -EINVAL);
        assert_int_equal(journal_encode(f, 0, &buf, &size), -EINVAL);
        assert_ptr_equal(buf, (char *) 1);
        assert_int_equal(size, 7);
}

static void test_stream_is(void **state) {
        char path[] = "/tmp/tbs-test-log.XXXXXX", s[64];
        struct stat st;
        int fd = mkstemp(path);

        assert_true(fd >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        snprintf(s, sizeof(s), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        assert_true(journal_stream_is(fd, s));
        snprintf(s, sizeof(s), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino + 1);
        assert_false(journal_stream_is(fd, s));
        snprintf(s, sizeof(s), "%llu:%llux", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        assert_false(journal_stream_is(fd, s));
        assert_false(journal_stream_is(fd, "12"));
        assert_false(journal_stream_is(fd, ""));
        assert_false(journal_stream_is(fd, NULL));
        assert_false(journal_stream_is(-1, "1:1"));
        close(fd);
        unlink(path);
}

/* A fake journal: a datagram socket, and stderr redirected to a file whose
 * dev:inode is put in $JOURNAL_STREAM (or not). */
typedef struct Sink {
        char dir[64];
        char sock_path[128];
        char err_path[128];
        int sock;
        int saved_stderr;
} Sink;

static void sink_open(Sink *k, bool journal_stream, bool journal_listens) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;
        char env[64];
        int fd;

        snprintf(k->dir, sizeof(k->dir), "/tmp/tbs-test-log.XXXXXX");
        assert_non_null(mkdtemp(k->dir));
        snprintf(k->sock_path, sizeof(k->sock_path), "%s/socket", k->dir);
        snprintf(k->err_path, sizeof(k->err_path), "%s/stderr", k->dir);
        k->sock = -1;
        if (journal_listens) {
                k->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                assert_true(k->sock >= 0);
                strcpy(sa.sun_path, k->sock_path);
                assert_int_equal(bind(k->sock, (struct sockaddr *) &sa, sizeof(sa)), 0);
        }

        fflush(stderr);
        k->saved_stderr = dup(STDERR_FILENO);
        fd = open(k->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        close(fd);
        assert_int_equal(fstat(STDERR_FILENO, &st), 0);
        if (journal_stream) {
                snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long) st.st_dev,
                         (unsigned long long) st.st_ino);
                setenv("JOURNAL_STREAM", env, 1);
        } else
                unsetenv("JOURNAL_STREAM");
        log_set_journal_socket(k->sock_path);
}

/* The next datagram, NUL-terminated, or NULL when there is none. */
static char *sink_datagram(Sink *k, size_t *ret_size) {
        static char buf[4096];
        ssize_t n;

        if (k->sock < 0)
                return NULL;
        n = recv(k->sock, buf, sizeof(buf) - 1, 0);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        if (ret_size)
                *ret_size = (size_t) n;
        return buf;
}

/* What was written to stderr; static buffer. */
static const char *sink_stderr(Sink *k) {
        static char buf[4096];
        FILE *f;
        size_t n;

        fflush(stderr);
        f = fopen(k->err_path, "re");
        assert_non_null(f);
        n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

static void sink_close(Sink *k) {
        fflush(stderr);
        assert_int_equal(dup2(k->saved_stderr, STDERR_FILENO), STDERR_FILENO);
        close(k->saved_stderr);
        if (k->sock >= 0)
                close(k->sock);
        unlink(k->sock_path);
        unlink(k->err_path);
        rmdir(k->dir);
        unsetenv("JOURNAL_STREAM");
        log_set_journal_socket(NULL);
        log_set_prefix_priority(false);
        log_set_program_name(NULL);
        log_set_max_level(LOG_INFO);
}

static void test_journal_fields(void **state) {
        Sink k;
        size_t size = 0;
        const char *d;

        sink_open(&k, true, true);
        log_set_program_name("tbsd");
        log_set_prefix_priority(true);

        assert_int_equal(log_link_warning_errno("eth0", -ENOENT, "schedule gone: %m"), -ENOENT);
        d = sink_datagram(&k, &size);
        assert_non_null(d);
        assert_string_equal(d, "MESSAGE=schedule gone: No such file or directory\n"
                               "PRIORITY=4\n"
                               "SYSLOG_IDENTIFIER=tbsd\n"
                               "TBS_LINK=eth0\n"
                               "ERRNO=2\n");

        log_info("%d links", 3);
        d = sink_datagram(&k, NULL);
        assert_non_null(d);
        assert_string_equal(d, "MESSAGE=3 links\nPRIORITY=6\nSYSLOG_IDENTIFIER=tbsd\n");

        log_link_debug("eth0", "not shown at level info");
        assert_null(sink_datagram(&k, NULL));
        assert_string_equal(sink_stderr(&k), "");
        sink_close(&k);
}

/* log_link_fields(): the extra fields follow the usual ones, their values
 * escaped like the message; on stderr only the message. */
static void test_journal_extra_fields(void **state) {
        const JournalField extra[] = {
                { "TBS_QUEUE", "1" },
                { "TBS_SOCKET_KIND", "packet" },
                { "TBS_CALLER_UID", "65534\n" },
        };
        Sink k;
        const char *d;

        sink_open(&k, true, true);
        log_set_program_name("tbsd");
        assert_int_equal(log_link_fields(LOG_INFO, "eth0", extra, ELEMENTSOF(extra), "socket to uid %d", 65534), 0);
        d = sink_datagram(&k, NULL);
        assert_non_null(d);
        assert_string_equal(d, "MESSAGE=socket to uid 65534\n"
                               "PRIORITY=6\n"
                               "SYSLOG_IDENTIFIER=tbsd\n"
                               "TBS_LINK=eth0\n"
                               "TBS_QUEUE=1\n"
                               "TBS_SOCKET_KIND=packet\n"
                               "TBS_CALLER_UID=65534\\n\n");
        sink_close(&k);

        sink_open(&k, false, true);
        log_set_program_name("tbsd");
        assert_int_equal(log_link_fields(LOG_INFO, "eth0", extra, ELEMENTSOF(extra), "socket"), 0);
        assert_null(sink_datagram(&k, NULL));
        assert_string_equal(sink_stderr(&k), "tbsd: eth0: socket\n");
        sink_close(&k);
}

static void test_stderr_when_not_journal(void **state) {
        Sink k;

        sink_open(&k, false, true);
        log_set_program_name("tbsd");
        log_set_prefix_priority(true);
        log_link_error("eth1", "apply failed: %s", "busy");
        log_notice("plain");
        assert_null(sink_datagram(&k, NULL));
        assert_string_equal(sink_stderr(&k), "<3>tbsd: eth1: apply failed: busy\n<5>tbsd: plain\n");
        sink_close(&k);
}

static void test_stderr_when_journal_missing(void **state) {
        Sink k;

        sink_open(&k, true, false);
        log_link_info("eth2", "up");
        assert_string_equal(sink_stderr(&k), "eth2: up\n");
        sink_close(&k);
}

/* A message quoting outside text (a file name with a newline, a link name
 * with an escape sequence, invalid UTF-8) stays one escaped line, on
 * stderr and in the journal. */
static void test_message_escaped(void **state) {
        Sink k;
        const char *d;

        sink_open(&k, false, true);
        log_link_error("e\x1b[2J", "cannot read %s: %s", "a\nb.json", "bad \xC0\xAF");
        assert_string_equal(sink_stderr(&k), "e\\x1b[2J: cannot read a\\nb.json: bad \\xc0\\xaf\n");
        sink_close(&k);

        sink_open(&k, true, true);
        log_link_error("e\x1b[2J", "two\nlines");
        d = sink_datagram(&k, NULL);
        assert_non_null(d);
        assert_string_equal(d, "MESSAGE=two\\nlines\nPRIORITY=3\nTBS_LINK=e\\x1b[2J\n");
        sink_close(&k);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_encode_plain),
                cmocka_unit_test(test_encode_binary),
                cmocka_unit_test(test_encode_invalid),
                cmocka_unit_test(test_stream_is),
                cmocka_unit_test(test_journal_fields),
                cmocka_unit_test(test_journal_extra_fields),
                cmocka_unit_test(test_stderr_when_not_journal),
                cmocka_unit_test(test_stderr_when_journal_missing),
                cmocka_unit_test(test_message_escaped),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

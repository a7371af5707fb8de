/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log-journal.h"
#include "log.h"
#include "parse-number.h"
#include "utf8.h"

static int max_level = LOG_INFO;
static int prefix_priority;
static const char *program_name;
static const char *journal_socket;
static int journal_state = -1;  /* -1: not looked at yet, 0: stderr, 1: journal */

void log_set_max_level(int level) {
        max_level = level;
}

int log_get_max_level(void) {
        return max_level;
}

int log_level_from_string(const char *s) {
        static const char *const names[] = {
                "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
        };
        uint64_t v;

        if (!s || !*s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(s, names[i]) == 0)
                        return (int) i;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        if (parse_uint64(s, 0, 7, &v) < 0)
                return -EINVAL;
        return (int) v;
}

void log_set_prefix_priority(int enable) {
        prefix_priority = !!enable;
}

void log_set_program_name(const char *name) {
        program_name = name;
}

void log_set_journal_socket(const char *path) {
        journal_socket = path;
        journal_state = -1;
}

static bool use_journal(void) {
        if (journal_state < 0)
                journal_state = journal_stream_is(STDERR_FILENO, getenv("JOURNAL_STREAM"));
        return journal_state > 0;
}

static int to_journal(int level, int error, const char *ifname, const JournalField *extra, size_t n_extra,
                      const char *message) {
        char priority[2] = { (char) ('0' + (level & 7)), '\0' }, errno_str[16];
        JournalField fields[5 + LOG_EXTRA_FIELDS_MAX];
        size_t n = 0;

        fields[n++] = (JournalField) { "MESSAGE", message };
        fields[n++] = (JournalField) { "PRIORITY", priority };
        if (program_name)
                fields[n++] = (JournalField) { "SYSLOG_IDENTIFIER", program_name };
        if (ifname)
                fields[n++] = (JournalField) { "TBS_LINK", ifname };
        if (error > 0) {
                snprintf(errno_str, sizeof(errno_str), "%d", error);
                fields[n++] = (JournalField) { "ERRNO", errno_str };
        }
        for (size_t i = 0; i < n_extra && i < LOG_EXTRA_FIELDS_MAX; i++)
                fields[n++] = extra[i];
        return journal_send(journal_socket, fields, n);
}

static void to_stderr(int level, const char *ifname, const char *message) {
        char prio[16] = "", small[512];
        char *line = NULL;
        int n;

        /* The whole line in one write: stderr is unbuffered, and a line
         * written piece by piece costs a system call per piece (the
         * daemon logs a few lines per link it applies) and may be cut by
         * another writer's. */
        if (prefix_priority)
                snprintf(prio, sizeof(prio), "<%d>", level);
        /* Most lines fit on the stack; a longer one is allocated. */
        {
                const char *parts[] = { prio, program_name ?: "", program_name ? ": " : "", ifname ?: "",
                                        ifname ? ": " : "", message, "\n" };
                size_t at = 0;

                for (size_t i = 0; i < ELEMENTSOF(parts); i++) {
                        size_t k = strlen(parts[i]);

                        if (k > sizeof(small) - at) {
                                at = SIZE_MAX;
                                break;
                        }
                        memcpy(small + at, parts[i], k);
                        at += k;
                }
                if (at != SIZE_MAX) {
                        fwrite(small, 1, at, stderr);
                        return;
                }
        }
        n = asprintf(&line, "%s%s%s%s%s%s\n", prio, program_name ?: "", program_name ? ": " : "", ifname ?: "",
                     ifname ? ": " : "", message);
        if (n >= 0) {
                fwrite(line, 1, (size_t) n, stderr);
                free(line);
                return;
        }
        flockfile(stderr);
        if (prefix_priority)
                fprintf(stderr, "<%d>", level);
        if (program_name)
                fprintf(stderr, "%s: ", program_name);
        if (ifname)
                fprintf(stderr, "%s: ", ifname);
        fputs(message, stderr);
        fputc('\n', stderr);
        funlockfile(stderr);
}

static int log_dispatch(int level, int error, const char *ifname, const JournalField *extra, size_t n_extra,
                        const char *format, va_list ap) {
        int saved = errno;
        char small[512], *message = NULL, *allocated = NULL;
        va_list aq;
        int len;

        if (error < 0)
                error = -error;
        if (level > max_level)
                return -error;

        /* %m in the format refers to the error passed in, not to errno. */
        errno = error;
        /* Formatted on the stack when it fits, else allocated. */
        va_copy(aq, ap);
        len = vsnprintf(small, sizeof(small), format, aq);
        va_end(aq);
        if (len >= 0 && (size_t) len < sizeof(small))
                message = small;
        else {
                errno = error;
                if (vasprintf(&allocated, format, ap) < 0)
                        allocated = NULL;
                message = allocated;
        }
        if (!message)
                to_stderr(level, ifname, format);  /* out of memory: the format, unexpanded */
        else {
                /* Names and reasons come from outside: one line, no
                 * terminal control sequences, valid UTF-8 (utf8.h). */
                _cleanup_free_ char *m = NULL, *i = NULL;
                const char *safe = text_safe(message, &m), *safe_ifname = ifname ? text_safe(ifname, &i) : NULL;

                JournalField safe_extra[LOG_EXTRA_FIELDS_MAX] = {};
                char *owned[LOG_EXTRA_FIELDS_MAX] = {};
                size_t n = n_extra < LOG_EXTRA_FIELDS_MAX ? n_extra : LOG_EXTRA_FIELDS_MAX;

                for (size_t k = 0; k < n; k++)
                        safe_extra[k] = (JournalField) { extra[k].name, text_safe(extra[k].value, &owned[k]) };
                if (!use_journal() || to_journal(level, error, safe_ifname, safe_extra, n, safe) < 0)
                        to_stderr(level, safe_ifname, safe);
                for (size_t k = 0; k < n; k++)
                        free(owned[k]);
        }
        free(allocated);
        errno = saved;
        return -error;
}

int log_internal(int level, int error, const char *format, ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = log_dispatch(level, error, NULL, NULL, 0, format, ap);
        va_end(ap);
        return r;
}

int log_link_internal(int level, int error, const char *ifname, const char *format, ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = log_dispatch(level, error, ifname, NULL, 0, format, ap);
        va_end(ap);
        return r;
}

int log_link_fields(int level, const char *ifname, const JournalField *extra, size_t n_extra, const char *format,
                    ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = log_dispatch(level, 0, ifname, extra, n_extra, format, ap);
        va_end(ap);
        return r;
}

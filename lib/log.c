/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"

static int max_level = LOG_INFO;
static int prefix_priority;
static const char *program_name;

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
        char *end;
        long v;

        if (!s || !*s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (strcasecmp(s, names[i]) == 0)
                        return (int) i;
        if (strcasecmp(s, "error") == 0)
                return LOG_ERR;
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || *end || v < 0 || v > 7)
                return -EINVAL;
        return (int) v;
}

void log_set_prefix_priority(int enable) {
        prefix_priority = !!enable;
}

void log_set_program_name(const char *name) {
        program_name = name;
}

int log_internal(int level, int error, const char *format, ...) {
        int saved = errno;
        va_list ap;

        if (error < 0)
                error = -error;
        if (level > max_level)
                return -error;

        /* %m in the format refers to the error passed in, not to errno. */
        errno = error;
        flockfile(stderr);
        if (prefix_priority)
                fprintf(stderr, "<%d>", level);
        if (program_name)
                fprintf(stderr, "%s: ", program_name);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputc('\n', stderr);
        funlockfile(stderr);
        errno = saved;
        return -error;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line's side of parse-number.h: the strict parsers with their
 * one log line, and the line for an option getopt_long() refused. Apart
 * from parse-number.c so that log.c can use the parsers (its
 * SYSTEMD_LOG_LEVEL) without a circle. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "parse-number.h"

int parse_seconds_arg(const char *label, const char *s, bool zero_ok, uint64_t min_ns, uint64_t max_ns,
                      uint64_t *ret_ns) {
        char a[32], b[32];

        if (zero_ok && parse_seconds_ns(s, 0, 0, ret_ns) >= 0)
                return 0;
        if (parse_seconds_ns(s, min_ns, max_ns, ret_ns) >= 0)
                return 0;
        /* log_error() escapes what s may hold */
        log_error("%s: must be %sa number of seconds (such as 1 or 0.5) between %s and %s, got '%s'", label,
                  zero_ok ? "0 or " : "", format_seconds_ns(min_ns, a), format_seconds_ns(max_ns, b),
                  s ?: "");
        return -EINVAL;
}

int parse_uint_arg(const char *label, const char *s, uint64_t min, uint64_t max, uint64_t *ret) {
        if (parse_uint64(s, min, max, ret) >= 0)
                return 0;
        log_error("%s: must be an integer between %" PRIu64 " and %" PRIu64 ", got '%s'", label, min, max,
                  s ?: "");
        return -EINVAL;
}

/* The long option whose value is v and that takes no argument, or NULL. */
static const struct option *flag_of(const struct option *options, int v) {
        for (const struct option *o = options; o->name; o++)
                if (o->val == v && o->has_arg == no_argument)
                        return o;
        return NULL;
}

int log_option_error(const char *program, int c, char *const argv[], const struct option *options) {
        /* A long option leaves optind past its argument; a short one may
         * sit inside a cluster ("-jx"), so it is named by optopt. */
        const char *arg = optind > 0 ? argv[optind - 1] : NULL;
        bool dashes = arg && strncmp(arg, "--", 2) == 0;
        int len = dashes ? (int) strcspn(arg, "=") : 0;
        unsigned matches = 0;

        if (c == ':') {
                if (dashes)
                        log_error("option '%.*s' needs a value; see '%s --help'", len, arg, program);
                else
                        log_error("option '-%c' needs a value; see '%s --help'", optopt, program);
                return -EINVAL;
        }
        if (dashes && optopt != 0 && arg[len] == '=' && flag_of(options, optopt)) {
                log_error("option '%.*s' takes no value; see '%s --help'", len, arg, program);
                return -EINVAL;
        }
        if (!dashes || optopt != 0) {
                log_error("unknown option '-%c'; see '%s --help'", optopt, program);
                return -EINVAL;
        }
        for (const struct option *o = options; o->name; o++)
                if (strncmp(o->name, arg + 2, (size_t) len - 2) == 0)
                        matches++;
        log_error("%s option '%.*s'; see '%s --help'", matches > 1 ? "ambiguous" : "unknown", len, arg, program);
        return -EINVAL;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Strict parsing of the numbers given on tbsd's and tbsctl's command lines
 * (intervals, counts, queue numbers, the log level), and the line for an
 * option getopt_long() refused. strtod() and
 * strtoul() take white space, signs, "0x", exponents, "inf", "nan" and a
 * trailing rest; these take plain decimals only, with bounds, so that
 * "--watch=inf" or "--count=1abc" is an error, never a surprise. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define NSEC_PER_SEC 1000000000ULL

/** Parse a decimal integer: one or more digits and nothing else (no sign,
 *  white space or "0x"). Returns 0 and *ret, -EINVAL when s is not such a
 *  number, -ERANGE when it is outside [min, max] (or beyond 64 bits);
 *  *ret untouched on failure. */
int parse_uint64(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/** Parse a number of seconds: digits, optionally a '.' and 1-9 more digits
 *  ("2", "0.5", "0.000001"), into nanoseconds. Returns 0 and *ret_ns,
 *  -EINVAL when s is not such a number (exponents, "inf", "nan", signs
 *  and white space included), -ERANGE when it is outside [min_ns, max_ns];
 *  *ret_ns untouched on failure. */
int parse_seconds_ns(const char *s, uint64_t min_ns, uint64_t max_ns, uint64_t *ret_ns);

/** parse_seconds_ns() for a command line value; on failure logs one line
 *  "LABEL: must be a number of seconds (such as 1 or 0.5) between MIN and
 *  MAX, got 'S'" ("0 or a number..." when zero_ok) and returns -EINVAL.
 *  With zero_ok, "0" is accepted besides [min_ns, max_ns]. */
int parse_seconds_arg(const char *label, const char *s, bool zero_ok, uint64_t min_ns, uint64_t max_ns,
                      uint64_t *ret_ns);

/** parse_uint64() for a command line value; on failure logs one line
 *  "LABEL: must be an integer between MIN and MAX, got 'S'" and returns
 *  -EINVAL. */
int parse_uint_arg(const char *label, const char *s, uint64_t min, uint64_t max, uint64_t *ret);

struct option;

/** The one line for an option getopt_long() refused, made where the
 *  program parses its options with opterr = 0 and an optstring starting
 *  with ':': "unknown option '--bogus'", "option '--count' needs a value"
 *  or "option '--json' takes no value", then "; see 'PROGRAM --help'".
 *  glibc's own message would name the program by argv[0], its whole path,
 *  and give no hint. c is what getopt_long() returned ('?' or ':'),
 *  argv and options what it was given. Logs, returns -EINVAL. */
int log_option_error(const char *program, int c, char *const argv[], const struct option *options);

/** Format a nanosecond count as a decimal number of seconds without
 *  trailing zeros ("0.01", "3600"). Returns buf. */
char *format_seconds_ns(uint64_t ns, char buf[static 32]);

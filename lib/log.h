/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging for tbsd and tbsctl: one line per message on stderr. With
 * log_set_prefix_priority(true) each line starts with a syslog priority
 * prefix ("<3>") that journald understands. When stderr is the stream
 * systemd connected to journald ($JOURNAL_STREAM names it), each message
 * goes to the journal's native socket instead, with PRIORITY=,
 * SYSLOG_IDENTIFIER=, ERRNO= and, from the log_link_*() forms,
 * TBS_LINK=IFNAME as fields; should that fail, it goes to stderr. */
#pragma once

#include <syslog.h>

#include "log-journal.h"
#include "macro.h"

/* Most extra journal fields one message may carry (log_link_fields()). */
#define LOG_EXTRA_FIELDS_MAX 8

/** Set the highest priority that is printed (LOG_ERR..LOG_DEBUG). */
void log_set_max_level(int level);
/** Return the current maximum level. */
int log_get_max_level(void);
/** Parse "err", "warning", "notice", "info", "debug" or a number 0..7.
 *  Returns the level or -EINVAL. */
int log_level_from_string(const char *s);
/** Prefix each line with "<N>" (for journald / systemd units). */
void log_set_prefix_priority(int enable);
/** Name printed before each message ("tbsd: "); NULL for none. */
void log_set_program_name(const char *name);

/** Log a message; returns -abs(error) so callers can `return log_error_errno(r, ...)`.
 *  error may be 0; a %m in the format is expanded from error. */
int log_internal(int level, int error, const char *format, ...) _printf_(3, 4);
/** Log a message about network interface ifname (NULL: about none): on
 *  stderr as "IFNAME: MESSAGE", in the journal as MESSAGE with the field
 *  TBS_LINK=IFNAME, so `journalctl TBS_LINK=eth0` finds it. Returns
 *  -abs(error) like log_internal(). */
int log_link_internal(int level, int error, const char *ifname, const char *format, ...) _printf_(4, 5);

/** log_link_internal() with up to LOG_EXTRA_FIELDS_MAX more fields for the
 *  journal (names as journal_encode() takes them: "TBS_QUEUE", values
 *  escaped here like the message); on stderr only the message is printed,
 *  so it should say what the fields hold. Returns 0. */
int log_link_fields(int level, const char *ifname, const JournalField *extra, size_t n_extra, const char *format,
                    ...) _printf_(5, 6);

/** Where the journal's native socket is (NULL: /run/systemd/journal/socket),
 *  and look at $JOURNAL_STREAM again on the next message. For tests. */
void log_set_journal_socket(const char *path);

#define log_full_errno(level, error, ...) log_internal(level, error, __VA_ARGS__)
#define log_debug(...)   log_internal(LOG_DEBUG, 0, __VA_ARGS__)
#define log_info(...)    log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_notice(...)  log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_error(...)   log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_debug_errno(e, ...)   log_internal(LOG_DEBUG, e, __VA_ARGS__)
#define log_info_errno(e, ...)    log_internal(LOG_INFO, e, __VA_ARGS__)
#define log_warning_errno(e, ...) log_internal(LOG_WARNING, e, __VA_ARGS__)
#define log_error_errno(e, ...)   log_internal(LOG_ERR, e, __VA_ARGS__)

#define log_link_full_errno(ifname, level, error, ...) log_link_internal(level, error, ifname, __VA_ARGS__)
#define log_link_debug(ifname, ...)   log_link_internal(LOG_DEBUG, 0, ifname, __VA_ARGS__)
#define log_link_info(ifname, ...)    log_link_internal(LOG_INFO, 0, ifname, __VA_ARGS__)
#define log_link_notice(ifname, ...)  log_link_internal(LOG_NOTICE, 0, ifname, __VA_ARGS__)
#define log_link_warning(ifname, ...) log_link_internal(LOG_WARNING, 0, ifname, __VA_ARGS__)
#define log_link_error(ifname, ...)   log_link_internal(LOG_ERR, 0, ifname, __VA_ARGS__)
#define log_link_debug_errno(ifname, e, ...)   log_link_internal(LOG_DEBUG, e, ifname, __VA_ARGS__)
#define log_link_info_errno(ifname, e, ...)    log_link_internal(LOG_INFO, e, ifname, __VA_ARGS__)
#define log_link_warning_errno(ifname, e, ...) log_link_internal(LOG_WARNING, e, ifname, __VA_ARGS__)
#define log_link_error_errno(ifname, e, ...)   log_link_internal(LOG_ERR, e, ifname, __VA_ARGS__)

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Stage one of three: a schedule file's JSON text -> the Schedule model.
 * The parser checks what a single value can tell (JSON syntax, key names,
 * JSON types, enum values, number ranges, interface name rules); rules that
 * relate several values are schedule_verify()'s (schedule-verify.h). Every
 * problem becomes one line in a DiagList, "FILE: JSON.PATH: REASON", and all
 * problems of a file are reported, not only the first. The format is described
 * in docs/schedule-format.md. */
#pragma once

#include <sys/stat.h>

#include <net/if.h>
#include <stddef.h>

#include "diag.h"
#include "schedule.h"

/* Files larger than this are refused unread. */
#define SCHEDULE_FILE_MAX (1024U * 1024U)

/** Parse one schedule file's text.
 *  @file   name used in messages (e.g. "schedules.d/eth0.json"); also kept
 *          in Schedule.source. May be NULL (messages then have no file part).
 *  @text   the JSON text, @len bytes; need not be NUL-terminated.
 *  @diags  every problem is appended here as one diagnostic.
 *  @ret    on success a new Schedule with defaults filled in (handle "100:",
 *          clockids CLOCK_TAI, offload auto, clock thresholds 100/1000 ns,
 *          taprio cycle_time_ns = sum of the intervals when not given).
 *  Returns 0, -EINVAL when errors were added to @diags (*ret untouched), or
 *  -ENOMEM. Syntax errors carry the line and column (1-based, bytes). */
int schedule_parse_json(const char *file, const char *text, size_t len, DiagList *diags,
                        Schedule **ret);

/** Read a whole schedule file into memory.
 *  @path          file to read.
 *  @display_name  name used in messages; NULL means @path.
 *  Refuses files that are not regular files or larger than SCHEDULE_FILE_MAX
 *  bytes, with a message in @diags. On success *ret_text is a NUL-terminated
 *  buffer of *ret_len bytes (plus the NUL) that the caller frees.
 *  Returns 0, -errno of the failed open/read (with a diagnostic), -EFBIG,
 *  -EINVAL (not a regular file) or -ENOMEM. */
int schedule_read_file(const char *path, const char *display_name, DiagList *diags,
                       char **ret_text, size_t *ret_len);

/** schedule_read_file() of a file the caller opened (O_NONBLOCK, so that a
 *  FIFO does not hang); name is what diagnostics call it. The file stays
 *  open. On success *ret_stat (when not NULL) is the file's stat as it was
 *  while it was read. */
int schedule_read_fd(int fd, const char *name, DiagList *diags, char **ret_text, size_t *ret_len,
                     struct stat *ret_stat);

/** schedule_read_fd() with the fstat() the caller already made (*st, of
 *  fd): a caller that checks the file before reading it saves one call.
 *  A file whose size or mtime differ after the read from *st, or that gave
 *  more or fewer bytes than *st says, is refused as changed while it was
 *  read (-EAGAIN), never returned in part. */
int schedule_read_opened(int fd, const struct stat *st, const char *name, DiagList *diags, char **ret_text,
                         size_t *ret_len);

/** Read and parse a schedule file: schedule_read_file() then
 *  schedule_parse_json(). Does not run schedule_verify().
 *  Returns 0 and *ret, or a negative errno (diagnostics in @diags). */
int schedule_load_file(const char *path, const char *display_name, DiagList *diags,
                       Schedule **ret);

/** Find the interface a schedule file names, even when the rest of it is
 *  invalid: the top-level "interface" string, if the text is valid JSON and
 *  the name obeys the interface name rules. Adds no diagnostics.
 *  Returns 0 and fills ret (IFNAMSIZ bytes), or -ENOENT (ret untouched). */
int schedule_peek_ifname(const char *text, size_t len, char ret[static IFNAMSIZ]);

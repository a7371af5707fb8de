/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Schedules given over the bus (Manager.ApplySchedule(), the NETCONF
 * side's way in), kept as files in tbsd's state folder: the document in
 * STATE_DIR/schedules.d/IFACE.json (an interface whose name starts with
 * '.' in "%2eREST.json": the loader skips hidden files), read by the
 * loader after the schedules folder as if it were one of its files
 * (schedule-dir.h), and who gave it
 * in STATE_DIR/schedules.d/.IFACE.origin (names starting with '.' are not
 * schedules to the loader). Both are written to a temporary name and
 * renamed: a crash leaves the old version or the new one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define SCHEDULE_STORE_SUBDIR "schedules.d"
/* Longest origin accepted (bytes). */
#define SCHEDULE_ORIGIN_MAX 128
/* The origin shown for a file of the schedules folder. */
#define SCHEDULE_ORIGIN_FILE "file"
/* The origin shown for a document of the store whose origin file is missing. */
#define SCHEDULE_ORIGIN_UNKNOWN "bus"

/** STATE_DIR/schedules.d, or NULL (out of memory). */
char *schedule_store_dir(const char *state_dir);

/** STATE_DIR/schedules.d/IFACE.json ("%2eREST.json" for ".REST"), or NULL
 *  (out of memory). */
char *schedule_store_path(const char *state_dir, const char *ifname);

/** Whether path is a document of the store (a file directly in
 *  STATE_DIR/schedules.d). state_dir may be NULL: then never. */
bool schedule_store_holds(const char *state_dir, const char *path);

/** Whether origin may be given: 1 to SCHEDULE_ORIGIN_MAX bytes of printable
 *  ASCII, and not SCHEDULE_ORIGIN_FILE. Otherwise false with *ret_why (a
 *  static text). */
bool schedule_origin_valid(const char *origin, const char **ret_why);

/** Where the schedule at path came from: SCHEDULE_ORIGIN_FILE for a file
 *  that is not the store's, else the store's origin of it (or
 *  SCHEDULE_ORIGIN_UNKNOWN when it has none that can be read). Returns 0
 *  and *ret (free() it), or -ENOMEM. */
int schedule_store_origin(const char *state_dir, const char *path, char **ret);

/** Keep text as IFACE's document with its origin, creating the folders
 *  (mode 0755) when missing. Returns 0 or -errno (nothing changed when the
 *  document could not be written). */
int schedule_store_write(const char *state_dir, const char *ifname, const char *text, const char *origin);

/** The document of IFACE and its origin (either may be NULL when not
 *  wanted). Returns 0, -ENOENT when the store has none, or -errno. */
int schedule_store_read(const char *state_dir, const char *ifname, char **ret_text, char **ret_origin);

/** The interfaces the store keeps a document for (its "IFACE.json" files,
 *  not those starting with '.'), sorted, NULL-terminated (free each and the
 *  array: schedule_store_list_free()). *ret_n may be NULL. An absent store
 *  holds none. Returns 0 or -errno. */
int schedule_store_list(const char *state_dir, char ***ret, size_t *ret_n);
void schedule_store_list_free(char **names);

/** Forget IFACE's document and origin. Returns 1 when there was a
 *  document, 0 when not, or -errno. */
int schedule_store_drop(const char *state_dir, const char *ifname);

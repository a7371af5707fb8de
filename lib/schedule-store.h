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
 *  (mode 0755) when missing; durable when it returns (the folder synced).
 *  Returns 0 or -errno (nothing changed when the document could not be
 *  written). */
int schedule_store_write(const char *state_dir, const char *ifname, const char *text, const char *origin);

/** The store's folder opened for the *_at() calls below (create: the
 *  folders made, mode 0755, when missing). Returns the descriptor (close()
 *  it) or -errno (-ENOENT: no store). */
int schedule_store_open(const char *state_dir, bool create);
/** schedule_store_write() and schedule_store_drop() of many, in the
 *  folder dfd: each file written (and synced) or removed, the folder not
 *  synced; schedule_store_sync() after the last makes them all durable at
 *  once (one sync of the folder per call, not per document). */
int schedule_store_write_at(int dfd, const char *ifname, const char *text, const char *origin);
int schedule_store_drop_at(int dfd, const char *ifname);
/** The folder's entries (files written, renamed, removed) made durable.
 *  Returns 0 or -errno. */
int schedule_store_sync(int dfd);

/** The document of IFACE and its origin (either may be NULL when not
 *  wanted). Returns 0, -ENOENT when the store has none, or -errno. */
int schedule_store_read(const char *state_dir, const char *ifname, char **ret_text, char **ret_origin);
int schedule_store_read_at(int dfd, const char *ifname, char **ret_text, char **ret_origin);

/** What ListSchedules() read of the store last time: each document with its
 *  origin and both files' versions (schedule-dir.h's ScheduleFileVersion),
 *  at most 1 MiB of documents. */
typedef struct ScheduleStoreCache ScheduleStoreCache;
ScheduleStoreCache *schedule_store_cache_free(ScheduleStoreCache *c);
/** schedule_store_read_at() through *cache (NULL: none yet; created on
 *  need): a document whose two files are still the versions it was read
 *  from (two fstatat(), no symbolic link followed) is answered from the
 *  copy; any other is read from its files, as without the cache, and
 *  copied only when both files were quiet for a while before it was read,
 *  by schedule-dir.c's rule for stamps (schedule_file_version_trustworthy():
 *  a file changed within a tick of the file system's clock may keep its
 *  times), so that a file changed behind tbsd's back is read again. */
int schedule_store_read_cached(int dfd, ScheduleStoreCache **cache, const char *ifname, char **ret_text,
                               char **ret_origin);
/** Forget the copies of interfaces not in names (sorted, NULL-terminated:
 *  schedule_store_list()'s). */
void schedule_store_cache_prune(ScheduleStoreCache *c, char *const *names);

/** The interfaces the store keeps a document for (its "IFACE.json" files,
 *  not those starting with '.'), sorted, NULL-terminated (free each and the
 *  array: schedule_store_list_free()). *ret_n may be NULL. An absent store
 *  holds none. Returns 0 or -errno. */
int schedule_store_list(const char *state_dir, char ***ret, size_t *ret_n);
void schedule_store_list_free(char **names);

/** Forget IFACE's document and origin, durably (the folder synced).
 *  Returns 1 when there was a document, 0 when not, or -errno. */
int schedule_store_drop(const char *state_dir, const char *ifname);

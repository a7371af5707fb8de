/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading a whole schedules folder (/etc/tbsd/schedules.d): every *.json
 * file is read, parsed and verified, and interfaces named by more than one
 * file are refused. Used by `tbsd --check` and by the daemon at start and
 * reload. */
#pragma once

#include <stdbool.h>

#include <net/if.h>
#include <stddef.h>
#include <sys/stat.h>

#include "diag.h"
#include "schedule.h"

typedef struct ScheduleFile {
        char *path;                  /* DIR/NAME, as used in messages */
        char ifname[IFNAMSIZ];       /* the "interface" the file names if it could be read
                                      * (even when the file is otherwise invalid), else ""
                                      * (also for a file refused as unsafe: it is not read) */
        Schedule *schedule;          /* NULL when the file has errors */
        DiagList diags;              /* this file's errors and warnings */
        uint32_t monitor_probes_per_s; /* of its monitors, valid or unchanged files only */
        bool unchanged;              /* schedule_dir_load_stamped(): not read again, since it
                                      * is the version read last time (schedule is NULL) */
} ScheduleFile;

typedef struct ScheduleDir {
        ScheduleFile *files;         /* sorted by file name */
        size_t n;
} ScheduleDir;

/** By default schedule_dir_load() refuses files that are symbolic links,
 *  owned by a user other than root (or the caller), writable by others, or
 *  writable by a group other than root: whoever can write them could
 *  reconfigure the network. A refused file is refused before a byte of it
 *  (or of a link's target) is read: it names no interface and takes part in
 *  nothing, the duplicate-interface rule included. The folder itself is
 *  held to the same rules. allow=true (tbsd --allow-unsafe-files) accepts
 *  them. */
void schedule_dir_allow_unsafe_files(bool allow);

/** A second folder every load below reads after the schedules folder, as if
 *  its files were the folder's (the same rules, the duplicate-interface
 *  rule across both): the schedules given over the bus
 *  (schedule-store.h). A missing bus folder is an empty one. dir must stay
 *  valid while set; NULL (the default): none. The files are in the
 *  ScheduleDir after the folder's, each folder's sorted by name. */
void schedule_dir_set_bus_folder(const char *dir);

/** Whether the schedules folder itself passes the rules above.
 *  Returns 0, -EPERM with *ret_reason (a line naming the folder and why it
 *  is refused; free() it), or -errno when it cannot be opened. The loaders
 *  below return -EPERM for a refused folder: this says why. */
int schedule_dir_check_folder(const char *dir, char **ret_reason);

/** Load every *.json file of a folder (names starting with '.' are skipped),
 *  sorted by name. Each file is parsed and, when that succeeds, verified
 *  with the facts facts_for() returns for its interface (facts_for may be
 *  NULL, and may return NULL: nothing known). Two or more files naming the
 *  same interface each get an error naming the others, and no schedule.
 *  Problems of the files are in their diags, never a failure of this call.
 *  @ret  filled on success; release with schedule_dir_done().
 *  Returns 0, -EPERM when the folder is refused (see
 *  schedule_dir_check_folder()), -errno when it cannot be opened or read,
 *  or -ENOMEM. */
int schedule_dir_load(const char *dir,
                      const DeviceFacts *(*facts_for)(const char *ifname, void *userdata),
                      void *userdata, ScheduleDir *ret);

/* The version (device, inode, size, mode, owner, mtime, ctime) of every
 * valid file of a folder as last read, so that a reload can skip files that
 * did not change. A file written less than two seconds before it was read
 * gets no stamp (two writes within one tick of the file system's clock may
 * leave the times alike) and is read again next time. */
typedef struct ScheduleDirStamps ScheduleDirStamps;

/* What identifies one version of a file: any write changes the size, the
 * mtime or at least the ctime (which chmod and chown change as well). The
 * fields of struct stat that say so, half its size: a stamp is kept per
 * file for as long as the daemon runs. The store's documents are stamped
 * the same way (schedule-store.h, ListSchedules). */
typedef struct ScheduleFileVersion {
        dev_t dev;
        ino_t ino;
        off_t size;
        mode_t mode;
        uid_t uid;
        gid_t gid;
        struct timespec mtim, ctim;
} ScheduleFileVersion;

ScheduleFileVersion schedule_file_version(const struct stat *st);
bool schedule_file_version_same(const ScheduleFileVersion *a, const ScheduleFileVersion *b);
/** Whether a file of this stat() may be stamped: it was quiet (neither
 *  written nor changed) for the quiet time below before now; a file written
 *  within one tick of the file system's clock of another write may keep its
 *  times, so one read sooner is read again next time. */
bool schedule_file_version_trustworthy(const struct stat *st);

ScheduleDirStamps *schedule_dir_stamps_free(ScheduleDirStamps *s);
/** For tests: how long a file must have been quiet to be stamped
 *  (default 2 s; 0 stamps every valid file). */
void schedule_dir_stamps_set_quiet(unsigned seconds);

/** schedule_dir_load() without facts that skips the files whose stamp in
 *  *stamps (NULL: none yet) matches what lstat() says now: such a file has
 *  unchanged = true, its ifname, no schedule and no diagnostics (a file is
 *  only stamped when it was valid without a remark). Added, removed and
 *  changed files are seen as with schedule_dir_load(). On success *stamps is
 *  replaced by the stamps of this load. */
int schedule_dir_load_stamped(const char *dir, ScheduleDirStamps **stamps, ScheduleDir *ret);

/** Read file i of d again in full (for an unchanged file whose schedule the
 *  caller no longer holds). Returns 0 (problems go to its diags) or -ENOMEM. */
int schedule_dir_load_file(ScheduleDir *d, size_t i);

/** Free everything the ScheduleDir holds; it is empty afterwards. Accepts
 *  an empty (zeroed) one. */
void schedule_dir_done(ScheduleDir *d);

/** Whether error diag of file repeats one an earlier file of the folder
 *  carries: the files that name one interface each get the same error,
 *  naming them all; a report that prints the folder's errors prints it
 *  once, at the first file (tbsd --check). */
bool schedule_dir_repeats(const ScheduleDir *d, size_t file, size_t diag);

/** Total number of errors (not warnings) over all files. */
size_t schedule_dir_errors(const ScheduleDir *d);

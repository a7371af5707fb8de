/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "schedule-dir.h"
#include "schedule-parse.h"
#include "schedule-verify.h"

static void schedule_file_done(ScheduleFile *f) {
        free(f->path);
        schedule_free(f->schedule);
        diag_list_clear(&f->diags);
        *f = (ScheduleFile) {};
}

void schedule_dir_done(ScheduleDir *d) {
        for (size_t i = 0; i < d->n; i++)
                schedule_file_done(&d->files[i]);
        free(d->files);
        *d = (ScheduleDir) {};
}

size_t schedule_dir_errors(const ScheduleDir *d) {
        size_t n = 0;

        for (size_t i = 0; i < d->n; i++)
                n += diag_errors(&d->files[i].diags);
        return n;
}

static bool is_schedule_name(const char *name) {
        size_t n = strlen(name);

        return name[0] != '.' && n > strlen(".json") && strcmp(name + n - strlen(".json"), ".json") == 0;
}

static int cmp_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void free_names(char **names, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* The sorted names of the folder's schedule files. */
static int list_names(DIR *d, char ***ret, size_t *ret_n) {
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;

        for (;;) {
                char **nn;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0) {
                                int r = negative_errno();

                                free_names(names, n);
                                return r;
                        }
                        break;
                }
                if (!is_schedule_name(de->d_name))
                        continue;
                nn = reallocarray(names, n + 1, sizeof(char *));
                if (!nn) {
                        free_names(names, n);
                        return -ENOMEM;
                }
                names = nn;
                if (!(names[n] = strdup(de->d_name))) {
                        free_names(names, n);
                        return -ENOMEM;
                }
                n++;
        }
        if (n > 0)
                qsort(names, n, sizeof(char *), cmp_names);
        *ret = names;
        *ret_n = n;
        return 0;
}

static bool allow_unsafe_files;

void schedule_dir_allow_unsafe_files(bool allow) {
        allow_unsafe_files = allow;
}

/* Whether a file (or the folder) is one only root could have written: not
 * a symbolic link, owned by root (or by whoever runs us, so an operator can
 * check a folder of their own), not writable by others, and writable by its
 * group only when that group is root. Returns
 * NULL or the reason it is not. */
static const char *unsafe_reason(const struct stat *st, char buf[static 64]) {
        if (S_ISLNK(st->st_mode))
                return "is a symbolic link";
        if (st->st_uid != 0 && st->st_uid != geteuid()) {
                snprintf(buf, 64, "is owned by uid %u, not root", (unsigned) st->st_uid);
                return buf;
        }
        if (st->st_mode & S_IWOTH)
                return "is writable by others";
        /* Group root is root. A user checking a folder of their own files
         * (umask 002 gives them a private group) is not refused either. */
        if ((st->st_mode & S_IWGRP) && st->st_gid != 0 && !(st->st_uid == geteuid() && geteuid() != 0)) {
                snprintf(buf, 64, "is writable by group %u", (unsigned) st->st_gid);
                return buf;
        }
        return NULL;
}

/* st: the fstat() of the opened file, before a byte of it is read. */
static int check_safe(ScheduleFile *f, const struct stat *st) {
        const char *why;
        char buf[64];

        if (allow_unsafe_files)
                return 0;
        why = unsafe_reason(st, buf);
        if (!why)
                return 0;
        if (diag_error(&f->diags, f->path, NULL, "%s; refusing it (tbsd --allow-unsafe-files accepts it)", why) < 0)
                return -ENOMEM;
        return -EPERM;
}

/* Opens schedule file name of the folder dfd. When files must be safe, a
 * symbolic link is refused here, its target never opened: O_NOFOLLOW, so
 * the checks that follow (on fstat()) see the very file that is read, with
 * no window to swap it in between. O_NONBLOCK: a FIFO put in the folder
 * must not hang us (it is refused as not a regular file). */
static int open_schedule_file(ScheduleFile *f, int dfd, const char *name) {
        const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        int fd, r;

        fd = openat(dfd, name, flags | (allow_unsafe_files ? 0 : O_NOFOLLOW));
        if (fd >= 0)
                return fd;
        r = negative_errno();
        if (r == -ELOOP && !allow_unsafe_files)
                return diag_error(&f->diags, f->path, NULL,
                                  "is a symbolic link; refusing it (tbsd --allow-unsafe-files accepts it)") < 0 ?
                       -ENOMEM : -EPERM;
        return diag_error(&f->diags, f->path, NULL, "cannot open: %s", strerror(-r)) < 0 ? -ENOMEM : r;
}

/* Opens the schedules folder, checked like its files (a symbolic link is
 * not followed, its owner and mode are those of the directory listed).
 * Returns 0 and *ret, -EPERM when it is refused (with ret_reason: why, a
 * line naming the folder), or -errno. */
static int open_folder(const char *dir, char **ret_reason, DIR **ret) {
        _cleanup_free_ char *path = strdup(dir);
        _cleanup_close_ int fd = -1;
        const char *why = NULL;
        struct stat st;
        char buf[64];
        size_t n;
        DIR *d;

        if (!path)
                return -ENOMEM;
        /* "DIR/" would follow a symbolic link DIR despite O_NOFOLLOW. */
        for (n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
                path[n - 1] = 0;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (allow_unsafe_files ? 0 : O_NOFOLLOW));
        if (fd < 0) {
                int r = negative_errno();

                /* A symbolic link gives ENOTDIR with O_DIRECTORY, ELOOP without. */
                if (allow_unsafe_files || (r != -ENOTDIR && r != -ELOOP) || lstat(path, &st) < 0 ||
                    !S_ISLNK(st.st_mode))
                        return r;
                why = "is a symbolic link";
        } else if (!allow_unsafe_files) {
                if (fstat(fd, &st) < 0)
                        return negative_errno();
                why = unsafe_reason(&st, buf);
        }
        if (why) {
                if (ret_reason && asprintf(ret_reason, "%s: %s; refusing the schedules folder "
                                           "(tbsd --allow-unsafe-files accepts it)", dir, why) < 0)
                        return -ENOMEM;
                return -EPERM;
        }
        if (!ret)
                return 0;
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        TAKE_FD(fd);
        *ret = d;
        return 0;
}

int schedule_dir_check_folder(const char *dir, char **ret_reason) {
        char *reason = NULL;
        int r;

        r = open_folder(dir, &reason, NULL);
        if (r == -EPERM)
                *ret_reason = reason;
        return r;
}

ScheduleFileVersion schedule_file_version(const struct stat *st) {
        return (ScheduleFileVersion) {
                .dev = st->st_dev, .ino = st->st_ino, .size = st->st_size, .mode = st->st_mode,
                .uid = st->st_uid, .gid = st->st_gid, .mtim = st->st_mtim, .ctim = st->st_ctim,
        };
}

bool schedule_file_version_same(const ScheduleFileVersion *a, const ScheduleFileVersion *b) {
        return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mode == b->mode &&
               a->uid == b->uid && a->gid == b->gid &&
               a->mtim.tv_sec == b->mtim.tv_sec && a->mtim.tv_nsec == b->mtim.tv_nsec &&
               a->ctim.tv_sec == b->ctim.tv_sec && a->ctim.tv_nsec == b->ctim.tv_nsec;
}

typedef struct FileStamp {
        char *path;
        ScheduleFileVersion version;
        char ifname[IFNAMSIZ];
        uint32_t monitor_probes_per_s;
} FileStamp;

struct ScheduleDirStamps {
        FileStamp *items;            /* sorted by path */
        size_t n;
};

ScheduleDirStamps *schedule_dir_stamps_free(ScheduleDirStamps *s) {
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n; i++)
                free(s->items[i].path);
        free(s->items);
        free(s);
        return NULL;
}

static int cmp_stamp_path(const void *key, const void *item) {
        return strcmp(key, ((const FileStamp *) item)->path);
}

static const FileStamp *stamp_find(const ScheduleDirStamps *s, const char *path) {
        if (!s || s->n == 0)
                return NULL;
        return bsearch(path, s->items, s->n, sizeof(FileStamp), cmp_stamp_path);
}

/* A stamp is only worth keeping when the file had not been written for a
 * while before it was read: times have a granularity of a clock tick, so a
 * second write right after the first might leave them as they were
 * ("racy" files in git's terms). Such a file is simply read again. */
static unsigned stamp_quiet_sec = 2;

void schedule_dir_stamps_set_quiet(unsigned seconds) {
        stamp_quiet_sec = seconds;
}

bool schedule_file_version_trustworthy(const struct stat *st) {
        struct timespec now;

        if (stamp_quiet_sec == 0)
                return true;
        if (clock_gettime(CLOCK_REALTIME, &now) < 0)
                return false;
        return st->st_mtim.tv_sec + stamp_quiet_sec < now.tv_sec &&
               st->st_ctim.tv_sec + stamp_quiet_sec < now.tv_sec;
}

/* Load one file: name in the folder dfd (or a path with AT_FDCWD). With
 * stamps: a file whose stamp in old matches is not read (f->unchanged); a
 * valid file read now gets a stamp in *ret_stamp (ret_stamp->path stays
 * NULL when there is none to keep). A file refused as unsafe is not read at
 * all: it names no interface, so it takes part in nothing (not in the
 * duplicate-interface rule either). */
static int load_one(ScheduleFile *f, int dfd, const char *name,
                    const DeviceFacts *(*facts_for)(const char *ifname, void *userdata),
                    void *userdata, const ScheduleDirStamps *old, FileStamp *ret_stamp) {
        _cleanup_free_ char *text = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_close_ int fd = -1;
        const FileStamp *o = ret_stamp ? stamp_find(old, f->path) : NULL;
        struct stat lst, rst;
        bool have_lst = false;
        uint64_t total;
        size_t over_at;
        size_t len;
        int r;

        /* A file with a stamp to compare is stat()ed first: unchanged, it
         * is not opened at all. Other files are only opened (one call
         * less each, at every start and --once). With --allow-unsafe-files
         * the open follows symbolic links, so only an lstat() says what the
         * path itself is. */
        if (ret_stamp && (o || allow_unsafe_files))
                have_lst = fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) >= 0;
        if (o && have_lst && S_ISREG(lst.st_mode)) {
                ScheduleFileVersion v = schedule_file_version(&lst);

                if (schedule_file_version_same(&o->version, &v)) {
                        f->unchanged = true;
                        f->monitor_probes_per_s = o->monitor_probes_per_s;
                        memcpy(f->ifname, o->ifname, sizeof(f->ifname));
                        ret_stamp->path = strdup(f->path);
                        if (!ret_stamp->path)
                                return -ENOMEM;
                        ret_stamp->version = o->version;
                        ret_stamp->monitor_probes_per_s = o->monitor_probes_per_s;
                        memcpy(ret_stamp->ifname, o->ifname, sizeof(ret_stamp->ifname));
                        return 0;
                }
        }

        fd = open_schedule_file(f, dfd, name);
        if (fd < 0)
                return fd == -ENOMEM ? fd : 0;
        if (fstat(fd, &rst) < 0) {
                r = negative_errno();
                return diag_error(&f->diags, f->path, NULL, "cannot stat: %s", strerror(-r)) < 0 ? -ENOMEM : 0;
        }
        /* Refused before a byte of it is read. */
        r = check_safe(f, &rst);
        if (r < 0)
                return r == -ENOMEM ? r : 0;
        r = schedule_read_opened(fd, &rst, f->path, &f->diags, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;

        r = schedule_parse_json(f->path, text, len, &f->diags, &s);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                /* Invalid, but the interface it names may still be readable. */
                (void) schedule_peek_ifname(text, len, f->ifname);
                return 0;
        }
        snprintf(f->ifname, sizeof(f->ifname), "%s", s->ifname);
        r = schedule_verify(s, facts_for ? facts_for(s->ifname, userdata) : NULL, &f->diags);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        (void) schedule_monitor_over_budget(s, 0, &over_at, &total);
        f->monitor_probes_per_s = (uint32_t) total;
        f->schedule = TAKE_PTR(s);

        /* Stamped: a regular file (with an lstat(), the one it saw: not
         * swapped in between), valid without a single remark, and quiet for
         * a while. */
        if (ret_stamp && f->diags.n == 0 && schedule_file_version_trustworthy(&rst)) {
                ScheduleFileVersion got = schedule_file_version(&rst);

                if (have_lst) {
                        ScheduleFileVersion seen = schedule_file_version(&lst);

                        if (!schedule_file_version_same(&seen, &got))
                                return 0;
                }
                ret_stamp->path = strdup(f->path);
                if (!ret_stamp->path)
                        return -ENOMEM;
                ret_stamp->version = got;
                ret_stamp->monitor_probes_per_s = f->monitor_probes_per_s;
                memcpy(ret_stamp->ifname, f->ifname, sizeof(ret_stamp->ifname));
        }
        return 0;
}

static int cmp_by_ifname(const void *a, const void *b) {
        const ScheduleFile *x = *(ScheduleFile *const *) a, *y = *(ScheduleFile *const *) b;
        int c = strcmp(x->ifname, y->ifname);

        /* then by place in the folder (files are sorted by name), so each
         * file's errors name the others in folder order */
        return c != 0 ? c : (x < y ? -1 : x > y);
}

/* The start of refuse_duplicates()'s error. */
#define DUPLICATE_FORMAT "interface \"%s\" is configured by "

/* "(A, B, C)": the paths of the group's files, in folder order. Returns a
 * new string or NULL. */
static char *group_paths(ScheduleFile *const *group, size_t n) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        for (size_t i = 0; i < n; i++)
                fprintf(f, "%s%s", i ? ", " : "(", group[i]->path);
        fputc(')', f);
        if (fclose(f) != 0)
                return NULL;
        return TAKE_PTR(buf);
}

/* Every file naming an interface that another file names gets one error,
 * the same for each of them, naming all of them, and loses its schedule
 * (schedule_dir_repeats() lets a report print it once). Sorted by
 * interface, the files of one interface sit together: O(n log n) for
 * hundreds of files. */
static int refuse_duplicates(ScheduleDir *d) {
        _cleanup_free_ ScheduleFile **by_if = NULL;
        size_t m = 0;

        if (d->n < 2)
                return 0;
        by_if = calloc(d->n, sizeof(ScheduleFile *));
        if (!by_if)
                return -ENOMEM;
        for (size_t i = 0; i < d->n; i++)
                if (d->files[i].ifname[0])
                        by_if[m++] = &d->files[i];
        qsort(by_if, m, sizeof(ScheduleFile *), cmp_by_ifname);

        for (size_t g = 0, e; g < m; g = e) {
                _cleanup_free_ char *paths = NULL;

                for (e = g + 1; e < m && strcmp(by_if[e]->ifname, by_if[g]->ifname) == 0; e++)
                        ;
                if (e - g < 2)
                        continue;
                paths = group_paths(by_if + g, e - g);
                if (!paths)
                        return -ENOMEM;
                for (size_t i = g; i < e; i++) {
                        ScheduleFile *f = by_if[i];

                        if (diag_error(&f->diags, f->path, "interface",
                                       DUPLICATE_FORMAT "%zu files %s; each interface "
                                       "must have exactly one schedule file", f->ifname, e - g, paths) < 0)
                                return -ENOMEM;
                        schedule_free(f->schedule);
                        f->schedule = NULL;
                }
        }
        return 0;
}

/* The monitors of all the files within TBS_MONITOR_MAX_PROBES_PER_S. The
 * files read unchanged keep running as they are and are counted first;
 * then each other valid file in name order: one that would pass the
 * budget is refused at the monitor that passes it, and the next files
 * still get the room it leaves. */
static int refuse_over_monitor_budget(ScheduleDir *d) {
        uint64_t used = 0;

        for (size_t i = 0; i < d->n; i++)
                if (d->files[i].unchanged)
                        used += d->files[i].monitor_probes_per_s;
        for (size_t i = 0; i < d->n; i++) {
                ScheduleFile *f = &d->files[i];
                char path[64];
                size_t q;

                if (!f->schedule || !schedule_monitor_over_budget(f->schedule, used, &q, NULL)) {
                        if (f->schedule)
                                used += f->monitor_probes_per_s;
                        continue;
                }
                snprintf(path, sizeof(path), "txqueues[%zu].monitor", q);
                if (diag_error(&f->diags, f->path, path,
                               "the file's monitors send %" PRIu32 " probe frames a second; with the %" PRIu64
                               " of the other files' that is above tbsd's budget of %d for all monitors "
                               "(fewer frames, a longer interval_ms or fewer monitored queues)",
                               f->monitor_probes_per_s, used, TBS_MONITOR_MAX_PROBES_PER_S) < 0)
                        return -ENOMEM;
                schedule_free(f->schedule);
                f->schedule = NULL;
        }
        return 0;
}

/* Whether x is refuse_duplicates()'s error for the interface ifname. */
static bool is_duplicate_error(const Diag *x, const char *ifname) {
        char prefix[sizeof(DUPLICATE_FORMAT) + IFNAMSIZ];

        snprintf(prefix, sizeof(prefix), DUPLICATE_FORMAT, ifname);
        return x->severity == DIAG_ERROR && x->path && strcmp(x->path, "interface") == 0 &&
               strncmp(x->reason, prefix, strlen(prefix)) == 0;
}

bool schedule_dir_repeats(const ScheduleDir *d, size_t file, size_t diag) {
        const ScheduleFile *f = &d->files[file];
        const Diag *x = &f->diags.items[diag];

        if (!is_duplicate_error(x, f->ifname))
                return false;
        for (size_t i = 0; i < file; i++) {
                const ScheduleFile *o = &d->files[i];

                if (strcmp(o->ifname, f->ifname) != 0)
                        continue;
                for (size_t j = 0; j < o->diags.n; j++)
                        if (is_duplicate_error(&o->diags.items[j], f->ifname) &&
                            strcmp(o->diags.items[j].reason, x->reason) == 0)
                                return true;
        }
        return false;
}

static const char *bus_folder;

void schedule_dir_set_bus_folder(const char *dir) {
        bus_folder = dir;
}

static int cmp_stamps(const void *a, const void *b) {
        return strcmp(((const FileStamp *) a)->path, ((const FileStamp *) b)->path);
}

/* The folders a load reads: dir, then the bus folder when there is one
 * (a missing bus folder is an empty one). */
typedef struct LoadFolder {
        const char *dir;
        DIR *d;
        char **names;
        size_t n;
} LoadFolder;

static void load_folders_done(LoadFolder *v) {
        for (size_t k = 0; k < 2; k++) {
                if (v[k].d)
                        closedir(v[k].d);
                free_names(v[k].names, v[k].n);
                v[k] = (LoadFolder) {};
        }
}

static int load_folders_open(const char *dir, LoadFolder v[static 2], size_t *ret_total) {
        int r;

        v[0].dir = dir;
        v[1].dir = bus_folder && strcmp(bus_folder, dir) != 0 ? bus_folder : NULL;
        for (size_t k = 0; k < 2; k++) {
                if (!v[k].dir)
                        continue;
                r = open_folder(v[k].dir, NULL, &v[k].d);
                if (r == -ENOENT && k == 1)
                        continue;
                if (r < 0)
                        return r;
                r = list_names(v[k].d, &v[k].names, &v[k].n);
                if (r < 0)
                        return r;
        }
        *ret_total = v[0].n + v[1].n;
        return 0;
}

static int load_dir(const char *dir,
                    const DeviceFacts *(*facts_for)(const char *ifname, void *userdata),
                    void *userdata, ScheduleDirStamps **stamps, ScheduleDir *ret) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        LoadFolder folders[2] = {};
        ScheduleDirStamps *fresh = NULL;
        size_t n = 0;
        int r;

        r = load_folders_open(dir, folders, &n);
        if (r < 0)
                goto fail;
        if (stamps) {
                fresh = calloc(1, sizeof(ScheduleDirStamps));
                if (!fresh || (n > 0 && !(fresh->items = calloc(n, sizeof(FileStamp))))) {
                        free(fresh);
                        fresh = NULL;
                        r = -ENOMEM;
                        goto fail;
                }
        }
        if (n > 0) {
                d.files = calloc(n, sizeof(ScheduleFile));
                if (!d.files) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        for (size_t k = 0; k < 2; k++) {
                const LoadFolder *fo = &folders[k];
                size_t dlen = fo->dir ? strlen(fo->dir) : 0;
                bool slash = dlen > 0 && fo->dir[dlen - 1] == '/';

                for (size_t i = 0; i < fo->n; i++) {
                        ScheduleFile *f = &d.files[d.n++];

                        if (asprintf(&f->path, "%s%s%s", fo->dir, slash ? "" : "/", fo->names[i]) < 0) {
                                f->path = NULL;
                                r = -ENOMEM;
                                goto fail;
                        }
                        /* fresh->items[j] belongs to file j until compacted below */
                        r = load_one(f, dirfd(fo->d), fo->names[i], facts_for, userdata,
                                     stamps ? *stamps : NULL, fresh ? &fresh->items[d.n - 1] : NULL);
                        if (r < 0)
                                goto fail;
                }
        }
        load_folders_done(folders);

        r = refuse_duplicates(&d);
        if (r >= 0)
                r = refuse_over_monitor_budget(&d);
        if (r < 0)
                goto fail;
        if (stamps) {
                /* Only files without errors keep a stamp (a duplicate is
                 * read again next time); sorted by path for stamp_find(). */
                for (size_t i = 0; i < d.n; i++) {
                        FileStamp *st = &fresh->items[i];

                        if (!st->path)
                                continue;
                        if (diag_errors(&d.files[i].diags) > 0) {
                                d.files[i].unchanged = false;
                                st->path = mfree(st->path);
                                continue;
                        }
                        fresh->items[fresh->n++] = *st;
                        if (fresh->n - 1 != i)
                                *st = (FileStamp) {};
                }
                if (fresh->n > 1)
                        qsort(fresh->items, fresh->n, sizeof(FileStamp), cmp_stamps);
                schedule_dir_stamps_free(*stamps);
                *stamps = fresh;
        }
        *ret = d;
        d = (ScheduleDir) {};
        return 0;

fail:
        load_folders_done(folders);
        if (fresh)
                fresh->n = d.n; /* every slot filled so far */
        schedule_dir_stamps_free(fresh);
        return r;
}

int schedule_dir_load(const char *dir,
                      const DeviceFacts *(*facts_for)(const char *ifname, void *userdata),
                      void *userdata, ScheduleDir *ret) {
        return load_dir(dir, facts_for, userdata, NULL, ret);
}

int schedule_dir_load_stamped(const char *dir, ScheduleDirStamps **stamps, ScheduleDir *ret) {
        if (!stamps)
                return -EINVAL;
        return load_dir(dir, NULL, NULL, stamps, ret);
}

int schedule_dir_load_file(ScheduleDir *d, size_t i) {
        ScheduleFile *f;

        if (!d || i >= d->n)
                return -EINVAL;
        f = &d->files[i];
        schedule_free(f->schedule);
        f->schedule = NULL;
        diag_list_clear(&f->diags);
        f->unchanged = false;
        return load_one(f, AT_FDCWD, f->path, NULL, NULL, NULL, NULL);
}

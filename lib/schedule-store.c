/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "schedule-dir.h"
#include "schedule-store.h"

/* Bigger than any document ApplySchedule() takes (1 MiB) and its origin. */
#define STORE_READ_MAX (2 * 1024 * 1024)
/* At most this many bytes of documents kept in a ScheduleStoreCache (the
 * daemon's memory); those past it are read from their files each time, as
 * without a cache. */
#define STORE_CACHE_MAX_BYTES (1024 * 1024)

char *schedule_store_dir(const char *state_dir) {
        char *p;

        if (asprintf(&p, "%s/" SCHEDULE_STORE_SUBDIR, state_dir) < 0)
                return NULL;
        return p;
}

/* The document's file name, "IFACE.json", but a leading '.' written as
 * "%2e": the loader skips names starting with '.', as hidden, and an
 * interface may be called ".hid". No interface name has a '%' (the kernel
 * turns "%d" into a number), so "%2eIFACE.json" is never another's. */
static char *doc_name(const char *ifname) {
        char *p;

        if (asprintf(&p, "%s%s.json", ifname[0] == '.' ? "%2e" : "", ifname + (ifname[0] == '.')) < 0)
                return NULL;
        return p;
}

/* The interface whose document the file name base (without ".json", n
 * bytes) is: doc_name() undone. */
static char *doc_ifname(const char *base, size_t n) {
        char *p;

        if (n > 3 && strncmp(base, "%2e", 3) == 0)
                return asprintf(&p, ".%.*s", (int) (n - 3), base + 3) < 0 ? NULL : p;
        return strndup(base, n);
}

char *schedule_store_path(const char *state_dir, const char *ifname) {
        _cleanup_free_ char *name = doc_name(ifname);
        char *p;

        if (!name || asprintf(&p, "%s/" SCHEDULE_STORE_SUBDIR "/%s", state_dir, name) < 0)
                return NULL;
        return p;
}

static char *origin_name(const char *ifname) {
        char *p;

        if (asprintf(&p, ".%s.origin", ifname) < 0)
                return NULL;
        return p;
}

bool schedule_store_holds(const char *state_dir, const char *path) {
        _cleanup_free_ char *dir = NULL;
        size_t n;

        if (!state_dir || !path || !(dir = schedule_store_dir(state_dir)))
                return false;
        n = strlen(dir);
        return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] && !strchr(path + n + 1, '/');
}

bool schedule_origin_valid(const char *origin, const char **ret_why) {
        size_t n = strlen(origin);

        if (n == 0) {
                *ret_why = "is empty";
                return false;
        }
        if (n > SCHEDULE_ORIGIN_MAX) {
                *ret_why = "is longer than 128 bytes";
                return false;
        }
        for (size_t i = 0; i < n; i++)
                if (origin[i] < 0x20 || origin[i] > 0x7e) {
                        *ret_why = "must be printable ASCII";
                        return false;
                }
        if (strcmp(origin, SCHEDULE_ORIGIN_FILE) == 0) {
                *ret_why = "\"" SCHEDULE_ORIGIN_FILE "\" names the schedules folder's files";
                return false;
        }
        return true;
}

/* The whole of the regular file name in dfd (not following a symbolic
 * link), NUL-terminated; ret_st (may be NULL): the fstat() of the file
 * read. */
static int read_at(int dfd, const char *name, char **ret, struct stat *ret_st) {
        _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t got = 0;

        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADF;
        if (st.st_size > STORE_READ_MAX)
                return -EFBIG;
        buf = malloc((size_t) st.st_size + 1);
        if (!buf)
                return -ENOMEM;
        while (got < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + got, (size_t) st.st_size - got);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                got += (size_t) k;
        }
        buf[got] = 0;
        *ret = TAKE_PTR(buf);
        if (ret_st)
                *ret_st = st;
        return 0;
}

/* The origin kept in name of dfd, one trailing newline dropped; when it
 * cannot be read or is not a valid origin, SCHEDULE_ORIGIN_UNKNOWN.
 * ret_st (may be NULL): the fstat() of the file read, st_nlink 0 when the
 * origin was not read from one. */
static int read_origin(int dfd, const char *name, char **ret, struct stat *ret_st) {
        _cleanup_free_ char *o = NULL;
        const char *why;
        size_t n;
        int r;

        if (ret_st)
                *ret_st = (struct stat) {};
        r = dfd < 0 ? dfd : read_at(dfd, name, &o, ret_st);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                n = strlen(o);
                if (n > 0 && o[n - 1] == '\n')
                        o[n - 1] = 0;
                if (schedule_origin_valid(o, &why)) {
                        *ret = TAKE_PTR(o);
                        return 0;
                }
                if (ret_st)
                        *ret_st = (struct stat) {};
        }
        *ret = strdup(SCHEDULE_ORIGIN_UNKNOWN);
        return *ret ? 0 : -ENOMEM;
}

int schedule_store_open(const char *state_dir, bool create) {
        _cleanup_free_ char *dir = schedule_store_dir(state_dir);
        int fd;

        if (!dir)
                return -ENOMEM;
        if (create) {
                if (mkdir(state_dir, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return -errno;
        }
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        return fd < 0 ? -errno : fd;
}

/* Write text as name in dfd: into ".name.new", synced, renamed over name. */
static int write_at(int dfd, const char *name, const char *text) {
        _cleanup_free_ char *tmp = NULL;
        size_t n = strlen(text), done = 0;
        int fd, r = 0;

        if (asprintf(&tmp, "%s%s.new", name[0] == '.' ? "" : ".", name) < 0)
                return -ENOMEM;
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        while (r == 0 && done < n) {
                ssize_t k = write(fd, text + done, n - done);

                if (k < 0 && errno != EINTR)
                        r = -errno;
                else if (k > 0)
                        done += (size_t) k;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
                r = -errno;
        if (r < 0)
                (void) unlinkat(dfd, tmp, 0);
        return r;
}

int schedule_store_write_at(int dfd, const char *ifname, const char *text, const char *origin) {
        _cleanup_free_ char *doc = doc_name(ifname), *org = origin_name(ifname);
        int r;

        if (!doc || !org)
                return -ENOMEM;
        /* The origin first: a crash between the two leaves the old document
         * with the new origin at worst, never a new document unnamed. */
        r = write_at(dfd, org, origin);
        if (r < 0)
                return r;
        return write_at(dfd, doc, text);
}

int schedule_store_sync(int dfd) {
        return fsync(dfd) < 0 ? -errno : 0;
}

int schedule_store_write(const char *state_dir, const char *ifname, const char *text, const char *origin) {
        _cleanup_close_ int dfd = schedule_store_open(state_dir, true);
        int r;

        if (dfd < 0)
                return dfd;
        r = schedule_store_write_at(dfd, ifname, text, origin);
        if (r < 0)
                return r;
        (void) schedule_store_sync(dfd);
        return 0;
}

int schedule_store_read_at(int dfd, const char *ifname, char **ret_text, char **ret_origin) {
        return schedule_store_read_cached(dfd, NULL, ifname, ret_text, ret_origin);
}

int schedule_store_read(const char *state_dir, const char *ifname, char **ret_text, char **ret_origin) {
        _cleanup_close_ int dfd = schedule_store_open(state_dir, false);

        if (dfd < 0)
                return dfd;
        return schedule_store_read_at(dfd, ifname, ret_text, ret_origin);
}

/* A document and its origin as read, with both files' versions. */
typedef struct CachedDoc {
        char *ifname;
        char *text;
        char *origin;
        ScheduleFileVersion doc, org;
} CachedDoc;

struct ScheduleStoreCache {
        CachedDoc *items;       /* sorted by ifname */
        size_t n;
        size_t bytes;           /* of the texts, at most STORE_CACHE_MAX_BYTES */
};

static void cached_doc_done(CachedDoc *c) {
        free(c->ifname);
        free(c->text);
        free(c->origin);
}

ScheduleStoreCache *schedule_store_cache_free(ScheduleStoreCache *c) {
        if (!c)
                return NULL;
        for (size_t i = 0; i < c->n; i++)
                cached_doc_done(&c->items[i]);
        free(c->items);
        free(c);
        return NULL;
}

/* Where ifname is or would go in c's items. */
static size_t cache_place(const ScheduleStoreCache *c, const char *ifname, bool *ret_found) {
        size_t lo = 0, hi = c ? c->n : 0;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                int k = strcmp(c->items[mid].ifname, ifname);

                if (k == 0) {
                        *ret_found = true;
                        return mid;
                }
                if (k < 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        *ret_found = false;
        return lo;
}

static void cache_forget(ScheduleStoreCache *c, size_t i) {
        c->bytes -= strlen(c->items[i].text);
        cached_doc_done(&c->items[i]);
        memmove(c->items + i, c->items + i + 1, (c->n - i - 1) * sizeof(*c->items));
        c->n--;
}

/* Whether name in dfd is still the version v (not following a symbolic link). */
static bool still(int dfd, const char *name, const ScheduleFileVersion *v) {
        struct stat st;
        ScheduleFileVersion now;

        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                return false;
        now = schedule_file_version(&st);
        return schedule_file_version_same(&now, v);
}

/* Keep a copy of what was read, when the cache has room. -ENOMEM only. */
static int cache_keep(ScheduleStoreCache **cache, const char *ifname, const char *text, const char *origin,
                      const struct stat *doc, const struct stat *org) {
        ScheduleStoreCache *c = *cache;
        size_t k = strlen(text), i;
        CachedDoc d = {};
        bool found;

        if (!c) {
                c = *cache = calloc(1, sizeof(*c));
                if (!c)
                        return -ENOMEM;
        }
        if (c->bytes + k > STORE_CACHE_MAX_BYTES)
                return 0;
        i = cache_place(c, ifname, &found);
        if (found)
                return 0;
        d = (CachedDoc) { .ifname = strdup(ifname), .text = strdup(text), .origin = strdup(origin),
                          .doc = schedule_file_version(doc), .org = schedule_file_version(org) };
        if (!d.ifname || !d.text || !d.origin) {
                cached_doc_done(&d);
                return -ENOMEM;
        }
        if (c->n % 16 == 0) {
                CachedDoc *v = reallocarray(c->items, c->n + 16, sizeof(*v));
                if (!v) {
                        cached_doc_done(&d);
                        return -ENOMEM;
                }
                c->items = v;
        }
        memmove(c->items + i + 1, c->items + i, (c->n - i) * sizeof(*c->items));
        c->items[i] = d;
        c->n++;
        c->bytes += k;
        return 0;
}

int schedule_store_read_cached(int dfd, ScheduleStoreCache **cache, const char *ifname, char **ret_text,
                               char **ret_origin) {
        _cleanup_free_ char *doc = doc_name(ifname), *org = origin_name(ifname), *text = NULL, *origin = NULL;
        struct stat dst, ost;
        size_t i = 0;
        bool found = false;
        int r;

        if (!doc || !org)
                return -ENOMEM;
        if (cache && *cache) {
                i = cache_place(*cache, ifname, &found);
                if (found) {
                        CachedDoc *c = &(*cache)->items[i];

                        /* Both files as they were read: the copy is theirs. */
                        if (still(dfd, doc, &c->doc) && still(dfd, org, &c->org)) {
                                if (ret_text && !(*ret_text = strdup(c->text)))
                                        return -ENOMEM;
                                if (ret_origin && !(*ret_origin = strdup(c->origin))) {
                                        if (ret_text)
                                                *ret_text = mfree(*ret_text);
                                        return -ENOMEM;
                                }
                                return 0;
                        }
                        cache_forget(*cache, i);
                }
        }
        r = read_at(dfd, doc, &text, &dst);
        if (r < 0)
                return r;
        r = read_origin(dfd, org, &origin, &ost);
        if (r < 0)
                return r;
        /* Kept as schedule-dir.c stamps a file: both files quiet for a while
         * before they were read (and the origin read from its file). */
        if (cache && ost.st_nlink > 0 && schedule_file_version_trustworthy(&dst) &&
            schedule_file_version_trustworthy(&ost)) {
                r = cache_keep(cache, ifname, text, origin, &dst, &ost);
                if (r < 0)
                        return r;
        }
        if (ret_origin)
                *ret_origin = TAKE_PTR(origin);
        if (ret_text)
                *ret_text = TAKE_PTR(text);
        return 0;
}

void schedule_store_cache_prune(ScheduleStoreCache *c, char *const *names) {
        size_t i = 0, k = 0;

        if (!c)
                return;
        /* Both sorted by name (schedule_store_list()'s). */
        while (i < c->n) {
                int cmp = 1;

                while (names && names[k] && (cmp = strcmp(names[k], c->items[i].ifname)) < 0)
                        k++;
                if (names && names[k] && cmp == 0)
                        i++;
                else
                        cache_forget(c, i);
        }
}

int schedule_store_origin(const char *state_dir, const char *path, char **ret) {
        const char *base;
        char *o = NULL;
        size_t n;

        if (!schedule_store_holds(state_dir, path)) {
                o = strdup(SCHEDULE_ORIGIN_FILE);
                goto done;
        }
        base = strrchr(path, '/') + 1;
        n = strlen(base);
        if (n > strlen(".json") && strcmp(base + n - strlen(".json"), ".json") == 0) {
                _cleanup_free_ char *ifname = doc_ifname(base, n - strlen(".json")), *name = NULL;
                _cleanup_close_ int dfd = -1;

                if (!ifname || !(name = origin_name(ifname)))
                        return -ENOMEM;
                dfd = schedule_store_open(state_dir, false);
                return read_origin(dfd, name, ret, NULL);
        }
        o = strdup(SCHEDULE_ORIGIN_UNKNOWN);
done:
        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}

int schedule_store_drop_at(int dfd, const char *ifname) {
        _cleanup_free_ char *doc = doc_name(ifname), *org = origin_name(ifname);
        int r = 1;

        if (!doc || !org)
                return -ENOMEM;
        if (unlinkat(dfd, doc, 0) < 0) {
                if (errno != ENOENT)
                        return -errno;
                r = 0;
        }
        if (unlinkat(dfd, org, 0) < 0 && errno != ENOENT)
                return -errno;
        return r;
}

int schedule_store_drop(const char *state_dir, const char *ifname) {
        _cleanup_close_ int dfd = schedule_store_open(state_dir, false);
        int r;

        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        r = schedule_store_drop_at(dfd, ifname);
        if (r < 0)
                return r;
        (void) schedule_store_sync(dfd);
        return r;
}

void schedule_store_list_free(char **names) {
        for (char **p = names; p && *p; p++)
                free(*p);
        free(names);
}

static int compare_names(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int schedule_store_list(const char *state_dir, char ***ret, size_t *ret_n) {
        _cleanup_close_ int dfd = schedule_store_open(state_dir, false);
        char **names = NULL;
        size_t n = 0;
        DIR *d;
        int r = 0;

        if (dfd == -ENOENT)
                goto done;
        if (dfd < 0)
                return dfd;
        d = fdopendir(dfd);
        if (!d)
                return -errno;
        dfd = -1; /* the DIR owns it now */
        for (struct dirent *de; (errno = 0, de = readdir(d));) {
                size_t k = strlen(de->d_name);
                char **v;

                if (de->d_name[0] == '.' || k <= strlen(".json") ||
                    strcmp(de->d_name + k - strlen(".json"), ".json") != 0 ||
                    (de->d_type != DT_REG && de->d_type != DT_UNKNOWN))
                        continue;
                v = reallocarray(names, n + 2, sizeof(*names));
                if (!v) {
                        r = -ENOMEM;
                        break;
                }
                names = v;
                names[n] = doc_ifname(de->d_name, k - strlen(".json"));   /* "%2ehid" is ".hid"'s */
                if (!names[n]) {
                        r = -ENOMEM;
                        break;
                }
                names[++n] = NULL;
        }
        if (r == 0 && errno != 0)
                r = -errno;
        closedir(d);
        if (r < 0) {
                schedule_store_list_free(names);
                return r;
        }
done:
        if (!names && !(names = calloc(1, sizeof(*names))))
                return -ENOMEM;
        qsort(names, n, sizeof(*names), compare_names);
        *ret = names;
        if (ret_n)
                *ret_n = n;
        return 0;
}

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
#include "schedule-store.h"

/* Bigger than any document ApplySchedule() takes (1 MiB) and its origin. */
#define STORE_READ_MAX (2 * 1024 * 1024)

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
 * link), NUL-terminated. */
static int read_at(int dfd, const char *name, char **ret) {
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
        return 0;
}

/* The origin kept in name of dfd, one trailing newline dropped; when it
 * cannot be read or is not a valid origin, SCHEDULE_ORIGIN_UNKNOWN. */
static int read_origin(int dfd, const char *name, char **ret) {
        _cleanup_free_ char *o = NULL;
        const char *why;
        size_t n;
        int r;

        r = dfd < 0 ? dfd : read_at(dfd, name, &o);
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
        }
        *ret = strdup(SCHEDULE_ORIGIN_UNKNOWN);
        return *ret ? 0 : -ENOMEM;
}

static int open_store(const char *state_dir, bool create) {
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

/* IFACE's two names in the store (doc_name(), ".IFACE.origin") and the
 * store opened (created with create). Returns the folder's descriptor or
 * -errno (-ENOENT: no store). */
static int store_open_names(const char *state_dir, const char *ifname, bool create, char **ret_doc,
                            char **ret_origin) {
        *ret_doc = NULL;
        if (!(*ret_origin = origin_name(ifname)) || !(*ret_doc = doc_name(ifname)))
                return -ENOMEM;
        return open_store(state_dir, create);
}

int schedule_store_write(const char *state_dir, const char *ifname, const char *text, const char *origin) {
        _cleanup_free_ char *doc = NULL, *org = NULL;
        _cleanup_close_ int dfd = store_open_names(state_dir, ifname, true, &doc, &org);
        int r;

        if (dfd < 0)
                return dfd;
        /* The origin first: a crash between the two leaves the old document
         * with the new origin at worst, never a new document unnamed. */
        r = write_at(dfd, org, origin);
        if (r < 0)
                return r;
        r = write_at(dfd, doc, text);
        if (r < 0)
                return r;
        (void) fsync(dfd);
        return 0;
}

int schedule_store_read(const char *state_dir, const char *ifname, char **ret_text, char **ret_origin) {
        _cleanup_free_ char *doc = NULL, *org = NULL, *text = NULL, *origin = NULL;
        _cleanup_close_ int dfd = store_open_names(state_dir, ifname, false, &doc, &org);
        int r;

        if (dfd < 0)
                return dfd;
        r = read_at(dfd, doc, &text);
        if (r < 0)
                return r;
        if (ret_origin) {
                r = read_origin(dfd, org, &origin);
                if (r < 0)
                        return r;
                *ret_origin = TAKE_PTR(origin);
        }
        if (ret_text)
                *ret_text = TAKE_PTR(text);
        return 0;
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
                dfd = open_store(state_dir, false);
                return read_origin(dfd, name, ret);
        }
        o = strdup(SCHEDULE_ORIGIN_UNKNOWN);
done:
        if (!o)
                return -ENOMEM;
        *ret = o;
        return 0;
}

int schedule_store_drop(const char *state_dir, const char *ifname) {
        _cleanup_free_ char *doc = NULL, *org = NULL;
        _cleanup_close_ int dfd = store_open_names(state_dir, ifname, false, &doc, &org);
        int r = 1;

        if (dfd == -ENOENT)
                return 0;
        if (dfd < 0)
                return dfd;
        if (unlinkat(dfd, doc, 0) < 0) {
                if (errno != ENOENT)
                        return -errno;
                r = 0;
        }
        if (unlinkat(dfd, org, 0) < 0 && errno != ENOENT)
                return -errno;
        (void) fsync(dfd);
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
        _cleanup_close_ int dfd = open_store(state_dir, false);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* main() of the replay build of a fuzz target: every argument is a file,
 * or a folder whose regular files (not recursively) are each one input;
 * each input goes through LLVMFuzzerTestOneInput() once, from a buffer of
 * exactly its size (so ASan/valgrind see reads past the end). A crash or a
 * broken invariant aborts; an unreadable argument fails the run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "macro.h"

static int run_file(int dirfd, const char *name, const char *display) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ uint8_t *buf = NULL;
        struct stat st;
        size_t got = 0;

        fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0) {
                fprintf(stderr, "%s: %m\n", display);
                return -errno;
        }
        /* malloc(0) may return NULL; keep a real (empty) buffer. */
        buf = malloc(st.st_size > 0 ? (size_t) st.st_size : 1);
        if (!buf)
                return -ENOMEM;
        while (got < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t) st.st_size - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        fprintf(stderr, "%s: short read\n", display);
                        return -EIO;
                }
                got += (size_t) n;
        }
        (void) LLVMFuzzerTestOneInput(buf, got);
        return 0;
}

static int run_arg(const char *arg, unsigned *count) {
        struct stat st;
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (stat(arg, &st) < 0) {
                fprintf(stderr, "%s: %m\n", arg);
                return -errno;
        }
        if (!S_ISDIR(st.st_mode)) {
                r = run_file(AT_FDCWD, arg, arg);
                if (r >= 0)
                        (*count)++;
                return r;
        }
        d = opendir(arg);
        if (!d) {
                fprintf(stderr, "%s: %m\n", arg);
                return -errno;
        }
        while ((de = readdir(d))) {
                char display[4096];
                struct stat fst;

                if (de->d_name[0] == '.')
                        continue;
                if (fstatat(dirfd(d), de->d_name, &fst, 0) < 0 || !S_ISREG(fst.st_mode))
                        continue;
                snprintf(display, sizeof(display), "%s/%s", arg, de->d_name);
                r = run_file(dirfd(d), de->d_name, display);
                if (r < 0)
                        break;
                (*count)++;
        }
        closedir(d);
        return r;
}

int main(int argc, char *argv[]) {
        unsigned count = 0;

        if (argc < 2) {
                fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
                return 2;
        }
        for (int i = 1; i < argc; i++)
                if (run_arg(argv[i], &count) < 0)
                        return 1;
        if (count == 0) {
                fprintf(stderr, "no input files\n");
                return 1;
        }
        printf("%u inputs replayed, no crash\n", count);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a schedule file safely into memory (size limit, a file that
 * changes while read), and loading it: read, then schedule_parse_json(). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "schedule-parse.h"

int schedule_read_file(const char *path, const char *display_name, DiagList *diags,
                       char **ret_text, size_t *ret_len) {
        _cleanup_close_ int fd = -1;
        const char *name = display_name ?: path;

        /* O_NONBLOCK: a FIFO put in the folder must not hang us (it is
         * refused as not a regular file). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                int r = negative_errno();

                return diag_error(diags, name, NULL, "cannot open: %s", strerror(-r)) < 0 ? -ENOMEM : r;
        }
        return schedule_read_fd(fd, name, diags, ret_text, ret_len, NULL);
}

int schedule_read_fd(int fd, const char *name, DiagList *diags, char **ret_text, size_t *ret_len,
                     struct stat *ret_stat) {
        struct stat st;
        int r;

        if (fstat(fd, &st) < 0) {
                r = negative_errno();
                return diag_error(diags, name, NULL, "cannot stat: %s", strerror(-r)) < 0 ? -ENOMEM : r;
        }
        r = schedule_read_opened(fd, &st, name, diags, ret_text, ret_len);
        if (r >= 0 && ret_stat)
                *ret_stat = st;
        return r;
}

int schedule_read_opened(int fd, const struct stat *stp, const char *name, DiagList *diags, char **ret_text,
                         size_t *ret_len) {
        _cleanup_free_ char *buf = NULL;
        const struct stat st = *stp;
        size_t n = 0, want;

        if (!S_ISREG(st.st_mode))
                return diag_error(diags, name, NULL, "not a regular file") < 0 ? -ENOMEM : -EINVAL;
        if (st.st_size > (off_t) SCHEDULE_FILE_MAX)
                goto too_large;

        /* Ask for one byte more than fstat() said: a file that grew since
         * fills the request; a short read is the end of the file (the
         * fstat() below catches any other change). */
        want = (size_t) st.st_size + 1;
        buf = malloc(want + 1);
        if (!buf)
                return -ENOMEM;
        while (n < want) {
                ssize_t k = read(fd, buf + n, want - n);

                if (k < 0) {
                        int r = negative_errno();

                        if (r == -EINTR)
                                continue;
                        return diag_error(diags, name, NULL, "cannot read: %s", strerror(-r)) < 0 ? -ENOMEM : r;
                }
                n += (size_t) k;
                if ((size_t) k < want - (n - (size_t) k))
                        break;
        }
        if (n > SCHEDULE_FILE_MAX)
                goto too_large;
        /* A writer that is not done yet would give us half a file: refuse
         * it rather than act on it; the next reload reads it whole. */
        {
                struct stat after;

                if (fstat(fd, &after) < 0 || after.st_size != st.st_size ||
                    after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec ||
                    after.st_ctim.tv_sec != st.st_ctim.tv_sec || after.st_ctim.tv_nsec != st.st_ctim.tv_nsec ||
                    (off_t) n != st.st_size)
                        return diag_error(diags, name, NULL, "the file changed while it was read; not used") < 0 ?
                               -ENOMEM : -EAGAIN;
        }
        buf[n] = 0;
        *ret_text = TAKE_PTR(buf);
        *ret_len = n;
        return 0;

too_large:
        return diag_error(diags, name, NULL, "the file is larger than %u bytes; refusing to read it",
                          SCHEDULE_FILE_MAX) < 0 ? -ENOMEM : -EFBIG;
}

int schedule_load_file(const char *path, const char *display_name, DiagList *diags,
                       Schedule **ret) {
        _cleanup_free_ char *text = NULL;
        size_t len;
        int r;

        r = schedule_read_file(path, display_name, diags, &text, &len);
        if (r < 0)
                return r;
        return schedule_parse_json(display_name ?: path, text, len, diags, ret);
}

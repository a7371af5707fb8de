/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl import IFACE [-o FILE [--force]]: the schedule file that declares
 * the qdisc tree IFACE has now. A read-only RTM_GETQDISC dump needs no
 * privilege and no daemon, so tbsctl takes it itself, through the daemon's
 * own transport and dump parser (daemon/qdisc/qdisc-dump.c, linked as tbs-qdisc),
 * and turns the tree into the file with daemon/qdisc/qdisc-import.c. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "link-name.h"
#include "log.h"
#include "qdisc-dump.h"
#include "qdisc-import.h"
#include "utf8.h"
#include "verbs.h"

static int write_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);

                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += w;
                n -= (size_t) w;
        }
        return 0;
}

/* Write text to path atomically: a temporary file beside it, then renamed
 * over it (force) or renamed with RENAME_NOREPLACE (or linked), which fails
 * when path exists, so an existing file is never replaced without --force,
 * not even by a race.
 * Returns 0 or -errno (-EEXIST: path exists). */
static int write_file_atomic(const char *path, const char *text, bool force) {
        _cleanup_free_ char *tmp = NULL, *dir_copy = NULL;
        _cleanup_close_ int fd = -EBADF;
        int k;

        dir_copy = strdup(path);
        if (!dir_copy || asprintf(&tmp, "%s/.tbsctl-import.XXXXXX", dirname(dir_copy)) < 0) {
                tmp = NULL;
                return -ENOMEM;
        }
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        k = write_all(fd, text, strlen(text));
        if (k >= 0 && fchmod(fd, 0644) < 0)
                k = -errno;
        if (k >= 0 && fsync(fd) < 0)
                k = -errno;
        if (k >= 0) {
                if (force)
                        k = rename(tmp, path) < 0 ? -errno : 0;
                else {
                        k = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0 ? -errno : 0;
                        if (k == -EINVAL || k == -ENOSYS) {
                                /* a file system without RENAME_NOREPLACE: link() also fails on an existing path */
                                k = link(tmp, path) < 0 ? -errno : 0;
                                (void) unlink(tmp);
                                return k;
                        }
                }
        }
        if (k < 0)
                (void) unlink(tmp);
        return k;
}

int verb_import(int argc, char *argv[]) {
        _cleanup_nl_qdisc_ NlQdisc *nl = NULL;
        _cleanup_free_ char *text = NULL, *reason = NULL, *esc = NULL, *fesc = NULL;
        QDiscTree tree = {};
        const char *name = text_safe(argv[0], &esc), *default_kind;
        char kb[IFNAMSIZ];
        int ifindex, k;

        ifindex = link_name_lookup(argv[0], NULL);
        if (ifindex == -ENODEV || ifindex == -EINVAL) {
                log_error("%s: no such interface", name);
                return TBSCTL_EXIT_FAILED;
        }
        if (ifindex < 0) {
                log_error_errno(ifindex, "%s: looking the interface up: %m", name);
                return TBSCTL_EXIT_FAILED;
        }
        if (arg_output && !arg_force && access(arg_output, F_OK) >= 0) {
                log_error("%s: exists; use --force to replace it", text_safe(arg_output, &fesc));
                return TBSCTL_EXIT_FAILED;
        }

        k = nl_qdisc_new(&nl);
        if (k >= 0)
                k = nl_qdisc_dump(nl, ifindex, &tree);
        if (k < 0) {
                log_error("%s: cannot read the qdiscs: %s", name,
                          k == -EAGAIN ? "the kernel's dump left the interface out; try again" : strerror(-k));
                return TBSCTL_EXIT_FAILED;
        }
        default_kind = qdisc_system_default_kind(kb);
        k = qdisc_tree_import(&tree, argv[0], default_kind, &text, &reason);
        qdisc_tree_done(&tree);
        if (k == -EOPNOTSUPP) {
                _cleanup_free_ char *rb = NULL;

                log_error("%s: cannot import: %s", name, text_safe(reason, &rb));
                return TBSCTL_EXIT_FAILED;
        }
        if (k < 0) {
                log_error("%s: cannot import: %s", name, strerror(-k));
                return TBSCTL_EXIT_FAILED;
        }

        if (!arg_output) {
                fputs(text, stdout);
                return fflush(stdout) == 0 ? TBSCTL_EXIT_OK : TBSCTL_EXIT_FAILED;
        }
        k = write_file_atomic(arg_output, text, arg_force);
        if (k < 0) {
                log_error("%s: %s", text_safe(arg_output, &fesc),
                          k == -EEXIST ? "exists; use --force to replace it" : strerror(-k));
                return TBSCTL_EXIT_FAILED;
        }
        return TBSCTL_EXIT_OK;
}

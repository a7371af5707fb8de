/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log-journal.h"
#include "macro.h"

bool journal_stream_is(int fd, const char *journal_stream) {
        unsigned long long dev, ino;
        struct stat st;
        int consumed = 0;

        if (!journal_stream)
                return false;
        if (sscanf(journal_stream, "%llu:%llu%n", &dev, &ino, &consumed) != 2 ||
            journal_stream[consumed] != '\0')
                return false;
        if (fstat(fd, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

int journal_encode(const JournalField *fields, size_t n, char **ret_buf, size_t *ret_size) {
        size_t size = 0, off = 0;
        char *buf;

        if (!fields || n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (!fields[i].name || !fields[i].value)
                        return -EINVAL;
                /* name, '=' or '\n' + 8 length bytes, value, '\n' */
                size += strlen(fields[i].name) + 1 + 8 + strlen(fields[i].value) + 1;
        }
        buf = malloc(size);
        if (!buf)
                return -ENOMEM;

        for (size_t i = 0; i < n; i++) {
                size_t nl = strlen(fields[i].name), vl = strlen(fields[i].value);

                memcpy(buf + off, fields[i].name, nl);
                off += nl;
                if (memchr(fields[i].value, '\n', vl)) {
                        uint64_t le = vl;

                        buf[off++] = '\n';
                        for (int b = 0; b < 8; b++)
                                buf[off++] = (char) ((le >> (8 * b)) & 0xff);
                } else
                        buf[off++] = '=';
                memcpy(buf + off, fields[i].value, vl);
                off += vl;
                buf[off++] = '\n';
        }
        *ret_buf = buf;
        *ret_size = off;
        return 0;
}

int journal_send(const char *path, const JournalField *fields, size_t n) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -1;
        size_t size;
        int r;

        if (!path)
                path = JOURNAL_SOCKET_DEFAULT;
        if (strlen(path) >= sizeof(sa.sun_path))
                return -EINVAL;
        strcpy(sa.sun_path, path);

        r = journal_encode(fields, n, &buf, &size);
        if (r < 0)
                return r;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return negative_errno();
        if (sendto(fd, buf, size, MSG_NOSIGNAL, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return negative_errno();
        return 0;
}

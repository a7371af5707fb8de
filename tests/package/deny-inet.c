/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD module for the package-syscalls test: socket() refuses AF_INET
 * and AF_INET6 with EAFNOSUPPORT, what the unit's
 * RestrictAddressFamilies=AF_UNIX AF_NETLINK makes the kernel answer, so the
 * test sees tbsd work without them. Other families go to the kernel. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int socket(int domain, int type, int protocol);

int socket(int domain, int type, int protocol) {
        if (domain == AF_INET || domain == AF_INET6) {
                errno = EAFNOSUPPORT;
                return -1;
        }
        return (int) syscall(SYS_socket, domain, type, protocol);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LD_PRELOAD module for the package-syscalls test: socket() refuses every
 * family that $TBS_ALLOWED_FAMILIES (the unit's RestrictAddressFamilies=
 * list, "AF_UNIX AF_NETLINK ...") leaves out, with EAFNOSUPPORT, what the
 * kernel answers under that setting; so the test sees tbsd work with only
 * the families the unit gives it. Without the variable nothing is refused. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int socket(int domain, int type, int protocol);

static const struct {
        const char *name;
        int family;
} families[] = {
        { "AF_UNIX", AF_UNIX },
        { "AF_INET", AF_INET },
        { "AF_INET6", AF_INET6 },
        { "AF_NETLINK", AF_NETLINK },
        { "AF_PACKET", AF_PACKET },
};

static bool allowed(int domain) {
        const char *list = getenv("TBS_ALLOWED_FAMILIES");

        if (!list)
                return true;
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
                size_t n = strlen(families[i].name);

                if (families[i].family != domain)
                        continue;
                for (const char *p = strstr(list, families[i].name); p; p = strstr(p + 1, families[i].name))
                        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
                                return true;
        }
        return false;
}

int socket(int domain, int type, int protocol) {
        if (!allowed(domain)) {
                errno = EAFNOSUPPORT;
                return -1;
        }
        return (int) syscall(SYS_socket, domain, type, protocol);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "socket-guard.h"

int socket_guard_mark(int ifindex, uint32_t priority, uint32_t *ret) {
        if (ifindex <= 0 || ifindex > SOCKET_GUARD_IFINDEX_MAX || priority >= SOCKET_GUARD_PRIORITIES)
                return -ERANGE;
        *ret = (SOCKET_GUARD_MARK_TAG << SOCKET_GUARD_MARK_SHIFT) | ((uint32_t) ifindex << 4) | priority;
        return 0;
}

bool socket_guard_mark_is_tbsd(uint32_t mark) {
        return mark >> SOCKET_GUARD_MARK_SHIFT == SOCKET_GUARD_MARK_TAG;
}

int socket_guard_plan(int ifindex, SocketGuardFilter ret[static SOCKET_GUARD_FILTERS]) {
        for (uint32_t p = 0; p < SOCKET_GUARD_PRIORITIES; p++) {
                uint32_t mark;
                int r = socket_guard_mark(ifindex, p, &mark);

                if (r < 0)
                        return r;
                ret[p] = (SocketGuardFilter) {
                        .pref = (uint16_t) (SOCKET_GUARD_PREF_FIRST + p),
                        .value = mark,
                        .action = SOCKET_GUARD_PIN,
                        .priority = p,
                };
        }
        /* After this interface's marks: any other mark of tbsd's range. */
        ret[SOCKET_GUARD_PRIORITIES] = (SocketGuardFilter) {
                .pref = SOCKET_GUARD_PREF_FIRST + SOCKET_GUARD_PRIORITIES,
                .shift = SOCKET_GUARD_MARK_SHIFT,
                .value = SOCKET_GUARD_MARK_TAG,
                .action = SOCKET_GUARD_DROP,
        };
        return 0;
}

int socket_guard_verdict(const SocketGuardFilter plan[static SOCKET_GUARD_FILTERS], uint32_t mark,
                         uint32_t *ret_priority) {
        /* The plan is in preference order already. */
        for (unsigned i = 0; i < SOCKET_GUARD_FILTERS; i++) {
                const SocketGuardFilter *f = &plan[i];

                if (mark >> f->shift != f->value)
                        continue;
                if (f->action == SOCKET_GUARD_DROP)
                        return -1;
                if (ret_priority)
                        *ret_priority = f->priority;
                return 1;
        }
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "qdisc-kind.h"
#include "schedule-rights.h"
#include "string-table.h"

static const char *const schedule_right_table[_SCHEDULE_RIGHT_MAX] = {
        [SCHEDULE_RIGHT_ALLOW] = "allow",
        [SCHEDULE_RIGHT_SOCKETS] = "sockets",
        [SCHEDULE_RIGHT_SKIP_SOCK_CHECK] = "skip_sock_check",
};

DEFINE_STRING_TABLE_TO_STRING(schedule_right, ScheduleRight, schedule_right_table)
DEFINE_STRING_TABLE_FROM_STRING(schedule_right, ScheduleRight, schedule_right_table, _SCHEDULE_RIGHT_INVALID)

static const char *const schedule_right_reason_table[_SCHEDULE_RIGHT_MAX] = {
        [SCHEDULE_RIGHT_ALLOW] = "it switches off safety checks that keep ptp4l's traffic and the CPU safe",
        [SCHEDULE_RIGHT_SOCKETS] = "it gives a group launch-time sockets from tbsd",
        [SCHEDULE_RIGHT_SKIP_SOCK_CHECK] =
                "outside a taprio root in txtime-assist mode it lets the etf take launch times from any "
                "local socket, not only from tbsd's and CAP_NET_ADMIN's",
};

const char *schedule_right_reason(ScheduleRight r) {
        return string_table_lookup(schedule_right_reason_table, ELEMENTSOF(schedule_right_reason_table), (int) r);
}

int schedule_rights_parse(const char *list, uint32_t *ret, const char **ret_bad, size_t *ret_bad_len) {
        uint32_t mask = 0;

        for (const char *p = list; *p;) {
                size_t n = strcspn(p, ",");
                char name[32];
                ScheduleRight r = _SCHEDULE_RIGHT_INVALID;

                if (n > 0 && n < sizeof(name)) {
                        memcpy(name, p, n);
                        name[n] = 0;
                        r = schedule_right_from_string(name);
                }
                if (r < 0 || (mask & (1U << r))) {
                        if (ret_bad)
                                *ret_bad = p;
                        if (ret_bad_len)
                                *ret_bad_len = n;
                        return -EINVAL;
                }
                mask |= 1U << r;
                p += n;
                if (*p == ',' && *++p == 0) {   /* a trailing comma: an empty name */
                        if (ret_bad)
                                *ret_bad = p;
                        if (ret_bad_len)
                                *ret_bad_len = 0;
                        return -EINVAL;
                }
        }
        *ret = mask;
        return 0;
}

/* Note that right r is used at path, unless an earlier key used it
 * already. */
static void used(uint32_t *mask, char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX], ScheduleRight r,
                 const char *path) {
        if (*mask & (1U << r))
                return;
        *mask |= 1U << r;
        if (where)
                snprintf(where[r], SCHEDULE_RIGHT_PATH_MAX, "%s", path);
}

/* An etf's skip_sock_check: a queue's etf, or the etf under its cbs
 * ("child"); prefix "root" or "txqueues[N]". */
static void note_skip(uint32_t *mask, char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX], const EtfSpec *e,
                      const char *prefix) {
        const EtfOptions *etf = etf_spec_etf(e);
        char path[SCHEDULE_RIGHT_PATH_MAX];

        if (!etf || !etf->skip_sock_check)
                return;
        snprintf(path, sizeof(path), "%s.%sskip_sock_check", prefix, qdisc_vtable_for_child(e->kind)->takes_etf_child ? "child." : "");
        used(mask, where, SCHEDULE_RIGHT_SKIP_SOCK_CHECK, path);
}

uint32_t schedule_rights_used(const Schedule *s, char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX]) {
        /* In txtime-assist mode taprio stamps every frame of a socket
         * without SO_TXTIME itself, and its etfs need skip_sock_check to let
         * those (ptp4l's among them) through: there the key gives nobody a
         * launch time of their own choosing beyond their gate. */
        bool assist = root_stamps_txtime(&s->root);
        uint32_t mask = 0;

        if (s->allow)
                used(&mask, where, SCHEDULE_RIGHT_ALLOW, "allow");
        if (s->sockets.group || s->sockets.n_ethertypes > 0)
                used(&mask, where, SCHEDULE_RIGHT_SOCKETS, "sockets");
        if (root_is_leaf(&s->root))
                note_skip(&mask, where, &s->root.leaf, "root");
        for (size_t i = 0; !assist && i < s->n_txqueues; i++) {
                char prefix[32];

                snprintf(prefix, sizeof(prefix), "txqueues[%zu]", i);
                note_skip(&mask, where, &s->txqueues[i], prefix);
        }
        return mask;
}

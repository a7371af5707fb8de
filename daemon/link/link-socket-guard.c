/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link's socket guard around the apply (link-internal.h): the clsact
 * qdisc and egress filters that confine the sockets tbsd hands out
 * (daemon/qdisc/socket-guard.h), while some schedule hands sockets to a
 * group (LinkContext.socket_guard): put in before the tree, taken back when
 * the tree's apply fails, checked for drift, removed with the tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link-internal.h"
#include "log.h"

int link_socket_guard_prepare(Link *l, char **ret_line) {
        _cleanup_free_ char *why = NULL;
        uint32_t present = 0;
        int r;

        l->rt->guard_added = (SocketGuardUndo) {};
        if (!l->ctx->socket_guard)
                return 0;       /* no socket of a group's to confine */
        r = nl_socket_guard_read(l->ctx->nl, l->ifindex, &present, NULL);
        if (r < 0) {
                why = qdisc_step_error(nl_transport_ext_ack(l->ctx->nl), r, "socket guard: reading the filters");
                goto fail;
        }
        r = nl_socket_guard_install(l->ctx->nl, l->ifindex, present, &l->rt->guard_added, &why);
        if (r < 0)
                goto fail;
        if (r > 0)
                log_link_info(l->name, "socket guard: clsact egress filters installed");
        return 0;
fail:
        if (asprintf(ret_line, "%s; nothing changed", why ?: strerror(-r)) < 0)
                return -ENOMEM;
        return r;
}

int link_socket_guard_finish(Link *l, int r, ApplyReport *report) {
        SocketGuardUndo added = l->rt->guard_added;
        int k;

        l->rt->guard_added = (SocketGuardUndo) {};
        if (!added.created_clsact && added.added == 0)
                return r;
        if (r >= 0) {
                if (r == 0)
                        report->n_messages++;
                return r > 0 ? r : 1;
        }
        /* The tree's apply failed: the guard as it was. */
        k = nl_socket_guard_undo(l->ctx->nl, l->ifindex, &added);
        if (k < 0 && !report->rollback_error &&
            asprintf(&report->rollback_error, "socket guard: deleting the filters this apply added failed: %s",
                     strerror(-k)) < 0)
                report->rollback_error = NULL;
        return r;
}

int link_socket_guard_drift(Link *l, char **ret_description) {
        uint32_t present = 0;
        unsigned missing;
        int r;

        if (l->ifindex <= 0 || !l->ctx->nl || !l->ctx->socket_guard)
                return 0;       /* no interface, no netlink socket (unit tests) or no guard wanted: not judged */
        r = nl_socket_guard_read(l->ctx->nl, l->ifindex, &present, NULL);
        if (r < 0) {
                log_link_debug(l->name, "socket guard: not checked for drift: %s", strerror(-r));
                return 0;
        }
        if (present == SOCKET_GUARD_ALL_PRESENT)
                return 0;
        if (!ret_description)
                return 1;
        missing = (unsigned) __builtin_popcount(SOCKET_GUARD_ALL_PRESENT & ~present);
        if (present == 0
            ? asprintf(ret_description, "socket guard: the clsact egress filters are missing (the sockets tbsd "
                       "hands out are not confined)") < 0
            : asprintf(ret_description, "socket guard: %u of %u clsact egress filters missing", missing,
                       SOCKET_GUARD_FILTERS) < 0) {
                *ret_description = NULL;
                return -ENOMEM;
        }
        return 1;
}

int link_socket_guard_remove(Link *l, int ifindex) {
        _cleanup_free_ char *why = NULL;
        int r;

        r = nl_socket_guard_remove(l->ctx->nl, ifindex, &why);
        if (r < 0)
                log_link_warning(l->name, "%s (the tree is removed)", why ?: strerror(-r));
        return r;
}

int link_drop_socket_guard(Link *l) {
        if (l->ifindex <= 0 || !l->ctx->nl)
                return 0;
        return link_socket_guard_remove(l, l->ifindex);
}

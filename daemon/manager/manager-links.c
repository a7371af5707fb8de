/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The set of links and what the manager's other files use of it: find, add
 * and free a link, its events and the status line, the qdisc dump a load
 * shares, the heap handed back. Apart from manager.c (the event loop, start
 * and reload), which calls manager-sync.c and manager-stats.c: they call
 * this file, so the calls run one way. */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager.h"
#include "name-index.h"
#include "utf8.h"

void shared_dump_done(SharedDump *d) {
        qdisc_tree_set_done(&d->set);
}

/* The links' interface indexes, ascending, without repeats, in
 * *ret_wanted (NULL when there is none): the one each link had and the one
 * its apply or removal will look up (LinkContext.ifindex_of: the index
 * the load's probe cached; a new link has none of its own yet). Returns how
 * many, or -ENOMEM. */
static ssize_t links_ifindexes(Manager *m, int **ret_wanted) {
        _cleanup_free_ int *v = NULL;
        size_t n = 0, k;

        *ret_wanted = NULL;
        if (m->n_links == 0)
                return 0;
        v = calloc(m->n_links, 2 * sizeof(int));
        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_links; i++) {
                int now = m->link_ctx.ifindex_of(m->links[i]->name, m->link_ctx.userdata);

                if (m->links[i]->ifindex > 0)
                        v[n++] = m->links[i]->ifindex;
                if (now > 0 && now != m->links[i]->ifindex)
                        v[n++] = now;
        }
        k = qdisc_dump_wanted_sort(v, n);
        *ret_wanted = TAKE_PTR(v);
        return (ssize_t) k;
}

const QDiscTreeSet *shared_dump_get(Manager *m, SharedDump *d) {
        if (!d->dumped) {
                _cleanup_free_ int *wanted = NULL;
                ssize_t n = d->links_only ? links_ifindexes(m, &wanted) : -1;

                /* Without memory for the list: every interface. */
                if (n >= 0)
                        d->ok = nl_qdisc_dump_some(m->nl, wanted ?: &(int) { 0 }, (size_t) n, &d->set) >= 0;
                else
                        d->ok = nl_qdisc_dump_all(m->nl, &d->set) >= 0;
                d->dumped = true;
        }
        return d->ok ? &d->set : NULL;
}

/* Loading and applying every schedule, or a spell of statistics reads,
 * leaves free memory spread over the heap between what stays (links,
 * schedules): hand its whole free pages back to the kernel, glibc only
 * trims the heap's top by itself. */
void manager_release_free_memory(void) {
        struct mallinfo2 mi;

        (void) malloc_trim(0);
        mi = mallinfo2();
        log_debug("heap: %zu KiB in use, %zu KiB free in %zu KiB, %zu KiB mapped apart",
                  mi.uordblks / 1024, mi.fordblks / 1024, mi.arena / 1024, mi.hblkhd / 1024);
}

Link *manager_find_link(Manager *m, const char *name) {
        return name_index_get(m->links_by_name, name, 0);
}

int manager_ifindex(Manager *m, const char *name) {
        return (int) caps_system_ifindex(m->probe_sock_open ? &m->probe_sock : NULL, name);
}

int manager_new_link(Manager *m, const char *name, Link **ret) {
        Link **n, *l;
        int r;

        if (!m->links_by_name) {
                r = name_index_new(false, &m->links_by_name);
                if (r < 0)
                        return r;
        }
        n = reallocarray(m->links, m->n_links + 1, sizeof(Link *));
        if (!n)
                return -ENOMEM;
        m->links = n;
        r = link_new(&m->link_ctx, name, &l);
        if (r < 0)
                return r;
        /* Keyed by the link's own copy of the name, which never changes. */
        r = name_index_put(m->links_by_name, l->name, 0, l);
        if (r < 0) {
                link_free(l);
                return r;
        }
        m->links[m->n_links++] = l;
        m->links_by_ifindex_stale = true;
        if (m->observer && m->observer->link_added)
                m->observer->link_added(m, l);
        *ret = l;
        return 0;
}

void manager_free_link(Manager *m, Link *l) {
        if (m->observer && m->observer->link_removed)
                m->observer->link_removed(m, l);
        (void) name_index_remove(m->links_by_name, l->name, 0, l);
        m->links_by_ifindex_stale = true;
        /* From the end: manager_free() and a reload's removals free the
         * last links first, so freeing every link costs O(n). */
        for (size_t i = m->n_links; i > 0; i--)
                if (m->links[i - 1] == l) {
                        memmove(m->links + i - 1, m->links + i, (m->n_links - i) * sizeof(Link *));
                        m->n_links--;
                        break;
                }
        link_free(l);
}

void manager_emit_event(Manager *m, const char *link, const char *kind, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        int level = m->one_shot ? LOG_DEBUG : LOG_INFO;
        va_list ap;
        int r;

        /* Nobody would see it (tbsd --once below --log-level debug). */
        if (level > log_get_max_level() && !(m->observer && m->observer->event))
                return;
        va_start(ap, fmt);
        r = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        if (!text_is_safe(msg)) {
                /* It may quote a file name; the signal needs valid UTF-8. */
                char *e = text_escape(msg);

                free(msg);
                msg = e;
                if (!msg)
                        return;
        }
        if (strcmp(link, "*") == 0)
                log_full_errno(level, 0, "%s: %s", kind, msg);
        else
                log_link_full_errno(link, level, 0, "%s: %s", kind, msg);
        if (m->observer && m->observer->event)
                m->observer->event(m, link, kind, msg);
}

void manager_notify_status(Manager *m) {
        size_t count[_LINK_STATE_MAX] = {};

        if (m->one_shot)
                return;
        for (size_t i = 0; i < m->n_links; i++)
                count[m->links[i]->state]++;
        (void) sd_notifyf(false, "STATUS=%zu links configured, %zu degraded, %zu failed, %zu absent",
                          count[LINK_STATE_CONFIGURED], count[LINK_STATE_DEGRADED],
                          count[LINK_STATE_FAILED], count[LINK_STATE_ABSENT]);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bringing the links in line with the schedules folder, at start and at
 * every reload: which link a file declares, keeps or no longer declares. */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link-watch.h"
#include "log.h"
#include "manager.h"
#include "name-index.h"
#include "schedule-dir.h"
#include "stream-state.h"
#include "time-util.h"

/* The first error of a file as "FIELD: REASON" (or "REASON" when it is
 * about the whole file), or NULL. */
static char *first_error(const DiagList *d) {
        char *t = NULL;

        for (size_t i = 0; i < d->n; i++) {
                const Diag *e = &d->items[i];

                if (e->severity != DIAG_ERROR)
                        continue;
                if (asprintf(&t, "%s%s%s", e->path ?: "", e->path ? ": " : "", e->reason) < 0)
                        return NULL;
                return t;
        }
        return NULL;
}

static void log_file_diagnostics(const ScheduleFile *f) {
        for (size_t i = 0; i < f->diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&f->diags.items[i]);
                if (!line)
                        continue;
                if (f->diags.items[i].severity == DIAG_ERROR)
                        log_error("%s", line);
                else
                        log_warning("%s", line);
        }
}

/* A file that can be taken: read and valid now, or not read again since it
 * is the version its link carries. */
static bool file_valid(const ScheduleFile *f) {
        return f->schedule || f->unchanged;
}

static bool streq_ptr(const char *a, const char *b) {
        return a && b && strcmp(a, b) == 0;
}

/* The interfaces valid files declare (name -> file), keyed by the files'
 * own names: valid while dir is. */
static int declared_index(const ScheduleDir *dir, NameIndex **ret) {
        _cleanup_(name_index_freep) NameIndex *idx = NULL;
        int r;

        r = name_index_new(false, &idx);
        if (r < 0)
                return r;
        for (size_t j = 0; j < dir->n; j++)
                if (file_valid(&dir->files[j])) {
                        r = name_index_put(idx, dir->files[j].ifname, 0, (void *) &dir->files[j]);
                        if (r < 0)
                                return r;
                }
        *ret = TAKE_PTR(idx);
        return 0;
}

/* The invalid file that keeps a link as it is: the one at the path that
 * declared the link last time (whatever it is now: unreadable, refused, a
 * directory, changed while read), else one that names its interface (a
 * renamed file). NULL when none does. */
static const ScheduleFile *file_keeping(const ScheduleDir *dir, const Link *l) {
        const ScheduleFile *by_name = NULL;

        for (size_t j = 0; j < dir->n; j++) {
                const ScheduleFile *f = &dir->files[j];

                if (file_valid(f))
                        continue;
                if (streq_ptr(f->path, l->schedule_file))
                        return f;
                if (!by_name && strcmp(f->ifname, l->name) == 0)
                        by_name = f;
        }
        return by_name;
}

static const ScheduleFile *file_at(const ScheduleDir *dir, const char *path) {
        for (size_t j = 0; j < dir->n; j++)
                if (streq_ptr(dir->files[j].path, path))
                        return &dir->files[j];
        return NULL;
}

/* An invalid file keeps link l: the schedule in force (if any) stays, tree
 * and state untouched; StateReason and an Event say why. */
static int link_keep(Manager *m, Link *l, const ScheduleFile *f) {
        _cleanup_free_ char *why = first_error(&f->diags);
        const char *w = why ?: "invalid schedule";
        int r;

        if (!l->schedule) {
                /* Nothing in force: it stays failed, for the new reason. */
                link_set_kept_note(l, NULL);
                r = link_set_schedule(l, f->path, NULL, &f->diags);
                if (r < 0)
                        return r;
                link_set_state(l, LINK_STATE_FAILED, "invalid schedule %s: %s", f->path, w);
                return 0;
        }
        return link_note_refused(l, f->path, "is invalid", w);
}

/* Append "LINE" to the newline-separated list *errors. */
static int errors_add(char **errors, const char *line) {
        char *e = NULL;

        if (asprintf(&e, "%s%s%s", *errors ?: "", *errors ? "\n" : "", line) < 0)
                return -ENOMEM;
        free(*errors);
        *errors = e;
        return 0;
}

/* The links of a load to apply, each with the file it takes. */
typedef struct ApplyList {
        Link **links;
        const char **files;     /* the ScheduleDir's paths */
        size_t n;
        NameIndex *queued;      /* the links added */
} ApplyList;

static void apply_list_done(ApplyList *a) {
        free(a->links);
        free(a->files);
        name_index_free(a->queued);
}

/* Add l, which takes file, to the links to apply (once). */
static int apply_list_add(ApplyList *a, Link *l, const char *file) {
        Link **v;
        const char **f;
        int r;

        if (name_index_get(a->queued, l->name, 0))
                return 0;
        v = reallocarray(a->links, a->n + 1, sizeof(Link *));
        if (!v)
                return -ENOMEM;
        a->links = v;
        f = reallocarray(a->files, a->n + 1, sizeof(char *));
        if (!f)
                return -ENOMEM;
        a->files = f;
        r = name_index_put(a->queued, l->name, 0, l);
        if (r < 0)
                return r;
        v[a->n] = l;
        f[a->n++] = file;
        return 0;
}

/* Apply the links of a in one batch against set (see sync_dir()) and add
 * a line "FILE: REASON" to *errors for each whose file was refused there
 * (the device check, the kernel). An interface that does not exist refuses
 * nothing: its link waits for it. Returns how many were refused, or
 * -ENOMEM. */
static int apply_list_run(ApplyList *a, const QDiscTreeSet *set, char **errors) {
        _cleanup_free_ int *results = calloc(a->n, sizeof(int));
        char **why = calloc(a->n, sizeof(char *));
        int n_refused = 0, r = 0;

        if (!results || !why) {
                free(why);
                return -ENOMEM;
        }
        (void) links_apply(a->links, a->n, set, results, why);
        for (size_t i = 0; i < a->n; i++) {
                _cleanup_free_ char *line = NULL;
                size_t k = strlen(a->files[i]);

                if (results[i] >= 0 || results[i] == -ENODEV || r < 0)
                        continue;
                n_refused++;
                /* The device check's line names the file already. */
                if (why[i] && strncmp(why[i], a->files[i], k) == 0 && why[i][k] == ':')
                        r = errors_add(errors, why[i]);
                else if (asprintf(&line, "%s: %s", a->files[i], why[i] ?: strerror(-results[i])) < 0)
                        r = -ENOMEM;
                else
                        r = errors_add(errors, line);
        }
        for (size_t i = 0; i < a->n; i++)
                free(why[i]);
        free(why);
        return r < 0 ? r : n_refused;
}

/* The rule: a file that cannot be taken for any reason never removes a
 * tree; only a link that no file keeps any more goes. */
/* Whether any link's schedule hands sockets to a group ("sockets.group"). */
static bool any_gives_sockets(const Manager *m) {
        for (size_t i = 0; i < m->n_links; i++)
                if (m->links[i]->schedule && m->links[i]->schedule->sockets.group)
                        return true;
        return false;
}

/* The socket guard (daemon/qdisc/nl-socket-guard.h) goes on every managed
 * interface while any schedule hands sockets to a group: such a socket can
 * name another interface with IP_PKTINFO, whose guard then drops it. When
 * that starts, every link with a tree is applied again (its guard goes in);
 * when it ends, the guards come off. */
static int sync_socket_guard(Manager *m, ApplyList *apply) {
        bool want = any_gives_sockets(m);

        if (m->socket_guard_known && want == m->link_ctx.socket_guard)
                return 0;
        m->link_ctx.socket_guard = want;
        m->socket_guard_known = true;
        for (size_t i = 0; i < m->n_links; i++) {
                Link *l = m->links[i];

                if (l->ifindex <= 0 || !l->schedule)
                        continue;
                if (!want)
                        (void) link_drop_socket_guard(l);
                else if (apply_list_add(apply, l, l->schedule_file) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* Whether the streams kept for a link stay: its schedule in force takes
 * streams, or nothing is in force (an invalid file keeps the link; its
 * next valid version decides). */
static bool streams_belong(const Link *l) {
        return l && (!l->schedule || l->schedule->streams.n > 0);
}

/* After a load of the folder (start, reload): drop the streams kept in
 * the state directory for each interface whose streams no longer belong
 * to a schedule (docs/streams.md, "Lifecycle"): no file keeps its link,
 * or the schedule in force gives no streams. A stream-removed event says
 * so for each. */
static void prune_bus_streams(Manager *m) {
        const char *dir = m->link_ctx.state_dir;
        _cleanup_free_ char *sub = NULL;
        struct dirent *de;
        DIR *d;

        if (!dir)
                return;
        if (asprintf(&sub, "%s/streams", dir) < 0)
                return;
        d = opendir(sub);
        if (!d) {
                if (errno != ENOENT)
                        log_warning_errno(errno, "cannot read %s: %m", sub);
                return;
        }
        while ((de = readdir(d))) {
                char ifname[IFNAMSIZ];
                size_t n = strlen(de->d_name);
                Link *l;
                int r;

                if (n <= 5 || n - 5 >= sizeof(ifname) || strcmp(de->d_name + n - 5, ".json") != 0)
                        continue;
                memcpy(ifname, de->d_name, n - 5);
                ifname[n - 5] = '\0';
                l = manager_find_link(m, ifname);
                if (streams_belong(l))
                        continue;
                r = stream_state_drop(dir, ifname);
                if (r < 0)
                        log_link_warning_errno(ifname, r, "cannot drop the streams added over the bus from %s: %m",
                                               sub);
                else if (r > 0 && l)
                        link_emit_event(l, "stream-removed", "the streams added over the bus are dropped: %s "
                                        "gives no streams now", l->schedule_file ?: "the schedule");
                else if (r > 0)
                        manager_emit_event(m, ifname, "stream-removed", "the streams added over the bus are "
                                           "dropped with the schedule: no file declares %s", ifname);
        }
        closedir(d);
}


static int sync_dir(Manager *m, ScheduleDir *dir, char **ret_error) {
        /* Only the links' trees: a pass looks at no other interface. */
        _cleanup_(shared_dump_done) SharedDump dump = { .links_only = true }, before = { .links_only = true };
        _cleanup_free_ char *errors = NULL;
        _cleanup_(apply_list_done) ApplyList apply = {};
        _cleanup_(name_index_freep) NameIndex *declared = NULL;
        size_t n_invalid = 0;
        int r;

        r = name_index_new(false, &apply.queued);
        if (r < 0)
                return r;

        /* A file not read again whose version its link does not hold (any
         * more, or not yet: a version refused last time, with the previous
         * one kept in force): read it after all, before anything is
         * decided on it. */
        for (size_t j = 0; j < dir->n; j++) {
                ScheduleFile *f = &dir->files[j];
                Link *l;

                if (!f->unchanged)
                        continue;
                l = manager_find_link(m, f->ifname);
                if (l && l->schedule && streq_ptr(l->schedule_file, f->path) && !l->kept_note)
                        continue;
                r = schedule_dir_load_file(dir, j);
                if (r < 0)
                        return r;
        }

        /* Links no file declares: kept by an invalid file, or removed. */
        r = declared_index(dir, &declared);
        if (r < 0)
                return r;
        for (size_t i = m->n_links; i > 0; i--) {
                Link *l = m->links[i - 1];
                const ScheduleFile *f, *now;

                if (name_index_get(declared, l->name, 0))
                        continue;
                f = file_keeping(dir, l);
                if (f) {
                        r = link_keep(m, l, f);
                        if (r < 0)
                                return r;
                        continue;
                }
                /* One dump for every removal (each removal changes only
                 * its own interface); the applies below get one of their
                 * own, taken after the removals. */
                if (l->ifindex > 0 && l->schedule)
                        (void) link_remove_qdiscs_from(l, shared_dump_get(m, &before), NULL);
                now = file_at(dir, l->schedule_file);
                if (now)
                        manager_emit_event(m, l->name, "removed", "%s declares %s now, not %s", now->path,
                                           now->ifname, l->name);
                else
                        manager_emit_event(m, l->name, "removed", "%s was removed; no schedule declares %s any more",
                                           l->schedule_file ?: "its file", l->name);
                manager_free_link(m, l);
        }

        for (size_t j = 0; j < dir->n; j++) {
                ScheduleFile *f = &dir->files[j];
                Link *l;

                if (!m->one_shot) /* tbsd --once prints the first error itself */
                        log_file_diagnostics(f);
                l = f->ifname[0] ? manager_find_link(m, f->ifname) : NULL;
                if (!file_valid(f)) {
                        _cleanup_free_ char *line = NULL;

                        n_invalid++;
                        for (size_t i = 0; i < f->diags.n && !line; i++)
                                if (f->diags.items[i].severity == DIAG_ERROR)
                                        line = diag_format(&f->diags.items[i]);
                        if (errors_add(&errors, line ?: f->path) < 0)
                                return -ENOMEM;
                        /* A link of this name was kept (or marked) above;
                         * a new interface gets a failed link that says why. */
                        if (!f->ifname[0] || l)
                                continue;
                        r = manager_new_link(m, f->ifname, &l);
                        if (r < 0)
                                return r;
                        r = link_keep(m, l, f);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (f->unchanged && l) {
                        /* Not read again: the version this link carries. */
                        if (link_is_installed(l))
                                continue;
                        if (apply_list_add(&apply, l, f->path) < 0)
                                return -ENOMEM;
                        continue;
                }

                if (!l) {
                        r = manager_new_link(m, f->ifname, &l);
                        if (r < 0)
                                return r;
                }
                link_set_kept_note(l, NULL);
                r = link_set_schedule(l, f->path, TAKE_PTR(f->schedule), NULL);
                if (r < 0)
                        return r;
                if (r == 0 && link_is_installed(l))
                        continue; /* unchanged and in place */
                if (apply_list_add(&apply, l, f->path) < 0)
                        return -ENOMEM;
        }

        r = sync_socket_guard(m, &apply);
        if (r < 0)
                return r;

        /* Every link left is declared or kept by a file of this load. */
        for (size_t i = 0; i < m->n_links; i++)
                m->links[i]->counters.reloads++;

        /* Every link to apply in one batch, planned against one dump taken
         * after the removals above (each apply changes only its own
         * interface): the requests of all go out in few sends. A file
         * refused there (by the device check or the kernel) is an invalid
         * one too: the answer names it. */
        if (apply.n > 0) {
                uint64_t t0 = now_usec(CLOCK_MONOTONIC);
                const QDiscTreeSet *set = shared_dump_get(m, &dump);

                log_debug("%zu link(s) to apply; trees read: %.1f ms", apply.n,
                          (double) (now_usec(CLOCK_MONOTONIC) - t0) / 1e3);
                t0 = now_usec(CLOCK_MONOTONIC);
                r = apply_list_run(&apply, set, &errors);
                if (r < 0)
                        return r;
                n_invalid += (size_t) r;
                log_debug("%zu link(s) applied: %.1f ms", apply.n, (double) (now_usec(CLOCK_MONOTONIC) - t0) / 1e3);
        }

        prune_bus_streams(m);    /* bus streams go with their schedule */
        manager_notify_status(m);
        if (ret_error)
                *ret_error = TAKE_PTR(errors);
        return n_invalid > 0 ? -EINVAL : 0;
}

int manager_sync_dir(Manager *m, ScheduleDir *dir, char **ret_error) {
        int r;

        /* Every link change the kernel made so far reported first: then
         * the capability cache knows which index each name has (a rename
         * or removal dropped its entry), and a link's index needs no
         * system call while the load runs. */
        if (m->watch && link_watch_drain(m->watch) >= 0)
                m->names_current = true;
        r = sync_dir(m, dir, ret_error);
        m->names_current = false;
        return r;
}

const DeviceFacts *manager_facts_for(const char *ifname, void *userdata) {
        Manager *m = userdata;
        const LinkCaps *c;
        int ifindex;

        ifindex = manager_ifindex(m, ifname);
        if (ifindex <= 0 || caps_cache_get(m->caps, ifindex, ifname, &c) < 0)
                return NULL;
        caps_to_device_facts(c, &m->load_facts);
        return &m->load_facts;
}

int manager_load_dir(Manager *m, ScheduleDir *ret, char **ret_error) {
        _cleanup_free_ char *why = NULL;
        int r;

        r = schedule_dir_load_stamped(m->config_dir, &m->dir_stamps, ret);
        if (r == -EPERM && schedule_dir_check_folder(m->config_dir, &why) == -EPERM) {
                log_error("%s", why);
                if (ret_error)
                        *ret_error = TAKE_PTR(why);
                return r;
        }
        if (r < 0)
                return log_error_errno(r, "cannot read the configuration folder %s: %m", m->config_dir);
        return 0;
}


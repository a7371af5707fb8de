/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.ApplySchedule(), RemoveSchedule() and GetSchedule(): a schedule
 * document given over the bus (the NETCONF side's way in, docs/netconf.md)
 * is checked with the code a file is checked with, kept in the state
 * folder (schedule-store.h), which every load reads after the schedules
 * folder, and applied by a load of both, as Reload() does. A refusal
 * changes nothing: a document refused before it is kept is not written,
 * and one the load refuses (the kernel, a file of the folder naming the
 * same interface) is replaced by the previous one and loaded again. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-access.h"
#include "diag.h"
#include "log.h"
#include "manager.h"
#include "schedule-bus.h"
#include "schedule-parse.h"
#include "schedule-store.h"
#include "schedule-verify.h"
#include "sd-cleanup.h"
#include "utf8.h"

/* The same bound as Validate() and the folder's files. */
#define SCHEDULE_MAX_BYTES (1024 * 1024)

/* An interface name the kernel could have (and a safe file name). */
static bool ifname_plausible(const char *s) {
        size_t n = strlen(s);

        if (n == 0 || n >= IFNAMSIZ || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] == '/' || s[i] == ':' || (unsigned char) s[i] <= ' ' || s[i] == 0x7f)
                        return false;
        return true;
}

/* The caller's check: root, the admin group, or the schedule group. On
 * success *ret_who is "uid N". */
static int admit(sd_bus_message *msg, Manager *m, const char *method, char ret_who[static 32],
                 sd_bus_error *error) {
        BusCaller c = {};
        int r;

        r = bus_access_check_groups(msg, m->admin_group, m->schedule_group, m->refusals, method, &c, error);
        if (r < 0)
                return r;
        if (r == 0)
                return -EACCES;
        snprintf(ret_who, 32, "uid %u", (unsigned) c.uid);
        return 0;
}

/* The checks ApplySchedule() and RemoveSchedule() share: the caller, the
 * interface name, the origin. 0, or <0 with error set. */
static int check_caller_args(sd_bus_message *msg, Manager *m, const char *method, const char *ifname,
                             const char *origin, char ret_who[static 32], sd_bus_error *error) {
        const char *why;
        int r;

        r = admit(msg, m, method, ret_who, error);
        if (r < 0)
                return r;
        if (!ifname_plausible(ifname))
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                         "%s by %s: interface: '%.*s' is not an interface name", method, ret_who,
                                         (int) utf8_cut(ifname, 64), ifname);
        if (!schedule_origin_valid(origin, &why))
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s(%s) by %s: origin: %s", method,
                                         ifname, ret_who, why);
        return 0;
}

/* A link whose schedule is a file of the schedules folder: the operator's.
 * Its path, or NULL. */
static const char *declared_by_file(Manager *m, const char *ifname) {
        Link *l = manager_find_link(m, ifname);

        if (!l || !l->schedule_file || schedule_store_holds(m->link_ctx.state_dir, l->schedule_file))
                return NULL;
        return l->schedule_file;
}

/* Append the error lines of diags to *lines (newline-separated). */
static int lines_add_diags(char **lines, const DiagList *diags, DiagSeverity sev) {
        for (size_t i = 0; i < diags->n; i++) {
                _cleanup_free_ char *line = NULL;
                char *v = NULL;

                if (diags->items[i].severity != sev)
                        continue;
                line = diag_format(&diags->items[i]);
                if (!line || asprintf(&v, "%s%s%s", *lines ?: "", *lines ? "\n" : "", line) < 0)
                        return -ENOMEM;
                free(*lines);
                *lines = v;
        }
        return 0;
}

/* The lines of a load's errors that are about path, each "label: REST"
 * instead of "path: REST", newline-separated; NULL when none is. */
static char *errors_about(const char *errors, const char *path, const char *label) {
        _cleanup_free_ char *out = NULL;
        size_t k = strlen(path);

        for (const char *p = errors; p && *p;) {
                const char *e = strchrnul(p, '\n');

                if ((size_t) (e - p) > k && strncmp(p, path, k) == 0 && p[k] == ':') {
                        char *v = NULL;

                        if (asprintf(&v, "%s%s%s%.*s", out ?: "", out ? "\n" : "", label, (int) (e - p - k),
                                     p + k) < 0)
                                return NULL;
                        free(out);
                        out = v;
                }
                p = *e ? e + 1 : e;
        }
        return TAKE_PTR(out);
}

/* Whether the load gave ifname the store's document at path, in place. */
static bool in_force(Manager *m, const char *ifname, const char *path) {
        Link *l = manager_find_link(m, ifname);

        return l && l->schedule && l->schedule_file && strcmp(l->schedule_file, path) == 0 && !l->kept_note &&
               link_is_installed(l);
}

/* Put the store's previous version of ifname back (none: drop it) and load
 * again, so that the links are as they were. */
static void restore(Manager *m, const char *ifname, const char *old_text, const char *old_origin) {
        const char *dir = m->link_ctx.state_dir;
        _cleanup_free_ char *errors = NULL;
        int r;

        r = old_text ? schedule_store_write(dir, ifname, old_text, old_origin ?: SCHEDULE_ORIGIN_UNKNOWN)
                     : schedule_store_drop(dir, ifname);
        if (r < 0)
                log_error("%s: cannot put the previous schedule back in %s: %s", ifname, dir, strerror(-r));
        (void) manager_reload(m, &errors);
}

int schedule_bus_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *label = NULL, *path = NULL, *lines = NULL, *warnings = NULL, *old_text = NULL,
                            *old_origin = NULL, *errors = NULL;
        Manager *m = userdata;
        const char *ifname, *text, *origin, *file;
        const char *dir = m->link_ctx.state_dir;
        DiagList diags = {};
        char who[32];
        bool same;
        int r;

        r = sd_bus_message_read(msg, "sss", &ifname, &text, &origin);
        if (r < 0)
                return bus_method_failed(error, r, "ApplySchedule");
        r = check_caller_args(msg, m, "ApplySchedule", ifname, origin, who, error);
        if (r < 0)
                return r;
        if (!dir)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "ApplySchedule(%s): tbsd keeps no state here",
                                         ifname);
        if (asprintf(&label, "ApplySchedule(%s) by %s", ifname, who) < 0)
                return -ENOMEM;
        if (strlen(text) > SCHEDULE_MAX_BYTES)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s: the document is larger than %d bytes",
                                         label, SCHEDULE_MAX_BYTES);
        file = declared_by_file(m, ifname);
        if (file)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "%s: interface: %s is configured by %s; one interface has one schedule, "
                                         "and the schedules folder's files come first", label, ifname, file);
        if (manager_ifindex(m, ifname) <= 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s: interface: no interface %s here",
                                         label, ifname);

        /* What a file of the folder goes through at a load (schedule-dir.c's
         * load_one()): parse, then verify against the interface's probe. */
        r = schedule_parse_json(label, text, strlen(text), &diags, &s);
        if (r >= 0 && strcmp(s->ifname, ifname) != 0)
                r = diag_error(&diags, label, "interface", "the document is for %s, not %s", s->ifname, ifname) < 0
                            ? -ENOMEM : -EINVAL;
        if (r >= 0)
                r = schedule_verify(s, manager_facts_for(ifname, m), &diags);
        if (r == -ENOMEM || lines_add_diags(&lines, &diags, DIAG_ERROR) < 0 ||
            lines_add_diags(&warnings, &diags, DIAG_WARNING) < 0) {
                diag_list_clear(&diags);
                return -ENOMEM;
        }
        diag_list_clear(&diags);
        if (r < 0 || lines)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s", lines ?: label);

        path = schedule_store_path(dir, ifname);
        if (!path)
                return -ENOMEM;
        r = schedule_store_read(dir, ifname, &old_text, &old_origin);
        if (r < 0 && r != -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot read %s: %s", label, path, strerror(-r));
        same = old_text && strcmp(old_text, text) == 0 && strcmp(old_origin, origin) == 0;
        if (same && in_force(m, ifname, path))
                goto answer;    /* that very document is in force: nothing to do */

        r = schedule_store_write(dir, ifname, text, origin);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot keep the document in %s: %s", label,
                                         path, strerror(-r));
        (void) manager_reload(m, &errors);
        if (!in_force(m, ifname, path)) {
                _cleanup_free_ char *about = errors_about(errors, path, label);
                Link *l = manager_find_link(m, ifname);
                bool kernel = l && l->schedule && strcmp(l->schedule_file ?: "", path) == 0;

                restore(m, ifname, old_text, old_origin);
                log_warning("%s refused: %s", label, about ?: l ? l->state_reason : "not applied");
                return sd_bus_error_setf(error, kernel ? TBS_ERROR_APPLY_FAILED : TBS_ERROR_INVALID_SCHEDULE, "%s",
                                         about ?: l ? l->state_reason : "the schedule was not applied");
        }
        log_info("%s: schedule applied, origin %s", label, origin);

answer:
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "b", !same);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (const char *p = warnings; r >= 0 && p && *p;) {
                const char *e = strchrnul(p, '\n');
                _cleanup_free_ char *w = strndup(p, (size_t) (e - p));

                r = w ? sd_bus_message_append(reply, "s", w) : -ENOMEM;
                p = *e ? e + 1 : e;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return bus_method_failed(error, r, "ApplySchedule");
        return sd_bus_send(NULL, reply, NULL);
}

int schedule_bus_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *old_text = NULL, *old_origin = NULL, *errors = NULL;
        Manager *m = userdata;
        const char *ifname, *origin, *file;
        const char *dir = m->link_ctx.state_dir;
        char who[32];
        int r;

        r = sd_bus_message_read(msg, "ss", &ifname, &origin);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        r = check_caller_args(msg, m, "RemoveSchedule", ifname, origin, who, error);
        if (r < 0)
                return r;
        file = declared_by_file(m, ifname);
        if (file)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "RemoveSchedule(%s) by %s: interface: %s is configured by %s, not over "
                                         "the bus; that file is the operator's", ifname, who, ifname, file);
        r = dir ? schedule_store_read(dir, ifname, &old_text, &old_origin) : -ENOENT;
        if (r == -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK,
                                         "RemoveSchedule(%s) by %s: interface: no schedule was given for %s with "
                                         "ApplySchedule", ifname, who, ifname);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        r = schedule_store_drop(dir, ifname);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        (void) manager_reload(m, &errors);
        log_info("RemoveSchedule(%s) by %s: schedule of origin %s removed, origin %s", ifname, who, old_origin,
                 origin);
        return sd_bus_reply_method_return(msg, NULL);
}

int schedule_bus_get(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *text = NULL, *origin = NULL, *safe = NULL;
        Manager *m = userdata;
        const char *ifname, *path;
        DiagList diags = {};
        char who[32];
        size_t len;
        Link *l;
        int r;

        r = sd_bus_message_read(msg, "s", &ifname);
        if (r < 0)
                return bus_method_failed(error, r, "GetSchedule");
        r = admit(msg, m, "GetSchedule", who, error);
        if (r < 0)
                return r;
        l = manager_find_link(m, ifname);
        if (!l || !l->schedule_file)
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK, "GetSchedule: no schedule for '%.*s'",
                                         (int) utf8_cut(ifname, 64), ifname);
        path = l->schedule_file;
        r = schedule_read_file(path, NULL, &diags, &text, &len);
        diag_list_clear(&diags);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "GetSchedule(%s): cannot read %s: %s", l->name,
                                         text_safe(path, &safe), strerror(-r));
        if (strlen(text) != len || !utf8_is_valid_n(text, len))
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "GetSchedule(%s): %s is not UTF-8 text", l->name,
                                         text_safe(path, &safe));
        r = schedule_store_origin(m->link_ctx.state_dir, path, &origin);
        if (r < 0)
                return bus_method_failed(error, r, "GetSchedule");
        return sd_bus_reply_method_return(msg, "sss", text, origin, text_safe(path, &safe));
}

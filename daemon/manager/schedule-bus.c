/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.ApplySchedule(), RemoveSchedule(), GetSchedule() and
 * ListSchedules(), and the checks the calls of many share
 * (schedule-bus-internal.h, schedule-batch-bus.c): a schedule
 * document given over the bus (the NETCONF side's way in, docs/netconf.md)
 * is checked with the code a file is checked with, kept in the state
 * folder (schedule-store.h), which every load reads after the schedules
 * folder, and applied by a load of both, as Reload() does. A refusal
 * changes nothing: a document refused before it is kept is not written,
 * and one the load refuses (the kernel, a file of the folder naming the
 * same interface) is replaced by the previous one and loaded again. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bus-access.h"
#include "diag.h"
#include "link-name.h"
#include "log.h"
#include "manager.h"
#include "schedule-bus-internal.h"
#include "schedule-bus.h"
#include "schedule-parse.h"
#include "schedule-rights.h"
#include "schedule-store.h"
#include "schedule-verify.h"
#include "sd-cleanup.h"
#include "time-util.h"
#include "utf8.h"


/* The error for an interface name link_name_refusal() refused: the name
 * escaped (one line, whatever it holds) and why. */
int schedule_bus_refuse_ifname(sd_bus_error *error, const char *method, const char *who, const char *ifname,
                         const char *why) {
        _cleanup_free_ char *buf = NULL;
        const char *shown = text_safe(ifname, &buf);

        return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                 "%s by %s: interface: '%.*s' is not an interface name: it %s", method, who,
                                 (int) utf8_cut(shown, 64), shown, why);
}

/* Who called and what its documents may set. */

/* The caller's check: root, the admin group, or the schedule group. */
int schedule_bus_admit(sd_bus_message *msg, Manager *m, const char *method, Caller *ret, sd_bus_error *error) {
        BusCaller c = {};
        int r;

        r = bus_access_admit_groups(msg, m->admin_group, m->schedule_group, m->refusals, method, &c, error);
        if (r < 0)
                return r;
        if (r == 0)
                return -EACCES;
        *ret = (Caller) { .uid = c.uid, .may = c.admin ? SCHEDULE_RIGHTS_ALL : m->schedule_group_may,
                          .admin_unknown = c.admin_unknown && m->schedule_group_may != SCHEDULE_RIGHTS_ALL,
                          .msg = msg };
        snprintf(ret->who, sizeof(ret->who), "uid %u", (unsigned) c.uid);
        return 0;
}

/* The checks ApplySchedule() and RemoveSchedule() share: the caller, the
 * interface name, the origin. 0, or <0 with error set. */
static int check_caller_args(sd_bus_message *msg, Manager *m, const char *method, const char *ifname,
                             const char *origin, Caller *ret, sd_bus_error *error) {
        const char *why;
        int r;

        r = schedule_bus_admit(msg, m, method, ret, error);
        if (r < 0)
                return r;
        why = link_name_refusal(ifname);
        if (why)
                return schedule_bus_refuse_ifname(error, method, ret->who, ifname, why);
        if (!schedule_origin_valid(origin, &why))
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "%s(%s) by %s: origin: %s", method,
                                         ifname, ret->who, why);
        return 0;
}

/* A link whose schedule is a file of the schedules folder: the operator's.
 * Its path, or NULL. */
const char *schedule_declared_by_file(Manager *m, const char *ifname) {
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
char *load_errors_about(const char *errors, const char *path, const char *label) {
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
bool schedule_in_force(Manager *m, const char *ifname, const char *path) {
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

/* Append one line (printf-style) to *lines (newline-separated). */
int schedule_lines_addf(char **lines, const char *fmt, ...) {
        _cleanup_free_ char *line = NULL;
        char *v = NULL;
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vasprintf(&line, fmt, ap);
        va_end(ap);
        if (r < 0 || asprintf(&v, "%s%s%s", *lines ?: "", *lines ? "\n" : "", line) < 0)
                return -ENOMEM;
        free(*lines);
        *lines = v;
        return 0;
}

/* The keys of s that grant rights the caller may not give (the schedule
 * group without tbsd --schedule-group-may): one line each, appended to
 * *lines, and noted in the refusal log. Returns 1 when there is one, 0
 * when not, -ENOMEM, or -errno when the bus no longer says who calls. */
static int check_rights(Manager *m, Caller *c, const char *label, const Schedule *s, char **lines) {
        char where[_SCHEDULE_RIGHT_MAX][SCHEDULE_RIGHT_PATH_MAX];
        uint32_t beyond = schedule_rights_used(s, where) & ~c->may;
        int r;

        /* Admitted by the schedule group: whether it is in the admin group
         * too (which may set every key) is asked now that it matters. */
        if (beyond && c->admin_unknown) {
                uid_t uid;
                bool admin;

                r = bus_access_caller(c->msg, m->admin_group, &uid, &admin);
                if (r < 0)
                        return r;
                c->admin_unknown = false;
                if (admin && uid == c->uid)
                        c->may = SCHEDULE_RIGHTS_ALL;
                beyond &= ~c->may;
        }

        for (ScheduleRight k = 0; k < _SCHEDULE_RIGHT_MAX; k++) {
                if (!(beyond & (1U << k)))
                        continue;
                if (schedule_lines_addf(lines, "%s: %s: the schedule group may not set this key: %s; root and the admin group "
                               "may, and tbsd --schedule-group-may=%s gives it to the schedule group", label, where[k],
                               schedule_right_reason(k), schedule_right_to_string(k)) < 0)
                        return -ENOMEM;
                refusal_log_note(m->refusals, c->uid, "%s: %s: the schedule group may not set this key (tbsd "
                                 "--schedule-group-may=%s gives it)", label, where[k], schedule_right_to_string(k));
        }
        return beyond != 0;
}

/* Everything a document for ifname goes through before it is kept: its
 * size, a file of the folder declaring the interface, the interface
 * present, then what a file of the folder goes through at a load
 * (schedule-dir.c's load_one()): parse, the document's interface, the keys
 * the caller may set, verify against the interface's probe. Refusals are
 * appended to *lines and warnings to *warnings, each "label: PATH: REASON".
 * Returns 1 when refused, 0 when not, -ENOMEM. */
int schedule_bus_check_document(Manager *m, Caller *c, const char *label, const char *ifname, const char *text,
                          char **lines, char **warnings) {
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *errs = NULL;
        DiagList diags = {};
        const char *file;
        int r;

        if (strlen(text) > SCHEDULE_MAX_BYTES)
                return schedule_lines_addf(lines, "%s: the document is larger than %d bytes", label, SCHEDULE_MAX_BYTES)
                               ?: 1;
        file = schedule_declared_by_file(m, ifname);
        if (file)
                return schedule_lines_addf(lines,
                                  "%s: interface: %s is configured by %s; one interface has one schedule, and "
                                  "the schedules folder's files come first", label, ifname, file) ?: 1;
        if (manager_ifindex(m, ifname) <= 0)
                return schedule_lines_addf(lines, "%s: interface: no interface %s here", label, ifname) ?: 1;

        r = schedule_parse_json(label, text, strlen(text), &diags, &s);
        if (r >= 0 && strcmp(s->ifname, ifname) != 0)
                r = diag_error(&diags, label, "interface", "the document is for %s, not %s", s->ifname, ifname) < 0
                            ? -ENOMEM : -EINVAL;
        if (r >= 0) {
                r = check_rights(m, c, label, s, lines);
                if (r != 0) {
                        diag_list_clear(&diags);
                        return r;
                }
        }
        if (r >= 0)
                r = schedule_verify(s, manager_facts_for(ifname, m), &diags);
        if (r == -ENOMEM || lines_add_diags(&errs, &diags, DIAG_ERROR) < 0 ||
            lines_add_diags(warnings, &diags, DIAG_WARNING) < 0) {
                diag_list_clear(&diags);
                return -ENOMEM;
        }
        diag_list_clear(&diags);
        if (r >= 0 && !errs)
                return 0;
        return schedule_lines_addf(lines, "%s", errs ?: label) ?: 1;
}

/* Append the lines of text (newline-separated, may be NULL) to reply as
 * an array of strings. */
int schedule_bus_append_lines(sd_bus_message *reply, const char *text) {
        int r = sd_bus_message_open_container(reply, 'a', "s");

        for (const char *p = text; r >= 0 && p && *p;) {
                const char *e = strchrnul(p, '\n');
                _cleanup_free_ char *w = strndup(p, (size_t) (e - p));

                r = w ? sd_bus_message_append(reply, "s", w) : -ENOMEM;
                p = *e ? e + 1 : e;
        }
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

void schedule_count_refused(Manager *m, const char *ifname) {
        Link *l = manager_find_link(m, ifname);

        if (l)
                l->counters.changes_refused++;
}

int schedule_bus_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *label = NULL, *path = NULL, *lines = NULL, *warnings = NULL, *old_text = NULL,
                            *old_origin = NULL, *errors = NULL;
        Manager *m = userdata;
        const char *ifname, *text, *origin;
        const char *dir = m->link_ctx.state_dir;
        Caller caller = {};
        bool same;
        int r;

        r = sd_bus_message_read(msg, "sss", &ifname, &text, &origin);
        if (r < 0)
                return bus_method_failed(error, r, "ApplySchedule");
        r = check_caller_args(msg, m, "ApplySchedule", ifname, origin, &caller, error);
        if (r < 0)
                return r;
        if (!dir)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "ApplySchedule(%s): tbsd keeps no state here",
                                         ifname);
        if (asprintf(&label, "ApplySchedule(%s) by %s", ifname, caller.who) < 0)
                return -ENOMEM;
        r = schedule_bus_check_document(m, &caller, label, ifname, text, &lines, &warnings);
        if (r < 0)
                return r;
        if (r > 0) {
                schedule_count_refused(m, ifname);
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s", lines);
        }

        path = schedule_store_path(dir, ifname);
        if (!path)
                return -ENOMEM;
        r = schedule_store_read(dir, ifname, &old_text, &old_origin);
        if (r < 0 && r != -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot read %s: %s", label, path, strerror(-r));
        same = old_text && strcmp(old_text, text) == 0 && strcmp(old_origin, origin) == 0;
        if (same && schedule_in_force(m, ifname, path))
                goto answer;    /* that very document is in force: nothing to do */

        r = schedule_store_write(dir, ifname, text, origin);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot keep the document in %s: %s", label,
                                         path, strerror(-r));
        (void) manager_reload(m, &errors);
        if (!schedule_in_force(m, ifname, path)) {
                _cleanup_free_ char *about = load_errors_about(errors, path, label);
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
                r = schedule_bus_append_lines(reply, warnings);
        if (r < 0)
                return bus_method_failed(error, r, "ApplySchedule");
        return sd_bus_send(NULL, reply, NULL);
}

int schedule_bus_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *old_text = NULL, *old_origin = NULL, *errors = NULL;
        Manager *m = userdata;
        const char *ifname, *origin, *file;
        const char *dir = m->link_ctx.state_dir;
        Caller caller = {};
        int r;

        r = sd_bus_message_read(msg, "ss", &ifname, &origin);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        r = check_caller_args(msg, m, "RemoveSchedule", ifname, origin, &caller, error);
        if (r < 0)
                return r;
        file = schedule_declared_by_file(m, ifname);
        if (file)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "RemoveSchedule(%s) by %s: interface: %s is configured by %s, not over "
                                         "the bus; that file is the operator's", ifname, caller.who, ifname, file);
        r = dir ? schedule_store_read(dir, ifname, &old_text, &old_origin) : -ENOENT;
        if (r == -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK,
                                         "RemoveSchedule(%s) by %s: interface: no schedule was given for %s with "
                                         "ApplySchedule", ifname, caller.who, ifname);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        r = schedule_store_drop(dir, ifname);
        if (r < 0)
                return bus_method_failed(error, r, "RemoveSchedule");
        (void) manager_reload(m, &errors);
        log_info("RemoveSchedule(%s) by %s: schedule of origin %s removed, origin %s", ifname, caller.who, old_origin,
                 origin);
        return sd_bus_reply_method_return(msg, NULL);
}

int schedule_bus_get(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *text = NULL, *origin = NULL, *safe = NULL;
        Manager *m = userdata;
        const char *ifname, *path, *shown;
        DiagList diags = {};
        Caller caller = {};
        size_t len;
        Link *l;
        int r;

        r = sd_bus_message_read(msg, "s", &ifname);
        if (r < 0)
                return bus_method_failed(error, r, "GetSchedule");
        r = schedule_bus_admit(msg, m, "GetSchedule", &caller, error);
        if (r < 0)
                return r;
        l = manager_find_link(m, ifname);
        if (!l || !l->schedule_file) {
                shown = text_safe(ifname, &safe);
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK, "GetSchedule: no schedule for '%.*s'",
                                         (int) utf8_cut(shown, 64), shown);
        }
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

/* ListSchedules(): at most this many bytes of documents in one answer
 * (under the system bus' largest message, 32 MiB by default). */
#define LIST_MAX_BYTES (24 * 1024 * 1024)

/* ListSchedules() and, with_generation, ListSchedulesGeneration(): the
 * answer's generation is of the documents listed (nothing runs between). */
static int list_schedules(sd_bus_message *msg, Manager *m, bool with_generation, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        const char *dir = m->link_ctx.state_dir, *want;
        const char *method = with_generation ? TBS_METHOD_LIST_SCHEDULES_GENERATION : TBS_METHOD_LIST_SCHEDULES;
        _cleanup_close_ int dfd = -EBADF;
        char **names = NULL;
        Caller caller = {};
        size_t bytes = 0, listed = 0;
        uint64_t t0 = now_usec(CLOCK_MONOTONIC);
        int r;

        r = sd_bus_message_read(msg, "s", &want);
        if (r < 0)
                return bus_method_failed(error, r, method);
        r = schedule_bus_admit(msg, m, method, &caller, error);
        if (r < 0)
                return r;
        r = dir ? schedule_store_list(dir, &names, NULL) : 0;
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "ListSchedules by %s: cannot read %s/%s: %s", caller.who,
                                         dir, SCHEDULE_STORE_SUBDIR, strerror(-r));
        /* The folder opened once for all its documents; none listed: none read. */
        dfd = names && names[0] ? schedule_store_open(dir, false) : -ENOENT;
        schedule_store_cache_prune(m->store_cache, names);
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(sss)");
        for (char **p = names; r >= 0 && p && *p; p++) {
                _cleanup_free_ char *text = NULL, *origin = NULL;

                if (link_name_refusal(*p))
                        continue;       /* no interface's: not a document ApplySchedule kept */
                r = dfd < 0 ? dfd : schedule_store_read_cached(dfd, &m->store_cache, *p, &text, &origin);
                if (r == -ENOENT) {     /* dropped meanwhile */
                        r = 0;
                        continue;
                }
                if (r < 0) {
                        r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "ListSchedules by %s: cannot read %s's "
                                              "document: %s", caller.who, *p, strerror(-r));
                        break;
                }
                if (want[0] && strcmp(want, origin) != 0)
                        continue;
                if (!utf8_is_valid_n(text, strlen(text)))
                        continue;       /* written by hand: GetSchedule says why */
                bytes += strlen(text);
                if (bytes > LIST_MAX_BYTES) {
                        r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "ListSchedules by %s: the documents kept are "
                                              "larger than %d bytes together; read them with GetSchedule", caller.who,
                                              LIST_MAX_BYTES);
                        break;
                }
                r = sd_bus_message_append(reply, "(sss)", *p, text, origin);
                listed++;
        }
        schedule_store_list_free(names);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0 && with_generation)
                r = sd_bus_message_append(reply, "t", m->store_generation);
        if (r >= 0) {
                log_debug("%s by %s: %zu documents, %.1f ms", method, caller.who, listed,
                          (double) (now_usec(CLOCK_MONOTONIC) - t0) / 1e3);
                return sd_bus_send(NULL, reply, NULL);
        }
        return sd_bus_error_is_set(error) ? r : bus_method_failed(error, r, method);
}

int schedule_bus_list(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return list_schedules(msg, userdata, false, error);
}

int schedule_bus_list_generation(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return list_schedules(msg, userdata, true, error);
}

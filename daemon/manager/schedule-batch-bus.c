/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.ApplySchedules(), ApplySchedulesBefore(), ApplySchedulesIfGeneration()
 * and ValidateSchedules():
 * many interfaces' documents in one call, checked with what ApplySchedule()
 * checks one with (schedule-bus.c, schedule-bus-internal.h), kept and
 * applied in one load, every one put back when any is refused; or, for
 * ValidateSchedules(), only checked. */
#include <errno.h>
#include <inttypes.h>
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
#include "schedule-store.h"
#include "sd-cleanup.h"
#include "time-util.h"
#include "utf8.h"

/* At most this many interfaces (documents and removals together) in one
 * call, and this many bytes of documents together (each within
 * SCHEDULE_MAX_BYTES). */
#define BATCH_MAX_ENTRIES 1024
#define BATCH_MAX_BYTES (16 * 1024 * 1024)

/* ApplySchedules(): one interface's part. text NULL: a removal. */
typedef struct BatchEntry {
        const char *ifname;
        const char *text;
        char *label;            /* "ApplySchedules(IFACE) by uid N" */
        char *path;             /* the store's document */
        char *old_text;         /* the store's before the call (NULL: none) */
        char *old_origin;
        bool todo;              /* written or dropped by this call */
        bool refused;           /* its document drew lines of the checks */
} BatchEntry;

static void batch_free(BatchEntry *e, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(e[i].label);
                free(e[i].path);
                free(e[i].old_text);
                free(e[i].old_origin);
        }
        free(e);
}

/* Read the a(ss) and (with_removed) the as of the call into *ret (at most
 * BATCH_MAX_ENTRIES + 1 of them: one more says "too many"). */
static int batch_read(sd_bus_message *msg, bool with_removed, BatchEntry **ret, size_t *ret_n, size_t *ret_bytes) {
        BatchEntry *e = NULL;
        size_t n = 0, bytes = 0;
        int r;

        for (int part = 0; part < (with_removed ? 2 : 1); part++) {
                r = sd_bus_message_enter_container(msg, 'a', part == 0 ? "(ss)" : "s");
                if (r < 0)
                        goto fail;
                for (;;) {
                        const char *ifname, *text = NULL;

                        r = part == 0 ? sd_bus_message_read(msg, "(ss)", &ifname, &text)
                                      : sd_bus_message_read(msg, "s", &ifname);
                        if (r < 0)
                                goto fail;
                        if (r == 0)
                                break;
                        bytes += text ? strlen(text) : 0;
                        if (n > BATCH_MAX_ENTRIES)
                                continue;       /* counted, not kept */
                        if (n % 64 == 0) {
                                BatchEntry *v = reallocarray(e, n + 64, sizeof(*e));
                                if (!v) {
                                        r = -ENOMEM;
                                        goto fail;
                                }
                                e = v;
                        }
                        e[n++] = (BatchEntry) { .ifname = ifname, .text = text };
                }
                r = sd_bus_message_exit_container(msg);
                if (r < 0)
                        goto fail;
        }
        *ret = e;
        *ret_n = n;
        *ret_bytes = bytes;
        return 0;
fail:
        batch_free(e, n);
        return r;
}

/* Put every entry done back as it was before the call (no load), in the
 * store's folder dfd, synced once. */
static void batch_put_back(Manager *m, int dfd, BatchEntry *e, size_t n) {
        const char *dir = m->link_ctx.state_dir;
        int r;

        for (size_t i = 0; i < n; i++) {
                if (!e[i].todo)
                        continue;
                r = e[i].old_text ? schedule_store_write_at(dfd, e[i].ifname, e[i].old_text,
                                                            e[i].old_origin ?: SCHEDULE_ORIGIN_UNKNOWN)
                                  : schedule_store_drop_at(dfd, e[i].ifname);
                if (r < 0)
                        log_error("%s: cannot put the previous schedule back in %s: %s", e[i].ifname, dir,
                                  strerror(-r));
        }
        r = schedule_store_sync(dfd);
        if (r < 0)
                log_error("cannot sync %s/%s after putting the previous schedules back: %s", dir,
                          SCHEDULE_STORE_SUBDIR, strerror(-r));
}

/* ApplySchedulesBefore(): how far past the caller's deadline (CLOCK_MONOTONIC,
 * microseconds; 0: none) it is now, in microseconds; 0 while it has not passed. */
static uint64_t past_deadline(uint64_t deadline_usec) {
        struct timespec ts;
        uint64_t now;

        if (deadline_usec == 0)
                return 0;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        now = (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
        return now > deadline_usec ? now - deadline_usec : 0;
}

/* The refusal of a call whose caller stopped waiting: when says at which
 * step it was found. */
static int deadline_passed(sd_bus_error *error, const char *method, const char *who, uint64_t late_usec,
                           const char *when) {
        log_warning("%s by %s: the caller's deadline passed %" PRIu64 " ms ago %s: nothing "
                    "applied", method, who, late_usec / 1000, when);
        return sd_bus_error_setf(error, TBS_ERROR_DEADLINE_PASSED,
                                 "%s by %s: the caller's deadline passed %" PRIu64 " ms ago %s: "
                                 "nothing applied", method, who, late_usec / 1000, when);
}

/* How long a call's steps took (wall, CLOCK_MONOTONIC) and the daemon's
 * CPU time in all, up to the answer (sending it may let its caller run
 * first on one CPU), for the debug line of each apply: what
 * bench/netconf-64.sh reads to tell tbsd's share of a commit. */
typedef struct BatchTimes {
        uint64_t start, checked, kept, loaded, cpu;
} BatchTimes;

static void batch_times_log(const BatchTimes *t, uint64_t end, uint64_t cpu_end, const char *method, const char *who,
                            size_t n, size_t ndone) {
        log_debug("%s by %s: %zu interfaces, %zu changed: checked %.1f ms, kept %.1f ms, loaded %.1f ms, "
                  "%.1f ms in all, CPU %.1f ms", method, who, n, ndone, (double) (t->checked - t->start) / 1e3,
                  (double) (t->kept - t->checked) / 1e3, (double) (t->loaded - t->kept) / 1e3,
                  (double) (end - t->start) / 1e3,
                  (double) (cpu_end - t->cpu) / 1e3);
}

typedef enum BatchMode {
        BATCH_APPLY,            /* ApplySchedules() */
        BATCH_APPLY_BEFORE,     /* ApplySchedulesBefore(): a fourth argument, the caller's deadline */
        BATCH_APPLY_IF_GENERATION, /* ApplySchedulesIfGeneration(): the deadline, then the generation of
                                    * the kept documents the caller's difference is against */
        BATCH_VALIDATE,         /* ValidateSchedules(): the documents only, checked, nothing kept */
} BatchMode;

/* ValidateSchedules()'s answer: the lines of the refusal ApplySchedules()
 * would give before any load (none: it would take them) and the warnings. */
static int answer_validate(sd_bus_message *msg, const char *who, const char *lines, const char *warnings) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(msg, &reply);

        if (r >= 0)
                r = schedule_bus_append_lines(reply, lines);
        if (r >= 0)
                r = schedule_bus_append_lines(reply, warnings);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        if (r >= 0)
                log_debug("ValidateSchedules by %s: %s", who, lines ? "would be refused" : "would be taken");
        return r;
}

/* ApplySchedules(), ApplySchedulesBefore() and ValidateSchedules(). A call
 * whose deadline passed before it is answered changes nothing: its caller
 * has given up and will not learn of it (a NETCONF commit that timed out
 * is not applied later). ValidateSchedules() goes through the same checks
 * with the same caller, bounds and names, and stops before the store: a
 * NETCONF <validate> asks what a commit would be told. */
static int apply_many(sd_bus_message *msg, Manager *m, BatchMode mode, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *lines = NULL, *warnings = NULL, *errors = NULL;
        const char *dir = m->link_ctx.state_dir, *origin = SCHEDULE_ORIGIN_UNKNOWN, *why;
        const char *method = mode == BATCH_APPLY_BEFORE        ? "ApplySchedulesBefore"
                           : mode == BATCH_APPLY_IF_GENERATION ? TBS_METHOD_APPLY_SCHEDULES_IF_GENERATION
                           : mode == BATCH_VALIDATE            ? "ValidateSchedules"
                                                               : "ApplySchedules";
        const char *label_method = mode == BATCH_VALIDATE ? "ValidateSchedules" : "ApplySchedules";
        bool with_deadline = mode == BATCH_APPLY_BEFORE || mode == BATCH_APPLY_IF_GENERATION;
        bool with_generation = mode == BATCH_APPLY_IF_GENERATION;
        _cleanup_close_ int dfd = -EBADF;
        BatchEntry *e = NULL;
        size_t n = 0, bytes = 0, ndone = 0;
        uint64_t deadline = 0, generation = 0, late;
        bool kernel = false;
        Caller caller = {};
        BatchTimes t = { .start = now_usec(CLOCK_MONOTONIC), .cpu = now_usec(CLOCK_PROCESS_CPUTIME_ID) };
        int r;

        r = batch_read(msg, mode != BATCH_VALIDATE, &e, &n, &bytes);
        if (r >= 0 && mode != BATCH_VALIDATE)
                r = sd_bus_message_read(msg, "s", &origin);
        if (r >= 0 && with_deadline)
                r = sd_bus_message_read(msg, "t", &deadline);
        if (r >= 0 && with_generation)
                r = sd_bus_message_read(msg, "t", &generation);
        if (r < 0) {
                batch_free(e, n);
                return bus_method_failed(error, r, method);
        }
        r = schedule_bus_admit(msg, m, method, &caller, error);
        if (r < 0)
                goto out;
        if (with_deadline && deadline == 0) {
                r = sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                      "%s by %s: deadline: 0 is not a time", method, caller.who);
                goto out;
        }
        late = past_deadline(deadline);
        if (late > 0) {
                r = deadline_passed(error, method, caller.who, late, "when tbsd took the call");
                goto out;
        }
        /* The caller's difference is against the documents kept at its
         * generation: against any other it could undo another caller's
         * change. Nothing below runs another call before the store is
         * written, so it holds until then. */
        if (with_generation && generation != m->store_generation) {
                log_debug("%s by %s: generation %" PRIu64 " given, %" PRIu64 " now: nothing applied", method,
                          caller.who, generation, m->store_generation);
                r = sd_bus_error_setf(error, TBS_ERROR_GENERATION_CHANGED,
                                      "%s by %s: the kept documents changed since generation %" PRIu64
                                      " (now %" PRIu64 "): nothing applied; list them again", method, caller.who,
                                      generation, m->store_generation);
                goto out;
        }
        if (n > BATCH_MAX_ENTRIES) {
                r = sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS,
                                      "%s by %s: more than %d interfaces in one call", label_method, caller.who,
                                      BATCH_MAX_ENTRIES);
                goto out;
        }
        if (bytes > BATCH_MAX_BYTES) {
                r = sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                      "%s by %s: the documents are larger than %d bytes together",
                                      label_method, caller.who, BATCH_MAX_BYTES);
                goto out;
        }
        if (!schedule_origin_valid(origin, &why)) {
                r = sd_bus_error_setf(error, TBS_ERROR_INVALID_ARGUMENTS, "ApplySchedules by %s: origin: %s",
                                      caller.who, why);
                goto out;
        }
        if (!dir) {
                r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "ApplySchedules: tbsd keeps no state here");
                goto out;
        }
        for (size_t i = 0; i < n; i++)
                if ((why = link_name_refusal(e[i].ifname))) {
                        r = schedule_bus_refuse_ifname(error, label_method, caller.who, e[i].ifname, why);
                        goto out;
                }

        /* Every entry checked before anything is written. */
        for (size_t i = 0; i < n; i++) {
                size_t before = lines ? strlen(lines) : 0;
                const char *file;
                bool twice = false;

                if (asprintf(&e[i].label, "%s(%s) by %s", label_method, e[i].ifname, caller.who) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                for (size_t j = 0; j < i && !twice; j++)
                        twice = strcmp(e[j].ifname, e[i].ifname) == 0;
                if (twice)
                        r = schedule_lines_addf(&lines, "%s: interface: %s is given more than once", e[i].label,
                                       e[i].ifname);
                else if (e[i].text)
                        r = schedule_bus_check_document(m, &caller, e[i].label, e[i].ifname, e[i].text, &lines, &warnings);
                else if ((file = schedule_declared_by_file(m, e[i].ifname)))
                        r = schedule_lines_addf(&lines, "%s: interface: %s is configured by %s, not over the bus; that file "
                                       "is the operator's", e[i].label, e[i].ifname, file);
                else
                        r = 0;
                if (r < 0)
                        goto out;
                e[i].refused = (lines ? strlen(lines) : 0) > before;
        }
        if (mode == BATCH_VALIDATE) {
                r = answer_validate(msg, caller.who, lines, warnings);
                if (r < 0)
                        r = bus_method_failed(error, r, method);
                goto out;
        }
        if (lines) {
                for (size_t i = 0; i < n; i++)
                        if (e[i].refused)
                                schedule_count_refused(m, e[i].ifname);
                log_warning("ApplySchedules by %s refused:\n%s", caller.who, lines);
                r = sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s", lines);
                goto out;
        }

        t.checked = t.kept = t.loaded = now_usec(CLOCK_MONOTONIC);
        /* What changes: a document not in force already, a removal of a kept one. */
        dfd = schedule_store_open(dir, false);  /* -ENOENT: no store yet, nothing kept */
        for (size_t i = 0; i < n; i++) {
                e[i].path = schedule_store_path(dir, e[i].ifname);
                if (!e[i].path) {
                        r = -ENOMEM;
                        goto out;
                }
                r = dfd < 0 ? dfd : schedule_store_read_cached(dfd, &m->store_cache, e[i].ifname, &e[i].old_text,
                                                               &e[i].old_origin);
                if (r < 0 && r != -ENOENT) {
                        r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot read %s: %s", e[i].label,
                                              e[i].path, strerror(-r));
                        goto out;
                }
                if (e[i].text)
                        e[i].todo = !(e[i].old_text && strcmp(e[i].old_text, e[i].text) == 0 &&
                                      strcmp(e[i].old_origin, origin) == 0 && schedule_in_force(m, e[i].ifname, e[i].path));
                else
                        e[i].todo = e[i].old_text != NULL;
                ndone += e[i].todo;
        }
        if (ndone == 0)
                goto answer;
        late = past_deadline(deadline);
        if (late > 0) {
                r = deadline_passed(error, method, caller.who, late, "after the documents were checked");
                goto out;
        }

        /* Each document written and synced, the folder synced once after
         * the last: the answer comes after, so every change it reports is
         * on disk. */
        if (dfd < 0)
                dfd = schedule_store_open(dir, true);
        for (size_t i = 0; i < n; i++) {
                if (!e[i].todo)
                        continue;
                r = dfd < 0 ? dfd
                    : e[i].text ? schedule_store_write_at(dfd, e[i].ifname, e[i].text, origin)
                                : schedule_store_drop_at(dfd, e[i].ifname);
                if (r < 0) {
                        e[i].todo = false;      /* not changed: nothing to put back */
                        if (dfd >= 0)
                                batch_put_back(m, dfd, e, n);
                        r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot %s %s: %s", e[i].label,
                                              e[i].text ? "keep the document in" : "remove", e[i].path,
                                              strerror(-r));
                        goto out;
                }
        }
        r = schedule_store_sync(dfd);
        if (r < 0) {
                batch_put_back(m, dfd, e, n);
                r = sd_bus_error_setf(error, TBS_ERROR_FAILED, "ApplySchedules by %s: cannot sync %s/%s: %s",
                                      caller.who, dir, SCHEDULE_STORE_SUBDIR, strerror(-r));
                goto out;
        }
        /* One load for all of them. */
        t.kept = now_usec(CLOCK_MONOTONIC);
        (void) manager_reload(m, &errors);
        t.loaded = now_usec(CLOCK_MONOTONIC);
        r = 0;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *about = NULL;
                Link *l;

                if (!e[i].todo || !e[i].text || schedule_in_force(m, e[i].ifname, e[i].path))
                        continue;
                l = manager_find_link(m, e[i].ifname);
                about = load_errors_about(errors, e[i].path, e[i].label);
                if (l && l->schedule && strcmp(l->schedule_file ?: "", e[i].path) == 0)
                        kernel = true;
                r = about ? schedule_lines_addf(&lines, "%s", about)
                          : schedule_lines_addf(&lines, "%s: %s", e[i].label,
                                       l && l->state_reason ? l->state_reason : "the schedule was not applied");
                if (r < 0)
                        break;
        }
        late = r >= 0 && !lines ? past_deadline(deadline) : 0;
        if (lines || r < 0 || late > 0) {
                _cleanup_free_ char *again = NULL;

                if (late > 0) {
                        batch_put_back(m, dfd, e, n);
                        (void) manager_reload(m, &again);
                        r = deadline_passed(error, method, caller.who, late, "when the load ended (every interface put back)");
                        goto out;
                }

                batch_put_back(m, dfd, e, n);
                (void) manager_reload(m, &again);
                log_warning("ApplySchedules by %s refused, %zu interfaces put back:\n%s", caller.who, ndone,
                            lines ?: "out of memory");
                if (r < 0)
                        goto out;
                r = sd_bus_error_setf(error, kernel ? TBS_ERROR_APPLY_FAILED : TBS_ERROR_INVALID_SCHEDULE, "%s",
                                      lines);
                goto out;
        }
        for (size_t i = 0; i < n; i++)
                if (e[i].todo)
                        log_info("%s: schedule %s, origin %s", e[i].label, e[i].text ? "applied" : "removed",
                                 origin);

answer:
        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; r >= 0 && i < n; i++)
                if (e[i].todo)
                        r = sd_bus_message_append(reply, "s", e[i].ifname);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = schedule_bus_append_lines(reply, warnings);
        if (r >= 0 && with_generation)
                r = sd_bus_message_append(reply, "t", m->store_generation);
        if (r >= 0) {
                uint64_t end = now_usec(CLOCK_MONOTONIC), cpu_end = now_usec(CLOCK_PROCESS_CPUTIME_ID);

                r = sd_bus_send(NULL, reply, NULL);
                if (r >= 0)
                        batch_times_log(&t, end, cpu_end, method, caller.who, n, ndone);
        } else
                r = bus_method_failed(error, r, method);
out:
        batch_free(e, n);
        return r;
}

int schedule_bus_apply_many(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return apply_many(msg, userdata, BATCH_APPLY, error);
}

int schedule_bus_apply_before(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return apply_many(msg, userdata, BATCH_APPLY_BEFORE, error);
}

int schedule_bus_apply_if_generation(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return apply_many(msg, userdata, BATCH_APPLY_IF_GENERATION, error);
}

int schedule_bus_validate_many(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        return apply_many(msg, userdata, BATCH_VALIDATE, error);
}

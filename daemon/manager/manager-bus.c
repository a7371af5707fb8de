/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bus-access.h"
#include "diag.h"
#include "bus-queue.h"
#include "device-bus.h"
#include "link-bus.h"
#include "log.h"
#include "manager-bus.h"
#include "schedule-bus.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "sd-cleanup.h"
#include "time-util.h"
#include "utf8.h"

/* The Manager object on the bus (/org/tsn/Tbs), the bus connection, and
 * the filter that keeps every answer of a tbsd method an
 * org.tsn.Tbs.Error.*. The Link objects are link-bus.c's. */

/* sd-bus refuses callers without CAP_SYS_ADMIN on methods not marked
 * unprivileged. Every method is open at that level: tbsd decides itself
 * who may call the privileged ones (bus-access.c). */
#define UNPRIVILEGED SD_BUS_VTABLE_UNPRIVILEGED

/* Upper bound for a schedule handed to Validate(); files have the same. */
#define VALIDATE_MAX_BYTES (1024 * 1024)

/* ---- Manager ---- */

static int method_list_links(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        Manager *m = userdata;
        int r;

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return bus_method_failed(error, r, "ListLinks");
        r = sd_bus_message_open_container(reply, 'a', "(sos)");
        if (r < 0)
                return bus_method_failed(error, r, "ListLinks");
        for (size_t i = 0; i < m->n_links; i++) {
                _cleanup_free_ char *path = NULL;
                Link *l = m->links[i];

                r = link_object_path(l->name, &path);
                if (r >= 0)
                        r = sd_bus_message_append(reply, "(sos)", l->name, path, link_state_to_string(l->state));
                if (r < 0)
                        return bus_method_failed(error, r, "ListLinks");
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return bus_method_failed(error, r, "ListLinks");
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_link(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        Manager *m = userdata;
        const char *name, *shown;
        Link *l;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return bus_method_failed(error, r, "GetLink");
        l = manager_find_link(m, name);
        if (!l) {
                /* escaped: one line; cut at a character boundary: the
                 * error must stay UTF-8 */
                shown = text_safe(name, &buf);
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK, "no link named '%.*s'",
                                         (int) utf8_cut(shown, 64), shown);
        }
        r = link_object_path(l->name, &path);
        if (r < 0)
                return bus_method_failed(error, r, "GetLink");
        return sd_bus_reply_method_return(msg, "o", path);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *errors = NULL;
        Manager *m = userdata;
        int r;

        r = bus_access_require(msg, m->admin_group, m->refusals, "Reload", error);
        if (r < 0)
                return r;
        r = manager_reload(m, &errors);
        if (r < 0 && errors) /* a line per invalid file, or why the folder is refused */
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s", errors);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s",
                                         errors ?: "invalid schedule");
        if (r < 0)
                return bus_method_failed(error, r, "reload failed");
        return sd_bus_reply_method_return(msg, NULL);
}

/* Validate() is open to everyone and its cost follows the document: an
 * untrusted caller (neither uid 0 nor the admin group) is admitted while
 * its user and all untrusted callers together have CPU time left
 * (cpu-budget.h), and the time the call took is then charged. Returns 1
 * (go on; *ret_charge: whether to charge *ret_uid), or 0 with the refusal
 * in error. */
static int validate_admit(Manager *m, sd_bus_message *msg, uid_t *ret_uid, bool *ret_charge, sd_bus_error *error) {
        uint64_t wait_usec;
        bool trusted, all;
        uid_t uid;
        int r;

        if (!cpu_budget_sender_find(&m->validate_budget, sd_bus_message_get_sender(msg), now_usec(CLOCK_MONOTONIC),
                                    &uid, &trusted)) {
                r = bus_access_caller(msg, m->admin_group, &uid, &trusted);
                if (r < 0) {
                        sd_bus_error_setf(error, TBS_ERROR_ACCESS_DENIED,
                                          "Validate: the bus did not vouch for the caller's user id: %s",
                                          strerror(-r));
                        return 0;
                }
                cpu_budget_sender_remember(&m->validate_budget, sd_bus_message_get_sender(msg),
                                           now_usec(CLOCK_MONOTONIC), uid, trusted);
        }
        *ret_uid = uid;
        *ret_charge = !trusted;
        if (trusted || cpu_budget_admit(&m->validate_budget, uid, now_usec(CLOCK_MONOTONIC), &wait_usec, &all))
                return 1;
        refusal_log_note(m->refusals, uid, "Validate to uid %u: %s CPU budget for it is used up", (unsigned) uid,
                         all ? "the unprivileged callers'" : "its");
        sd_bus_error_setf(error, TBS_ERROR_LIMIT_EXCEEDED,
                          "Validate: %s of CPU time for Validate() (%d ms a second%s) is used up; try again in "
                          "%" PRIu64 " ms", all ? "the budget of all callers other than root and the admin group"
                                                : "this user's budget",
                          (all ? CPU_BUDGET_ALL_RATE_USEC_PER_S : CPU_BUDGET_USER_RATE_USEC_PER_S) / 1000,
                          all ? " for them together" : "", (wait_usec + 999) / 1000);
        return 0;
}

static int method_validate(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        Manager *m = userdata;
        DiagList diags = {};
        const char *text;
        uint64_t cpu0;
        bool charge;
        uid_t uid;
        int r;

        r = sd_bus_message_read(msg, "s", &text);
        if (r < 0)
                return bus_method_failed(error, r, "Validate");
        if (strlen(text) > VALIDATE_MAX_BYTES)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "schedule is larger than %d bytes", VALIDATE_MAX_BYTES);
        r = validate_admit(m, msg, &uid, &charge, error);
        if (r == 0)
                return -EBUSY;  /* the refusal is in error */
        cpu0 = now_usec(CLOCK_THREAD_CPUTIME_ID);
        r = schedule_parse_json("<Validate>", text, strlen(text), &diags, &s);
        if (r >= 0)
                (void) schedule_verify(s, NULL, &diags);
        if (charge)
                cpu_budget_charge(&m->validate_budget, uid, now_usec(CLOCK_MONOTONIC),
                                  now_usec(CLOCK_THREAD_CPUTIME_ID) - cpu0);

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "b", diag_errors(&diags) == 0);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; r >= 0 && i < diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&diags.items[i]);
                r = line ? sd_bus_message_append(reply, "s", line) : -ENOMEM;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        diag_list_clear(&diags);
        if (r < 0)
                return bus_method_failed(error, r, "Validate");
        return sd_bus_send(NULL, reply, NULL);
}

static int property_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", TBS_VERSION);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", property_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ConfigDirectory", "s", NULL, offsetof(Manager, config_dir),
                        SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_LIST_LINKS, SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sos)", links),
                                method_list_links, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetLink", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", path),
                                method_get_link, UNPRIVILEGED),
        SD_BUS_METHOD("Reload", NULL, NULL, method_reload, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Validate", SD_BUS_ARGS("s", schedule_json),
                                SD_BUS_RESULT("b", ok, "as", errors), method_validate, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ApplySchedule", SD_BUS_ARGS("s", interface, "s", schedule_json, "s", origin),
                                SD_BUS_RESULT("b", changed, "as", warnings), schedule_bus_apply, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ApplySchedules",
                                SD_BUS_ARGS("a(ss)", interfaces_and_documents, "as", removed_interfaces, "s", origin),
                                SD_BUS_RESULT("as", changed, "as", warnings), schedule_bus_apply_many, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_APPLY_SCHEDULES_BEFORE,
                                SD_BUS_ARGS("a(ss)", interfaces_and_documents, "as", removed_interfaces, "s", origin,
                                            "t", deadline_usec),
                                SD_BUS_RESULT("as", changed, "as", warnings), schedule_bus_apply_before, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_APPLY_SCHEDULES_IF_GENERATION,
                                SD_BUS_ARGS("a(ss)", interfaces_and_documents, "as", removed_interfaces, "s", origin,
                                            "t", deadline_usec, "t", generation),
                                SD_BUS_RESULT("as", changed, "as", warnings, "t", generation),
                                schedule_bus_apply_if_generation, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ValidateSchedules", SD_BUS_ARGS("a(ss)", interfaces_and_documents),
                                SD_BUS_RESULT("as", problems, "as", warnings), schedule_bus_validate_many,
                                UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveSchedule", SD_BUS_ARGS("s", interface, "s", origin), SD_BUS_NO_RESULT,
                                schedule_bus_remove, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetSchedule", SD_BUS_ARGS("s", interface),
                                SD_BUS_RESULT("s", schedule_json, "s", origin, "s", path), schedule_bus_get,
                                UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_LIST_SCHEDULES, SD_BUS_ARGS("s", origin), SD_BUS_RESULT("a(sss)", schedules),
                                schedule_bus_list, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_LIST_SCHEDULES_GENERATION, SD_BUS_ARGS("s", origin),
                                SD_BUS_RESULT("a(sss)", schedules, "t", generation), schedule_bus_list_generation,
                                UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_GET_CAPABILITIES, SD_BUS_ARGS("s", interface),
                                SD_BUS_RESULT("s", capabilities_json), device_bus_capabilities, UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS(TBS_SIGNAL_EVENT, SD_BUS_ARGS("s", link, "s", kind, "s", message), 0),
        SD_BUS_VTABLE_END,
};

/* The input signature of member in vtable; false when it has no such method. */
static bool vtable_method(const sd_bus_vtable *vt, const char *member, const char **ret_signature) {
        for (; vt->type != _SD_BUS_VTABLE_END; vt++)
                if (vt->type == _SD_BUS_VTABLE_METHOD && strcmp(vt->x.method.member, member) == 0) {
                        *ret_signature = vt->x.method.signature ?: "";
                        return true;
                }
        return false;
}

/* Runs before sd-bus dispatches a message. Two checks sd-bus would answer
 * with generic names are made here, so that every answer of a tbsd method
 * is an org.tsn.Tbs.Error.*: a call on the link of a name that has none
 * (sd-bus: UnknownObject) is NoSuchLink, and arguments of the wrong types
 * (sd-bus: InvalidArgs) are InvalidArguments. Unknown methods and the
 * standard interfaces (Properties, Introspectable, Peer, ObjectManager)
 * keep the standard org.freedesktop.DBus.Error.* names. */
static int on_bus_filter(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *name = NULL, *buf = NULL;
        const char *iface, *member, *path, *want = NULL;
        const sd_bus_vtable *vt;
        Manager *m = userdata;
        int r;

        if (!sd_bus_message_is_method_call(msg, NULL, NULL))
                return 0;
        iface = sd_bus_message_get_interface(msg);
        member = sd_bus_message_get_member(msg);
        path = sd_bus_message_get_path(msg);
        if (!member || !path)
                return 0;

        if (strcmp(path, TBS_MANAGER_PATH) == 0 && (!iface || strcmp(iface, TBS_MANAGER_IFACE) == 0))
                vt = manager_vtable;
        else if (!iface || strcmp(iface, TBS_LINK_IFACE) == 0) {
                r = sd_bus_path_decode(path, TBS_LINK_PATH_PREFIX, &name);
                if (r <= 0)
                        return 0;
                vt = link_bus_vtable;
        } else
                return 0;
        if (!vtable_method(vt, member, &want))
                return 0;         /* not ours: sd-bus answers (UnknownMethod, or another interface's) */
        if (name && !manager_find_link(m, name)) {
                /* a decoded path may hold any byte: escaped, and cut at a character */
                const char *shown = text_safe(name, &buf);

                r = sd_bus_reply_method_errorf(msg, TBS_ERROR_NO_SUCH_LINK, "no link named '%.*s'",
                                               (int) utf8_cut(shown, 64), shown);
        }
        else if (strcmp(sd_bus_message_get_signature(msg, true) ?: "", want) != 0)
                r = sd_bus_reply_method_errorf(msg, TBS_ERROR_INVALID_ARGUMENTS,
                                               "%s takes arguments of type '%s', not '%.32s'", member, want,
                                               sd_bus_message_get_signature(msg, true) ?: "");
        else
                return 0;
        return r < 0 ? r : 1;     /* answered: no further dispatch */
}

static void on_manager_event(Manager *m, const char *link, const char *kind, const char *message) {
        bus_queue_signal_sss(m->bus_queue, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, TBS_SIGNAL_EVENT, link, kind, message);
}

static const ManagerObserver bus_observer = {
        .link_added = link_bus_added,
        .link_removed = link_bus_removed,
        .event = on_manager_event,
};

int manager_connect_bus(Manager *m) {
        int r;

        r = refusal_log_new(m->event, &m->refusals);
        if (r < 0)
                return log_error_errno(r, "cannot set up the refusal log: %m");
        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                return log_error_errno(r, "cannot connect to the system bus: %m");
        r = sd_bus_add_filter(m->bus, NULL, on_bus_filter, m);
        if (r < 0)
                return log_error_errno(r, "cannot add the bus filter: %m");
        r = sd_bus_add_object_manager(m->bus, NULL, TBS_MANAGER_PATH);
        if (r < 0)
                return log_error_errno(r, "cannot add the object manager: %m");
        r = sd_bus_add_object_vtable(m->bus, NULL, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, manager_vtable, m);
        if (r < 0)
                return log_error_errno(r, "cannot register %s: %m", TBS_MANAGER_PATH);
        r = sd_bus_add_fallback_vtable(m->bus, NULL, TBS_LINK_PATH_PREFIX, TBS_LINK_IFACE, link_bus_vtable,
                                       link_bus_find, m);
        if (r < 0)
                return log_error_errno(r, "cannot register the link objects: %m");
        r = sd_bus_add_node_enumerator(m->bus, NULL, TBS_LINK_PATH_PREFIX, link_bus_enumerate, m);
        if (r < 0)
                return log_error_errno(r, "cannot register the link enumerator: %m");
        r = sd_bus_request_name(m->bus, TBS_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "cannot own the bus name %s: %m", TBS_BUS_NAME);
        r = sd_bus_attach_event(m->bus, m->event, 0);
        if (r < 0)
                return log_error_errno(r, "cannot attach the bus to the event loop: %m");
        r = bus_queue_new(m->bus, m->event, &m->bus_queue);
        if (r < 0)
                return log_error_errno(r, "cannot set up the bus signal queue: %m");

        /* From now on the manager and its links tell the bus. */
        m->observer = &bus_observer;
        m->link_ctx.on_properties_changed = link_bus_properties_changed;
        m->link_ctx.bus_userdata = m->bus_queue;
        return 0;
}

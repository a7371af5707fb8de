/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <inttypes.h>
#include <math.h>

#include "bus-access.h"
#include "json-util.h"
#include "bus-manager.h"
#include "diag.h"
#include "log.h"
#include "nl-qdisc.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "sd-cleanup.h"
#include "utf8.h"

/* sd-bus refuses callers without CAP_SYS_ADMIN on methods not marked
 * unprivileged. Every method is open at that level: tbsd decides itself
 * who may call the privileged ones (bus-access.c). */
#define UNPRIVILEGED SD_BUS_VTABLE_UNPRIVILEGED

/* Upper bound for a schedule handed to Validate(); files have the same. */
#define VALIDATE_MAX_BYTES (1024 * 1024)

static int check_privileged(sd_bus_message *msg, Manager *m, const char *method, sd_bus_error *error) {
        int r = bus_access_check(msg, m->admin_group, m->refusals, method, error);
        if (r == 0)
                return -EACCES;
        return r < 0 ? r : 0;
}

/* Every error a method of tbsd answers is an org.tsn.Tbs.Error.*
 * (dbus/org.tsn.Tbs.xml): an internal failure (out of memory, a reply that
 * could not be built, a dump that failed) is Error.Failed with the errno's
 * text, never the errno-mapped generic name sd-bus would pick. */
static int method_failed(sd_bus_error *error, int r, const char *what) {
        return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: %s", what, strerror(r < 0 ? -r : r));
}

int link_object_path(const char *name, char **ret) {
        return sd_bus_path_encode(TBS_LINK_PATH_PREFIX, name, ret);
}

/* ---- Manager ---- */

static int method_list_links(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        Manager *m = userdata;
        int r;

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r < 0)
                return method_failed(error, r, "ListLinks");
        r = sd_bus_message_open_container(reply, 'a', "(sos)");
        if (r < 0)
                return method_failed(error, r, "ListLinks");
        for (size_t i = 0; i < m->n_links; i++) {
                Link *l = m->links[i];
                r = sd_bus_message_append(reply, "(sos)", l->name, l->object_path,
                                          link_state_to_string(l->state));
                if (r < 0)
                        return method_failed(error, r, "ListLinks");
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return method_failed(error, r, "ListLinks");
        return sd_bus_send(NULL, reply, NULL);
}

static int method_get_link(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Manager *m = userdata;
        const char *name;
        Link *l;
        int r;

        r = sd_bus_message_read(msg, "s", &name);
        if (r < 0)
                return method_failed(error, r, "GetLink");
        l = manager_find_link(m, name);
        if (!l)
                /* cut at a character boundary: the error must stay UTF-8 */
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK, "no link named '%.*s'",
                                         (int) utf8_cut(name, 64), name);
        return sd_bus_reply_method_return(msg, "o", l->object_path);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *errors = NULL;
        Manager *m = userdata;
        int r;

        r = check_privileged(msg, m, "Reload", error);
        if (r < 0)
                return r;
        r = manager_reload(m, &errors);
        if (r < 0 && errors) /* a line per invalid file, or why the folder is refused */
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s", errors);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s",
                                         errors ?: "invalid schedule");
        if (r < 0)
                return method_failed(error, r, "reload failed");
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_validate(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList diags = {};
        const char *text;
        int r;

        r = sd_bus_message_read(msg, "s", &text);
        if (r < 0)
                return method_failed(error, r, "Validate");
        if (strlen(text) > VALIDATE_MAX_BYTES)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE,
                                         "schedule is larger than %d bytes", VALIDATE_MAX_BYTES);
        r = schedule_parse_json("<Validate>", text, strlen(text), &diags, &s);
        if (r >= 0)
                (void) schedule_verify(s, NULL, &diags);

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
                return method_failed(error, r, "Validate");
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
        SD_BUS_METHOD_WITH_ARGS("ListLinks", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sos)", links),
                                method_list_links, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetLink", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", path),
                                method_get_link, UNPRIVILEGED),
        SD_BUS_METHOD("Reload", NULL, NULL, method_reload, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Validate", SD_BUS_ARGS("s", schedule_json),
                                SD_BUS_RESULT("b", ok, "as", errors), method_validate, UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("Event", SD_BUS_ARGS("s", link, "s", kind, "s", message), 0),
        SD_BUS_VTABLE_END,
};

/* ---- Link ---- */

static int link_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
                     void **ret_found, sd_bus_error *error) {
        _cleanup_free_ char *name = NULL;
        Manager *m = userdata;
        Link *l;
        int r;

        r = sd_bus_path_decode(path, TBS_LINK_PATH_PREFIX, &name);
        if (r <= 0)
                return 0;
        l = manager_find_link(m, name);
        if (!l)
                return 0;
        *ret_found = l;
        return 1;
}

static int link_enumerate(sd_bus *bus, const char *path, void *userdata, char ***ret_nodes,
                          sd_bus_error *error) {
        Manager *m = userdata;
        char **nodes;

        nodes = calloc(m->n_links + 1, sizeof(char *));
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_links; i++) {
                nodes[i] = strdup(m->links[i]->object_path);
                if (!nodes[i]) {
                        for (size_t j = 0; j < i; j++)
                                free(nodes[j]);
                        free(nodes);
                        return -ENOMEM;
                }
        }
        *ret_nodes = nodes;
        return 0;
}

static int property_link_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                                sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Link *l = userdata;
        const char *v = "";

        if (strcmp(property, "State") == 0)
                v = link_state_to_string(l->state);
        else if (strcmp(property, "StateReason") == 0)
                v = l->state_reason;
        else if (strcmp(property, "ClockState") == 0)
                v = link_clock_state(l);
        else if (strcmp(property, "Driver") == 0)
                v = link_driver(l);
        else if (strcmp(property, "Name") == 0)
                v = l->name;
        return sd_bus_message_append(reply, "s", v ?: "");
}

static int property_link_int(sd_bus *bus, const char *path, const char *interface, const char *property,
                             sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Link *l = userdata;

        if (strcmp(property, "PhcIndex") == 0)
                return sd_bus_message_append(reply, "i", (int32_t) link_phc_index(l));
        return sd_bus_message_append(reply, "i", (int32_t) l->ifindex);
}

static int property_launch_time_queues(sd_bus *bus, const char *path, const char *interface,
                                       const char *property, sd_bus_message *reply, void *userdata,
                                       sd_bus_error *error) {
        uint64_t mask = link_launch_time_mask(userdata);
        int r;

        r = sd_bus_message_open_container(reply, 'a', "u");
        for (uint32_t q = 0; r >= 0 && q < 64; q++)
                if (mask & (UINT64_C(1) << q))
                        r = sd_bus_message_append(reply, "u", q);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* Statistics: a(us ttttttttt ddd) — queue, qdisc kind, packets, bytes, drops,
 * overlimits, requeues, backlog bytes, backlog packets, deadline misses,
 * invalid, then packets/s, bytes/s and drops/s over the last interval (NaN
 * when there is no rate yet). From the last sample (a fresh one when it is
 * older than the sampling interval), or a fresh dump when sampling is off. */
static int property_statistics(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Link *l = userdata;
        QDiscTree own = {};
        const QDiscTree *t;
        int r;

        (void) manager_stats_read(l->manager);
        t = link_last_sample(l, NULL);
        if ((!t || l->manager->stats_interval_usec == 0) && l->ifindex > 0 &&
            nl_qdisc_dump(l->manager->nl, l->ifindex, &own) >= 0)
                t = &own;
        r = sd_bus_message_open_container(reply, 'a', "(ustttttttttddd)");
        for (size_t i = 0; r >= 0 && t && i < t->n_queues; i++) {
                const InstalledQueue *q = &t->queues[i];
                QueueRates rates = { .packets_per_second = NAN, .bytes_per_second = NAN, .drops_per_second = NAN };

                (void) link_queue_rates(l, q->queue, &rates);
                r = sd_bus_message_append(reply, "(ustttttttttddd)", q->queue, q->qdisc.kind,
                                          q->qdisc.stats.packets, q->qdisc.stats.bytes,
                                          (uint64_t) q->qdisc.stats.drops, (uint64_t) q->qdisc.stats.overlimits,
                                          (uint64_t) q->qdisc.stats.requeues, (uint64_t) q->qdisc.stats.backlog_bytes,
                                          (uint64_t) q->qdisc.stats.qlen, q->deadline_misses, q->invalid,
                                          rates.packets_per_second, rates.bytes_per_second,
                                          rates.drops_per_second);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        qdisc_tree_done(&own);
        return r;
}

static int method_describe(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_json_ struct json_object *doc = NULL;
        Link *l = userdata;
        const QDiscTree *t = NULL;
        int r;

        /* Rates from a recent sample; a sample taken just now is also the
         * freshest tree, so it saves Describe() its own dump. */
        if (manager_stats_read(l->manager) > 0)
                t = link_sample_taken_at(l, l->manager->stats_sampled_usec);
        r = t ? link_describe_tree(l, t, &doc) : link_describe(l, &doc);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot describe: %s", l->name, strerror(-r));
        /* What the schedule declares, beside what the kernel has (root,
         * txqueues) and why they differ (state_reason, offload_reason):
         * for Describe() only, the metrics file does not need it. */
        json_add(doc, "declared", l->schedule ? schedule_to_json(l->schedule) : NULL);
        return sd_bus_reply_method_return(msg, "s",
                                          json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
                                                                                  JSON_C_TO_STRING_NOSLASHESCAPE));
}

static int method_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *why = NULL;
        Link *l = userdata;
        int r;

        r = check_privileged(msg, l->manager, "Apply", error);
        if (r < 0)
                return r;
        if (!l->schedule)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_SCHEDULE, "%s: %s", l->name, l->state_reason);
        r = link_apply(l, &why);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_APPLY_FAILED, "%s: %s", l->name,
                                         why ?: strerror(-r));
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *why = NULL;
        Link *l = userdata;
        int r;

        r = check_privileged(msg, l->manager, "Remove", error);
        if (r < 0)
                return r;
        r = link_remove_qdiscs(l, &why);
        if (r == -EEXIST)
                return sd_bus_error_setf(error, TBS_ERROR_NOT_OWNED, "%s: %s", l->name,
                                         why ?: "the root qdisc is not tbsd's, left in place");
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_APPLY_FAILED, "%s: %s", l->name,
                                         why ?: strerror(-r));
        return sd_bus_reply_method_return(msg, NULL);
}

static int method_get_txtime_params(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        Link *l = userdata;
        uint32_t queue, prio = 0, delta = 0;
        int32_t clockid = 0;
        bool deadline = false, offload = false;
        int r;

        r = sd_bus_message_read(msg, "u", &queue);
        if (r < 0)
                return method_failed(error, r, l->name);
        r = link_txtime_params(l, queue, &prio, &clockid, &deadline, &delta, &offload);
        if (r == -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: no etf qdisc is declared on TX queue %" PRIu32, l->name, queue);
        if (r == -ENODATA)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: no socket priority maps to TX queue %" PRIu32, l->name, queue);
        if (r < 0)
                return method_failed(error, r, l->name);
        return sd_bus_reply_method_return(msg, "uibub", prio, clockid, (int) deadline, delta, (int) offload);
}

static const sd_bus_vtable link_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", property_link_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Index", "i", property_link_int, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("State", "s", property_link_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("StateReason", "s", property_link_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ClockState", "s", property_link_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LaunchTimeQueues", "au", property_launch_time_queues, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PhcIndex", "i", property_link_int, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Driver", "s", property_link_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Changes all the time: read it, it is not signalled. */
        SD_BUS_PROPERTY("Statistics", "a(ustttttttttddd)", property_statistics, 0, 0),
        SD_BUS_METHOD_WITH_ARGS("Describe", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json), method_describe, UNPRIVILEGED),
        SD_BUS_METHOD("Apply", NULL, NULL, method_apply, UNPRIVILEGED),
        SD_BUS_METHOD("Remove", NULL, NULL, method_remove, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetTxtimeParams", SD_BUS_ARGS("u", queue),
                                SD_BUS_RESULT("u", socket_priority, "i", clockid, "b", deadline_mode,
                                              "u", delta_ns, "b", offload),
                                method_get_txtime_params, UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

void link_emit_changed(Link *l, const char *first, ...) {
        Manager *m = l->manager;
        char *names[16];
        size_t n = 0;
        va_list ap;

        if (!m->bus)
                return;
        va_start(ap, first);
        for (const char *p = first; p && n < ELEMENTSOF(names) - 1; p = va_arg(ap, const char *))
                names[n++] = (char *) p;
        va_end(ap);
        names[n] = NULL;
        (void) sd_bus_emit_properties_changed_strv(m->bus, l->object_path, TBS_LINK_IFACE, names);
}

void link_bus_added(Link *l) {
        if (l->manager->bus)
                (void) sd_bus_emit_object_added(l->manager->bus, l->object_path);
}

void link_bus_removed(Link *l) {
        if (l->manager->bus)
                (void) sd_bus_emit_object_removed(l->manager->bus, l->object_path);
}

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
        _cleanup_free_ char *name = NULL;
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
                vt = link_vtable;
        } else
                return 0;
        if (!vtable_method(vt, member, &want))
                return 0;         /* not ours: sd-bus answers (UnknownMethod, or another interface's) */
        if (name && !manager_find_link(m, name))
                r = sd_bus_reply_method_errorf(msg, TBS_ERROR_NO_SUCH_LINK, "no link named '%.64s'", name);
        else if (strcmp(sd_bus_message_get_signature(msg, true) ?: "", want) != 0)
                r = sd_bus_reply_method_errorf(msg, TBS_ERROR_INVALID_ARGUMENTS,
                                               "%s takes arguments of type '%s', not '%.32s'", member, want,
                                               sd_bus_message_get_signature(msg, true) ?: "");
        else
                return 0;
        return r < 0 ? r : 1;     /* answered: no further dispatch */
}

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
        r = sd_bus_add_fallback_vtable(m->bus, NULL, TBS_LINK_PATH_PREFIX, TBS_LINK_IFACE, link_vtable,
                                       link_find, m);
        if (r < 0)
                return log_error_errno(r, "cannot register the link objects: %m");
        r = sd_bus_add_node_enumerator(m->bus, NULL, TBS_LINK_PATH_PREFIX, link_enumerate, m);
        if (r < 0)
                return log_error_errno(r, "cannot register the link enumerator: %m");
        r = sd_bus_request_name(m->bus, TBS_BUS_NAME, 0);
        if (r < 0)
                return log_error_errno(r, "cannot own the bus name %s: %m", TBS_BUS_NAME);
        r = sd_bus_attach_event(m->bus, m->event, 0);
        if (r < 0)
                return log_error_errno(r, "cannot attach the bus to the event loop: %m");
        return 0;
}

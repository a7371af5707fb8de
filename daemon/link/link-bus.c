/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Link objects on the bus: one per link below /org/tsn/Tbs/link
 * (dbus/org.tsn.Tbs.xml), properties answered by one typed getter each
 * (or by sd-bus from the Link's fields), and the methods. The vtable is
 * registered as a fallback with the Manager as userdata: link_bus_find()
 * hands sd-bus the Link of a path. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bus-access.h"
#include "json-util.h"
#include "bus-queue.h"
#include "link-bus.h"
#include "nl-qdisc.h"
#include "schedule-json.h"
#include "stream-bus.h"
#include "txtime-bus.h"

#define UNPRIVILEGED SD_BUS_VTABLE_UNPRIVILEGED

int link_object_path(const char *name, char **ret) {
        return sd_bus_path_encode(TBS_LINK_PATH_PREFIX, name, ret);
}

/* The Manager a link method or getter runs for: the userdata the vtable
 * was registered with (sd-bus hands the handler the Link link_bus_find()
 * found, and keeps the registration's slot current meanwhile). */
static Manager *bus_manager(sd_bus *bus) {
        return sd_bus_slot_get_userdata(sd_bus_get_current_slot(bus));
}

int link_bus_find(sd_bus *bus, const char *path, const char *interface, void *userdata, void **ret_found,
                  sd_bus_error *error) {
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

int link_bus_enumerate(sd_bus *bus, const char *path, void *userdata, char ***ret_nodes, sd_bus_error *error) {
        Manager *m = userdata;
        char **nodes;
        int r;

        nodes = calloc(m->n_links + 1, sizeof(char *));
        if (!nodes)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_links; i++) {
                r = link_object_path(m->links[i]->name, &nodes[i]);
                if (r < 0) {
                        for (size_t j = 0; j < i; j++)
                                free(nodes[j]);
                        free(nodes);
                        return r;
                }
        }
        *ret_nodes = nodes;
        return 0;
}

/* ---- properties ---- */

static int property_get_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Link *l = userdata;

        return sd_bus_message_append(reply, "s", link_state_to_string(l->state));
}

static int property_get_clock_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", link_clock_state(userdata));
}

static int property_get_driver(sd_bus *bus, const char *path, const char *interface, const char *property,
                               sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "s", link_driver(userdata));
}

static int property_get_phc_index(sd_bus *bus, const char *path, const char *interface, const char *property,
                                  sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        return sd_bus_message_append(reply, "i", (int32_t) link_phc_index(userdata));
}

static int property_get_launch_time_queues(sd_bus *bus, const char *path, const char *interface,
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

/* Whether a getter runs for a client that reads properties (Get, GetAll,
 * GetManagedObjects), not for a signal that announces an object. */
static bool properties_read(sd_bus *bus) {
        sd_bus_message *m = sd_bus_get_current_message(bus);

        return m && (sd_bus_message_is_method_call(m, "org.freedesktop.DBus.Properties", NULL) > 0 ||
                     sd_bus_message_is_method_call(m, "org.freedesktop.DBus.ObjectManager", NULL) > 0);
}

/* Statistics: a(us ttttttttt ddd) — queue, qdisc kind, packets, bytes, drops,
 * overlimits, requeues, backlog bytes, backlog packets, deadline misses,
 * invalid, then packets/s, bytes/s and drops/s over the last interval (NaN
 * when there is no rate yet). From the link's kept sample: a read (a Get
 * or GetAll call, not the object's announcement) asks the sampler first to
 * bring it up to date (manager_stats_read()); nothing is dumped here. */
static int property_get_statistics(sd_bus *bus, const char *path, const char *interface, const char *property,
                                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Link *l = userdata;
        const QDiscTree *t;
        int r;

        if (properties_read(bus))
                (void) link_statistics_read(l);
        t = link_last_sample(l, NULL);
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
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* LaunchTimeError: a(ustttttttxxxxxat) — per monitored queue, ascending:
 * queue, stamp source, probes sent, missed, invalid, unstamped, then the
 * histogram: count, early, late, sum, min, p50, p99, max (ns; 0 while
 * count is 0) and the LAUNCH_HIST_BUCKETS counts (not cumulative). */
static int property_get_launch_time_error(sd_bus *bus, const char *path, const char *interface,
                                          const char *property, sd_bus_message *reply, void *userdata,
                                          sd_bus_error *error) {
        const LaunchQueueStats *st;
        size_t n = link_launch_stats(userdata, &st);
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(ustttttttxxxxxat)");
        for (size_t i = 0; r >= 0 && i < n; i++) {
                const LaunchHist *h = &st[i].hist;
                int64_t p50 = 0, p99 = 0;

                (void) launch_hist_quantile(h, 0.5, &p50);
                (void) launch_hist_quantile(h, 0.99, &p99);
                r = sd_bus_message_open_container(reply, 'r', "ustttttttxxxxxat");
                if (r >= 0)
                        r = sd_bus_message_append(reply, "ustttttttxxxxx", st[i].queue,
                                                  launch_stamp_source_to_string(st[i].source), st[i].sent,
                                                  st[i].missed, st[i].invalid, st[i].unstamped, h->count, h->early,
                                                  h->late, h->count ? h->sum_ns : 0, h->count ? h->min_ns : 0, p50,
                                                  p99, h->count ? h->max_ns : 0);
                if (r >= 0)
                        r = sd_bus_message_append_array(reply, 't', h->bucket, sizeof(h->bucket));
                if (r >= 0)
                        r = sd_bus_message_close_container(reply);
        }
        if (r < 0)
                return r;
        return sd_bus_message_close_container(reply);
}

/* ---- methods ---- */

static int method_describe(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_json_ struct json_object *doc = NULL;
        Link *l = userdata;
        const QDiscTree *t;
        int r;

        /* Rates from a recent sample; a sample taken just now is also the
         * freshest tree, so it saves Describe() its own dump. */
        t = link_statistics_read(l);
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
        Manager *m = bus_manager(sd_bus_message_get_bus(msg));
        Link *l = userdata;
        int r;

        r = bus_access_require(msg, m->admin_group, m->refusals, "Apply", error);
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
        Manager *m = bus_manager(sd_bus_message_get_bus(msg));
        Link *l = userdata;
        int r;

        r = bus_access_require(msg, m->admin_group, m->refusals, "Remove", error);
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
        uint32_t queue, prio = 0;
        int32_t clockid = 0, delta = 0;
        bool deadline = false, offload = false;
        unsigned n;
        int r;

        r = sd_bus_message_read(msg, "u", &queue);
        if (r < 0)
                return bus_method_failed(error, r, l->name);
        n = link_tx_queues(l);
        if (n == 1 && queue > 0)   /* not "no etf": there is no such queue */
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: TX queue %" PRIu32 " does not exist: the device has 1 TX queue (0)",
                                         l->name, queue);
        if (n > 1 && queue >= n)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: TX queue %" PRIu32 " does not exist: the device has %u TX queues (0-%u)",
                                         l->name, queue, n, n - 1);
        r = link_txtime_params(l, queue, &prio, &clockid, &deadline, &delta, &offload);
        if (r == -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: no etf qdisc is declared on TX queue %" PRIu32, l->name, queue);
        if (r == -ENODATA)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: no socket priority maps to TX queue %" PRIu32, l->name, queue);
        if (r == -ERANGE)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: TX queue %" PRIu32 " is not the root's: the root is a single %s "
                                         "qdisc, which every frame passes; name queue 0", l->name, queue,
                                         root_kind_to_string(l->schedule->root.kind));
        if (r < 0)
                return bus_method_failed(error, r, l->name);
        return sd_bus_reply_method_return(msg, "uibub", prio, clockid, (int) deadline,
                                          (uint32_t) delta /* never negative in a verified schedule */, (int) offload);
}

const sd_bus_vtable link_bus_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", NULL, offsetof(Link, name), SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Index", "i", NULL, offsetof(Link, ifindex), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(TBS_PROPERTY_STATE, "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY(TBS_PROPERTY_STATE_REASON, "s", NULL, offsetof(Link, state_reason),
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ClockState", "s", property_get_clock_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LaunchTimeQueues", "au", property_get_launch_time_queues, 0,
                        SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PhcIndex", "i", property_get_phc_index, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Driver", "s", property_get_driver, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        /* Changes all the time: read it, it is not signalled. */
        SD_BUS_PROPERTY("Statistics", "a(ustttttttttddd)", property_get_statistics, 0, 0),
        SD_BUS_PROPERTY("LaunchTimeError", "a(ustttttttxxxxxat)", property_get_launch_time_error, 0, 0),
        SD_BUS_METHOD_WITH_ARGS(TBS_METHOD_DESCRIBE, SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json), method_describe, UNPRIVILEGED),
        SD_BUS_METHOD("Apply", NULL, NULL, method_apply, UNPRIVILEGED),
        SD_BUS_METHOD("Remove", NULL, NULL, method_remove, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AddStream", SD_BUS_ARGS("a{sv}", stream),
                                SD_BUS_RESULT("t", offset_ns, "u", traffic_class, "u", priority), stream_bus_add,
                                UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveStream", SD_BUS_ARGS("s", name), SD_BUS_NO_RESULT, stream_bus_remove,
                                UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetTxtimeParams", SD_BUS_ARGS("u", queue),
                                SD_BUS_RESULT("u", socket_priority, "i", clockid, "b", deadline_mode,
                                              "u", delta_ns, "b", offload),
                                method_get_txtime_params, UNPRIVILEGED),
        /* Checks its callers itself (bus-access.c): root, the admin group
         * and the schedule's sockets.group. */
        SD_BUS_METHOD_WITH_ARGS("OpenTxtimeSocket", SD_BUS_ARGS("u", queue, "s", kind, "a{sv}", options),
                                SD_BUS_RESULT("h", fd, "u", priority, "i", clockid, "u", txtime_flags,
                                              "u", delta_ns),
                                txtime_bus_open_socket, UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetTxtimeWindow", SD_BUS_ARGS("u", traffic_class),
                                SD_BUS_RESULT("t", base_time_ns, "t", cycle_time_ns, "a(tt)", windows),
                                txtime_bus_get_window, UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

/* ---- signals ---- */

void link_bus_properties_changed(Link *l, char **names, void *bus_userdata) {
        _cleanup_free_ char *path = NULL;
        BusQueue *q = bus_userdata;

        if (!q || link_object_path(l->name, &path) < 0)
                return;
        bus_queue_properties_changed(q, path, TBS_LINK_IFACE, names);
}

void link_bus_added(Manager *m, Link *l) {
        _cleanup_free_ char *path = NULL;

        if (m->bus_queue && link_object_path(l->name, &path) >= 0)
                bus_queue_object_added(m->bus_queue, path);
}

void link_bus_removed(Manager *m, Link *l) {
        _cleanup_free_ char *path = NULL;

        if (m->bus_queue && link_object_path(l->name, &path) >= 0)
                bus_queue_object_removed(m->bus_queue, path);
}

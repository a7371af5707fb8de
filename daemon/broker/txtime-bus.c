/* SPDX-License-Identifier: GPL-2.0-or-later */
/* OpenTxtimeSocket() and GetTxtimeWindow(): the bus side (arguments,
 * access, errors, the log line). What the socket gets comes from
 * txtime-map.c, the socket itself from txtime-socket.c. */
#include <errno.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <stdio.h>
#include <string.h>

#include "bus-access.h"
#include "bus-names.h"
#include "log.h"
#include "qdisc-dump.h"
#include "qdisc-kind.h"
#include "manager.h"
#include "schedule.h"
#include "sd-cleanup.h"
#include "socket-guard.h"
#include "time-util.h"
#include "txtime-bus.h"
#include "txtime-map.h"
#include "txtime-socket.h"
#include "utf8.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

/* What the caller asked for. */
typedef struct TxtimeRequest {
        uint32_t queue;
        TxtimeSocketKind kind;
        bool has_class, has_priority, has_protocol, tx_timestamps, allow_no_etf;
        uint32_t tc, priority;
        uint16_t protocol;
} TxtimeRequest;

typedef struct OptionSpec {
        const char *name;
        const char *type;       /* D-Bus signature of the variant's value */
        const char *what;       /* for the error */
} OptionSpec;

static const OptionSpec options[] = {
        { "protocol", "q", "an EtherType" },
        { "traffic_class", "u", "a traffic class" },
        { "priority", "u", "a socket priority" },
        { "tx_timestamps", "b", "a boolean" },
        { "allow_no_etf", "b", "a boolean" },
};

static Manager *bus_manager(sd_bus *bus) {
        return sd_bus_slot_get_userdata(sd_bus_get_current_slot(bus));
}

static int read_option(sd_bus_message *msg, const char *ifname, const char *key, TxtimeRequest *req,
                       unsigned *seen, sd_bus_error *error) {
        _cleanup_free_ char *k = NULL;
        const char *contents = NULL;
        size_t i;
        char type;
        int r;

        for (i = 0; i < ELEMENTSOF(options); i++)
                if (strcmp(options[i].name, key) == 0)
                        break;
        if (i == ELEMENTSOF(options)) {
                /* The caller's text: one line, cut at a character. */
                const char *shown = text_safe(key, &k);

                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: unknown option '%.*s'; known options: protocol, traffic_class, "
                                         "priority, tx_timestamps, allow_no_etf",
                                         ifname, (int) utf8_cut(shown, 64), shown);
        }
        if (*seen & (1U << i))
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION, "%s: option '%s' is given twice", ifname,
                                         key);
        *seen |= 1U << i;
        r = sd_bus_message_peek_type(msg, &type, &contents);
        if (r < 0)
                return r;
        if (type != 'v' || !contents || strcmp(contents, options[i].type) != 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: option '%s' must be %s of D-Bus type '%s', got '%.16s'", ifname,
                                         key, options[i].what, options[i].type, contents ?: "");
        switch (i) {
        case 0:
                req->has_protocol = true;
                return sd_bus_message_read(msg, "v", "q", &req->protocol);
        case 1:
                req->has_class = true;
                return sd_bus_message_read(msg, "v", "u", &req->tc);
        case 2:
                req->has_priority = true;
                return sd_bus_message_read(msg, "v", "u", &req->priority);
        case 3: {
                int b;

                r = sd_bus_message_read(msg, "v", "b", &b);
                req->tx_timestamps = b;
                return r;
        }
        default: {
                int b;

                r = sd_bus_message_read(msg, "v", "b", &b);
                req->allow_no_etf = b;
                return r;
        }
        }
}

/* Reads kind and options after the queue; 0, or an error set. */
static int read_request(sd_bus_message *msg, const char *ifname, TxtimeRequest *req, sd_bus_error *error) {
        _cleanup_free_ char *k = NULL;
        const char *kind, *key;
        unsigned seen = 0;
        int r;

        r = sd_bus_message_read(msg, "us", &req->queue, &kind);
        if (r < 0)
                return bus_method_failed(error, r, ifname);
        req->kind = txtime_socket_kind_from_string(kind);
        if (req->kind < 0) {
                const char *shown = text_safe(kind, &k);

                return sd_bus_error_setf(error, TBS_ERROR_UNKNOWN_KIND,
                                         "%s: unknown socket kind '%.*s'; expected \"packet\", \"udp4\" or \"udp6\"",
                                         ifname, (int) utf8_cut(shown, 32), shown);
        }

        r = sd_bus_message_enter_container(msg, 'a', "{sv}");
        if (r < 0)
                return bus_method_failed(error, r, ifname);
        while ((r = sd_bus_message_enter_container(msg, 'e', "sv")) > 0) {
                r = sd_bus_message_read(msg, "s", &key);
                if (r < 0)
                        return bus_method_failed(error, r, ifname);
                r = read_option(msg, ifname, key, req, &seen, error);
                if (r < 0)
                        return sd_bus_error_is_set(error) ? r : bus_method_failed(error, r, ifname);
                r = sd_bus_message_exit_container(msg);
                if (r < 0)
                        return bus_method_failed(error, r, ifname);
        }
        if (r < 0)
                return bus_method_failed(error, r, ifname);

        if (req->kind == TXTIME_SOCKET_PACKET) {
                if (!req->has_protocol)
                        return sd_bus_error_setf(error, TBS_ERROR_PROTOCOL_MISSING,
                                                 "%s: a packet socket needs option 'protocol' (q): the EtherType "
                                                 "the application sends and receives", ifname);
                if (req->protocol == 0 || req->protocol == ETH_P_ALL)
                        return sd_bus_error_setf(error, TBS_ERROR_PROTOCOL_MISSING,
                                                 "%s: protocol 0x%04x would %s: name the application's EtherType",
                                                 ifname, req->protocol,
                                                 req->protocol ? "take in every frame of the interface (ETH_P_ALL)"
                                                               : "name none");
                if (req->protocol < ETH_P_802_3_MIN)
                        return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                                 "%s: protocol 0x%04x is not an EtherType (0x0600 or more)", ifname,
                                                 req->protocol);
        } else if (req->has_protocol)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: option 'protocol' is for kind \"packet\" only", ifname);

        if (req->queue != TXTIME_QUEUE_FROM_OPTIONS && (req->has_class || req->has_priority))
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: queue %" PRIu32 " and option '%s' both name the queue; pass queue "
                                         "0xffffffff to use the option",
                                         ifname, req->queue, req->has_class ? "traffic_class" : "priority");
        if (req->queue == TXTIME_QUEUE_FROM_OPTIONS && req->has_class && req->has_priority)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: options 'traffic_class' and 'priority' exclude each other", ifname);
        if (req->queue == TXTIME_QUEUE_FROM_OPTIONS && !req->has_class && !req->has_priority)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_OPTION,
                                         "%s: queue 0xffffffff takes the queue from option 'traffic_class' or "
                                         "'priority', and neither is given", ifname);
        return 0;
}

/* Who may have a packet socket, and for which EtherType: 0, or an error
 * set (AccessDenied) and the refusal logged. Linux lets the holder of a
 * packet socket bind() it to any interface and EtherType and send any
 * frame on any interface, whatever tbsd set it up for; the locked filter
 * (txtime-socket.c) confines what it receives, nothing confines what it
 * sends. So packet sockets are for those already trusted with the
 * link's network control, and never for its control protocols unless the
 * schedule says so (SECURITY.md, "Sockets from tbsd"). */
static int check_packet_socket(Manager *m, Link *l, const TxtimeRequest *req, const BusCaller *caller,
                               sd_bus_error *error) {
        const SocketsSpec *k = l->schedule ? &l->schedule->sockets : NULL;
        char why[TXTIME_WHY_MAX];

        if (req->kind != TXTIME_SOCKET_PACKET)
                return 0;
        if (!caller->admin) {
                /* Let in by sockets.group, so k and its group exist. */
                refusal_log_note(m->refusals, caller->uid,
                                 "packet socket on %s to uid %u (a member of group '%s' only, not of the admin group)",
                                 l->name, (unsigned) caller->uid, k && k->group ? k->group : "");
                return sd_bus_error_setf(error, TBS_ERROR_ACCESS_DENIED,
                                         "%s: packet sockets are for uid 0 and the tbsd admin group only (their "
                                         "holder can bind them to any interface and send any frame); ask for "
                                         "kind \"udp4\" or \"udp6\"", l->name);
        }
        if (txtime_ethertype_allowed(k, req->protocol, why) < 0) {
                refusal_log_note(m->refusals, caller->uid, "packet socket on %s to uid %u: %s", l->name,
                                 (unsigned) caller->uid, why);
                return sd_bus_error_setf(error, TBS_ERROR_ACCESS_DENIED, "%s: %s", l->name, why);
        }
        return 0;
}

static int reply_socket_failed(sd_bus_error *error, const char *ifname, TxtimeSocketKind kind, const char *step,
                               int r) {
        if (r == -EAFNOSUPPORT || r == -EPROTONOSUPPORT || r == -ESOCKTNOSUPPORT)
                return sd_bus_error_setf(error, TBS_ERROR_NOT_SUPPORTED,
                                         "%s: the kernel has no %s sockets: %s: %s", ifname,
                                         txtime_socket_kind_to_string(kind), step, strerror(-r));
        return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: cannot set up the %s socket: %s: %s", ifname,
                                 txtime_socket_kind_to_string(kind), step, strerror(-r));
}

static void log_handed_out(Link *l, const TxtimeTarget *t, const TxtimeSocketSpec *spec, const BusCaller *caller) {
        char queue[16], tc[16], where[48], prio[16], uid[16], pid[16], proto[32] = "";
        const char *kind = txtime_socket_kind_to_string(spec->kind);
        JournalField fields[6];
        size_t n = 0;

        snprintf(queue, sizeof(queue), "%" PRIu32, t->queue);
        fields[n++] = (JournalField) { "TBS_QUEUE", queue };
        /* A root without classes: no class to name, the root's kind instead. */
        if (!t->leaf) {
                snprintf(tc, sizeof(tc), "%u", t->tc);
                fields[n++] = (JournalField) { "TBS_TRAFFIC_CLASS", tc };
        }
        fields[n++] = (JournalField) { "TBS_SOCKET_KIND", kind };
        fields[n++] = (JournalField) { "TBS_SOCKET_PRIORITY", prio };
        fields[n++] = (JournalField) { "TBS_CALLER_UID", uid };
        fields[n++] = (JournalField) { "TBS_CALLER_PID", pid };

        snprintf(prio, sizeof(prio), "%" PRIu32, spec->priority);
        snprintf(uid, sizeof(uid), "%u", (unsigned) caller->uid);
        snprintf(pid, sizeof(pid), "%d", (int) caller->pid);
        if (spec->kind == TXTIME_SOCKET_PACKET)
                snprintf(proto, sizeof(proto), " (EtherType 0x%04x)", spec->protocol);
        if (t->leaf)
                snprintf(where, sizeof(where), "the root %s", root_kind_to_string(l->schedule->root.kind));
        else
                snprintf(where, sizeof(where), "traffic class %s", tc);
        (void) log_link_fields(LOG_INFO, l->name, fields, n,
                               "%s socket%s for TX queue %s (%s, priority %s, txtime flags 0x%" PRIx32
                               "%s) handed to uid %s pid %s",
                               kind, proto, queue, where, prio, spec->txtime_flags,
                               spec->timestamping ? ", transmit time stamps" : "", uid, pid);
}

int txtime_bus_open_socket(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *method = NULL;
        Manager *m = bus_manager(sd_bus_message_get_bus(msg));
        Link *l = userdata;
        TxtimeRequest req = {};
        TxtimeTarget t;
        TxtimeEtf etf = {};
        TxtimeSocketSpec spec;
        BusCaller caller = {};
        const LinkCaps *caps;
        const char *missing, *step = NULL;
        char why[TXTIME_WHY_MAX];
        int r;

        if (asprintf(&method, "OpenTxtimeSocket on %s", l->name) < 0)
                return bus_method_failed(error, -ENOMEM, l->name);
        r = bus_access_check_groups(msg, m->admin_group, l->schedule ? l->schedule->sockets.group : NULL,
                                    m->refusals, method, &caller, error);
        if (r <= 0)
                return r < 0 ? r : -EACCES;
        r = read_request(msg, l->name, &req, error);
        if (r < 0)
                return r;
        r = check_packet_socket(m, l, &req, &caller, error);
        if (r < 0)
                return r;

        missing = link_tree_missing(l);
        if (missing)
                return sd_bus_error_setf(error, TBS_ERROR_NOT_CONFIGURED, "%s: not configured: %s", l->name,
                                         missing);
        if (req.queue != TXTIME_QUEUE_FROM_OPTIONS)
                r = txtime_target_resolve(&l->schedule->root, TXTIME_BY_QUEUE, req.queue, &t, why);
        else if (req.has_class)
                r = txtime_target_resolve(&l->schedule->root, TXTIME_BY_CLASS, req.tc, &t, why);
        else
                r = txtime_target_resolve(&l->schedule->root, TXTIME_BY_PRIORITY, req.priority, &t, why);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE, "%s: %s", l->name, why);
        r = txtime_class_etf(l->schedule, &t, &etf, why);
        if (r == -ENOENT && !req.allow_no_etf)
                return sd_bus_error_setf(error, TBS_ERROR_NO_ETF,
                                         "%s: %s; option 'allow_no_etf' takes a socket all the same", l->name, why);
        if (r < 0 && r != -ENOENT)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE, "%s: %s", l->name, why);

        caps = link_caps(l);
        spec = (TxtimeSocketSpec) {
                .kind = req.kind,
                .ifindex = l->ifindex,
                .protocol = req.protocol,
                .priority = t.priority,
                /* Without an etf the launch time is taprio's to check,
                 * on its own clock; under mqprio nothing reads it. */
                .clockid = etf.has_etf ? etf.clockid : root_launch_clock(&l->schedule->root),
                .txtime_flags = txtime_flags_for(&etf),
                .timestamping = req.tx_timestamps
                                        ? txtime_timestamping_flags(caps && txtime_hardware_tx_stamps(
                                                                                    caps->so_timestamping,
                                                                                    caps->tx_types))
                                        : 0,
        };
        /* The mark the socket guard knows it by (socket-guard.h): its
         * packets keep this priority, and leave through no other interface. */
        r = socket_guard_mark(l->ifindex, spec.priority, &spec.mark);
        if (r < 0)
                return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: interface index %d is above %d, the socket "
                                         "guard's marks have no room for it", l->name, l->ifindex,
                                         SOCKET_GUARD_IFINDEX_MAX);
        r = txtime_socket_open(&spec, &fd, &step);
        if (r < 0)
                return reply_socket_failed(error, l->name, req.kind, step, r);
        r = sd_bus_reply_method_return(msg, "huiuu", fd, spec.priority, (int32_t) spec.clockid, spec.txtime_flags,
                                       etf.has_etf ? (uint32_t) etf.delta_ns : 0u);
        if (r < 0)
                return bus_method_failed(error, r, l->name);
        log_handed_out(l, &t, &spec, &caller);
        return r;
}

/* The gate schedule a root of kind (a taprio) runs now, from the kernel's
 * dump, in *ret (its pointers into t): after an in-place change the base
 * time is the running schedule's, not the file's, and until the new
 * (admin) schedule's base time it is the old (oper) one that gates the
 * frames (txtime_running_root()). Returns 0, or -errno when the dump has
 * no root of that kind on the link. */
static int running_schedule(Link *l, RootKind kind, QDiscTree *t, RootSpec *ret) {
        int k;

        k = nl_qdisc_dump(l->ctx->nl, l->ifindex, t);
        if (k < 0)
                return k;
        if (!t->root_known || t->root_spec.kind != kind)
                return -ENOENT;
        txtime_running_root(&t->root_spec, (int64_t) now_nsec(root_launch_clock(&t->root_spec)), ret, NULL);
        return 0;
}

int txtime_bus_get_window(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ TxtimeWindow *w = NULL;
        _cleanup_(qdisc_tree_done) QDiscTree t = {};
        RootSpec running;
        const RootSpec *root;
        GateSchedule buf;
        const GateSchedule *g = NULL;
        const char *missing;
        uint32_t tc;
        Link *l = userdata;
        bool gated;
        int r, n = 0;

        r = sd_bus_message_read(msg, "u", &tc);
        if (r < 0)
                return bus_method_failed(error, r, l->name);
        missing = link_tree_missing(l);
        if (missing)
                return sd_bus_error_setf(error, TBS_ERROR_NOT_CONFIGURED, "%s: not configured: %s", l->name,
                                         missing);
        root = &l->schedule->root;
        /* A root without classes (a single etf or cbs) has no gates: class 0
         * stands for all its frames, as every frame passes the root. */
        if (root_is_leaf(root) && tc != 0)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: traffic class %" PRIu32 " does not exist: the root is a single %s "
                                         "qdisc without traffic classes or gates; class 0 answers for all its "
                                         "frames", l->name, tc, root_kind_to_string(root->kind));
        if (!root_is_leaf(root) && tc >= root->num_tc)
                return sd_bus_error_setf(error, TBS_ERROR_INVALID_QUEUE,
                                         "%s: traffic class %" PRIu32 " does not exist (the root has %u)", l->name,
                                         tc, (unsigned) root->num_tc);
        gated = root_gates(root);
        if (gated) {
                r = running_schedule(l, root->kind, &t, &running);
                if (r < 0)
                        return sd_bus_error_setf(error, TBS_ERROR_NOT_CONFIGURED,
                                                 "%s: the kernel's %s schedule cannot be read: %s", l->name,
                                                 root_kind_to_string(root->kind), strerror(-r));
                root = &running;
                g = root_gate_schedule(root, &buf);
                n = txtime_windows(root, tc, &w);
                if (n < 0)
                        return bus_method_failed(error, n, l->name);
        }

        r = sd_bus_message_new_method_return(msg, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "tt", g ? (uint64_t) g->base_time_ns : 0,
                                          g ? (uint64_t) g->cycle_time_ns : 0);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(tt)");
        for (int i = 0; r >= 0 && i < n; i++)
                r = sd_bus_message_append(reply, "(tt)", w[i].offset_ns, w[i].length_ns);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r < 0)
                return bus_method_failed(error, r, l->name);
        return sd_bus_send(NULL, reply, NULL);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Talking to tbsd on the bus: a configured socket (OpenTxtimeSocket()) and
 * a traffic class's gate windows (GetTxtimeWindow()). Each call without a
 * bus of the caller's opens its own connection and closes it again, so
 * threads share nothing. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "tbs-internal.h"

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p) {
        free(*(void **) p);
}

static const char *const kind_names[] = {
        [TBS_SOCKET_PACKET] = "packet",
        [TBS_SOCKET_UDP4] = "udp4",
        [TBS_SOCKET_UDP6] = "udp6",
};

TBS_PUBLIC const char *tbs_socket_kind_to_string(enum tbs_socket_kind kind) {
        if ((unsigned) kind >= sizeof(kind_names) / sizeof(kind_names[0]))
                return NULL;
        return kind_names[kind];
}

static int check_ifname(const char *func, const char *ifname, struct tbs_error *e) {
        if (!ifname || !*ifname)
                return tbs_error_set(e, -EINVAL, NULL, "%s: no interface name", func);
        if (strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ)
                return tbs_error_set(e, -EINVAL, NULL, "%s: interface name longer than %d bytes", func,
                                     IFNAMSIZ - 1);
        return 0;
}

int tbs_open_check(const char *ifname, enum tbs_target target, uint32_t value, enum tbs_socket_kind kind,
                   uint16_t protocol, unsigned flags, struct tbs_error *e) {
        static const char func[] = "tbs_open_txtime_socket";
        int r;

        r = check_ifname(func, ifname, e);
        if (r < 0)
                return r;
        switch (target) {
        case TBS_TARGET_QUEUE:
                if (value == TBS_BUS_QUEUE_BY_OPTION)
                        return tbs_error_set(e, -EINVAL, NULL, "%s: queue %u is not a queue number", func,
                                             value);
                break;
        case TBS_TARGET_TRAFFIC_CLASS:
        case TBS_TARGET_PRIORITY:
                break;
        default:
                return tbs_error_set(e, -EINVAL, NULL,
                                     "%s: target %d is none of TBS_TARGET_QUEUE, _TRAFFIC_CLASS, _PRIORITY",
                                     func, (int) target);
        }
        if (!tbs_socket_kind_to_string(kind))
                return tbs_error_set(e, -EINVAL, NULL,
                                     "%s: kind %d is none of TBS_SOCKET_PACKET, _UDP4, _UDP6", func, (int) kind);
        if (kind == TBS_SOCKET_PACKET && protocol == 0)
                return tbs_error_set(e, -EINVAL, NULL,
                                     "%s: a packet socket needs a protocol (an EtherType such as 0x22f0)", func);
        if (kind != TBS_SOCKET_PACKET && protocol != 0)
                return tbs_error_set(e, -EINVAL, NULL, "%s: protocol 0x%04x given for a %s socket; only packet "
                                     "sockets take one", func, protocol, tbs_socket_kind_to_string(kind));
        if (flags & ~(TBS_OPEN_TX_TIMESTAMPS | TBS_OPEN_ALLOW_NO_ETF))
                return tbs_error_set(e, -EINVAL, NULL, "%s: unknown flags 0x%x", func,
                                     flags & ~(TBS_OPEN_TX_TIMESTAMPS | TBS_OPEN_ALLOW_NO_ETF));
        return 0;
}

int tbs_open_append_args(sd_bus_message *m, enum tbs_target target, uint32_t value, enum tbs_socket_kind kind,
                         uint16_t protocol, unsigned flags) {
        int r;

        r = sd_bus_message_append(m, "us", target == TBS_TARGET_QUEUE ? value : TBS_BUS_QUEUE_BY_OPTION,
                                  tbs_socket_kind_to_string(kind));
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        if (target == TBS_TARGET_TRAFFIC_CLASS)
                r = sd_bus_message_append(m, "{sv}", "traffic_class", "u", value);
        else if (target == TBS_TARGET_PRIORITY)
                r = sd_bus_message_append(m, "{sv}", "priority", "u", value);
        if (r >= 0 && kind == TBS_SOCKET_PACKET)
                r = sd_bus_message_append(m, "{sv}", "protocol", "q", protocol);
        if (r >= 0 && (flags & TBS_OPEN_TX_TIMESTAMPS))
                r = sd_bus_message_append(m, "{sv}", "tx_timestamps", "b", 1);
        if (r >= 0 && (flags & TBS_OPEN_ALLOW_NO_ETF))
                r = sd_bus_message_append(m, "{sv}", "allow_no_etf", "b", 1);
        if (r < 0)
                return r;
        return sd_bus_message_close_container(m);
}

/* A failed call: tbsd's (or the bus's) error name and message, or the
 * local errno r when there was no answer. */
static int call_failed(struct tbs_error *e, const char *method, const char *ifname, const sd_bus_error *error,
                       int r) {
        if (sd_bus_error_is_set(error))
                return tbs_error_set(e, tbs_errno_from_bus_error(error->name), error->name, "%s",
                                     error->message ?: error->name);
        return tbs_error_set(e, r, NULL, "%s(%s): no answer from tbsd: %s", method, ifname,
                             strerrordesc_np(-r) ?: "unknown error");
}

/* A reply of another shape than the contract's (r: sd-bus's reason, 0 for
 * a missing value). */
static int bad_reply(struct tbs_error *e, const char *method, int r) {
        return tbs_error_set(e, -EBADMSG, NULL, "%s: tbsd's reply is not what libtbs expects: %s", method,
                             r < 0 ? strerrordesc_np(-r) ?: "unknown error" : "a value is missing");
}

/* The object path of ifname's link, copied to *ret (the caller frees). */
static int get_link(sd_bus *bus, const char *ifname, char **ret, struct tbs_error *e) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_DEST, TBS_BUS_MANAGER, TBS_BUS_MANAGER_IF, "GetLink", &error, &reply,
                               "s", ifname);
        if (r < 0)
                return call_failed(e, "GetLink", ifname, &error, r);
        r = sd_bus_message_read(reply, "o", &path);
        if (r <= 0)
                return bad_reply(e, "GetLink", r);
        *ret = strdup(path);
        if (!*ret)
                return tbs_error_set(e, -ENOMEM, NULL, "GetLink(%s): out of memory", ifname);
        return 0;
}

static int open_system_bus(const char *func, sd_bus **ret, struct tbs_error *e) {
        int r = sd_bus_open_system(ret);

        if (r < 0)
                return tbs_error_set(e, r, NULL, "%s: cannot connect to the system bus: %s", func,
                                     strerrordesc_np(-r) ?: "unknown error");
        return 0;
}

TBS_PUBLIC int tbs_open_txtime_socket_on_bus(sd_bus *bus, const char *ifname, enum tbs_target target,
                                             uint32_t value, enum tbs_socket_kind kind, uint16_t protocol,
                                             unsigned flags, struct tbs_socket_info *ret_info,
                                             struct tbs_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
        _cleanup_(freep) char *path = NULL;
        struct tbs_socket_info info;
        int r, fd;

        tbs_error_clear(ret_error);
        if (!bus)
                return tbs_error_set(ret_error, -EINVAL, NULL, "tbs_open_txtime_socket_on_bus: no bus");
        r = tbs_open_check(ifname, target, value, kind, protocol, flags, ret_error);
        if (r < 0)
                return r;
        r = get_link(bus, ifname, &path, ret_error);
        if (r < 0)
                return r;
        r = sd_bus_message_new_method_call(bus, &call, TBS_BUS_DEST, path, TBS_BUS_LINK_IF, "OpenTxtimeSocket");
        if (r >= 0)
                r = tbs_open_append_args(call, target, value, kind, protocol, flags);
        if (r < 0)
                return tbs_error_set(ret_error, r, NULL, "OpenTxtimeSocket(%s): cannot build the call: %s", ifname,
                                     strerrordesc_np(-r) ?: "unknown error");
        r = sd_bus_call(bus, call, 0, &error, &reply);
        if (r < 0)
                return call_failed(ret_error, "OpenTxtimeSocket", ifname, &error, r);
        r = sd_bus_message_read(reply, "huiuu", &fd, &info.priority, &info.clockid, &info.txtime_flags,
                                &info.delta_ns);
        if (r <= 0)
                return bad_reply(ret_error, "OpenTxtimeSocket", r);
        /* The descriptor belongs to the reply: a copy of our own. */
        fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return tbs_error_set(ret_error, -errno, NULL, "OpenTxtimeSocket(%s): cannot keep the socket: %s",
                                     ifname, strerrordesc_np(errno) ?: "unknown error");
        if (ret_info)
                *ret_info = info;
        return fd;
}

TBS_PUBLIC int tbs_open_txtime_socket(const char *ifname, enum tbs_target target, uint32_t value,
                                      enum tbs_socket_kind kind, uint16_t protocol, unsigned flags,
                                      struct tbs_socket_info *ret_info, struct tbs_error *ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        tbs_error_clear(ret_error);
        /* Bad arguments are refused before a connection is made. */
        r = tbs_open_check(ifname, target, value, kind, protocol, flags, ret_error);
        if (r < 0)
                return r;
        r = open_system_bus("tbs_open_txtime_socket", &bus, ret_error);
        if (r < 0)
                return r;
        return tbs_open_txtime_socket_on_bus(bus, ifname, target, value, kind, protocol, flags, ret_info,
                                             ret_error);
}

TBS_PUBLIC int tbs_get_txtime_window_on_bus(sd_bus *bus, const char *ifname, uint32_t tc,
                                            uint64_t *ret_base_time_ns, uint64_t *ret_cycle_time_ns,
                                            struct tbs_window *windows, size_t n_windows,
                                            struct tbs_error *ret_error) {
        static const char func[] = "tbs_get_txtime_window";
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(freep) char *path = NULL;
        uint64_t base, cycle, offset, length;
        size_t n = 0;
        int r;

        tbs_error_clear(ret_error);
        if (!bus)
                return tbs_error_set(ret_error, -EINVAL, NULL, "%s_on_bus: no bus", func);
        r = check_ifname(func, ifname, ret_error);
        if (r < 0)
                return r;
        if (!windows && n_windows > 0)
                return tbs_error_set(ret_error, -EINVAL, NULL, "%s: windows is NULL but n_windows is %zu", func,
                                     n_windows);
        r = get_link(bus, ifname, &path, ret_error);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, TBS_BUS_DEST, path, TBS_BUS_LINK_IF, "GetTxtimeWindow", &error, &reply, "u",
                               tc);
        if (r < 0)
                return call_failed(ret_error, "GetTxtimeWindow", ifname, &error, r);
        r = sd_bus_message_read(reply, "tt", &base, &cycle);
        if (r <= 0)
                return bad_reply(ret_error, "GetTxtimeWindow", r);
        r = sd_bus_message_enter_container(reply, 'a', "(tt)");
        if (r <= 0)
                return bad_reply(ret_error, "GetTxtimeWindow", r);
        while ((r = sd_bus_message_read(reply, "(tt)", &offset, &length)) > 0) {
                /* Counted all, copied as far as the caller's array goes. */
                if (n < n_windows)
                        windows[n] = (struct tbs_window) { .offset_ns = offset, .length_ns = length };
                if (n == INT32_MAX)
                        return bad_reply(ret_error, "GetTxtimeWindow", -E2BIG);
                n++;
        }
        if (r < 0)
                return bad_reply(ret_error, "GetTxtimeWindow", r);
        if (ret_base_time_ns)
                *ret_base_time_ns = base;
        if (ret_cycle_time_ns)
                *ret_cycle_time_ns = cycle;
        return (int) n;
}

TBS_PUBLIC int tbs_get_txtime_window(const char *ifname, uint32_t tc, uint64_t *ret_base_time_ns,
                                     uint64_t *ret_cycle_time_ns, struct tbs_window *windows, size_t n_windows,
                                     struct tbs_error *ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        tbs_error_clear(ret_error);
        r = open_system_bus("tbs_get_txtime_window", &bus, ret_error);
        if (r < 0)
                return r;
        return tbs_get_txtime_window_on_bus(bus, ifname, tc, ret_base_time_ns, ret_cycle_time_ns, windows,
                                            n_windows, ret_error);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libtbs's client side without tbsd: D-Bus error names to errnos, the one-line
 * error messages, the argument checks made before anything is sent, the
 * launch-time arithmetic, and the calls themselves against a peer on a
 * private sd-bus connection (a socketpair) that answers as tbsd's contract
 * says (dbus/org.tsn.Tbs.xml): what arguments arrive, the descriptor that
 * comes back, errors passed on with their names and messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#include "bus-pair.h"
#include "macro.h"
#include "tbs-internal.h"

static void test_errno_from_bus_error(void **state) {
        static const struct {
                const char *name;
                int error;
        } cases[] = {
                { "org.tsn.Tbs.Error.AccessDenied", -EACCES },
                { "org.tsn.Tbs.Error.NoSuchLink", -ENODEV },
                { "org.tsn.Tbs.Error.InvalidArguments", -EINVAL },
                { "org.tsn.Tbs.Error.InvalidQueue", -ENXIO },
                { "org.tsn.Tbs.Error.InvalidSchedule", -EBADMSG },
                { "org.tsn.Tbs.Error.ApplyFailed", -EIO },
                { "org.tsn.Tbs.Error.NotOwned", -EBUSY },
                { "org.tsn.Tbs.Error.Failed", -EIO },
                { "org.tsn.Tbs.Error.NotConfigured", -ENETDOWN },
                { "org.tsn.Tbs.Error.NoEtf", -EOPNOTSUPP },
                { "org.tsn.Tbs.Error.UnknownKind", -EINVAL },
                { "org.tsn.Tbs.Error.ProtocolMissing", -EINVAL },
                { "org.tsn.Tbs.Error.InvalidOption", -EINVAL },
                { "org.tsn.Tbs.Error.NotSupported", -EOPNOTSUPP },
                /* A name a later tbsd may add: still an error, never 0. */
                { "org.tsn.Tbs.Error.SomethingNew", -EIO },
                { "org.tsn.Tbs.Error.", -EIO },
                { "org.tsn.Tbs.Error.AccessDeniedX", -EIO },
                /* The bus's own names, as sd-bus maps them. */
                { "org.freedesktop.DBus.Error.AccessDenied", -EACCES },
                { "org.freedesktop.DBus.Error.ServiceUnknown", -EHOSTUNREACH },
                { "org.freedesktop.DBus.Error.UnknownMethod", -EBADR },
                { "org.freedesktop.DBus.Error.NoReply", -ETIMEDOUT },
                { "org.example.Unknown", -EIO },
                { "", -EIO },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int r = tbs_errno_from_bus_error(cases[i].name);

                if (r != cases[i].error)
                        fail_msg("%s: %d, expected %d", cases[i].name, r, cases[i].error);
        }
        assert_int_equal(tbs_errno_from_bus_error(NULL), -EIO);
}

static void test_error_message(void **state) {
        struct tbs_error e;
        char longer[1000];

        assert_string_equal(tbs_error_message(NULL), "");
        assert_int_equal(tbs_error_set(NULL, -EACCES, "x", "y"), -EACCES);

        tbs_error_clear(&e);
        assert_int_equal(e.error, 0);
        assert_string_equal(tbs_error_message(&e), "");

        assert_int_equal(tbs_error_set(&e, -EACCES, "org.tsn.Tbs.Error.AccessDenied", "not for uid %u", 65534u),
                         -EACCES);
        assert_int_equal(e.error, -EACCES);
        assert_string_equal(e.name, "org.tsn.Tbs.Error.AccessDenied");
        assert_string_equal(tbs_error_message(&e), "not for uid 65534");

        /* One line, whatever comes in. */
        tbs_error_set(&e, -EIO, "a\nb", "first\nsecond\tthird\r");
        assert_string_equal(e.message, "first second third ");
        assert_string_equal(e.name, "a b");

        /* Cut to the buffer, still terminated. */
        memset(longer, 'x', sizeof(longer) - 1);
        longer[sizeof(longer) - 1] = '\0';
        tbs_error_set(&e, -EIO, longer, "%s", longer);
        assert_int_equal(strlen(e.message), sizeof(e.message) - 1);
        assert_int_equal(strlen(e.name), sizeof(e.name) - 1);

        /* Never empty after a failure. */
        tbs_error_set(&e, -ENODEV, NULL, "%s", "");
        assert_string_equal(e.message, "No such device");
        assert_string_equal(e.name, "");
}

static void expect_refused(const char *ifname, enum tbs_target target, uint32_t value, enum tbs_socket_kind kind,
                           uint16_t protocol, unsigned flags, const char *message) {
        struct tbs_error e;
        struct tbs_socket_info info = { .priority = 77 };

        tbs_error_clear(&e);
        assert_int_equal(tbs_open_check(ifname, target, value, kind, protocol, flags, &e), -EINVAL);
        assert_string_equal(e.message, message);
        /* The public function refuses the same before it looks for a bus,
         * and leaves *ret_info alone. */
        memset(&e, 0xff, sizeof(e));
        assert_int_equal(tbs_open_txtime_socket(ifname, target, value, kind, protocol, flags, &info, &e), -EINVAL);
        assert_int_equal(e.error, -EINVAL);
        assert_string_equal(e.name, "");
        assert_string_equal(e.message, message);
        assert_int_equal(info.priority, 77);
        /* Without an error struct: only the errno. */
        assert_int_equal(tbs_open_txtime_socket(ifname, target, value, kind, protocol, flags, NULL, NULL), -EINVAL);
}

static void test_open_check(void **state) {
        assert_int_equal(tbs_open_check("eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_PACKET, 0x22f0, 0, NULL), 0);
        assert_int_equal(tbs_open_check("eth0", TBS_TARGET_TRAFFIC_CLASS, 3, TBS_SOCKET_UDP4, 0,
                                        TBS_OPEN_TX_TIMESTAMPS | TBS_OPEN_ALLOW_NO_ETF, NULL), 0);
        assert_int_equal(tbs_open_check("123456789012345", TBS_TARGET_PRIORITY, 7, TBS_SOCKET_UDP6, 0, 0, NULL), 0);

        expect_refused(NULL, TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0, "tbs_open_txtime_socket: no interface name");
        expect_refused("", TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0, "tbs_open_txtime_socket: no interface name");
        expect_refused("1234567890123456", TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0,
                       "tbs_open_txtime_socket: interface name longer than 15 bytes");
        expect_refused("eth0", TBS_TARGET_QUEUE, 0xffffffff, TBS_SOCKET_UDP4, 0, 0,
                       "tbs_open_txtime_socket: queue 4294967295 is not a queue number");
        expect_refused("eth0", (enum tbs_target) 3, 0, TBS_SOCKET_UDP4, 0, 0,
                       "tbs_open_txtime_socket: target 3 is none of TBS_TARGET_QUEUE, _TRAFFIC_CLASS, _PRIORITY");
        expect_refused("eth0", (enum tbs_target) -1, 0, TBS_SOCKET_UDP4, 0, 0,
                       "tbs_open_txtime_socket: target -1 is none of TBS_TARGET_QUEUE, _TRAFFIC_CLASS, _PRIORITY");
        expect_refused("eth0", TBS_TARGET_QUEUE, 0, (enum tbs_socket_kind) 3, 0, 0,
                       "tbs_open_txtime_socket: kind 3 is none of TBS_SOCKET_PACKET, _UDP4, _UDP6");
        expect_refused("eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_PACKET, 0, 0,
                       "tbs_open_txtime_socket: a packet socket needs a protocol (an EtherType such as 0x22f0)");
        expect_refused("eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP6, 0x86dd, 0,
                       "tbs_open_txtime_socket: protocol 0x86dd given for a udp6 socket; only packet sockets take one");
        expect_refused("eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0x5,
                       "tbs_open_txtime_socket: unknown flags 0x4");
}

static void test_kind_names(void **state) {
        assert_string_equal(tbs_socket_kind_to_string(TBS_SOCKET_PACKET), "packet");
        assert_string_equal(tbs_socket_kind_to_string(TBS_SOCKET_UDP4), "udp4");
        assert_string_equal(tbs_socket_kind_to_string(TBS_SOCKET_UDP6), "udp6");
        assert_null(tbs_socket_kind_to_string((enum tbs_socket_kind) 3));
        assert_null(tbs_socket_kind_to_string((enum tbs_socket_kind) -1));
}

static void test_next_launch_time(void **state) {
        uint64_t t = 12345;

        /* Base in the past: the next cycle's offset after "after". */
        assert_int_equal(tbs_next_launch_time(1000, 100, 30, 1234, &t), 0);
        assert_int_equal(t, 1230 + 100);
        assert_int_equal(tbs_next_launch_time(1000, 100, 30, 1229, &t), 0);
        assert_int_equal(t, 1230);
        /* Strictly later: exactly on a launch time gives the next one. */
        assert_int_equal(tbs_next_launch_time(1000, 100, 30, 1230, &t), 0);
        assert_int_equal(t, 1330);
        /* Base ahead: its first cycle. */
        assert_int_equal(tbs_next_launch_time(5000, 100, 30, 1234, &t), 0);
        assert_int_equal(t, 5030);
        /* Base 0: cycles from the clock's epoch. */
        assert_int_equal(tbs_next_launch_time(0, 1000000, 250000, UINT64_C(1700000000123456789), &t), 0);
        assert_int_equal(t, UINT64_C(1700000000123250000) + 1000000);

        t = 42;
        assert_int_equal(tbs_next_launch_time(0, 0, 0, 5, &t), -EINVAL);
        assert_int_equal(tbs_next_launch_time(0, 100, 100, 5, &t), -EINVAL);
        assert_int_equal(tbs_next_launch_time(0, 100, 10, 5, NULL), -EINVAL);
        assert_int_equal(tbs_next_launch_time(UINT64_MAX, 100, 10, 5, &t), -ERANGE);
        /* UINT64_MAX is 18446744073709551615: ...616 would be next, one too far. */
        assert_int_equal(tbs_next_launch_time(0, 100, 16, UINT64_MAX - 20, &t), -ERANGE);
        assert_int_equal(t, 42);
        /* ...615 itself: the last launch time that fits. */
        assert_int_equal(tbs_next_launch_time(0, 100, 15, UINT64_MAX - 100, &t), 0);
        assert_int_equal(t, UINT64_MAX);
}

/* A peer that answers as tbsd: Manager.GetLink and the Link methods. */
typedef struct Peer {
        sd_bus *daemon, *client;
        pthread_t thread;
        atomic_bool stop;
        /* What the last OpenTxtimeSocket() brought. */
        char path[128];
        uint32_t queue;
        char kind[16];
        char options[256];      /* "name=value," for each option, in order */
} Peer;

static int get_link(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        char *path = NULL;
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        if (strcmp(name, "nolink") == 0)
                return sd_bus_error_setf(error, "org.tsn.Tbs.Error.NoSuchLink", "no link nolink");
        r = sd_bus_path_encode("/org/tsn/Tbs/link", name, &path);
        if (r < 0)
                return r;
        r = sd_bus_reply_method_return(m, "o", path);
        free(path);
        return r;
}

static int open_txtime_socket(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        Peer *p = userdata;
        const char *kind, *key, *contents;
        size_t used = 0;
        int r, fds[2];

        snprintf(p->path, sizeof(p->path), "%s", sd_bus_message_get_path(m));
        r = sd_bus_message_read(m, "us", &p->queue, &kind);
        if (r < 0)
                return r;
        snprintf(p->kind, sizeof(p->kind), "%s", kind);
        p->options[0] = '\0';
        r = sd_bus_message_enter_container(m, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                char value[32];

                assert_true(sd_bus_message_read(m, "s", &key) > 0);
                assert_true(sd_bus_message_peek_type(m, NULL, &contents) > 0);
                assert_true(sd_bus_message_enter_container(m, 'v', contents) > 0);
                if (strcmp(contents, "u") == 0) {
                        uint32_t u;
                        assert_true(sd_bus_message_read(m, "u", &u) > 0);
                        snprintf(value, sizeof(value), "u%u", u);
                } else if (strcmp(contents, "q") == 0) {
                        uint16_t q;
                        assert_true(sd_bus_message_read(m, "q", &q) > 0);
                        snprintf(value, sizeof(value), "q0x%04x", q);
                } else if (strcmp(contents, "b") == 0) {
                        int b;
                        assert_true(sd_bus_message_read(m, "b", &b) > 0);
                        snprintf(value, sizeof(value), "b%d", b);
                } else
                        snprintf(value, sizeof(value), "?%s", contents);
                assert_true(sd_bus_message_exit_container(m) > 0);
                assert_true(sd_bus_message_exit_container(m) > 0);
                used += (size_t) snprintf(p->options + used, sizeof(p->options) - used, "%s=%s,", key, value);
                assert_true(used < sizeof(p->options));
        }
        if (r < 0)
                return r;
        if (strstr(p->path, "denied"))
                return sd_bus_error_setf(error, "org.tsn.Tbs.Error.AccessDenied",
                                         "OpenTxtimeSocket on denied: uid 65534 is not in group \"tsn\"\n(second line)");
        if (strstr(p->path, "unknown"))
                return sd_bus_error_setf(error, "org.tsn.Tbs.Error.NotThereYet", "a name libtbs does not know");
        /* Any descriptor will do: the test checks it is a new one of the same socket. */
        if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, fds) < 0)
                return -errno;
        r = sd_bus_reply_method_return(m, "huiuu", fds[0], 5u, 11, 3u, 300000u);
        close(fds[0]);
        close(fds[1]);
        return r;
}

static int get_txtime_window(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        uint32_t tc;
        int r;

        r = sd_bus_message_read(m, "u", &tc);
        if (r < 0)
                return r;
        if (tc > 7)
                return sd_bus_error_setf(error, "org.tsn.Tbs.Error.InvalidArguments", "no traffic class %u", tc);
        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        if (strstr(sd_bus_message_get_path(m), "mqprio"))
                r = sd_bus_message_append(reply, "tta(tt)", UINT64_C(0), UINT64_C(0), 0);
        else
                /* Class tc: three windows. */
                r = sd_bus_message_append(reply, "tta(tt)", UINT64_C(1000000000), UINT64_C(1000000), 3,
                                          UINT64_C(0) + tc, UINT64_C(100000), UINT64_C(400000), UINT64_C(50000),
                                          UINT64_C(800000), UINT64_C(200000));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

/* An answer of another shape than the contract's, which a vtable would not
 * let through: to whatever is called on the object. */
static int reply_badly(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        if (!sd_bus_message_is_method_call(m, NULL, NULL))
                return 0;
        return sd_bus_reply_method_return(m, "u", 1);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("GetLink", "s", "o", get_link, 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable link_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("OpenTxtimeSocket", "usa{sv}", "huiuu", open_txtime_socket, 0),
        SD_BUS_METHOD("GetTxtimeWindow", "u", "tta(tt)", get_txtime_window, 0),
        SD_BUS_VTABLE_END,
};

static void *serve(void *userdata) {
        Peer *p = userdata;

        while (!atomic_load(&p->stop)) {
                int r = sd_bus_process(p->daemon, NULL);

                if (r < 0)
                        break;
                if (r == 0)
                        (void) sd_bus_wait(p->daemon, 50000);
        }
        return NULL;
}

static int peer_setup(void **state) {
        Peer *p = calloc(1, sizeof(Peer));

        assert_non_null(p);
        bus_pair_open(true, &p->daemon, &p->client);
        assert_int_equal(sd_bus_add_object_vtable(p->daemon, NULL, "/org/tsn/Tbs", "org.tsn.Tbs.Manager",
                                                  manager_vtable, p), 0);
        assert_int_equal(sd_bus_add_fallback_vtable(p->daemon, NULL, "/org/tsn/Tbs/link", "org.tsn.Tbs.Link",
                                                    link_vtable, NULL, p), 0);
        assert_int_equal(sd_bus_add_object(p->daemon, NULL, "/org/tsn/Tbs/link/badreply", reply_badly, p), 0);
        assert_int_equal(pthread_create(&p->thread, NULL, serve, p), 0);
        *state = p;
        return 0;
}

static int peer_teardown(void **state) {
        Peer *p = *state;

        atomic_store(&p->stop, true);
        pthread_join(p->thread, NULL);
        sd_bus_flush_close_unref(p->client);
        sd_bus_flush_close_unref(p->daemon);
        free(p);
        return 0;
}

static void expect_open(Peer *p, enum tbs_target target, uint32_t value, enum tbs_socket_kind kind,
                        uint16_t protocol, unsigned flags, uint32_t queue, const char *kind_name,
                        const char *options) {
        struct tbs_socket_info info = {};
        struct tbs_error e;
        struct stat st;
        int fd;

        fd = tbs_open_txtime_socket_on_bus(p->client, "eth0", target, value, kind, protocol, flags, &info, &e);
        if (fd < 0)
                fail_msg("open: %d %s: %s", fd, e.name, e.message);
        assert_int_equal(e.error, 0);
        assert_string_equal(tbs_error_message(&e), "");
        assert_string_equal(p->path, "/org/tsn/Tbs/link/eth0");
        assert_int_equal(p->queue, queue);
        assert_string_equal(p->kind, kind_name);
        assert_string_equal(p->options, options);
        assert_int_equal(info.priority, 5);
        assert_int_equal(info.clockid, 11);
        assert_int_equal(info.txtime_flags, 3);
        assert_int_equal(info.delta_ns, 300000);
        /* The socket itself, as the caller's own descriptor, close-on-exec. */
        assert_int_equal(fstat(fd, &st), 0);
        assert_true(S_ISSOCK(st.st_mode));
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        assert_int_equal(close(fd), 0);
}

static void test_open_arguments(void **state) {
        Peer *p = *state;

        expect_open(p, TBS_TARGET_QUEUE, 2, TBS_SOCKET_PACKET, 0x22f0, 0, 2, "packet", "protocol=q0x22f0,");
        expect_open(p, TBS_TARGET_TRAFFIC_CLASS, 1, TBS_SOCKET_UDP4, 0, TBS_OPEN_TX_TIMESTAMPS, 0xffffffff, "udp4",
                    "traffic_class=u1,tx_timestamps=b1,");
        expect_open(p, TBS_TARGET_PRIORITY, 6, TBS_SOCKET_UDP6, 0, TBS_OPEN_ALLOW_NO_ETF, 0xffffffff, "udp6",
                    "priority=u6,allow_no_etf=b1,");
        expect_open(p, TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, TBS_OPEN_TX_TIMESTAMPS | TBS_OPEN_ALLOW_NO_ETF, 0,
                    "udp4", "tx_timestamps=b1,allow_no_etf=b1,");
}

static void expect_open_error(Peer *p, const char *ifname, int error, const char *name, const char *message) {
        struct tbs_socket_info info = { .priority = 99 };
        struct tbs_error e;

        int r;

        r = tbs_open_txtime_socket_on_bus(p->client, ifname, TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0, &info, &e);
        if (r != error)
                fail_msg("%s: %d, expected %d: %s: %s", ifname, r, error, e.name, e.message);
        assert_int_equal(e.error, error);
        assert_string_equal(e.name, name);
        assert_string_equal(tbs_error_message(&e), message);
        assert_int_equal(info.priority, 99);
}

static void test_open_errors(void **state) {
        Peer *p = *state;

        expect_open_error(p, "denied", -EACCES, "org.tsn.Tbs.Error.AccessDenied",
                          "OpenTxtimeSocket on denied: uid 65534 is not in group \"tsn\" (second line)");
        expect_open_error(p, "nolink", -ENODEV, "org.tsn.Tbs.Error.NoSuchLink", "no link nolink");
        expect_open_error(p, "unknown", -EIO, "org.tsn.Tbs.Error.NotThereYet", "a name libtbs does not know");
        expect_open_error(p, "badreply", -EBADMSG, "",
                          "OpenTxtimeSocket: tbsd's reply is not what libtbs expects: No such device or address");
        assert_int_equal(tbs_open_txtime_socket_on_bus(NULL, "eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_UDP4, 0, 0,
                                                       NULL, NULL), -EINVAL);
}

static void test_window(void **state) {
        Peer *p = *state;
        struct tbs_window w[4];
        struct tbs_error e;
        uint64_t base = 1, cycle = 1;

        memset(w, 0xee, sizeof(w));
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "eth0", 2, &base, &cycle, w, 4, &e), 3);
        assert_int_equal(base, 1000000000);
        assert_int_equal(cycle, 1000000);
        assert_int_equal(w[0].offset_ns, 2);
        assert_int_equal(w[0].length_ns, 100000);
        assert_int_equal(w[1].offset_ns, 400000);
        assert_int_equal(w[1].length_ns, 50000);
        assert_int_equal(w[2].offset_ns, 800000);
        assert_int_equal(w[2].length_ns, 200000);
        assert_int_equal(w[3].offset_ns, UINT64_C(0xeeeeeeeeeeeeeeee));

        /* A smaller array: the count of all, only what fits copied. */
        memset(w, 0xee, sizeof(w));
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "eth0", 0, NULL, NULL, w, 1, &e), 3);
        assert_int_equal(w[0].offset_ns, 0);
        assert_int_equal(w[1].offset_ns, UINT64_C(0xeeeeeeeeeeeeeeee));
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "eth0", 0, &base, NULL, NULL, 0, &e), 3);

        /* mqprio: no gates. */
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "mqprio0", 0, &base, &cycle, w, 4, NULL), 0);
        assert_int_equal(base, 0);
        assert_int_equal(cycle, 0);

        base = 5;
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "eth0", 9, &base, NULL, w, 4, &e), -EINVAL);
        assert_string_equal(e.name, "org.tsn.Tbs.Error.InvalidArguments");
        assert_string_equal(e.message, "no traffic class 9");
        assert_int_equal(base, 5);
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "nolink", 0, NULL, NULL, NULL, 0, &e), -ENODEV);
        assert_string_equal(e.message, "no link nolink");
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "eth0", 0, NULL, NULL, NULL, 2, &e), -EINVAL);
        assert_string_equal(e.message, "tbs_get_txtime_window: windows is NULL but n_windows is 2");
        assert_int_equal(tbs_get_txtime_window_on_bus(p->client, "", 0, NULL, NULL, NULL, 0, &e), -EINVAL);
        assert_string_equal(e.message, "tbs_get_txtime_window: no interface name");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_errno_from_bus_error),
                cmocka_unit_test(test_error_message),
                cmocka_unit_test(test_open_check),
                cmocka_unit_test(test_kind_names),
                cmocka_unit_test(test_next_launch_time),
                cmocka_unit_test_setup_teardown(test_open_arguments, peer_setup, peer_teardown),
                cmocka_unit_test_setup_teardown(test_open_errors, peer_setup, peer_teardown),
                cmocka_unit_test_setup_teardown(test_window, peer_setup, peer_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

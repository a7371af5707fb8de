/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txtime-client: an application's side of Link.OpenTxtimeSocket(), for the
 * kernel tests (tests/kernel/test-daemon-txtime-socket.sh). It asks tbsd
 * through libtbs as an application does (tbs_open_txtime_socket()), or with
 * the raw bus call for requests the library cannot express (the malformed
 * options of the error tests), receives the descriptor, and reads the socket back
 * with getsockopt() so the test sees what the kernel holds, not what tbsd
 * says it set.
 *
 *   txtime-client open IFACE QUEUE KIND [OPTION...]
 *     One JSON line: tbsd's answer (priority, clockid, txtime_flags,
 *     delta_ns) and the socket as getsockopt() reads it (so_priority,
 *     so_txtime_clockid, so_txtime_flags, so_timestamping, domain, type,
 *     bound_device, bound_ifindex, bound_protocol, recverr).
 *   txtime-client send IFACE QUEUE KIND [OPTION...] [--count N] [--invalid N]
 *                  [--lead-ns NS] [--spacing-ns NS] [--dest IPV4|IPV6] [--seed S]
 *                  [--cycle-offset NS]
 *     N frames through the socket with tbs_send_at() (libtbs): COUNT-INVALID
 *     on time (now + lead + k * spacing) and INVALID already past, all in a
 *     shuffled order; waits past the last launch time, reads the error queue
 *     with tbs_tx_report_read() until it stays quiet, and prints {"sent",
 *     "enobufs", "invalid", "missed", "other", "on_time_seqs" (the frames
 *     without a report, in launch-time order), "invalid_seqs",
 *     "missed_seqs"}. With --cycle-offset, the on-time frame k is sent at NS
 *     into the k-th taprio cycle (base and cycle from GetTxtimeWindow())
 *     that starts after now + lead. Packet sockets send raw Ethernet frames (broadcast,
 *     EtherType of --protocol), UDP sockets datagrams to DEST port 9.
 *   txtime-client window IFACE TC
 *     GetTxtimeWindow(): {"base_time_ns", "cycle_time_ns", "windows": [[offset, length], ...]}.
 *   txtime-client self udp4|packet
 *     What an application gets without tbsd: a socket of its own, then
 *     SO_TXTIME with CLOCK_TAI: {"socket": "ok"|ERRNO, "so_txtime": "ok"|ERRNO}.
 *   txtime-client recv IFACE ETHERTYPE COUNT TIMEOUT_MS
 *   txtime-client recv udp4 PORT COUNT TIMEOUT_MS
 *     Receive frames of ETHERTYPE (or UDP datagrams to PORT) that carry a
 *     probe payload until COUNT came or none for TIMEOUT_MS: {"received",
 *     "seqs", "txtimes"} in arrival order.
 *
 * OPTION: --protocol N (q), --class N (traffic_class, u), --priority N (u),
 * --timestamps (tx_timestamps), --allow-no-etf, --option NAME:SIG:VALUE (any
 * option with signature q, u, b or s, to try wrong ones). QUEUE "options"
 * is 0xffffffff. A bus error prints "ERROR NAME: MESSAGE" and exits 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "tbs.h"
#include "txtime-probe.h"

#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif

#define MAX_OPTIONS 8
#define MAX_FRAMES 1024

typedef struct Option {
        const char *name;
        char sig;
        const char *value;
} Option;

typedef struct Request {
        const char *ifname;
        uint32_t queue;
        const char *kind;
        Option opts[MAX_OPTIONS];
        size_t n_opts;
} Request;

typedef struct Answer {
        int fd;
        uint32_t priority, txtime_flags, delta_ns;
        int32_t clockid;
} Answer;

static int usage(void) {
        fprintf(stderr, "usage: txtime-client open|send IFACE QUEUE KIND [OPTION...]\n"
                        "       txtime-client window IFACE TC\n"
                        "       txtime-client self udp4|packet\n"
                        "       txtime-client recv IFACE ETHERTYPE COUNT TIMEOUT_MS\n"
                        "       txtime-client recv udp4 PORT COUNT TIMEOUT_MS\n");
        return 2;
}

static uint64_t now_tai(void) {
        struct timespec ts;

        clock_gettime(CLOCK_TAI, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int bus_error(const sd_bus_error *e, int r) {
        if (sd_bus_error_is_set(e))
                printf("ERROR %s: %s\n", e->name, e->message ?: "");
        else
                printf("ERROR %s\n", strerror(-r));
        return 1;
}

static int append_option(sd_bus_message *m, const Option *o) {
        char sig[2] = { o->sig, 0 };
        int r;

        r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", o->name);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', sig);
        if (r < 0)
                return r;
        switch (o->sig) {
        case 'q':
                r = sd_bus_message_append(m, "q", (uint16_t) strtoul(o->value, NULL, 0));
                break;
        case 'u':
                r = sd_bus_message_append(m, "u", (uint32_t) strtoul(o->value, NULL, 0));
                break;
        case 'b':
                r = sd_bus_message_append(m, "b", strcmp(o->value, "true") == 0);
                break;
        default:
                r = sd_bus_message_append(m, "s", o->value);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int open_socket_raw(const Request *q, Answer *ret);

static int link_path(const char *ifname, char **ret) {
        return sd_bus_path_encode("/org/tsn/Tbs/link", ifname, ret);
}

/* The request through libtbs, as an application makes it, when the
 * library can express it (a known kind, only the library's options): 0
 * with *ret, 1 when tbsd answered with an error (printed), -errno, or
 * -ENOTSUP when the request needs the raw call (malformed options are
 * what the daemon's error tests send). */
static int open_socket_libtbs(const Request *q, Answer *ret) {
        struct tbs_error e = {};
        struct tbs_socket_info info = {};
        enum tbs_target target = TBS_TARGET_QUEUE;
        enum tbs_socket_kind kind;
        uint32_t value = q->queue;
        uint16_t protocol = 0;
        unsigned flags = 0;
        int fd;

        if (strcmp(q->kind, "packet") == 0)
                kind = TBS_SOCKET_PACKET;
        else if (strcmp(q->kind, "udp4") == 0)
                kind = TBS_SOCKET_UDP4;
        else if (strcmp(q->kind, "udp6") == 0)
                kind = TBS_SOCKET_UDP6;
        else
                return -ENOTSUP;
        for (size_t i = 0; i < q->n_opts; i++) {
                const Option *o = &q->opts[i];
                bool by_option = q->queue == UINT32_MAX;

                for (size_t j = 0; j < i; j++)
                        if (strcmp(q->opts[j].name, o->name) == 0)
                                return -ENOTSUP;        /* given twice */

                if (strcmp(o->name, "tx_timestamps") == 0 && o->sig == 'b')
                        flags |= TBS_OPEN_TX_TIMESTAMPS;
                else if (strcmp(o->name, "allow_no_etf") == 0 && o->sig == 'b')
                        flags |= TBS_OPEN_ALLOW_NO_ETF;
                else if (strcmp(o->name, "protocol") == 0 && o->sig == 'q')
                        protocol = (uint16_t) strtoul(o->value, NULL, 0);
                else if (by_option && target == TBS_TARGET_QUEUE && strcmp(o->name, "traffic_class") == 0 &&
                         o->sig == 'u') {
                        target = TBS_TARGET_TRAFFIC_CLASS;
                        value = (uint32_t) strtoul(o->value, NULL, 0);
                } else if (by_option && target == TBS_TARGET_QUEUE && strcmp(o->name, "priority") == 0 &&
                           o->sig == 'u') {
                        target = TBS_TARGET_PRIORITY;
                        value = (uint32_t) strtoul(o->value, NULL, 0);
                } else
                        return -ENOTSUP;
        }
        if (value == UINT32_MAX || (kind == TBS_SOCKET_PACKET) != (protocol != 0))
                return -ENOTSUP;        /* a malformed request: the raw call sends it as it is */

        fd = tbs_open_txtime_socket(q->ifname, target, value, kind, protocol, flags, &info, &e);
        if (fd < 0) {
                if (e.name[0] == 0)
                        return fd;
                printf("ERROR %s: %s\n", e.name, e.message);
                return 1;
        }
        *ret = (Answer) {
                .fd = fd,
                .priority = info.priority,
                .clockid = info.clockid,
                .txtime_flags = info.txtime_flags,
                .delta_ns = info.delta_ns,
        };
        return 0;
}

/* OpenTxtimeSocket(); 0 with *ret (a descriptor of our own), 1 when tbsd
 * answered with an error (printed), or -errno. Through libtbs where it can
 * express the request, else the raw call. */
static int open_socket(const Request *q, Answer *ret) {
        int k = open_socket_libtbs(q, ret);

        if (k != -ENOTSUP)
                return k;
        return open_socket_raw(q, ret);
}

/* OpenTxtimeSocket() as a raw bus call. */
static int open_socket_raw(const Request *q, Answer *ret) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus *bus = NULL;
        char *path = NULL;
        int r, fd;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = link_path(q->ifname, &path);
        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, &m, "org.tsn.Tbs", path, "org.tsn.Tbs.Link",
                                                   "OpenTxtimeSocket");
        if (r >= 0)
                r = sd_bus_message_append(m, "us", q->queue, q->kind);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (size_t i = 0; r >= 0 && i < q->n_opts; i++)
                r = append_option(m, &q->opts[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        r = sd_bus_call(bus, m, 30 * 1000000ULL, &e, &reply);
        if (r < 0) {
                r = bus_error(&e, r);
                goto out;
        }
        r = sd_bus_message_read(reply, "huiuu", &fd, &ret->priority, &ret->clockid, &ret->txtime_flags,
                                &ret->delta_ns);
        if (r < 0)
                goto out;
        /* The reply owns its descriptor. */
        ret->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        r = ret->fd < 0 ? -errno : 0;
out:
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
        free(path);
        return r;
}

/* Reads "IFACE QUEUE KIND [OPTION...]" and the send options; argv[i] past them. */
static int parse_request(int argc, char *argv[], Request *q, int *ret_next) {
        int i;

        if (argc < 3)
                return -EINVAL;
        q->ifname = argv[0];
        q->queue = strcmp(argv[1], "options") == 0 ? UINT32_MAX : (uint32_t) strtoul(argv[1], NULL, 0);
        q->kind = argv[2];
        for (i = 3; i < argc && q->n_opts < MAX_OPTIONS; i++) {
                Option *o = &q->opts[q->n_opts];
                const char *v = i + 1 < argc ? argv[i + 1] : NULL;

                if (strcmp(argv[i], "--timestamps") == 0)
                        *o = (Option) { "tx_timestamps", 'b', "true" };
                else if (strcmp(argv[i], "--allow-no-etf") == 0)
                        *o = (Option) { "allow_no_etf", 'b', "true" };
                else if (!v)
                        break;
                else if (strcmp(argv[i], "--protocol") == 0)
                        *o = (Option) { "protocol", 'q', v };
                else if (strcmp(argv[i], "--class") == 0)
                        *o = (Option) { "traffic_class", 'u', v };
                else if (strcmp(argv[i], "--priority") == 0)
                        *o = (Option) { "priority", 'u', v };
                else if (strcmp(argv[i], "--option") == 0) {
                        /* NAME:SIG:VALUE */
                        char *c1 = strchr(v, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

                        if (!c2)
                                return -EINVAL;
                        *c1 = *c2 = 0;
                        *o = (Option) { v, c1[1], c2 + 1 };
                } else
                        break;
                q->n_opts++;
                if (o->sig != 'b' || strcmp(argv[i], "--option") == 0)
                        i++;
        }
        *ret_next = i;
        return 0;
}

static int int_opt(int fd, int level, int name) {
        int v = -1;
        socklen_t len = sizeof(v);

        if (getsockopt(fd, level, name, &v, &len) < 0)
                return -errno;
        return v;
}

static int do_open(int argc, char *argv[]) {
        struct sock_txtime st = {};
        socklen_t len = sizeof(st);
        char dev[IFNAMSIZ] = "";
        socklen_t dev_len = sizeof(dev);
        struct sockaddr_ll sll = {};
        socklen_t sll_len = sizeof(sll);
        Request q = {};
        Answer a;
        int next, r, domain;

        if (parse_request(argc, argv, &q, &next) < 0 || next != argc)
                return usage();
        r = open_socket(&q, &a);
        if (r != 0)
                return r < 0 ? (fprintf(stderr, "txtime-client: %s\n", strerror(-r)), 1) : r;
        if (getsockopt(a.fd, SOL_SOCKET, SO_TXTIME, &st, &len) < 0)
                st.clockid = -errno;
        (void) getsockopt(a.fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &dev_len);
        domain = int_opt(a.fd, SOL_SOCKET, SO_DOMAIN);
        if (domain == AF_PACKET)
                (void) getsockname(a.fd, (struct sockaddr *) &sll, &sll_len);
        printf("{\"priority\": %" PRIu32 ", \"clockid\": %" PRIi32 ", \"txtime_flags\": %" PRIu32
               ", \"delta_ns\": %" PRIu32 ", \"so_priority\": %d, \"so_txtime_clockid\": %d"
               ", \"so_txtime_flags\": %u, \"so_timestamping\": %d, \"domain\": \"%s\", \"type\": \"%s\""
               ", \"bound_device\": \"%s\", \"bound_ifindex\": %d, \"bound_protocol\": %u, \"recverr\": %d}\n",
               a.priority, a.clockid, a.txtime_flags, a.delta_ns, int_opt(a.fd, SOL_SOCKET, SO_PRIORITY),
               (int) st.clockid, st.flags, int_opt(a.fd, SOL_SOCKET, SO_TIMESTAMPING),
               domain == AF_PACKET ? "AF_PACKET" : domain == AF_INET ? "AF_INET" : domain == AF_INET6 ? "AF_INET6" : "?",
               int_opt(a.fd, SOL_SOCKET, SO_TYPE) == SOCK_RAW ? "SOCK_RAW" : "SOCK_DGRAM", dev,
               sll.sll_ifindex, ntohs(sll.sll_protocol),
               domain == AF_INET ? int_opt(a.fd, SOL_IP, IP_RECVERR)
                                 : domain == AF_INET6 ? int_opt(a.fd, SOL_IPV6, IPV6_RECVERR) : -1);
        close(a.fd);
        return 0;
}

typedef struct Frame {
        uint32_t seq;
        uint64_t txtime;
        bool invalid_expected;
        int report;                     /* 0 none, else enum tbs_tx_report_kind */
        bool enobufs;
} Frame;

static int cmp_txtime(const void *a, const void *b) {
        const Frame *x = a, *y = b;

        return x->txtime < y->txtime ? -1 : x->txtime > y->txtime;
}

static int read_mac(const char *ifname, uint8_t mac[6]) {
        char path[128];
        FILE *f;
        int n;

        snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
        f = fopen(path, "re");
        if (!f)
                return -errno;
        n = fscanf(f, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3], &mac[4], &mac[5]);
        fclose(f);
        return n == 6 ? 0 : -EBADMSG;
}

static void print_seqs(const char *key, const Frame *f, size_t n, int report) {
        bool first = true;

        printf(", \"%s\": [", key);
        for (size_t i = 0; i < n; i++)
                if (f[i].report == report) {
                        printf("%s%" PRIu32, first ? "" : ", ", f[i].seq);
                        first = false;
                }
        printf("]");
}

/* GetTxtimeWindow(tc)'s base and cycle time. */
static int get_window(const char *ifname, uint32_t tc, uint64_t *ret_base, uint64_t *ret_cycle) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        char *path = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = link_path(ifname, &path);
        if (r >= 0)
                r = sd_bus_call_method(bus, "org.tsn.Tbs", path, "org.tsn.Tbs.Link", "GetTxtimeWindow", &e, &reply,
                                       "u", tc);
        if (r >= 0)
                r = sd_bus_message_read(reply, "tt", ret_base, ret_cycle);
        if (r < 0)
                (void) bus_error(&e, r);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        free(path);
        return r;
}

static int do_send(int argc, char *argv[]) {
        unsigned long count = 40, invalid = 0, seed = 1, quiet_ms = 500;
        uint64_t lead = 300000000, spacing = 1000000, t0, first = 0;
        int64_t cycle_offset = -1;
        const char *dest = "192.0.2.2";
        union {
                struct sockaddr sa;
                struct sockaddr_in in;
                struct sockaddr_in6 in6;
        } to = {};
        socklen_t to_len;
        Frame *frames;
        uint16_t proto = 0;
        uint8_t mac[6];
        size_t counts[5] = {}, enobufs = 0;
        Request q = {};
        Answer a;
        int next, r;

        if (parse_request(argc, argv, &q, &next) < 0)
                return usage();
        for (int i = next; i < argc; i += 2) {
                const char *v = i + 1 < argc ? argv[i + 1] : "0";

                if (strcmp(argv[i], "--count") == 0)
                        count = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--invalid") == 0)
                        invalid = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--lead-ns") == 0)
                        lead = strtoull(v, NULL, 10);
                else if (strcmp(argv[i], "--spacing-ns") == 0)
                        spacing = strtoull(v, NULL, 10);
                else if (strcmp(argv[i], "--dest") == 0)
                        dest = v;
                else if (strcmp(argv[i], "--seed") == 0)
                        seed = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--cycle-offset") == 0)
                        cycle_offset = strtoll(v, NULL, 10);
                else
                        return usage();
        }
        if (count == 0 || count > MAX_FRAMES || invalid > count)
                return usage();
        /* UDP to DEST port 9, an IPv4 or an IPv6 address. */
        if (inet_pton(AF_INET, dest, &to.in.sin_addr) == 1) {
                to.in.sin_family = AF_INET;
                to.in.sin_port = htons(9);
                to_len = sizeof(to.in);
        } else if (inet_pton(AF_INET6, dest, &to.in6.sin6_addr) == 1) {
                to.in6.sin6_family = AF_INET6;
                to.in6.sin6_port = htons(9);
                to_len = sizeof(to.in6);
        } else
                return usage();
        for (size_t i = 0; i < q.n_opts; i++)
                if (strcmp(q.opts[i].name, "protocol") == 0)
                        proto = (uint16_t) strtoul(q.opts[i].value, NULL, 0);
        if (strcmp(q.kind, "packet") == 0 && read_mac(q.ifname, mac) < 0)
                return usage();
        r = open_socket(&q, &a);
        if (r != 0)
                return r < 0 ? (fprintf(stderr, "txtime-client: %s\n", strerror(-r)), 1) : r;

        frames = calloc(count, sizeof(Frame));
        if (!frames)
                return 1;
        t0 = now_tai();
        if (cycle_offset >= 0) {
                uint64_t base, cycle;

                if (get_window(q.ifname, 0, &base, &cycle) < 0 || cycle == 0)
                        return 1;
                /* The first cycle that starts after now + lead. */
                first = base + ((t0 + lead - base) / cycle + 1) * cycle + (uint64_t) cycle_offset;
                spacing = cycle;
        } else
                first = t0 + lead;
        for (size_t k = 0; k < count; k++) {
                bool bad = k < invalid;

                frames[k] = (Frame) {
                        .seq = (uint32_t) k,
                        .txtime = bad ? t0 - 1000000000u - k : first + (k - invalid) * spacing,
                        .invalid_expected = bad,
                };
        }
        /* Fisher-Yates with a fixed generator: the same order for a seed. */
        for (size_t k = count; k > 1; k--) {
                size_t j;
                Frame tmp;

                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                j = (size_t) ((seed >> 33) % k);
                tmp = frames[k - 1];
                frames[k - 1] = frames[j];
                frames[j] = tmp;
        }
        for (size_t k = 0; k < count; k++) {
                uint8_t buf[14 + TXTIME_PROBE_PAYLOAD] = {};
                const void *data = buf;
                size_t len;
                ssize_t n;

                if (strcmp(q.kind, "packet") == 0) {
                        memset(buf, 0xff, 6);
                        memcpy(buf + 6, mac, 6);
                        buf[12] = (uint8_t) (proto >> 8);
                        buf[13] = (uint8_t) proto;
                        txtime_probe_payload(buf + 14, frames[k].seq, frames[k].txtime);
                        len = sizeof(buf);
                        n = tbs_send_at(a.fd, data, len, frames[k].txtime, NULL, 0, 0);
                } else {
                        txtime_probe_payload(buf, frames[k].seq, frames[k].txtime);
                        len = TXTIME_PROBE_PAYLOAD;
                        n = tbs_send_at(a.fd, data, len, frames[k].txtime, &to.sa, to_len, 0);
                }
                if (n == -ENOBUFS) {
                        frames[k].enobufs = true;
                        enobufs++;
                } else if (n < 0) {
                        fprintf(stderr, "txtime-client: send: %s\n", strerror((int) -n));
                        return 1;
                }
        }
        /* Past the last launch time, then the error queue until quiet. */
        while (now_tai() < first + count * spacing + 20000000) {
                struct timespec ts = { 0, 5000000 };
                nanosleep(&ts, NULL);
        }
        for (;;) {
                struct pollfd p = { .fd = a.fd, .events = 0 };
                struct tbs_tx_report rep;
                uint8_t data[256];

                r = tbs_tx_report_read(a.fd, data, sizeof(data), &rep);
                if (r == -EAGAIN) {
                        if (poll(&p, 1, (int) quiet_ms) <= 0 || !(p.revents & POLLERR))
                                break;
                        continue;
                }
                if (r < 0) {
                        fprintf(stderr, "txtime-client: error queue: %s\n", strerror(-r));
                        return 1;
                }
                counts[rep.kind < 5 ? rep.kind : 0]++;
                for (size_t k = 0; k < count; k++)
                        if ((rep.kind == TBS_TX_REPORT_INVALID || rep.kind == TBS_TX_REPORT_MISSED) &&
                            frames[k].txtime == rep.txtime_ns)
                                frames[k].report = rep.kind;
        }
        qsort(frames, count, sizeof(Frame), cmp_txtime);
        printf("{\"sent\": %lu, \"enobufs\": %zu, \"invalid\": %zu, \"missed\": %zu, \"other\": %zu", count,
               enobufs, counts[TBS_TX_REPORT_INVALID], counts[TBS_TX_REPORT_MISSED], counts[TBS_TX_REPORT_OTHER]);
        print_seqs("on_time_seqs", frames, count, 0);
        print_seqs("invalid_seqs", frames, count, TBS_TX_REPORT_INVALID);
        print_seqs("missed_seqs", frames, count, TBS_TX_REPORT_MISSED);
        printf(", \"expected_invalid\": %lu}\n", invalid);
        free(frames);
        close(a.fd);
        return 0;
}

static int do_window(int argc, char *argv[]) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        sd_bus *bus = NULL;
        char *path = NULL;
        uint64_t base, cycle, off, len;
        bool first = true;
        int r;

        if (argc != 2)
                return usage();
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = link_path(argv[0], &path);
        if (r < 0)
                return 1;
        r = sd_bus_call_method(bus, "org.tsn.Tbs", path, "org.tsn.Tbs.Link", "GetTxtimeWindow", &e, &reply, "u",
                               (uint32_t) strtoul(argv[1], NULL, 0));
        if (r < 0)
                return bus_error(&e, r);
        r = sd_bus_message_read(reply, "tt", &base, &cycle);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(tt)");
        if (r < 0)
                return 1;
        printf("{\"base_time_ns\": %" PRIu64 ", \"cycle_time_ns\": %" PRIu64 ", \"windows\": [", base, cycle);
        while ((r = sd_bus_message_read(reply, "(tt)", &off, &len)) > 0) {
                printf("%s[%" PRIu64 ", %" PRIu64 "]", first ? "" : ", ", off, len);
                first = false;
        }
        printf("]}\n");
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        free(path);
        return r < 0;
}

static const char *outcome(int r) {
        static char buf[32];

        if (r >= 0)
                return "ok";
        snprintf(buf, sizeof(buf), "%s", r == -EPERM ? "EPERM" : r == -EACCES ? "EACCES" : strerror(-r));
        return buf;
}

static int do_self(int argc, char *argv[]) {
        struct sock_txtime st = { .clockid = CLOCK_TAI, .flags = SOF_TXTIME_REPORT_ERRORS };
        int fd, r;

        if (argc != 1)
                return usage();
        if (strcmp(argv[0], "packet") == 0)
                fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
        else
                fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0) {
                printf("{\"socket\": \"%s\", \"so_txtime\": null}\n", outcome(-errno));
                return 0;
        }
        r = setsockopt(fd, SOL_SOCKET, SO_TXTIME, &st, sizeof(st)) < 0 ? -errno : 0;
        printf("{\"socket\": \"ok\", \"so_txtime\": \"%s\"}\n", outcome(r));
        close(fd);
        return 0;
}

static int do_recv(int argc, char *argv[]) {
        struct sockaddr_ll sll = { .sll_family = AF_PACKET };
        struct sockaddr_in in = { .sin_family = AF_INET };
        unsigned long count, timeout;
        char seqs[8192] = "", txtimes[16384] = "";
        size_t got = 0, ls = 0, lt = 0;
        bool udp;
        int fd;

        if (argc != 4)
                return usage();
        /* "udp4 PORT": the datagrams to PORT, their payload the probe's. */
        udp = strcmp(argv[0], "udp4") == 0;
        sll.sll_ifindex = udp ? 0 : (int) if_nametoindex(argv[0]);
        sll.sll_protocol = htons((uint16_t) strtoul(argv[1], NULL, 0));
        in.sin_port = htons((uint16_t) strtoul(argv[1], NULL, 0));
        count = strtoul(argv[2], NULL, 10);
        timeout = strtoul(argv[3], NULL, 10);
        fd = socket(udp ? AF_INET : AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if ((!udp && sll.sll_ifindex <= 0) || fd < 0 ||
            (udp ? bind(fd, (struct sockaddr *) &in, sizeof(in)) : bind(fd, (struct sockaddr *) &sll, sizeof(sll))) < 0) {
                fprintf(stderr, "txtime-client: receive socket: %s\n", strerror(errno));
                return 1;
        }
        fprintf(stderr, "listening\n");
        while (got < count) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                uint8_t buf[1600];
                uint64_t txtime;
                uint32_t seq;
                ssize_t len;

                if (poll(&p, 1, (int) timeout) <= 0)
                        break;
                len = recv(fd, buf, sizeof(buf), 0);
                if (len < 0 || txtime_probe_parse(buf, (size_t) len, &seq, &txtime) < 0)
                        continue;
                ls += (size_t) snprintf(seqs + ls, sizeof(seqs) - ls, "%s%" PRIu32, got ? ", " : "", seq);
                lt += (size_t) snprintf(txtimes + lt, sizeof(txtimes) - lt, "%s%" PRIu64, got ? ", " : "", txtime);
                got++;
                if (ls >= sizeof(seqs) - 32 || lt >= sizeof(txtimes) - 32)
                        break;
        }
        printf("{\"received\": %zu, \"seqs\": [%s], \"txtimes\": [%s]}\n", got, seqs, txtimes);
        close(fd);
        return 0;
}

int main(int argc, char *argv[]) {
        if (argc < 2)
                return usage();
        if (strcmp(argv[1], "open") == 0)
                return do_open(argc - 2, argv + 2);
        if (strcmp(argv[1], "send") == 0)
                return do_send(argc - 2, argv + 2);
        if (strcmp(argv[1], "window") == 0)
                return do_window(argc - 2, argv + 2);
        if (strcmp(argv[1], "self") == 0)
                return do_self(argc - 2, argv + 2);
        if (strcmp(argv[1], "recv") == 0)
                return do_recv(argc - 2, argv + 2);
        return usage();
}

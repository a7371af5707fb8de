/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* txtime-sender: a cyclic sender on a socket from tbsd, with libtbs.
 *
 * It asks tbsd for a socket that reaches an etf queue (by queue, traffic
 * class or priority), then sends one frame every cycle with the launch
 * time base + k * cycle + offset, reads the socket's error queue and prints
 * each second how many frames were sent, how many launch times etf
 * refused (invalid) or missed, and how many taprio dropped because they
 * were outside the class's gate windows. With --class on a taprio link the
 * offset counts from the start of the class's first gate window
 * (GetTxtimeWindow), so every frame leaves inside it.
 *
 *   txtime-sender --interface eth0 --class 0 --cycle 1000000 --offset 100000 --duration 10
 *
 * Build: cc txtime-sender.c $(pkg-config --cflags --libs libtbs)
 * See docs/applications.md and libtbs(3). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <tbs.h>

#define NSEC_PER_SEC UINT64_C(1000000000)

typedef struct Options {
        const char *ifname;
        enum tbs_target target;
        uint32_t value;
        bool target_set;
        enum tbs_socket_kind kind;
        uint16_t protocol;
        const char *dest;
        uint64_t cycle_ns, offset_ns, lead_ns;
        bool cycle_set;
        uint64_t count, duration_s;
        uint64_t past_every;
        bool timestamps;
} Options;

/* refused: sends that failed with ENOBUFS, the qdisc's refusal: etf's of a
 * past launch time (also an invalid report on the error queue), or
 * taprio's of a launch time outside the class's gate windows (no report). */
typedef struct Counts {
        uint64_t sent, invalid, missed, timestamps, refused, send_errors;
} Counts;

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        stop = 1;
}

static int parse_u64(const char *name, const char *s, uint64_t max, uint64_t *ret) {
        unsigned long long v;
        char *end;

        errno = 0;
        v = strtoull(s, &end, 0);
        if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > max) {
                fprintf(stderr, "txtime-sender: --%s: '%s' is not a number from 0 to %" PRIu64 "\n", name, s, max);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

static void usage(void) {
        printf("txtime-sender --interface IFACE {--queue N | --class TC | --priority P} [options]\n"
               "  --kind packet|udp4|udp6   socket kind (default packet: tbsd hands those to root and its\n"
               "                            admin group only; members of sockets.group ask for udp4/udp6)\n"
               "  --protocol ETHERTYPE      of a packet socket (default 0x88b5)\n"
               "  --dest ADDR               packet: destination MAC (default broadcast);\n"
               "                            udp4: A.B.C.D:PORT; udp6: [ADDR]:PORT (required)\n"
               "  --cycle NS                cycle time (default 1000000; taprio's with --class)\n"
               "  --offset NS               launch time into the cycle, or into the class's first\n"
               "                            gate window on a taprio link with --class (default 0;\n"
               "                            above 0 in a window)\n"
               "  --lead NS                 send this long before the launch time (default: the\n"
               "                            etf's delta + 500000)\n"
               "  --count N                 frames to send\n"
               "  --duration S              seconds to run (default 10 without --count)\n"
               "  --past-every N            give every Nth frame a launch time in the past (to\n"
               "                            see etf refuse it)\n"
               "  --timestamps              ask for TX time stamps and count them\n");
}

static int parse_options(int argc, char *argv[], Options *o) {
        enum { ARG_PROTOCOL = 0x100, ARG_DEST, ARG_CYCLE, ARG_OFFSET, ARG_LEAD, ARG_COUNT, ARG_DURATION,
               ARG_PAST_EVERY, ARG_TIMESTAMPS };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "interface", required_argument, NULL, 'i' },
                { "queue", required_argument, NULL, 'q' },
                { "class", required_argument, NULL, 'c' },
                { "priority", required_argument, NULL, 'p' },
                { "kind", required_argument, NULL, 'k' },
                { "protocol", required_argument, NULL, ARG_PROTOCOL },
                { "dest", required_argument, NULL, ARG_DEST },
                { "cycle", required_argument, NULL, ARG_CYCLE },
                { "offset", required_argument, NULL, ARG_OFFSET },
                { "lead", required_argument, NULL, ARG_LEAD },
                { "count", required_argument, NULL, ARG_COUNT },
                { "duration", required_argument, NULL, ARG_DURATION },
                { "past-every", required_argument, NULL, ARG_PAST_EVERY },
                { "timestamps", no_argument, NULL, ARG_TIMESTAMPS },
                {}
        };
        uint64_t v;
        int c;

        *o = (Options) { .kind = TBS_SOCKET_PACKET, .protocol = 0x88b5, .cycle_ns = 1000000 };
        while ((c = getopt_long(argc, argv, "hi:q:c:p:k:", options, NULL)) >= 0) {
                const char *name = NULL;

                for (const struct option *x = options; x->name; x++)
                        if (x->val == c)
                                name = x->name;
                switch (c) {
                case 'h':
                        usage();
                        exit(0);
                case 'i':
                        o->ifname = optarg;
                        break;
                case 'q':
                case 'c':
                case 'p':
                        if (o->target_set) {
                                fprintf(stderr, "txtime-sender: give one of --queue, --class, --priority\n");
                                return -EINVAL;
                        }
                        if (parse_u64(name, optarg, UINT32_MAX - 1, &v) < 0)
                                return -EINVAL;
                        o->target = c == 'q' ? TBS_TARGET_QUEUE : c == 'c' ? TBS_TARGET_TRAFFIC_CLASS
                                                                            : TBS_TARGET_PRIORITY;
                        o->value = (uint32_t) v;
                        o->target_set = true;
                        break;
                case 'k':
                        if (strcmp(optarg, "packet") == 0)
                                o->kind = TBS_SOCKET_PACKET;
                        else if (strcmp(optarg, "udp4") == 0)
                                o->kind = TBS_SOCKET_UDP4;
                        else if (strcmp(optarg, "udp6") == 0)
                                o->kind = TBS_SOCKET_UDP6;
                        else {
                                fprintf(stderr, "txtime-sender: --kind: '%s' is not packet, udp4 or udp6\n", optarg);
                                return -EINVAL;
                        }
                        break;
                case ARG_PROTOCOL:
                        if (parse_u64(name, optarg, UINT16_MAX, &v) < 0)
                                return -EINVAL;
                        o->protocol = (uint16_t) v;
                        break;
                case ARG_DEST:
                        o->dest = optarg;
                        break;
                case ARG_CYCLE:
                        if (parse_u64(name, optarg, 10 * NSEC_PER_SEC, &o->cycle_ns) < 0)
                                return -EINVAL;
                        o->cycle_set = true;
                        break;
                case ARG_OFFSET:
                        if (parse_u64(name, optarg, 10 * NSEC_PER_SEC, &o->offset_ns) < 0)
                                return -EINVAL;
                        break;
                case ARG_LEAD:
                        if (parse_u64(name, optarg, 10 * NSEC_PER_SEC, &o->lead_ns) < 0)
                                return -EINVAL;
                        break;
                case ARG_COUNT:
                        if (parse_u64(name, optarg, UINT64_MAX, &o->count) < 0)
                                return -EINVAL;
                        break;
                case ARG_DURATION:
                        if (parse_u64(name, optarg, 86400 * 365, &o->duration_s) < 0)
                                return -EINVAL;
                        break;
                case ARG_PAST_EVERY:
                        if (parse_u64(name, optarg, UINT64_MAX, &o->past_every) < 0)
                                return -EINVAL;
                        break;
                case ARG_TIMESTAMPS:
                        o->timestamps = true;
                        break;
                default:
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "txtime-sender: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        if (!o->ifname || !o->target_set) {
                fprintf(stderr, "txtime-sender: --interface and one of --queue, --class, --priority are needed\n");
                return -EINVAL;
        }
        if (o->cycle_ns == 0) {
                fprintf(stderr, "txtime-sender: --cycle: must be above 0\n");
                return -EINVAL;
        }
        if (o->kind != TBS_SOCKET_PACKET && !o->dest) {
                fprintf(stderr, "txtime-sender: --dest ADDR:PORT is needed for a %s socket\n",
                        tbs_socket_kind_to_string(o->kind));
                return -EINVAL;
        }
        if (o->count == 0 && o->duration_s == 0)
                o->duration_s = 10;
        return 0;
}

/* The destination of a UDP socket: A.B.C.D:PORT or [ADDR]:PORT. */
static int parse_udp_dest(const char *s, enum tbs_socket_kind kind, struct sockaddr_storage *ret, socklen_t *ret_len) {
        char host[INET6_ADDRSTRLEN + 2];
        const char *colon = strrchr(s, ':');
        uint64_t port;
        size_t n;

        if (!colon || parse_u64("dest port", colon + 1, UINT16_MAX, &port) < 0)
                goto bad;
        n = (size_t) (colon - s);
        if (kind == TBS_SOCKET_UDP6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) ret;

                if (n < 2 || s[0] != '[' || s[n - 1] != ']' || n - 2 >= sizeof(host))
                        goto bad;
                memcpy(host, s + 1, n - 2);
                host[n - 2] = '\0';
                *a = (struct sockaddr_in6) { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port) };
                if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
                        goto bad;
                *ret_len = sizeof(*a);
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *) ret;

                if (n >= sizeof(host))
                        goto bad;
                memcpy(host, s, n);
                host[n] = '\0';
                *a = (struct sockaddr_in) { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
                if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
                        goto bad;
                *ret_len = sizeof(*a);
        }
        return 0;
bad:
        fprintf(stderr, "txtime-sender: --dest: '%s' is not %s\n", s,
                kind == TBS_SOCKET_UDP6 ? "[ADDR]:PORT" : "A.B.C.D:PORT");
        return -EINVAL;
}

/* The Ethernet header of a packet socket's frames: the destination MAC
 * (broadcast by default), the interface's own MAC, the EtherType. */
static int build_eth_header(int fd, const Options *o, uint8_t *frame) {
        struct ether_header *h = (struct ether_header *) frame;
        struct ifreq ifr = {};

        memset(h->ether_dhost, 0xff, ETH_ALEN);
        if (o->dest && sscanf(o->dest, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &h->ether_dhost[0], &h->ether_dhost[1],
                              &h->ether_dhost[2], &h->ether_dhost[3], &h->ether_dhost[4], &h->ether_dhost[5]) != 6) {
                fprintf(stderr, "txtime-sender: --dest: '%s' is not a MAC address\n", o->dest);
                return -EINVAL;
        }
        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->ifname);
        if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
                fprintf(stderr, "txtime-sender: %s: cannot read the MAC address: %s\n", o->ifname, strerror(errno));
                return -errno;
        }
        memcpy(h->ether_shost, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
        h->ether_type = htons(o->protocol);
        return 0;
}

static uint64_t now_ns(clockid_t clock) {
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * NSEC_PER_SEC + (uint64_t) ts.tv_nsec;
}

static void sleep_until(clockid_t clock, uint64_t t) {
        struct timespec ts = { .tv_sec = (time_t) (t / NSEC_PER_SEC), .tv_nsec = (long) (t % NSEC_PER_SEC) };

        while (!stop && clock_nanosleep(clock, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

/* Everything the error queue holds now, counted. */
static void drain_error_queue(int fd, Counts *c) {
        struct tbs_tx_report report;

        while (tbs_tx_report_read(fd, NULL, 0, &report) == 0)
                switch (report.kind) {
                case TBS_TX_REPORT_INVALID:
                        c->invalid++;
                        break;
                case TBS_TX_REPORT_MISSED:
                        c->missed++;
                        break;
                case TBS_TX_REPORT_TIMESTAMP:
                        c->timestamps++;
                        break;
                default:
                        break;
                }
}

static void print_counts(const char *what, const Counts *c, bool timestamps) {
        printf("%s: sent %" PRIu64 " invalid %" PRIu64 " missed %" PRIu64, what, c->sent, c->invalid, c->missed);
        if (timestamps)
                printf(" timestamps %" PRIu64, c->timestamps);
        /* Refusals without an invalid report: taprio's, outside a window. */
        if (c->refused > c->invalid)
                printf(" dropped %" PRIu64, c->refused - c->invalid);
        if (c->send_errors)
                printf(" send-errors %" PRIu64, c->send_errors);
        printf("\n");
        fflush(stdout);
}

int main(int argc, char *argv[]) {
        struct tbs_socket_info info;
        struct tbs_window windows[8];
        struct tbs_error e;
        struct sockaddr_storage dest;
        socklen_t dest_len = 0;
        uint8_t frame[64] = {};
        size_t header = 0;
        uint64_t base = 0, cycle, offset, start, end = UINT64_MAX, next_report, t, seq = 0;
        Counts total = {}, last = {};
        unsigned second = 0;
        Options o;
        int fd, n;

        if (parse_options(argc, argv, &o) < 0)
                return 2;
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);

        fd = tbs_open_txtime_socket(o.ifname, o.target, o.value, o.kind,
                                    o.kind == TBS_SOCKET_PACKET ? o.protocol : 0,
                                    o.timestamps ? TBS_OPEN_TX_TIMESTAMPS : 0, &info, &e);
        if (fd < 0) {
                fprintf(stderr, "txtime-sender: %s: no socket from tbsd: %s%s%s%s\n", o.ifname, tbs_error_message(&e),
                        e.name[0] ? " (" : "", e.name, e.name[0] ? ")" : "");
                return 1;
        }
        printf("socket from tbsd: priority %" PRIu32 " clockid %" PRId32 " txtime_flags 0x%" PRIx32
               " delta_ns %" PRIu32 "\n", info.priority, info.clockid, info.txtime_flags, info.delta_ns);

        /* Where in the cycle: on a taprio link, inside the class's first window. */
        cycle = o.cycle_ns;
        offset = o.offset_ns;
        if (o.target == TBS_TARGET_TRAFFIC_CLASS) {
                uint64_t tap_base, tap_cycle;

                n = tbs_get_txtime_window(o.ifname, o.value, &tap_base, &tap_cycle, windows, 8, &e);
                if (n < 0) {
                        fprintf(stderr, "txtime-sender: %s: no gate windows: %s\n", o.ifname, tbs_error_message(&e));
                        return 1;
                }
                if (n > 0) {
                        if (o.cycle_set && o.cycle_ns != tap_cycle) {
                                fprintf(stderr, "txtime-sender: --cycle %" PRIu64 " is not taprio's cycle %" PRIu64
                                        " ns\n", o.cycle_ns, tap_cycle);
                                return 2;
                        }
                        /* taprio passes a launch time strictly after the window's start. */
                        if (o.offset_ns == 0) {
                                fprintf(stderr, "txtime-sender: --offset must be above 0 on a taprio link: taprio "
                                        "drops a launch time at a window's very start\n");
                                return 2;
                        }
                        if (o.offset_ns >= windows[0].length_ns) {
                                fprintf(stderr, "txtime-sender: --offset %" PRIu64 " is outside class %" PRIu32
                                        "'s first window (%" PRIu64 " ns at %" PRIu64 ")\n", o.offset_ns, o.value,
                                        windows[0].length_ns, windows[0].offset_ns);
                                return 2;
                        }
                        base = tap_base;
                        cycle = tap_cycle;
                        offset = windows[0].offset_ns + o.offset_ns;
                        printf("taprio: base %" PRIu64 " cycle %" PRIu64 " ns, class %" PRIu32 " window %" PRIu64
                               "+%" PRIu64 " ns of %d\n", base, cycle, o.value, windows[0].offset_ns,
                               windows[0].length_ns, n);
                }
        }
        if (offset >= cycle) {
                fprintf(stderr, "txtime-sender: --offset %" PRIu64 " is not inside the cycle of %" PRIu64 " ns\n",
                        offset, cycle);
                return 2;
        }
        if (o.lead_ns == 0)
                o.lead_ns = info.delta_ns + 500000;

        if (o.kind == TBS_SOCKET_PACKET) {
                if (build_eth_header(fd, &o, frame) < 0)
                        return 1;
                header = sizeof(struct ether_header);
        } else if (parse_udp_dest(o.dest, o.kind, &dest, &dest_len) < 0)
                return 2;

        start = now_ns(info.clockid);
        if (o.duration_s)
                end = start + o.duration_s * NSEC_PER_SEC;
        next_report = start + NSEC_PER_SEC;
        t = start + o.lead_ns;
        while (!stop && (o.count == 0 || seq < o.count)) {
                uint64_t launch;
                ssize_t r;

                if (tbs_next_launch_time(base, cycle, offset, t, &launch) < 0)
                        break;
                if (launch - o.lead_ns >= end)
                        break;
                sleep_until(info.clockid, launch - o.lead_ns);
                t = launch;
                seq++;
                memcpy(frame + header, &seq, sizeof(seq));
                /* A launch time a whole cycle ago: etf must refuse it. */
                if (o.past_every && seq % o.past_every == 0)
                        launch -= cycle + o.lead_ns;
                r = tbs_send_at(fd, frame, header + 46, launch, dest_len ? (struct sockaddr *) &dest : NULL,
                                dest_len, 0);
                if (r >= 0)
                        total.sent++;
                else if (r == -ENOBUFS)
                        total.refused++;
                else
                        total.send_errors++;
                drain_error_queue(fd, &total);

                if (now_ns(info.clockid) >= next_report) {
                        Counts d = {
                                .sent = total.sent - last.sent,
                                .invalid = total.invalid - last.invalid,
                                .missed = total.missed - last.missed,
                                .timestamps = total.timestamps - last.timestamps,
                                .refused = total.refused - last.refused,
                                .send_errors = total.send_errors - last.send_errors,
                        };
                        char what[32];

                        snprintf(what, sizeof(what), "%u s", ++second);
                        print_counts(what, &d, o.timestamps);
                        last = total;
                        next_report += NSEC_PER_SEC;
                }
        }
        /* The last reports come once the last launch time and a cycle have passed. */
        if (seq > 0) {
                struct pollfd p = { .fd = fd, .events = 0 };

                sleep_until(info.clockid, t + cycle + o.lead_ns);
                while (poll(&p, 1, 100) > 0 && (p.revents & POLLERR))
                        drain_error_queue(fd, &total);
                drain_error_queue(fd, &total);
        }
        print_counts("total", &total, o.timestamps);
        close(fd);
        return 0;
}

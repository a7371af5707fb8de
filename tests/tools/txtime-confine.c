/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txtime-confine: what the holder of a socket from Link.OpenTxtimeSocket()
 * can do beyond its purpose, for tests/kernel/test-daemon-txtime-confine.sh
 * (issue 37: a packet socket re-bound to another interface, to ETH_P_ALL on
 * lo or to ifindex 0 read every interface's frames). Frames it sends and
 * watches carry a label ("TBSLABEL:" and a word) anywhere in them, so a
 * test can tell its frames from the guest's own.
 *
 *   txtime-confine frame IFACE ETHERTYPE LABEL
 *     Send one broadcast frame of ETHERTYPE carrying LABEL on IFACE from a
 *     packet socket of its own (root).
 *   txtime-confine watch LABEL...
 *     The witness: a packet socket of its own on every interface
 *     (ETH_P_ALL, ifindex 0); prints "listening" on stderr, then receives
 *     until a frame with each LABEL came (or 10 s x TBS_TEST_TIMEOUT_FACTOR
 *     passed: exit 1) and prints {"frames": [...]}: the labelled frames, each
 *     "IFNAME/0xETHERTYPE/PKTTYPE/LABEL".
 *   txtime-confine hold IFACE QUEUE packet PROTOCOL [--bind IFACE|any] [--bind-protocol N]
 *     Gets a packet socket from tbsd (libtbs), tries to take its filter off
 *     (SO_DETACH_FILTER), replace it (SO_ATTACH_FILTER) and unlock it
 *     (SO_LOCK_FILTER 0), binds it again as --bind says (ETH_P_ALL unless
 *     --bind-protocol), prints "bound" on stderr, waits for a line on
 *     stdin (the test sends its frames meanwhile), then reads what is
 *     queued without waiting: {"detach", "attach", "unlock", "bind" (each
 *     "ok" or the errno's name), "frames": [every frame received, as
 *     for watch, LABEL "-" when it has none]}.
 *   txtime-confine hold IFACE QUEUE udp4 --bind IFACE --dest IPV4
 *     Gets a udp4 socket from tbsd and tries to move it to the other
 *     interface: SO_BINDTOIFINDEX, SO_BINDTODEVICE by name, SO_BINDTODEVICE
 *     "" (unbind), then a datagram (labelled "pktinfo") to DEST port 9 with
 *     IP_PKTINFO naming the other interface and a launch time (CLOCK_TAI,
 *     100 ms ahead): {"bindtoifindex", "bindtodevice", "unbind",
 *     "pktinfo_send", "bound_device"}.
 *   txtime-confine send IFACE QUEUE --dest IPV4 [--priority N]
 *     Gets a udp4 socket from tbsd, sets SO_PRIORITY N when given (the
 *     issue 46 abuse: another class's queues), sends one datagram
 *     (labelled "send") to DEST port 9 with a launch time 100 ms ahead:
 *     {"priority": "ok" or the errno's name, "send": the same}.
 *
 * A bus error prints "ERROR NAME: MESSAGE" and exits 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tbs.h"

#ifndef SO_BINDTOIFINDEX
#define SO_BINDTOIFINDEX 62
#endif

#define LABEL_TAG "TBSLABEL:"
#define MAX_LABELS 16

static int usage(void) {
        fprintf(stderr, "usage: txtime-confine frame IFACE ETHERTYPE LABEL\n"
                        "       txtime-confine watch LABEL...\n"
                        "       txtime-confine hold IFACE QUEUE packet PROTOCOL [--bind IFACE|any] [--bind-protocol N]\n"
                        "       txtime-confine hold IFACE QUEUE udp4 --bind IFACE --dest IPV4\n"
                        "       txtime-confine send IFACE QUEUE --dest IPV4 [--priority N]\n");
        return 2;
}

static const char *errno_name(int r) {
        static char buf[32];

        switch (r) {
        case 0: return "ok";
        case EPERM: return "EPERM";
        case EACCES: return "EACCES";
        case EINVAL: return "EINVAL";
        case ENOENT: return "ENOENT";
        case ENODEV: return "ENODEV";
        case ENETUNREACH: return "ENETUNREACH";
        case EHOSTUNREACH: return "EHOSTUNREACH";
        case ENOBUFS: return "ENOBUFS";
        default:
                snprintf(buf, sizeof(buf), "errno %d", r);
                return buf;
        }
}

/* 0 when the call returned >= 0, else its errno. */
static int outcome(long r) {
        return r < 0 ? errno : 0;
}

/* The label a frame carries, into buf (at most size - 1 bytes); false if none. */
static bool frame_label(const uint8_t *f, size_t len, char *buf, size_t size) {
        const uint8_t *at = memmem(f, len, LABEL_TAG, strlen(LABEL_TAG));
        size_t n = 0;

        if (!at)
                return false;
        at += strlen(LABEL_TAG);
        while (at + n < f + len && n + 1 < size && at[n] > ' ' && at[n] < 0x7f)
                n++;
        memcpy(buf, at, n);
        buf[n] = 0;
        return true;
}

static const char *pkttype_name(unsigned t) {
        switch (t) {
        case PACKET_HOST: return "host";
        case PACKET_BROADCAST: return "broadcast";
        case PACKET_MULTICAST: return "multicast";
        case PACKET_OTHERHOST: return "otherhost";
        case PACKET_OUTGOING: return "outgoing";
        default: return "other";
        }
}

/* One frame as "IFNAME/0xETHERTYPE/PKTTYPE/LABEL" into out. */
static void describe_frame(const struct sockaddr_ll *from, const char *label, char out[static 96]) {
        char ifname[IF_NAMESIZE] = "?";

        (void) if_indextoname((unsigned) from->sll_ifindex, ifname);
        snprintf(out, 96, "%s/0x%04x/%s/%s", ifname, ntohs(from->sll_protocol), pkttype_name(from->sll_pkttype),
                 label);
}

static int do_frame(int argc, char *argv[]) {
        struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = ETH_ALEN };
        uint8_t f[ETH_ZLEN] = {};
        uint16_t type;
        int fd;

        if (argc != 3)
                return usage();
        to.sll_ifindex = (int) if_nametoindex(argv[0]);
        type = (uint16_t) strtoul(argv[1], NULL, 0);
        memset(f, 0xff, ETH_ALEN);
        memset(to.sll_addr, 0xff, ETH_ALEN);
        f[6] = 0x02;    /* a locally administered source */
        f[11] = 0x01;
        f[12] = (uint8_t) (type >> 8);
        f[13] = (uint8_t) type;
        snprintf((char *) f + ETH_HLEN, sizeof(f) - ETH_HLEN, LABEL_TAG "%s", argv[2]);
        fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
        if (to.sll_ifindex <= 0 || fd < 0 || sendto(fd, f, sizeof(f), 0, (struct sockaddr *) &to, sizeof(to)) < 0) {
                fprintf(stderr, "txtime-confine: frame on %s: %s\n", argv[0], strerror(errno));
                return 1;
        }
        close(fd);
        return 0;
}

static long timeout_ms(void) {
        const char *f = getenv("TBS_TEST_TIMEOUT_FACTOR");
        double x = f ? strtod(f, NULL) : 1.0;

        return (long) (10000 * (x >= 1.0 ? x : 1.0));
}

static int do_watch(int argc, char *argv[]) {
        const struct sockaddr_ll any = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
        bool seen[MAX_LABELS] = {};
        size_t missing = (size_t) argc;
        struct timespec t0, now;
        bool first = true;
        int fd;

        if (argc < 1 || argc > MAX_LABELS)
                return usage();
        fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
        if (fd < 0 || bind(fd, (const struct sockaddr *) &any, sizeof(any)) < 0) {
                fprintf(stderr, "txtime-confine: watch: %s\n", strerror(errno));
                return 1;
        }
        fprintf(stderr, "listening\n");
        clock_gettime(CLOCK_MONOTONIC, &t0);
        printf("{\"frames\": [");
        while (missing > 0) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                struct sockaddr_ll from;
                socklen_t from_len = sizeof(from);
                uint8_t buf[2048];
                char label[64], line[96];
                ssize_t n;
                long left;

                clock_gettime(CLOCK_MONOTONIC, &now);
                left = timeout_ms() - ((now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
                if (left <= 0 || poll(&p, 1, (int) left) <= 0)
                        break;
                n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *) &from, &from_len);
                if (n < 0 || !frame_label(buf, (size_t) n, label, sizeof(label)))
                        continue;
                describe_frame(&from, label, line);
                printf("%s\"%s\"", first ? "" : ", ", line);
                first = false;
                for (int i = 0; i < argc; i++)
                        if (!seen[i] && strcmp(label, argv[i]) == 0) {
                                seen[i] = true;
                                missing--;
                        }
        }
        printf("]}\n");
        close(fd);
        return missing > 0;
}

/* The fd of a socket from tbsd, or -1 with the error printed. */
static int open_from_tbsd(const char *ifname, const char *queue, enum tbs_socket_kind kind, uint16_t protocol) {
        struct tbs_socket_info info;
        struct tbs_error e = {};
        int fd;

        fd = tbs_open_txtime_socket(ifname, TBS_TARGET_QUEUE, (uint32_t) strtoul(queue, NULL, 0), kind, protocol, 0,
                                    &info, &e);
        if (fd < 0)
                printf("ERROR %s: %s\n", e.name, tbs_error_message(&e));
        return fd;
}

static int hold_packet(int fd, const char *bind_to, uint16_t bind_protocol) {
        const struct sock_filter all[] = { BPF_STMT(BPF_RET | BPF_K, UINT32_MAX) };
        const struct sock_fprog accept_all = { .len = 1, .filter = (struct sock_filter *) all };
        struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(bind_protocol) };
        int zero = 0, detach, attach, unlock, rebind;
        char go[16];
        bool first = true;

        detach = outcome(setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)));
        attach = outcome(setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &accept_all, sizeof(accept_all)));
        unlock = outcome(setsockopt(fd, SOL_SOCKET, SO_LOCK_FILTER, &zero, sizeof(zero)));
        sll.sll_ifindex = strcmp(bind_to, "any") == 0 ? 0 : (int) if_nametoindex(bind_to);
        rebind = outcome(bind(fd, (const struct sockaddr *) &sll, sizeof(sll)));
        fprintf(stderr, "bound\n");
        if (!fgets(go, sizeof(go), stdin))
                return 1;
        printf("{\"detach\": \"%s\", ", errno_name(detach));
        printf("\"attach\": \"%s\", ", errno_name(attach));
        printf("\"unlock\": \"%s\", ", errno_name(unlock));
        printf("\"bind\": \"%s\", \"frames\": [", errno_name(rebind));
        for (;;) {
                struct sockaddr_ll from;
                socklen_t from_len = sizeof(from);
                uint8_t buf[2048];
                char label[64] = "-", line[96];
                ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) &from, &from_len);

                if (n < 0)
                        break;
                (void) frame_label(buf, (size_t) n, label, sizeof(label));
                describe_frame(&from, label, line);
                printf("%s\"%s\"", first ? "" : ", ", line);
                first = false;
        }
        printf("]}\n");
        return 0;
}

/* A launch time 100 ms ahead on CLOCK_TAI (the etf's clock in the tests),
 * as the SCM_TXTIME message at c. */
static void put_launch_time(struct cmsghdr *c) {
        struct timespec now;
        uint64_t t;

        (void) clock_gettime(CLOCK_TAI, &now);
        t = (uint64_t) now.tv_sec * UINT64_C(1000000000) + (uint64_t) now.tv_nsec + UINT64_C(100000000);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_TXTIME;
        c->cmsg_len = CMSG_LEN(sizeof(t));
        memcpy(CMSG_DATA(c), &t, sizeof(t));
}

static int hold_udp(int fd, const char *bind_to, const char *dest) {
        int other = (int) if_nametoindex(bind_to), to_index, to_name, unbind, sent;
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
        union {
                char buf[CMSG_SPACE(sizeof(struct in_pktinfo)) + CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } control = {};
        char payload[] = LABEL_TAG "pktinfo", dev[IF_NAMESIZE] = "";
        struct iovec iov = { .iov_base = payload, .iov_len = sizeof(payload) };
        struct msghdr msg = {
                .msg_name = &to,
                .msg_namelen = sizeof(to),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        socklen_t dev_len = sizeof(dev);

        if (inet_pton(AF_INET, dest, &to.sin_addr) != 1)
                return usage();
        to_index = outcome(setsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &other, sizeof(other)));
        to_name = outcome(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, bind_to, (socklen_t) strlen(bind_to) + 1));
        unbind = outcome(setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "", 1));
        c->cmsg_level = SOL_IP;
        c->cmsg_type = IP_PKTINFO;
        c->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
        ((struct in_pktinfo *) CMSG_DATA(c))->ipi_ifindex = other;
        put_launch_time(CMSG_NXTHDR(&msg, c));
        sent = outcome(sendmsg(fd, &msg, 0));
        (void) getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &dev_len);
        printf("{\"bindtoifindex\": \"%s\", ", errno_name(to_index));
        printf("\"bindtodevice\": \"%s\", ", errno_name(to_name));
        printf("\"unbind\": \"%s\", ", errno_name(unbind));
        printf("\"pktinfo_send\": \"%s\", \"bound_device\": \"%s\"}\n", errno_name(sent), dev);
        return 0;
}

static int do_hold(int argc, char *argv[]) {
        const char *bind_to = NULL, *dest = NULL;
        uint16_t bind_protocol = ETH_P_ALL;
        bool packet;
        int fd, i, r;

        if (argc < 3)
                return usage();
        packet = strcmp(argv[2], "packet") == 0;
        if (!packet && strcmp(argv[2], "udp4") != 0)
                return usage();
        i = packet ? 4 : 3;
        if (argc < i)
                return usage();
        for (; i + 1 < argc; i += 2)
                if (strcmp(argv[i], "--bind") == 0)
                        bind_to = argv[i + 1];
                else if (strcmp(argv[i], "--bind-protocol") == 0)
                        bind_protocol = (uint16_t) strtoul(argv[i + 1], NULL, 0);
                else if (strcmp(argv[i], "--dest") == 0)
                        dest = argv[i + 1];
                else
                        return usage();
        if (i != argc || !bind_to || (!packet && !dest))
                return usage();
        fd = open_from_tbsd(argv[0], argv[1], packet ? TBS_SOCKET_PACKET : TBS_SOCKET_UDP4,
                            packet ? (uint16_t) strtoul(argv[3], NULL, 0) : 0);
        if (fd < 0)
                return 1;
        r = packet ? hold_packet(fd, bind_to, bind_protocol) : hold_udp(fd, bind_to, dest);
        close(fd);
        return r;
}

static int do_send(int argc, char *argv[]) {
        const char *dest = NULL;
        int priority = -1, set = 0, sent, fd;
        struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
        union {
                char buf[CMSG_SPACE(sizeof(uint64_t))];
                struct cmsghdr align;
        } control = {};
        char payload[] = LABEL_TAG "send";
        struct iovec iov = { .iov_base = payload, .iov_len = sizeof(payload) };
        struct msghdr msg = {
                .msg_name = &to,
                .msg_namelen = sizeof(to),
                .msg_iov = &iov,
                .msg_iovlen = 1,
                .msg_control = control.buf,
                .msg_controllen = sizeof(control.buf),
        };
        int i;

        if (argc < 2)
                return usage();
        for (i = 2; i + 1 < argc; i += 2)
                if (strcmp(argv[i], "--dest") == 0)
                        dest = argv[i + 1];
                else if (strcmp(argv[i], "--priority") == 0)
                        priority = atoi(argv[i + 1]);
                else
                        return usage();
        if (i != argc || !dest || inet_pton(AF_INET, dest, &to.sin_addr) != 1)
                return usage();
        fd = open_from_tbsd(argv[0], argv[1], TBS_SOCKET_UDP4, 0);
        if (fd < 0)
                return 1;
        if (priority >= 0)
                set = outcome(setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &priority, sizeof(priority)));
        put_launch_time(CMSG_FIRSTHDR(&msg));
        sent = outcome(sendmsg(fd, &msg, 0));
        printf("{\"priority\": \"%s\", ", errno_name(set));
        printf("\"send\": \"%s\"}\n", errno_name(sent));
        close(fd);
        return 0;
}

int main(int argc, char *argv[]) {
        if (argc < 2)
                return usage();
        if (strcmp(argv[1], "frame") == 0)
                return do_frame(argc - 2, argv + 2);
        if (strcmp(argv[1], "watch") == 0)
                return do_watch(argc - 2, argv + 2);
        if (strcmp(argv[1], "hold") == 0)
                return do_hold(argc - 2, argv + 2);
        if (strcmp(argv[1], "send") == 0)
                return do_send(argc - 2, argv + 2);
        return usage();
}

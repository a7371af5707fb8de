/* SPDX-License-Identifier: GPL-2.0-or-later */
/* txtime-send: traffic for the statistics agreement test.
 *
 *   txtime-send send IFACE PRIORITY [--on-time N] [--past N] [--no-txtime N]
 *                    [--lead-ns NS] [--spacing-ns NS] [--deadline] [--quiet-ms MS]
 *     N on-time frames with txtime now(CLOCK_TAI) + lead + k * spacing, sent in
 *     decreasing txtime order (etf must sort them); N frames whose txtime is
 *     already past (refused at enqueue); N frames from a second socket without
 *     SO_TXTIME (dropped by etf's socket check, no error report). Then reads
 *     the error queue until it has been quiet for MS and prints
 *     {"sent", "on_time", "missed", "invalid", "no_txtime", "on_time_seqs"}:
 *     counts from the error queue (on_time = SO_TXTIME frames with no error),
 *     on_time_seqs in txtime order.
 *
 *   txtime-send recv IFACE COUNT TIMEOUT_MS
 *     Receive probe frames until COUNT arrived or TIMEOUT_MS passed without
 *     one; prints {"received", "seqs", "txtimes"} in arrival order. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "json-util.h"
#include "txtime-probe.h"

static uint64_t now_tai(void) {
        struct timespec ts;

        clock_gettime(CLOCK_TAI, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int die(const char *what, int r) {
        fprintf(stderr, "txtime-send: %s: %s\n", what, strerror(r < 0 ? -r : r));
        return 1;
}

static int do_send(int argc, char *argv[]) {
        unsigned long on_time = 0, past = 0, no_txtime = 0, quiet_ms = 500;
        uint64_t lead = 50000000, spacing = 100000;
        bool deadline = false;
        int ifindex, fd, fd_plain = -1, r;
        uint32_t prio;
        TxtimeProbe *probes;
        size_t n = 0;
        uint64_t t0;
        struct json_object *o, *seqs;

        if (argc < 2)
                return 2;
        ifindex = (int) if_nametoindex(argv[0]);
        if (ifindex <= 0)
                return die(argv[0], errno);
        prio = (uint32_t) strtoul(argv[1], NULL, 10);
        for (int i = 2; i < argc; i++) {
                const char *v = i + 1 < argc ? argv[i + 1] : "0";
                if (strcmp(argv[i], "--deadline") == 0) {
                        deadline = true;
                        continue;
                }
                if (strcmp(argv[i], "--on-time") == 0)
                        on_time = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--past") == 0)
                        past = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--no-txtime") == 0)
                        no_txtime = strtoul(v, NULL, 10);
                else if (strcmp(argv[i], "--lead-ns") == 0)
                        lead = strtoull(v, NULL, 10);
                else if (strcmp(argv[i], "--spacing-ns") == 0)
                        spacing = strtoull(v, NULL, 10);
                else if (strcmp(argv[i], "--quiet-ms") == 0)
                        quiet_ms = strtoul(v, NULL, 10);
                else
                        return 2;
                i++;
        }
        probes = calloc(on_time + past + no_txtime + 1, sizeof(TxtimeProbe));
        if (!probes)
                return die("calloc", ENOMEM);
        r = txtime_probe_socket(ifindex, prio, CLOCK_TAI, deadline, true, false, &fd);
        if (r < 0)
                return die("SO_TXTIME socket", r);
        if (no_txtime) {
                r = txtime_probe_socket(ifindex, prio, CLOCK_TAI, false, false, false, &fd_plain);
                if (r < 0)
                        return die("plain socket", r);
        }
        t0 = now_tai();
        /* On time, latest first. */
        for (unsigned long k = on_time; k-- > 0;) {
                TxtimeProbe *p = &probes[n];
                *p = (TxtimeProbe) { .seq = (uint32_t) n, .txtime_ns = t0 + lead + k * spacing };
                n++;
                r = txtime_probe_send(fd, ifindex, p);
                if (r < 0)
                        return die("send", r);
        }
        for (unsigned long k = 0; k < past; k++) {
                TxtimeProbe *p = &probes[n];
                *p = (TxtimeProbe) { .seq = (uint32_t) n, .txtime_ns = t0 - 1000000000u - k };
                n++;
                r = txtime_probe_send(fd, ifindex, p);
                if (r < 0)
                        return die("send", r);
        }
        for (unsigned long k = 0; k < no_txtime; k++) {
                TxtimeProbe p = { .seq = (uint32_t) (n + k) };
                r = txtime_probe_send(fd_plain, ifindex, &p);
                if (r < 0)
                        return die("send", r);
        }
        /* Wait past the last launch time, then for the queue to go quiet. */
        while (now_tai() < t0 + lead + on_time * spacing + 10000000) {
                struct timespec ts = { 0, 5000000 };
                nanosleep(&ts, NULL);
        }
        r = txtime_probe_collect(fd, probes, n, (int) quiet_ms);
        if (r < 0)
                return die("error queue", r);

        o = json_object_new_object();
        seqs = json_object_new_array();
        {
                int64_t c[_TXTIME_OUTCOME_MAX] = {};
                for (size_t i = 0; i < n; i++)
                        c[probes[i].outcome]++;
                json_add(o, "sent", json_object_new_int64((int64_t) (n + no_txtime)));
                json_add(o, "on_time", json_object_new_int64(c[TXTIME_OUTCOME_NONE]));
                json_add(o, "missed", json_object_new_int64(c[TXTIME_OUTCOME_MISSED]));
                json_add(o, "invalid", json_object_new_int64(c[TXTIME_OUTCOME_INVALID]));
                json_add(o, "no_txtime", json_object_new_int64((int64_t) no_txtime));
        }
        /* probes[0..on_time) were sent latest first: walk back for txtime order. */
        for (size_t i = n; i-- > 0;)
                if (probes[i].outcome == TXTIME_OUTCOME_NONE)
                        json_object_array_add(seqs, json_object_new_int64(probes[i].seq));
        json_add(o, "on_time_seqs", seqs);
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        free(probes);
        return 0;
}

static int do_recv(int argc, char *argv[]) {
        struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(TXTIME_PROBE_ETHERTYPE) };
        struct json_object *o, *seqs, *txtimes;
        unsigned long count, timeout;
        size_t got = 0;
        int fd;

        if (argc != 3)
                return 2;
        sll.sll_ifindex = (int) if_nametoindex(argv[0]);
        if (sll.sll_ifindex <= 0)
                return die(argv[0], errno);
        count = strtoul(argv[1], NULL, 10);
        timeout = strtoul(argv[2], NULL, 10);
        fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(TXTIME_PROBE_ETHERTYPE));
        if (fd < 0 || bind(fd, (struct sockaddr *) &sll, sizeof(sll)) < 0)
                return die("receive socket", errno);
        /* Ready: the test waits for this line before sending. */
        fprintf(stderr, "listening\n");
        o = json_object_new_object();
        seqs = json_object_new_array();
        txtimes = json_object_new_array();
        while (got < count) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                uint8_t buf[1600];
                uint64_t txtime;
                uint32_t seq;
                ssize_t len;

                if (poll(&pfd, 1, (int) timeout) <= 0)
                        break;
                len = recv(fd, buf, sizeof(buf), 0);
                if (len < 0 || txtime_probe_parse(buf, (size_t) len, &seq, &txtime) < 0)
                        continue;
                json_object_array_add(seqs, json_object_new_int64(seq));
                json_object_array_add(txtimes, json_object_new_int64((int64_t) txtime));
                got++;
        }
        json_add(o, "received", json_object_new_int64((int64_t) got));
        json_add(o, "seqs", seqs);
        json_add(o, "txtimes", txtimes);
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
        return 0;
}

int main(int argc, char *argv[]) {
        int r = 2;

        if (argc >= 2 && strcmp(argv[1], "send") == 0)
                r = do_send(argc - 2, argv + 2);
        else if (argc >= 2 && strcmp(argv[1], "recv") == 0)
                r = do_recv(argc - 2, argv + 2);
        if (r == 2)
                fprintf(stderr, "usage: txtime-send send IFACE PRIORITY [--on-time N] [--past N] [--no-txtime N]"
                                " [--lead-ns NS] [--spacing-ns NS] [--deadline] [--quiet-ms MS]\n"
                                "       txtime-send recv IFACE COUNT TIMEOUT_MS\n");
        return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What libnl-route costs where the engine uses it, and where it does not:
 * run under callgrind, each function below repeats one job n times, so its
 * inclusive instruction count divided by n is the cost of one (see
 * docs/architecture.md for the command and the figures).
 *   encode_mqprio_libnl  the mqprio root request as the engine builds it
 *                        (libnl-route's rtnl_qdisc, rtnl_qdisc_build_add_request())
 *   encode_mqprio_raw    the same request with tbsd's own raw encoder
 *                        (qdisc_request_new() + the struct as TCA_OPTIONS)
 *   stats_tree           one interface's tree with counters from a recorded
 *                        dump (qdisc_tree_parse_dump(), what the sampler does)
 *   stats_libnl          the counters of the same qdiscs through libnl-route
 *                        objects (nl_msg_parse() to rtnl_qdisc, rtnl_tc_get_stat()) */
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>

#include <netlink/msg.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/tc.h>

#include "nl-qdisc.h"
#include "qdisc.h"

static const RootSpec root = {
        .kind = ROOT_MQPRIO,
        .handle = 0x01000000,
        .num_tc = 3,
        .priority_map = { 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
        .queues = { { 1, 0 }, { 1, 1 }, { 2, 2 } },
};

static uint64_t sink;

__attribute__((noinline)) static void encode_mqprio_libnl(unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                struct nl_msg *m = NULL;

                if (qdisc_root_request((int) i + 1, &root, &m) < 0)
                        abort();
                sink += nlmsg_hdr(m)->nlmsg_len;
                nlmsg_free(m);
        }
}

__attribute__((noinline)) static void encode_mqprio_raw(unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                uint8_t buf[NLA_ALIGN(sizeof(struct tc_mqprio_qopt))] = {};
                struct nl_msg *m = NULL;

                if (qdisc_request_new(RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE, (int) i + 1, root.handle,
                                      TC_H_ROOT, "mqprio", &m) < 0)
                        abort();
                qdisc_qopt_from_root(&root, buf);
                if (nla_put(m, TCA_OPTIONS, sizeof(buf), buf) < 0)
                        abort();
                sink += nlmsg_hdr(m)->nlmsg_len;
                nlmsg_free(m);
        }
}

__attribute__((noinline)) static void stats_tree(const void *buf, size_t len, int ifindex, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                QDiscTree t = {};

                if (qdisc_tree_parse_dump(buf, len, ifindex, &t) < 0)
                        abort();
                sink += t.root.stats.bytes;
                for (size_t q = 0; q < t.n_queues; q++)
                        sink += t.queues[q].qdisc.stats.drops + t.queues[q].qdisc.stats.overlimits;
                qdisc_tree_done(&t);
        }
}

static void stats_of(struct nl_object *o, void *userdata) {
        struct rtnl_tc *tc = (struct rtnl_tc *) o;

        sink += rtnl_tc_get_stat(tc, RTNL_TC_BYTES) + rtnl_tc_get_stat(tc, RTNL_TC_PACKETS) +
                rtnl_tc_get_stat(tc, RTNL_TC_DROPS) + rtnl_tc_get_stat(tc, RTNL_TC_OVERLIMITS) +
                rtnl_tc_get_stat(tc, RTNL_TC_QLEN) + rtnl_tc_get_stat(tc, RTNL_TC_BACKLOG) +
                rtnl_tc_get_stat(tc, RTNL_TC_REQUEUES);
}

__attribute__((noinline)) static void stats_libnl(const void *buf, size_t len, int ifindex, unsigned n) {
        for (unsigned i = 0; i < n; i++) {
                const struct nlmsghdr *h = buf;
                int rem = (int) len;

                for (; nlmsg_ok(h, rem); h = nlmsg_next((struct nlmsghdr *) h, &rem)) {
                        struct nl_msg *m;

                        if (h->nlmsg_type != RTM_NEWQDISC ||
                            ((const struct tcmsg *) nlmsg_data(h))->tcm_ifindex != ifindex)
                                continue;
                        m = nlmsg_convert((struct nlmsghdr *) h);
                        if (!m)
                                abort();
                        nlmsg_set_proto(m, NETLINK_ROUTE);
                        if (nl_msg_parse(m, stats_of, NULL) < 0)
                                abort();
                        nlmsg_free(m);
                }
        }
}

int main(int argc, char **argv) {
        unsigned n = argc > 3 ? (unsigned) strtoul(argv[3], NULL, 10) : 1000;
        int ifindex = argc > 2 ? atoi(argv[2]) : 3;
        size_t len;
        void *buf;
        FILE *f;

        if (argc < 2) {
                fprintf(stderr, "usage: %s DUMP.bin [IFINDEX [N]]\n", argv[0]);
                return 2;
        }
        f = fopen(argv[1], "re");
        if (!f || fseek(f, 0, SEEK_END) < 0)
                return 1;
        len = (size_t) ftell(f);
        rewind(f);
        buf = malloc(len);
        if (!buf || fread(buf, 1, len, f) != len)
                return 1;
        fclose(f);

        encode_mqprio_libnl(n);
        encode_mqprio_raw(n);
        stats_tree(buf, len, ifindex, n);
        stats_libnl(buf, len, ifindex, n);
        free(buf);
        printf("%u rounds (%llu)\n", n, (unsigned long long) sink);
        return 0;
}

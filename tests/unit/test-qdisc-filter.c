/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The interface filter of a qdisc dump (qdisc_dump_wants()): a dump kept
 * for some interfaces only gives, for each of them, the tree the whole
 * dump gives, and no tree of any other; recorded dumps of the test kernel
 * (tests/unit/fixtures/qdisc/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "qdisc-tree.h"

#include "qdisc-fixture-roots.h"

#define FIXTURES TBS_SOURCE_DIR "/tests/unit/fixtures/qdisc/"

/* Two recorded dumps as one, the second moved to interface 9: the raw
 * messages of a dump (no NLMSG_DONE) in *ret_len bytes. */
static uint8_t *two_interfaces(size_t *ret_len) {
        _cleanup_free_ uint8_t *a = NULL, *b = NULL;
        struct nlmsghdr *h;
        uint8_t *all;
        size_t la, lb;
        int rem;

        a = read_fixture(FIXTURES "mqprio-etf.bin", &la);
        b = read_fixture(FIXTURES "taprio-txtime.bin", &lb);
        rem = (int) lb;
        for (h = (struct nlmsghdr *) b; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem))
                if (h->nlmsg_type == RTM_NEWQDISC && ((struct tcmsg *) NLMSG_DATA(h))->tcm_ifindex == 3)
                        ((struct tcmsg *) NLMSG_DATA(h))->tcm_ifindex = 9;
        assert_int_equal(((struct nlmsghdr *) (b + lb - NLMSG_HDRLEN - 4))->nlmsg_type, NLMSG_DONE);
        lb -= NLMSG_HDRLEN + 4;
        all = malloc(la + lb);
        assert_non_null(all);
        memcpy(all, b, lb);
        memcpy(all + lb, a, la);
        *ret_len = la + lb;
        return all;
}

/* What the transport keeps of buf for wanted: the messages
 * qdisc_dump_wants() takes, back to back. */
static size_t keep(const uint8_t *buf, size_t len, const int *wanted, size_t n, uint8_t *out) {
        const struct nlmsghdr *h;
        size_t k = 0;
        int rem = (int) len;

        for (h = (const struct nlmsghdr *) buf; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem))
                if (h->nlmsg_type == RTM_NEWQDISC && qdisc_dump_wants(h, wanted, n)) {
                        memcpy(out + k, h, NLMSG_ALIGN(h->nlmsg_len));
                        k += NLMSG_ALIGN(h->nlmsg_len);
                }
        return k;
}

static void assert_same_tree(const QDiscTree *x, const QDiscTree *y) {
        assert_int_equal(x->ifindex, y->ifindex);
        assert_int_equal(x->has_root, y->has_root);
        assert_string_equal(x->root.kind, y->root.kind);
        assert_int_equal(x->root.handle, y->root.handle);
        assert_int_equal(x->n_queues, y->n_queues);
        assert_int_equal(x->n_handles, y->n_handles);
        for (size_t j = 0; j < x->n_queues; j++) {
                assert_int_equal(x->queues[j].queue, y->queues[j].queue);
                assert_int_equal(x->queues[j].qdisc.handle, y->queues[j].qdisc.handle);
                assert_int_equal(x->queues[j].etf.etf.delta_ns, y->queues[j].etf.etf.delta_ns);
        }
}

static void test_filtered_set(void **state) {
        static const struct {
                int wanted[3];
                size_t n;
        } cases[] = {
                { { 3 }, 1 },
                { { 9 }, 1 },
                { { 3, 9 }, 2 },
                { { 1, 9, 12 }, 3 },
                { { 4 }, 1 },           /* no such interface in the dump */
                { {}, 0 },
        };
        _cleanup_free_ uint8_t *all = NULL, *out = NULL;
        QDiscTreeSet whole = {};
        size_t len;

        all = two_interfaces(&len);
        out = malloc(len);
        assert_non_null(out);
        assert_int_equal(qdisc_tree_set_parse(all, len, &whole), 0);
        assert_non_null(qdisc_tree_set_find(&whole, 3));
        assert_non_null(qdisc_tree_set_find(&whole, 9));

        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                QDiscTreeSet some = {};
                size_t k = keep(all, len, cases[c].wanted, cases[c].n, out), n_found = 0;

                assert_true(k < len || cases[c].n == 2);
                assert_int_equal(qdisc_tree_set_parse(out, k, &some), 0);
                for (size_t i = 0; i < whole.n; i++) {
                        int ifindex = whole.trees[i].ifindex;
                        const QDiscTree *t = qdisc_tree_set_find(&some, ifindex);
                        bool wanted = false;

                        for (size_t w = 0; w < cases[c].n; w++)
                                wanted = wanted || cases[c].wanted[w] == ifindex;
                        if (!wanted) {
                                assert_null(t);
                                continue;
                        }
                        assert_non_null(t);
                        assert_same_tree(t, &whole.trees[i]);
                        n_found++;
                }
                assert_int_equal(some.n, n_found);
                qdisc_tree_set_done(&some);
        }
        qdisc_tree_set_done(&whole);
}

/* A message too short to name its interface is kept: the parser refuses
 * it, as it refuses it in a dump kept whole. */
static void test_short_message_kept(void **state) {
        struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(2), .nlmsg_type = RTM_NEWQDISC };
        static const int wanted[] = { 3 };

        assert_true(qdisc_dump_wants(&h, wanted, 1));
        assert_true(qdisc_dump_wants(&h, wanted, 0));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_filtered_set),
                cmocka_unit_test(test_short_message_kept),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

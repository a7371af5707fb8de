/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Interface names from callers (daemon/probe/link-name.c): which names are
 * taken and the reason a refused one gets; the RTM_GETLINK request's bytes
 * and answers built in the kernel's format (include/uapi/linux/netlink.h,
 * rtnetlink.h, if_link.h: nlmsghdr, ifinfomsg, rtattr; an unknown name is
 * an NLMSG_ERROR of -ENODEV). The lookup itself, and that it loads no
 * module, is the kernel tier's (tests/kernel/test-daemon-modprobe.sh). */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "link-name.h"
#include "utf8.h"

static void test_refusal(void **unused) {
        static const char *const taken[] = { "eth0", ".hid", "veth-a.100", "x", "abcdefghijklmno", "\xc3\xa9th0" };
        static const struct {
                const char *name, *why;
        } refused[] = {
                { "", "is empty" },
                { "abcdefghijklmnop", "is longer than 15 bytes" },
                { ".", "is a folder's name" },
                { "..", "is a folder's name" },
                { "a/b", "has '/', ':' or a space, which no interface name has" },
                { "eth0:1", "has '/', ':' or a space, which no interface name has" },
                { "a b", "has '/', ':' or a space, which no interface name has" },
                { "%2ehid", "has '%', which no interface name has" },
                { "eth%d", "has '%', which no interface name has" },
                { "a\nb", "has control characters or is not UTF-8" },
                { "a\tb", "has control characters or is not UTF-8" },
                { "a\x01" "b", "has control characters or is not UTF-8" },
                { "a\x7f", "has control characters or is not UTF-8" },
                { "a\xe2\x80\xa8z", "has control characters or is not UTF-8" },   /* U+2028 */
                { "a\xff", "has control characters or is not UTF-8" },
        };

        for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
                assert_null(link_name_refusal(taken[i]));
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
                const char *why = link_name_refusal(refused[i].name);

                assert_non_null(why);
                assert_string_equal(why, refused[i].why);
        }
}

/* What a refused name looks like in an error: one line, every control
 * character and stray byte escaped (text_escape(), as the daemon's
 * refusals show it). */
static void test_refused_name_shown(void **unused) {
        char *s = text_escape("a\nb\x01\xff");

        assert_non_null(s);
        assert_string_equal(s, "a\\nb\\x01\\xff");
        assert_null(strchr(s, '\n'));
        free(s);
}

static void test_request(void **unused) {
        _Alignas(struct nlmsghdr) uint8_t buf[128];
        const struct nlmsghdr *h = (const void *) buf;
        const struct ifinfomsg *ifi;
        const struct rtattr *a;
        size_t left;
        int len;
        bool name = false, mask = false;

        assert_int_equal(link_name_request(buf, sizeof(buf), "", 1), -EINVAL);
        assert_int_equal(link_name_request(buf, sizeof(buf), "abcdefghijklmnop", 1), -EINVAL);
        assert_int_equal(link_name_request(buf, 16, "eth0", 1), -ENOBUFS);

        len = link_name_request(buf, sizeof(buf), "eth0", 7);
        assert_true(len > 0);
        assert_int_equal(h->nlmsg_len, (unsigned) len);
        assert_int_equal(h->nlmsg_type, RTM_GETLINK);
        assert_int_equal(h->nlmsg_flags, NLM_F_REQUEST);     /* one link: no dump */
        assert_int_equal(h->nlmsg_seq, 7);
        ifi = NLMSG_DATA(h);
        assert_int_equal(ifi->ifi_index, 0);                  /* by name */
        a = (const struct rtattr *) ((const uint8_t *) buf + NLMSG_SPACE(sizeof(*ifi)));
        left = (size_t) len - NLMSG_SPACE(sizeof(*ifi));
        for (; RTA_OK(a, left); a = RTA_NEXT(a, left)) {
                if (a->rta_type == IFLA_IFNAME) {
                        assert_int_equal(RTA_PAYLOAD(a), 5);
                        assert_string_equal(RTA_DATA(a), "eth0");
                        name = true;
                } else if (a->rta_type == IFLA_EXT_MASK) {
                        uint32_t m;

                        memcpy(&m, RTA_DATA(a), sizeof(m));
                        assert_int_equal(m, 1u << 3);          /* RTEXT_FILTER_SKIP_STATS */
                        mask = true;
                }
        }
        assert_int_equal(left, 0);
        assert_true(name && mask);
}

static void test_parse(void **unused) {
        struct {
                struct nlmsghdr h;
                struct ifinfomsg ifi;
        } link = {
                .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)), .nlmsg_type = RTM_NEWLINK, .nlmsg_seq = 3 },
                .ifi = { .ifi_index = 42, .ifi_flags = IFF_UP | IFF_RUNNING },
        };
        struct {
                struct nlmsghdr h;
                struct nlmsgerr e;
        } err = {
                .h = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct nlmsgerr)), .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = 3 },
                .e = { .error = -ENODEV },
        };
        unsigned flags = 0;

        assert_int_equal(link_name_parse(&link, sizeof(link), 3, &flags), 42);
        assert_int_equal(flags, IFF_UP | IFF_RUNNING);
        assert_int_equal(link_name_parse(&link, sizeof(link), 4, &flags), 0);   /* another request's */
        assert_int_equal(link_name_parse(&err, sizeof(err), 3, NULL), -ENODEV);
        err.h.nlmsg_len = NLMSG_LENGTH(2);
        assert_int_equal(link_name_parse(&err, sizeof(err), 3, NULL), -EBADMSG);
        link.ifi.ifi_index = 0;
        assert_int_equal(link_name_parse(&link, sizeof(link), 3, NULL), -EBADMSG);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_refusal),
                cmocka_unit_test(test_refused_name_shown),
                cmocka_unit_test(test_request),
                cmocka_unit_test(test_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: the bytes of one recv() on the ethtool generic netlink
 * socket through the MAC merge layer's parsers (daemon/probe/mac-merge.c):
 * the family's description, an MM_GET answer, an MM_SET acknowledgement,
 * each for the sequence number in the first message's header. Invariants:
 *  - each answers 1, 0 or a -errno in [-4095, -1] (the kernel's, or
 *    -EBADMSG), and its outputs are set only with 1;
 *  - an extended-ack text is NUL-terminated within its buffer;
 *  - a parsed state turns into JSON (mac_merge_state_to_json()), and a
 *    request built from it fits and is well formed (nlmsg_len = length). */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>
#include <linux/netlink.h>

#include "fuzz.h"
#include "mac-merge.h"

static void check_result(int r, const char *what) {
        fuzz_check(r == 0 || r == 1 || (r < 0 && r >= -4095), "%s answered %d", what, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _Alignas(struct nlmsghdr) uint8_t buf[16384];
        _Alignas(struct nlmsghdr) uint8_t req[256];
        uint32_t seq = 0;
        uint16_t family = 0;
        bool has = false;
        char err[64];
        MacMergeState s;
        MacMergeSpec back;
        int r, len;

        if (size > sizeof(buf))
                return 0;
        memcpy(buf, data, size);        /* aligned, as a recv() buffer is */
        if (size >= sizeof(struct nlmsghdr))
                memcpy(&seq, buf + offsetof(struct nlmsghdr, nlmsg_seq), sizeof(seq));

        memset(err, 'x', sizeof(err));
        r = mm_parse_family(buf, size, seq, &family, &has, err, sizeof(err));
        check_result(r, "mm_parse_family");
        fuzz_check(memchr(err, 0, sizeof(err)), "extended-ack text not terminated");
        fuzz_check(r == 1 ? family != 0 : family == 0, "family %u with %d", family, r);

        memset(&s, 0, sizeof(s));
        r = mm_parse_get(buf, size, seq, &s, err, sizeof(err));
        check_result(r, "mm_parse_get");
        fuzz_check(memchr(err, 0, sizeof(err)), "extended-ack text not terminated");
        if (r == 1) {
                struct json_object *o = mac_merge_state_to_json(&s);

                fuzz_check(o, "no JSON of a parsed state");
                json_object_put(o);
                mac_merge_spec_from_state(&s, &back);
                len = mm_msg_set(req, sizeof(req), 0x14, 1, 1, &back, NULL);
                fuzz_check(len > 0 && (size_t) len <= sizeof(req) &&
                           ((struct nlmsghdr *) req)->nlmsg_len == (uint32_t) len, "MM_SET of a state: %d", len);
                fuzz_check(mac_merge_matches(&back, &s), "a state does not match its own settings");
        }

        r = mm_parse_ack(buf, size, seq, err, sizeof(err));
        check_result(r, "mm_parse_ack");
        fuzz_check(memchr(err, 0, sizeof(err)), "extended-ack text not terminated");
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MAC merge layer over ethtool generic netlink (mac-merge.h). The
 * message formats are the kernel's (net/ethtool/mm.c, netlink.c and
 * include/uapi/linux/ethtool_netlink.h of Linux 6.12, read for the
 * attribute numbers and what each answer holds); the code is tbsd's.
 * The socket around them is mac-merge-socket.c. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "json-util.h"
#include "mac-merge.h"
#include "macro.h"
#include "metrics.h"



/* MacMergeStat and the metrics' MetricsMacMergeCounter are the same list
 * in the kernel's order: one table of names, the metrics'. */
_Static_assert((int) _MM_STAT_MAX == (int) _METRICS_MM_COUNTER_MAX, "one list of MAC merge counters");

const char *mac_merge_stat_name(MacMergeStat s) {
        return s < _MM_STAT_MAX ? metrics_mac_merge_counter_key((MetricsMacMergeCounter) s) : NULL;
}

const char *mac_merge_verify_status_to_string(uint8_t status) {
        return metrics_mac_merge_verify_status(status);       /* one table, the metrics' labels */
}

struct json_object *mac_merge_state_to_json(const MacMergeState *s) {
        _cleanup_json_ struct json_object *o = json_object_new_object(), *n = json_object_new_object();

        if (!o || !n)
                return NULL;
        for (MacMergeStat i = 0; i < _MM_STAT_MAX; i++)
                if ((s->stats_present & (1U << i)) &&
                    json_add_made(n, mac_merge_stat_name(i), json_object_new_int64((int64_t) s->stats[i])) < 0)
                        return NULL;
        if (json_add_made(o, "pmac_enabled", json_object_new_boolean(s->pmac_enabled)) < 0 ||
            json_add_made(o, "tx_enabled", json_object_new_boolean(s->tx_enabled)) < 0 ||
            json_add_made(o, "tx_active", json_object_new_boolean(s->tx_active)) < 0 ||
            json_add_made(o, "verify_enabled", json_object_new_boolean(s->verify_enabled)) < 0 ||
            json_add_made(o, "verify_status",
                          json_object_new_string(mac_merge_verify_status_to_string(s->verify_status))) < 0 ||
            json_add_made(o, "verify_time_ms", json_object_new_int64(s->verify_time_ms)) < 0 ||
            json_add_made(o, "max_verify_time_ms", json_object_new_int64(s->max_verify_time_ms)) < 0 ||
            json_add_made(o, "tx_min_frag_bytes", json_object_new_int64(s->tx_min_frag_size)) < 0 ||
            json_add_made(o, "rx_min_frag_bytes", json_object_new_int64(s->rx_min_frag_size)) < 0 ||
            json_add_made(o, "counters", TAKE_PTR(n)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* ---- building requests ---- */

typedef struct Msg {
        uint8_t *buf;
        size_t size, len;
        bool overflow;
} Msg;

static void *msg_put(Msg *m, size_t n) {
        size_t at = m->len, need = NLMSG_ALIGN(n);
        void *p;

        if (m->overflow || need > m->size - m->len) {
                m->overflow = true;
                return NULL;
        }
        p = m->buf + at;
        memset(p, 0, need);
        m->len += need;
        return p;
}

static void msg_begin(Msg *m, uint16_t type, uint16_t flags, uint32_t seq, uint8_t cmd, uint8_t version) {
        struct nlmsghdr *h = msg_put(m, NLMSG_HDRLEN);
        struct genlmsghdr *g = msg_put(m, GENL_HDRLEN);

        if (!h || !g)
                return;
        h->nlmsg_type = type;
        h->nlmsg_flags = flags;
        h->nlmsg_seq = seq;
        g->cmd = cmd;
        g->version = version;
}

static struct nlattr *attr_put(Msg *m, uint16_t type, const void *data, size_t n) {
        struct nlattr *a = msg_put(m, NLA_HDRLEN + n);

        if (!a)
                return NULL;
        a->nla_type = type;
        a->nla_len = (uint16_t) (NLA_HDRLEN + n);
        if (n > 0)
                memcpy((uint8_t *) a + NLA_HDRLEN, data, n);
        return a;
}

static void attr_u8(Msg *m, uint16_t type, uint8_t v) {
        (void) attr_put(m, type, &v, sizeof(v));
}

static void attr_u32(Msg *m, uint16_t type, uint32_t v) {
        (void) attr_put(m, type, &v, sizeof(v));
}

/* The request header nest: the device by index, and flags. */
static void attr_header(Msg *m, int ifindex, uint32_t flags) {
        struct nlattr *nest = attr_put(m, TBS_ETHTOOL_A_MM_HEADER | NLA_F_NESTED, NULL, 0);
        size_t start = m->len;

        attr_u32(m, TBS_ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t) ifindex);
        if (flags)
                attr_u32(m, TBS_ETHTOOL_A_HEADER_FLAGS, flags);
        if (nest && !m->overflow)
                nest->nla_len = (uint16_t) (NLA_HDRLEN + m->len - start);
}

static int msg_end(Msg *m) {
        if (m->overflow || m->len < NLMSG_HDRLEN)
                return -ENOBUFS;
        ((struct nlmsghdr *) m->buf)->nlmsg_len = (uint32_t) m->len;
        return (int) m->len;
}

int mm_msg_get_family(void *buf, size_t size, uint32_t seq) {
        Msg m = { .buf = buf, .size = size };

        msg_begin(&m, GENL_ID_CTRL, NLM_F_REQUEST, seq, CTRL_CMD_GETFAMILY, 1);
        (void) attr_put(&m, CTRL_ATTR_FAMILY_NAME, TBS_ETHTOOL_GENL_NAME, sizeof(TBS_ETHTOOL_GENL_NAME));
        return msg_end(&m);
}

int mm_msg_get(void *buf, size_t size, uint16_t family, uint32_t seq, int ifindex) {
        Msg m = { .buf = buf, .size = size };

        msg_begin(&m, family, NLM_F_REQUEST, seq, TBS_ETHTOOL_MSG_MM_GET, TBS_ETHTOOL_GENL_VERSION);
        attr_header(&m, ifindex, TBS_ETHTOOL_FLAG_STATS);
        return msg_end(&m);
}

/* pmac_enabled as the file means it: given, or true with tx_enabled true. */
static bool want_pmac(const MacMergeSpec *w, bool *ret) {
        if (w->pmac_given) {
                *ret = w->pmac_enabled;
                return true;
        }
        if (w->tx_given && w->tx_enabled) {
                *ret = true;
                return true;
        }
        return false;
}

int mm_msg_set(void *buf, size_t size, uint16_t family, uint32_t seq, int ifindex, const MacMergeSpec *want,
               const MacMergeState *have) {
        Msg m = { .buf = buf, .size = size };
        size_t before;
        bool pmac;

        msg_begin(&m, family, NLM_F_REQUEST | NLM_F_ACK, seq, TBS_ETHTOOL_MSG_MM_SET, TBS_ETHTOOL_GENL_VERSION);
        attr_header(&m, ifindex, 0);
        before = m.len;
        /* In the kernel's attribute order: verify, then tx, pmac, fragment. */
        if (want->verify_given && (!have || have->verify_enabled != want->verify_enabled))
                attr_u8(&m, TBS_ETHTOOL_A_MM_VERIFY_ENABLED, want->verify_enabled);
        if (want->verify_time_ms > 0 && (!have || have->verify_time_ms != want->verify_time_ms))
                attr_u32(&m, TBS_ETHTOOL_A_MM_VERIFY_TIME, want->verify_time_ms);
        if (want->tx_given && (!have || have->tx_enabled != want->tx_enabled))
                attr_u8(&m, TBS_ETHTOOL_A_MM_TX_ENABLED, want->tx_enabled);
        if (want_pmac(want, &pmac) && (!have || have->pmac_enabled != pmac))
                attr_u8(&m, TBS_ETHTOOL_A_MM_PMAC_ENABLED, pmac);
        if (want->tx_min_frag_bytes > 0 && (!have || have->tx_min_frag_size != want->tx_min_frag_bytes))
                attr_u32(&m, TBS_ETHTOOL_A_MM_TX_MIN_FRAG_SIZE, want->tx_min_frag_bytes);
        if (!m.overflow && m.len == before)
                return 0;
        return msg_end(&m);
}

bool mac_merge_matches(const MacMergeSpec *want, const MacMergeState *have) {
        uint8_t buf[256];

        return mm_msg_set(buf, sizeof(buf), 0, 0, 1, want, have) == 0;
}

void mac_merge_spec_from_state(const MacMergeState *have, MacMergeSpec *ret) {
        *ret = (MacMergeSpec) {
                .configured = true,
                .pmac_enabled = have->pmac_enabled,
                .tx_enabled = have->tx_enabled,
                .verify_enabled = have->verify_enabled,
                .pmac_given = true,
                .tx_given = true,
                .verify_given = true,
                .verify_time_ms = have->verify_time_ms,
                .tx_min_frag_bytes = have->tx_min_frag_size,
        };
}

/* ---- parsing answers ---- */

typedef struct Attr {
        uint16_t type;
        const uint8_t *data;
        size_t len;
} Attr;

/* The next attribute of [*at, end), or false at the end or on a bad one
 * (*bad set). */
static bool attr_next(const uint8_t **at, const uint8_t *end, Attr *ret, bool *bad) {
        const struct nlattr *a = (const struct nlattr *) *at;
        size_t step, left;

        if ((size_t) (end - *at) < NLA_HDRLEN)
                return false;
        if (a->nla_len < NLA_HDRLEN || a->nla_len > (size_t) (end - *at)) {
                *bad = true;
                return false;
        }
        *ret = (Attr) { .type = a->nla_type & NLA_TYPE_MASK, .data = *at + NLA_HDRLEN, .len = a->nla_len - NLA_HDRLEN };
        step = (size_t) NLA_ALIGN(a->nla_len);
        left = (size_t) (end - *at);

        *at += step < left ? step : left;
        return true;
}

static bool attr_get_u8(const Attr *a, uint8_t *ret) {
        if (a->len < 1)
                return false;
        *ret = a->data[0];
        return true;
}

static bool attr_get_u32(const Attr *a, uint32_t *ret) {
        if (a->len < 4)
                return false;
        memcpy(ret, a->data, 4);
        return true;
}

static bool attr_get_u64(const Attr *a, uint64_t *ret) {
        if (a->len < 8)
                return false;
        memcpy(ret, a->data, 8);
        return true;
}

/* An NLMSG_ERROR: its -errno (0: an ack), and the extended ack's text. */
static int parse_error(const struct nlmsghdr *h, char *err, size_t err_size) {
        const struct nlmsgerr *e = NLMSG_DATA(h);
        const uint8_t *at, *end = (const uint8_t *) h + h->nlmsg_len;
        size_t off = NLMSG_HDRLEN + sizeof(*e);
        bool bad = false;
        Attr a;

        if (h->nlmsg_len < off)
                return -EBADMSG;
        if (!(h->nlmsg_flags & NLM_F_CAPPED))
                off += e->msg.nlmsg_len > NLMSG_HDRLEN ? NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN) : 0;
        if (err && err_size > 0 && (h->nlmsg_flags & NLM_F_ACK_TLVS) && off <= h->nlmsg_len) {
                at = (const uint8_t *) h + off;
                while (attr_next(&at, end, &a, &bad))
                        if (a.type == NLMSGERR_ATTR_MSG && a.len > 0) {
                                size_t n = strnlen((const char *) a.data, a.len);

                                n = n < err_size - 1 ? n : err_size - 1;
                                memcpy(err, a.data, n);
                                err[n] = 0;
                                /* the kernel's text ends with no newline, but be sure */
                                while (n > 0 && err[n - 1] == '\n')
                                        err[--n] = 0;
                        }
        }
        if (e->error > 0 || e->error < -4095)
                return -EBADMSG;
        return e->error;
}

/* Walks the messages of one recv(); calls each(h, userdata) for a
 * message of seq that is not an NLMSG_ERROR/NLMSG_DONE. */
static int walk(const void *buf, size_t len, uint32_t seq, char *err, size_t err_size,
                int (*each)(const struct nlmsghdr *h, void *userdata), void *userdata) {
        const uint8_t *at = buf;
        size_t left = len;
        int done = 0, r;

        if (err && err_size > 0)
                err[0] = 0;
        /* Not NLMSG_NEXT(): a last message whose aligned length passes the
         * end would wrap an unsigned count (found by fuzz-mac-merge). */
        for (const struct nlmsghdr *h; left >= NLMSG_HDRLEN; at += NLMSG_ALIGN(h->nlmsg_len),
             left -= NLMSG_ALIGN(h->nlmsg_len) < left ? NLMSG_ALIGN(h->nlmsg_len) : left) {
                h = (const struct nlmsghdr *) at;
                if (h->nlmsg_len < NLMSG_HDRLEN || h->nlmsg_len > left)
                        break;
                if (h->nlmsg_seq != seq)
                        continue;
                if (h->nlmsg_type == NLMSG_ERROR) {
                        r = parse_error(h, err, err_size);
                        return r < 0 ? r : 1;
                }
                if (h->nlmsg_type == NLMSG_DONE)
                        return 1;
                if (h->nlmsg_type < NLMSG_MIN_TYPE)
                        continue;
                r = each(h, userdata);
                if (r < 0)
                        return r;
                done |= r;
        }
        if (left != 0 && done == 0)
                return -EBADMSG;
        return done;
}

typedef struct FamilyAnswer {
        uint16_t family;
        bool has_mm_get;        /* CTRL_ATTR_OPS lists ETHTOOL_MSG_MM_GET */
} FamilyAnswer;

/* CTRL_ATTR_OPS: a nest of one nest per command, each with its
 * CTRL_ATTR_OP_ID. */
static bool ops_have(const Attr *ops, uint32_t cmd) {
        const uint8_t *at = ops->data, *end = ops->data + ops->len;
        bool bad = false;
        Attr op, a;

        while (attr_next(&at, end, &op, &bad)) {
                const uint8_t *in = op.data, *in_end = op.data + op.len;
                uint32_t id;

                while (attr_next(&in, in_end, &a, &bad))
                        if (a.type == CTRL_ATTR_OP_ID && attr_get_u32(&a, &id) && id == cmd)
                                return true;
        }
        return false;
}

static int each_family(const struct nlmsghdr *h, void *userdata) {
        FamilyAnswer *f = userdata;
        const uint8_t *at = (const uint8_t *) h + NLMSG_HDRLEN + GENL_HDRLEN, *end = (const uint8_t *) h + h->nlmsg_len;
        bool bad = false;
        Attr a;

        if (h->nlmsg_type != GENL_ID_CTRL || h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
                return -EBADMSG;
        while (attr_next(&at, end, &a, &bad))
                if (a.type == CTRL_ATTR_FAMILY_ID && a.len >= 2)
                        memcpy(&f->family, a.data, 2);
                else if (a.type == CTRL_ATTR_OPS)
                        f->has_mm_get = ops_have(&a, TBS_ETHTOOL_MSG_MM_GET);
        return f->family != 0 ? 1 : -EBADMSG;
}

int mm_parse_family(const void *buf, size_t len, uint32_t seq, uint16_t *ret_family, bool *ret_has_mm_get,
                    char *err, size_t err_size) {
        FamilyAnswer f = {};
        int r;

        r = walk(buf, len, seq, err, err_size, each_family, &f);
        if (r > 0 && f.family == 0)
                return -EBADMSG;
        if (r > 0) {
                *ret_family = f.family;
                if (ret_has_mm_get)
                        *ret_has_mm_get = f.has_mm_get;
        }
        return r;
}

static void parse_stats(const Attr *nest, MacMergeState *s) {
        const uint8_t *at = nest->data, *end = nest->data + nest->len;
        bool bad = false;
        Attr a;

        while (attr_next(&at, end, &a, &bad)) {
                unsigned i;

                if (a.type < TBS_ETHTOOL_A_MM_STAT_REASSEMBLY_ERRORS || a.type > TBS_ETHTOOL_A_MM_STAT_HOLD_COUNT)
                        continue;       /* the pad, and counters added after 6.12 */
                i = a.type - TBS_ETHTOOL_A_MM_STAT_REASSEMBLY_ERRORS;
                if (attr_get_u64(&a, &s->stats[i]))
                        s->stats_present |= (uint8_t) (1U << i);
        }
}

static int each_mm(const struct nlmsghdr *h, void *userdata) {
        MacMergeState *s = userdata;
        const struct genlmsghdr *g = NLMSG_DATA(h);
        const uint8_t *at = (const uint8_t *) h + NLMSG_HDRLEN + GENL_HDRLEN, *end = (const uint8_t *) h + h->nlmsg_len;
        bool bad = false;
        uint8_t u8;
        Attr a;

        if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || g->cmd != TBS_ETHTOOL_MSG_MM_GET_REPLY)
                return -EBADMSG;
        *s = (MacMergeState) {};
        while (attr_next(&at, end, &a, &bad))
                switch (a.type) {
                case TBS_ETHTOOL_A_MM_PMAC_ENABLED:
                        if (attr_get_u8(&a, &u8))
                                s->pmac_enabled = u8 != 0;
                        break;
                case TBS_ETHTOOL_A_MM_TX_ENABLED:
                        if (attr_get_u8(&a, &u8))
                                s->tx_enabled = u8 != 0;
                        break;
                case TBS_ETHTOOL_A_MM_TX_ACTIVE:
                        if (attr_get_u8(&a, &u8))
                                s->tx_active = u8 != 0;
                        break;
                case TBS_ETHTOOL_A_MM_VERIFY_ENABLED:
                        if (attr_get_u8(&a, &u8))
                                s->verify_enabled = u8 != 0;
                        break;
                case TBS_ETHTOOL_A_MM_VERIFY_STATUS:
                        (void) attr_get_u8(&a, &s->verify_status);
                        break;
                case TBS_ETHTOOL_A_MM_TX_MIN_FRAG_SIZE:
                        (void) attr_get_u32(&a, &s->tx_min_frag_size);
                        break;
                case TBS_ETHTOOL_A_MM_RX_MIN_FRAG_SIZE:
                        (void) attr_get_u32(&a, &s->rx_min_frag_size);
                        break;
                case TBS_ETHTOOL_A_MM_VERIFY_TIME:
                        (void) attr_get_u32(&a, &s->verify_time_ms);
                        break;
                case TBS_ETHTOOL_A_MM_MAX_VERIFY_TIME:
                        (void) attr_get_u32(&a, &s->max_verify_time_ms);
                        break;
                case TBS_ETHTOOL_A_MM_STATS:
                        parse_stats(&a, s);
                        break;
                default:
                        break;  /* the header nest, and attributes added later */
                }
        return bad ? -EBADMSG : 1;
}

int mm_parse_get(const void *buf, size_t len, uint32_t seq, MacMergeState *ret, char *err, size_t err_size) {
        return walk(buf, len, seq, err, err_size, each_mm, ret);
}

static int each_unexpected(const struct nlmsghdr *h, void *userdata) {
        return 0;       /* a set has no reply of its own; only the ack counts */
}

int mm_parse_ack(const void *buf, size_t len, uint32_t seq, char *err, size_t err_size) {
        return walk(buf, len, seq, err, err_size, each_unexpected, NULL);
}

int mac_merge_refusal(int r, const char *kernel_text, char **ret) {
        const char *extra = kernel_text && kernel_text[0] ? kernel_text : NULL;
        int k;

        if (r == -EOPNOTSUPP)
                k = asprintf(ret, "mac_merge: the device has no MAC merge layer (ethtool netlink MM_GET: %s%s%s)",
                             strerror(-r), extra ? ": " : "", extra ?: "");
        else if (r == -ENOENT)
                k = asprintf(ret, "mac_merge: the kernel has no ethtool netlink family (%s)", strerror(-r));
        else
                k = asprintf(ret, "mac_merge: reading the MAC merge layer failed (ethtool netlink MM_GET: %s%s%s)",
                             strerror(-r), extra ? ": " : "", extra ?: "");
        return k < 0 ? -ENOMEM : 0;
}

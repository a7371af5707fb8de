/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json-strict.h"
#include "qdisc-kind.h"
#include "schedule-parse.h"
#include "show.h"
#include "utf8.h"
#include "schedule-verify.h"

#ifndef CLOCK_TAI
#define CLOCK_TAI 11
#endif

#include "schedule-fields.h"
#include "schedule-hints.h"

static void parse_interface(Parser *p, const JsonNode *top, Schedule *s) {
        const JsonNode *v = NULL;
        const char *name, *problem;
        size_t len;

        /* The kernel takes control characters other than whitespace in a
         * name; so do we (they are escaped wherever a name is printed). */
        name = get_string_full(p, NULL, top, "interface", true, true, &v);
        if (!name)
                return;
        len = str_len(v);
        problem = ifname_problem(name, len);
        if (problem) {
                char sh[SHOW_MAX];

                perr(p, "interface", "%s, got %s", problem, show(v, sh));
                return;
        }
        memcpy(s->ifname, name, len + 1);
}

static void parse_priority_map(Parser *p, const JsonNode *root, RootSpec *r) {
        char sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *a;
        size_t n;

        if ((a = json_member(root, "priority_map")) && tc_hint_priority_map(a, hint)) {
                perr(p, "root.priority_map", "must be an array, got %s%s", show(a, sh), hint);
                return;
        }
        a = get_container(p, "root", root, "priority_map", true, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n != TBS_PRIO_MAP_LEN) {
                perr(p, "root.priority_map",
                     "must have %u entries (the traffic class of each priority 0-15), got %zu",
                     TBS_PRIO_MAP_LEN, n);
                return;
        }
        for (size_t i = 0; i < n; i++) {
                int64_t x;

                if (as_int_index(p, "root.priority_map", a, i, 0, TBS_MAX_TC - 1, &x) >= 0)
                        r->priority_map[i] = (uint8_t) x;
        }
}

static void parse_queues(Parser *p, const JsonNode *root, RootSpec *r, bool num_tc_ok) {
        static const KeySpec keys[] = { { "count", K_ANY }, { "offset", K_ANY } };
        char path[JPATH_MAX], sh[SHOW_MAX], hint[TC_HINT_MAX];
        const JsonNode *a;
        size_t n;

        if ((a = json_member(root, "queues")) && tc_hint_queues(a, true, hint)) {
                perr(p, "root.queues", "must be an array, got %s%s", show(a, sh), hint);
                return;
        }
        a = get_container(p, "root", root, "queues", true, JSON_ARRAY);
        if (!a)
                return;
        n = a->len;
        if (n > TBS_MAX_TC) {
                perr(p, "root.queues", "must have at most %u entries (one per traffic class), got %zu",
                     TBS_MAX_TC, n);
                return;
        }
        if (num_tc_ok && n != r->num_tc)
                perr(p, "root.queues", "must have one entry per traffic class (num_tc is %u), got %zu",
                     r->num_tc, n);
        for (size_t i = 0; i < n; i++) {
                const JsonNode *e = json_index(a, i);
                int64_t x;

                jpath_index(path, "root.queues", i);
                if (tc_hint_queues(e, false, hint)) {
                        perr(p, path, "must be an object, got %s%s", show(e, sh), hint);
                        continue;
                }
                if (!expect_type(p, path, e, JSON_OBJECT))
                        continue;
                check_keys(p, path, e, keys, ELEMENTSOF(keys), K_ANY);
                if (get_int(p, path, e, "count", true, 1, UINT16_MAX, &x) > 0)
                        r->queues[i].count = (uint16_t) x;
                if (get_int(p, path, e, "offset", true, 0, UINT16_MAX, &x) > 0)
                        r->queues[i].offset = (uint16_t) x;
        }
}

/* The root's keys: those of every root with traffic classes, then each
 * such kind's own (bit 1 << RootKind) in the table's order, then stab. */
static const KeySpec root_keys_first[] = {
        { "qdisc", K_ANY },
        { "handle", K_ANY },
        { "num_tc", K_ANY },
        { "priority_map", K_ANY },
        { "queues", K_ANY },
};
static const KeySpec root_keys_last[] = {
        { "stab", K_ANY },
};
static_assert(_ROOT_KIND_MAX <= KEY_TABLE_KINDS, "KeyTable.only holds a text per kind");

static void root_keys_build(KeyTable *t) {
        key_table_add_all(t, root_keys_first, ELEMENTSOF(root_keys_first));
        for (RootKind k = 0; k < _ROOT_KIND_MAX; k++) {
                const QDiscVTable *vt = qdisc_vtable_for_root(k);

                if (vt->n_root_keys == 0)
                        continue;
                for (size_t i = 0; i < vt->n_root_keys; i++)
                        key_table_add(t, vt->root_keys[i].name, 1U << k);
                snprintf(t->only_text[k], sizeof(t->only_text[k]), "only valid for %s %s root", vt->article,
                         vt->kind);
                t->only[k] = t->only_text[k];
        }
        key_table_add_all(t, root_keys_last, ELEMENTSOF(root_keys_last));
}

/* The root's key table, built from the kinds' once (they are constant). */
static const KeyTable *root_keys(void) {
        static KeyTable table;
        static bool built;

        if (!built) {
                root_keys_build(&table);
                built = true;
        }
        return &table;
}

static void parse_root(Parser *p, const JsonNode *top, RootSpec *r) {
        char sh[SHOW_MAX], names[96];
        const JsonNode *root, *v = NULL;
        RootKind kind = _ROOT_KIND_INVALID;
        const QDiscVTable *vt = NULL;
        bool num_tc_ok = false;
        const KeyTable *keys;
        const char *t;
        int64_t x;

        root = get_container(p, NULL, top, "root", true, JSON_OBJECT);
        if (!root)
                return;

        t = get_string(p, "root", root, "qdisc", true, &v);
        if (t) {
                kind = root_kind_from_string(t);
                if (kind < 0 || has_nul(v))
                        perr(p, "root.qdisc", "unknown qdisc %s; expected %s%s", show(v, sh),
                             qdisc_kind_names(names, true, true, " or "),
                             strcmp(t, "tbs") == 0 ? " (a root etf is \"etf\"; \"tbs\" is only a txqueues entry's "
                             "old name)" : "");
        }
        if (kind >= 0)
                vt = qdisc_vtable_for_root(kind);
        if (vt && !vt->traffic_classes) {
                r->kind = kind;
                parse_root_leaf(p, root, r);
                return;
        }
        keys = root_keys();
        check_keys_only(p, "root", root, keys->keys, keys->n, kind >= 0 ? 1U << kind : K_ANY, keys->only);

        r->kind = kind >= 0 ? kind : ROOT_MQPRIO;
        parse_handle(p, root, r);
        if (get_int(p, "root", root, "num_tc", true, 1, TBS_MAX_TC, &x) > 0) {
                r->num_tc = (uint8_t) x;
                num_tc_ok = true;
        }
        parse_priority_map(p, root, r);
        parse_queues(p, root, r, num_tc_ok);
        parse_stab(p, "root", root, &r->stab);
        if (vt && vt->parse_root)
                vt->parse_root(p, root, r);
}


static void parse_clock(Parser *p, const JsonNode *top, ClockSpec *c) {
        static const KeySpec keys[] = {
                { "ptp4l_socket", K_ANY },
                { "domain", K_ANY },
                { "transport_specific", K_ANY },
                { "max_master_offset_ns", K_ANY },
                { "max_phc_offset_ns", K_ANY },
                { "ptp_priority", K_ANY },
        };
        char sh[SHOW_MAX];
        const JsonNode *o, *v = NULL;
        const char *t;
        int64_t x;

        o = get_container(p, NULL, top, "clock", false, JSON_OBJECT);
        if (!o)
                return;
        c->configured = true;
        check_keys(p, "clock", o, keys, ELEMENTSOF(keys), K_ANY);

        t = get_string(p, "clock", o, "ptp4l_socket", false, &v);
        if (t) {
                if (has_nul(v))
                        perr(p, "clock.ptp4l_socket", "must not contain a NUL character, got %s", show(v, sh));
                else if (!(c->ptp4l_socket = strdup(t)))
                        p->oom = true;
        }
        if (get_int(p, "clock", o, "domain", false, 0, UINT8_MAX, &x) > 0)
                c->domain = (uint8_t) x;
        if (get_int(p, "clock", o, "transport_specific", false, 0, 15, &x) > 0)
                c->transport_specific = (uint8_t) x;
        if (get_int(p, "clock", o, "max_master_offset_ns", false, 1, INT64_MAX, &x) > 0)
                c->max_master_offset_ns = x;
        if (get_int(p, "clock", o, "max_phc_offset_ns", false, 1, INT64_MAX, &x) > 0)
                c->max_phc_offset_ns = x;
        if (get_int(p, "clock", o, "ptp_priority", false, 0, TBS_PRIO_MAP_LEN - 1, &x) > 0)
                c->ptp_priority = (uint8_t) x;
}

static void parse_drift(Parser *p, const JsonNode *top, Schedule *s) {
        const JsonNode *v = NULL;
        const char *t;
        char sh[SHOW_MAX];
        int d;

        t = get_string(p, NULL, top, "drift", false, &v);
        if (!t)
                return;
        d = drift_policy_from_string(t);
        if (d < 0) {
                perr(p, "drift", "unknown policy %s; expected \"enforce\" or \"report\"", show(v, sh));
                return;
        }
        s->drift = d;
}

/* One EtherType of "sockets.ethertypes" at path: an integer or a hex
 * string such as "0x88f7" (as EtherTypes are written), 0x0600 to 0xffff
 * (below 0x0600 the field is an 802.3 length). 0 and *ret, or -EINVAL
 * with the problem reported. */
static int parse_ethertype(Parser *p, const char *path, const JsonNode *v, uint16_t *ret) {
        char sh[SHOW_MAX];
        int64_t x = -1;

        if (json_is(v, JSON_INTEGER)) {
                if (as_int(p, path, v, 0, UINT16_MAX, &x) < 0)
                        return -EINVAL;
        } else if (json_is(v, JSON_STRING) && !has_nul(v) && v->text[0] == '0' &&
                   (v->text[1] == 'x' || v->text[1] == 'X') && v->text[2] && strlen(v->text + 2) <= 4 &&
                   strspn(v->text + 2, "0123456789abcdefABCDEF") == strlen(v->text + 2))
                x = (int64_t) strtoul(v->text + 2, NULL, 16);
        else {
                perr(p, path, "must be an EtherType, an integer or a hex string such as \"0x88f7\", got %s",
                     show(v, sh));
                return -EINVAL;
        }
        if (x < 0x0600) {
                perr(p, path, "must be an EtherType, 0x0600 to 0xffff (below, the field is an 802.3 length), got %s",
                     show(v, sh));
                return -EINVAL;
        }
        *ret = (uint16_t) x;
        return 0;
}

/* "sockets.ethertypes": the network-control EtherTypes tbsd may open
 * packet sockets for on this interface (daemon/broker/txtime-map.h). */
static void parse_socket_ethertypes(Parser *p, const JsonNode *o, SocketsSpec *k) {
        char path[JPATH_MAX];
        const JsonNode *a;

        a = get_container(p, "sockets", o, "ethertypes", false, JSON_ARRAY);
        if (!a)
                return;
        if (a->len > TBS_SOCKET_ETHERTYPES_MAX) {
                perr(p, "sockets.ethertypes", "lists %u EtherTypes; at most %d", (unsigned) a->len, TBS_SOCKET_ETHERTYPES_MAX);
                return;
        }
        for (size_t i = 0; i < a->len; i++) {
                uint16_t t;

                jpath_index(path, "sockets.ethertypes", i);
                if (parse_ethertype(p, path, json_index(a, i), &t) < 0)
                        continue;
                for (size_t j = 0; j < k->n_ethertypes; j++)
                        if (k->ethertypes[j] == t) {
                                perr(p, path, "lists 0x%04x a second time", t);
                                t = 0;
                                break;
                        }
                if (t)
                        k->ethertypes[k->n_ethertypes++] = t;
        }
}

/* "sockets": who else may open SO_TXTIME sockets on the interface through
 * tbsd. Whether the group exists is asked at each call, not here: a file
 * may be checked on another machine, and a group created later counts.
 * The group may be left out when the key only lists EtherTypes (for the
 * admins' packet sockets). */
static void parse_sockets(Parser *p, const JsonNode *top, SocketsSpec *k) {
        static const KeySpec keys[] = { { "group", K_ANY }, { "ethertypes", K_ANY } };
        char sh[SHOW_MAX];
        const JsonNode *o, *v = NULL;
        const char *t;

        o = get_container(p, NULL, top, "sockets", false, JSON_OBJECT);
        if (!o)
                return;
        check_keys(p, "sockets", o, keys, ELEMENTSOF(keys), K_ANY);
        parse_socket_ethertypes(p, o, k);
        t = get_string(p, "sockets", o, "group", !json_member(o, "ethertypes"), &v);
        if (!t)
                return;
        if (!group_name_is_valid(t)) {
                perr(p, "sockets.group",
                     "must be a group name (1 to %d bytes: a letter or '_', then letters, digits, '_', '-' "
                     "or '.'), got %s", TBS_GROUP_NAME_MAX, show(v, sh));
                return;
        }
        if (!(k->group = strdup(t)))
                p->oom = true;
}

/* "mac_merge": the MAC merge layer's settings (lib/schedule.h). Ranges as
 * the kernel's ETHTOOL_MSG_MM_SET policy takes them; the rules between
 * keys are the validator's (schedule-verify.c). */
static void parse_mac_merge(Parser *p, const JsonNode *top, MacMergeSpec *m) {
        static const KeySpec keys[] = {
                { "pmac_enabled", K_ANY },
                { "tx_enabled", K_ANY },
                { "verify_enabled", K_ANY },
                { "verify_time_ms", K_ANY },
                { "tx_min_frag_bytes", K_ANY },
        };
        const JsonNode *o;
        int64_t x;

        o = get_container(p, NULL, top, "mac_merge", false, JSON_OBJECT);
        if (!o)
                return;
        m->configured = true;
        check_keys(p, "mac_merge", o, keys, ELEMENTSOF(keys), K_ANY);
        m->pmac_given = get_bool(p, "mac_merge", o, "pmac_enabled", &m->pmac_enabled) > 0;
        m->tx_given = get_bool(p, "mac_merge", o, "tx_enabled", &m->tx_enabled) > 0;
        m->verify_given = get_bool(p, "mac_merge", o, "verify_enabled", &m->verify_enabled) > 0;
        if (get_int(p, "mac_merge", o, "verify_time_ms", false, 1, TBS_MM_VERIFY_TIME_MAX_MS, &x) > 0)
                m->verify_time_ms = (uint32_t) x;
        if (get_int(p, "mac_merge", o, "tx_min_frag_bytes", false, 60, 252, &x) > 0) {
                /* 802.3br's addFragSize 0..3: (64 << n) - 4 bytes */
                if ((x + 4) % 64 != 0)
                        perr(p, "mac_merge.tx_min_frag_bytes", "must be 60, 124, 188 or 252, got %" PRIi64, x);
                else
                        m->tx_min_frag_bytes = (uint32_t) x;
        }
        if (o->len == 0)
                perr(p, "mac_merge", "must set at least one of pmac_enabled, tx_enabled, verify_enabled, "
                     "verify_time_ms, tx_min_frag_bytes");
}

static void parse_top(Parser *p, const JsonNode *top, Schedule *s) {
        static const KeySpec keys[] = {
                { "interface", K_ANY },
                { "root", K_ANY },
                { "txqueues", K_ANY },
                { "clock", K_ANY },
                { "drift", K_ANY },
                { "sockets", K_ANY },
                { "allow", K_ANY },
                { "mac_merge", K_ANY },
        };

        check_keys(p, NULL, top, keys, ELEMENTSOF(keys), K_ANY);
        parse_interface(p, top, s);
        parse_root(p, top, &s->root);
        /* Before the streams: "software-gate-interval" decides their shortest window. */
        parse_allow(p, top, s);
        parse_streams(p, top, s);
        parse_txqueues(p, top, s);
        parse_clock(p, top, &s->clock);
        parse_drift(p, top, s);
        parse_sockets(p, top, &s->sockets);
        parse_mac_merge(p, top, &s->mac_merge);
}

static void line_col(const char *text, size_t off, unsigned *ret_line, unsigned *ret_col) {
        unsigned line = 1;
        size_t bol = 0;

        for (size_t i = 0; i < off; i++)
                if (text[i] == '\n') {
                        line++;
                        bol = i + 1;
                }
        *ret_line = line;
        *ret_col = (unsigned) (off - bol + 1);
}

static bool is_blank(const char *text, size_t len) {
        for (size_t i = 0; i < len; i++)
                if (!strchr(" \t\r\n", text[i]) || text[i] == 0)
                        return false;
        return true;
}

/* Reads text as strict JSON (json-strict.h). Returns 0, the tree and its
 * top-level value, or -EINVAL with a diagnostic if p is given, or -ENOMEM. */
static int tokenize(Parser *p, const char *text, size_t len, JsonTree **ret_tree, const JsonNode **ret) {
        char why[JSON_STRICT_ERROR_MAX];
        const char *nul;
        unsigned line, col;
        size_t at = 0;
        int r;

        if (len > INT_MAX - 1) {
                if (p)
                        perr(p, NULL, "the file is too large");
                return -EINVAL;
        }
        if (is_blank(text, len)) {
                if (p)
                        perr(p, NULL, "the file is empty; expected a JSON object");
                return -EINVAL;
        }
        nul = memchr(text, 0, len);
        if (nul) {
                if (p) {
                        line_col(text, (size_t) (nul - text), &line, &col);
                        perr(p, NULL, "line %u, column %u: syntax error: NUL byte", line, col);
                }
                return -EINVAL;
        }

        r = json_strict_parse(text, len, ret_tree, ret, &at, why);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (p) {
                        line_col(text, at, &line, &col);
                        perr(p, NULL, "line %u, column %u: syntax error: %s", line, col, why);
                }
                return -EINVAL;
        }
        return 0;
}

int schedule_parse_json(const char *file, const char *text, size_t len, DiagList *diags,
                        Schedule **ret) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        const JsonNode *top = NULL;
        Parser p = { .file = file, .diags = diags };
        size_t errors = diag_errors(diags);
        char sh[SHOW_MAX];
        int r;

        r = tokenize(&p, text, len, &tree, &top);
        if (p.oom)
                return -ENOMEM;
        if (r < 0)
                return r;
        if (!json_is(top, JSON_OBJECT)) {
                perr(&p, NULL, "the file must hold a JSON object, got %s", show(top, sh));
                return p.oom ? -ENOMEM : -EINVAL;
        }

        s = calloc(1, sizeof(Schedule));
        if (!s)
                return -ENOMEM;
        if (file && !(s->source = strdup(file)))
                return -ENOMEM;
        s->root = (RootSpec) {
                .kind = ROOT_MQPRIO,
                .handle = TBS_DEFAULT_ROOT_HANDLE,
        };
        root_spec_init(&s->root);
        s->clock = (ClockSpec) {
                .max_master_offset_ns = 100,
                .max_phc_offset_ns = 1000,
        };

        parse_top(&p, top, s);
        if (p.oom)
                return -ENOMEM;
        if (diag_errors(diags) > errors)
                return -EINVAL;
        *ret = TAKE_PTR(s);
        return 0;
}

int schedule_peek_ifname(const char *text, size_t len, char ret[static IFNAMSIZ]) {
        _cleanup_json_tree_ JsonTree *tree = NULL;
        const JsonNode *top, *v;
        size_t n;

        if (tokenize(NULL, text, len, &tree, &top) < 0)
                return -ENOENT;
        v = json_member(top, "interface");
        if (!v || !json_is(v, JSON_STRING))
                return -ENOENT;
        n = str_len(v);
        if (ifname_problem(v->text, n))
                return -ENOENT;
        memcpy(ret, v->text, n + 1);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cbsa table of an interface to cbs queues of its schedule document,
 * and the idle slope in force back from Describe() (nc-cbsa.h). Pure. The
 * document gives tbsd the bandwidth, not the four values: tbsd computes
 * them with the link speed it reads before every apply (kinds/cbs.c,
 * IEEE 802.1Q Annex L) and refuses an idle slope at or above the link's
 * rate with its own line. */
#include "nc-cbsa.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nc-translate-internal.h"

#define TABLE CBSA_IF_MODULE ":cbsa/cbsa-parameter-table"
#define BITS_PER_KBIT 1000

static json_object *get(json_object *o, const char *key) {
        json_object *v = NULL;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static bool is_entry(const struct nc_node *e) {
        return strcmp(e->name, "cbsa-parameter-table") == 0;
}

uint8_t nc_cbsa_classes(const struct nc_node *iface) {
        const struct nc_node *cbsa = nc_child(iface, "cbsa");
        uint8_t classes = 0;

        for (const struct nc_node *e = cbsa ? cbsa->child : NULL; e; e = e->next) {
                uint64_t tc;
                if (is_entry(e) && nc_parse_u64(nc_leaf(e, "traffic-class"), &tc) == 0 && tc < 8)
                        classes |= (uint8_t) (1u << tc);
        }
        return classes;
}

/* The entry of doc's txqueues on queue q (its index in *at when at is
 * not NULL), or NULL. */
static json_object *txqueue_at(json_object *txqueues, int64_t q, size_t *at) {
        for (size_t i = 0; i < json_object_array_length(txqueues); i++) {
                json_object *e = json_object_array_get_idx(txqueues, i);
                if (json_object_get_int64(get(e, "queue")) == q) {
                        if (at)
                                *at = i;
                        return e;
                }
        }
        return NULL;
}

/* tbsd's module's entry of queue q (tbsd:schedule/txqueues), or NULL. */
static const struct nc_node *own_txqueue(const struct nc_node *iface, int64_t q) {
        for (const struct nc_node *e = nc_child(nc_child(iface, "schedule"), "txqueues"); e; e = e->next) {
                uint64_t n;
                if (strcmp(e->name, "txqueues") == 0 && nc_parse_u64(nc_leaf(e, "queue"), &n) == 0 &&
                    (int64_t) n == q)
                        return e;
        }
        return NULL;
}

/* The etf tbsd's module put on the queue becomes the cbs's child: its
 * keys but the queue's number move under child. */
static int etf_to_child(struct ctx *ctx, json_object *q, int64_t queue) {
        json_object *child = json_object_new_object();
        const char *keys[32];
        size_t n = 0;
        char node[64];

        snprintf(node, sizeof(node), "tbsd:schedule/txqueues[queue=%" PRId64 "]", queue);
        json_object_object_foreach(q, key, value) {
                (void) value;
                if (strcmp(key, "queue") == 0)
                        continue;
                if (n == sizeof(keys) / sizeof(keys[0])) {
                        json_object_put(child);
                        return nc_fail(ctx, node, "too many keys");
                }
                keys[n++] = key;
        }
        json_object_object_add(child, "qdisc", json_object_new_string("etf"));
        for (size_t i = 0; i < n; i++)
                if (strcmp(keys[i], "qdisc") != 0)
                        json_object_object_add(child, keys[i], json_object_get(get(q, keys[i])));
        for (size_t i = 0; i < n; i++)
                json_object_object_del(q, keys[i]);
        json_object_object_add(q, "child", child);
        return 0;
}

/* One entry of the table: a cbs (bandwidth form) on its class's first queue. */
static int shape_class(struct ctx *ctx, const struct nc_node *e, json_object *root, json_object *txqueues) {
        json_object *queues = get(root, "queues");
        int64_t num_tc = json_object_get_int64(get(root, "num_tc"));
        const char *slope_text = nc_leaf(e, "admin-idle-slope");
        uint64_t tc, slope = 0;
        char node[128];

        if (nc_parse_u64(nc_leaf(e, "traffic-class"), &tc) < 0)
                return nc_fail(ctx, TABLE, "an entry without its traffic-class");
        snprintf(node, sizeof(node), TABLE "[traffic-class=%" PRIu64 "]", tc);
        if (num_tc < 1)
                return nc_fail(ctx, node, "the interface's root has no traffic classes to shape");
        if ((int64_t) tc >= num_tc || !json_object_is_type(queues, json_type_array) ||
            tc >= json_object_array_length(queues))
                return nc_fail(ctx, node, "the interface's root has %" PRId64 " traffic classes (0 to %" PRId64
                               "): class %" PRIu64 " has no queue to shape",
                               num_tc, num_tc - 1, tc);
        if (slope_text && nc_parse_u64(slope_text, &slope) < 0)
                return nc_fail(ctx, node, "admin-idle-slope: not a number: \"%s\"", slope_text);
        if (slope == 0)
                return nc_fail(ctx, node, "admin-idle-slope: 0 bit/s reserves nothing and a cbs without an idle "
                               "slope never sends; give the class's bandwidth, or leave the class out of the table");
        if (slope % BITS_PER_KBIT != 0)
                return nc_fail(ctx, node, "admin-idle-slope: %" PRIu64 " bit/s is not a whole number of kbit/s "
                               "(Linux's cbs takes the idle slope in kbit/s)", slope);

        int64_t queue = json_object_get_int64(get(json_object_array_get_idx(queues, tc), "offset"));
        size_t at = json_object_array_length(txqueues);
        json_object *q = txqueue_at(txqueues, queue, &at);
        const char *kind = json_object_get_string(get(q, "qdisc"));
        char own[64];

        snprintf(own, sizeof(own), "tbsd:schedule/txqueues[queue=%" PRId64 "]", queue);
        if (q && kind && strcmp(kind, "etf") != 0)
                return nc_fail(ctx, node, "the class's queue %" PRId64 " has a %s of tbsd's module (%s): give "
                               "the class's shaper in one of them", queue, kind, own);
        if (q && (etf_to_child(ctx, q, queue) < 0 ||
                  nc_note(ctx, own_txqueue(ctx->iface, queue), own, "txqueues[%zu].child", at) < 0))
                return -1;
        if (!q) {
                q = json_object_new_object();
                json_object_object_add(q, "queue", json_object_new_int64(queue));
                json_object_array_add(txqueues, q);
        }
        json_object_object_add(q, "qdisc", json_object_new_string("cbs"));
        /* Past 2^63 bit/s the parser's range says no with its line. */
        json_object_object_add(q, "bandwidth_kbps",
                               json_object_new_int64((int64_t) (slope / BITS_PER_KBIT)));
        json_object_object_add(q, "max_frame_bytes", json_object_new_int(NC_CBSA_FRAME_BYTES));
        /* tbsd's lines name txqueues[AT] and its keys: the controller wrote these. */
        char leaf[160];
        snprintf(leaf, sizeof(leaf), "%s/admin-idle-slope", node);
        if (nc_note(ctx, e, node, "txqueues[%zu]", at) < 0 ||
            nc_note(ctx, nc_child(e, "admin-idle-slope"), leaf, "txqueues[%zu].bandwidth_kbps", at) < 0)
                return -1;
        return 0;
}

int nc_cbsa_translate(struct ctx *ctx, const struct nc_node *iface, json_object *doc) {
        const struct nc_node *cbsa = nc_child(iface, "cbsa");
        json_object *root = get(doc, "root");
        json_object *txqueues = get(doc, "txqueues");

        if (!txqueues) {
                txqueues = json_object_new_array();
                json_object_object_add(doc, "txqueues", txqueues);
        }
        for (const struct nc_node *e = cbsa ? cbsa->child : NULL; e; e = e->next)
                if (is_entry(e) && shape_class(ctx, e, root, txqueues) < 0)
                        return -1;
        return 0;
}

int nc_cbsa_oper_idle_slope(const char *describe_json, unsigned tc, uint64_t *bps) {
        json_object *doc = describe_json ? json_tokener_parse(describe_json) : NULL;
        json_object *queues = get(get(doc, "root"), "queues");
        json_object *txqueues = get(doc, "txqueues");
        json_object *cls = json_object_is_type(queues, json_type_array) ? json_object_array_get_idx(queues, tc) : NULL;
        json_object *q = cls && json_object_is_type(txqueues, json_type_array)
                                 ? txqueue_at(txqueues, json_object_get_int64(get(cls, "offset")), NULL)
                                 : NULL;
        json_object *slope = get(q, "idle_slope_kbps");
        const char *kind = json_object_get_string(get(q, "qdisc"));
        int r = -1;

        /* As installed only: "qdisc" is the kernel's, "installed" says the
         * values are the kernel's and not the document's. */
        if (kind && strcmp(kind, "cbs") == 0 && json_object_get_boolean(get(q, "installed")) &&
            json_object_is_type(slope, json_type_int) && json_object_get_int64(slope) > 0) {
                *bps = (uint64_t) json_object_get_int64(slope) * BITS_PER_KBIT;
                r = 0;
        }
        json_object_put(doc);
        return r;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tbsd derives for a taprio root from a standard-only edit (issue
 * 48, nc-derive.h), and where the translation takes it. */
#include "nc-derive.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-cbsa.h"
#include "nc-translate-internal.h"

unsigned nc_derive_num_tc(const uint8_t *gates, size_t n, unsigned tx_queues) {
        unsigned num_tc = 1;

        for (size_t i = 0; i < n; i++)
                for (unsigned bit = NC_DERIVE_MAX_TC; bit > 0; bit--)
                        if (gates[i] & (1u << (bit - 1))) {
                                if (bit > num_tc)
                                        num_tc = bit;
                                break;
                        }
        return num_tc < tx_queues ? num_tc : tx_queues;
}

/* IEEE 802.1Q-2022 Table 8-5 (recommended priority to traffic class
 * mappings): row = priority 0 to 7, column = number of classes 1 to 8. */
static const uint8_t table_8_5[8][8] = {
        { 0, 0, 0, 0, 0, 1, 1, 1 },
        { 0, 0, 0, 0, 0, 0, 0, 0 },
        { 0, 0, 0, 1, 1, 2, 2, 2 },
        { 0, 0, 0, 1, 1, 2, 3, 3 },
        { 0, 1, 1, 2, 2, 3, 4, 4 },
        { 0, 1, 1, 2, 2, 3, 4, 5 },
        { 0, 1, 2, 3, 3, 4, 5, 6 },
        { 0, 1, 2, 3, 4, 5, 6, 7 },
};

unsigned nc_derive_class_of(unsigned priority, unsigned num_tc) {
        if (num_tc < 1)
                return 0;
        if (num_tc > NC_DERIVE_MAX_TC)
                num_tc = NC_DERIVE_MAX_TC;
        return table_8_5[priority < 8 ? priority : 0][num_tc - 1];
}

void nc_derive_queues(unsigned num_tc, unsigned tx_queues, unsigned *count, unsigned *offset) {
        for (unsigned i = 0; i < num_tc; i++) {
                offset[i] = i;
                /* num_tc above tx_queues (given by tbsd's module): tbsd refuses it. */
                count[i] = i + 1 < num_tc || tx_queues <= i ? 1 : tx_queues - i;
        }
}

const char *nc_derive_mode(const char *caps_json) {
        json_object *caps = caps_json ? json_tokener_parse(caps_json) : NULL;
        json_object *offload = NULL, *confidence = NULL;
        bool full = json_object_object_get_ex(caps, "taprio_full_offload", &offload) &&
                    json_object_is_type(offload, json_type_boolean) && json_object_get_boolean(offload) &&
                    json_object_object_get_ex(caps, "confidence", &confidence) &&
                    json_object_is_type(confidence, json_type_string) &&
                    strcmp(json_object_get_string(confidence), "known") == 0;

        json_object_put(caps);
        return full ? "full-offload" : "software";
}

int nc_derive_tx_queues(const char *ifname) {
        char path[64];
        DIR *d;
        int n = 0;

        /* A name from the datastore: nothing that walks the path. */
        if (!ifname || !*ifname || strlen(ifname) > 15 || strchr(ifname, '/') || strcmp(ifname, ".") == 0 ||
            strcmp(ifname, "..") == 0)
                return -EINVAL;
        snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
        d = opendir(path);
        if (!d)
                return -errno;
        for (struct dirent *e; (e = readdir(d));)
                n += strncmp(e->d_name, "tx-", 3) == 0;
        closedir(d);
        return n > 0 ? n : -ENOENT;
}

int (*nc_tx_queues_of)(const char *ifname) = nc_derive_tx_queues;

void nc_translate_set_tx_queues(int (*tx_queues)(const char *ifname)) {
        nc_tx_queues_of = tx_queues ? tx_queues : nc_derive_tx_queues;
}

static int (*nc_mode_of)(const char *ifname, const char **mode, char **why);

void nc_translate_set_mode_of(int (*mode_of)(const char *ifname, const char **mode, char **why)) {
        nc_mode_of = mode_of;
}

/* A taprio root's mode where tbsd's module gives none: the device's
 * (software, tbsd's default, left out of the document). Only from
 * 802.1DC's table, the standard path: tbsd's own older table keeps tbsd's
 * default, as its controllers have had it since issue 40. */
static int derive_mode(struct ctx *ctx, json_object *root) {
        const char *mode = "software";
        char *why = NULL;

        if (json_object_object_get_ex(root, "mode", NULL) || strcmp(ctx->table, DC_MODULE ":gate-parameter-table") != 0)
                return 0;
        if (nc_mode_of && nc_mode_of(ctx->ifname, &mode, &why) < 0) {
                int r = nc_fail(ctx, nc_tpath(ctx, ""),
                                "tbsd derives the root's mode from the device's capabilities, and cannot say "
                                "them now: %s", why ? why : "out of memory");
                free(why);
                return r;
        }
        if (strcmp(mode, "software") != 0)
                json_object_object_add(root, "mode", json_object_new_string(mode));
        return 0;
}

/* The interface's gate table: tbsd's own (ieee802-dot1q-sched's, module
 * not said) or 802.1DC's; one of them. */
int nc_gate_table(struct ctx *ctx, const struct nc_node *iface, const struct nc_node **table) {
        const struct nc_node *own = NULL, *dc = NULL;

        for (const struct nc_node *c = iface->child; c; c = c->next)
                if (strcmp(c->name, "gate-parameter-table") == 0) {
                        if (c->module && strcmp(c->module, DC_MODULE) == 0)
                                dc = c;
                        else
                                own = c;
                }
        *table = dc ? dc : own;
        ctx->table = dc ? DC_MODULE ":gate-parameter-table" : "ieee802-dot1q-sched:gate-parameter-table";
        if (dc && own)
                return nc_fail(ctx, DC_MODULE ":gate-parameter-table",
                            "the interface has ieee802-dot1q-sched:gate-parameter-table too; give one of them");
        return 0;
}

/* What a standard-only edit leaves out of a taprio root (nc-derive.h):
 * num_tc from the gate list and the TX queues, then priority_map and
 * queues for that num_tc; each only where tbsd's module gave none. */
int nc_derive_root(struct ctx *ctx, const struct nc_node *table, json_object *root) {
        const struct nc_node *list = nc_child(table, "admin-control-list");
        json_object *v;
        int tx = -1;
        unsigned num_tc;

        if (!json_object_object_get_ex(root, "num_tc", NULL) ||
            !json_object_object_get_ex(root, "queues", NULL)) {
                tx = nc_tx_queues_of(ctx->ifname);
                /* Named for what was sent: the cbsa table alone has no gate table. */
                if (tx < 0)
                        return nc_fail(ctx, table ? nc_tpath(ctx, "") : CBSA_IF_MODULE ":cbsa",
                                    "tbsd derives the traffic classes from the %s and the interface's TX "
                                    "queues, and finds no TX queues of the interface here: %s",
                                    table ? "gate list" : "classes it shapes", strerror(-tx));
        }
        if (!json_object_object_get_ex(root, "num_tc", NULL)) {
                uint8_t gates[256];
                size_t n = 0;
                for (const struct nc_node *e = list ? list->child : NULL; e && n < sizeof(gates); e = e->next) {
                        uint64_t g;
                        if (strcmp(e->name, "gate-control-entry") == 0 &&
                            nc_parse_u64(nc_leaf(e, "gate-states-value"), &g) == 0)
                                gates[n++] = (uint8_t) g;
                }
                num_tc = nc_derive_num_tc(gates, n, (unsigned) tx);
                /* A class the cbsa table shapes is one of the root's too. */
                uint8_t shaped = nc_cbsa_classes(ctx->iface);
                if (nc_derive_num_tc(&shaped, 1, (unsigned) tx) > num_tc)
                        num_tc = nc_derive_num_tc(&shaped, 1, (unsigned) tx);
                ctx->gate_limit = num_tc;
                json_object_object_add(root, "num_tc", json_object_new_int((int) num_tc));
        }
        json_object_object_get_ex(root, "num_tc", &v);
        num_tc = (unsigned) json_object_get_int(v);
        if (num_tc < 1 || num_tc > MAX_TC)
                return 0; /* tbsd's own num-tc out of range: tbsd says so */
        if (!json_object_object_get_ex(root, "priority_map", NULL)) {
                json_object *map = json_object_new_array();
                for (unsigned p = 0; p < NC_DERIVE_PRIORITIES; p++)
                        json_object_array_add(map, json_object_new_int((int) nc_derive_class_of(p, num_tc)));
                json_object_object_add(root, "priority_map", map);
        }
        if (!json_object_object_get_ex(root, "queues", NULL)) {
                unsigned count[MAX_TC], offset[MAX_TC];
                json_object *queues = json_object_new_array();
                nc_derive_queues(num_tc, (unsigned) tx, count, offset);
                for (unsigned i = 0; i < num_tc; i++) {
                        json_object *q = json_object_new_object();
                        json_object_object_add(q, "count", json_object_new_int((int) count[i]));
                        json_object_object_add(q, "offset", json_object_new_int((int) offset[i]));
                        json_object_array_add(queues, q);
                }
                json_object_object_add(root, "queues", queues);
        }
        return table ? derive_mode(ctx, root) : 0;
}

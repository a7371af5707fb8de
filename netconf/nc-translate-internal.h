/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What nc-translate.c, nc-derive.c and nc-node.c share: one interface's
 * translation state and the helpers that name a node in a line. */
#pragma once

#include <json-c/json.h>
#include <stdint.h>

#include "nc-translate.h"

#define MAX_TC 16
#define DC_MODULE "ieee802-dot1dc-sched-if"

struct ctx {
        const char *ifname;
        const struct nc_node *iface; /* the interface entry */
        const char *table;    /* MODULE:gate-parameter-table, for the lines */
        unsigned gate_limit;  /* derived num_tc: gate bits of classes beyond it dropped; 0: none */
        char path[256];
        char *error;
        struct nc_origin **origins; /* where the keys came from (nc-origin.h); NULL: not asked */
};

extern int (*nc_tx_queues_of)(const char *ifname);

/* MODULE:gate-parameter-table/REST in ctx->path, for a line. */
const char *nc_tpath(struct ctx *ctx, const char *rest);
const char *nc_leaf(const struct nc_node *node, const char *name);
/* Sets ctx->error (the first only): "netconf: interface IFACE: NODE: REASON"; returns -1. */
__attribute__((format(printf, 3, 4)))
int nc_fail(struct ctx *ctx, const char *node, const char *fmt, ...);
int nc_parse_u64(const char *s, uint64_t *out);
/* Note that the document's key (printf-style) came from node n, named
 * node in a line (nc-origin.h); nothing when origins are not asked for.
 * 0, or -1 with ctx's error (out of memory). */
__attribute__((format(printf, 4, 5)))
int nc_note(struct ctx *ctx, const struct nc_node *n, const char *node, const char *key_fmt, ...);

/* The interface's gate table (NULL: none), ctx->table named for it. */
int nc_gate_table(struct ctx *ctx, const struct nc_node *iface, const struct nc_node **table);
/* Fills what the root lacks of num_tc, priority_map, queues (nc-derive.h). */
int nc_derive_root(struct ctx *ctx, const struct nc_node *table, json_object *root);

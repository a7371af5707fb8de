/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The helpers every part of the translation uses (nc-translate-internal.h):
 * finding a node's child and leaf, reading a number as netconfd prints
 * it, and the one-line rpc-error that names the interface and the node.
 * The floor under nc-derive.c and nc-translate.c, so the two call each
 * other one way (translate -> derive). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/utf8.h"
#include "nc-origin.h"
#include "nc-translate-internal.h"

/* A node of the gate table, named for a line: MODULE:gate-parameter-table/REST. */
const char *nc_tpath(struct ctx *ctx, const char *rest) {
        snprintf(ctx->path, sizeof(ctx->path), "%s%s", ctx->table, rest);
        return ctx->path;
}

const struct nc_node *nc_child(const struct nc_node *node, const char *name) {
        for (const struct nc_node *c = node ? node->child : NULL; c; c = c->next)
                if (strcmp(c->name, name) == 0)
                        return c;
        return NULL;
}

const char *nc_leaf(const struct nc_node *node, const char *name) {
        const struct nc_node *c = nc_child(node, name);
        return c ? c->value : NULL;
}

int nc_fail(struct ctx *ctx, const char *node, const char *fmt, ...) {
        char *reason = NULL, *shown = NULL;
        va_list ap;

        if (ctx->error)
                return -1;
        va_start(ap, fmt);
        if (vasprintf(&reason, fmt, ap) < 0)
                reason = NULL;
        va_end(ap);
        /* The name escaped: a newline in it would split the rpc-error. */
        if (asprintf(&ctx->error, "netconf: interface %s: %s: %s", text_safe(ctx->ifname, &shown), node,
                     reason ? reason : "out of memory") < 0)
                ctx->error = NULL;
        free(reason);
        free(shown);
        return -1;
}

/* An unsigned decimal as netconfd prints it; -1 when it is not one. */
int nc_parse_u64(const char *s, uint64_t *out) {
        char *end;

        if (!s || *s < '0' || *s > '9')
                return -1;
        errno = 0;
        *out = strtoull(s, &end, 10);
        return errno || *end ? -1 : 0;
}


int nc_note(struct ctx *ctx, const struct nc_node *n, const char *node, const char *key_fmt, ...) {
        char key[128];
        va_list ap;

        if (!ctx->origins || !n)
                return 0;
        va_start(ap, key_fmt);
        vsnprintf(key, sizeof(key), key_fmt, ap);
        va_end(ap);
        if (nc_origin_add(ctx->origins, key, node, n->source) < 0)
                return nc_fail(ctx, node, "out of memory");
        return 0;
}

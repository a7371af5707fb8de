/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which YANG node a key of the schedule document came from (issue 48): a
 * refusal of tbsd's names the document's key ("ApplySchedules(IFACE) by
 * uid N: txqueues[0].bandwidth_kbps: REASON"), the controller wrote a node
 * (the cbsa table's admin-idle-slope). The translation notes, per key it
 * fills from a node, that node; the commit finds the node of a line's key
 * and names it in the rpc-error's error-path. Pure. */
#pragma once

#include <stddef.h>

struct nc_origin {
        char *key;          /* the document's key path: "root.entries[1].interval_ns", "txqueues[0]" */
        char *node;         /* the node under the interface, as the translation's lines name it */
        const void *source; /* the node's value in netconfd's tree (nc_node.source); NULL: none */
        struct nc_origin *next;
};

/* Note that key came from node (source: its value in netconfd's tree).
 * 0, or -ENOMEM. */
int nc_origin_add(struct nc_origin **list, const char *key, const char *node, const void *source);
void nc_origin_free(struct nc_origin *list);

/* The key path a line of tbsd's names: "METHOD(IFACE) by WHO: PATH: REASON"
 * -> PATH, at most size - 1 bytes in buf. NULL when the line has none. */
const char *nc_origin_line_key(const char *line, char *buf, size_t size);

/* The node key came from: the longest noted key that is key itself or a
 * part of it (followed in key by '.' or '['): "txqueues[0]" for
 * "txqueues[0].max_frame_bytes"; of two noted for the same key, the one
 * noted last (the cbsa table's over tbsd's own queue it shapes). NULL when
 * none. */
const struct nc_origin *nc_origin_find(const struct nc_origin *list, const char *key);

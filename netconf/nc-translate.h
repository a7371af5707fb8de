/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NETCONF side's translation of one interface's configuration (the
 * nodes of ieee802-dot1q-sched and tbsd under /interfaces/interface) into
 * tbsd's JSON schedule document (docs/netconf.md has the mapping table).
 * Pure: it reads a small tree of names and value strings that the server
 * module builds from netconfd's values, so it is tested without libyuma. */
#pragma once

#include <stddef.h>

/* A data node: a leaf (value != NULL) or a container or list entry
 * (value NULL, children in child). Names are local names, without the
 * module's prefix; an identityref's value may carry one ("sched:x"). */
struct nc_node {
        const char *name;
        const char *module; /* the node's YANG module; NULL: not said (tbsd's own table) */
        const char *value;
        struct nc_node *child;
        struct nc_node *next;
        const void *source; /* the node's value in netconfd's tree (nc-origin.h); NULL: none */
};

/* The document for the interface entry iface (its children: name, and
 * gate-parameter-table and schedule when configured).
 * Returns 1 with *json (malloc'ed, compact) when the entry configures a
 * schedule, 0 when it configures none (*json NULL), -1 with *error (one
 * line, malloc'ed, naming the interface and the node) when it cannot be
 * turned into a document. *ifname is the entry's name (not copied). */
int nc_translate_interface(const struct nc_node *iface, const char **ifname, char **json, char **error);

struct nc_origin;
/* nc_translate_interface(), and in *origins (when not NULL; the caller
 * frees it with nc_origin_free()) the YANG node each key of the
 * document's that a node gave came from (nc-origin.h). */
int nc_translate_interface_origins(const struct nc_node *iface, const char **ifname, char **json, char **error,
                                   struct nc_origin **origins);

/* Where a standard-only edit's root learns the interface's number of TX
 * queues (issue 48): nc_derive_tx_queues() unless set (the unit tests
 * set their own). Returns the count or -errno. */
void nc_translate_set_tx_queues(int (*tx_queues)(const char *ifname));

/* Where a standard-only taprio root learns its mode (issue 48): mode_of
 * gives the device's (nc_derive_mode() of tbsd's answer) in *mode, or
 * -errno and *why (malloc'ed, one line) when tbsd cannot say; NULL
 * (the default, the unit tests): "software". */
void nc_translate_set_mode_of(int (*mode_of)(const char *ifname, const char **mode, char **why));

/* The first child of node named name, or NULL. */
const struct nc_node *nc_child(const struct nc_node *node, const char *name);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The operational nodes' common ground (nc-view.c), for netconf/ only:
 * the module's view of each link, tbsd's last Link.Describe() answer, and
 * the helpers that make leaves of values. Used by nc-state.c (the gate
 * parameter tables) and nc-link-state.c (tbsd's own state). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "nc-oper.h"
#include "nc-sil-internal.h"

struct view {
        char *ifname;
        char *json;          /* NULL: tbsd has no such link, or never answered */
        uint64_t at_usec;    /* when tbsd gave it (CLOCK_MONOTONIC) */
        bool stale;          /* the last asking went unanswered */
        struct nc_oper oper; /* json parsed, when oper_ok */
        bool oper_ok;
        struct view *next;
};

/* The view of ifname, asked again when older than half a second and tbsd
 * answers; NULL when out of memory. */
struct view *view_of(const char *ifname);

/* The gate parameters in force on ifname, from its view: 0, or -1 when
 * there is no view or it is not a status document. */
int view_oper(const char *ifname, struct nc_oper *o);

/* Describe()'s document of ifname from its view; NULL when there is none. */
const char *view_json(const char *ifname);

/* A leaf of parent's module made of value (nothing for NULL or ""), or of
 * the number n. */
status_t add_leaf(val_value_t *parent, const char *leaf, const char *value);
status_t add_number(val_value_t *parent, const char *leaf, bool is_signed, uint64_t n);

/* The name of a virtual node's interface entry, up levels above it (1:
 * the node's parent); NULL without one. */
const char *entry_ifname(const val_value_t *virval, int up);

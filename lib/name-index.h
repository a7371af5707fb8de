/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small hash index (open addressing, linear probing) from an interface
 * name or an ifindex to a pointer, so a lookup costs the same whatever the
 * number of interfaces and the order they are asked in. It does not own
 * its keys: a name key must stay valid, unchanged, while it is in the
 * index (it is usually a field of the value). Not thread-safe. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef struct NameIndex NameIndex;

/** Create an empty index keyed by name (by_ifindex false) or by ifindex
 *  (true). Returns 0 and *ret, or -ENOMEM. */
int name_index_new(bool by_ifindex, NameIndex **ret);

/** Free the index (not its keys or values). Accepts NULL; returns NULL. */
NameIndex *name_index_free(NameIndex *idx);
DEFINE_TRIVIAL_CLEANUP_FUNC(NameIndex *, name_index_free);

/** Map name (by-name index) or ifindex (by-ifindex index; name ignored)
 *  to value, replacing what the key mapped to. value must not be NULL.
 *  Returns 0 or -ENOMEM (the index is unchanged then). */
int name_index_put(NameIndex *idx, const char *name, int ifindex, void *value);

/** What the key maps to, or NULL. Accepts a NULL index. */
void *name_index_get(const NameIndex *idx, const char *name, int ifindex);

/** Drop the key when it maps to value (any value when value is NULL).
 *  Returns 1 when dropped, 0 otherwise. */
int name_index_remove(NameIndex *idx, const char *name, int ifindex, const void *value);

/** Drop every key (the memory is kept for reuse). */
void name_index_clear(NameIndex *idx);

/** How many keys the index holds. */
size_t name_index_size(const NameIndex *idx);

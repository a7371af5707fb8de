/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tbsd is to change so that it keeps a datastore's documents: the
 * difference between them and the documents tbsd keeps, and those kept
 * documents as they are once tbsd took the difference (the server
 * module's copy, nc-sync.c). Pure: tests/unit/test-nc-diff.c. */
#pragma once

#include <stdbool.h>

#include "nc-doc.h"

/* An interface's new document (json) or its removal (json NULL); both
 * point into the lists they were made from. */
struct change {
        const char *ifname;
        const char *json;
        struct change *next;
};

void nc_changes_free(struct change *c);

/* The changes that make kept (ifname and json of each) into want: each
 * document of want that kept lacks or keeps otherwise, and the removal of
 * each kept document whose interface want has no entry for, or an entry
 * without a document and without an error (an entry the translation could
 * not say keeps its document), unless left_alone(ifname) (NULL: none).
 * 0 and *ret (NULL: nothing to change), *ret_n their number; -ENOMEM. */
int nc_diff(const struct doc *want, const struct doc *kept, bool (*left_alone)(const char *ifname),
            struct change **ret, int *ret_n);

/* *kept (ifname and json of each, no origins) made what tbsd keeps once it
 * took changes: a document replaced or added, a removal dropped. 0, or
 * -ENOMEM with *kept freed and NULL (what it was is no longer known). */
int nc_kept_take(struct doc **kept, const struct change *changes);


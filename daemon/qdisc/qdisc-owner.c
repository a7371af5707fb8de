/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qdisc-owner.h"
#include "qdisc.h"

static bool root_is(const QDiscTree *t, const RootSpec *want, const DeviceFacts *facts) {
        const QDiscVTable *vt = qdisc_vtable_for_root(want->kind);
        RootSpec w = *want;     /* shallow: only compared */

        w.handle = w.handle ?: TBS_DEFAULT_ROOT_HANDLE;
        if (t->root_known) {
                root_settle_installed(&w, &t->root_spec, facts);
                leaf_settle_unresolved(&w, &t->root_spec);
        }
        return vt && t->root_known && t->root.handle == w.handle && t->root_spec.kind == w.kind &&
               vt->equal(&w, &t->root_spec);
}

const char *root_owner_to_string(RootOwner o) {
        static const char *const names[_OWNER_MAX] = {
                [OWNER_DEFAULT] = "default",
                [OWNER_TBSD] = "tbsd",
                [OWNER_FOREIGN] = "foreign",
        };

        return (unsigned) o < _OWNER_MAX ? names[o] : NULL;
}

int qdisc_root_owner(const QDiscTree *t, const RootSpec *const *ours, size_t n_ours, const DeviceFacts *facts,
                     char **ret_why) {
        const RootSpec *first = NULL;
        char have[16], want[16];
        int r;

        if (!t->has_root || t->root.handle == 0)
                return OWNER_DEFAULT;
        for (size_t i = 0; i < n_ours; i++) {
                if (!ours[i])
                        continue;
                if (root_is(t, ours[i], facts))
                        return OWNER_TBSD;
                first = first ?: ours[i];
        }
        if (!ret_why)
                return OWNER_FOREIGN;

        tc_handle_to_string(t->root.handle, have);
        if (!first)
                r = asprintf(ret_why, "root qdisc %s %s is not tbsd's (no schedule of tbsd declares a tree here)",
                             t->root.kind, have);
        else {
                const char *kind = root_kind_to_string(first->kind) ?: "?";

                tc_handle_to_string(first->handle ?: TBS_DEFAULT_ROOT_HANDLE, want);
                if (t->root_known && t->root_spec.kind == first->kind &&
                    t->root.handle == (first->handle ?: TBS_DEFAULT_ROOT_HANDLE))
                        r = asprintf(ret_why, "root qdisc %s %s is not tbsd's (its settings differ from "
                                     "the schedule's)", t->root.kind, have);
                else
                        r = asprintf(ret_why, "root qdisc %s %s is not tbsd's (the schedule declares %s %s)",
                                     t->root.kind, have, kind, want);
        }
        if (r < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return OWNER_FOREIGN;
}

/* Classless kinds that a rollback re-creates from their dump as they were
 * (fq_codel and codel within 1 us: they dump rounded times), checked in the
 * test kernel by a failed apply over each (tests/kernel/test-nl-foreign-roots.sh,
 * with the kinds that are not). */
static const char *const replaceable_kinds[] = {
        "pfifo", "bfifo", "pfifo_fast", "pfifo_head_drop", "fq", "fq_codel", "sfq", "codel",
        "cake", "pie", "hhf", "plug", "skbprio",
};

int qdisc_root_replaceable(const QDiscTree *t, char **ret_why) {
        char h[16];

        if (!t->has_root || t->root.handle == 0 || t->root_known)
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(replaceable_kinds); i++)
                if (strcmp(t->root.kind, replaceable_kinds[i]) == 0)
                        return 1;
        if (ret_why &&
            asprintf(ret_why, "root qdisc %s %s is not tbsd's and could not be put back if the apply "
                     "failed (classes, children or options a qdisc dump does not give back): left in "
                     "place; delete it (tc qdisc del dev IFACE root) to hand the interface to tbsd",
                     t->root.kind, tc_handle_to_string(t->root.handle, h)) < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return 0;
}

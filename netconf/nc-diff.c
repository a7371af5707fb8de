/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The difference a datastore makes to what tbsd keeps, and what tbsd
 * keeps once it took it (nc-diff.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nc-diff.h"
#include "nc-origin.h"

void nc_changes_free(struct change *c) {
        while (c) {
                struct change *next = c->next;
                free(c);
                c = next;
        }
}

static bool add_change(struct change ***tail, const char *ifname, const char *json) {
        struct change *c = calloc(1, sizeof(*c));

        if (!c)
                return false;
        *c = (struct change) { ifname, json, NULL };
        **tail = c;
        *tail = &c->next;
        return true;
}

static const struct doc *doc_named(const struct doc *d, const char *ifname) {
        for (; d; d = d->next)
                if (strcmp(d->ifname, ifname) == 0)
                        return d;
        return NULL;
}

int nc_diff(const struct doc *want, const struct doc *kept, bool (*left_alone)(const char *ifname),
            struct change **ret, int *ret_n) {
        struct change *changes = NULL, **tail = &changes;
        int n = 0;

        for (const struct doc *d = want; d; d = d->next) {
                const struct doc *k = doc_named(kept, d->ifname);

                if (!d->json || (k && strcmp(k->json, d->json) == 0))
                        continue;
                if (!add_change(&tail, d->ifname, d->json))
                        goto oom;
                n++;
        }
        for (const struct doc *k = kept; k; k = k->next) {
                const struct doc *d = doc_named(want, k->ifname);

                /* An entry the translation cannot say now (tbsd's probe or the
                 * TX queues not read) is not a removal: it keeps its document. */
                if ((d && (d->json || d->error)) || (left_alone && left_alone(k->ifname)))
                        continue;
                if (!add_change(&tail, k->ifname, NULL))
                        goto oom;
                n++;
        }
        *ret = changes;
        *ret_n = n;
        return 0;
oom:
        nc_changes_free(changes);
        return -ENOMEM;
}

void free_docs(struct doc *d) {
        while (d) {
                struct doc *next = d->next;
                free(d->ifname);
                free(d->json);
                free(d->error);
                nc_origin_free(d->origins);
                free(d);
                d = next;
        }
}

int nc_kept_take(struct doc **kept, const struct change *changes) {
        for (const struct change *c = changes; c; c = c->next) {
                struct doc **p = kept;

                while (*p && strcmp((*p)->ifname, c->ifname) != 0)
                        p = &(*p)->next;
                if (!c->json) {
                        struct doc *gone = *p;

                        if (gone) {
                                *p = gone->next;
                                gone->next = NULL;
                                free_docs(gone);
                        }
                        continue;
                }
                if (!*p) {
                        *p = calloc(1, sizeof(**p));
                        if (!*p || !((*p)->ifname = strdup(c->ifname)))
                                goto oom;
                }
                free((*p)->json);
                if (!((*p)->json = strdup(c->json)))
                        goto oom;
        }
        return 0;
oom:
        free_docs(*kept);
        *kept = NULL;
        return -ENOMEM;
}

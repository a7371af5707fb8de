/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A datastore's interfaces as tbsd's schedule documents: netconfd's value
 * tree turned into the translation's (nc-translate.c), one document (or
 * the line why not) per interface. Used by the commit (the candidate) and
 * by tbsd's matching of the running datastore (nc-sync.c). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xmlstring.h>

#include "status.h"
#include "typ.h"
#include "val.h"
#include "val_util.h"

#include "nc-origin.h"
#include "nc-sil-internal.h"
#include "nc-translate.h"

/* netconfd's value tree -> the translation's tree (defaults left out:
 * tbsd applies its own). */
static void free_nodes(struct nc_node *n) {
        while (n) {
                struct nc_node *next = n->next;
                free_nodes(n->child);
                free((char *) n->value);
                free(n);
                n = next;
        }
}

static struct nc_node *nodes_of(const val_value_t *val) {
        struct nc_node *n = calloc(1, sizeof(*n));
        struct nc_node **tail;

        if (!n)
                return NULL;
        n->name = (const char *) val->name;
        n->source = val;
        n->module = (const char *) val_get_mod_name(val);
        if (typ_is_simple(val->btyp)) {
                xmlChar *s = val_make_sprintf_string(val);
                if (!s) {
                        free(n);
                        return NULL;
                }
                n->value = strdup((const char *) s);
                m__free(s);
                if (!n->value) {
                        free(n);
                        return NULL;
                }
                return n;
        }
        tail = &n->child;
        for (val_value_t *c = val_get_first_child(val); c; c = val_get_next_child(c)) {
                if (val_is_virtual(c) || (c->obj && !obj_is_config(c->obj)))
                        continue;
                if (typ_is_simple(c->btyp) && val_set_by_default(c))
                        continue;
                *tail = nodes_of(c);
                if (!*tail) {
                        free_nodes(n);
                        return NULL;
                }
                tail = &(*tail)->next;
        }
        return n;
}


struct doc *docs_of(const val_value_t *root, bool *oom) {
        struct doc *head = NULL, **tail = &head;
        val_value_t *ifs = root ? val_find_child(root, (const xmlChar *) "ietf-interfaces",
                                                 (const xmlChar *) "interfaces") : NULL;

        *oom = false;
        for (val_value_t *e = ifs ? val_get_first_child(ifs) : NULL; e; e = val_get_next_child(e)) {
                struct nc_node *n;
                struct doc *d;
                const char *name = NULL;

                if (xmlStrcmp(e->name, (const xmlChar *) "interface") != 0)
                        continue;
                n = nodes_of(e);
                d = calloc(1, sizeof(*d));
                if (!n || !d) {
                        free_nodes(n);
                        free(d);
                        *oom = true;
                        break;
                }
                nc_translate_interface_origins(n, &name, &d->json, &d->error, &d->origins);
                d->ifname = strdup(name ? name : "");
                free_nodes(n);
                *tail = d;
                tail = &d->next;
                if (!d->ifname) {
                        *oom = true;
                        break;
                }
        }
        return head;
}

const struct doc *find_doc(const struct doc *d, const char *ifname) {
        for (; d; d = d->next)
                if (strcmp(d->ifname, ifname) == 0)
                        return d;
        return NULL;
}

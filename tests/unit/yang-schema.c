/* SPDX-License-Identifier: GPL-2.0-or-later */
/* yang-schema MODPATH ROOTMODULE MODULE...: the schema facts of the YANG
 * modules MODULE... as yuma123 (netconfd's parser) reads them from
 * MODPATH: one line per data node under ROOTMODULE's tree (augments
 * included) that belongs to one of the modules, and one per identity:
 *
 *   node PATH NAMESPACE KIND TYPE config|state [default=D]
 *   identity MODULE:NAME base=MODULE:BASE
 *
 * PATH names each step module:name. Sorted by the caller.
 * tests/unit/check-ieee-schema.sh compares tbsd's texts with the facts
 * read the same way from the modules IEEE published (issue 48). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ncx.h>
#include <ncxmod.h>
#include <obj.h>
#include <typ.h>
#include <xmlns.h>

static char **wanted;
static int n_wanted;

static int is_wanted(const char *mod) {
        for (int i = 0; i < n_wanted; i++)
                if (strcmp(wanted[i], mod) == 0)
                        return 1;
        return 0;
}

static const char *kind_of(const obj_template_t *obj) {
        switch (obj->objtype) {
        case OBJ_TYP_CONTAINER:
                return "container";
        case OBJ_TYP_LIST:
                return "list";
        case OBJ_TYP_LEAF:
                return "leaf";
        case OBJ_TYP_LEAF_LIST:
                return "leaf-list";
        default:
                return NULL;
        }
}

static void walk(obj_template_t *obj, const char *parent) {
        for (; obj; obj = obj_next_child(obj)) {
                const char *kind = kind_of(obj);
                const char *mod = (const char *) obj_get_mod_name(obj);
                char path[1024];

                if (!kind)
                        continue;
                snprintf(path, sizeof(path), "%s/%s:%s", parent, mod, (const char *) obj_get_name(obj));
                if (is_wanted(mod)) {
                        const char *type = "-";
                        if (obj_is_leafy(obj)) {
                                typ_def_t *td = obj_get_typdef(obj);
                                const xmlChar *named = td ? typ_get_named_typename(td) : NULL;
                                type = named ? (const char *) named
                                             : (const char *) tk_get_btype_sym(obj_get_basetype(obj));
                        }
                        const xmlChar *def = obj_get_default(obj);
                        dlq_hdr_t *mustQ = obj_get_mustQ(obj);
                        int musts = 0;
                        for (void *m = mustQ ? dlq_firstEntry(mustQ) : NULL; m; m = dlq_nextEntry(m))
                                musts++;
                        printf("node %s %s %s %s %s must=%d%s%s\n", path,
                               (const char *) xmlns_get_ns_name(obj_get_nsid(obj)), kind, type,
                               obj_get_config_flag_deep(obj) ? "config" : "state", musts, def ? " default=" : "",
                               def ? (const char *) def : "");
                }
                walk(obj_first_child(obj), path);
        }
}

int main(int argc, char *argv[]) {
        if (argc < 4) {
                fprintf(stderr, "usage: yang-schema MODPATH ROOTMODULE MODULE...\n");
                return 2;
        }
        if (ncx_init(FALSE, LOG_DEBUG_WARN, FALSE, NULL, 1, argv) != NO_ERR)
                return 1;
        ncxmod_set_modpath((const xmlChar *) argv[1]);
        /* YANG_SCHEMA_DEVIATION: a deviation module applied as netconfd's
         * --deviation applies it. */
        dlq_hdr_t devQ;
        dlq_createSQue(&devQ);
        const char *dev = getenv("YANG_SCHEMA_DEVIATION");
        if (dev && ncxmod_load_deviation((const xmlChar *) dev, &devQ) != NO_ERR) {
                fprintf(stderr, "yang-schema: deviation %s not loaded\n", dev);
                return 1;
        }
        wanted = argv + 3;
        n_wanted = argc - 3;
        for (int i = 2; i < argc; i++) {
                ncx_module_t *mod = NULL;
                status_t res = ncxmod_load_module((const xmlChar *) argv[i], NULL, &devQ, &mod);
                if (res != NO_ERR || !mod) {
                        fprintf(stderr, "yang-schema: %s: %s\n", argv[i], get_error_string(res));
                        return 1;
                }
        }
        /* As netconfd does after its modules are loaded (agt.c). */
        for (ncx_save_deviations_t *d = (ncx_save_deviations_t *) dlq_firstEntry(&devQ); d;
             d = (ncx_save_deviations_t *) dlq_nextEntry(d))
                if (ncxmod_process_deviation_imports(d) != NO_ERR)
                        return 1;
        for (ncx_module_t *m = ncx_get_first_module(); m; m = ncx_get_next_module(m))
                if (ncxmod_resolve_deviations(m, &devQ) != NO_ERR)
                        return 1;
        for (ncx_module_t *m = ncx_get_first_module(); m; m = ncx_get_next_module(m))
                if (ncxmod_apply_deviations(m) != NO_ERR)
                        return 1;
        ncx_module_t *root = ncx_find_module((const xmlChar *) argv[2], NULL);
        for (obj_template_t *obj = root ? ncx_get_first_data_object(root) : NULL; obj;
             obj = ncx_get_next_data_object(root, obj))
                walk(obj, "");
        for (int i = 0; i < n_wanted; i++) {
                ncx_module_t *mod = ncx_find_module((const xmlChar *) wanted[i], NULL);
                for (ncx_identity_t *id = mod ? (ncx_identity_t *) dlq_firstEntry(&mod->identityQ) : NULL; id;
                     id = (ncx_identity_t *) dlq_nextEntry(id)) {
                        ncx_identity_base_t *b = (ncx_identity_base_t *) dlq_firstEntry(&id->baseQ);
                        printf("identity %s:%s base=%s:%s\n", wanted[i], (const char *) id->name,
                               b && b->identity ? (const char *) b->identity->mod->name : "",
                               b ? (const char *) b->name : "");
                }
        }
        ncx_clean_save_deviationsQ(&devQ);
        ncx_cleanup();
        return 0;
}

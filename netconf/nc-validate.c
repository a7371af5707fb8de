/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <xmlstring.h>

#include "agt_rpc.h"
#include "cfg.h"
#include "ncx.h"
#include "ncxconst.h"
#include "obj.h"

#include "../lib/bus-names.h"
#include "nc-tbsd.h"
#include "nc-validate.h"

static nc_validate_check_t the_check;

/* The root <validate> names: a datastore's, or the inline <config>. A
 * <url> source is checked by netconfd alone (its copy is gone by the
 * invoke phase): NULL. */
static val_value_t *source_root(rpc_msg_t *msg) {
        val_value_t *source = val_find_child(msg->rpc_input, NC_MODULE, NCX_EL_SOURCE);
        val_value_t *which = source ? val_get_first_child(source) : NULL;
        cfg_template_t *cfg = NULL;

        if (!which)
                return NULL;
        if (xmlStrcmp(which->name, NCX_EL_CONFIG) == 0)
                return which;
        if (xmlStrcmp(which->name, NCX_EL_CANDIDATE) == 0)
                cfg = cfg_get_config_id(NCX_CFGID_CANDIDATE);
        else if (xmlStrcmp(which->name, NCX_EL_RUNNING) == 0)
                cfg = cfg_get_config_id(NCX_CFGID_RUNNING);
        else if (xmlStrcmp(which->name, NCX_EL_STARTUP) == 0)
                cfg = cfg_get_config_id(NCX_CFGID_STARTUP);
        return cfg ? cfg->root : NULL;
}

/* The invoke phase of <validate>: netconfd calls it once its own
 * validate phase passed. */
static status_t validate_invoke(ses_cb_t *scb, rpc_msg_t *msg, xml_node_t *methnode) {
        val_value_t *root = source_root(msg);

        (void) methnode;
        return root && the_check ? the_check(scb, &msg->mhdr, root) : NO_ERR;
}

static agt_rpc_cbset_t *validate_cbset(void) {
        ncx_module_t *mod = ncx_find_module(NC_MODULE, NULL);
        obj_template_t *rpc = mod ? ncx_find_object(mod, NCX_EL_VALIDATE) : NULL;

        return rpc ? rpc->rpc_cbset : NULL;
}

status_t nc_validate_register(nc_validate_check_t check) {
        the_check = check;
        return agt_rpc_register_method(NC_MODULE, NCX_EL_VALIDATE, AGT_RPC_PH_INVOKE, validate_invoke);
}

/* agt_rpc_unregister_method() would drop netconfd's own validate phase
 * too: only the invoke phase, ours, is cleared. */
void nc_validate_unregister(void) {
        agt_rpc_cbset_t *cbset = validate_cbset();

        if (cbset && cbset->acb[AGT_RPC_PH_INVOKE] == validate_invoke)
                cbset->acb[AGT_RPC_PH_INVOKE] = NULL;
        the_check = NULL;
}

static int build_validate(sd_bus *bus, sd_bus_message **m, void *arg) {
        const struct doc *docs = arg;
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_VALIDATE_SCHEDULES);

        if (r >= 0)
                r = sd_bus_message_open_container(*m, 'a', "(ss)");
        for (const struct doc *d = docs; r >= 0 && d; d = d->next)
                if (d->json)
                        r = sd_bus_message_append(*m, "(ss)", d->ifname, d->json);
        return r < 0 ? r : sd_bus_message_close_container(*m);
}

/* The problems of the answer, newline-separated (NULL: none). */
static int read_problems(sd_bus_message *reply, char **ret) {
        char *lines = NULL;
        int r = sd_bus_message_enter_container(reply, 'a', "s");

        while (r > 0) {
                const char *line;
                char *v;

                r = sd_bus_message_read(reply, "s", &line);
                if (r <= 0)
                        break;
                if (asprintf(&v, "%s%s%s", lines ? lines : "", lines ? "\n" : "", line) < 0) {
                        r = -ENOMEM;
                        break;
                }
                free(lines);
                lines = v;
        }
        if (r < 0) {
                free(lines);
                return r;
        }
        *ret = lines;
        return 0;
}

int nc_validate_documents(const struct doc *docs, char **error) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *problems = NULL;
        int r;

        *error = NULL;
        /* Nothing is applied: a late answer harms no one, but netconfd
         * serves no one while it waits. */
        r = nc_tbsd_call(build_validate, (void *) docs, nc_times.answer_usec, &e, &reply);
        if (r < 0)
                nc_tbsd_error_text(&e, r, "netconf: ValidateSchedules", nc_times.answer_usec, error);
        else {
                r = read_problems(reply, &problems);
                if (r < 0 && asprintf(error, "netconf: cannot read tbsd's answer: %s", strerror(-r)) < 0)
                        *error = NULL;
        }
        if (r >= 0 && problems) {
                *error = problems;
                r = -EINVAL;
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 0;
}

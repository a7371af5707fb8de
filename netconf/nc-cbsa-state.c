/* SPDX-License-Identifier: GPL-2.0-or-later */
/* oper-idle-slope of each cbsa-parameter-table entry (issue 48): a
 * virtual leaf, read when a <get> reaches it, from the interface's
 * Describe() document of the module's view (nc-view.c). Absent when the
 * class has no cbs installed. */
#include <inttypes.h>
#include <stdio.h>

#include "nc-cbsa-state.h"
#include "nc-cbsa.h"
#include "nc-view.h"

static status_t idle_slope_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        const val_value_t *entry = virval->parent;
        const val_value_t *iface = entry && entry->parent ? entry->parent->parent : NULL;
        const val_value_t *name = iface ? val_find_child(iface, (const xmlChar *) "ietf-interfaces",
                                                         (const xmlChar *) "name")
                                        : NULL;
        const val_value_t *tc = entry ? val_find_child(entry, (const xmlChar *) CBSA_IF_MODULE,
                                                       (const xmlChar *) "traffic-class")
                                      : NULL;
        uint64_t bps;
        char buf[32];

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!name || !tc || nc_cbsa_oper_idle_slope(view_json((const char *) VAL_STR(name)), VAL_UINT(tc), &bps) < 0)
                return ERR_NCX_SKIPPED;
        snprintf(buf, sizeof(buf), "%" PRIu64, bps);
        return val_set_simval_obj(dstval, dstval->obj, (const xmlChar *) buf);
}

status_t nc_cbsa_add_oper(val_value_t *iface) {
        val_value_t *cbsa = val_find_child(iface, (const xmlChar *) CBSA_IF_MODULE, (const xmlChar *) "cbsa");
        status_t res = NO_ERR;

        for (val_value_t *e = cbsa ? val_get_first_child(cbsa) : NULL; e && res == NO_ERR; e = val_get_next_child(e)) {
                val_value_t *v;

                if (val_find_child(e, (const xmlChar *) CBSA_IF_MODULE, (const xmlChar *) "oper-idle-slope"))
                        continue;
                v = agt_make_virtual_leaf(e->obj, (const xmlChar *) "oper-idle-slope", idle_slope_get, &res);
                if (v)
                        val_add_child(v, e);
        }
        return res;
}

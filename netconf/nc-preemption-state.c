/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Frame preemption's operational state (issue 48, point 3): 802.1DC's
 * preemption-active and 802.3's MAC merge admin-status and statistics,
 * virtual nodes filled from Describe() (nc-preemption-oper.c reads it)
 * when a <get> reaches them. holdAdvance, releaseAdvance and holdRequest
 * are not served: Linux's MM_GET has none (tbsd-deviations). */
#include <stdio.h>
#include <string.h>

#include "nc-preemption-oper.h"
#include "nc-preemption-state.h"
#include "nc-preemption.h"
#include "nc-view.h"

#define ETHERNET_MODULE "ieee802-ethernet-interface"

/* The name of the interface entry above a virtual node. */
static const char *ifname_above(const val_value_t *v) {
        for (; v; v = v->parent)
                if (xmlStrcmp(v->name, (const xmlChar *) "interface") == 0) {
                        const val_value_t *name = val_find_child(v, (const xmlChar *) "ietf-interfaces",
                                                                 (const xmlChar *) "name");
                        return name ? (const char *) VAL_STR(name) : NULL;
                }
        return NULL;
}

static int mm_oper(const val_value_t *virval, struct nc_mm_oper *o) {
        const char *ifname = ifname_above(virval);
        const char *json = ifname ? view_json(ifname) : NULL;
        return json ? nc_mm_oper_from_describe(json, o) : -1;
}

static status_t put_leaf(val_value_t *parent, const char *leaf, const char *value) {
        status_t res = NO_ERR;
        val_value_t *v;

        if (!value)
                return NO_ERR;
        v = agt_make_leaf(parent->obj, (const xmlChar *) leaf, (const xmlChar *) value, &res);
        if (v)
                val_add_child(v, parent);
        return res;
}

static status_t preemption_active_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval,
                                      val_value_t *dstval) {
        struct nc_mm_oper o;

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (mm_oper(virval, &o) < 0 || !o.preemption_active)
                return ERR_NCX_SKIPPED;
        return val_set_simval_obj(dstval, dstval->obj, (const xmlChar *) o.preemption_active);
}

/* admin-status or statistics: the leaves the device says. */
static status_t mac_merge_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        struct nc_mm_oper o;
        status_t res = NO_ERR;
        char buf[32];

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (mm_oper(virval, &o) < 0)
                return ERR_NCX_SKIPPED;
        if (xmlStrcmp(virval->name, (const xmlChar *) "admin-status") == 0) {
                if (!o.merge_support)
                        return ERR_NCX_SKIPPED;
                res = put_leaf(dstval, "merge-support", o.merge_support);
                if (res == NO_ERR)
                        res = put_leaf(dstval, "verify-status", o.verify_status);
                if (res == NO_ERR)
                        res = put_leaf(dstval, "status-tx", o.status_tx);
                return res;
        }
        if (!o.counters_present)
                return ERR_NCX_SKIPPED;
        for (unsigned i = 0; i < NC_MM_COUNTERS && res == NO_ERR; i++)
                if (o.counters_present & (1U << i)) {
                        snprintf(buf, sizeof(buf), "%llu", (unsigned long long) o.counters[i]);
                        res = put_leaf(dstval, nc_mm_counter_leaves[i], buf);
                }
        return res;
}

/* A virtual child of parent named name in module, unless it has one. */
static status_t add_virtual(val_value_t *parent, const char *module, const char *name, getcb_fn_t get) {
        obj_template_t *obj;
        val_value_t *v;

        if (!parent || val_find_child(parent, (const xmlChar *) module, (const xmlChar *) name))
                return NO_ERR;
        obj = obj_find_child(parent->obj, (const xmlChar *) module, (const xmlChar *) name);
        if (!obj)
                return NO_ERR;
        if (obj_is_leaf(obj)) {
                status_t res = NO_ERR;
                v = agt_make_virtual_leaf(parent->obj, (const xmlChar *) name, get, &res);
                if (v)
                        val_add_child(v, parent);
                return res;
        }
        v = val_new_value();
        if (!v)
                return ERR_INTERNAL_MEM;
        val_init_virtual(v, get, obj);
        val_add_child(v, parent);
        return NO_ERR;
}

status_t nc_preemption_add_oper(val_value_t *entry) {
        val_value_t *fp = val_find_child(entry, (const xmlChar *) PREEMPT_IF_MODULE,
                                         (const xmlChar *) "frame-preemption-parameters");
        val_value_t *eth = val_find_child(entry, (const xmlChar *) ETHERNET_MODULE, (const xmlChar *) "ethernet");
        val_value_t *mm = eth ? val_find_child(eth, (const xmlChar *) MAC_MERGE_MODULE, (const xmlChar *) "mac-merge")
                              : NULL;
        status_t res;

        res = add_virtual(fp, PREEMPT_IF_MODULE, "preemption-active", preemption_active_get);
        if (res == NO_ERR)
                res = add_virtual(mm, MAC_MERGE_MODULE, "admin-status", mac_merge_get);
        if (res == NO_ERR)
                res = add_virtual(mm, MAC_MERGE_MODULE, "statistics", mac_merge_get);
        return res;
}

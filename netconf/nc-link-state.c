/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd's own operational state (the module tbsd): tbsd:state of each
 * interface of the running datastore, and tbsd:links, every link tbsd
 * manages whoever configured it (the files of /etc/tbsd/schedules.d
 * too), each filled from its Link.Describe() view when a <get> reaches it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-oper.h"
#include "nc-sil-internal.h"
#include "nc-tbsd.h"
#include "nc-view.h"

static status_t add_queue(val_value_t *dst, const struct nc_oper_queue *q) {
        status_t res = NO_ERR;
        val_value_t *entry = agt_make_list(dst->obj, (const xmlChar *) "txqueue", &res), *h;

        if (!entry)
                return res;
        val_add_child(entry, dst);
        res = add_number(entry, "queue", false, q->queue);
        if (res == NO_ERR && q->have_stats) {
                res = add_number(entry, "sent-packets", false, q->sent_packets);
                if (res == NO_ERR)
                        res = add_number(entry, "sent-bytes", false, q->sent_bytes);
                if (res == NO_ERR)
                        res = add_number(entry, "dropped", false, q->dropped);
                if (res == NO_ERR)
                        res = add_number(entry, "overlimits", false, q->overlimits);
        }
        if (res == NO_ERR && q->monitor) {
                h = agt_make_object(entry->obj, (const xmlChar *) "launch-histogram", &res);
                if (h) {
                        val_add_child(h, entry);
                        res = add_number(h, "count", false, q->launch_count);
                        if (res == NO_ERR)
                                res = add_number(h, "early", false, q->launch_early);
                        if (res == NO_ERR)
                                res = add_number(h, "late", false, q->launch_late);
                        if (res == NO_ERR && q->have_launch_minmax)
                                res = add_number(h, "min-ns", true, (uint64_t) q->launch_min_ns);
                        if (res == NO_ERR && q->have_launch_minmax)
                                res = add_number(h, "max-ns", true, (uint64_t) q->launch_max_ns);
                }
        }
        if (res == NO_ERR)
                res = val_gen_index_chain(entry->obj, entry);
        return res;
}

/* tbsd's state of ifname into dst (the link-state grouping): how old the
 * view is, then what Describe() says. */
static status_t fill_state(val_value_t *dst, const char *ifname) {
        struct nc_oper_state *st;
        struct view *v = view_of(ifname);
        status_t res = NO_ERR;

        if (!v)
                return ERR_INTERNAL_MEM;
        /* How old what follows is: said even when there is nothing. */
        if (v->at_usec)
                res = add_number(dst, "view-age-ms", false, (nc_now_usec() - v->at_usec) / 1000);
        if (res == NO_ERR)
                res = add_leaf(dst, "view-stale", v->stale ? "true" : "false");
        if (res != NO_ERR || !v->json)
                return res;
        st = malloc(sizeof(*st));
        if (!st)
                return ERR_INTERNAL_MEM;
        if (nc_oper_state_from_describe(v->json, st) < 0) {
                free(st);
                return res;
        }
        res = add_leaf(dst, "origin", st->origin);
        if (res == NO_ERR)
                res = add_leaf(dst, "link-state", st->link_state);
        if (res == NO_ERR)
                res = add_leaf(dst, "link-state-reason", st->link_reason);
        if (res == NO_ERR)
                res = add_leaf(dst, "clock-state", st->clock_state);
        if (res == NO_ERR)
                res = add_leaf(dst, "clock-state-reason", st->clock_reason);
        for (unsigned i = 0; i < st->n_queues && res == NO_ERR; i++)
                res = add_queue(dst, &st->queues[i]);
        free(st);
        return res;
}

/* tbsd:state of an interface entry (a virtual container). */
static status_t state_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        const char *ifname = entry_ifname(virval, 1);

        (void) scb;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!ifname)
                return ERR_NCX_SKIPPED;
        return fill_state(dstval, ifname);
}

static int build_list_links(sd_bus *bus, sd_bus_message **m, void *arg) {
        (void) arg;
        return sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                              TBS_METHOD_LIST_LINKS);
}

/* tbsd:links (a virtual top-level container): every link tbsd manages,
 * from ListLinks, each with its state. Asked only while tbsd answers
 * (waiting at most the answer time, then one view per link as for
 * tbsd:state); left out while it does not. */
static status_t links_get(ses_cb_t *scb, getcb_mode_t mode, const val_value_t *virval, val_value_t *dstval) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        status_t res = NO_ERR;
        int r;

        (void) scb;
        (void) virval;
        if (mode != GETCB_GET_VALUE)
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        if (!nc_tbsd.answering)
                return ERR_NCX_SKIPPED;
        r = nc_tbsd_call(build_list_links, NULL, nc_times.answer_usec, &e, &reply);
        sd_bus_error_free(&e);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        while (r > 0 && res == NO_ERR) {
                const char *name, *path, *state;
                val_value_t *entry;

                r = sd_bus_message_read(reply, "(sos)", &name, &path, &state);
                if (r <= 0)
                        break;
                entry = agt_make_list(dstval->obj, (const xmlChar *) "link", &res);
                if (!entry)
                        break;
                val_add_child(entry, dstval);
                res = add_leaf(entry, "name", name);
                if (res == NO_ERR)
                        res = fill_state(entry, name);
                if (res == NO_ERR)
                        res = val_gen_index_chain(entry->obj, entry);
        }
        sd_bus_message_unref(reply);
        if (res == NO_ERR && r < 0)
                return ERR_NCX_SKIPPED;
        return res;
}

status_t add_link_state(val_value_t *iface) {
        obj_template_t *obj = obj_find_child(iface->obj, (const xmlChar *) TBSD_MODULE, (const xmlChar *) "state");
        val_value_t *v;

        if (!obj || val_find_child(iface, (const xmlChar *) TBSD_MODULE, (const xmlChar *) "state"))
                return NO_ERR;
        v = val_new_value();
        if (!v)
                return ERR_INTERNAL_MEM;
        val_init_virtual(v, state_get, obj);
        val_add_child(v, iface);
        return NO_ERR;
}

status_t add_links_node(void) {
        cfg_template_t *running = cfg_get_config_id(NCX_CFGID_RUNNING);
        ncx_module_t *mod = ncx_find_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION);
        obj_template_t *obj = mod ? obj_find_template_top(mod, (const xmlChar *) TBSD_MODULE,
                                                          (const xmlChar *) "links")
                                  : NULL;

        if (!running || !running->root || !obj ||
            val_find_child(running->root, (const xmlChar *) TBSD_MODULE, (const xmlChar *) "links"))
                return NO_ERR;
        return agt_add_top_virtual(obj, links_get);
}

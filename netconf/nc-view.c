/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The module's view of each link (tbsd's last Link.Describe() answer) and
 * the value helpers the operational nodes are made with (nc-view.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-sil-internal.h"
#include "nc-tbsd.h"
#include "nc-view.h"

/* Operational state: the module's view of each interface, tbsd's last
 * Link.Describe() answer. A <get> reads several leaves of an interface:
 * a view younger than half a second is used as it is; an older one is
 * asked again, waiting at most the answer time, and only while tbsd answers:
 * a stopped or busy tbsd does not hold netconfd (and every other session)
 * up, the <get> answers from the last view and says how old it is
 * (tbsd:state's view-age-ms and view-stale). */
#define VIEW_FRESH_USEC 500000ULL

static struct view *views;

void free_views(void) {
        while (views) {
                struct view *next = views->next;
                free(views->ifname);
                free(views->json);
                free(views);
                views = next;
        }
}

static int build_describe(sd_bus *bus, sd_bus_message **m, void *arg) {
        char *path = NULL;
        int r = sd_bus_path_encode(TBS_LINK_PATH_PREFIX, arg, &path);

        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, path, TBS_LINK_IFACE, TBS_METHOD_DESCRIBE);
        free(path);
        return r;
}

struct view *view_of(const char *ifname) {
        struct view *v;
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *json = NULL;
        uint64_t now = nc_now_usec();
        int r;

        for (v = views; v; v = v->next)
                if (strcmp(v->ifname, ifname) == 0)
                        break;
        if (!v) {
                v = calloc(1, sizeof(*v));
                if (!v || !(v->ifname = strdup(ifname))) {
                        free(v);
                        return NULL;
                }
                v->next = views;
                views = v;
        }
        if (v->at_usec && now - v->at_usec < VIEW_FRESH_USEC)
                return v;
        if (!nc_tbsd.answering) {
                v->stale = true;
                return v;
        }
        r = nc_tbsd_call(build_describe, (void *) ifname, nc_times.answer_usec, &e, &reply);
        if (r < 0 && nc_tbsd_no_answer(r, &e))
                v->stale = true;
        else {
                if (r >= 0 && sd_bus_message_read(reply, "s", &json) < 0)
                        json = NULL;
                free(v->json);
                v->json = json ? strdup(json) : NULL;
                v->at_usec = now;
                v->stale = false;
                v->oper_ok = v->json && nc_oper_from_describe(v->json, &v->oper) >= 0;
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return v;
}

int view_oper(const char *ifname, struct nc_oper *o) {
        const struct view *v = view_of(ifname);

        if (!v || !v->oper_ok)
                return -1;
        *o = v->oper;
        return 0;
}

const char *view_json(const char *ifname) {
        const struct view *v = view_of(ifname);

        return v ? v->json : NULL;
}

status_t add_leaf(val_value_t *parent, const char *leaf, const char *value) {
        status_t res = NO_ERR;
        val_value_t *v;

        if (!value || !value[0])
                return NO_ERR;
        v = agt_make_leaf(parent->obj, (const xmlChar *) leaf, (const xmlChar *) value, &res);
        if (v)
                val_add_child(v, parent);
        return res;
}

status_t add_number(val_value_t *parent, const char *leaf, bool is_signed, uint64_t n) {
        char buf[32];

        if (is_signed)
                snprintf(buf, sizeof(buf), "%lld", (long long) (int64_t) n);
        else
                snprintf(buf, sizeof(buf), "%llu", (unsigned long long) n);
        return add_leaf(parent, leaf, buf);
}

const char *entry_ifname(const val_value_t *virval, int up) {
        const val_value_t *iface = virval->parent;
        const val_value_t *name;

        for (int i = 1; i < up && iface; i++)
                iface = iface->parent;
        name = iface ? val_find_child(iface, (const xmlChar *) "ietf-interfaces", (const xmlChar *) "name") : NULL;
        return name ? (const char *) VAL_STR(name) : NULL;
}

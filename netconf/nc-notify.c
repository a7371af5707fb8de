/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Notifications (RFC 5277): tbsd's Event signal becomes link-event, a
 * change of a Link's State property link-state-change. One bus connection
 * is kept for the signals; the heartbeat (tbsd-sil.c) reads it once a
 * second. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agt_not.h"

#include "nc-sil-internal.h"

static sd_bus *signal_bus;

/* The last State seen per interface: PropertiesChanged carries State at
 * every change of StateReason too. */
struct seen {
        char *ifname;
        char *state;
        struct seen *next;
};
static struct seen *seen_states;

/* Remember state for ifname; true when it differs from the last one. */
static bool state_changed(const char *ifname, const char *state) {
        struct seen *x;

        for (x = seen_states; x; x = x->next)
                if (strcmp(x->ifname, ifname) == 0)
                        break;
        if (x && strcmp(x->state, state) == 0)
                return false;
        if (!x) {
                x = calloc(1, sizeof(*x));
                if (!x || !(x->ifname = strdup(ifname))) {
                        free(x);
                        return true;
                }
                x->next = seen_states;
                seen_states = x;
        }
        free(x->state);
        x->state = strdup(state);
        return true;
}

static void free_seen(void) {
        while (seen_states) {
                struct seen *next = seen_states->next;
                free(seen_states->ifname);
                free(seen_states->state);
                free(seen_states);
                seen_states = next;
        }
}

/* Queue the notification name of module tbsd with leaves (name, value)
 * pairs, NULL-terminated. */
static void notify(const char *name, ...) {
        ncx_module_t *tbsd_mod = ncx_find_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION);
        obj_template_t *obj = tbsd_mod ? ncx_find_object(tbsd_mod, (const xmlChar *) name) : NULL;
        agt_not_msg_t *n = obj ? agt_not_new_notification(obj) : NULL;
        const char *leaf;
        va_list ap;

        if (!n) {
                log_error("\ntbsd: cannot make notification %s\n", name);
                return;
        }
        va_start(ap, name);
        while ((leaf = va_arg(ap, const char *))) {
                const char *value = va_arg(ap, const char *);
                status_t res = NO_ERR;
                val_value_t *v = agt_make_leaf(obj, (const xmlChar *) leaf, (const xmlChar *) value, &res);

                if (v)
                        agt_not_add_to_payload(n, v);
                else
                        log_error("\ntbsd: notification %s: leaf %s '%s': %s\n", name, leaf, value,
                                  get_error_string(res));
        }
        va_end(ap);
        agt_not_queue_notification(n);
}

static int on_event(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *link, *kind, *message;

        (void) userdata;
        (void) ret_error;
        if (sd_bus_message_read(m, "sss", &link, &kind, &message) >= 0)
                notify("link-event", "interface", link, "kind", kind, "message", message, NULL);
        return 0;
}

static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *iface, *prop, *state = NULL, *reason = "";
        char *ifname = NULL;
        int r;

        (void) userdata;
        (void) ret_error;
        if (sd_bus_path_decode(sd_bus_message_get_path(m), TBS_LINK_PATH_PREFIX, &ifname) <= 0)
                return 0;
        r = sd_bus_message_read(m, "s", &iface);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r > 0) {
                r = sd_bus_message_enter_container(m, 'e', "sv");
                if (r <= 0)
                        break;
                r = sd_bus_message_read(m, "s", &prop);
                if (r >= 0 && strcmp(prop, TBS_PROPERTY_STATE) == 0)
                        r = sd_bus_message_read(m, "v", "s", &state);
                else if (r >= 0 && strcmp(prop, TBS_PROPERTY_STATE_REASON) == 0)
                        r = sd_bus_message_read(m, "v", "s", &reason);
                else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = 1;
        }
        if (r >= 0 && state && state_changed(ifname, state))
                notify("link-state-change", "interface", ifname, "state", state, "reason", reason, NULL);
        free(ifname);
        return 0;
}

void read_signals(void) {
        while (signal_bus && sd_bus_process(signal_bus, NULL) > 0)
                ;
}

void stop_notifications(void) {
        signal_bus = sd_bus_flush_close_unref(signal_bus);
        free_seen();
}

/* Subscribe, and learn each link's state now (a change is what is told). */
status_t start_notifications(void) {
        sd_bus_message *reply = NULL;
        int r = sd_bus_open_system(&signal_bus);

        if (r >= 0)
                r = sd_bus_match_signal(signal_bus, NULL, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, TBS_SIGNAL_EVENT,
                                        on_event, NULL);
        if (r >= 0)
                r = sd_bus_add_match(signal_bus, NULL,
                                     "type='signal',sender='" TBS_BUS_NAME "',interface='org.freedesktop.DBus.Properties',"
                                     "member='PropertiesChanged',arg0='" TBS_LINK_IFACE "'",
                                     on_properties, NULL);
        if (r >= 0)
                r = sd_bus_call_method(signal_bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, TBS_METHOD_LIST_LINKS,
                                       NULL, &reply, "");
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        while (r > 0) {
                const char *name, *path, *state;

                r = sd_bus_message_read(reply, "(sos)", &name, &path, &state);
                if (r > 0)
                        state_changed(name, state);
        }
        sd_bus_message_unref(reply);
        if (r < 0) {
                log_error("\ntbsd: cannot subscribe to tbsd's signals: %s\n", strerror(-r));
                return ERR_NCX_OPERATION_FAILED;
        }
        return NO_ERR;
}


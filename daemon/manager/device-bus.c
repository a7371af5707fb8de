/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.GetCapabilities(): device-bus.h. An interface tbsd has no link
 * for yet (a NETCONF commit's first schedule for it) is probed as a link's
 * would be, through the same cache, so the server module can choose what
 * the device runs before tbsd is given the document. */
#include <errno.h>
#include <json-c/json.h>

#include "bus-access.h"
#include "bus-names.h"
#include "caps-probe.h"
#include "device-bus.h"
#include "json-util.h"
#include "link-name.h"
#include "manager.h"
#include "schedule-bus-internal.h"
#include "utf8.h"

#define METHOD "GetCapabilities"

int device_bus_capabilities(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
        _cleanup_json_ struct json_object *caps = NULL;
        _cleanup_free_ char *buf = NULL;
        Manager *m = userdata;
        const LinkCaps *c;
        const char *ifname, *why, *text;
        Caller caller = {};
        int ifindex, r;

        r = sd_bus_message_read(msg, "s", &ifname);
        if (r < 0)
                return bus_method_failed(error, r, METHOD);
        r = schedule_bus_admit(msg, m, METHOD, &caller, error);
        if (r < 0)
                return r;
        why = link_name_refusal(ifname);
        if (why)
                return schedule_bus_refuse_ifname(error, METHOD, caller.who, ifname, why);
        /* One RTM_GETLINK before any ethtool ioctl names it (link-name.h). */
        ifindex = manager_ifindex(m, ifname);
        if (ifindex <= 0) {
                const char *shown = text_safe(ifname, &buf);
                return sd_bus_error_setf(error, TBS_ERROR_NO_SUCH_LINK, "%s(%s) by %s: interface: no interface %s here",
                                         METHOD, shown, caller.who, shown);
        }
        r = caps_cache_get(m->caps, ifindex, ifname, &c);
        if (r < 0)
                return bus_method_failed(error, r, METHOD);
        caps = caps_to_json(c);
        text = caps ? json_object_to_json_string_ext(caps, JSON_C_TO_STRING_PLAIN) : NULL;
        if (!text)
                return bus_method_failed(error, -ENOMEM, METHOD);
        return sd_bus_reply_method_return(msg, "s", text);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device's answer for a standard-only taprio root's mode (issue 48):
 * tbsd's probe of the interface (Manager.GetCapabilities(), the object of
 * Describe()'s "capabilities", for an interface tbsd has no link for yet
 * too) over the module's bus connection, judged by nc_derive_mode(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "../lib/bus-names.h"
#include "nc-caps.h"
#include "nc-derive.h"
#include "nc-tbsd.h"

static int build_caps(sd_bus *bus, sd_bus_message **m, void *arg) {
        int r = sd_bus_message_new_method_call(bus, m, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                               TBS_METHOD_GET_CAPABILITIES);

        return r < 0 ? r : sd_bus_message_append(*m, "s", (const char *) arg);
}

int nc_caps_mode(const char *ifname, const char **mode, char **why) {
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        const char *caps;
        int r;

        *why = NULL;
        /* Fail fast: netconfd serves no one while it waits, and a commit is
         * refused anyway (nc-commit.c); the reconcile keeps the document. */
        if (!nc_tbsd.answering) {
                if (asprintf(why, "GetCapabilities: tbsd has not answered for %llu s (stopped or busy)",
                             (unsigned long long) ((nc_now_usec() - nc_tbsd.since_usec) / 1000000)) < 0)
                        *why = NULL;
                return -EAGAIN;
        }
        r = nc_tbsd_call(build_caps, (void *) ifname, nc_times.answer_usec, &e, &reply);
        if (r < 0)
                nc_tbsd_error_text(&e, r, "GetCapabilities", nc_times.answer_usec, why);
        else {
                r = sd_bus_message_read(reply, "s", &caps);
                if (r < 0 && asprintf(why, "GetCapabilities: cannot read tbsd's answer: %s", strerror(-r)) < 0)
                        *why = NULL;
                if (r >= 0)
                        *mode = nc_derive_mode(caps);
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 0;
}

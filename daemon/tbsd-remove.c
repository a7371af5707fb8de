/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-names.h"
#include "device-check.h"
#include "diag.h"
#include "link-name.h"
#include "log.h"
#include "nl-qdisc.h"
#include "nl-socket-guard.h"
#include "schedule-dir.h"
#include "sd-cleanup.h"
#include "tbsd-remove.h"
#include "utf8.h"

/* The daemon's error texts start with "IFACE: "; the line printed here
 * names the interface already. */
static const char *without_prefix(const char *msg, const char *ifname) {
        size_t n = strlen(ifname);

        if (strncmp(msg, ifname, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
                return msg + n + 2;
        return msg;
}

/* Whether a tbsd daemon serves org.tsn.Tbs: asked with NameHasOwner, which
 * (unlike a method call to the name) does not start tbsd by bus activation.
 * No system bus means no daemon: tbsd does not run without one. Returns 1
 * (and *ret_bus), 0, or -errno when the bus answers but not to this. */
static int daemon_running(sd_bus **ret_bus) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_bus_ sd_bus *bus = NULL;
        int r, owned;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                log_debug_errno(r, "no system bus, so no tbsd daemon: %m");
                return 0;
        }
        r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &error, &reply, "s", TBS_BUS_NAME);
        if (r < 0) {
                if (r == -ECONNREFUSED || r == -ENOENT || r == -ECONNRESET || r == -ENOTCONN) {
                        log_debug_errno(r, "no system bus, so no tbsd daemon: %m");
                        return 0;
                }
                log_error("cannot tell whether tbsd runs: NameHasOwner(%s): %s", TBS_BUS_NAME,
                          error.message ?: strerror(-r));
                return r;
        }
        r = sd_bus_message_read(reply, "b", &owned);
        if (r < 0)
                return log_error_errno(r, "NameHasOwner: bad reply: %m");
        if (owned)
                *ret_bus = TAKE_PTR(bus);
        return !!owned;
}

/* Link.Remove() on the daemon. Returns the exit code, or -ENODEV when the
 * daemon does not know the interface (then it leaves it alone and the
 * removal is done here). */
static int remove_through_daemon(sd_bus *bus, const char *ifname, const char *shown) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        const char *path;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "GetLink", &error,
                               &reply, "s", ifname);
        if (r < 0 && sd_bus_error_has_name(&error, TBS_ERROR_NO_SUCH_LINK)) {
                log_debug("the running tbsd does not manage %s", ifname);
                return -ENODEV;
        }
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = sd_bus_call_method(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE, "Remove", &error, NULL, NULL);
        if (r < 0) {
                printf("%s: failed: %s\n", shown,
                       error.message ? without_prefix(error.message, ifname) : strerror(-r));
                return 1;
        }
        printf("%s: removed by the running tbsd\n", shown);
        return 0;
}

/* The roots the folder's schedule for ifname declares (at most one: the
 * folder refuses two files naming the same interface). */
static const Schedule *declared_schedule(const ScheduleDir *d, const char *ifname,
                                         const ScheduleFile **ret_invalid) {
        for (size_t i = 0; i < d->n; i++) {
                if (strcmp(d->files[i].ifname, ifname) != 0)
                        continue;
                if (d->files[i].schedule)
                        return d->files[i].schedule;
                *ret_invalid = &d->files[i];
        }
        return NULL;
}

static int remove_here(const char *ifname, const char *shown, const char *config_dir) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        _cleanup_nl_qdisc_ NlQdisc *nl = NULL;
        _cleanup_free_ char *error = NULL;
        const ScheduleFile *invalid = NULL;
        const Schedule *s;
        const RootSpec *ours[1];
        DeviceProbes probes;
        const DeviceProbe *dp;
        int ifindex, r, k;

        /* rtnetlink, not if_nametoindex(): no module loaded for the name. */
        ifindex = link_name_lookup(ifname, NULL);
        if (ifindex <= 0) {
                printf("%s: failed: no such interface\n", shown);
                return 1;
        }
        r = schedule_dir_load(config_dir, NULL, NULL, &d);
        if (r < 0) {
                printf("%s: failed: cannot read the schedules folder %s: %s\n", shown, config_dir,
                       strerror(-r));
                return 1;
        }
        s = declared_schedule(&d, ifname, &invalid);
        ours[0] = s ? &s->root : NULL;

        r = nl_qdisc_new(&nl);
        if (r < 0) {
                log_error_errno(r, "cannot open a netlink socket: %m");
                return 1;
        }
        /* The link speed a taprio's dumped max SDU is judged with. */
        device_probes_init(&probes, NULL);
        dp = device_probes_get(&probes, ifname);
        r = nl_qdisc_remove(nl, ifindex, ours, ELEMENTSOF(ours), dp && dp->error == 0 ? &dp->facts : NULL,
                            &error);
        device_probes_done(&probes);
        if (r == -EEXIST) {
                _cleanup_free_ char *line = NULL;

                for (size_t i = 0; invalid && i < invalid->diags.n && !line; i++)
                        if (invalid->diags.items[i].severity == DIAG_ERROR)
                                line = diag_format(&invalid->diags.items[i]);
                printf("%s: failed: %s, left in place%s%s\n", shown, error ?: "the root qdisc is not tbsd's",
                       line ? "; its schedule file is invalid: " : "", line ?: "");
                return 1;
        }
        if (r < 0) {
                printf("%s: failed: %s\n", shown, error ?: strerror(-r));
                return 1;
        }
        /* The socket guard goes with the tree, as the daemon's Remove() does. */
        error = mfree(error);
        k = nl_socket_guard_remove(nl, ifindex, &error);
        if (k < 0) {
                printf("%s: failed: the root is removed, but %s\n", shown, error ?: strerror(-k));
                return 1;
        }
        printf("%s: %s\n", shown, r > 0 ? "removed" : "unchanged");
        return 0;
}

int tbsd_remove(const char *ifname, const char *config_dir) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_free_ char *buf = NULL;
        const char *shown = text_safe(ifname, &buf);  /* a name may hold control characters */
        int r;

        r = daemon_running(&bus);
        if (r < 0) {
                printf("%s: failed: cannot tell whether the tbsd daemon runs\n", shown);
                return 1;
        }
        if (r > 0) {
                r = remove_through_daemon(bus, ifname, shown);
                if (r != -ENODEV)
                        return r;
        }
        return remove_here(ifname, shown, config_dir);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl's side of the D-Bus API: connecting to tbsd and the calls the
 * verbs share. Functions log their failure (they are the edge where the
 * decision is made) and return -errno; client_exit_status() maps that to
 * tbsctl's exit codes. */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"

/* tbsctl exit codes: part of the public contract. */
enum {
        TBSCTL_EXIT_OK = 0,
        TBSCTL_EXIT_FAILED = 1,
        TBSCTL_EXIT_USAGE = 2,
        TBSCTL_EXIT_NO_DAEMON = 3,
};

/** Connect to the system bus (honours DBUS_SYSTEM_BUS_ADDRESS).
 *  Returns 0, or -ENOTCONN (daemon not reachable; logged). */
int client_connect(sd_bus **ret);

/** Log a failed call as "WHAT: MESSAGE" (just MESSAGE when it already starts
 *  with "WHAT: ", as tbsd's errors about a link do) and turn it into a
 *  negative errno: -EACCES (access denied), -ENODEV (no such link), -EIO
 *  (any other named error); errors meaning the daemon is not there become
 *  -ENOTCONN. */
int client_call_failed(const char *what, const sd_bus_error *error, int r);

/** Exit status for a negative errno from the client functions. */
int client_exit_status(int r);

/** Object path of a link (GetLink). Returns 0 or -errno (logged). *ret must be freed. */
int client_get_link(sd_bus *bus, const char *ifname, char **ret);

/** Link names known to the daemon, as a NULL-terminated array (ListLinks). */
int client_list_links(sd_bus *bus, char ***ret);

/** The link's status document (Describe()), parsed. */
int client_describe(sd_bus *bus, const char *ifname, struct json_object **ret);

/** Describe() of each named link, or of every link (ListLinks) when argc
 *  is 0, as a JSON array of status documents in that order. Returns 0 or
 *  -errno (logged). */
int client_describe_links(sd_bus *bus, int argc, char *argv[], struct json_object **ret);

/** Free a NULL-terminated string array. */
void strv_free(char **l);

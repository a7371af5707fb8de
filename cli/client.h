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

/** The order of links in every listing of tbsctl (list, status, caps,
 *  clock, metrics): by interface name, byte by byte, as strcmp(). By name,
 *  not index: a link is its schedule's interface name, an absent one has
 *  no index, and a re-created device gets a new one. */
int client_compare_names(const char *a, const char *b);

/** Link names known to the daemon, as a NULL-terminated array (ListLinks),
 *  sorted by client_compare_names(). */
int client_list_links(sd_bus *bus, char ***ret);

/** The link's status document (Describe()), parsed. */
int client_describe(sd_bus *bus, const char *ifname, struct json_object **ret);

/** Describe() of each named link (in the order given), or of every link
 *  (client_list_links(), by name) when argc is 0, as a JSON array of status documents in that order. Returns 0 or
 *  -errno (logged). */
int client_describe_links(sd_bus *bus, int argc, char *argv[], struct json_object **ret);

/** The schedules folder the running tbsd serves (the Manager's
 *  ConfigDirectory property: its --config-dir), for the verbs that read
 *  the folder themselves. Logs nothing: on failure *ret_why says why
 *  (tbsd not running, no system bus, the call's error; free() it) and the
 *  caller falls back. Returns 0 and *ret (free() it), or -errno. */
int client_config_dir(char **ret, char **ret_why);

/** Free a NULL-terminated string array. */
void strv_free(char **l);

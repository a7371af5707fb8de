/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json-util.h"
#include "link-name.h"
#include "log.h"
#include "sd-cleanup.h"

void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free);

int client_connect(sd_bus **ret) {
        sd_bus *bus = NULL;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                log_error_errno(r, "tbsd is not reachable: cannot connect to the system bus: %m");
                return -ENOTCONN;
        }
        *ret = bus;
        return 0;
}

static int is_no_daemon_error(const sd_bus_error *error, int r) {
        static const char *const names[] = {
                SD_BUS_ERROR_SERVICE_UNKNOWN,
                SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                SD_BUS_ERROR_NO_SERVER,
                SD_BUS_ERROR_DISCONNECTED,
                SD_BUS_ERROR_NO_REPLY,
                SD_BUS_ERROR_TIMEOUT,
        };

        if (error && sd_bus_error_is_set(error)) {
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (sd_bus_error_has_name(error, names[i]))
                                return 1;
                return 0;
        }
        return r == -ECONNREFUSED || r == -ENOENT || r == -ENOTCONN || r == -ETIMEDOUT;
}

int client_call_failed(const char *what, const sd_bus_error *error, int r) {
        if (is_no_daemon_error(error, r)) {
                log_error("tbsd is not reachable on the system bus (%s): is the daemon running?",
                          error && error->message ? error->message : strerror(-r));
                return -ENOTCONN;
        }
        if (error && sd_bus_error_is_set(error)) {
                const char *msg = error->message ?: error->name;
                size_t n = strlen(what);

                /* One line of the message per line of output (Reload()
                 * names each invalid file on a line of its own; the log
                 * escapes whatever else could break a line). tbsd's errors
                 * about a link already start with "IFACE: ": no second
                 * prefix ("eth0: eth0: ..."). */
                for (const char *line = msg, *end; *line; line = *end ? end + 1 : end) {
                        int len;

                        end = strchrnul(line, '\n');
                        len = (int) (end - line);
                        if (len == 0)
                                continue;
                        if ((size_t) len > n + 1 && strncmp(line, what, n) == 0 && line[n] == ':' &&
                            line[n + 1] == ' ')
                                log_error("%.*s", len, line);
                        else
                                log_error("%s: %.*s", what, len, line);
                }
                if (sd_bus_error_has_name(error, "org.tsn.Tbs.Error.AccessDenied") ||
                    sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED))
                        return -EACCES;
                if (sd_bus_error_has_name(error, "org.tsn.Tbs.Error.NoSuchLink"))
                        return -ENODEV;
                return -EIO;
        }
        return log_error_errno(r, "%s: %m", what);
}

int client_exit_status(int r) {
        if (r >= 0)
                return TBSCTL_EXIT_OK;
        if (r == -ENOTCONN)
                return TBSCTL_EXIT_NO_DAEMON;
        return TBSCTL_EXIT_FAILED;
}

int client_get_link(sd_bus *bus, const char *ifname, char **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        const char *path;
        char *p;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                               "GetLink", &error, &reply, "s", ifname);
        if (r < 0) {
                r = client_call_failed(ifname, &error, r);
                /* which of two: an interface tbsd leaves alone, or none */
                if (r == -ENODEV)
                        log_error("%s: %s", ifname,
                                  link_name_lookup(ifname, NULL) > 0 ?
                                  "the interface exists, but no schedule in tbsd's folder names it" :
                                  "no interface of that name on this machine");
                return r;
        }
        r = sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return log_error_errno(r, "GetLink: bad reply: %m");
        p = strdup(path);
        if (!p)
                return log_error_errno(ENOMEM, "out of memory");
        *ret = p;
        return 0;
}

int client_compare_names(const char *a, const char *b) {
        return strcmp(a, b);
}

static int compare_names(const void *a, const void *b) {
        return client_compare_names(*(char *const *) a, *(char *const *) b);
}

int client_list_links(sd_bus *bus, char ***ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_(strv_freep) char **l = NULL;
        const char *name, *path, *state;
        size_t n = 0;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                               "ListLinks", &error, &reply, NULL);
        if (r < 0)
                return client_call_failed("ListLinks", &error, r);
        l = calloc(1, sizeof(char *));
        if (!l)
                return log_error_errno(ENOMEM, "out of memory");
        r = sd_bus_message_enter_container(reply, 'a', "(sos)");
        if (r < 0)
                return log_error_errno(r, "ListLinks: bad reply: %m");
        while ((r = sd_bus_message_read(reply, "(sos)", &name, &path, &state)) > 0) {
                char **nl = reallocarray(l, n + 2, sizeof(char *));
                if (!nl)
                        return log_error_errno(ENOMEM, "out of memory");
                l = nl;
                l[n + 1] = NULL;
                if (!(l[n] = strdup(name)))
                        return log_error_errno(ENOMEM, "out of memory");
                n++;
        }
        if (r < 0)
                return log_error_errno(r, "ListLinks: bad reply: %m");
        /* ListLinks answers in the daemon's order (as the links came);
         * every listing of tbsctl is by name. */
        qsort(l, n, sizeof(char *), compare_names);
        *ret = TAKE_PTR(l);
        return 0;
}

int client_describe(sd_bus *bus, const char *ifname, struct json_object **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        struct json_object *o;
        const char *text;
        int r;

        r = client_get_link(bus, ifname, &path);
        if (r < 0)
                return r;
        r = sd_bus_call_method(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE,
                               "Describe", &error, &reply, NULL);
        if (r < 0)
                return client_call_failed(ifname, &error, r);
        r = sd_bus_message_read(reply, "s", &text);
        if (r < 0)
                return log_error_errno(r, "Describe: bad reply: %m");
        o = json_tokener_parse(text);
        if (!o)
                return log_error_errno(EBADMSG, "%s: Describe() returned invalid JSON", ifname);
        *ret = o;
        return 0;
}

int client_describe_links(sd_bus *bus, int argc, char *argv[], struct json_object **ret) {
        _cleanup_(strv_freep) char **all = NULL;
        _cleanup_json_ struct json_object *arr = NULL;
        char **names = argv;
        int r, n = argc;

        if (argc == 0) {
                r = client_list_links(bus, &all);
                if (r < 0)
                        return r;
                names = all;
                for (n = 0; all[n]; n++)
                        ;
        }
        arr = json_object_new_array();
        if (!arr)
                return log_error_errno(ENOMEM, "out of memory");
        for (int i = 0; i < n; i++) {
                struct json_object *d = NULL;

                r = client_describe(bus, names[i], &d);
                if (r < 0)
                        return r;
                json_object_array_add(arr, d);
        }
        *ret = TAKE_PTR(arr);
        return 0;
}

int client_config_dir(char **ret, char **ret_why) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_ sd_bus *bus = NULL;
        char *dir = NULL;
        int r;

        *ret_why = NULL;
        r = sd_bus_open_system(&bus);
        if (r < 0)
                return asprintf(ret_why, "tbsd is not reachable (no system bus: %s)", strerror(-r)) < 0 ? -ENOMEM : r;
        r = sd_bus_get_property_string(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE,
                                       "ConfigDirectory", &error, &dir);
        if (r < 0) {
                if (is_no_daemon_error(&error, r))
                        *ret_why = strdup("tbsd is not running");
                else
                        (void) asprintf(ret_why, "cannot ask tbsd for its folder (%s)",
                                        error.message ?: strerror(-r));
                return *ret_why ? r : -ENOMEM;
        }
        *ret = dir;
        return 0;
}

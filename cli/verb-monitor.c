/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl monitor: print link events and property changes as they happen,
 * until interrupted. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "json-util.h"
#include "log.h"
#include "sd-cleanup.h"
#include "utf8.h"
#include "verbs.h"

static void stamp(char buf[static 32]) {
        struct timespec ts;
        struct tm tm;

        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        strftime(buf, 32, "%H:%M:%S", &tm);
}

static void emit(const char *link, const char *kind, const char *message) {
        char t[32];

        stamp(t);
        if (arg_json) {
                _cleanup_json_ struct json_object *o = json_object_new_object();
                json_add_string(o, "time", t);
                json_add_string(o, "link", link);
                json_add_string(o, "event", kind);
                json_add_string(o, "message", message);
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        } else {
                _cleanup_free_ char *l = NULL, *k = NULL, *m = NULL;

                printf("%s %-12s %-10s %s\n", t, text_safe(link, &l), text_safe(kind, &k), text_safe(message, &m));
        }
        fflush(stdout);
}

static int on_event(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *link, *kind, *message;

        if (sd_bus_message_read(m, "sss", &link, &kind, &message) >= 0)
                emit(link, kind, message);
        return 0;
}

/* PropertiesChanged on a link object: print the state-like properties. */
static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        _cleanup_free_ char *name = NULL;
        const char *iface, *path = sd_bus_message_get_path(m);
        char line[512] = "";
        size_t len = 0;

        if (!path || sd_bus_path_decode(path, TBS_LINK_PATH_PREFIX, &name) <= 0)
                return 0;
        if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, TBS_LINK_IFACE) != 0)
                return 0;
        if (sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
                return 0;
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *prop, *contents, *s;

                if (sd_bus_message_read(m, "s", &prop) < 0 ||
                    sd_bus_message_peek_type(m, NULL, &contents) < 0)
                        return 0;
                if (strcmp(contents, "s") == 0) {
                        if (sd_bus_message_read(m, "v", "s", &s) < 0)
                                return 0;
                        len += (size_t) snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
                                                 "%s%s=%s", len ? " " : "", prop, s);
                } else if (sd_bus_message_skip(m, "v") < 0)
                        return 0;
                if (sd_bus_message_exit_container(m) < 0)
                        return 0;
        }
        if (len > 0)
                emit(name, "changed", line);
        return 0;
}

int verb_monitor(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_event_ sd_event *event = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *version = NULL;
        sigset_t mask;
        int r;

        r = client_connect(&bus);
        if (r < 0)
                return client_exit_status(r);
        /* Fail early, with exit 3, when the daemon is not there. */
        r = sd_bus_get_property_string(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "Version",
                                       &error, &version);
        if (r < 0)
                return client_exit_status(client_call_failed("monitor", &error, r));

        r = sd_bus_match_signal(bus, NULL, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "Event",
                                on_event, NULL);
        if (r >= 0)
                r = sd_bus_match_signal(bus, NULL, TBS_BUS_NAME, NULL, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", on_properties, NULL);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "cannot subscribe to tbsd's signals: %m"));

        r = sd_event_default(&event);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "sd_event_default: %m"));
        sigemptyset(&mask);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGTERM);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        r = sd_bus_attach_event(bus, event, 0);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "sd_bus_attach_event: %m"));
        if (!arg_json)
                printf("Watching tbsd; press Ctrl-C to stop.\n");
        fflush(stdout);
        r = sd_event_loop(event);
        return r < 0 ? TBSCTL_EXIT_FAILED : TBSCTL_EXIT_OK;
}

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

/* The local time as HH:MM:SS (text form) and as RFC 3339 with
 * milliseconds and the zone offset ("2026-12-04T16:01:02.123+01:00"). */
static void stamp(char hms[static 32], char rfc3339[static 48]) {
        struct timespec ts;
        struct tm tm;
        char zone[8];
        size_t n;

        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        strftime(hms, 32, "%H:%M:%S", &tm);
        n = strftime(rfc3339, 48, "%Y-%m-%dT%H:%M:%S", &tm);
        strftime(zone, sizeof(zone), "%z", &tm);   /* +hhmm: RFC 3339 wants +hh:mm */
        snprintf(rfc3339 + n, 48 - n, ".%03ld%.3s:%.2s", ts.tv_nsec / 1000000, zone, zone + 3);
}

/* One line: "TIME LINK KIND MESSAGE", or with --json one object
 * {"timestamp", "time", "link", "kind", "event", "message", "properties"}
 * ("event" is "kind" under its first name; "properties" only for
 * "changed": the changed properties as an object). */
static void emit(const char *link, const char *kind, const char *message, struct json_object *props) {
        char t[32], ts[48];

        stamp(t, ts);
        if (arg_json) {
                _cleanup_json_ struct json_object *o = json_object_new_object();
                json_add_string(o, "timestamp", ts);
                json_add_string(o, "time", t);
                json_add_string(o, "link", link);
                json_add_string(o, "kind", kind);
                json_add_string(o, "event", kind);
                json_add_string(o, "message", message);
                if (props)
                        json_add(o, "properties", json_object_get(props));
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
        } else {
                _cleanup_free_ char *l = NULL, *k = NULL, *m = NULL;

                printf("%s %-12s %-10s %s\n", t, text_safe(link, &l), text_safe(kind, &k), text_safe(message, &m));
        }
        fflush(stdout);
}

static int on_event(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const char *link, *kind, *message;

        if (sd_bus_message_read(m, "sss", &link, &kind, &message) >= 0)
                emit(link, kind, message, NULL);
        return 0;
}

/* A property's value (s, b, i, u, t or au) as JSON; NULL and skipped for
 * any other type. Returns <0 on a bad message. */
static int read_variant(sd_bus_message *m, const char *contents, struct json_object **ret) {
        int r;

        *ret = NULL;
        if (strcmp(contents, "s") == 0) {
                const char *s;
                r = sd_bus_message_read(m, "v", "s", &s);
                if (r >= 0)
                        *ret = json_object_new_string(s);
        } else if (strcmp(contents, "b") == 0) {
                int b;
                r = sd_bus_message_read(m, "v", "b", &b);
                if (r >= 0)
                        *ret = json_object_new_boolean(b);
        } else if (strcmp(contents, "i") == 0) {
                int32_t i;
                r = sd_bus_message_read(m, "v", "i", &i);
                if (r >= 0)
                        *ret = json_object_new_int64(i);
        } else if (strcmp(contents, "u") == 0) {
                uint32_t u;
                r = sd_bus_message_read(m, "v", "u", &u);
                if (r >= 0)
                        *ret = json_object_new_int64(u);
        } else if (strcmp(contents, "t") == 0) {
                uint64_t t;
                r = sd_bus_message_read(m, "v", "t", &t);
                if (r >= 0)
                        *ret = json_object_new_uint64(t);
        } else if (strcmp(contents, "au") == 0) {
                uint32_t u;
                r = sd_bus_message_enter_container(m, 'v', "au");
                if (r >= 0)
                        r = sd_bus_message_enter_container(m, 'a', "u");
                if (r < 0)
                        return r;
                *ret = json_object_new_array();
                while ((r = sd_bus_message_read(m, "u", &u)) > 0)
                        json_object_array_add(*ret, json_object_new_int64(u));
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        } else
                r = sd_bus_message_skip(m, "v");
        if (r < 0) {
                json_object_put(*ret);
                *ret = NULL;
        }
        return r;
}

/* PropertiesChanged on a link object: print the changed properties,
 * "NAME=VALUE ..." in the text form, an object with --json. */
static int on_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        _cleanup_free_ char *name = NULL;
        _cleanup_json_ struct json_object *props = json_object_new_object();
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
                const char *prop, *contents;
                struct json_object *v;

                if (sd_bus_message_read(m, "s", &prop) < 0 ||
                    sd_bus_message_peek_type(m, NULL, &contents) < 0 ||
                    read_variant(m, contents, &v) < 0)
                        return 0;
                if (v) {
                        const char *text = json_object_is_type(v, json_type_string) ? json_object_get_string(v) :
                                           json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);

                        len += (size_t) snprintf(line + len, len < sizeof(line) ? sizeof(line) - len : 0,
                                                 "%s%s=%s", len ? " " : "", prop, text);
                        json_add(props, prop, v);
                }
                if (sd_bus_message_exit_container(m) < 0)
                        return 0;
        }
        if (len >= sizeof(line))
                len = sizeof(line) - 1;
        if (len > 0)
                emit(name, "changed", line, props);
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

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl apply, remove, reload, txtime-params. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json-util.h"
#include "log.h"
#include "parse-number.h"
#include "schedule.h"
#include "sd-cleanup.h"
#include "verbs.h"

static int call_link(const char *ifname, const char *method) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        int r;

        r = client_connect(&bus);
        if (r >= 0)
                r = client_get_link(bus, ifname, &path);
        if (r >= 0) {
                r = sd_bus_call_method(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE, method, &error, NULL, NULL);
                if (r < 0)
                        r = client_call_failed(ifname, &error, r);
        }
        return client_exit_status(r);
}

int verb_apply(int argc, char *argv[]) {
        return call_link(argv[0], "Apply");
}

int verb_remove(int argc, char *argv[]) {
        return call_link(argv[0], "Remove");
}

int verb_reload(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = client_connect(&bus);
        if (r >= 0) {
                r = sd_bus_call_method(bus, TBS_BUS_NAME, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "Reload",
                                       &error, NULL, NULL);
                if (r < 0)
                        r = client_call_failed("Reload", &error, r);
        }
        return client_exit_status(r);
}

/* SO_TXTIME on CLOCK_TAI and SO_PRIORITY above 6 need CAP_NET_ADMIN (a
 * packet socket CAP_NET_RAW): an application without them asks tbsd. */
#define UNPRIVILEGED_HINT                                                                               \
        "SO_TXTIME with CLOCK_TAI needs CAP_NET_ADMIN; applications without it get a socket set up "  \
        "like this from libtbs(3) or the bus method org.tsn.Tbs.Link.OpenTxtimeSocket()"

int verb_txtime_params(int argc, char *argv[]) {
        _cleanup_bus_ sd_bus *bus = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        uint32_t prio, delta;
        int32_t clockid;
        int deadline, offload;
        uint64_t queue;
        int r;

        if (parse_uint_arg("txtime-params: QUEUE", argv[1], 0, TBS_MAX_QUEUE, &queue) < 0)
                return TBSCTL_EXIT_USAGE;
        r = client_connect(&bus);
        if (r >= 0)
                r = client_get_link(bus, argv[0], &path);
        if (r < 0)
                return client_exit_status(r);
        r = sd_bus_call_method(bus, TBS_BUS_NAME, path, TBS_LINK_IFACE, "GetTxtimeParams", &error, &reply,
                               "u", (uint32_t) queue);
        if (r < 0)
                return client_exit_status(client_call_failed(argv[0], &error, r));
        r = sd_bus_message_read(reply, "uibub", &prio, &clockid, &deadline, &delta, &offload);
        if (r < 0)
                return client_exit_status(log_error_errno(r, "GetTxtimeParams: bad reply: %m"));

        if (arg_json) {
                _cleanup_json_ struct json_object *o = json_object_new_object();
                json_add(o, "socket_priority", json_object_new_int64(prio));
                json_add_string(o, "clockid", clockid_to_string(clockid) ?: "unknown");
                json_add(o, "deadline_mode", json_object_new_boolean(deadline));
                json_add(o, "delta_ns", json_object_new_int64(delta));
                json_add(o, "offload", json_object_new_boolean(offload));
                json_add_string(o, "unprivileged", UNPRIVILEGED_HINT);
                puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
        } else {
                printf("SO_PRIORITY:    %" PRIu32 "\n", prio);
                printf("SO_TXTIME:      clockid %s (%" PRId32 "), flags %s\n", clockid_to_string(clockid) ?: "?",
                       clockid, deadline ? "SOF_TXTIME_DEADLINE_MODE" : "0");
                printf("etf delta:      %" PRIu32 " ns (set txtime at least this far ahead)\n", delta);
                printf("offload:        %s\n", offload ? "hardware launch time" : "software");
                printf("unprivileged:   %s\n", UNPRIVILEGED_HINT);
        }
        return TBSCTL_EXIT_OK;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd's D-Bus methods timed from inside one client, without a process
 * start per call. Part of the benchmark (bench/run), not a test.
 *
 *   bus-bench describe IFACE SECONDS   Describe() on the link, one call after
 *                                      the other (each waits for its reply):
 *                                      "calls N seconds S per_second R"
 *   bus-bench reload                   Manager.Reload(): "us T"
 *   bus-bench apply IFACE              Link.Apply(): "us T"
 *
 * Exits 0, or 1 when a call fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-bus.h>

#include "bus-names.h"

static double now_s(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int call(sd_bus *bus, const char *path, const char *iface, const char *method,
                sd_bus_message **ret_reply) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sd_bus_call_method(bus, TBS_BUS_NAME, path, iface, method, &error, ret_reply, "");
        if (r < 0) {
                fprintf(stderr, "bus-bench: %s() on %s: %s\n", method, path, error.message ?: strerror(-r));
                sd_bus_error_free(&error);
        }
        return r;
}

static int describe_rate(sd_bus *bus, const char *path, double seconds) {
        unsigned long calls = 0;
        double start = now_s(), t;
        int r;

        do {
                sd_bus_message *reply = NULL;
                const char *json;

                r = call(bus, path, TBS_LINK_IFACE, "Describe", &reply);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "s", &json);
                sd_bus_message_unref(reply);
                if (r < 0)
                        return r;
                calls++;
                t = now_s() - start;
        } while (t < seconds);
        printf("calls %lu seconds %.3f per_second %.1f\n", calls, t, (double) calls / t);
        return 0;
}

static int timed_call(sd_bus *bus, const char *path, const char *iface, const char *method) {
        sd_bus_message *reply = NULL;
        double start = now_s();
        int r;

        r = call(bus, path, iface, method, &reply);
        sd_bus_message_unref(reply);
        if (r < 0)
                return r;
        printf("us %.0f\n", (now_s() - start) * 1e6);
        return 0;
}

static int usage(void) {
        fprintf(stderr, "usage: bus-bench describe IFACE SECONDS | reload | apply IFACE\n");
        return 2;
}

int main(int argc, char *argv[]) {
        sd_bus *bus = NULL;
        char *path = NULL;
        int r;

        if (argc < 2)
                return usage();
        if (!((strcmp(argv[1], "describe") == 0 && argc == 4 && atof(argv[3]) > 0) ||
              (strcmp(argv[1], "reload") == 0 && argc == 2) ||
              (strcmp(argv[1], "apply") == 0 && argc == 3)))
                return usage();
        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "bus-bench: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        if (argc >= 3) {
                r = sd_bus_path_encode(TBS_LINK_PATH_PREFIX, argv[2], &path);
                if (r < 0) {
                        fprintf(stderr, "bus-bench: %s\n", strerror(-r));
                        sd_bus_unref(bus);
                        return 1;
                }
        }
        if (strcmp(argv[1], "describe") == 0)
                r = describe_rate(bus, path, atof(argv[3]));
        else if (strcmp(argv[1], "reload") == 0)
                r = timed_call(bus, TBS_MANAGER_PATH, TBS_MANAGER_IFACE, "Reload");
        else
                r = timed_call(bus, path, TBS_LINK_IFACE, "Apply");
        free(path);
        sd_bus_flush_close_unref(bus);
        return r < 0 ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bus-flood --validate FILE: call Validate() once with FILE's contents (too
 * large for a command line) and print the answer: "ok N-ERRORS FIRST-ERROR"
 * or "error NAME: MESSAGE".
 *
 * bus-flood [--calls N] [--window W] [--link NAME]: send N method calls to
 * tbsd on the system bus, W at a time, rotating through Describe(),
 * GetLink() with hostile names, Validate() with junk and the privileged
 * Apply(); count every reply. Prints one JSON object: calls, replies,
 * errors and the error names seen. Exit 0 when every call was answered
 * (with a result or a named error), 1 otherwise. A test tool. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define MAX_NAMES 16

static unsigned replies, errors, in_flight;
static struct {
        char name[128];
        unsigned count;
} names[MAX_NAMES];

static void count_error(const char *name) {
        for (int i = 0; i < MAX_NAMES; i++) {
                if (names[i].name[0] == 0)
                        snprintf(names[i].name, sizeof(names[i].name), "%s", name);
                if (strcmp(names[i].name, name) == 0) {
                        names[i].count++;
                        return;
                }
        }
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(m);

        in_flight--;
        replies++;
        if (e) {
                errors++;
                count_error(e->name);
        }
        return 0;
}

static int send_one(sd_bus *bus, unsigned i, const char *link_path) {
        static const char *const hostile[] = { "a/b", "..", "0123456789abcdefXYZ", "", "eth0\n", "*" };
        sd_bus_message *m = NULL;
        int r;

        switch (i % 4) {
        case 0:
                r = sd_bus_message_new_method_call(bus, &m, "org.tsn.Tbs", link_path, "org.tsn.Tbs.Link",
                                                   "Describe");
                break;
        case 1:
                r = sd_bus_message_new_method_call(bus, &m, "org.tsn.Tbs", "/org/tsn/Tbs",
                                                   "org.tsn.Tbs.Manager", "GetLink");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", hostile[(i / 4) % 6]);
                break;
        case 2:
                r = sd_bus_message_new_method_call(bus, &m, "org.tsn.Tbs", "/org/tsn/Tbs",
                                                   "org.tsn.Tbs.Manager", "Validate");
                if (r >= 0)
                        r = sd_bus_message_append(m, "s", "{\"interface\": 5, \"root\": []}");
                break;
        default:
                r = sd_bus_message_new_method_call(bus, &m, "org.tsn.Tbs", link_path, "org.tsn.Tbs.Link",
                                                   "Apply");
                break;
        }
        if (r >= 0)
                r = sd_bus_call_async(bus, NULL, m, on_reply, NULL, 30 * 1000000ULL);
        sd_bus_message_unref(m);
        if (r >= 0)
                in_flight++;
        return r;
}

static int validate_file(sd_bus *bus, const char *file) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *first = "";
        char *text = NULL;
        size_t size = 0, n = 0;
        unsigned count = 0;
        int ok = 0, r;
        FILE *f;

        f = fopen(file, "re");
        if (!f)
                return -errno;
        for (;;) {
                if (n + 65536 + 1 > size) {
                        char *t = realloc(text, size = n + 65536 * 16 + 1);
                        if (!t) {
                                fclose(f);
                                free(text);
                                return -ENOMEM;
                        }
                        text = t;
                }
                size_t k = fread(text + n, 1, 65536, f);
                if (k == 0)
                        break;
                n += k;
        }
        fclose(f);
        text[n] = 0;
        r = sd_bus_call_method(bus, "org.tsn.Tbs", "/org/tsn/Tbs", "org.tsn.Tbs.Manager", "Validate", &error,
                               &reply, "s", text);
        free(text);
        if (r < 0) {
                printf("error %s: %s\n", error.name ?: "?", error.message ?: strerror(-r));
                sd_bus_error_free(&error);
                return 0;
        }
        r = sd_bus_message_read(reply, "b", &ok);
        if (r >= 0)
                r = sd_bus_message_enter_container(reply, 'a', "s");
        while (r >= 0 && (r = sd_bus_message_read(reply, "s", count == 0 ? &first : &(const char *) { NULL })) > 0)
                count++;
        printf("%s %u %s\n", ok ? "true" : "false", count, first);
        sd_bus_message_unref(reply);
        return r < 0 ? r : 0;
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "calls", required_argument, NULL, 'n' },
                { "window", required_argument, NULL, 'w' },
                { "link", required_argument, NULL, 'l' },
                { "validate", required_argument, NULL, 'v' },
                {}
        };
        unsigned calls = 10000, window = 64, sent = 0;
        const char *link = "eth0", *validate = NULL;
        char *path = NULL;
        sd_bus *bus = NULL;
        int c, r;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'n': calls = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'w': window = (unsigned) strtoul(optarg, NULL, 10); break;
                case 'l': link = optarg; break;
                case 'v': validate = optarg; break;
                default: return 2;
                }
        if (window == 0)
                window = 1;
        r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "bus-flood: cannot connect: %s\n", strerror(-r));
                return 1;
        }
        if (validate) {
                r = validate_file(bus, validate);
                sd_bus_flush_close_unref(bus);
                if (r < 0)
                        fprintf(stderr, "bus-flood: %s\n", strerror(-r));
                return r < 0;
        }
        r = sd_bus_path_encode("/org/tsn/Tbs/link", link, &path);
        if (r < 0)
                return 1;
        while (replies < calls) {
                while (sent < calls && in_flight < window) {
                        r = send_one(bus, sent, path);
                        if (r < 0) {
                                fprintf(stderr, "bus-flood: send failed: %s\n", strerror(-r));
                                return 1;
                        }
                        sent++;
                }
                r = sd_bus_process(bus, NULL);
                if (r < 0) {
                        fprintf(stderr, "bus-flood: %s\n", strerror(-r));
                        break;
                }
                if (r == 0 && sd_bus_wait(bus, 5 * 1000000ULL) < 0)
                        break;
        }
        printf("{\"calls\": %u, \"replies\": %u, \"errors\": %u, \"error_names\": {", calls, replies, errors);
        for (int i = 0; i < MAX_NAMES && names[i].name[0]; i++)
                printf("%s\"%s\": %u", i ? ", " : "", names[i].name, names[i].count);
        printf("}}\n");
        free(path);
        sd_bus_flush_close_unref(bus);
        return replies == calls ? 0 : 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* caps-probe IFACE...: print the capability probe's result for each
 * interface as JSON (caps_to_json()), one object per line, for the kernel
 * tests and for operators until tbsctl caps exists.
 *
 *   caps-probe [--sysfs ROOT] [--pretty] IFACE...
 *
 * Exit status: 0 when every interface was probed, 1 otherwise (the error
 * goes to stderr), 2 for a usage error. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "caps-probe.h"

static void usage(FILE *f) {
        fprintf(f, "usage: caps-probe [--sysfs ROOT] [--pretty] IFACE...\n");
}

int main(int argc, char *argv[]) {
        static const struct option options[] = {
                { "sysfs", required_argument, NULL, 's' },
                { "pretty", no_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        CapsIO io = {};
        int flags = JSON_C_TO_STRING_PLAIN, c, status = 0;

        while ((c = getopt_long(argc, argv, "s:ph", options, NULL)) >= 0)
                switch (c) {
                case 's':
                        io.sysfs_root = optarg;
                        break;
                case 'p':
                        flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        if (optind >= argc) {
                usage(stderr);
                return 2;
        }

        for (int i = optind; i < argc; i++) {
                LinkCaps caps;
                struct json_object *o;
                int r;

                r = caps_probe(&io, argv[i], &caps);
                if (r < 0) {
                        fprintf(stderr, "caps-probe: %s: %s\n", argv[i], strerror(-r));
                        status = 1;
                        continue;
                }
                o = caps_to_json(&caps);
                if (!o) {
                        fprintf(stderr, "caps-probe: %s: out of memory\n", argv[i]);
                        return 1;
                }
                printf("%s\n", json_object_to_json_string_ext(o, flags));
                json_object_put(o);
        }
        return status;
}

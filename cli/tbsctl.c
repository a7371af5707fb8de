/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl: the command line client of tbsd. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "log.h"
#include "parse-number.h"
#include "verbs.h"

typedef struct Verb {
        const char *name;
        int min_args;
        int max_args;
        int (*run)(int argc, char *argv[]);
        const char *synopsis;
        const char *description;
} Verb;

static const Verb verbs[] = {
        { "status",        0, -1, verb_status,        "status [IFACE...]",
          "Show links: schedule, qdiscs, capabilities, clock" },
        { "list",          0,  0, verb_list,          "list",
          "List links and their states" },
        { "caps",          1,  1, verb_caps,          "caps IFACE",
          "Show the launch-time capabilities of the NIC" },
        { "clock",         0, -1, verb_clock,         "clock [IFACE...]",
          "Show the clock sync state" },
        { "stats",         1,  2, verb_stats,         "stats IFACE [--watch [SECONDS]]",
          "Show per-queue statistics" },
        { "apply",         1,  1, verb_apply,         "apply IFACE",
          "Apply the link's schedule again (privileged)" },
        { "remove",        1,  1, verb_remove,        "remove IFACE",
          "Remove tbsd's qdiscs from the link (privileged)" },
        { "reload",        0,  0, verb_reload,        "reload",
          "Re-read the configuration folder (privileged)" },
        { "validate",      1, -1, verb_validate,      "validate FILE...",
          "Check schedule files without a daemon" },
        { "import",        1,  1, verb_import,        "import IFACE [-o FILE]",
          "Write the schedule of IFACE's installed qdiscs" },
        { "schedule",      1,  1, verb_schedule,      "schedule IFACE|FILE",
          "Show the cycle computed from a schedule's streams" },
        { "txtime-params", 2,  2, verb_txtime_params, "txtime-params IFACE QUEUE",
          "Socket settings (SO_PRIORITY, SO_TXTIME) for a queue" },
        { "monitor",       0,  0, verb_monitor,       "monitor",
          "Print events as they happen" },
        { "metrics",       0, -1, verb_metrics,       "metrics [IFACE...]",
          "Print Prometheus metrics of the links" },
        { "selftest",      1,  2, verb_selftest,      "selftest IFACE [QUEUE]",
          "Send probe frames through etf queues (root)" },
        {}
};

static void help(void) {
        printf("Usage: tbsctl [OPTIONS...] COMMAND [ARGS...]\n"
               "\n"
               "Query and control tbsd, the time-based transmission daemon.\n"
               "\n"
               "Options:\n"
               "  -h --help             Show this help\n"
               "     --version          Show the version\n"
               "  -j --json             Print JSON\n"
               "  -v --verbose          list: also print each link's D-Bus object path\n"
               "     --watch[=SECONDS]  stats: refresh every SECONDS (0.1-3600, default 1)\n"
               "                        until interrupted\n"
               "     --count=N          selftest: probe frames per queue (1-1000, default 20)\n"
               "     --device=IFACE     validate: also check against IFACE of this machine, as\n"
               "                        tbsd would before applying (\".\": each file's own\n"
               "                        interface)\n"
               "     --device-caps=FILE validate: also check against the NIC FILE describes:\n"
               "                        its `tbsctl --json caps IFACE`, recorded where it is\n"
               "  -o --output=FILE      import: write the schedule to FILE instead of stdout\n"
               "     --force            import: replace FILE when it exists\n"
               "\n"
               "Commands:\n");
        for (const Verb *v = verbs; v->name; v++)
                printf("  %-32s %s\n", v->synopsis, v->description);
        printf("\nselftest sends real traffic: raw Ethernet frames (EtherType 0x88B5, local\n"
               "experimental) to the broadcast address, with SO_TXTIME, on the link only.\n"
               "It changes no qdisc or schedule. It needs root (CAP_NET_RAW, CAP_NET_ADMIN).\n");
        printf("\nExit status: 0 ok, 1 failed, 2 usage error, 3 tbsd not reachable.\n");
}

int main(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_WATCH, ARG_COUNT, ARG_DEVICE, ARG_DEVICE_CAPS, ARG_FORCE };
        static const struct option options[] = {
                { "help",    no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "json",    no_argument, NULL, 'j' },
                { "verbose", no_argument, NULL, 'v' },
                { "watch",   optional_argument, NULL, ARG_WATCH },
                { "count",   required_argument, NULL, ARG_COUNT },
                { "device",  required_argument, NULL, ARG_DEVICE },
                { "device-caps", required_argument, NULL, ARG_DEVICE_CAPS },
                { "output",  required_argument, NULL, 'o' },
                { "force",   no_argument, NULL, ARG_FORCE },
                {}
        };
        int c;

        log_set_program_name("tbsctl");
        /* "+" would stop at the first non-option; we allow --json after the
         * command. ":" and opterr = 0: the refusals are ours
         * (log_option_error()), for every command. */
        opterr = 0;
        while ((c = getopt_long(argc, argv, ":hjvo:", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return TBSCTL_EXIT_OK;
                case ARG_VERSION:
                        printf("tbsctl %s\n", TBS_VERSION);
                        return TBSCTL_EXIT_OK;
                case 'j':
                        arg_json = true;
                        break;
                case 'v':
                        arg_verbose = true;
                        break;
                case ARG_WATCH: {
                        uint64_t ns;

                        if (!optarg) {
                                arg_watch = 0;
                                break;
                        }
                        if (parse_seconds_arg("--watch", optarg, false, WATCH_MIN_NS, WATCH_MAX_NS, &ns) < 0)
                                return TBSCTL_EXIT_USAGE;
                        arg_watch = (double) ns / 1e9;
                        break;
                }
                case ARG_COUNT: {
                        uint64_t v;

                        if (parse_uint_arg("--count", optarg, 1, SELFTEST_COUNT_MAX, &v) < 0)
                                return TBSCTL_EXIT_USAGE;
                        arg_count = (unsigned) v;
                        break;
                }
                case ARG_DEVICE:
                        arg_device = optarg;
                        break;
                case ARG_DEVICE_CAPS:
                        arg_device_caps = optarg;
                        break;
                case 'o':
                        arg_output = optarg;
                        break;
                case ARG_FORCE:
                        arg_force = true;
                        break;
                default:
                        (void) log_option_error("tbsctl", c, argv, options);
                        return TBSCTL_EXIT_USAGE;
                }

        if (optind >= argc) {
                help();
                return TBSCTL_EXIT_USAGE;
        }
        for (const Verb *v = verbs; v->name; v++) {
                int n = argc - optind - 1;

                if (strcmp(v->name, argv[optind]) != 0)
                        continue;
                if ((arg_device || arg_device_caps) && v->run != verb_validate) {
                        log_error("--device and --device-caps are only for validate; see 'tbsctl --help'");
                        return TBSCTL_EXIT_USAGE;
                }
                if (arg_device && arg_device_caps) {
                        log_error("--device and --device-caps exclude each other: one device per check");
                        return TBSCTL_EXIT_USAGE;
                }
                if ((arg_output || arg_force) && v->run != verb_import) {
                        log_error("--output and --force are only for import; see 'tbsctl --help'");
                        return TBSCTL_EXIT_USAGE;
                }
                if (arg_force && !arg_output) {
                        log_error("--force needs --output; see 'tbsctl --help'");
                        return TBSCTL_EXIT_USAGE;
                }
                if (n < v->min_args || (v->max_args >= 0 && n > v->max_args)) {
                        log_error("%s: wrong number of arguments; see 'tbsctl --help'", v->name);
                        return TBSCTL_EXIT_USAGE;
                }
                return v->run(n, argv + optind + 1);
        }
        log_error("unknown command '%s'; see 'tbsctl --help'", argv[optind]);
        return TBSCTL_EXIT_USAGE;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd: installs and keeps time-based transmission qdisc trees. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static const char *arg_config_dir = TBS_CONFIG_DIR;

static void help(void) {
        printf("Usage: tbsd [OPTIONS]\n"
               "\n"
               "Install and keep time-based transmission (etf/mqprio/taprio) qdisc trees\n"
               "declared in per-interface JSON schedules.\n"
               "\n"
               "  -h --help               Show this help\n"
               "     --version            Show the version\n"
               "     --config-dir DIR     Schedules folder (default %s)\n",
               TBS_CONFIG_DIR);
}

static int parse_argv(int argc, char *argv[]) {
        enum { ARG_VERSION = 0x100, ARG_CONFIG_DIR };
        static const struct option options[] = {
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, ARG_VERSION },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                {}
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("tbsd %s\n", TBS_VERSION);
                        return 0;
                case ARG_CONFIG_DIR:
                        arg_config_dir = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        return 1;
}

int main(int argc, char *argv[]) {
        int r;

        log_set_program_name("tbsd");
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? 2 : 0;

        log_error("the daemon is not implemented yet (config dir %s)", arg_config_dir);
        return 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd: installs and keeps time-based transmission qdisc trees. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "log.h"
#include "schedule-dir.h"

static const char *arg_config_dir = TBS_CONFIG_DIR;
static bool arg_check;

static void help(void) {
        printf("Usage: tbsd [OPTIONS]\n"
               "\n"
               "Install and keep time-based transmission (etf/mqprio/taprio) qdisc trees\n"
               "declared in per-interface JSON schedules.\n"
               "\n"
               "  -h --help               Show this help\n"
               "     --version            Show the version\n"
               "     --config-dir DIR     Schedules folder (default %s)\n"
               "     --check              Validate the schedules folder and exit\n",
               TBS_CONFIG_DIR);
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_CONFIG_DIR,
                ARG_CHECK,
        };
        static const struct option options[] = {
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, ARG_VERSION },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "check",      no_argument,       NULL, ARG_CHECK },
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
                case ARG_CHECK:
                        arg_check = true;
                        break;
                default:
                        return -EINVAL;
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'; see 'tbsd --help'", argv[optind]);
                return -EINVAL;
        }
        return 1;
}

/* tbsd --check: load and verify every schedule of the folder, print each
 * problem on stderr, change nothing. Device facts are not probed here, so
 * the checks that need them are left to the running daemon. Returns the exit
 * code: 0 without errors (warnings allowed), 1 otherwise. */
static int run_check(const char *dir) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        size_t n_errors, n_warnings = 0;
        int r;

        r = schedule_dir_load(dir, NULL, NULL, &d);
        if (r < 0) {
                log_error_errno(r, "%s: cannot read the schedules folder: %m", dir);
                return 1;
        }
        for (size_t i = 0; i < d.n; i++)
                for (size_t j = 0; j < d.files[i].diags.n; j++) {
                        _cleanup_free_ char *line = diag_format(&d.files[i].diags.items[j]);

                        fprintf(stderr, "%s\n", line ?: "out of memory");
                        if (d.files[i].diags.items[j].severity == DIAG_WARNING)
                                n_warnings++;
                }
        n_errors = schedule_dir_errors(&d);
        printf("%s: %zu schedule file%s, %zu error%s, %zu warning%s\n", dir,
               d.n, d.n == 1 ? "" : "s", n_errors, n_errors == 1 ? "" : "s",
               n_warnings, n_warnings == 1 ? "" : "s");
        return n_errors > 0 ? 1 : 0;
}

int main(int argc, char *argv[]) {
        int r;

        log_set_program_name("tbsd");
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? 2 : 0;

        if (arg_check)
                return run_check(arg_config_dir);

        log_error("the daemon is not implemented yet (config dir %s)", arg_config_dir);
        return 1;
}

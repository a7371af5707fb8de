/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd: installs and keeps time-based transmission qdisc trees. */
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "device-check.h"
#include "diag.h"
#include "json-util.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "nl-qdisc.h"
#include "parse-number.h"
#include "schedule-dir.h"
#include "schedule-rights.h"
#include "schedule-store.h"
#include "schedule-streams.h"
#include "schedule-verify.h"
#include "stream-state.h"
#include "stream-timeline.h"
#include "tbsd-remove.h"
#include "utf8.h"

#define DAEMON_MMAP_THRESHOLD (64 * 1024)

static const char *arg_config_dir = TBS_CONFIG_DIR;
static const char *arg_state_dir;
static bool arg_check;
static bool arg_probe = true;
static bool arg_once;
static const char *arg_remove;
static const char *arg_admin_group = "tbs";
static const char *arg_schedule_group;
static uint32_t arg_schedule_group_may;
static uint64_t arg_clock_interval_usec = 2 * 1000 * 1000ULL;
static uint64_t arg_stats_interval_usec = 1000 * 1000ULL;
static const char *arg_metrics_file;

static void help(void) {
        printf("Usage: tbsd [OPTIONS]\n"
               "\n"
               "Install and keep time-based transmission (etf/mqprio/taprio) qdisc trees\n"
               "declared in per-interface JSON schedules.\n"
               "\n"
               "  -h --help               Show this help\n"
               "     --version            Show the version\n"
               "     --config-dir DIR     Schedules folder (default %s)\n"
               "     --check              Validate the schedules folder against the interfaces\n"
               "                          of this machine and exit\n"
               "     --no-probe           With --check: check the files alone, without probing\n"
               "                          the interfaces (for files meant for another machine)\n"
               "     --once               Apply every schedule of the folder once, print one\n"
               "                          line per interface and exit (1 if any failed)\n"
               "     --remove IFACE       Remove tbsd's qdiscs from IFACE and exit: through the\n"
               "                          running daemon when there is one (as tbsctl remove),\n"
               "                          else only a root that IFACE's schedule in the\n"
               "                          schedules folder declares; other roots stay\n"
               "     --state-dir DIR      Where streams and schedules given over the bus are\n"
               "                          kept (default $STATE_DIRECTORY, else\n"
               "                          " TBS_DEFAULT_STATE_DIR ")\n"
               "     --admin-group NAME   Group allowed to call Apply/Remove/Reload (default tbs)\n"
               "     --schedule-group NAME\n"
               "                          Group allowed to call ApplySchedule(s), RemoveSchedule\n"
               "                          and GetSchedule besides the admin group (default none)\n"
               "     --schedule-group-may KEYS\n"
               "                          Schedule keys that grant rights the schedule group may\n"
               "                          set too, comma-separated: allow, sockets,\n"
               "                          skip_sock_check (default none)\n"
               "     --clock-interval SEC Seconds between clock checks (default 2)\n"
               "     --stats-interval SEC Seconds between statistics samples while sampling:\n"
               "                          always with --metrics-file, else while bus clients\n"
               "                          read them (default 1; 0: never, reads dump)\n"
               "     --metrics-file PATH  Write Prometheus metrics to PATH on every sample\n"
               "                          (for node_exporter's textfile collector)\n"
               "     --log-level LEVEL    err, warning, notice, info (default) or debug\n"
               "     --log-prefix         Prefix log lines with syslog priorities (<3>)\n"
               "     --allow-unsafe-files Accept schedule files that are symbolic links, owned\n"
               "                          by another user than root, or writable by others\n"
               "\n"
               "Without --check, --once or --remove, tbsd runs as a daemon: it applies every\n"
               "schedule, keeps them installed and serves org.tsn.Tbs on the system bus.\n"
               "SIGHUP reloads the folder; SIGTERM exits.\n",
               TBS_CONFIG_DIR);
}

static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_CONFIG_DIR,
                ARG_CHECK,
                ARG_NO_PROBE,
                ARG_ONCE,
                ARG_REMOVE,
                ARG_ADMIN_GROUP,
                ARG_CLOCK_INTERVAL,
                ARG_LOG_LEVEL,
                ARG_LOG_PREFIX,
                ARG_STATS_INTERVAL,
                ARG_METRICS_FILE,
                ARG_ALLOW_UNSAFE_FILES,
                ARG_STATE_DIR,
                ARG_SCHEDULE_GROUP,
                ARG_SCHEDULE_GROUP_MAY,
        };
        static const struct option options[] = {
                { "help",       no_argument,       NULL, 'h' },
                { "version",    no_argument,       NULL, ARG_VERSION },
                { "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
                { "state-dir",  required_argument, NULL, ARG_STATE_DIR },
                { "check",      no_argument,       NULL, ARG_CHECK },
                { "no-probe",   no_argument,       NULL, ARG_NO_PROBE },
                { "once",       no_argument,       NULL, ARG_ONCE },
                { "remove",     required_argument, NULL, ARG_REMOVE },
                { "admin-group", required_argument, NULL, ARG_ADMIN_GROUP },
                { "schedule-group", required_argument, NULL, ARG_SCHEDULE_GROUP },
                { "schedule-group-may", required_argument, NULL, ARG_SCHEDULE_GROUP_MAY },
                { "clock-interval", required_argument, NULL, ARG_CLOCK_INTERVAL },
                { "log-level",  required_argument, NULL, ARG_LOG_LEVEL },
                { "log-prefix", no_argument,       NULL, ARG_LOG_PREFIX },
                { "stats-interval", required_argument, NULL, ARG_STATS_INTERVAL },
                { "metrics-file", required_argument, NULL, ARG_METRICS_FILE },
                { "allow-unsafe-files", no_argument, NULL, ARG_ALLOW_UNSAFE_FILES },
                {}
        };
        int c, r;

        opterr = 0;   /* log_option_error() names the option, not argv[0] */
        while ((c = getopt_long(argc, argv, ":h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("tbsd %s\n", TBS_VERSION);
                        return 0;
                case ARG_CONFIG_DIR:
                        /* It is a D-Bus property and in every message: D-Bus
                         * takes valid UTF-8 only. */
                        if (!text_is_safe(optarg)) {
                                log_error("--config-dir: must be valid UTF-8 without control characters, got '%s'",
                                          optarg);
                                return -EINVAL;
                        }
                        arg_config_dir = optarg;
                        break;
                case ARG_STATE_DIR:
                        if (optarg[0] != '/') {
                                log_error("--state-dir: must be an absolute path, got '%s'", optarg);
                                return -EINVAL;
                        }
                        arg_state_dir = optarg;
                        break;
                case ARG_CHECK:
                        arg_check = true;
                        break;
                case ARG_NO_PROBE:
                        arg_probe = false;
                        break;
                case ARG_ONCE:
                        arg_once = true;
                        break;
                case ARG_REMOVE: {
                        const char *why = ifname_problem(optarg, strlen(optarg));

                        if (why) {
                                _cleanup_free_ char *buf = NULL;

                                fprintf(stderr, "tbsd: --remove: interface name \"%s\" %s\n",
                                        text_safe(optarg, &buf), why);
                                return -EINVAL;
                        }
                        arg_remove = optarg;
                        break;
                }
                case ARG_ADMIN_GROUP:
                        arg_admin_group = optarg;
                        break;
                case ARG_SCHEDULE_GROUP:
                        arg_schedule_group = optarg;
                        break;
                case ARG_SCHEDULE_GROUP_MAY: {
                        const char *bad = NULL;
                        size_t n = 0;

                        if (schedule_rights_parse(optarg, &arg_schedule_group_may, &bad, &n) < 0) {
                                _cleanup_free_ char *buf = NULL;

                                log_error("--schedule-group-may: '%.*s': expected a comma-separated list of allow, "
                                          "sockets and skip_sock_check, each once, got '%s'", (int) n, bad,
                                          text_safe(optarg, &buf));
                                return -EINVAL;
                        }
                        break;
                }
                case ARG_CLOCK_INTERVAL: {
                        uint64_t ns;

                        if (parse_seconds_arg("--clock-interval", optarg, false, NSEC_PER_SEC / 10,
                                              3600 * NSEC_PER_SEC, &ns) < 0)
                                return -EINVAL;
                        arg_clock_interval_usec = ns / 1000;
                        break;
                }
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                log_error("--log-level: must be emerg, alert, crit, err, warning, notice, info, "
                                          "debug or a number from 0 to 7, got '%s'", optarg);
                                return -EINVAL;
                        }
                        log_set_max_level(r);
                        break;
                case ARG_LOG_PREFIX:
                        log_set_prefix_priority(true);
                        break;
                case ARG_STATS_INTERVAL: {
                        uint64_t ns;

                        if (parse_seconds_arg("--stats-interval", optarg, true, NSEC_PER_SEC / 100,
                                              3600 * NSEC_PER_SEC, &ns) < 0)
                                return -EINVAL;
                        arg_stats_interval_usec = ns / 1000;
                        break;
                }
                case ARG_ALLOW_UNSAFE_FILES:
                        schedule_dir_allow_unsafe_files(true);
                        break;
                case ARG_METRICS_FILE:
                        if (optarg[0] != '/') {
                                log_error("--metrics-file: must be an absolute path, got '%s'", optarg);
                                return -EINVAL;
                        }
                        arg_metrics_file = optarg;
                        break;
                default:
                        return log_option_error("tbsd", c, argv, options);
                }
        if (optind < argc) {
                log_error("unexpected argument '%s'; see 'tbsd --help'", argv[optind]);
                return -EINVAL;
        }
        if (!arg_probe && !arg_check) {
                log_error("--no-probe is only for --check; see 'tbsd --help'");
                return -EINVAL;
        }
        return 1;
}

/* The schedules folder could not be loaded (r): say why. Returns 1. */
static int log_folder_error(const char *dir, int r) {
        _cleanup_free_ char *why = NULL;

        if (r == -EPERM && schedule_dir_check_folder(dir, &why) == -EPERM)
                log_error("%s", why);
        else
                log_error_errno(r, "%s: cannot read the schedules folder: %m", dir);
        return 1;
}

/* tbsd --check: what applying each valid file would do to its root, from
 * one dump of the kernel's qdiscs and the apply's own plan (nothing is
 * sent): a root that must be re-created is a warning, a schedule the kernel
 * cannot take (max_sdu) an error. A dump that cannot be taken is said once
 * and the check goes on without it. Returns 0 or -ENOMEM. */
static int check_root_changes(ScheduleDir *d, DeviceProbes *probes) {
        _cleanup_(qdisc_tree_set_done) QDiscTreeSet set = {};
        _cleanup_free_ int *wanted = NULL;
        NlQdisc *nl = NULL;
        size_t n_wanted = 0;
        int r;

        /* Only the probed interfaces' trees are kept from the dump. */
        wanted = calloc(d->n ?: 1, sizeof(int));
        if (!wanted)
                return -ENOMEM;
        for (size_t i = 0; i < d->n; i++) {
                unsigned ifindex = d->files[i].schedule ?
                        device_probes_ifindex(probes, d->files[i].schedule->ifname) : 0;

                if (ifindex > 0 && ifindex <= INT_MAX)
                        wanted[n_wanted++] = (int) ifindex;
        }
        n_wanted = qdisc_dump_wanted_sort(wanted, n_wanted);

        r = nl_qdisc_new(&nl);
        if (r >= 0)
                r = nl_qdisc_dump_some(nl, wanted, n_wanted, &set);
        nl_qdisc_free(nl);
        if (r < 0) {
                log_warning_errno(r, "cannot read the kernel's qdiscs, what an apply would change is not "
                                  "checked: %m");
                return 0;
        }
        for (size_t i = 0; i < d->n; i++) {
                ScheduleFile *f = &d->files[i];
                const DeviceProbe *dp;
                const QDiscTree *t;
                QDiscPlan p = {};
                unsigned ifindex;

                if (!f->schedule)
                        continue;
                ifindex = device_probes_ifindex(probes, f->schedule->ifname);
                t = ifindex > 0 ? qdisc_tree_set_find(&set, (int) ifindex) : NULL;
                if (!t || !t->has_root)
                        continue;
                dp = device_probes_find(probes, f->schedule->ifname);
                r = qdisc_plan_build((int) ifindex, f->schedule, t, dp && dp->error == 0 ? &dp->facts : NULL,
                                     NULL, NULL, &p);
                if (r >= 0 && p.root_change == PLAN_RECREATE_ROOT)
                        r = diag_warning(&f->diags, f->path, "root", "requires re-creating the root: %s (its "
                                         "children are re-created, packets queued in them are dropped)",
                                         p.root_why);
                else if (r == -EOPNOTSUPP && p.report.error)
                        r = diag_error(&f->diags, f->path, NULL, "%s", p.report.error);
                else
                        r = 0;
                qdisc_plan_done(&p);
                if (r == -ENOMEM)
                        return r;
        }
        return 0;
}

/* tbsd --check: the cycle computed from a valid file's streams, as
 * `tbsctl schedule` prints it, with the link speed the file was checked
 * with (its own, or its probed interface's). Returns 0 or -ENOMEM. */
static int print_timeline(const Schedule *s, const DeviceProbes *probes) {
        _cleanup_(stream_schedule_done) StreamSchedule c = {};
        _cleanup_json_ json_object *t = NULL;
        _cleanup_free_ char *why = NULL;
        const DeviceProbe *dp = device_probes_find(probes, s->ifname);
        uint32_t speed = dp && dp->error == 0 ? dp->facts.link_speed_mbps : 0;
        int r;

        if (s->streams.n == 0)
                return 0;
        r = schedule_streams_compute(s, speed, &c, &why);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;       /* the file's diagnostics said why */
        t = stream_timeline_to_json(s, &c, schedule_streams_speed(s, speed));
        if (!t)
                return -ENOMEM;
        (void) stream_timeline_print(stdout, t);
        return 0;
}

/* tbsd --check: load and verify every schedule of the folder, print each
 * problem on stderr, change nothing. Unless probe is false, each interface
 * the files name is probed and the files are checked against it with the
 * rules the daemon applies before every apply (device-check.h); an interface
 * that cannot be probed (not there yet) is a warning. Returns the exit code:
 * 0 without errors (warnings allowed), 1 otherwise. */
static int run_check(const char *dir, bool probe) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        size_t n_errors = 0, n_warnings = 0;
        int r;

        if (probe)
                device_probes_init(&probes, NULL);
        r = schedule_dir_load(dir, probe ? device_probes_facts_for : NULL, &probes, &d);
        if (r < 0)
                return log_folder_error(dir, r);
        if (probe && check_root_changes(&d, &probes) < 0) {
                log_error("out of memory");
                return 1;
        }
        for (size_t i = 0; i < d.n; i++) {
                ScheduleFile *f = &d.files[i];
                const DeviceProbe *dp = f->schedule ? device_probes_find(&probes, f->schedule->ifname) : NULL;

                /* A file that passes everything else says when its device
                 * could not be probed (it may appear later). */
                if (dp && device_probe_note(dp, f->path, true, &f->diags) < 0) {
                        log_error("out of memory");
                        return 1;
                }
                for (size_t j = 0; j < f->diags.n; j++) {
                        _cleanup_free_ char *line = NULL;

                        if (schedule_dir_repeats(&d, i, j))
                                continue;   /* an interface's files: one line names them all */
                        line = diag_format(&f->diags.items[j]);
                        fprintf(stderr, "%s\n", line ?: "out of memory");
                        if (f->diags.items[j].severity == DIAG_WARNING)
                                n_warnings++;
                        else
                                n_errors++;
                }
        }
        for (size_t i = 0; i < d.n; i++)
                if (d.files[i].schedule && print_timeline(d.files[i].schedule, &probes) < 0) {
                        log_error("out of memory");
                        return 1;
                }
        printf("%s: %zu schedule file%s, %zu error%s, %zu warning%s\n", dir,
               d.n, d.n == 1 ? "" : "s", n_errors, n_errors == 1 ? "" : "s",
               n_warnings, n_warnings == 1 ? "" : "s");
        return n_errors > 0 ? 1 : 0;
}

static double once_ms_since(const struct timespec *t0) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) (t.tv_sec - t0->tv_sec) * 1e3 + (double) (t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* What the apply of one link ended with. */
typedef struct OnceOutcome {
        const Link *link;
        int result;
        char *error;
} OnceOutcome;

typedef struct OnceRun {
        OnceOutcome *outcomes;
        size_t n;
} OnceRun;

static void once_run_done(OnceRun *o) {
        for (size_t i = 0; i < o->n; i++)
                free(o->outcomes[i].error);
        free(o->outcomes);
}

/* LinkContext.applied: keep the outcome for the line, log what the
 * engine decided per queue (the reason for software or offload mode). */
static void once_on_applied(Link *l, int r, const char *error, const ApplyReport *rep, void *userdata) {
        _cleanup_free_ char *name_buf = NULL;
        const char *name = text_safe(l->name, &name_buf);
        OnceRun *o = userdata;
        OnceOutcome *v;

        for (size_t j = 0; r >= 0 && rep && j < rep->n_queues; j++)
                if (rep->queues[j].reason)
                        log_info("%s: txqueue %u: %s %s (%s)", name, rep->queues[j].queue,
                                 txq_kind_to_string(rep->queues[j].kind) ?: "?", rep->queues[j].offload ? "offload" : "software", rep->queues[j].reason);
        if (r < 0 && rep && rep->rollback_error)
                log_error("%s: rollback failed: %s", name, rep->rollback_error);

        v = reallocarray(o->outcomes, o->n + 1, sizeof(OnceOutcome));
        if (!v)
                return;
        o->outcomes = v;
        o->outcomes[o->n++] = (OnceOutcome) {
                .link = l,
                .result = r,
                .error = error ? strdup(error) : NULL,
        };
}

static const OnceOutcome *once_outcome(const OnceRun *o, const Link *l) {
        /* The last apply of the link counts. */
        for (size_t i = o->n; l && i > 0; i--)
                if (o->outcomes[i - 1].link == l)
                        return &o->outcomes[i - 1];
        return NULL;
}

/* tbsd --once: the Manager in one-shot mode (no bus, event loop, clock
 * checks or drift watching): it loads the folder, checking each file
 * against its interface's probe, and applies every valid schedule through
 * the daemon's own sync (manager_sync_dir()): one qdisc dump serves every
 * interface, the requests of all go out in one batch. One line per file on
 * stdout ("IFACE: applied", "IFACE: unchanged", "IFACE: failed: REASON"),
 * in file order; a failed interface does not stop the others. Returns the
 * exit code: 0 when every interface succeeded, 1 otherwise. */
static int run_once(const char *dir) {
        _cleanup_(schedule_dir_done) ScheduleDir d = {};
        _cleanup_(once_run_done) OnceRun run = {};
        _cleanup_free_ bool *valid = NULL;
        Manager *m = NULL;
        struct timespec t0;
        bool failed = false, progress;
        int r, sync_r;

        /* On a terminal each line shows up as it is done; into a pipe or a
         * file the lines go out in few writes (a line per queue and
         * interface is thousands of writes with hundreds of interfaces). */
        progress = isatty(STDOUT_FILENO) > 0;
        (void) setvbuf(stderr, NULL, isatty(STDERR_FILENO) > 0 ? _IOLBF : _IOFBF, 0);

        r = manager_new(&(ManagerConfig) { .config_dir = dir, .one_shot = true }, &m);
        if (r < 0)
                return 1;
        m->link_ctx.on_applied = once_on_applied;
        m->link_ctx.applied_userdata = &run;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        r = schedule_dir_load(dir, manager_facts_for, m, &d);
        if (r < 0) {
                manager_free(m);
                return log_folder_error(dir, r);
        }
        log_debug("%zu schedule file(s) read and checked: %.1f ms", d.n, once_ms_since(&t0));
        valid = calloc(d.n ?: 1, sizeof(bool));
        if (!valid) {
                manager_free(m);
                log_error("out of memory");
                return 1;
        }
        for (size_t i = 0; i < d.n; i++)
                valid[i] = d.files[i].schedule;

        clock_gettime(CLOCK_MONOTONIC, &t0);
        sync_r = manager_sync_dir(m, &d, NULL);
        log_debug("%zu interface(s) dumped and applied: %.1f ms", m->n_links, once_ms_since(&t0));

        for (size_t i = 0; i < d.n; i++) {
                const ScheduleFile *f = &d.files[i];
                _cleanup_free_ char *name_buf = NULL;
                /* names and paths come from the folder: one line, escaped */
                const char *name = text_safe(f->ifname[0] ? f->ifname : f->path, &name_buf);
                const OnceOutcome *out;

                if (!valid[i]) {
                        _cleanup_free_ char *line = NULL;

                        for (size_t j = 0; j < f->diags.n; j++)
                                if (f->diags.items[j].severity == DIAG_ERROR) {
                                        line = diag_format(&f->diags.items[j]);
                                        break;
                                }
                        printf("%s: failed: %s\n", name, line ?: "invalid schedule");
                        failed = true;
                        continue;
                }
                out = once_outcome(&run, manager_find_link(m, f->ifname));
                if (!out) /* not tried: the sync stopped short (out of memory) */
                        printf("%s: failed: %s\n", name, strerror(sync_r < 0 ? -sync_r : ENOMEM));
                else if (out->result == -ENODEV)
                        printf("%s: failed: no such interface\n", name);
                else if (out->result < 0)
                        printf("%s: failed: %s\n", name, out->error ?: strerror(-out->result));
                else
                        printf("%s: %s\n", name, out->result > 0 ? "applied" : "unchanged");
                failed = failed || !out || out->result < 0;
                if (progress) {
                        fflush(stderr);
                        fflush(stdout);
                }
        }
        fflush(stderr);
        manager_free(m);
        return failed ? 1 : 0;
}

/* --state-dir, else systemd's StateDirectory= (the first of
 * $STATE_DIRECTORY's colon-separated list), else the default. */
static const char *state_dir(void) {
        static char env[PATH_MAX];
        const char *e = getenv("STATE_DIRECTORY");

        if (arg_state_dir)
                return arg_state_dir;
        if (e && e[0] == '/') {
                snprintf(env, sizeof(env), "%.*s", (int) strcspn(e, ":"), e);
                return env;
        }
        return TBS_DEFAULT_STATE_DIR;
}

/* The daemon: the Manager with its bus, until SIGTERM. Returns 0 on a clean
 * exit or -errno. */
static int run_daemon(const ManagerConfig *config) {
        Manager *m = NULL;
        int r;

        r = manager_new(config, &m);
        if (r < 0)
                return r;
        r = manager_connect_bus(m);
        if (r >= 0)
                r = manager_start(m);
        if (r >= 0)
                r = manager_run(m);
        manager_free(m);
        return r;
}

int main(int argc, char *argv[]) {
        _cleanup_free_ char *bus_folder = NULL;
        int r;

        log_set_program_name("tbsd");
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? 2 : 0;

        if (arg_check)
                return run_check(arg_config_dir, arg_probe);
        /* The daemon, --once and --remove read the schedules given over
         * the bus (ApplySchedule(), STATE_DIR/schedules.d) after the
         * folder's: a boot's --once gives the trees the daemon had. */
        bus_folder = schedule_store_dir(state_dir());
        if (!bus_folder) {
                log_error("out of memory");
                return 1;
        }
        schedule_dir_set_bus_folder(bus_folder);
        if (arg_once)
                return run_once(arg_config_dir);
        if (arg_remove)
                return tbsd_remove(arg_remove, arg_config_dir);

        /* The daemon's big buffers are short-lived (a qdisc dump of every
         * interface is hundreds of KiB). A fixed mmap threshold keeps glibc
         * from raising it after the first such buffer is freed, so each one
         * is mapped on its own and goes back to the kernel when freed
         * instead of growing the heap for good. */
        (void) mallopt(M_MMAP_THRESHOLD, DAEMON_MMAP_THRESHOLD);

        r = run_daemon(&(ManagerConfig) {
                .config_dir = arg_config_dir,
                .state_dir = state_dir(),
                .admin_group = arg_admin_group,
                .schedule_group = arg_schedule_group,
                .schedule_group_may = arg_schedule_group_may,
                .clock_interval_usec = arg_clock_interval_usec,
                .stats_interval_usec = arg_stats_interval_usec,
                .metrics_file = arg_metrics_file,
        });
        return r < 0 ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands of tbsctl, one file each (cli/verb-*.c), registered in the
 * verbs[] table of tbsctl.c. Each gets the arguments after the command name
 * and returns the process exit code (0 ok, 1 failed, 2 usage, 3 no daemon). */
#pragma once

#include <stdbool.h>

/* --json was given: print JSON instead of text. */
extern bool arg_json;
/* -v/--verbose: list also prints each link's D-Bus object path. */
extern bool arg_verbose;
/* --count=N: probe frames per queue for selftest (default 20). */
extern unsigned arg_count;
/* --watch[=SECONDS]: stats refreshes; -1 not given, 0 given without a value
 * (an interval may follow as the verb's last argument; default 1 s). */
extern double arg_watch;
/* Bounds of a --watch interval (tbsctl.c and verb-stats-watch.c parse it). */
#define WATCH_MIN_NS (100 * 1000 * 1000ULL)          /* 0.1 s */
#define WATCH_MAX_NS (3600ULL * 1000 * 1000 * 1000)   /* 1 h */
/* selftest --count: its probes are sent at once, 1 ms apart, and their
 * reports wait in one socket's error queue (BENCHMARKS.md, "Bounds") */
#define SELFTEST_COUNT_MAX 1000

/* --device=IFACE: validate checks the files against IFACE of this machine
 * ("." each file's own interface); NULL: not given. */
extern const char *arg_device;
extern const char *arg_device_caps;     /* validate: a device profile (caps-profile.h) */

/* -o/--output=FILE, --force: where import writes the schedule (NULL:
 * stdout), and whether it may replace an existing file. */
extern const char *arg_output;
extern bool arg_force;

/** tbsctl import IFACE [-o FILE [--force]]: the schedule file that declares
 *  IFACE's installed qdisc tree (mqprio or taprio root, etf children), read
 *  from the kernel without a daemon. A tree a schedule cannot express is
 *  refused with one line naming what. Returns 0, or 1 on refusal or error. */
int verb_import(int argc, char *argv[]);

/** tbsctl validate [--device IFACE] FILE...: read, parse and verify schedule
 *  files without a daemon; with --device also against that interface of this
 *  machine, as the daemon does before an apply. Prints each problem as
 *  "FILE: JSON.PATH: REASON" on stderr (or, with --json, [{"file", "valid",
 *  "interface", "errors", "warnings", "diagnostics", "device",
 *  "capabilities"}] on stdout: errors and warnings as those lines,
 *  diagnostics as {"file", "path", "reason", "severity"} objects).
 *  Returns 0 when every file is valid (warnings allowed), 1 when one is not,
 *  2 for a bad --device. */
int verb_validate(int argc, char *argv[]);

/** tbsctl schedule IFACE|FILE: the cycle computed from the streams of the
 *  schedule for IFACE in the folder the running tbsd serves (its
 *  ConfigDirectory; the compiled-in folder, with a note, when none runs),
 *  or of FILE, with the file's link speed or the interface's, as a timeline
 *  (stream-timeline.h; with --json its document). Needs no daemon. Returns
 *  0, or 1 when the schedule is missing, invalid, has no streams or cannot
 *  be computed. */
int verb_schedule(int argc, char *argv[]);

/** tbsctl status [IFACE...]: the Describe() document of each link (all when
 *  none is named), as a networkctl-style block or, with --json, as JSON
 *  (one object for one link, an array otherwise). */
int verb_status(int argc, char *argv[]);
/** tbsctl list: every link with its state. */
int verb_list(int argc, char *argv[]);
/** tbsctl caps IFACE: the capability probe result (the "capabilities" object). */
int verb_caps(int argc, char *argv[]);
/** tbsctl clock [IFACE]: the clock check result (the "clock" object). */
int verb_clock(int argc, char *argv[]);
/** tbsctl stats IFACE: per-queue counters. */
int verb_stats(int argc, char *argv[]);
/** tbsctl stats IFACE --watch [SECONDS] (cli/verb-stats-watch.c): refresh
 *  the counters every SECONDS until SIGINT/SIGTERM, with rates from
 *  successive samples; --json prints one object a line per sample. */
int stats_watch(int argc, char *argv[]);
/** tbsctl apply IFACE / remove IFACE / reload: the privileged methods. */
int verb_apply(int argc, char *argv[]);
int verb_remove(int argc, char *argv[]);
int verb_reload(int argc, char *argv[]);
/** tbsctl txtime-params IFACE QUEUE: what a sender sets on its socket. */
int verb_txtime_params(int argc, char *argv[]);
/** tbsctl monitor: print events and state changes until interrupted. */
int verb_monitor(int argc, char *argv[]);
/** tbsctl metrics [IFACE...]: the Prometheus text exposition (lib/metrics.h)
 *  of the named links, all when none is named. */
int verb_metrics(int argc, char *argv[]);
/** tbsctl selftest IFACE [QUEUE]: probe frames with SO_TXTIME through each
 *  installed etf queue (or QUEUE); reports sent, on_time, missed, invalid,
 *  the launch-time error distribution when there are hardware transmit time
 *  stamps, and what the qdisc counted. Exit 1 when a frame missed or was invalid. */
int verb_selftest(int argc, char *argv[]);

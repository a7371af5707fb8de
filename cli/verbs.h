/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands of tbsctl, one file each (cli/verb-*.c), registered in the
 * verbs[] table of tbsctl.c. Each gets the arguments after the command name
 * and returns the process exit code (0 ok, 1 failed, 2 usage, 3 no daemon). */
#pragma once

#include <stdbool.h>

/* --json was given: print JSON instead of text. */
extern bool arg_json;

/** tbsctl validate FILE...: read, parse and verify schedule files without a
 *  daemon. Prints each problem as "FILE: JSON.PATH: REASON" on stderr (or,
 *  with --json, [{"file", "valid", "interface", "errors", "warnings"}] on
 *  stdout). Returns 0 when every file is valid (warnings allowed), else 1. */
int verb_validate(int argc, char *argv[]);

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

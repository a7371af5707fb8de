/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time figures of a queue as tbsctl shows them (stats, status,
 * selftest): the JSON keys Describe()'s "monitor" object has, and one line
 * of text with the times in human units. */
#pragma once

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "launch-hist.h"

/** ns as "850 ns", "12.3 us", "4.56 ms", "1.20 s" (three significant
 *  digits, sign kept) into buf. Returns buf. */
char *format_ns_human(int64_t ns, char buf[static 32]);

/** Add the figures of s to the object o with Describe()'s "monitor" keys:
 *  "source", "sent", "missed", "invalid", "unstamped", "count", "early",
 *  "late", "min_ns", "p50_ns", "p99_ns", "max_ns" (the last four null
 *  while count is 0). Returns 0 or -ENOMEM. */
int launch_stats_to_json(const LaunchQueueStats *s, struct json_object *o);

/** Print the figures of m (an object with the keys above) on one line:
 *  "source S, sent N, p50 X, p99 Y, max Z, early E, late L, missed M,
 *  invalid I, unstamped U" with the times in human units ("-" while count
 *  is 0). */
void print_launch_figures(FILE *out, struct json_object *m);

/** For each queue of the Describe() "txqueues" array qs that has a
 *  "monitor" object: "queue N launch error: " and print_launch_figures(). */
void print_launch_queues(FILE *out, struct json_object *qs);

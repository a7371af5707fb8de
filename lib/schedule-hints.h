/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Hints for tc's own notation in a schedule file: someone moving a tc
 * script (or `tc -j` output) over writes "1@0", "S", "flags", "hw": 0 or
 * "delta"; the parser's error for such a value ends with what the schedule
 * format says instead, e.g.
 *   root.queues[0]: must be an object, got "1@0" (tc's notation; write {"count": 1, "offset": 0})
 * Each function fills buf with " (tc's notation; write ...)" and returns
 * true when the value is tc's notation, else returns false (buf empty).
 * Internal to the schedule parser (lib/schedule-parse.c, schedule-fields.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "json-tree.h"

#include "schedule-fields.h"

#define TC_HINT_MAX 640

/** An unknown key that is tc's name of a key the object takes (active in
 *  keys): "flags" (with its value: "mode": "txtime-assist"), "hw" ("hw_offload":
 *  false), "delta", "base-time", "sched-entry", "cmd", cbs's "idleslope",
 *  ... */
bool tc_hint_key(const char *key, const JsonNode *val, const KeySpec *keys, size_t n_keys, unsigned active,
                 char buf[static TC_HINT_MAX]);

/** "1@0" (one traffic class's queues) as {"count": 1, "offset": 0}; with
 *  whole_list, "1@0 1@1 2@2" (tc's queues argument) as the array. */
bool tc_hint_queues(const JsonNode *v, bool whole_list, char buf[static TC_HINT_MAX]);

/** "2 2 1 0 ..." (tc's map argument) as the priority_map array. */
bool tc_hint_priority_map(const JsonNode *v, char buf[static TC_HINT_MAX]);

/** taprio's sched-entry commands "S", "H", "R" as "set-gates",
 *  "set-and-hold", "set-and-release". */
bool tc_hint_command(const char *s, char buf[static TC_HINT_MAX]);

/** A gate mask in tc's hex without "0x" ("01", "ff") as "0x01". */
bool tc_hint_gate_mask(const JsonNode *v, char buf[static TC_HINT_MAX]);

/** tc's 0 and 1 for a switch (cbs's offload, mqprio's hw) as false and
 *  true. */
bool tc_hint_bool(const JsonNode *v, char buf[static TC_HINT_MAX]);

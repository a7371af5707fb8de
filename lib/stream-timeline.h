/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The computed cycle of a schedule with streams as a timeline, for
 * `tbsctl schedule` and `tbsd --check`: one JSON document, and the human
 * text printed from that same document. */
#pragma once

#include <stdio.h>

#include <json-c/json.h>

#include "schedule.h"
#include "stream-schedule.h"

/** The timeline of s's computed cycle c at speed_mbps: {"interface",
 *  "cycle_ns", "link_speed_mbps", "guard_ns", "utilisation_percent",
 *  "streams": [{"name", "traffic_class", "period_ns", "offset_ns",
 *  "offset_given", "window_ns", "origin"}], "entries": [{"start_ns",
 *  "interval_ns", "gate_mask", "open_classes", "kind" ("window", "guard" or
 *  "best-effort"), "streams"}]}. Returns a new object, or NULL (no memory). */
json_object *stream_timeline_to_json(const Schedule *s, const StreamSchedule *c, uint32_t speed_mbps);

/** Print a stream_timeline_to_json() document as text to f: a summary
 *  line, a line per stream, then a line per entry (start, length, gates,
 *  open classes, streams). Returns 0 or -EIO. */
int stream_timeline_print(FILE *f, json_object *timeline);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A schedule whose taprio root gives "streams": its gate list computed
 * with lib/stream-schedule.c from the root's classes and the link speed
 * (docs/streams.md). */
#pragma once

#include <json-c/json.h>

#include "diag.h"
#include "json-tree.h"
#include "schedule.h"
#include "stream-schedule.h"

/** The link speed the streams are computed with: the file's
 *  root.link_speed_mbps, else device_speed_mbps (0: unknown). In Mbit/s. */
uint32_t schedule_streams_speed(const Schedule *s, uint32_t device_speed_mbps);

/** Compute s's gate list from its streams (PTP's class: the class of
 *  clock.ptp_priority, schedule_ptp_tc(); the shortest entry: TBS_TAPRIO_MIN_SOFTWARE_INTERVAL_NS
 *  unless the root runs in full offload or the file allows
 *  "software-gate-interval"). Returns 0 and *ret (release with
 *  stream_schedule_done()), -ENODATA when no link speed is known, or
 *  stream_schedule_compute()'s errors; a one-line reason in *ret_error. */
int schedule_streams_compute(const Schedule *s, uint32_t device_speed_mbps, StreamSchedule *ret,
                             char **ret_error);

/** Put the gate list computed from s's streams into s->root (entries and
 *  cycle time), unless it is already there for this speed. Does nothing for
 *  a schedule without streams. Returns 0 (also when there is nothing to do),
 *  or schedule_streams_compute()'s error with *ret_error; the root then has
 *  no entries (schedule_streams_pending() is true again). */
int schedule_resolve_streams(Schedule *s, uint32_t device_speed_mbps, char **ret_error);

/** Whether s gives streams whose entries are not computed yet (no link
 *  speed was known so far). */
bool schedule_streams_pending(const Schedule *s);

/** One stream object (the keys of a "streams" entry) into *ret, checked as
 *  the parser checks a file's (r: its root, for num_tc); problems go to
 *  diags as "SOURCE: PATH.KEY: REASON". Returns 0, -EINVAL or -ENOMEM.
 *  (lib/schedule-parse-streams.c) */
int stream_parse_node(const char *source, const char *path, const JsonNode *o, const RootSpec *r, DiagList *diags,
                      StreamSpec *ret);

/** stream_parse_node() of a json-c object (the bus's AddStream, whose
 *  values are strings and integers): read through its JSON text. */
int stream_parse_object(const char *source, const char *path, json_object *o, const RootSpec *r, DiagList *diags,
                        StreamSpec *ret);

/** The stream objects of t as a JSON array (those from the bus only, with
 *  bus_only), in the file's keys. NULL: no memory. (lib/schedule-json.c) */
json_object *streams_spec_to_json(const StreamsSpec *t, bool bus_only);

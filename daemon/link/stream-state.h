/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Streams added at run time (Link.AddStream()), kept across restarts in
 * tbsd's state directory: one file per interface, DIR/streams/IFACE.json,
 * a JSON array of stream objects in the schedule file's keys. */
#pragma once

#include "schedule.h"

/* The state directory when neither --state-dir nor $STATE_DIRECTORY
 * (systemd's StateDirectory=) names one. */
#define TBS_DEFAULT_STATE_DIR "/var/lib/tbsd"

/** Append the streams kept for ifname in dir to s (marked from_bus), after
 *  checking each as a file's; a name the file uses already is left out
 *  (the file wins). A missing file is no streams. Returns the number added,
 *  -EINVAL with a one-line reason in *ret_error (nothing added), or -errno. */
int stream_state_merge(const char *dir, Schedule *s, char **ret_error);

/** Write the from_bus streams of s for its interface into dir, atomically
 *  (a temporary file renamed over the old one); with none, remove the file.
 *  Returns 0 or -errno. */
int stream_state_save(const char *dir, const Schedule *s);

/** Forget the streams kept for ifname in dir (their file goes).
 *  Returns 1 when there were some, 0 when none, or -errno. */
int stream_state_drop(const char *dir, const char *ifname);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd --metrics-file PATH: the Prometheus text exposition of every link,
 * rewritten atomically on every statistics sample, for node_exporter's
 * textfile collector. */
#pragma once

#include "manager.h"

/** Render every link's last sample (lib/metrics.h) into PATH: written to a
 *  temporary file in the same folder, then renamed over PATH, so a reader
 *  never sees half a file. Returns 0 or -errno. */
int metrics_file_write(Manager *m, const char *path);

/** metrics_file_write() of m->metrics_file, logging a failure when it
 *  starts or its errno changes, and the recovery once: not every sample. */
void metrics_file_update(Manager *m);

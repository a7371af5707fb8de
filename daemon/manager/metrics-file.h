/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd --metrics-file PATH: the Prometheus text exposition of every link,
 * rewritten atomically on every statistics sample, for node_exporter's
 * textfile collector. */
#pragma once

#include "link.h"
#include "metrics.h"

/** Render d (the daemon's own samples) and the last sample of links[0..n)
 *  (lib/metrics.h) into path:
 *  written to a temporary file in the same folder, then renamed over path,
 *  so a reader never sees half a file. Returns 0 or -errno. */
int metrics_file_write(const MetricsDaemon *d, Link **links, size_t n, const char *path);

/** metrics_file_write(), logging a failure when it starts or its errno
 *  changes, and the recovery once: not every sample. *last_error keeps the
 *  -errno of the last write (0 when it worked) from call to call. */
void metrics_file_update(const MetricsDaemon *d, Link **links, size_t n, const char *path, int *last_error);

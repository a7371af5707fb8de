/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "link-metrics.h"
#include "log.h"
#include "metrics-file.h"

int metrics_file_write(const MetricsDaemon *d, Link **links, size_t n, const char *path) {
        /* Typed samples read from each link (link-metrics.c); a link
         * without a sample (absent) is still there: its state is a metric
         * too. */
        return links_write_metrics_file(d, links, n, path);
}

void metrics_file_update(const MetricsDaemon *d, Link **links, size_t n, const char *path, int *last_error) {
        int r = metrics_file_write(d, links, n, path);

        /* Every sampling interval would repeat the same line: say it when
         * the error starts or changes, and once when writing works again. */
        if (r < 0 && r != *last_error)
                log_warning_errno(r, "cannot write the metrics file %s: %m (not repeated while it persists)", path);
        else if (r >= 0 && *last_error < 0)
                log_info("metrics file %s written again", path);
        *last_error = r < 0 ? r : 0;
}

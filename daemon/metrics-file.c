/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "link-metrics.h"
#include "log.h"
#include "metrics-file.h"

int metrics_file_write(Manager *m, const char *path) {
        /* Typed samples read from each link (link-metrics.c); a link
         * without a sample (absent) is still there: its state is a metric
         * too. */
        return links_write_metrics_file(m->links, m->n_links, path);
}

void metrics_file_update(Manager *m) {
        int r = metrics_file_write(m, m->metrics_file);

        /* Every sampling interval would repeat the same line: say it when
         * the error starts or changes, and once when writing works again. */
        if (r < 0 && r != m->metrics_file_error)
                log_warning_errno(r, "cannot write the metrics file %s: %m (not repeated while it persists)",
                                  m->metrics_file);
        else if (r >= 0 && m->metrics_file_error < 0)
                log_info("metrics file %s written again", m->metrics_file);
        m->metrics_file_error = r < 0 ? r : 0;
}

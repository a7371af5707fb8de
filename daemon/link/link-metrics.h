/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The typed metrics samples (lib/metrics.h) of tbsd's links, read from
 * each link's fields and last statistics sample: no status document. */
#pragma once

#include <stddef.h>

#include "link.h"
#include "metrics.h"

/** Fill *ret with what the metrics show of l: its state, its clock check
 *  (state and the values it has), and per TX queue its schedule declares,
 *  the qdisc of l's last statistics sample with its counters and rates
 *  (no sample: every queue "none", without counters), and the figures of
 *  its running launch-time monitors. queues must have
 *  room for the schedule's queues (link_metrics_n_queues()). The strings
 *  of *ret point into l and its sample, which must outlive it. */
void link_metrics(Link *l, MetricsQueue *queues, MetricsLink *ret);

/** The ptp4l socket l's clock check asks, as its schedule names it, or
 *  "default" (ptp4l's default paths); NULL when the schedule has no clock
 *  section. */
const char *link_ptp4l_socket(const Link *l);

/** The number of queues link_metrics() fills for l. */
size_t link_metrics_n_queues(Link *l);

/** metrics_write_daemon_file() of d and links[0..n), each as
 *  link_metrics() reads it. Returns 0 or -errno. Does not log. */
int links_write_metrics_file(const MetricsDaemon *d, Link **links, size_t n, const char *path);

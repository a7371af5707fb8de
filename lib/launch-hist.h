/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The launch-time error histogram: how far from its requested launch time
 * each probe frame left (transmit time stamp - txtime, ns; negative is
 * early). Fixed logarithmic buckets, 1-2-5 per decade from 100 ns to 10 ms
 * on both sides of zero, so that every monitor, the metrics file
 * (tbs_launch_error_seconds) and the bus carry the same edges and
 * histograms of different queues or daemons can be added up.
 *
 * Bucket i counts the errors e with bound[i-1] < e <= bound[i] (the
 * Prometheus "le" convention); bucket 0 has no lower bound and the last
 * bucket (LAUNCH_HIST_BUCKETS - 1) no upper bound. Pure: no clock, no
 * allocation. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define LAUNCH_HIST_BOUNDS  32                     /* finite upper bounds, -10 ms .. +10 ms */
#define LAUNCH_HIST_BUCKETS (LAUNCH_HIST_BOUNDS + 1) /* plus the one above +10 ms */

/** The finite upper bounds in ns, ascending: -10 ms, -5 ms, -2 ms, ...,
 *  -100 ns, +100 ns, +200 ns, ..., +10 ms. */
extern const int64_t launch_hist_bounds_ns[LAUNCH_HIST_BOUNDS];

typedef struct LaunchHist {
        uint64_t bucket[LAUNCH_HIST_BUCKETS]; /* per bucket, not cumulative */
        uint64_t count;                       /* errors added */
        uint64_t early, late;                 /* errors < 0 and > 0 (0 is neither) */
        int64_t sum_ns;                       /* saturates at INT64_MIN/INT64_MAX */
        int64_t min_ns, max_ns;               /* meaningful when count > 0 */
} LaunchHist;

/** Add one launch error (ns). */
void launch_hist_add(LaunchHist *h, int64_t error_ns);

/** Add every count of src to dst (same edges by construction). */
void launch_hist_merge(LaunchHist *dst, const LaunchHist *src);

/** Index of the bucket that error_ns falls in. */
unsigned launch_hist_bucket_of(int64_t error_ns);

/** Estimate of the q-quantile (0 <= q <= 1), ns: the bucket holding rank
 *  ceil(q * count) is found and the value interpolated linearly inside it;
 *  the open-ended buckets use the recorded min and max as their outer edge,
 *  and the estimate never leaves [min, max] (q = 0 gives min, q = 1 max). Returns 0 and *ret_ns, or
 *  -ENODATA when the histogram is empty, -EINVAL when q is out of range. */
int launch_hist_quantile(const LaunchHist *h, double q, int64_t *ret_ns);

/* Where a queue's launch errors come from. */
typedef enum LaunchStampSource {
        LAUNCH_STAMP_NONE,      /* no time stamps (yet): only drops are counted */
        LAUNCH_STAMP_SOFTWARE,  /* the driver's software TX stamp (CLOCK_REALTIME, taken at xmit) */
        LAUNCH_STAMP_HARDWARE,  /* the NIC's TX stamp (its PHC) */
        _LAUNCH_STAMP_MAX,
        _LAUNCH_STAMP_INVALID = -22,
} LaunchStampSource;

/* One monitored TX queue's figures, as the monitor keeps them and the bus,
 * tbsctl and the metrics file show them. */
typedef struct LaunchQueueStats {
        uint32_t queue;
        LaunchStampSource source;
        uint64_t sent;          /* probe frames the queue accepted */
        uint64_t missed;        /* reported SO_EE_CODE_TXTIME_MISSED (launch time passed in the queue) */
        uint64_t invalid;       /* refused: SO_EE_CODE_TXTIME_INVALID_PARAM, or dropped at enqueue */
        uint64_t unstamped;     /* left without a report and without a time stamp */
        LaunchHist hist;        /* errors of the stamped probes */
} LaunchQueueStats;

/** "none", "software", "hardware"; NULL when out of range. */
const char *launch_stamp_source_to_string(LaunchStampSource s);

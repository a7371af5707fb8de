/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

#include "launch-hist.h"
#include "saturate.h"
#include "string-table.h"

/* 1-2-5 per decade: an error is known to within a factor of 2.5, which is
 * what a dashboard needs to tell 100 ns from 10 us from 1 ms. */
const int64_t launch_hist_bounds_ns[LAUNCH_HIST_BOUNDS] = {
        -10000000, -5000000, -2000000, -1000000, -500000, -200000, -100000, -50000,
        -20000,    -10000,   -5000,    -2000,    -1000,   -500,    -200,    -100,
        100,       200,      500,      1000,     2000,    5000,    10000,   20000,
        50000,     100000,   200000,   500000,   1000000, 2000000, 5000000, 10000000,
};

unsigned launch_hist_bucket_of(int64_t error_ns) {
        unsigned lo = 0, hi = LAUNCH_HIST_BOUNDS;

        /* the first bound >= error_ns; LAUNCH_HIST_BOUNDS when none is */
        while (lo < hi) {
                unsigned mid = (lo + hi) / 2;
                if (launch_hist_bounds_ns[mid] >= error_ns)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        return lo;
}

void launch_hist_add(LaunchHist *h, int64_t error_ns) {
        h->bucket[launch_hist_bucket_of(error_ns)]++;
        if (h->count == 0 || error_ns < h->min_ns)
                h->min_ns = error_ns;
        if (h->count == 0 || error_ns > h->max_ns)
                h->max_ns = error_ns;
        h->count++;
        h->sum_ns = i64_sat_add(h->sum_ns, error_ns);
        if (error_ns < 0)
                h->early++;
        else if (error_ns > 0)
                h->late++;
}

void launch_hist_merge(LaunchHist *dst, const LaunchHist *src) {
        if (src->count == 0)
                return;
        for (unsigned i = 0; i < LAUNCH_HIST_BUCKETS; i++)
                dst->bucket[i] += src->bucket[i];
        if (dst->count == 0 || src->min_ns < dst->min_ns)
                dst->min_ns = src->min_ns;
        if (dst->count == 0 || src->max_ns > dst->max_ns)
                dst->max_ns = src->max_ns;
        dst->count += src->count;
        dst->early += src->early;
        dst->late += src->late;
        dst->sum_ns = i64_sat_add(dst->sum_ns, src->sum_ns);
}

int launch_hist_quantile(const LaunchHist *h, double q, int64_t *ret_ns) {
        uint64_t rank, below = 0;
        unsigned i;
        double lo, hi, v;

        if (!(q >= 0.0 && q <= 1.0))
                return -EINVAL;
        if (h->count == 0)
                return -ENODATA;
        if (q == 0.0) { /* interpolation would give the first bucket's upper edge */
                *ret_ns = h->min_ns;
                return 0;
        }

        /* ceil(q * count) without libm: the product is exact enough below 2^53 */
        v = q * (double) h->count;
        rank = (uint64_t) v;
        if ((double) rank < v)
                rank++;
        if (rank == 0)
                rank = 1;
        if (rank > h->count)
                rank = h->count;
        for (i = 0; i < LAUNCH_HIST_BUCKETS - 1; i++) {
                if (below + h->bucket[i] >= rank)
                        break;
                below += h->bucket[i];
        }
        if (h->bucket[i] == 0) { /* only if the buckets disagree with count */
                *ret_ns = h->max_ns;
                return 0;
        }

        /* The bucket's edges, the open ends closed by the recorded extremes. */
        lo = i == 0 ? (double) h->min_ns : (double) launch_hist_bounds_ns[i - 1];
        hi = i == LAUNCH_HIST_BOUNDS ? (double) h->max_ns : (double) launch_hist_bounds_ns[i];
        if (lo < (double) h->min_ns)
                lo = (double) h->min_ns;
        if (hi > (double) h->max_ns)
                hi = (double) h->max_ns;
        if (hi < lo)
                hi = lo;
        v = lo + (hi - lo) * ((double) (rank - below) / (double) h->bucket[i]);
        /* clamp in double first: (int64_t) of a double past INT64_MAX is undefined */
        if (v >= (double) h->max_ns)
                *ret_ns = h->max_ns;
        else if (v <= (double) h->min_ns)
                *ret_ns = h->min_ns;
        else
                *ret_ns = (int64_t) (v < 0 ? v - 0.5 : v + 0.5);
        return 0;
}

static const char *const stamp_source_table[_LAUNCH_STAMP_MAX] = {
        [LAUNCH_STAMP_NONE] = "none",
        [LAUNCH_STAMP_SOFTWARE] = "software",
        [LAUNCH_STAMP_HARDWARE] = "hardware",
};

DEFINE_STRING_TABLE_TO_STRING(launch_stamp_source, LaunchStampSource, stamp_source_table)

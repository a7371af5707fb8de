/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A taprio gate list from streams: cycle, placement, guard bands and the
 * entries (see stream-schedule.h and docs/streams.md). */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream-schedule.h"

void stream_schedule_done(StreamSchedule *s) {
        if (!s)
                return;
        free(s->entries);
        free(s->offsets_ns);
        free(s->window_ns);
        free(s->windows);
        *s = (StreamSchedule) {};
}

uint64_t stream_wire_time_ns(uint32_t frame_bytes, uint32_t n, uint32_t speed_mbps) {
        uint64_t bytes = frame_bytes < TBS_ETH_MIN_FRAME_BYTES ? TBS_ETH_MIN_FRAME_BYTES : frame_bytes;

        if (speed_mbps == 0)
                return 0;
        /* bits / (Mbit/s) = microseconds: ns = bytes * 8 * 1000 / speed */
        bytes = (bytes + TBS_ETH_WIRE_OVERHEAD_BYTES) * n;
        return (bytes * 8000 + speed_mbps - 1) / speed_mbps;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
        while (b != 0) {
                uint64_t t = a % b;
                a = b;
                b = t;
        }
        return a;
}

int stream_cycle_ns(const StreamSpec *streams, size_t n, uint64_t *ret) {
        uint64_t l = 1;

        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                uint64_t p = streams[i].period_ns, m;

                if (p == 0)
                        return -EINVAL;
                m = l / gcd64(l, p);
                if (m > UINT64_MAX / p) {
                        *ret = UINT64_MAX;
                        return -ERANGE;
                }
                l = m * p;
                if (l > TBS_STREAM_MAX_CYCLE_NS) {
                        *ret = l;
                        return -ERANGE;
                }
        }
        *ret = l;
        return 0;
}

_printf_(2, 3) static int fail(char **ret_error, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(ret_error, fmt, ap) < 0)
                *ret_error = NULL;
        va_end(ap);
        return 0;
}

/* The windows placed so far, kept sorted by start. They never overlap,
 * so their ends are sorted too and an overlap is one binary search away:
 * a linear scan per check made 80 streams of 3951 windows cost 170
 * million instructions (bench/streams-doc.py). */
typedef struct Placer {
        const StreamSpec *streams;
        StreamWindow *windows;
        size_t n_windows;
        uint64_t cycle_ns;
        uint64_t checks;                      /* overlap checks made, against TBS_STREAM_MAX_PLACEMENT_CHECKS */
} Placer;

/* The placed window with the lowest start that overlaps [start, start+len), or NULL. */
static const StreamWindow *placer_overlap(Placer *pl, uint64_t start, uint64_t len) {
        size_t lo = 0, hi = pl->n_windows;

        pl->checks++;
        /* the first window that ends after start */
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const StreamWindow *w = &pl->windows[mid];

                if (w->start_ns + w->length_ns <= start)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo < pl->n_windows && pl->windows[lo].start_ns < start + len)
                return &pl->windows[lo];
        return NULL;
}

/* Whether every occurrence of a stream of this period and window at
 * offset is free; *ret_hit gets the first window in the way. */
static bool placer_fits(Placer *pl, uint64_t period, uint64_t window, uint64_t offset,
                        const StreamWindow **ret_hit, uint64_t *ret_at) {
        for (uint64_t t = offset; t < pl->cycle_ns; t += period) {
                const StreamWindow *w = placer_overlap(pl, t, window);

                if (w) {
                        *ret_hit = w;
                        *ret_at = t;
                        return false;
                }
        }
        return true;
}

static bool placer_over_budget(const Placer *pl) {
        return pl->checks > TBS_STREAM_MAX_PLACEMENT_CHECKS;
}

/* Add the stream's occurrences, which placer_fits() found free: merged
 * from the back into the sorted array (it has room for every occurrence
 * of the cycle). */
static int placer_add(Placer *pl, size_t stream, uint64_t period, uint64_t window, uint64_t offset) {
        size_t k = (size_t) ((pl->cycle_ns - offset + period - 1) / period), i = pl->n_windows, j = k, out;
        _cleanup_free_ StreamWindow *add = malloc(k * sizeof(StreamWindow));

        if (!add)
                return -ENOMEM;
        for (size_t x = 0; x < k; x++)
                add[x] = (StreamWindow) { .stream = stream, .start_ns = offset + x * period, .length_ns = window };
        out = i + k;
        while (j > 0) {
                if (i > 0 && pl->windows[i - 1].start_ns > add[j - 1].start_ns)
                        pl->windows[--out] = pl->windows[--i];
                else
                        pl->windows[--out] = add[--j];
        }
        pl->n_windows += k;
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Sort a[0..n) that is made of ascending runs (the placed windows' ends
 * modulo a period: one run per period of the cycle) by merging neighbour
 * runs until one is left; tmp has room for n. O(n log runs), where qsort()
 * took 60 % of the whole computation. */
static void sort_runs_u64(uint64_t *a, size_t n, uint64_t *tmp) {
        for (;;) {
                size_t out = 0, i = 0, merged = 0;

                while (i < n) {
                        size_t m = i + 1, e;

                        while (m < n && a[m - 1] <= a[m])
                                m++;
                        e = m < n ? m + 1 : n;
                        while (e < n && a[e - 1] <= a[e])
                                e++;
                        /* merge [i, m) and [m, e) into tmp */
                        for (size_t x = i, y = m; x < m || y < e;)
                                tmp[out++] = y >= e || (x < m && a[x] <= a[y]) ? a[x++] : a[y++];
                        i = e;
                        merged++;
                }
                memcpy(a, tmp, n * sizeof(uint64_t));
                if (merged <= 1)
                        return;
        }
}

/* The earliest offset in the period where the stream's windows are all
 * free: 0 or where some placed window ends, taken modulo the period.
 * -ERANGE when the checks went past the bound first. */
static int place_auto(Placer *pl, size_t s, uint64_t window, uint64_t *ret_offset) {
        uint64_t period = pl->streams[s].period_ns;
        _cleanup_free_ uint64_t *cand = malloc(2 * (pl->n_windows + 1) * sizeof(uint64_t));
        size_t n = 0;

        if (!cand)
                return -ENOMEM;
        cand[n++] = 0;
        for (size_t i = 0; i < pl->n_windows; i++)
                cand[n++] = (pl->windows[i].start_ns + pl->windows[i].length_ns) % period;
        sort_runs_u64(cand, n, cand + pl->n_windows + 1);
        for (size_t i = 0; i < n; i++) {
                const StreamWindow *hit;
                uint64_t at;

                if (i > 0 && cand[i] == cand[i - 1])
                        continue;
                if (cand[i] + window > period)
                        break;
                if (placer_fits(pl, period, window, cand[i], &hit, &at)) {
                        *ret_offset = cand[i];
                        return 0;
                }
                if (placer_over_budget(pl))
                        return -ERANGE;
        }
        return -EBUSY;
}

/* A piece of the cycle: a window (of one class), or not (a guard band or
 * best effort); PTP's class may be a stream's, so the mask alone does not
 * tell a window from best effort. */
typedef struct Seg {
        uint64_t len;
        uint32_t mask;
        bool window;
} Seg;

static bool seg_same(const Seg *a, const Seg *b) {
        return a->mask == b->mask && a->window == b->window;
}

/* Cut the cycle at every window's start and end and every guard band's
 * start, give each piece its gates, and merge equal neighbours. */
static int build_segments(const StreamSchedule *s, const StreamSpec *streams, Seg **ret, size_t *ret_n) {
        size_t nb = 0, n = 0, wi = 0;
        _cleanup_free_ uint64_t *b = malloc((3 * s->n_windows + 2) * sizeof(uint64_t));
        _cleanup_free_ Seg *seg = NULL;

        if (!b)
                return -ENOMEM;
        b[nb++] = 0;
        b[nb++] = s->cycle_ns;
        for (size_t i = 0; i < s->n_windows; i++) {
                const StreamWindow *w = &s->windows[i];

                b[nb++] = w->start_ns;
                b[nb++] = w->start_ns + w->length_ns;
                b[nb++] = (w->start_ns + s->cycle_ns - s->guard_ns % s->cycle_ns) % s->cycle_ns;
        }
        qsort(b, nb, sizeof(uint64_t), cmp_u64);
        seg = calloc(nb, sizeof(Seg));
        if (!seg)
                return -ENOMEM;
        for (size_t i = 0; i + 1 < nb; i++) {
                uint64_t at = b[i], next_start;
                Seg piece = { .len = b[i + 1] - at };

                if (b[i + 1] == at)
                        continue;
                while (wi < s->n_windows && s->windows[wi].start_ns + s->windows[wi].length_ns <= at)
                        wi++;
                if (wi < s->n_windows && s->windows[wi].start_ns <= at) {
                        piece.mask = 1U << streams[s->windows[wi].stream].traffic_class;
                        piece.window = true;
                } else {
                        /* Only the next window's guard band can cover this piece. */
                        next_start = wi < s->n_windows ? s->windows[wi].start_ns
                                                       : s->windows[0].start_ns + s->cycle_ns;
                        piece.mask = next_start - at <= s->guard_ns ? 0 : s->be_mask;
                }
                if (n > 0 && seg_same(&seg[n - 1], &piece))
                        seg[n - 1].len += piece.len;
                else
                        seg[n++] = piece;
        }
        *ret = TAKE_PTR(seg);
        *ret_n = n;
        return 0;
}

static void seg_remove(Seg *seg, size_t *n, size_t i) {
        memmove(&seg[i], &seg[i + 1], (*n - i - 1) * sizeof(Seg));
        (*n)--;
}

/* Make every piece at least min_ns long. A short piece joins the next one
 * (a short best-effort gap becomes part of the next guard band, a guard
 * band cut short by a window before it opens the next window early): the
 * best-effort gates are only ever closed longer, never opened. The last
 * piece joins the one before; a guard band there takes time from the
 * best-effort piece before it instead. */
static void enforce_min(Seg *seg, size_t *n, uint64_t min_ns) {
        bool changed = true;

        while (changed && *n > 1) {
                changed = false;
                for (size_t i = 0; i < *n; i++) {
                        if (seg[i].len >= min_ns)
                                continue;
                        changed = true;
                        if (i + 1 < *n) {
                                seg[i + 1].len += seg[i].len;
                                seg_remove(seg, n, i);
                        } else if (seg[i].mask == 0 && !seg[i - 1].window &&
                                   seg[i - 1].len >= 2 * min_ns - seg[i].len) {
                                seg[i - 1].len -= min_ns - seg[i].len;
                                seg[i].len = min_ns;
                        } else if (seg[i].mask == 0 && !seg[i - 1].window) {
                                seg[i].len += seg[i - 1].len;
                                seg_remove(seg, n, i - 1);
                        } else {
                                seg[i - 1].len += seg[i].len;
                                seg_remove(seg, n, i);
                        }
                        /* Joined pieces may now equal a neighbour. */
                        for (size_t j = 1; j < *n; j++)
                                if (seg_same(&seg[j], &seg[j - 1])) {
                                        seg[j - 1].len += seg[j].len;
                                        seg_remove(seg, n, j);
                                        j--;
                                }
                        break;
                }
        }
}

static int check_streams(const StreamSpec *streams, size_t n, const StreamScheduleParams *pa, char **ret_error) {
        if (pa->link_speed_mbps == 0)
                return fail(ret_error, "the link speed is not known (give link_speed_mbps)"), -EINVAL;
        if (pa->num_tc == 0 || pa->num_tc > TBS_MAX_TC || pa->ptp_tc >= pa->num_tc)
                return fail(ret_error, "PTP's traffic class %u is not one of the %u classes",
                            pa->ptp_tc, pa->num_tc), -EINVAL;
        if (n == 0)
                return fail(ret_error, "no streams"), -EINVAL;
        for (size_t i = 0; i < n; i++) {
                const StreamSpec *s = &streams[i];

                if (s->traffic_class >= pa->num_tc)
                        return fail(ret_error, "stream \"%s\": traffic class %u, but the root has %u classes",
                                    s->name, s->traffic_class, pa->num_tc), -EINVAL;
                if (s->period_ns == 0 || s->frames_per_period == 0 || s->max_frame_bytes == 0)
                        return fail(ret_error, "stream \"%s\": period, frames and frame size must be above 0",
                                    s->name), -EINVAL;
                if (s->offset_given && s->offset_ns >= s->period_ns)
                        return fail(ret_error, "stream \"%s\": offset %" PRIu32 " ns is not inside its period "
                                    "of %" PRIu32 " ns", s->name, s->offset_ns, s->period_ns), -EINVAL;
                for (size_t j = 0; j < i; j++)
                        if (strcmp(streams[j].name, s->name) == 0)
                                return fail(ret_error, "two streams are named \"%s\"", s->name), -EINVAL;
        }
        return 0;
}

/* Fixed offsets first (in the order given), then the others by period. */
static int cmp_order(const void *a, const void *b, void *userdata) {
        const StreamSpec *st = userdata;
        size_t x = *(const size_t *) a, y = *(const size_t *) b;

        if (st[x].offset_given != st[y].offset_given)
                return st[x].offset_given ? -1 : 1;
        if (!st[x].offset_given && st[x].period_ns != st[y].period_ns)
                return st[x].period_ns < st[y].period_ns ? -1 : 1;
        return x < y ? -1 : x > y;
}

static int place_all(Placer *pl, size_t n, StreamSchedule *r, char **ret_error) {
        _cleanup_free_ size_t *order = malloc(n * sizeof(size_t));

        if (!order)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                order[i] = i;
        qsort_r(order, n, sizeof(size_t), cmp_order, (void *) pl->streams);
        for (size_t k = 0; k < n; k++) {
                size_t i = order[k];
                const StreamSpec *s = &pl->streams[i];
                uint64_t off;
                int q;

                if (s->offset_given) {
                        const StreamWindow *hit;
                        uint64_t at;

                        off = s->offset_ns;
                        if (!placer_fits(pl, s->period_ns, r->window_ns[i], off, &hit, &at)) {
                                uint64_t from = at > hit->start_ns ? at : hit->start_ns;
                                uint64_t end_a = at + r->window_ns[i], end_b = hit->start_ns + hit->length_ns;

                                fail(ret_error, "streams \"%s\" and \"%s\" overlap at %" PRIu64 " ns of the "
                                     "cycle, for %" PRIu64 " ns", pl->streams[hit->stream].name, s->name, from,
                                     (end_a < end_b ? end_a : end_b) - from);
                                return -EBUSY;
                        }
                } else {
                        q = place_auto(pl, i, r->window_ns[i], &off);
                        if (q == -ERANGE)
                                fail(ret_error, "placing stream \"%s\" took more than %d checks of the windows "
                                     "already placed, the bound of the computation: give streams offset_ns, "
                                     "or fewer streams or occurrences", s->name, TBS_STREAM_MAX_PLACEMENT_CHECKS);
                        if (q == -EBUSY)
                                fail(ret_error, "stream \"%s\": no free time of %" PRIu64 " ns in its period of "
                                     "%" PRIu32 " ns (the other streams' windows are in the way)", s->name,
                                     r->window_ns[i], s->period_ns);
                        if (q < 0)
                                return q;
                }
                r->offsets_ns[i] = (uint32_t) off;
                q = placer_add(pl, i, s->period_ns, r->window_ns[i], off);
                if (q < 0)
                        return q;
        }
        return 0;
}

int stream_schedule_compute(const StreamSpec *streams, size_t n, const StreamScheduleParams *pa,
                            StreamSchedule *ret, char **ret_error) {
        _cleanup_(stream_schedule_done) StreamSchedule r = {};
        _cleanup_free_ Seg *seg = NULL;
        uint64_t occurrences = 0, used = 0, be_longest = 0, frame_ns;
        uint32_t stream_classes = 0;
        size_t nseg;
        Placer pl;
        int q;

        *ret_error = NULL;
        q = check_streams(streams, n, pa, ret_error);
        if (q < 0)
                return q;
        q = stream_cycle_ns(streams, n, &r.cycle_ns);
        if (q < 0) {
                if (r.cycle_ns == UINT64_MAX)
                        fail(ret_error, "the cycle (least common multiple of the periods) is above 2^64 ns, "
                             "the limit is %d ns", TBS_STREAM_MAX_CYCLE_NS);
                else
                        fail(ret_error, "the cycle (least common multiple of the periods) would be %" PRIu64
                             " ns, the limit is %d ns", r.cycle_ns, TBS_STREAM_MAX_CYCLE_NS);
                return q;
        }
        for (size_t i = 0; i < n; i++)
                occurrences += r.cycle_ns / streams[i].period_ns;
        if (occurrences > TBS_STREAM_MAX_OCCURRENCES)
                return fail(ret_error, "the streams occur %" PRIu64 " times in the cycle of %" PRIu64 " ns, "
                            "at most %d are taken", occurrences, r.cycle_ns, TBS_STREAM_MAX_OCCURRENCES), -ERANGE;

        r.offsets_ns = calloc(n, sizeof(uint32_t));
        r.window_ns = calloc(n, sizeof(uint64_t));
        r.windows = calloc(occurrences, sizeof(StreamWindow));
        if (!r.offsets_ns || !r.window_ns || !r.windows)
                return -ENOMEM;

        for (size_t i = 0; i < n; i++) {
                const StreamSpec *s = &streams[i];
                uint64_t w = stream_wire_time_ns(s->max_frame_bytes, s->frames_per_period, pa->link_speed_mbps);

                if (w < pa->min_interval_ns)
                        w = pa->min_interval_ns;
                r.window_ns[i] = w;
                used += w * (r.cycle_ns / s->period_ns);
                stream_classes |= 1U << s->traffic_class;
        }
        r.utilisation_ppm = (uint32_t) (used > r.cycle_ns * 4000 ? UINT32_MAX
                                        : (used * 1000000 + r.cycle_ns - 1) / r.cycle_ns);
        if (used > r.cycle_ns)
                return fail(ret_error, "the streams' windows take %.1f %% of the cycle of %" PRIu64 " ns "
                            "(above 100 %% at %" PRIu32 " Mbit/s)", (double) used * 100.0 / (double) r.cycle_ns,
                            r.cycle_ns, pa->link_speed_mbps), -ENOSPC;
        for (size_t i = 0; i < n; i++)
                if (streams[i].offset_given && streams[i].offset_ns + r.window_ns[i] > streams[i].period_ns)
                        return fail(ret_error, "stream \"%s\": its window of %" PRIu64 " ns from offset %" PRIu32
                                    " ns ends past its period of %" PRIu32 " ns", streams[i].name,
                                    r.window_ns[i], streams[i].offset_ns, streams[i].period_ns), -EINVAL;

        pl = (Placer) { .streams = streams, .windows = r.windows, .cycle_ns = r.cycle_ns };
        q = place_all(&pl, n, &r, ret_error);
        if (q < 0)
                return q;
        r.n_windows = pl.n_windows;   /* sorted by start already */

        r.be_mask = (((1U << pa->num_tc) - 1) & ~stream_classes) | 1U << pa->ptp_tc;
        frame_ns = stream_wire_time_ns(pa->guard_frame_bytes, 1, pa->link_speed_mbps);
        r.guard_ns = frame_ns > pa->min_interval_ns ? frame_ns : pa->min_interval_ns;
        q = build_segments(&r, streams, &seg, &nseg);
        if (q < 0)
                return q;
        if (pa->min_interval_ns > 0)
                enforce_min(seg, &nseg, pa->min_interval_ns);
        for (size_t i = 0; i < nseg; i++)
                if (!seg[i].window && seg[i].mask == r.be_mask && seg[i].len > be_longest)
                        be_longest = seg[i].len;
        if (be_longest < frame_ns)
                return fail(ret_error, "the streams leave no best-effort time of %" PRIu64 " ns (one frame of "
                            "%" PRIu32 " bytes) in the cycle: PTP's class %u would never open",
                            frame_ns, pa->guard_frame_bytes, pa->ptp_tc), -ENOSPC;

        r.entries = calloc(nseg, sizeof(GateEntry));
        if (!r.entries)
                return -ENOMEM;
        /* The gate list: neighbours with the same gates are one entry. */
        for (size_t i = 0; i < nseg; i++)
                if (r.n_entries > 0 && r.entries[r.n_entries - 1].gate_mask == seg[i].mask)
                        r.entries[r.n_entries - 1].interval_ns += (uint32_t) seg[i].len;
                else
                        r.entries[r.n_entries++] = (GateEntry) { .command = GATE_SET_GATES,
                                                                 .gate_mask = seg[i].mask,
                                                                 .interval_ns = (uint32_t) seg[i].len };
        *ret = r;
        r = (StreamSchedule) {};
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PHC - CLOCK_TAI measurements; see phc-offset.h for the method and the
 * REALTIME-to-TAI conversion. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "phc-offset.h"
#include "saturate.h"
#include "string-table.h"

#define NSEC_PER_SEC 1000000000LL

struct PhcClock {
        int fd;
        phc_ioctl_fn ioctl_fn;
        void *userdata;
        bool unsupported[_PHC_OFFSET_METHOD_MAX];
        PhcOffsetMethod method;               /* last that worked */
};

static const char *const method_table[_PHC_OFFSET_METHOD_MAX] = {
        [PHC_OFFSET_PRECISE] = "precise",
        [PHC_OFFSET_EXTENDED] = "extended",
        [PHC_OFFSET_BASIC] = "basic",
};

DEFINE_STRING_TABLE_TO_STRING(phc_offset_method, PhcOffsetMethod, method_table)

/* ptp_clock_time -> ns since the epoch; false for nsec out of range or a
 * time that does not fit in int64_t ns (about year 2262): such a sample is
 * unusable, not a huge offset. */
static bool pct_to_ns(const struct ptp_clock_time *t, int64_t *ret) {
        int64_t ns;

        if (t->nsec >= NSEC_PER_SEC)
                return false;
        if (__builtin_mul_overflow(t->sec, NSEC_PER_SEC, &ns) ||
            __builtin_add_overflow(ns, (int64_t) t->nsec, &ns))
                return false;
        *ret = ns;
        return true;
}

/* phc - (sys + tai_offset_s), saturated: the offset of a PHC that is wildly
 * off is a huge number, never a wrapped-around small one. */
static int64_t phc_minus_tai(int64_t phc, int64_t sys, int32_t tai_offset_s) {
        return i64_sat_sub(phc, i64_sat_add(sys, (int64_t) tai_offset_s * NSEC_PER_SEC));
}

int phc_offset_from_precise(const struct ptp_sys_offset_precise *p, int32_t tai_offset_s, PhcOffset *ret) {
        int64_t dev, sys;

        if (!pct_to_ns(&p->device, &dev) || !pct_to_ns(&p->sys_realtime, &sys))
                return -EINVAL;

        *ret = (PhcOffset) {
                .offset_ns = phc_minus_tai(dev, sys, tai_offset_s),
                .window_ns = 0,
                .method = PHC_OFFSET_PRECISE,
        };
        return 0;
}

/* Among n samples (before[i], phc[i], after[i]) take the one with the
 * shortest non-negative system-clock window and compute its offset. */
static int pick_shortest(const struct ptp_clock_time *const *before,
                         const struct ptp_clock_time *const *phc,
                         const struct ptp_clock_time *const *after,
                         unsigned n, int32_t tai_offset_s, PhcOffsetMethod method, PhcOffset *ret) {
        bool found = false;
        int64_t best_window = 0, best_offset = 0;

        for (unsigned i = 0; i < n; i++) {
                int64_t t1, tp, t2;

                if (!pct_to_ns(before[i], &t1) || !pct_to_ns(phc[i], &tp) || !pct_to_ns(after[i], &t2))
                        continue;
                if (t2 < t1)
                        continue;

                int64_t window = i64_sat_sub(t2, t1);
                if (found && window >= best_window)
                        continue;

                found = true;
                best_window = window;
                best_offset = phc_minus_tai(tp, i64_sat_add(t1, window / 2), tai_offset_s);
        }
        if (!found)
                return -EINVAL;

        *ret = (PhcOffset) {
                .offset_ns = best_offset,
                .window_ns = best_window,
                .method = method,
        };
        return 0;
}

int phc_offset_from_extended(const struct ptp_sys_offset_extended *p, int32_t tai_offset_s, PhcOffset *ret) {
        const struct ptp_clock_time *b[PTP_MAX_SAMPLES], *c[PTP_MAX_SAMPLES], *a[PTP_MAX_SAMPLES];

        if (p->n_samples == 0 || p->n_samples > PTP_MAX_SAMPLES)
                return -EINVAL;
        for (unsigned i = 0; i < p->n_samples; i++) {
                b[i] = &p->ts[i][0];
                c[i] = &p->ts[i][1];
                a[i] = &p->ts[i][2];
        }
        return pick_shortest(b, c, a, p->n_samples, tai_offset_s, PHC_OFFSET_EXTENDED, ret);
}

int phc_offset_from_basic(const struct ptp_sys_offset *p, int32_t tai_offset_s, PhcOffset *ret) {
        const struct ptp_clock_time *b[PTP_MAX_SAMPLES], *c[PTP_MAX_SAMPLES], *a[PTP_MAX_SAMPLES];

        if (p->n_samples == 0 || p->n_samples > PTP_MAX_SAMPLES)
                return -EINVAL;
        for (unsigned i = 0; i < p->n_samples; i++) {
                b[i] = &p->ts[2 * i];
                c[i] = &p->ts[2 * i + 1];
                a[i] = &p->ts[2 * i + 2];
        }
        return pick_shortest(b, c, a, p->n_samples, tai_offset_s, PHC_OFFSET_BASIC, ret);
}

static int64_t timespec_ns(const struct timespec *ts) {
        return i64_sat_add(i64_sat_mul(ts->tv_sec, NSEC_PER_SEC), ts->tv_nsec);
}

int32_t tai_offset_from_readings(const struct timespec *rt_before, const struct timespec *tai,
                                 const struct timespec *rt_after) {
        int64_t b = timespec_ns(rt_before), a = timespec_ns(rt_after), t = timespec_ns(tai);
        int64_t d = i64_sat_sub(t, i64_sat_add(b, i64_sat_sub(a, b) / 2));

        /* round to the nearest second, halves away from zero */
        d = i64_sat_add(d, d < 0 ? -NSEC_PER_SEC / 2 : NSEC_PER_SEC / 2) / NSEC_PER_SEC;
        return d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : (int32_t) d;
}

int tai_offset_read(int32_t *ret_s) {
        struct timespec b, t, a;

        /* CLOCK_TAI minus CLOCK_REALTIME is the kernel's TAI offset. Reading
         * it this way needs no adjtimex call, which the service's sandbox
         * (ProtectClock=) forbids even for reading. */
        if (clock_gettime(CLOCK_REALTIME, &b) < 0 || clock_gettime(CLOCK_TAI, &t) < 0 ||
            clock_gettime(CLOCK_REALTIME, &a) < 0)
                return negative_errno();
        *ret_s = tai_offset_from_readings(&b, &t, &a);
        return 0;
}

static int real_ioctl(int fd, unsigned long request, void *arg, void *userdata) {
        if (ioctl(fd, request, arg) < 0)
                return negative_errno();
        return 0;
}

int phc_clock_new_fd(int fd, phc_ioctl_fn fn, void *userdata, PhcClock **ret) {
        PhcClock *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;

        c->fd = fd;
        c->ioctl_fn = fn ?: real_ioctl;
        c->userdata = userdata;
        c->method = _PHC_OFFSET_METHOD_INVALID;
        *ret = c;
        return 0;
}

int phc_clock_open(int phc_index, PhcClock **ret) {
        char path[32];
        int r;

        if (phc_index < 0)
                return -EINVAL;

        snprintf(path, sizeof(path), "/dev/ptp%d", phc_index);
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();

        r = phc_clock_new_fd(fd, NULL, NULL, ret);
        if (r < 0)
                return r;
        TAKE_FD(fd);
        return 0;
}

PhcClock *phc_clock_free(PhcClock *c) {
        if (!c)
                return NULL;
        if (c->fd >= 0)
                close(c->fd);
        free(c);
        return NULL;
}

PhcOffsetMethod phc_clock_method(const PhcClock *c) {
        return c->method;
}

static bool is_unsupported(int r) {
        return r == -EOPNOTSUPP || r == -ENOTTY || r == -EINVAL;
}

static int try_method(PhcClock *c, PhcOffsetMethod m, int32_t tai_offset_s, unsigned n_samples, PhcOffset *ret) {
        int r;

        switch (m) {
        case PHC_OFFSET_PRECISE: {
                struct ptp_sys_offset_precise p = {};
                r = c->ioctl_fn(c->fd, PTP_SYS_OFFSET_PRECISE, &p, c->userdata);
                if (r < 0)
                        return r;
                return phc_offset_from_precise(&p, tai_offset_s, ret) < 0 ? -EBADMSG : 0;
        }
        case PHC_OFFSET_EXTENDED: {
                struct ptp_sys_offset_extended p = { .n_samples = n_samples };
                r = c->ioctl_fn(c->fd, PTP_SYS_OFFSET_EXTENDED, &p, c->userdata);
                if (r < 0)
                        return r;
                return phc_offset_from_extended(&p, tai_offset_s, ret) < 0 ? -EBADMSG : 0;
        }
        case PHC_OFFSET_BASIC: {
                struct ptp_sys_offset p = { .n_samples = n_samples };
                r = c->ioctl_fn(c->fd, PTP_SYS_OFFSET, &p, c->userdata);
                if (r < 0)
                        return r;
                return phc_offset_from_basic(&p, tai_offset_s, ret) < 0 ? -EBADMSG : 0;
        }
        default:
                return -EINVAL;
        }
}

int phc_clock_measure(PhcClock *c, int32_t tai_offset_s, unsigned n_samples, PhcOffset *ret) {
        if (n_samples == 0 || n_samples > PTP_MAX_SAMPLES)
                return -EINVAL;

        for (PhcOffsetMethod m = 0; m < _PHC_OFFSET_METHOD_MAX; m++) {
                PhcOffset o;
                int r;

                if (c->unsupported[m])
                        continue;

                r = try_method(c, m, tai_offset_s, n_samples, &o);
                if (r >= 0) {
                        c->method = m;
                        *ret = o;
                        return 0;
                }
                /* Only an ioctl the driver lacks moves on to the next method;
                 * an answer the arithmetic rejects is -EBADMSG. */
                if (!is_unsupported(r))
                        return r;
                c->unsupported[m] = true;
        }
        return -EOPNOTSUPP;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PHC minus CLOCK_TAI: how far a NIC's PTP hardware clock (/dev/ptpN) is
 * from the system's TAI clock.
 *
 * The kernel's PTP_SYS_OFFSET* ioctls pair PHC readings with CLOCK_REALTIME
 * readings (PRECISE also gives CLOCK_MONOTONIC_RAW, which tbsd does not use:
 * it has no fixed relation to TAI). CLOCK_TAI is CLOCK_REALTIME plus the
 * kernel's TAI offset (struct timex .tai), exactly, so
 *
 *   offset = phc - (realtime + tai_offset_s * 1e9)
 *
 * A positive offset means the PHC is ahead of CLOCK_TAI. The TAI offset is
 * read once per measurement; a leap second between the two reads would show
 * as a 1 s error for one check.
 *
 * Methods, tried in this order until one works, remembered per device:
 *   precise   PTP_SYS_OFFSET_PRECISE, a hardware cross time stamp
 *   extended  PTP_SYS_OFFSET_EXTENDED, the sample with the shortest
 *             system-clock window (t_sys_after - t_sys_before); the PHC is
 *             taken to be read at the window's middle
 *   basic     PTP_SYS_OFFSET, same selection over sys/phc/sys triples
 *
 * The arithmetic is in pure functions (phc_offset_from_*) so recorded ioctl
 * answers can be replayed; the ioctl itself goes through a phc_ioctl_fn. */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <linux/ptp_clock.h>

#include "macro.h"

typedef enum PhcOffsetMethod {
        PHC_OFFSET_PRECISE,
        PHC_OFFSET_EXTENDED,
        PHC_OFFSET_BASIC,
        _PHC_OFFSET_METHOD_MAX,
        _PHC_OFFSET_METHOD_INVALID = -EINVAL,
} PhcOffsetMethod;

typedef struct PhcOffset {
        int64_t offset_ns;                    /* PHC - CLOCK_TAI, ns */
        int64_t window_ns;                    /* system-clock window of the sample used; 0 for precise */
        PhcOffsetMethod method;
} PhcOffset;

/** "precise", "extended", "basic"; NULL for an invalid value. */
const char *phc_offset_method_to_string(PhcOffsetMethod m);

/** Offset from a PTP_SYS_OFFSET_PRECISE answer: device - (sys_realtime + tai_offset_s).
 *  Returns 0 and *ret (window_ns 0); -EINVAL for a time with nsec >= 1e9. */
int phc_offset_from_precise(const struct ptp_sys_offset_precise *p, int32_t tai_offset_s, PhcOffset *ret);

/** Offset from a PTP_SYS_OFFSET_EXTENDED answer: among the n_samples
 *  [sys_before, phc, sys_after] triples, the one with the shortest
 *  non-negative window; offset = phc - (before + window / 2) - tai_offset_s.
 *  Returns 0 and *ret; -EINVAL when n_samples is 0 or > PTP_MAX_SAMPLES or
 *  no sample is valid (nsec >= 1e9, a time beyond int64_t ns, or
 *  sys_after < sys_before). Offsets saturate at INT64_MIN/INT64_MAX. */
int phc_offset_from_extended(const struct ptp_sys_offset_extended *p, int32_t tai_offset_s, PhcOffset *ret);

/** Offset from a PTP_SYS_OFFSET answer (ts[] = sys, phc, sys, phc, ..., sys:
 *  2 * n_samples + 1 times), selecting as phc_offset_from_extended() does.
 *  Returns 0 and *ret; -EINVAL as phc_offset_from_extended(). */
int phc_offset_from_basic(const struct ptp_sys_offset *p, int32_t tai_offset_s, PhcOffset *ret);

/** Read the kernel's TAI offset (CLOCK_TAI - CLOCK_REALTIME, s) from
 *  CLOCK_REALTIME and CLOCK_TAI readings (tai_offset_from_readings()), which
 *  the kernel keeps exactly that many whole seconds apart. Not with the
 *  adjtimex system call: systemd's ProtectClock=yes forbids it, reads
 *  included.
 *  Returns 0 and *ret_s (0 means "never set"); -errno on failure. */
int tai_offset_read(int32_t *ret_s);

/** The TAI offset from a CLOCK_REALTIME reading, a CLOCK_TAI reading and a
 *  second CLOCK_REALTIME reading: tai - (before + after) / 2, rounded to
 *  whole seconds (s), clamped to the int32_t range. */
int32_t tai_offset_from_readings(const struct timespec *rt_before, const struct timespec *tai,
                                 const struct timespec *rt_after);

/** The seam for the ioctls: behaves as ioctl(fd, request, arg) but returns
 *  0 or -errno. */
typedef int (*phc_ioctl_fn)(int fd, unsigned long request, void *arg, void *userdata);

typedef struct PhcClock PhcClock;

/** Open /dev/ptp<phc_index> read-only.
 *  Returns 0 and *ret; -EINVAL for a negative index; -errno from open(). */
int phc_clock_open(int phc_index, PhcClock **ret);

/** A PhcClock on an already open fd (owned from then on; may be -1 for
 *  tests) whose ioctls go through fn. Returns 0 and *ret, or -ENOMEM. */
int phc_clock_new_fd(int fd, phc_ioctl_fn fn, void *userdata, PhcClock **ret);

/** Close and free. Accepts NULL; returns NULL. */
PhcClock *phc_clock_free(PhcClock *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(PhcClock *, phc_clock_free);

/** Measure PHC - CLOCK_TAI with the best method the device supports
 *  (PRECISE, EXTENDED with n_samples, BASIC with n_samples; a method the
 *  driver refuses with EOPNOTSUPP, ENOTTY or EINVAL is not tried again).
 *  n_samples: 1..PTP_MAX_SAMPLES for EXTENDED and BASIC.
 *  Returns 0 and *ret; -EOPNOTSUPP when no method works; -errno from the
 *  ioctl otherwise; -EBADMSG for an answer the arithmetic rejects; -EINVAL
 *  for n_samples out of range. */
int phc_clock_measure(PhcClock *c, int32_t tai_offset_s, unsigned n_samples, PhcOffset *ret);

/** The method that worked last, or _PHC_OFFSET_METHOD_INVALID before that. */
PhcOffsetMethod phc_clock_method(const PhcClock *c);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A taprio gate list computed from streams (docs/streams.md): pure
 * arithmetic, no I/O, no logging.
 *
 * Frame sizes: max_frame_bytes is the frame as a sender hands it to the
 * kernel, from the destination address to the end of the payload (the
 * 14-byte header and any 4-byte VLAN tag included, the FCS not). On the
 * wire each frame also takes TBS_ETH_WIRE_OVERHEAD_BYTES (preamble 7, SFD 1,
 * FCS 4, inter-frame gap 12) and is padded to at least TBS_ETH_MIN_FRAME_BYTES.
 *
 * The cycle is the least common multiple of the periods. Each occurrence of
 * a stream gets a window that opens only its traffic class, long enough
 * for its frames; before each window a guard band of one largest frame of
 * the other classes closes the best-effort gates; all remaining time opens
 * the best-effort classes (the classes no stream uses, and PTP's class). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "schedule.h"

#define TBS_ETH_WIRE_OVERHEAD_BYTES 24      /* preamble 7 + SFD 1 + FCS 4 + inter-frame gap 12 */
#define TBS_ETH_MIN_FRAME_BYTES 60          /* shorter frames are padded (64 with the FCS) */
#define TBS_ETH_MAX_FRAME_BYTES 65535       /* largest max_frame_bytes taken (jumbo frames, GSO) */
/* Largest frame of the other classes by default: 1500 bytes of payload,
 * the 14-byte header and a VLAN tag (no FCS, see above). */
#define TBS_STREAM_DEFAULT_GUARD_FRAME_BYTES 1518
/* The cycle's bound: the kernel's (TBS_TAPRIO_MAX_CYCLE_NS, about 2.147 s). */
#define TBS_STREAM_MAX_CYCLE_NS TBS_TAPRIO_MAX_CYCLE_NS
/* Stream occurrences per cycle the computation takes (the kernel's limit
 * on entries, TBS_TAPRIO_MAX_ENTRIES, is far lower and checked later). */
#define TBS_STREAM_MAX_OCCURRENCES 4096
/* Overlap checks (one binary search each) that placing the streams without
 * an offset may make: a bound on the computation any caller of Validate()
 * can start. 80 streams of 3951 windows, all placed (bench/streams-doc.py),
 * take 7 111; a file made so that every candidate offset fails late (four
 * fixed streams every 20 us, one more every 20.025 us) takes 305 488 and
 * is refused. */
#define TBS_STREAM_MAX_PLACEMENT_CHECKS (1 << 18)
#define TBS_STREAM_NAME_MAX 64             /* longest stream name, bytes */

/* What the computation needs besides the streams. */
typedef struct StreamScheduleParams {
        uint32_t link_speed_mbps;             /* > 0 */
        uint32_t guard_frame_bytes;           /* largest frame of the other classes (same definition) */
        uint8_t num_tc;                       /* 1..TBS_MAX_TC */
        uint8_t ptp_tc;                       /* PTP's class: opened with the best-effort classes */
        uint32_t min_interval_ns;             /* shortest entry (0: none); windows are made at least
                                               * this long, shorter gaps joined to a neighbour */
} StreamScheduleParams;

/* One occurrence of a stream in the cycle. */
typedef struct StreamWindow {
        size_t stream;                        /* index into the streams given */
        uint64_t start_ns;                    /* from the cycle's start */
        uint64_t length_ns;
} StreamWindow;

typedef struct StreamSchedule {
        uint64_t cycle_ns;
        GateEntry *entries;                   /* sum of intervals == cycle_ns */
        size_t n_entries;
        uint32_t *offsets_ns;                 /* per stream: its window's start in its period */
        uint64_t *window_ns;                  /* per stream: its window's length */
        StreamWindow *windows;                /* every occurrence, by start */
        size_t n_windows;
        uint32_t be_mask;                     /* the gates open outside windows and guard bands */
        uint64_t guard_ns;                    /* one guard band */
        uint32_t utilisation_ppm;             /* windows' share of the cycle, parts per million */
} StreamSchedule;

/** Free what a StreamSchedule owns (not the struct); it is zeroed. Accepts NULL. */
void stream_schedule_done(StreamSchedule *s);

/** Nanoseconds (rounded up) that n frames of frame_bytes (see above) take on
 *  the wire at speed_mbps, overhead and padding included. 0 when speed is 0. */
uint64_t stream_wire_time_ns(uint32_t frame_bytes, uint32_t n, uint32_t speed_mbps);

/** The least common multiple of the streams' periods in *ret (ns).
 *  Returns 0, -EINVAL for no streams or a zero period, -ERANGE when it is
 *  above TBS_STREAM_MAX_CYCLE_NS (*ret then holds a figure above the bound,
 *  or UINT64_MAX when even that overflowed). */
int stream_cycle_ns(const StreamSpec *streams, size_t n, uint64_t *ret);

/** Compute the gate list of the streams.
 *  Streams with offset_given keep their offset; the others are placed, the
 *  shortest period first (then in the order given), at the earliest time of
 *  their period where every occurrence's window is free.
 *  Returns 0 and *ret (release with stream_schedule_done()), or a negative
 *  errno with a one-line reason in *ret_error (malloc'ed; the caller frees):
 *  -EINVAL a stream or parameter that cannot work (zero speed, class out of
 *  range, window past its period), -ERANGE a cycle above the bound, too
 *  many occurrences or a placement of more than TBS_STREAM_MAX_PLACEMENT_CHECKS checks, -EBUSY two windows overlapping (both streams named,
 *  with the time) or no free time for a stream, -ENOSPC utilisation above
 *  100 % or no time left for the best-effort classes, -ENOMEM. */
int stream_schedule_compute(const StreamSpec *streams, size_t n, const StreamScheduleParams *params,
                            StreamSchedule *ret, char **ret_error);

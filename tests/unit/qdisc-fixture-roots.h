/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The recorded dumps of tests/unit/fixtures/qdisc/: a reader, and their
 * roots as RootSpecs, shared by the tests that build, plan or judge them.
 * Include after cmocka.h. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "macro.h"
#include "qdisc-tree.h"
#include "schedule.h"

/* The root of mqprio-etf.bin (mqprio-etf.tc.json). */
static const RootSpec mqprio_root = {
        .kind = ROOT_MQPRIO,
        .handle = 0x01000000,
        .num_tc = 3,
        .priority_map = { 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
        .queues = { { 1, 0 }, { 1, 1 }, { 2, 2 } },
};

static GateEntry taprio_entries[] = {
        { GATE_SET_GATES, 0x1, 300000 },
        { GATE_SET_GATES, 0x2, 300000 },
        { GATE_SET_GATES, 0x4, 400000 },
};

/* The root of taprio-txtime.bin (taprio-txtime.tc.json) with the given
 * cycle time (0: not given, the kernel sums the intervals). */
static inline RootSpec taprio_root_cycle(int64_t cycle_time_ns) {
        return (RootSpec) {
                .kind = ROOT_TAPRIO,
                .handle = 0x01000000,
                .num_tc = 3,
                .priority_map = { 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
                .queues = { { 1, 0 }, { 1, 1 }, { 2, 2 } },
                .taprio.clockid = CLOCK_TAI,
                .taprio.base_time_ns = 1000,
                .taprio.cycle_time_ns = cycle_time_ns,
                .taprio.mode = TAPRIO_MODE_TXTIME_ASSIST,
                .taprio.txtime_delay_ns = 200000,
                .taprio.entries = taprio_entries,
                .taprio.n_entries = ELEMENTSOF(taprio_entries),
        };
}

/* The whole file at path (malloc'ed; the test fails when it cannot be read). */
static inline void *read_fixture(const char *path, size_t *ret_len) {
        FILE *f = fopen(path, "re");
        uint8_t *buf;
        long n;

        assert_non_null(f);
        assert_int_equal(fseek(f, 0, SEEK_END), 0);
        n = ftell(f);
        assert_true(n > 0);
        rewind(f);
        buf = malloc((size_t) n);
        assert_non_null(buf);
        assert_int_equal(fread(buf, 1, (size_t) n, f), (size_t) n);
        fclose(f);
        *ret_len = (size_t) n;
        return buf;
}

/* The tree of the recorded veth (ifindex 3) in fixtures/qdisc/NAME. */
static inline void load_fixture_tree(const char *name, QDiscTree *ret) {
        char path[512];
        uint8_t *buf;
        size_t n;

        snprintf(path, sizeof(path), TBS_SOURCE_DIR "/tests/unit/fixtures/qdisc/%s", name);
        buf = read_fixture(path, &n);
        assert_int_equal(qdisc_tree_parse_dump(buf, n, 3, ret), 0);
        free(buf);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The handle pool (qdisc-tree.h, HandlePool): free qdisc majors of one
 * device, handed out to an apply's or a rollback's new qdiscs. */
#include <errno.h>
#include <linux/pkt_sched.h>
#include <stdint.h>
#include <string.h>

#include "qdisc-tree.h"

/* used[] is not cleared as a whole (8 KiB for each plan that hands out a
 * handle): a word counts only once its bit in filled[] is set, and is
 * zeroed when first written. */
static bool pool_word_filled(const HandlePool *p, uint32_t w) {
        return p->filled[w / 64] & (UINT64_C(1) << (w % 64));
}

static void pool_mark(HandlePool *p, uint32_t major) {
        uint32_t w = major / 64;

        if (!pool_word_filled(p, w)) {
                p->used[w] = 0;
                p->filled[w / 64] |= UINT64_C(1) << (w % 64);
        }
        p->used[w] |= UINT64_C(1) << (major % 64);
}

static bool pool_marked(const HandlePool *p, uint32_t major) {
        uint32_t w = major / 64;

        return pool_word_filled(p, w) && (p->used[w] & (UINT64_C(1) << (major % 64)));
}

/* Mark the majors in use: the tree's handles and the root's. */
static void pool_ready(HandlePool *p) {
        if (p->ready)
                return;
        memset(p->filled, 0, sizeof(p->filled));
        pool_mark(p, 0);                        /* 0: is no handle */
        pool_mark(p, 0xffff);                   /* ingress and clsact */
        if (p->root_major != 0)
                pool_mark(p, p->root_major);
        for (size_t i = 0; p->tree && i < p->tree->n_handles; i++)
                pool_mark(p, TC_H_MAJ(p->tree->handles[i]) >> 16);
        p->ready = true;
}

void handle_pool_init(HandlePool *p, const QDiscTree *tree, uint32_t root_handle) {
        uint32_t major = TC_H_MAJ(root_handle) >> 16;

        p->tree = tree;
        p->root_major = major;
        p->start = major + 1 < QDISC_HANDLE_AUTO_MAJOR ? major + 1 : 1;
        p->walked = 0;
        p->ready = false;               /* the map is filled on first use */
}

void handle_pool_reserve(HandlePool *p, uint32_t handle) {
        if (handle == 0 || handle == TC_H_ROOT)
                return;
        pool_ready(p);
        pool_mark(p, TC_H_MAJ(handle) >> 16);
}

/* The i-th major of the pool's order (i < QDISC_HANDLE_MAJOR_MAX): the
 * 7fff majors below the kernel's range from start around, then its range. */
static uint32_t pool_major_at(const HandlePool *p, uint32_t i) {
        const uint32_t low = QDISC_HANDLE_AUTO_MAJOR - 1;      /* 1: .. 7fff: */

        if (i < low)
                return 1 + (p->start - 1 + i) % low;
        return QDISC_HANDLE_AUTO_MAJOR + (i - low);
}

int handle_pool_next(HandlePool *p, uint32_t *ret) {
        pool_ready(p);
        for (; p->walked < QDISC_HANDLE_MAJOR_MAX; p->walked++) {
                uint32_t major = pool_major_at(p, p->walked);

                if (!pool_marked(p, major)) {
                        pool_mark(p, major);
                        p->walked++;
                        *ret = major << 16;
                        return 0;
                }
        }
        return -ENOSPC;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The arithmetic of a cyclic sender: the next launch time at a fixed offset
 * into the cycle. */
#include <errno.h>

#include "tbs-internal.h"

TBS_PUBLIC int tbs_next_launch_time(uint64_t base_ns, uint64_t cycle_ns, uint64_t offset_ns, uint64_t after_ns,
                                    uint64_t *ret_ns) {
        uint64_t first, k, t;

        if (!ret_ns || cycle_ns == 0 || offset_ns >= cycle_ns)
                return -EINVAL;
        if (__builtin_add_overflow(base_ns, offset_ns, &first))
                return -ERANGE;
        if (first > after_ns) {
                /* The base time (taprio's, say) is still ahead: its first cycle. */
                *ret_ns = first;
                return 0;
        }
        /* The cycles whose launch time is not later than after_ns, then one more. */
        k = (after_ns - first) / cycle_ns + 1;
        if (__builtin_mul_overflow(k, cycle_ns, &t) || __builtin_add_overflow(first, t, &t))
                return -ERANGE;
        *ret_ns = t;
        return 0;
}

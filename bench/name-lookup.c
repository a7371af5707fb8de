/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What tbsd spends resolving interface names a caller gives (issue 46):
 * N lookups of names no interface has (link_name_lookup(): one
 * RTM_GETLINK each, daemon/probe/link-name.c), then N of lo, timed with
 * CLOCK_MONOTONIC, best of 5 rounds. Needs no privileges and loads no
 * module. Usage: name-lookup [N] (default 1024). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "link-name.h"

static double round_ms(int n, int unknown) {
        struct timespec a, b;
        char name[16];

        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "zz%d", i);
                int r = link_name_lookup(unknown ? name : "lo", NULL);
                if (unknown ? r != -ENODEV : r <= 0) {
                        fprintf(stderr, "name-lookup: %s: unexpected answer %d\n", unknown ? name : "lo", r);
                        exit(1);
                }
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        return (double) (b.tv_sec - a.tv_sec) * 1e3 + (double) (b.tv_nsec - a.tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
        int n = argc > 1 ? atoi(argv[1]) : 1024;

        for (int unknown = 1; unknown >= 0; unknown--) {
                double best = 1e9;

                for (int k = 0; k < 5; k++) {
                        double t = round_ms(n, unknown);
                        if (t < best)
                                best = t;
                }
                printf("%d lookups of %s: %.2f ms (best of 5)\n", n, unknown ? "unknown names" : "lo", best);
        }
        return 0;
}

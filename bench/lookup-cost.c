/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Not a test: the per-interface lookups of a tbsd --once full apply, at N
 * interfaces, with the probe answered by a recording, for counting
 * instructions (issue 28):
 *   meson compile -C build bench/lookup-cost
 *   valgrind --tool=callgrind --callgrind-out-file=cg.N build/bench/lookup-cost N
 *   callgrind_annotate cg.N | head -30
 * Per interface, as the daemon does it: the folder's check asks its facts
 * (manager_facts_for: caps_cache_get), the sync finds no link by the name
 * and makes one, the apply asks its index (one_shot_ifindex_of:
 * caps_cache_ifindex_of) and its capabilities (caps_cache_get, cached);
 * then manager_free() frees every link. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "caps-cache.h"
#include "caps-replay.h"
#include "manager.h"

int main(int argc, char **argv) {
        int n = argc > 1 ? atoi(argv[1]) : 1024;
        Manager *m = calloc(1, sizeof(Manager));
        CapsCache *cache = NULL;
        Recording rec;
        CapsIO io;
        const LinkCaps *c;
        char (*names)[IFNAMSIZ] = calloc((size_t) n, IFNAMSIZ);
        long sum = 0;

        if (!m || !names || n <= 0)
                return 1;
        recording_load(&rec, "i210");
        io = recording_io(&rec);
        if (caps_cache_new(&io, &cache) < 0)
                return 1;
        for (int i = 0; i < n; i++)
                snprintf(names[i], IFNAMSIZ, "veth%d", i);

        for (int i = 0; i < n; i++) {           /* the folder's check */
                snprintf(rec.ifname, sizeof(rec.ifname), "%s", names[i]);
                if (caps_cache_get(cache, i + 2, names[i], &c) < 0)
                        return 1;
        }
        for (int i = 0; i < n; i++) {           /* the sync */
                Link *l = manager_find_link(m, names[i]);

                if (l || manager_new_link(m, names[i], &l) < 0)
                        return 1;
        }
        for (int i = 0; i < n; i++) {           /* the apply */
                int ifindex = caps_cache_ifindex_of(cache, names[i]);

                if (ifindex != i + 2 || caps_cache_get(cache, ifindex, names[i], &c) != 0)
                        return 1;
                sum += c->tx_queues;
        }
        manager_free(m);
        caps_cache_free(cache);
        free(names);
        printf("%d interfaces, %ld queues\n", n, sum);
        return 0;
}

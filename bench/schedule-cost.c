/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Not a test: reading N schedule files (bench/guest.sh's, one per
 * interface) with schedule_dir_load(), for counting instructions per file
 * (issue 28):
 *   meson compile -C build bench/schedule-cost
 *   valgrind --tool=callgrind --toggle-collect=schedule_dir_load \
 *     --callgrind-out-file=cg.N build/bench/schedule-cost N
 *   callgrind_annotate --inclusive=yes cg.N | head -40
 * (the count at 64 minus the count at 1, over 63: per file). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule-dir.h"

static const char text[] =
        "{\n"
        "  \"interface\": \"b%d\",\n"
        "  \"root\": {\n"
        "    \"qdisc\": \"mqprio\", \"handle\": \"100:\", \"num_tc\": 4,\n"
        "    \"priority_map\": [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],\n"
        "    \"queues\": [ {\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},\n"
        "                {\"count\": 1, \"offset\": 2}, {\"count\": 1, \"offset\": 3} ]\n"
        "  },\n"
        "  \"txqueues\": [\n"
        "    {\"queue\": 0, \"qdisc\": \"etf\", \"delta_ns\": 200000, \"offload\": false},\n"
        "    {\"queue\": 1, \"qdisc\": \"etf\", \"delta_ns\": 300000, \"offload\": false},\n"
        "    {\"queue\": 2, \"qdisc\": \"etf\", \"delta_ns\": 400000, \"offload\": false},\n"
        "    {\"queue\": 3, \"qdisc\": \"etf\", \"delta_ns\": 500000, \"offload\": false}\n"
        "  ],\n"
        "  \"allow\": [\"ptp-etf\"]\n"
        "}\n";

int main(int argc, char **argv) {
        int n = argc > 1 ? atoi(argv[1]) : 64;
        char dir[] = "/tmp/schedule-cost.XXXXXX", path[64];
        ScheduleDir d = {};
        int r;

        if (n <= 0 || !mkdtemp(dir))
                return 1;
        for (int i = 0; i < n; i++) {
                FILE *f;

                snprintf(path, sizeof(path), "%s/b%d.json", dir, i);
                f = fopen(path, "we");
                if (!f || fprintf(f, text, i) < 0 || fclose(f) != 0)
                        return 1;
        }
        /* Written just now, read at once: the stamps' quiet time does not
         * matter to schedule_dir_load(). */
        schedule_dir_allow_unsafe_files(true);
        r = schedule_dir_load(dir, NULL, NULL, &d);
        printf("%d files, load %d, %zu errors\n", n, r, r < 0 ? 0 : schedule_dir_errors(&d));
        if (r >= 0)
                schedule_dir_done(&d);
        for (int i = 0; i < n; i++) {
                snprintf(path, sizeof(path), "%s/b%d.json", dir, i);
                (void) unlink(path);
        }
        (void) rmdir(dir);
        return r < 0;
}

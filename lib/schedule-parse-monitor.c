/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The "monitor" key of an etf queue (txqueues[]): opt-in launch-time
 * monitoring, {"interval_ms": 1000, "frames": 4}, both optional. Internal
 * to lib/schedule-parse.c. */
#include "schedule-fields.h"

void parse_monitor(Parser *p, const char *path, const JsonNode *e, MonitorSpec *m) {
        static const KeySpec keys[] = {
                { "interval_ms", K_ANY },
                { "frames", K_ANY },
        };
        char mpath[JPATH_MAX];
        const JsonNode *o;
        int64_t x;

        o = get_container(p, path, e, "monitor", false, JSON_OBJECT);
        if (!o)
                return;
        jpath_key(mpath, path, "monitor");
        *m = (MonitorSpec) {
                .enabled = true,
                .interval_ms = TBS_MONITOR_INTERVAL_DEFAULT_MS,
                .frames = TBS_MONITOR_FRAMES_DEFAULT,
        };
        check_keys(p, mpath, o, keys, ELEMENTSOF(keys), K_ANY);
        if (get_int(p, mpath, o, "interval_ms", false, TBS_MONITOR_INTERVAL_MIN_MS, TBS_MONITOR_INTERVAL_MAX_MS,
                    &x) > 0)
                m->interval_ms = (uint32_t) x;
        if (get_int(p, mpath, o, "frames", false, TBS_MONITOR_FRAMES_MIN, TBS_MONITOR_FRAMES_MAX, &x) > 0)
                m->frames = (uint32_t) x;
}

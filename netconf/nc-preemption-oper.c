/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Describe()'s "mac_merge" and capabilities -> the preemption modules'
 * operational values (nc-preemption-oper.h). Describe() has "mac_merge"
 * null when the layer could not be read; its capabilities then say
 * "mac_merge": false when tbsd learnt the device has none (MM_GET
 * answered "not supported"). */
#include "nc-preemption-oper.h"

#include <json-c/json.h>
#include <string.h>

/* Describe()'s counter keys (lib/metrics-mac-merge.c) and the module's
 * leaves (802.3 30.14.1.8 to 30.14.1.13). */
static const char *const describe_counters[NC_MM_COUNTERS] = {
        "reassembly_errors", "smd_errors", "reassembly_ok", "rx_fragments", "tx_fragments", "hold",
};
const char *const nc_mm_counter_leaves[NC_MM_COUNTERS] = {
        "assembly-error-count", "smd-error-count", "assembly-ok-count",
        "fragment-count-rx", "fragment-count-tx", "hold-count",
};

static json_object *member(json_object *o, const char *key) {
        json_object *v;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* ethtool's verification states, as tbsd names them, are the module's. */
static const char *verify_status(json_object *v) {
        static const char *const known[] = { "unknown", "initial", "verifying", "succeeded", "failed", "disabled", NULL };
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;

        for (size_t i = 0; s && known[i]; i++)
                if (strcmp(s, known[i]) == 0)
                        return known[i];
        return NULL;
}

int nc_mm_oper_from_describe(const char *json, struct nc_mm_oper *o) {
        json_object *doc = json ? json_tokener_parse(json) : NULL;
        json_object *mm, *caps_mm, *active, *counters;

        *o = (struct nc_mm_oper) { 0 };
        if (!json_object_is_type(doc, json_type_object)) {
                json_object_put(doc);
                return -1;
        }
        mm = member(doc, "mac_merge");
        caps_mm = member(member(doc, "capabilities"), "mac_merge");
        if (json_object_is_type(mm, json_type_object)) {
                o->merge_support = "Supported";
                active = member(mm, "tx_active");
                if (json_object_is_type(active, json_type_boolean)) {
                        o->preemption_active = json_object_get_boolean(active) ? "true" : "false";
                        o->status_tx = json_object_get_boolean(active) ? "active" : "inactive";
                }
                o->verify_status = verify_status(member(mm, "verify_status"));
                counters = member(mm, "counters");
                for (unsigned i = 0; i < NC_MM_COUNTERS; i++) {
                        json_object *c = member(counters, describe_counters[i]);
                        if (json_object_is_type(c, json_type_int) && json_object_get_int64(c) >= 0) {
                                o->counters[i] = (uint64_t) json_object_get_int64(c);
                                o->counters_present |= 1U << i;
                        }
                }
        } else if (json_object_is_type(caps_mm, json_type_boolean) && !json_object_get_boolean(caps_mm)) {
                /* No layer: the MAC cannot preempt, which is known. */
                o->merge_support = "NotSupported";
                o->preemption_active = "false";
        }
        json_object_put(doc);
        return 0;
}

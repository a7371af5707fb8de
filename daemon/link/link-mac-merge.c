/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link's MAC merge layer around the apply (link-internal.h): read it,
 * refuse a device without one, set it, put it back when the tree's apply
 * fails; and in the drift check, whether it still has the file's
 * settings. The messages are daemon/probe/mac-merge.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "caps-probe.h"
#include "json-util.h"
#include "link-internal.h"
#include "log.h"
#include "metrics.h"

int link_mac_merge_prepare(Link *l, char **ret_line) {
        const MacMergeSpec *want = l->schedule ? &l->schedule->mac_merge : NULL;
        _cleanup_free_ char *why = NULL;
        char err[256] = "";
        int r;

        l->rt->mm_sent = false;
        if (!want || !want->configured)
                return 0;
        r = mac_merge_get(l->ifindex, &l->rt->mm_before, err, sizeof(err));
        if (r == 0 || r == -EOPNOTSUPP)
                l->rt->mm_layer = r == 0 ? MM_LAYER_PRESENT : MM_LAYER_ABSENT;
        if (r < 0) {
                if (mac_merge_refusal(r, err, &why) < 0 || asprintf(ret_line, "%s; nothing changed", why) < 0)
                        return -ENOMEM;
                return r;
        }
        r = mac_merge_set(l->ifindex, want, &l->rt->mm_before, err, sizeof(err));
        if (r < 0) {
                if (asprintf(ret_line, "mac_merge: the kernel refused the settings (ethtool netlink MM_SET: %s%s%s); "
                             "nothing changed", strerror(-r), err[0] ? ": " : "", err) < 0)
                        return -ENOMEM;
                return r;
        }
        l->rt->mm_sent = r > 0;
        if (r > 0)
                log_link_info(l->name, "mac_merge: set over ethtool netlink");
        return 0;
}

int link_mac_merge_finish(Link *l, int r, ApplyReport *report) {
        MacMergeSpec back;
        char err[256] = "";
        int k;

        if (!l->rt->mm_sent)
                return r;
        l->rt->mm_sent = false;
        if (r >= 0) {
                report->n_messages++;
                return r > 0 ? r : 1;
        }
        /* The tree's apply failed: the MAC merge layer as it was. */
        mac_merge_spec_from_state(&l->rt->mm_before, &back);
        k = mac_merge_set(l->ifindex, &back, NULL, err, sizeof(err));
        if (k < 0 && !report->rollback_error &&
            asprintf(&report->rollback_error, "mac_merge: putting the MAC merge layer back failed "
                     "(ethtool netlink MM_SET: %s%s%s)", strerror(-k), err[0] ? ": " : "", err) < 0)
                report->rollback_error = NULL;
        return r;
}

/* Appends ", NAME HAVE instead of WANT" (the first without the comma). */
static int add_difference(char **text, const char *name, const char *have, const char *want) {
        char *t;

        if (asprintf(&t, "%s%s%s %s instead of %s", *text ?: "", *text ? ", " : "", name, have, want) < 0)
                return -ENOMEM;
        free(*text);
        *text = t;
        return 0;
}

static int add_bool_difference(char **text, const char *name, bool have, bool want) {
        return have == want ? 0 : add_difference(text, name, have ? "true" : "false", want ? "true" : "false");
}

static int add_u32_difference(char **text, const char *name, uint32_t have, uint32_t want) {
        char h[16], w[16];

        if (want == 0 || have == want)
                return 0;       /* 0: the file leaves it to the device */
        snprintf(h, sizeof(h), "%" PRIu32, have);
        snprintf(w, sizeof(w), "%" PRIu32, want);
        return add_difference(text, name, h, w);
}

int link_mac_merge_drift(Link *l, char **ret_description) {
        const MacMergeSpec *want = l->schedule ? &l->schedule->mac_merge : NULL;
        _cleanup_free_ char *diff = NULL;
        MacMergeState have;
        char err[256] = "";
        bool pmac;
        int r;

        if (!want || !want->configured || l->ifindex <= 0)
                return 0;
        r = mac_merge_get(l->ifindex, &have, err, sizeof(err));
        if (r < 0) {
                /* Not judged: the next apply reads it again and says why. */
                log_link_debug(l->name, "mac_merge: not checked for drift (ethtool netlink MM_GET: %s%s%s)",
                               strerror(-r), err[0] ? ": " : "", err);
                return 0;
        }
        if (mac_merge_matches(want, &have))
                return 0;
        /* pmac_enabled as the apply sends it: given, or true with tx_enabled true. */
        pmac = want->pmac_given ? want->pmac_enabled : want->tx_given && want->tx_enabled;
        if ((want->tx_given && add_bool_difference(&diff, "tx_enabled", have.tx_enabled, want->tx_enabled) < 0) ||
            ((want->pmac_given || (want->tx_given && want->tx_enabled)) &&
             add_bool_difference(&diff, "pmac_enabled", have.pmac_enabled, pmac) < 0) ||
            (want->verify_given &&
             add_bool_difference(&diff, "verify_enabled", have.verify_enabled, want->verify_enabled) < 0) ||
            add_u32_difference(&diff, "verify_time_ms", have.verify_time_ms, want->verify_time_ms) < 0 ||
            add_u32_difference(&diff, "tx_min_frag_bytes", have.tx_min_frag_size, want->tx_min_frag_bytes) < 0)
                return -ENOMEM;
        if (!ret_description)
                return 1;
        if (asprintf(ret_description, "mac_merge: %s", diff ?: "other settings than declared") < 0) {
                *ret_description = NULL;
                return -ENOMEM;
        }
        return 1;
}

int link_mac_merge_read(Link *l, MacMergeState *ret) {
        int r;

        if (l->ifindex <= 0)
                return -ENODATA;
        if (l->rt->mm_layer == MM_LAYER_UNKNOWN && l->rt->caps && l->rt->caps->mac_merge >= 0)
                l->rt->mm_layer = l->rt->caps->mac_merge > 0 ? MM_LAYER_PRESENT : MM_LAYER_ABSENT;
        if (l->rt->mm_layer == MM_LAYER_UNKNOWN) {
                /* Once per device: on a kernel without MM_GET not even that
                 * (the family's command list, asked once per process). */
                r = mac_merge_probe(l->ifindex);
                if (r < 0)
                        return r;
                l->rt->mm_layer = r > 0 ? MM_LAYER_PRESENT : MM_LAYER_ABSENT;
        }
        /* A device without the layer is not asked at every status request
         * or metrics round. */
        if (l->rt->mm_layer != MM_LAYER_PRESENT)
                return -ENODATA;
        r = mac_merge_get(l->ifindex, ret, NULL, 0);
        if (r == -EOPNOTSUPP)
                l->rt->mm_layer = MM_LAYER_ABSENT;
        return r;
}

struct json_object *link_mac_merge_json(Link *l) {
        MacMergeState s;

        if (link_mac_merge_read(l, &s) < 0)
                return NULL;
        return mac_merge_state_to_json(&s);
}

void link_mac_merge_note_caps(Link *l, struct json_object *caps) {
        if (caps && l->rt->mm_layer != MM_LAYER_UNKNOWN)
                (void) json_add_made(caps, "mac_merge", json_object_new_boolean(l->rt->mm_layer == MM_LAYER_PRESENT));
}

void link_mac_merge_metrics(Link *l, MetricsLink *ret) {
        MacMergeState s;

        ret->has_mac_merge = false;
        if (link_mac_merge_read(l, &s) < 0)
                return;
        ret->has_mac_merge = true;
        ret->mac_merge = (MetricsMacMerge) {
                .tx_enabled = s.tx_enabled,
                .tx_active = s.tx_active,
                .verify_status = s.verify_status,
                .has_counters = s.stats_present,
        };
        /* The same order: MacMergeStat and MetricsMacMergeCounter both
         * follow the kernel's attributes. */
        for (unsigned i = 0; i < _MM_STAT_MAX && i < _METRICS_MM_COUNTER_MAX; i++)
                ret->mac_merge.counters[i] = s.stats[i];
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The MAC merge layer's families of the exposition (docs/metrics.md), for
 * the links whose device has one (MetricsLink.has_mac_merge; the state and
 * counters ETHTOOL_MSG_MM_GET gives, daemon/probe/mac-merge.h):
 *   tbs_mac_merge_tx_enabled{interface,device}           gauge 1/0
 *   tbs_mac_merge_tx_active{interface,device}            gauge 1/0: preemptible frames go out preemptible
 *   tbs_mac_merge_verify_status{interface,device,status} gauge, 1 for the current status
 *   tbs_mac_merge_fragments_total{interface,device,direction="tx"|"rx"} counter
 *   tbs_mac_merge_reassembled_frames_total, tbs_mac_merge_reassembly_errors_total,
 *   tbs_mac_merge_smd_errors_total, tbs_mac_merge_holds_total {interface,device} counters
 * A counter the driver does not report is left out. Pure: the samples are a
 * function of the typed values only. */
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "metrics-internal.h"

enum {
        FAMILY_TX_ENABLED,
        FAMILY_TX_ACTIVE,
        FAMILY_VERIFY_STATUS,
        FAMILY_FRAGMENTS,
        FAMILY_REASSEMBLED,
        FAMILY_REASSEMBLY_ERRORS,
        FAMILY_SMD_ERRORS,
        FAMILY_HOLDS,
};

const MetricsFamilyInfo metrics_mac_merge_families[METRICS_MAC_MERGE_FAMILIES] = {
        [FAMILY_TX_ENABLED] = { "tbs_mac_merge_tx_enabled", "gauge",
                                "1 when the MAC merge layer may send preemptible frames (ethtool's tx-enabled)." },
        [FAMILY_TX_ACTIVE] = { "tbs_mac_merge_tx_active", "gauge",
                               "1 when the MAC merge layer sends preemptible frames now (tx-active: verified, "
                               "or verification off)." },
        [FAMILY_VERIFY_STATUS] = { "tbs_mac_merge_verify_status", "gauge",
                                   "Verification of the link partner's MAC merge layer: 1 for the current status." },
        [FAMILY_FRAGMENTS] = { "tbs_mac_merge_fragments_total", "counter",
                               "Fragments of preemptible frames sent (tx) and received (rx): aMACMergeFragCountTx/Rx." },
        [FAMILY_REASSEMBLED] = { "tbs_mac_merge_reassembled_frames_total", "counter",
                                 "Received preemptible frames reassembled from fragments: aMACMergeFrameAssOkCount." },
        [FAMILY_REASSEMBLY_ERRORS] = { "tbs_mac_merge_reassembly_errors_total", "counter",
                                       "Received frames with a reassembly error: aMACMergeFrameAssErrorCount." },
        [FAMILY_SMD_ERRORS] = { "tbs_mac_merge_smd_errors_total", "counter",
                                "Received frames with an unknown start mFrame delimiter: "
                                "aMACMergeFrameSmdErrorCount." },
        [FAMILY_HOLDS] = { "tbs_mac_merge_holds_total", "counter",
                           "Times the transmit side held preemptible traffic: aMACMergeHoldCount." },
};

static const char *const counter_keys[_METRICS_MM_COUNTER_MAX] = {
        [METRICS_MM_REASSEMBLY_ERRORS] = "reassembly_errors",
        [METRICS_MM_SMD_ERRORS] = "smd_errors",
        [METRICS_MM_REASSEMBLY_OK] = "reassembly_ok",
        [METRICS_MM_RX_FRAGMENTS] = "rx_fragments",
        [METRICS_MM_TX_FRAGMENTS] = "tx_fragments",
        [METRICS_MM_HOLD] = "hold",
};

const char *metrics_mac_merge_counter_key(MetricsMacMergeCounter c) {
        return c < _METRICS_MM_COUNTER_MAX ? counter_keys[c] : NULL;
}

static const char *const verify_statuses[] = { "unknown", "initial", "verifying", "succeeded", "failed", "disabled" };

const char *metrics_mac_merge_verify_status(uint8_t status) {
        return status < ELEMENTSOF(verify_statuses) ? verify_statuses[status] : "unknown";
}

int metrics_mac_merge_verify_status_from_string(const char *s) {
        for (unsigned i = 0; s && i < ELEMENTSOF(verify_statuses); i++)
                if (strcmp(s, verify_statuses[i]) == 0)
                        return (int) i;
        return 0;
}

static Value int_value(uint64_t v) {
        return (Value) { .kind = NUM_INT, .i = v > INT64_MAX ? INT64_MAX : (int64_t) v };
}

static void counter(Sink *s, const char *family, const Label *lb, const MetricsMacMerge *m, MetricsMacMergeCounter c) {
        if (m->has_counters & (1u << c))
                metrics_sink_sample(s, family, NULL, lb, 2, int_value(m->counters[c]));
}

static void render_link(Sink *s, unsigned family, const char *interface, const MetricsMacMerge *m) {
        const char *name = metrics_mac_merge_families[family].name;
        Label lb[] = { { "interface", interface }, { "device", interface }, { NULL, NULL } };

        switch (family) {
        case FAMILY_TX_ENABLED:
                metrics_sink_sample(s, name, NULL, lb, 2, int_value(m->tx_enabled));
                return;
        case FAMILY_TX_ACTIVE:
                metrics_sink_sample(s, name, NULL, lb, 2, int_value(m->tx_active));
                return;
        case FAMILY_VERIFY_STATUS:
                for (unsigned i = 0; i < ELEMENTSOF(verify_statuses); i++) {
                        lb[2] = (Label) { "status", verify_statuses[i] };
                        metrics_sink_sample(s, name, NULL, lb, 3, int_value(m->verify_status == i));
                }
                return;
        case FAMILY_FRAGMENTS:
                lb[2] = (Label) { "direction", "tx" };
                if (m->has_counters & (1u << METRICS_MM_TX_FRAGMENTS))
                        metrics_sink_sample(s, name, NULL, lb, 3, int_value(m->counters[METRICS_MM_TX_FRAGMENTS]));
                lb[2] = (Label) { "direction", "rx" };
                if (m->has_counters & (1u << METRICS_MM_RX_FRAGMENTS))
                        metrics_sink_sample(s, name, NULL, lb, 3, int_value(m->counters[METRICS_MM_RX_FRAGMENTS]));
                return;
        case FAMILY_REASSEMBLED:
                counter(s, name, lb, m, METRICS_MM_REASSEMBLY_OK);
                return;
        case FAMILY_REASSEMBLY_ERRORS:
                counter(s, name, lb, m, METRICS_MM_REASSEMBLY_ERRORS);
                return;
        case FAMILY_SMD_ERRORS:
                counter(s, name, lb, m, METRICS_MM_SMD_ERRORS);
                return;
        case FAMILY_HOLDS:
                counter(s, name, lb, m, METRICS_MM_HOLD);
                return;
        }
}

void metrics_mac_merge_render_family(Sink *s, unsigned i, const MetricsLink *links, size_t n) {
        for (size_t j = 0; j < n && s->error == 0; j++)
                if (links[j].has_mac_merge)
                        render_link(s, i, links[j].interface ?: "", &links[j].mac_merge);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json-util.h"
#include "metrics.h"
#include "metrics-internal.h"
#include "saturate.h"

/* The states a link and a clock check can be in (dbus/org.tsn.Tbs.xml):
 * every one gets a series so that a state change never makes one vanish. */
static const char *const link_states[] = { "pending", "configured", "degraded", "failed", "absent", NULL };
static const char *const clock_states[] = { "synced", "unsynced", "no-ptp4l", "no-phc", "not-configured", NULL };
/* ptp4l's port states (IEEE 1588 portState, as pmc prints them). */
static const char *const port_states[] = { "INITIALIZING", "FAULTY", "DISABLED", "LISTENING", "PRE_MASTER",
                                           "MASTER", "PASSIVE", "UNCALIBRATED", "SLAVE", "GRAND_MASTER", NULL };

/* Where a family's samples come from in a MetricsLink. */
typedef enum Source {
        SOURCE_BUILD_INFO,
        SOURCE_RELOAD_OK,
        SOURCE_RELOAD_TIME,
        SOURCE_LINK_STATE,
        SOURCE_LINK_COUNTER,    /* counters[index] */
        SOURCE_PTP4L_INFO,
        SOURCE_CLOCK_CHECKED,
        SOURCE_PORT_STATE,
        SOURCE_PTP4L_NS,        /* clock_values[index] per ptp4l, ns written as seconds */
        SOURCE_SYSTEM_S,        /* clock_values[index] once, seconds */
        SOURCE_CLOCK_STATE,
        SOURCE_CLOCK_SYNCED,
        SOURCE_CLOCK_NS,        /* clock_values[index], ns written as seconds */
        SOURCE_QUEUE_OFFLOAD,
        SOURCE_QUEUE_INSTALLED,
        SOURCE_QUEUE_COUNTER,   /* counters[index] */
        SOURCE_TAPRIO_STAT,     /* taprio_stats[index], when the kernel gives it */
        SOURCE_QUEUE_TAPRIO_STAT, /* a queue's taprio_stats[index], likewise */
} Source;

typedef struct Family {
        MetricsFamilyInfo info;         /* first: the table below initializes it without braces */
        Source source;
        unsigned index;
} Family;

/* The families in output order. */
static const Family families[] = {
        { { "tbs_build_info", "gauge", "tbsd's version: always 1." }, SOURCE_BUILD_INFO, 0 },
        { { "tbs_config_last_reload_successful", "gauge",
          "1 when the last reload of the configuration folder read every file, else 0." }, SOURCE_RELOAD_OK, 0 },
        { { "tbs_config_last_reload_success_timestamp_seconds", "gauge",
          "Time of the last reload (or start) that read every file, in seconds since the epoch." },
          SOURCE_RELOAD_TIME, 0 },
        { { "tbs_link_state", "gauge", "State of the link: 1 for the current state." }, SOURCE_LINK_STATE, 0 },
        { { "tbs_link_reloads_total", "counter",
          "Loads of the configuration folder (start, reload) that declared or kept the link." },
          SOURCE_LINK_COUNTER, METRICS_LINK_RELOADS },
        { { "tbs_link_applies_total", "counter", "Applies of the link's schedule that succeeded." },
          SOURCE_LINK_COUNTER, METRICS_LINK_APPLIES },
        { { "tbs_link_drift_repairs_total", "counter",
          "Times tbsd restored the link's tree after a change outside tbsd (drift policy enforce)." },
          SOURCE_LINK_COUNTER, METRICS_LINK_DRIFT_REPAIRS },
        { { "tbs_link_apply_failures_total", "counter", "Applies of the link's schedule that failed." },
          SOURCE_LINK_COUNTER, METRICS_LINK_APPLY_FAILURES },
        { { "tbs_link_ptp4l_info", "gauge", "The ptp4l socket the link's clock check asks: always 1." },
          SOURCE_PTP4L_INFO, 0 },
        { { "tbs_clock_state", "gauge", "State of the link's clock check: 1 for the current state." },
          SOURCE_CLOCK_STATE, 0 },
        { { "tbs_clock_synced", "gauge", "1 when the link's clock check finds the clocks in sync." },
          SOURCE_CLOCK_SYNCED, 0 },
        { { "tbs_clock_last_check_timestamp_seconds", "gauge",
          "Time of the link's last clock check, in seconds since the epoch." }, SOURCE_CLOCK_CHECKED, 0 },
        { { "tbs_ptp_port_state", "gauge", "ptp4l's state of the link's PTP port: 1 for the current state." },
          SOURCE_PORT_STATE, 0 },
        { { "tbs_clock_phc_offset_seconds", "gauge", "Offset of the NIC's PTP hardware clock from CLOCK_TAI." },
          SOURCE_CLOCK_NS, METRICS_CLOCK_PHC_OFFSET_NS },
        { { "tbs_clock_master_offset_seconds", "gauge",
          "Offset of ptp4l's clock from its master, as ptp4l reports it." },
          SOURCE_PTP4L_NS, METRICS_CLOCK_MASTER_OFFSET_NS },
        { { "tbs_clock_mean_path_delay_seconds", "gauge", "Mean path delay to the PTP master, as ptp4l reports it." },
          SOURCE_PTP4L_NS, METRICS_CLOCK_MEAN_PATH_DELAY_NS },
        { { "tbs_clock_tai_offset_seconds", "gauge", "The kernel's TAI - UTC offset." },
          SOURCE_SYSTEM_S, METRICS_CLOCK_TAI_OFFSET_S },
        { { "tbs_launch_time_offload", "gauge",
            "1 when the queue's etf qdisc runs with launch-time offload in the NIC." },
          SOURCE_QUEUE_OFFLOAD, 0 },
        { { "tbs_queue_installed", "gauge", "1 when the queue's declared etf qdisc is installed." },
          SOURCE_QUEUE_INSTALLED, 0 },
        { { "tbs_queue_packets_total", "counter", "Packets the queue's qdisc sent." },
          SOURCE_QUEUE_COUNTER, METRICS_PACKETS },
        { { "tbs_queue_bytes_total", "counter", "Bytes the queue's qdisc sent." },
          SOURCE_QUEUE_COUNTER, METRICS_BYTES },
        { { "tbs_queue_drops_total", "counter",
          "Packets the queue's qdisc dropped (deadline misses and invalid included)." },
          SOURCE_QUEUE_COUNTER, METRICS_DROPS },
        { { "tbs_queue_requeues_total", "counter", "Packets the driver handed back to the queue's qdisc." },
          SOURCE_QUEUE_COUNTER, METRICS_REQUEUES },
        { { "tbs_queue_deadline_misses_total", "counter",
          "etf: packets dropped because their launch time passed in the queue (the qdisc's overlimits)." },
          SOURCE_QUEUE_COUNTER, METRICS_DEADLINE_MISSES },
        { { "tbs_queue_invalid_total", "counter",
          "etf: packets refused at enqueue (launch time in the past, wrong clock, no SO_TXTIME)." },
          SOURCE_QUEUE_COUNTER, METRICS_INVALID },
        { { "tbs_queue_backlog_bytes", "gauge", "Bytes waiting in the queue's qdisc." },
          SOURCE_QUEUE_COUNTER, METRICS_BACKLOG_BYTES },
        { { "tbs_queue_backlog_packets", "gauge", "Packets waiting in the queue's qdisc." },
          SOURCE_QUEUE_COUNTER, METRICS_BACKLOG_PACKETS },
        { { "tbs_taprio_window_drops_total", "counter",
          "taprio offload: frames the NIC dropped as too long for their gate's window (when the driver counts them)." },
          SOURCE_TAPRIO_STAT, METRICS_TAPRIO_WINDOW_DROPS },
        { { "tbs_taprio_tx_overruns_total", "counter",
          "taprio offload: frames still in transmission when their gate closed (when the driver counts them)." },
          SOURCE_TAPRIO_STAT, METRICS_TAPRIO_TX_OVERRUNS },
        { { "tbs_queue_window_drops_total", "counter",
          "taprio offload: the queue's window drops (when the driver counts them per queue)." },
          SOURCE_QUEUE_TAPRIO_STAT, METRICS_TAPRIO_WINDOW_DROPS },
        { { "tbs_queue_tx_overruns_total", "counter",
          "taprio offload: the queue's transmit overruns (when the driver counts them per queue)." },
          SOURCE_QUEUE_TAPRIO_STAT, METRICS_TAPRIO_TX_OVERRUNS },
};

/* Every typed value has its family, but METRICS_OVERLIMITS (= deadline
 * misses for etf, kept in the typed sample for the documents). */
_Static_assert(ELEMENTSOF(families) == 3 + 1 + _METRICS_LINK_COUNTER_MAX + 5 + _METRICS_CLOCK_VALUE_MAX + 2 +
                                       _METRICS_COUNTER_MAX - 1 + 2 * _METRICS_TAPRIO_STAT_MAX,
               "one family per typed value");

/* One sample of family f: "NAME{LABELS} VALUE" or a JSON object. */
static void sample(Sink *s, const Family *f, const Label *labels, size_t n, const Value v) {
        metrics_sink_sample(s, f->info.name, NULL, labels, n, v);
}

static Value int_value(int64_t i) {
        return (Value) { .kind = NUM_INT, .i = i };
}

/* The enum pattern: one series per known state, 1 for the current one; a
 * state the table does not know gets a series of its own. */
static void render_state(Sink *s, const Family *f, const char *interface, const char *cur,
                         const char *const *states) {
        bool known = false;

        for (const char *const *st = states; *st; st++) {
                bool is = cur && strcmp(cur, *st) == 0;
                Label l[] = { { "interface", interface }, { "device", interface }, { "state", *st } };

                known = known || is;
                sample(s, f, l, ELEMENTSOF(l), int_value(is ? 1 : 0));
        }
        if (cur && !known) {
                Label l[] = { { "interface", interface }, { "device", interface }, { "state", cur } };

                sample(s, f, l, ELEMENTSOF(l), int_value(1));
        }
}

/* The value family f takes from queue q; false when q has none. */
static bool queue_value(const Family *f, const MetricsQueue *q, Value *ret) {
        switch (f->source) {
        case SOURCE_QUEUE_OFFLOAD:
                if (q->offload < 0)
                        return false;
                *ret = int_value(q->offload > 0);
                return true;
        case SOURCE_QUEUE_INSTALLED:
                if (q->installed < 0)
                        return false;
                *ret = int_value(q->installed > 0);
                return true;
        case SOURCE_QUEUE_COUNTER:
                if (!(q->has_counters & (1u << f->index)))
                        return false;
                *ret = int_value(q->counters[f->index]);
                return true;
        case SOURCE_QUEUE_TAPRIO_STAT:
                if (!(q->has_taprio_stats & (1u << f->index)))
                        return false;
                *ret = int_value(q->taprio_stats[f->index]);
                return true;
        default:
                return false;
        }
}

static void render_queues(Sink *s, const Family *f, const MetricsLink *l, const char *interface) {
        for (size_t j = 0; j < l->n_queues; j++) {
                const MetricsQueue *q = &l->queues[j];
                char queue[24];
                Value v;

                if (!queue_value(f, q, &v))
                        continue;
                snprintf(queue, sizeof(queue), "%" PRId64, q->queue);
                Label lb[] = { { "interface", interface }, { "device", interface }, { "queue", queue },
                               { "qdisc", q->qdisc ?: "none" } };
                sample(s, f, lb, ELEMENTSOF(lb), v);
        }
}

/* The daemon's samples of family f (d NULL: none). */
static void render_daemon(Sink *s, const Family *f, const MetricsDaemon *d) {
        Value v;

        if (!d)
                return;
        switch (f->source) {
        case SOURCE_BUILD_INFO:
                if (d->version)
                        sample(s, f, (Label[]) { { "version", d->version } }, 1, int_value(1));
                return;
        case SOURCE_RELOAD_OK:
                if (d->last_reload_ok >= 0)
                        sample(s, f, NULL, 0, int_value(d->last_reload_ok > 0));
                return;
        case SOURCE_RELOAD_TIME:
                if (d->last_reload_success_usec == 0)
                        return;
                v = (Value) { .kind = NUM_DECIMAL };
                metrics_format_seconds((int64_t) (d->last_reload_success_usec * 1000), v.text);
                sample(s, f, NULL, 0, v);
                return;
        default:
                return;
        }
}

static bool has_clock_value(const MetricsLink *l, unsigned index) {
        return l->has_clock_values & (1u << index);
}

static bool same_ptp4l(const MetricsLink *a, const MetricsLink *b) {
        return a->ptp4l && b->ptp4l && strcmp(a->ptp4l, b->ptp4l) == 0;
}

/* Whether links[i]'s value index is the first of its kind: of its ptp4l
 * (ptp4l-wide values), or at all (system-wide ones). The others repeat it. */
static bool first_clock_value(const MetricsLink *links, size_t i, unsigned index, bool per_ptp4l) {
        for (size_t j = 0; j < i; j++)
                if (has_clock_value(&links[j], index) && (!per_ptp4l || same_ptp4l(&links[j], &links[i])))
                        return false;
        return true;
}

/* Family f's samples of link links[i]. */
static void render_family(Sink *s, const Family *f, const MetricsLink *links, size_t i) {
        const MetricsLink *l = &links[i];
        const char *interface = l->interface ?: "";
        Label li[] = { { "interface", interface }, { "device", interface } };
        Value v;

        switch (f->source) {
        case SOURCE_BUILD_INFO:
        case SOURCE_RELOAD_OK:
        case SOURCE_RELOAD_TIME:
                return;
        case SOURCE_LINK_STATE:
                render_state(s, f, interface, l->state, link_states);
                return;
        case SOURCE_LINK_COUNTER:
                if (l->has_counters)
                        sample(s, f, li, ELEMENTSOF(li), int_value((int64_t) l->counters[f->index]));
                return;
        case SOURCE_PTP4L_INFO:
                if (l->has_clock && l->ptp4l) {
                        Label lp[] = { { "interface", interface }, { "device", interface }, { "ptp4l", l->ptp4l } };

                        sample(s, f, lp, ELEMENTSOF(lp), int_value(1));
                }
                return;
        case SOURCE_CLOCK_STATE:
                if (l->has_clock)
                        render_state(s, f, interface, l->clock_state, clock_states);
                return;
        case SOURCE_CLOCK_SYNCED:
                if (l->has_clock)
                        sample(s, f, li, ELEMENTSOF(li),
                               int_value(l->clock_state && strcmp(l->clock_state, "synced") == 0));
                return;
        case SOURCE_CLOCK_CHECKED:
                if (!l->has_clock || l->clock_checked_at_usec == 0)
                        return;
                v = (Value) { .kind = NUM_DECIMAL };
                metrics_format_seconds((int64_t) (l->clock_checked_at_usec * 1000), v.text);
                sample(s, f, li, ELEMENTSOF(li), v);
                return;
        case SOURCE_PORT_STATE:
                if (l->has_clock && l->port_state)
                        render_state(s, f, interface, l->port_state, port_states);
                return;
        case SOURCE_CLOCK_NS:
        case SOURCE_PTP4L_NS:
                if (!has_clock_value(l, f->index))
                        return;
                if (f->source == SOURCE_PTP4L_NS && (!l->ptp4l || !first_clock_value(links, i, f->index, true)))
                        return;
                v = (Value) { .kind = NUM_DECIMAL };
                metrics_format_seconds(l->clock_values[f->index], v.text);
                if (f->source == SOURCE_PTP4L_NS)
                        sample(s, f, (Label[]) { { "ptp4l", l->ptp4l } }, 1, v);
                else
                        sample(s, f, li, ELEMENTSOF(li), v);
                return;
        case SOURCE_SYSTEM_S:
                if (has_clock_value(l, f->index) && first_clock_value(links, i, f->index, false))
                        sample(s, f, NULL, 0, int_value(l->clock_values[f->index]));
                return;
        case SOURCE_TAPRIO_STAT:
                if (l->has_taprio_stats & (1u << f->index))
                        sample(s, f, li, ELEMENTSOF(li), int_value((int64_t) l->taprio_stats[f->index]));
                return;
        default:
                render_queues(s, f, l, interface);
        }
}

/* All families in output order: the table above, then the launch-time
 * error's (lib/metrics-launch.c), then the MAC merge layer's
 * (lib/metrics-mac-merge.c). */
#define N_LAUNCH_END (ELEMENTSOF(families) + METRICS_LAUNCH_FAMILIES)
#define N_ALL_FAMILIES (N_LAUNCH_END + METRICS_MAC_MERGE_FAMILIES)

static const MetricsFamilyInfo *family_info(size_t i) {
        if (i >= N_LAUNCH_END)
                return &metrics_mac_merge_families[i - N_LAUNCH_END];
        if (i >= ELEMENTSOF(families))
                return &metrics_launch_families[i - ELEMENTSOF(families)];
        return &families[i].info;
}

/* Family i's samples of the daemon and of every link. */
static void render_all(Sink *s, size_t i, const MetricsDaemon *d, const MetricsLink *links, size_t n) {
        if (i >= N_LAUNCH_END) {
                metrics_mac_merge_render_family(s, (unsigned) (i - N_LAUNCH_END), links, n);
                return;
        }
        if (i >= ELEMENTSOF(families)) {
                metrics_launch_render_family(s, i - ELEMENTSOF(families), links, n);
                return;
        }
        render_daemon(s, &families[i], d);
        for (size_t j = 0; j < n && s->error == 0; j++)
                render_family(s, &families[i], links, j);
}

static void header(FILE *out, const MetricsFamilyInfo *f) {
        /* The help texts are ours: no backslash or newline to escape. */
        fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
}

int metrics_render_daemon(const MetricsDaemon *d, const MetricsLink *links, size_t n, FILE *out) {
        Sink s = { .out = out };

        /* Family by family, straight into out: no copy of the text. */
        errno = 0;
        for (size_t i = 0; i < N_ALL_FAMILIES && s.error == 0; i++) {
                header(out, family_info(i));
                render_all(&s, i, d, links, n);
                if (s.error == 0 && ferror(out))
                        s.error = errno > 0 ? -errno : -EIO;
        }
        if (s.error < 0)
                return s.error;
        if (fflush(out) != 0)
                return negative_errno();
        if (ferror(out))
                return -EIO;
        return 0;
}

int metrics_render_links(const MetricsLink *links, size_t n, FILE *out) {
        return metrics_render_daemon(NULL, links, n, out);
}

int metrics_render_daemon_json(const MetricsDaemon *d, const MetricsLink *links, size_t n,
                               struct json_object **ret) {
        _cleanup_json_ struct json_object *all = json_object_new_array();

        if (!all)
                return -ENOMEM;
        for (size_t i = 0; i < N_ALL_FAMILIES; i++) {
                const MetricsFamilyInfo *fi = family_info(i);
                struct json_object *f = json_object_new_object();
                Sink s = { .samples = json_object_new_array() };

                if (!f || json_object_array_add(all, f) < 0) {
                        json_object_put(f);
                        json_object_put(s.samples);
                        return -ENOMEM;
                }
                if (json_add_string(f, "name", fi->name) < 0 || json_add_string(f, "type", fi->type) < 0 ||
                    json_add_string(f, "help", fi->help) < 0 || !s.samples || json_add(f, "samples", s.samples) < 0)
                        return -ENOMEM;
                render_all(&s, i, d, links, n);
                if (s.error < 0)
                        return s.error;
        }
        *ret = TAKE_PTR(all);
        return 0;
}

int metrics_render_links_json(const MetricsLink *links, size_t n, struct json_object **ret) {
        return metrics_render_daemon_json(NULL, links, n, ret);
}

int metrics_write_links_file(const MetricsLink *links, size_t n, const char *path) {
        return metrics_write_daemon_file(NULL, links, n, path);
}

int metrics_write_daemon_file(const MetricsDaemon *d, const MetricsLink *links, size_t n, const char *path) {
        _cleanup_free_ char *tmp = NULL;
        FILE *f;
        int fd, r;

        if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
                return -ENOMEM;
        fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        if (fchmod(fd, 0644) < 0) {
                r = negative_errno();
                close(fd);
                goto fail;
        }
        f = fdopen(fd, "w");
        if (!f) {
                r = negative_errno();
                close(fd);
                goto fail;
        }
        r = metrics_render_daemon(d, links, n, f);
        if (r >= 0 && fsync(fileno(f)) < 0)
                r = negative_errno();
        if (fclose(f) != 0 && r >= 0)
                r = negative_errno();
        if (r < 0)
                goto fail;
        if (rename(tmp, path) < 0) {
                r = negative_errno();
                goto fail;
        }
        return 0;

fail:
        (void) unlink(tmp);
        return r;
}


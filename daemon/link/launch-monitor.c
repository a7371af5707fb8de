/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "launch-monitor.h"
#include "log.h"
#include "macro.h"
#include "launch-error.h"
#include "time-util.h"
#include "taprio-windows.h"

/* pending probes kept per queue: several rounds' worth, for a delta
 * longer than the interval */
#define PENDING_ROUNDS 4

/* The monitors' event sources come after everything else the loop has
 * pending (bus calls, link and qdisc notifications, clock checks): with
 * many probes a second they were always pending, sd-event dispatches one
 * source per iteration, and a bus call waited its turn among them
 * (`tbsctl status` took 58 s beside 16 monitors at 640 probes a second,
 * BENCHMARKS.md "Bounds"). Above normal (0), below the signal queue's idle
 * source (SD_EVENT_PRIORITY_IDLE, 100). */
#define MONITOR_EVENT_PRIORITY 50

/* The error queue is read once a round, this long after the round's last
 * launch time (its reports are in by then on a software-stamped link; one
 * that comes later is read at the next round or at its timeout), not on
 * each report: a report arrives per probe, LAUNCH_MONITOR_SPACING_NS
 * apart, and a wake-up per report cost the loop most of its time beside
 * monitors at the budget (BENCHMARKS.md "Bounds"). */
#define COLLECT_AFTER_USEC 2000u
/* error queue messages read at most per read: a probe gives a launch time
 * report and a stamp, so two per probe that can be pending */
#define REPORTS_PER_PENDING 2

typedef struct QueueMonitor {
        LaunchMonitors *owner;
        size_t index;                   /* of its figures in owner->stats */
        LaunchMonitorConfig cfg;
        int fd;                         /* -1: could not start (logged once), counts nothing */
        uint8_t mac[6];                 /* the interface's own: the probes' destination */
        unsigned tstamps;               /* TXTIME_PROBE_TSTAMP_* set on fd */
        LaunchStampChoice stamps;       /* what tstamps was chosen by, and why */
        sd_event_source *tick;          /* every interval_ms */
        sd_event_source *timeout;       /* at the earliest pending probe's deadline */
        sd_event_source *collect;       /* reads the error queue after the round's last launch time */
        TxtimeProbe *pending;           /* sent, without an answer yet */
        uint64_t *deadline_usec;        /* CLOCK_MONOTONIC, per pending probe */
        size_t n_pending, cap;
        uint32_t next_seq;
        bool send_error_logged;
        int gates_error;                /* the last reason a gated round sent nothing (logged), or 0 */
} QueueMonitor;

struct LaunchMonitors {
        sd_event *event;
        char *ifname;
        LaunchMonitorHooks hooks;
        QueueMonitor **q;
        LaunchQueueStats *stats;
        size_t n;
};

bool launch_monitor_config_equal(const LaunchMonitorConfig *a, const LaunchMonitorConfig *b) {
        return a->ifindex == b->ifindex && a->queue == b->queue && a->priority == b->priority &&
               a->clockid == b->clockid && a->deadline_mode == b->deadline_mode && a->delta_ns == b->delta_ns &&
               a->interval_ms == b->interval_ms && a->frames == b->frames && a->gated == b->gated &&
               a->tc == b->tc && a->link_speed_mbps == b->link_speed_mbps &&
               a->tx_stamp_slots == b->tx_stamp_slots;
}

int launch_gated_txtime(const RootSpec *root, unsigned tc, int64_t now_ns, int64_t earliest_ns, uint64_t guard_ns,
                        int64_t *ret_ns) {
        _cleanup_free_ TxtimeWindow *w = NULL;
        RootSpec running;
        int64_t until;
        int n;

        if (txtime_none_runs(root, now_ns))
                return -EAGAIN;
        txtime_running_root(root, now_ns, &running, &until);
        n = txtime_windows(&running, tc, &w);
        if (n < 0)
                return n;
        return txtime_window_slot(&running, w, (size_t) n, earliest_ns, guard_ns, until, ret_ns);
}

static LaunchQueueStats *qm_stats(QueueMonitor *qm) {
        return &qm->owner->stats[qm->index];
}

/* The offsets that place the stamps of qm's probes in the socket's clock,
 * now: its clock against CLOCK_REALTIME (software stamps) and the PHC
 * (hardware stamps) when the link's clock check has measured it. */
static void stamp_offsets(QueueMonitor *qm, LaunchClockOffsets *ret) {
        int64_t phc;
        bool has_phc = qm->owner->hooks.phc && qm->owner->hooks.phc(qm->owner->hooks.userdata, &phc) >= 0;

        launch_clock_offsets_now(qm->cfg.clockid, has_phc ? &phc : NULL, ret);
}

static void remove_pending(QueueMonitor *qm, size_t i) {
        memmove(&qm->pending[i], &qm->pending[i + 1], (qm->n_pending - i - 1) * sizeof(TxtimeProbe));
        memmove(&qm->deadline_usec[i], &qm->deadline_usec[i + 1], (qm->n_pending - i - 1) * sizeof(uint64_t));
        qm->n_pending--;
}

/* Account every pending probe that has its answer, or whose deadline is
 * at or before now_usec (0: none timed out). */
static void settle(QueueMonitor *qm, uint64_t now_usec) {
        LaunchClockOffsets o;

        if (qm->n_pending == 0)
                return;
        stamp_offsets(qm, &o);
        for (size_t i = 0; i < qm->n_pending;)
                if (launch_stats_account(qm_stats(qm), &qm->pending[i], &o,
                                         now_usec > 0 && qm->deadline_usec[i] <= now_usec))
                        remove_pending(qm, i);
                else
                        i++;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata);

/* The timeout at the earliest deadline of the pending probes; off when
 * none is pending. */
static void arm_timeout(QueueMonitor *qm) {
        uint64_t first = UINT64_MAX;
        int r;

        for (size_t i = 0; i < qm->n_pending; i++)
                if (qm->deadline_usec[i] < first)
                        first = qm->deadline_usec[i];
        if (first == UINT64_MAX) {
                if (qm->timeout)
                        (void) sd_event_source_set_enabled(qm->timeout, SD_EVENT_OFF);
                return;
        }
        if (!qm->timeout) {
                r = sd_event_add_time(qm->owner->event, &qm->timeout, CLOCK_MONOTONIC, first, 10000, on_timeout, qm);
                if (r >= 0)
                        (void) sd_event_source_set_priority(qm->timeout, MONITOR_EVENT_PRIORITY);
                if (r < 0)
                        log_link_warning_errno(qm->owner->ifname, r,
                                               "queue %" PRIu32 ": launch monitor: cannot arm the report timeout: %m",
                                               qm->cfg.queue);
                return;
        }
        (void) sd_event_source_set_time(qm->timeout, first);
        (void) sd_event_source_set_enabled(qm->timeout, SD_EVENT_ONESHOT);
}

static void read_reports(QueueMonitor *qm);

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
        QueueMonitor *qm = userdata;

        read_reports(qm);       /* what came in since the round's read, before judging */
        settle(qm, now_usec(CLOCK_MONOTONIC));
        arm_timeout(qm);
        return 0;
}

/* Read every report the error queue holds (bounded by what can be
 * pending) into the pending probes they answer. */
static void read_reports(QueueMonitor *qm) {
        socklen_t len = sizeof(int);
        int r, err = 0;

        r = txtime_probe_drain_at_most(qm->fd, qm->pending, qm->n_pending, REPORTS_PER_PENDING * qm->cap);
        if (r < 0)
                log_link_debug_errno(qm->owner->ifname, r, "queue %" PRIu32 ": launch monitor: error queue: %m",
                                     qm->cfg.queue);
        /* A pending socket error (ENETDOWN when the interface went down)
         * is read too, so that it is not left for the next send. */
        (void) getsockopt(qm->fd, SOL_SOCKET, SO_ERROR, &err, &len);
}

static int on_collect(sd_event_source *s, uint64_t usec, void *userdata) {
        QueueMonitor *qm = userdata;

        read_reports(qm);
        settle(qm, 0);
        arm_timeout(qm);
        return 0;
}

/* The read of the round's reports, at at_usec (CLOCK_MONOTONIC). */
static void arm_collect(QueueMonitor *qm, uint64_t at_usec) {
        int r;

        if (!qm->collect) {
                /* coalesced with the loop's other wake-ups within a tenth
                 * of the interval, as the rounds are */
                r = sd_event_add_time(qm->owner->event, &qm->collect, CLOCK_MONOTONIC, at_usec,
                                      (uint64_t) qm->cfg.interval_ms * 100, on_collect, qm);
                if (r >= 0)
                        (void) sd_event_source_set_priority(qm->collect, MONITOR_EVENT_PRIORITY);
                if (r < 0)
                        log_link_warning_errno(qm->owner->ifname, r,
                                               "queue %" PRIu32 ": launch monitor: cannot arm the report read: %m",
                                               qm->cfg.queue);
                return;
        }
        (void) sd_event_source_set_time(qm->collect, at_usec);
        (void) sd_event_source_set_enabled(qm->collect, SD_EVENT_ONESHOT);
}

/* One kind of transmit stamp at a time, chosen before each round (ptp4l
 * may start or stop between two): the NIC's when its transmit stamping is
 * on and it has stamps to spare (launch_stamps_choose()), else
 * the driver's software one. Both at once would not do: a report for a
 * frame the NIC was asked to stamp carries the skb's time in ts[0] (its
 * launch time, or the dequeue time in deadline mode), which looks like a
 * software stamp when the hardware one is missing (QEMU's igb gives 0). */
static void choose_tstamps(QueueMonitor *qm) {
        bool on = txtime_probe_hw_tx_timestamps_on(qm->fd, qm->owner->ifname, NULL, 0) > 0;
        LaunchStampChoice c = launch_stamps_choose(on, qm->cfg.tx_stamp_slots, qm->cfg.frames);
        unsigned want = c.stamps == LAUNCH_STAMPS_HARDWARE ? TXTIME_PROBE_TSTAMP_HARDWARE : TXTIME_PROBE_TSTAMP_SOFTWARE;
        int r;

        if (want != qm->tstamps) {
                r = txtime_probe_timestamping(qm->fd, want);
                if (r < 0) {
                        log_link_debug_errno(qm->owner->ifname, r,
                                             "queue %" PRIu32 ": launch monitor: SO_TIMESTAMPING: %m", qm->cfg.queue);
                        return;
                }
                qm->tstamps = want;
        }
        if (c.why == qm->stamps.why)
                return;
        /* the plain case at debug; a choice ptp4l's stamping made, once */
        log_link_full_errno(qm->owner->ifname, c.why == LAUNCH_STAMPS_WHY_NIC_OFF ? LOG_DEBUG : LOG_INFO, 0,
                            "queue %" PRIu32 ": launch monitor: %s transmit stamps: %s", qm->cfg.queue,
                            launch_stamps_to_string(c.stamps), launch_stamps_why_to_string(c.why));
        qm->stamps = c;
}

/* Why a gated round stops short, logged once until a round goes through. */
static void gates_problem(QueueMonitor *qm, int r, uint64_t guard_ns) {
        const char *ifname = qm->owner->ifname;
        int level = r == qm->gates_error || r == -EAGAIN ? LOG_DEBUG : LOG_WARNING;

        qm->gates_error = r;
        if (r == -EAGAIN)
                log_link_debug(ifname, "queue %" PRIu32 ": launch monitor: the round's other probes wait for "
                               "the pending gate schedule", qm->cfg.queue);
        else if (r == -ENOSPC)
                log_link_full_errno(ifname, level, 0,
                              "queue %" PRIu32 ": launch monitor: traffic class %u has no gate window longer than "
                              "%" PRIu64 " ns (a probe frame's transmission time at %" PRIu32 " Mbit/s on either "
                              "side) in the schedule taprio runs; no probes until it has one",
                              qm->cfg.queue, qm->cfg.tc, 2 * guard_ns,
                              qm->cfg.link_speed_mbps ?: TXTIME_FALLBACK_SPEED_MBPS);
        else
                log_link_full_errno(ifname, level, r,
                                    "queue %" PRIu32 ": launch monitor: cannot read taprio's gate schedule: %m; "
                                    "no probes", qm->cfg.queue);
}

/* The launch time of the round's next probe, earliest at earliest_ns:
 * that, or the first a gate window of the schedule taprio runs lets
 * through. Returns 0, or -errno (logged) when none is sent. */
static int probe_txtime(QueueMonitor *qm, uint64_t now, uint64_t earliest_ns, uint64_t *ret_ns) {
        uint64_t guard = txtime_probe_guard_ns(qm->cfg.link_speed_mbps);
        const RootSpec *root = NULL;
        int64_t t;
        int r;

        if (!qm->cfg.gated) {
                *ret_ns = earliest_ns;
                return 0;
        }
        /* The link's view, at each round: a schedule that changed (admin
         * to oper) gates from its base time on. taprio compares launch
         * times with its windows as they are, on the etf's clock. */
        r = qm->owner->hooks.gates ? qm->owner->hooks.gates(qm->owner->hooks.userdata, &root) : -ENODATA;
        if (r >= 0)
                r = launch_gated_txtime(root, qm->cfg.tc, (int64_t) now, (int64_t) earliest_ns, guard, &t);
        if (r < 0) {
                gates_problem(qm, r, guard);
                return r;
        }
        *ret_ns = (uint64_t) t;
        return 0;
}

static void send_round(QueueMonitor *qm) {
        LaunchQueueStats *st = qm_stats(qm);
        uint64_t prev = 0, collect_usec = 0;
        uint32_t i;
        int r;

        /* Room for the round: the oldest pending probes give up theirs. */
        while (qm->n_pending > 0 && qm->n_pending + qm->cfg.frames > qm->cap) {
                st->unstamped++;
                remove_pending(qm, 0);
        }
        for (i = 0; i < qm->cfg.frames; i++) {
                uint64_t now = now_nsec(qm->cfg.clockid), mono = now_usec(CLOCK_MONOTONIC);
                uint64_t earliest = now + qm->cfg.delta_ns + LAUNCH_MONITOR_MARGIN_NS;
                TxtimeProbe p = { .seq = qm->next_seq };

                if (prev > 0 && earliest < prev + LAUNCH_MONITOR_SPACING_NS)
                        earliest = prev + LAUNCH_MONITOR_SPACING_NS;
                if (probe_txtime(qm, now, earliest, &p.txtime_ns) < 0)
                        break;
                qm->next_seq++;
                prev = p.txtime_ns;
                r = txtime_probe_send_to(qm->fd, qm->cfg.ifindex, qm->mac, &p);
                if (r < 0) {
                        log_link_full_errno(qm->owner->ifname, qm->send_error_logged ? LOG_DEBUG : LOG_WARNING, r,
                                            "queue %" PRIu32 ": launch monitor: cannot send a probe: %m",
                                            qm->cfg.queue);
                        qm->send_error_logged = true;
                        break;
                }
                st->sent++;
                if (p.dropped_at_enqueue) {
                        st->invalid++;
                        continue;
                }
                qm->pending[qm->n_pending] = p;
                qm->deadline_usec[qm->n_pending] =
                        mono + (p.txtime_ns - now + LAUNCH_MONITOR_REPORT_TIMEOUT_NS) / 1000;
                qm->n_pending++;
                collect_usec = mono + (p.txtime_ns - now) / 1000 + COLLECT_AFTER_USEC;
        }
        if (collect_usec > 0)
                arm_collect(qm, collect_usec);
        if (i == qm->cfg.frames)
                qm->gates_error = 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
        QueueMonitor *qm = userdata;

        (void) sd_event_source_set_time(s, usec + (uint64_t) qm->cfg.interval_ms * 1000);
        read_reports(qm);       /* the last round's late ones */
        settle(qm, now_usec(CLOCK_MONOTONIC));
        choose_tstamps(qm);
        send_round(qm);
        arm_timeout(qm);
        return 0;
}

static QueueMonitor *queue_monitor_free(QueueMonitor *qm) {
        if (!qm)
                return NULL;
        sd_event_source_disable_unref(qm->tick);
        sd_event_source_disable_unref(qm->timeout);
        sd_event_source_disable_unref(qm->collect);
        if (qm->fd >= 0)
                close(qm->fd);
        free(qm->pending);
        free(qm->deadline_usec);
        free(qm);
        return NULL;
}

/* Open the socket and start the timer. A failure leaves qm dormant (fd
 * -1, logged): -ENOMEM only is returned. */
static int queue_monitor_start(QueueMonitor *qm) {
        const LaunchMonitorConfig *c = &qm->cfg;
        uint64_t interval_usec = (uint64_t) c->interval_ms * 1000;
        const char *step;
        int r;

        step = "the interface's address";
        r = txtime_probe_own_mac(c->ifindex, qm->mac);
        if (r >= 0) {
                step = "the probe socket";
                /* stamps: chosen before each round (choose_tstamps()) */
                r = txtime_probe_socket(c->ifindex, c->priority, c->clockid, c->deadline_mode, true, 0,
                                        &qm->fd);
        }
        if (r >= 0) {
                step = "the timer";
                /* the first round one interval from now; coalesced within a
                 * tenth of it with the loop's other wake-ups */
                r = sd_event_add_time_relative(qm->owner->event, &qm->tick, CLOCK_MONOTONIC, interval_usec,
                                               interval_usec / 10, on_tick, qm);
                if (r >= 0)
                        r = sd_event_source_set_priority(qm->tick, MONITOR_EVENT_PRIORITY);
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(qm->tick, SD_EVENT_ON);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_link_warning_errno(qm->owner->ifname, r, "queue %" PRIu32 ": launch monitor not started: %s: %m",
                                       c->queue, step);
                qm->tick = sd_event_source_disable_unref(qm->tick);
                if (qm->fd >= 0)
                        close(qm->fd);
                qm->fd = -1;
                return 0;
        }
        log_link_info(qm->owner->ifname,
                      "queue %" PRIu32 ": launch monitor started: %" PRIu32 " probe frames every %" PRIu32
                      " ms at priority %" PRIu32 "%s",
                      c->queue, c->frames, c->interval_ms, c->priority,
                      c->gated ? ", launch times inside the class's gate windows" : "");
        return 0;
}

static int queue_monitor_new(LaunchMonitors *owner, const LaunchMonitorConfig *c, QueueMonitor **ret) {
        QueueMonitor *qm;
        int r;

        qm = calloc(1, sizeof(*qm));
        if (!qm)
                return -ENOMEM;
        qm->owner = owner;
        qm->cfg = *c;
        qm->fd = -1;
        qm->cap = (size_t) c->frames * PENDING_ROUNDS;
        qm->pending = calloc(qm->cap, sizeof(TxtimeProbe));
        qm->deadline_usec = calloc(qm->cap, sizeof(uint64_t));
        if (!qm->pending || !qm->deadline_usec) {
                queue_monitor_free(qm);
                return -ENOMEM;
        }
        r = queue_monitor_start(qm);
        if (r < 0) {
                queue_monitor_free(qm);
                return r;
        }
        *ret = qm;
        return 0;
}

LaunchMonitors *launch_monitors_free(LaunchMonitors *m) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n; i++) {
                if (m->q[i]->fd >= 0)
                        log_link_info(m->ifname, "queue %" PRIu32 ": launch monitor stopped", m->q[i]->cfg.queue);
                queue_monitor_free(m->q[i]);
        }
        free(m->q);
        free(m->stats);
        sd_event_unref(m->event);
        free(m->ifname);
        free(m);
        return NULL;
}

static int cmp_config(const void *a, const void *b) {
        const LaunchMonitorConfig *x = a, *y = b;

        return (x->queue > y->queue) - (x->queue < y->queue);
}

int launch_monitors_sync(LaunchMonitors **pm, sd_event *e, const char *ifname, const LaunchMonitorConfig *cfgs,
                         size_t n, const LaunchMonitorHooks *hooks) {
        _cleanup_free_ LaunchMonitorConfig *want = NULL;
        _cleanup_free_ QueueMonitor **q = NULL;
        _cleanup_free_ LaunchQueueStats *stats = NULL;
        _cleanup_free_ bool *kept = NULL;
        LaunchMonitors *m = *pm;
        bool same;
        int r;

        if (n == 0) {
                *pm = launch_monitors_free(*pm);
                return 0;
        }
        want = malloc(n * sizeof(*want));
        if (!want)
                return -ENOMEM;
        memcpy(want, cfgs, n * sizeof(*want));
        qsort(want, n, sizeof(*want), cmp_config);

        if (!m) {
                m = calloc(1, sizeof(*m));
                if (!m)
                        return -ENOMEM;
                m->ifname = strdup(ifname);
                if (!m->ifname) {
                        free(m);
                        return -ENOMEM;
                }
                m->event = sd_event_ref(e);
                *pm = m;
        }
        m->hooks = hooks ? *hooks : (LaunchMonitorHooks) {};

        same = m->n == n;
        for (size_t i = 0; same && i < n; i++)
                same = launch_monitor_config_equal(&m->q[i]->cfg, &want[i]);
        if (same)
                return 0;

        q = calloc(n, sizeof(*q));
        stats = calloc(n, sizeof(*stats));
        kept = calloc(m->n + 1, sizeof(bool));
        if (!q || !stats || !kept)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < m->n; j++)
                        if (!kept[j] && launch_monitor_config_equal(&m->q[j]->cfg, &want[i])) {
                                kept[j] = true;
                                q[i] = m->q[j];
                                stats[i] = m->stats[j];
                                break;
                        }
        for (size_t i = 0; i < n; i++) {
                if (q[i])
                        continue;
                r = queue_monitor_new(m, &want[i], &q[i]);
                if (r < 0) {
                        for (size_t k = 0; k < n; k++) {
                                bool old = false;

                                for (size_t j = 0; j < m->n; j++)
                                        old = old || q[k] == m->q[j];
                                if (!old)
                                        queue_monitor_free(q[k]);
                        }
                        return r;
                }
                stats[i] = (LaunchQueueStats) { .queue = want[i].queue, .source = LAUNCH_STAMP_NONE };
        }
        for (size_t j = 0; j < m->n; j++)
                if (!kept[j]) {
                        if (m->q[j]->fd >= 0)
                                log_link_info(m->ifname, "queue %" PRIu32 ": launch monitor stopped",
                                              m->q[j]->cfg.queue);
                        queue_monitor_free(m->q[j]);
                }
        free(m->q);
        free(m->stats);
        m->q = TAKE_PTR(q);
        m->stats = TAKE_PTR(stats);
        m->n = n;
        for (size_t i = 0; i < n; i++)
                m->q[i]->index = i;
        return 0;
}

size_t launch_monitors_stats(const LaunchMonitors *m, const LaunchQueueStats **ret) {
        if (!m || m->n == 0) {
                *ret = NULL;
                return 0;
        }
        *ret = m->stats;
        return m->n;
}

LaunchStampChoice launch_monitors_stamps(const LaunchMonitors *m, uint32_t queue) {
        for (size_t i = 0; m && i < m->n; i++)
                if (m->q[i]->cfg.queue == queue)
                        return m->q[i]->stamps;
        return (LaunchStampChoice) {};
}

const LaunchMonitorConfig *launch_monitors_config(const LaunchMonitors *m, uint32_t queue) {
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n; i++)
                if (m->q[i]->cfg.queue == queue)
                        return &m->q[i]->cfg;
        return NULL;
}

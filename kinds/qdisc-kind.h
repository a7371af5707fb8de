/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The qdisc kinds tbsd installs (mqprio, taprio, etf, cbs): one ops table
 * per kind and position, in the manner of systemd-networkd's QDiscVTable.
 * A kind's file (kinds/KIND.c; taprio's schedule side in taprio-keys.c)
 * holds everything about it: its schedule keys and rules, its JSON, its
 * netlink options both ways, its comparison, its part of Describe() and
 * `tbsctl status`, what drift says of it; kinds/kinds.c is the one table
 * of them. The engine (daemon/qdisc/), the parser, the validator and the
 * CLI ask the table and never name a kind's fields. Nothing here logs or
 * talks to the kernel. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "json-tree.h"
#include "schedule.h"

struct json_object;
typedef struct Parser Parser;           /* lib/schedule-fields.h */
typedef struct Verifier Verifier;       /* lib/schedule-verifier.h */
typedef struct Where Where;             /* lib/schedule-verifier.h */

static inline void nlmsg_freep(struct nl_msg **m) {
        if (*m)
                nlmsg_free(*m);
}
#define _cleanup_nlmsg_ _cleanup_(nlmsg_freep)

/* A key a TX queue kind takes in a txqueues entry (and, unless
 * queue_only, in the root when the kind is the root qdisc), or a root
 * kind's own key of the root (queue_only unused), in the order messages
 * list them. The keys every kind takes (queue, qdisc, handle, stab; a
 * root's num_tc, priority_map and queues) are the parser's. */
typedef struct KindKey {
        const char *name;
        bool queue_only;
} KindKey;

typedef struct QDiscVTable {
        const char *kind;                /* TCA_KIND, and the schedule's "qdisc" */
        const char *article;             /* "a" or "an", as the name is said: "an mqprio", "a cbs" */
        bool root;                       /* spec is a RootSpec; otherwise an EtfSpec (a TX queue kind) */
        /* Root kinds: the kind the kernel puts on each TX queue when the root
         * is created. NULL: the system default (net.core.default_qdisc). */
        const char *default_child;
        /* Root kinds that set the device's traffic classes when created
         * and clear them when destroyed (Linux: mqprio and taprio call
         * netdev_set_num_tc() and netdev_reset_tc()). Replacing one such
         * root by another under another handle in one request leaves the
         * new one with none (the old one is destroyed after the new one
         * set them): the plan and the rollback delete the old one first. */
        bool traffic_classes;
        /* Append TCA_OPTIONS for spec to m. An EtfSpec's offload must be
         * resolved to OFFLOAD_ON or OFFLOAD_OFF. Returns 0 or -errno. For
         * the kinds libnl-route 3.7 lacks (taprio, etf, cbs). */
        int (*fill_options)(struct nl_msg *m, const void *spec);
        /* Root kinds libnl-route knows (mqprio): build the whole request
         * (RTM_NEWQDISC, NLM_F_CREATE|NLM_F_REPLACE, spec's handle on
         * TC_H_ROOT) with libnl-route's object and encoder instead. */
        int (*build_request)(int ifindex, const void *spec, struct nl_msg **ret);
        /* Parse a dumped TCA_OPTIONS attribute (NULL when the dump had none)
         * into *ret_spec (a RootSpec or EtfSpec; the caller sets handle or
         * queue). Returns 0, or -EBADMSG for a malformed payload, or -ENOMEM.
         * A RootSpec filled here owns its entries: root_spec_done() it. */
        int (*parse_options)(const struct nlattr *options, void *ret_spec);
        /* Whether two specs describe the same installed qdisc. */
        bool (*equal)(const void *a, const void *b);
        /* What a dumped TCA_OPTIONS (NULL when none) holds beyond the
         * model, which a schedule therefore cannot declare: a static phrase
         * such as "mqprio shaper bw_rlimit", or NULL when the model holds
         * it all. NULL op: the model holds every option of the kind. For
         * tbsctl import; the engine does not compare what it cannot set. */
        const char *(*unexpressed)(const struct nlattr *options);

        /* Root kinds with traffic classes (mqprio, taprio): the schedule
         * side of the root. The parser, the validator and the JSON output
         * do the keys all of them take (qdisc, handle, num_tc,
         * priority_map, queues, stab) and call these for the rest. */
        const KindKey *root_keys;        /* the kind's own keys of "root", after queues */
        size_t n_root_keys;
        /* Parse the kind's keys of the root object root (path "root") into r,
         * after the common ones (r->num_tc and the rest set as given). */
        void (*parse_root)(Parser *p, const JsonNode *root, RootSpec *r);
        /* The kind's rules for s->root, after the common ones. */
        void (*verify_root)(Verifier *v, const Schedule *s, const DeviceFacts *f);
        /* The kind's keys of r into o, after the common ones, as its file
         * gave them (reads back). Returns 0 or -ENOMEM. */
        int (*root_to_json)(struct json_object *o, const RootSpec *r);

        /* Root kinds: what the planner and the rollback ask of a running
         * root of the kind (daemon/qdisc/). */
        /* Why installed (a root of the kind) cannot take want's schedule
         * in place, in buf ("mode software instead of txtime-assist"), or
         * NULL when it can. NULL op: a root of the kind is re-created for
         * any change (root_in_place_blocker()). */
        const char *(*in_place_blocker)(const RootSpec *installed, const RootSpec *want, char *buf, size_t size);
        /* The request of a change in place of installed at now_ns: r (a
         * shallow copy of the schedule's root) gets the base time and the
         * TC entries it sends. With in_place_blocker. */
        void (*settle_change)(RootSpec *r, const RootSpec *installed, int64_t now_ns);
        /* The clock the kind's times count in, which the planner reads
         * once for a base time left to tbsd. NULL op: the kind has none. */
        clockid_t (*time_clock)(const RootSpec *r);
        /* Whether grafting a child stops r's schedule (Linux 6.1, a
         * software taprio), so that it is sent again after the children
         * (the plan and the rollback). NULL op: never. */
        bool (*restart_after_graft)(const RootSpec *r);
        /* Before anything is sent: what installed (a root of the kind)
         * shows the kernel lacks of want, as the error ("root.max_sdu:
         * ...; nothing changed"), or NULL. NULL op: nothing. */
        const char *(*kernel_lacks)(const RootSpec *want, const RootSpec *installed);
        /* The kind sends a per-class max SDU (root_has_max_sdu()), which a
         * kernel without it ignores: a new root's is read back. */
        bool sends_max_sdu;
        /* The root gates its classes by a gate list (taprio: RootSpec's
         * entries, cycle and base time): a launch time passes only inside
         * a window of its class (kinds/taprio-windows.h; GetTxtimeWindow(),
         * the launch-time monitor). */
        bool gates;
        /* The gate schedule r runs (with gates): its entries, cycle, base
         * time and extension, as a view into r (buf's entries are r's, not
         * owned), for the rules on a gate list, the broker and the
         * monitor. Returns buf. */
        const GateSchedule *(*gate_schedule)(const RootSpec *r, GateSchedule *buf);
        /* How far ahead of its dequeue r stamps a launch time on a frame
         * (with stamps_txtime: taprio's txtime_delay_ns). */
        uint32_t (*stamp_delay_ns)(const RootSpec *r);
        /* r's gate list becomes entries (n of them; r holds the pointer,
         * the old list is not freed) over cycle_ns, as computed, not as a
         * file's cycle_time_ns (the streams' gate list). With gates. */
        void (*set_gate_list)(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns);
        /* to is a shallow copy of from: give it its own copies of what
         * from's spec owns (the gate list; with_running, also a dump's
         * running schedule, else none). On failure to owns nothing of
         * from's. Returns 0 or -ENOMEM. NULL op: the spec owns nothing. */
        int (*copy)(RootSpec *to, const RootSpec *from, bool with_running);
        /* r, a dumped root, gives the keys a file would: effective
         * (Describe()), every value the kernel runs (taprio's cycle time,
         * given or summed, and the max SDUs a kernel reports, 0 too);
         * otherwise (tbsctl import) what a file states (a cycle time only
         * where it is not the sum of the intervals). NULL op: as dumped. */
        void (*dump_as_file)(RootSpec *r, bool effective);
        /* What the file leaves to tbsd's now (taprio's base time "now")
         * becomes now_ns (time_clock's), for a new root. NULL op: nothing. */
        void (*settle_now)(RootSpec *r, int64_t now_ns);
        /* The clock the root checks a socket's launch time on when no etf
         * does (taprio: its clockid). NULL op: nothing checks it. */
        clockid_t (*launch_clock)(const RootSpec *r);
        /* Whether r stamps a launch time on its frames itself (taprio's
         * txtime-assist: also on a socket's without SO_TXTIME, which its
         * etfs then take with skip_sock_check). NULL op: never. */
        bool (*stamps_txtime)(const RootSpec *r);
        /* Whether the NIC runs r's gates itself (taprio's full offload):
         * replacing r may reset the link. NULL op: never. */
        bool (*gates_in_nic)(const RootSpec *r);
        /* The kernel refuses a size table on a TX queue's qdisc under the
         * root (sch_api.c takes one only on a root or under mqprio/mq:
         * "STAB not supported on a non root"; taprio). */
        bool refuses_txq_stab;
        /* Whether r's traffic classes may share TX queues (taprio in
         * txtime-assist mode, the one root whose queue ranges Linux lets
         * overlap; root_queues_may_overlap()). NULL op: never. */
        bool (*queues_may_overlap)(const RootSpec *r);
        /* Before comparing want (a shallow copy of a schedule's root, for
         * drift and ownership) with installed: what the file leaves to
         * tbsd or the kernel settles (a taprio's base time and effective
         * max SDUs) takes installed's. NULL op: nothing to settle. */
        void (*settle_installed)(RootSpec *want, const RootSpec *installed, const DeviceFacts *f);
        /* Describe(): what a dump of the kind holds beside the schedule's
         * keys (taprio's running and pending schedules) into o. */
        void (*describe_root)(struct json_object *o, const RootSpec *installed);
        /* The kernel keeps statistics per traffic class of the root
         * (taprio's offload counters: window drops, transmit overruns),
         * which Describe() shows as the root's "class_stats". */
        bool class_stats;

        /* Every kind: the defaults of its own settings in spec (a RootSpec
         * for a root kind, else an EtfSpec), set before the file says which
         * kind it is: root_spec_init() and etf_spec_init() run every kind's.
         * NULL op: all zero. */
        void (*init)(void *spec);

        /* The rest: TX queue kinds only (root false; an etf or cbs as the
         * root is a RootSpec whose leaf is handled by these). */
        TxqKind txq;
        /* Another name a schedule's "qdisc" may give the kind (etf's old
         * name "tbs"), or NULL. */
        const char *old_name;
        /* The qdisc itself releases each frame at its launch time, delta_ns
         * ahead, and drops late ones (etf): a queue of the kind carries the
         * rules on delta_ns and skip_sock_check against the root's gates,
         * the launch-time monitor and the deadline-miss counters. A cbs's
         * etf child is its own etf (etf_spec_etf_part()). */
        bool releases_at_txtime;
        const KindKey *keys;
        size_t n_keys;
        /* Parse the kind's keys of object e (at path) into q (kind, queue
         * and stab set by the caller, other fields at their defaults);
         * as_root: e is the root (the queue-only keys are not there). */
        void (*parse)(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, bool as_root);
        /* The kind's rules for q, whose keys sit at at (lib/schedule-verifier.h). */
        void (*verify)(Verifier *v, const EtfSpec *q, const Where *at, const DeviceFacts *f);
        /* Rules over all of a schedule's queues of the kind (NULL: none). */
        void (*verify_schedule)(Verifier *v, const Schedule *s, const DeviceFacts *f);
        /* The kind's keys of q into o as its file gave them (reads back).
         * Returns 0 or -ENOMEM. */
        int (*to_json)(struct json_object *o, const EtfSpec *q);
        /* Describe(): the kind's values of e (as installed, else as
         * declared) into o. Returns 0 or -ENOMEM. */
        int (*describe)(struct json_object *o, const EtfSpec *e);
        /* tbsctl status: the kind's values of a Describe() queue object q
         * as one phrase, for example "CLOCK_TAI, delta 300000 ns". */
        void (*status_text)(struct json_object *q, char *buf, size_t size);
        /* Drift: how have differs from want (same kind, not equal), one
         * phrase into buf. */
        const char *(*difference)(const EtfSpec *have, const EtfSpec *want, char buf[static 96]);
        /* Values the file leaves to be computed with the device's facts
         * (a cbs bandwidth needs the link speed): compute them into q.
         * Returns 0, or -errno and *ret_error ("LABEL (KIND): why"; NULL
         * when out of memory). NULL op: nothing to compute. */
        int (*resolve)(EtfSpec *q, const DeviceFacts *f, const char *label, char **ret_error);
        /* Before comparing want (a copy) with installed for ownership,
         * without device facts: unresolved values take installed's. */
        void (*settle_unresolved)(EtfSpec *want, const EtfSpec *installed);
        /* Whether the device runs the kind on TX queue queue itself (with
         * f->offload_known), and the reason either way. */
        bool (*offload_available)(const DeviceFacts *f, uint32_t queue, const char **ret_reason);
        /* The link speed the file gives for q (Mbit/s; a cbs's
         * link_speed_mbps), 0 when none. NULL op: none. */
        uint32_t (*file_link_speed)(const EtfSpec *q);
        /* The kind may hold an etf as its "child" (the kernel's parent
         * HANDLE:1; EtfSpec.etf_child and the etf fields). */
        bool takes_etf_child;
} QDiscVTable;

extern const QDiscVTable qdisc_mqprio_vtable;
extern const QDiscVTable qdisc_taprio_vtable;
extern const QDiscVTable qdisc_etf_vtable;
extern const QDiscVTable qdisc_cbs_vtable;
extern const QDiscVTable qdisc_etf_root_vtable;  /* etf as the root: a RootSpec with its leaf */
extern const QDiscVTable qdisc_cbs_root_vtable;  /* cbs as the root: a RootSpec with its leaf */

/* The table (kinds/kinds.c), indexed by kind. */
extern const QDiscVTable *const qdisc_root_vtables[_ROOT_KIND_MAX];
extern const QDiscVTable *const qdisc_txq_vtables[_TXQ_KIND_MAX];

/** The ops of a TX queue kind (etf, cbs), or NULL when out of range. */
static inline const QDiscVTable *qdisc_vtable_for_child(TxqKind k) {
        return (unsigned) k < _TXQ_KIND_MAX ? qdisc_txq_vtables[k] : NULL;
}

/** Whether q's qdisc is a kind that releases frames at their launch time
 *  itself (QDiscVTable.releases_at_txtime: an etf queue). */
static inline bool txq_releases_at_txtime(const EtfSpec *q) {
        const QDiscVTable *vt = qdisc_vtable_for_child(q->kind);

        return vt && vt->releases_at_txtime;
}

/** The TX queue kind a schedule's "qdisc" names ("etf", "cbs"; "tbs" is
 *  etf's old name, which the parser keeps), or NULL. len: the string's
 *  length (a JSON string may hold a NUL). */
const QDiscVTable *qdisc_vtable_txq_by_name(const char *name, size_t len);

/** The ops for a TCA_KIND string ("mqprio", "taprio", "etf", "cbs"), or NULL. */
const QDiscVTable *qdisc_vtable_by_kind(const char *kind);

/** The root ops for a TCA_KIND string ("mqprio", "taprio", "etf", "cbs"),
 *  or NULL. */
const QDiscVTable *qdisc_vtable_root_by_kind(const char *kind);

/** The kinds of the table for a message, in its order: the root kinds
 *  (roots) or the TX queue kinds, as `"mqprio", "taprio", "etf" or "cbs"`
 *  (quoted) or `mqprio, taprio, etf and cbs`, conj being the last
 *  separator (" or ", " and "). Returns buf. */
const char *qdisc_kind_names(char buf[static 96], bool roots, bool quoted, const char *conj);

/** The ops for a root kind, or NULL when out of range. */
static inline const QDiscVTable *qdisc_vtable_for_root(RootKind k) {
        return (unsigned) k < _ROOT_KIND_MAX ? qdisc_root_vtables[k] : NULL;
}

/** Why installed cannot take want's schedule in place, in buf: another
 *  kind ("root kind mqprio instead of taprio"), a kind that never changes
 *  in place ("mqprio cannot change in place"), or what the kind's
 *  in_place_blocker says. Returns NULL when it can. */
const char *root_in_place_blocker(const RootSpec *installed, const RootSpec *want, char *buf, size_t size);

/** Whether grafting a child stops r's schedule (QDiscVTable.restart_after_graft). */
bool root_restart_after_graft(const RootSpec *r);

/** Before comparing want with installed (QDiscVTable.settle_installed). */
void root_settle_installed(RootSpec *want, const RootSpec *installed, const DeviceFacts *f);

/** Whether r stamps launch times itself (QDiscVTable.stamps_txtime). */
bool root_stamps_txtime(const RootSpec *r);
/** Whether the NIC runs r's gates (QDiscVTable.gates_in_nic). */
bool root_gates_in_nic(const RootSpec *r);

/** Whether r gates its classes by a gate list (QDiscVTable.gates). */
bool root_gates(const RootSpec *r);

/** The gate schedule r runs (QDiscVTable.gate_schedule) as a view into r
 *  in buf (its entries are r's), or NULL for a root without gates. */
const GateSchedule *root_gate_schedule(const RootSpec *r, GateSchedule *buf);

/** r's gate list becomes entries (not freed by the call: a view, when
 *  r is a shallow copy) over cycle_ns, as computed (QDiscVTable.set_gate_list);
 *  nothing for a root without gates. */
void root_set_gate_list(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns);
/** r's gate list is freed and becomes entries (r takes them; NULL, 0 for
 *  none) over cycle_ns, as computed; for a root without gates entries are
 *  freed. */
void root_take_gate_list(RootSpec *r, GateEntry *entries, size_t n, int64_t cycle_ns);
/** r's gate list is freed and emptied, its cycle time kept (to be
 *  computed again). */
void root_drop_gate_list(RootSpec *r);

/** *to = *from, with its own copies of what from's kind owns (the gate
 *  list; with_running, a dump's running schedule too, else none:
 *  QDiscVTable.copy). root_spec_done() to, also after a failure. Returns
 *  0 or -ENOMEM. */
int root_spec_copy(RootSpec *to, const RootSpec *from, bool with_running);

/** Every root kind's defaults of its own settings in r (QDiscVTable.init),
 *  before the file names the kind. */
void root_spec_init(RootSpec *r);
/** Every TX queue kind's defaults of its own settings in q. */
void etf_spec_init(EtfSpec *q);

/** r, a dumped root, gives the keys a file would (QDiscVTable.dump_as_file). */
void root_dump_as_file(RootSpec *r, bool effective);

/** How far ahead r stamps launch times (QDiscVTable.stamp_delay_ns), 0
 *  for a root that stamps none. */
uint32_t root_stamp_delay_ns(const RootSpec *r);

/** The clock r checks a socket's launch time on without an etf
 *  (QDiscVTable.launch_clock), CLOCK_TAI when nothing checks it. */
clockid_t root_launch_clock(const RootSpec *r);

/** Whether e puts an etf on its queue: a queue of a kind that releases
 *  frames at their launch time (etf), or a cbs with an etf under it. */
bool etf_spec_has_etf(const EtfSpec *e);

/** The etf settings e puts on its queue (clock, delta, deadline mode,
 *  skip_sock_check: an etf queue's own or a cbs's etf child's), or NULL
 *  when it puts none (etf_spec_has_etf()). For the broker, the monitor and
 *  the rules on launch times. */
const EtfOptions *etf_spec_etf(const EtfSpec *e);

/** The etf that e puts on its queue (etf_spec_has_etf()) as an etf queue
 *  of its own: e itself, or a cbs's child with its offload (kinds/etf.c). */
EtfSpec etf_spec_etf_part(const EtfSpec *e);

/** Whether r's traffic classes may share TX queues: the root kind says so
 *  (QDiscVTable.queues_may_overlap: taprio in txtime-assist mode), the one root whose queue ranges Linux (6.1, taprio_parse_mqprio_opt())
 *  lets overlap. Every other root has each TX queue in one class at most. */
bool root_queues_may_overlap(const RootSpec *r);

/** Whether an installed taprio base time satisfies the schedule's want at
 *  now_ns (want's clock): the same, or for a base time the schedule leaves
 *  to tbsd ("now", or one already past at now_ns) any base time at or after
 *  it (an in-place change moves such a base time forward to a cycle
 *  boundary of the running schedule). */
bool taprio_base_time_satisfied(const RootSpec *want, int64_t installed_ns, int64_t now_ns);
/** Whether any traffic class of r has a max_sdu limit. */
bool root_has_max_sdu(const RootSpec *r);
/** Whether the kernel reported max SDUs per class for installed (a dump
 *  with taprio's TC entries: a kernel that knows them). */
bool root_max_sdu_reported(const RootSpec *installed);
/** Whether r's request carries its max SDUs per class. */
bool root_max_sdu_sent(const RootSpec *r);
/** Whether r's request carries its max SDUs per class (a rollback's or a
 *  restart's, which sends what the kernel had). */
void root_send_max_sdu(RootSpec *r, bool send);

/** Close a nest opened with nla_nest_start(). nla_len is 16 bits: a nest
 *  above 65535 bytes cannot be expressed, libnl then cuts it off the message
 *  (which would send the request without it). Returns 0, or -EMSGSIZE when
 *  the nest overflowed (the message must not be sent). */
int qdisc_nest_end(struct nl_msg *m, struct nlattr *start);

/* Room of a request without a gate list (they are below 300 bytes); libnl
 * messages do not grow, a taprio root gets room per entry on top. */
#define QDISC_REQUEST_SIZE 512

/* Helpers the kinds share (kind-common.c, apart from the table). */

/** The parts of two roots every kind compares: kind, handle, number of
 *  classes, size table. A root kind's compare (QDiscVTable.equal) adds its
 *  own; root_spec_equal() asks the table which. */
bool root_head_equal(const RootSpec *a, const RootSpec *b);
/** A root with traffic classes: priority map, queues per class and frame
 *  preemption (compared only when a side gives it, as the kernel dumps it
 *  only from Linux 6.4 on). */
bool root_classes_equal(const RootSpec *a, const RootSpec *b);

/** Fill a struct tc_mqprio_qopt (mqprio's options, taprio's PRIOMAP) from r.
 *  buf must hold sizeof(struct tc_mqprio_qopt) bytes. */
void qdisc_qopt_from_root(const RootSpec *r, void *buf);
/** Read num_tc, priority_map and queues from a struct tc_mqprio_qopt of len
 *  bytes. Returns 0, or -EBADMSG when too short or num_tc is out of range. */
int qdisc_qopt_to_root(const void *buf, size_t len, RootSpec *r);

/** The current time of clock in ns (clock_gettime()), 0 when it cannot be read. */
int64_t qdisc_clock_now_ns(clockid_t clock);

/** The clock a taprio's times count in: its clockid, CLOCK_TAI for full
 *  offload (the NIC's PHC, kept on TAI by phc2sys). */
clockid_t taprio_time_clock(const RootSpec *r);

/** Before comparing want (a shallow copy of a schedule's root) with the
 *  installed root: a taprio base time the schedule leaves to tbsd that the
 *  installed one satisfies at now_ns (taprio_base_time_satisfied()) takes
 *  the installed value, so that equal() compares the rest. Other kinds and
 *  other base times are left alone. */
void taprio_settle_base_time(RootSpec *want, const RootSpec *installed, int64_t now_ns);


/** Whether device facts f say queue is in mask (bit q: queue q). */
static inline bool queue_in_mask(uint64_t mask, uint32_t queue) {
        return queue < 64 && (mask & (UINT64_C(1) << queue));
}

/** An offload setting as the file gives it: true, false or "auto". */
struct json_object *kind_offload_to_json(OffloadMode m);
/** The file's "offload" of e at prefix into *ret (true, false, "auto"). */
void kind_parse_offload(Parser *p, const char *prefix, const JsonNode *e, OffloadMode *ret);

/* The etf parts other kinds hold: a cbs's "child" (kinds/etf.c). */
void etf_parse_keys(Parser *p, const char *path, const JsonNode *e, EtfSpec *q, OffloadMode *offload);
int etf_keys_to_json(struct json_object *o, const EtfSpec *q, OffloadMode offload);
void etf_verify_qdisc(Verifier *v, const EtfSpec *q, const Where *at, OffloadMode offload, const DeviceFacts *f);
bool etf_qdisc_equal(const EtfSpec *a, const EtfSpec *b);
const char *etf_difference(const EtfSpec *have, const EtfSpec *want, char buf[static 96]);

/* Linux 6.4's frame preemption attributes (include/uapi/linux/pkt_sched.h
 * of 6.12), which Debian 12's headers (6.1) lack; enum values there, so
 * named here: mqprio's TCA_MQPRIO_TC_ENTRY nest after its struct (index
 * u32, fp u32) and taprio's fp in its TCA_TAPRIO_ATTR_TC_ENTRY. */
#define TBS_TCA_MQPRIO_TC_ENTRY 5               /* after TCA_MQPRIO_MAX_RATE64 */
#define TBS_TCA_MQPRIO_TC_ENTRY_INDEX 1
#define TBS_TCA_MQPRIO_TC_ENTRY_FP 2
#define TBS_TCA_MQPRIO_TC_ENTRY_MAX 2
#define TBS_TCA_TAPRIO_TC_ENTRY_FP 3            /* after TCA_TAPRIO_TC_ENTRY_MAX_SDU */
#define TBS_TCA_TAPRIO_TC_ENTRY_MAX 3

/* Frame preemption per traffic class (mqprio's and taprio's "fp" of the
 * root, kinds/kinds.c): parsed as "E" or "P" (express, preemptible, as tc
 * writes them), one per class; written back as given; checked against
 * num_tc. */
void kind_parse_fp(Parser *p, const JsonNode *root, RootSpec *r);
int kind_fp_to_json(struct json_object *o, const RootSpec *r);
void kind_verify_fp(Verifier *v, const RootSpec *r);

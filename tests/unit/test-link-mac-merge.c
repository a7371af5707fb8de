/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A link's MAC merge layer around the apply (daemon/link/link-mac-merge.c):
 * read first, refused in one line without a layer, set only what differs,
 * "unchanged" when nothing does, put back when the tree's apply fails,
 * asked lazily for status and metrics, and checked for drift with the
 * tree (report and enforce). The three socket functions of
 * daemon/probe/mac-merge-socket.c are stood in for here (this file defines
 * them, so the linker takes these and not the library's); the device is
 * the ENETC-like port of test-mac-merge.c, off at the start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "caps-probe.h"
#include "link-internal.h"
#include "mac-merge.h"
#include "metrics.h"
#include "schedule-parse.h"

/* The stand-in device. */
static struct {
        int get_error;          /* what MM_GET answers: 0 or -errno */
        int set_error;          /* what MM_SET answers */
        MacMergeState state;    /* the layer's settings */
        unsigned gets, sets, probes;
        MacMergeSpec last_set;
        bool last_set_all;      /* the last set sent every setting (have NULL) */
} dev;

int mac_merge_get(int ifindex, MacMergeState *ret, char *err, size_t err_size) {
        dev.gets++;
        if (err && err_size)
                err[0] = 0;
        if (dev.get_error < 0)
                return dev.get_error;
        *ret = dev.state;
        return 0;
}

int mac_merge_set(int ifindex, const MacMergeSpec *want, const MacMergeState *have, char *err, size_t err_size) {
        uint8_t buf[256];

        if (err && err_size)
                err[0] = 0;
        /* What the library would send: nothing when nothing differs. */
        if (mm_msg_set(buf, sizeof(buf), 0, 0, 7, want, have) == 0)
                return 0;
        dev.sets++;
        dev.last_set = *want;
        dev.last_set_all = !have;
        if (dev.set_error < 0)
                return dev.set_error;
        if (want->pmac_given || (want->tx_given && want->tx_enabled))
                dev.state.pmac_enabled = want->pmac_given ? want->pmac_enabled : true;
        if (want->tx_given)
                dev.state.tx_enabled = dev.state.tx_active = want->tx_enabled;
        if (want->verify_given)
                dev.state.verify_enabled = want->verify_enabled;
        if (want->verify_time_ms)
                dev.state.verify_time_ms = want->verify_time_ms;
        if (want->tx_min_frag_bytes)
                dev.state.tx_min_frag_size = want->tx_min_frag_bytes;
        return 1;
}

int mac_merge_probe(int ifindex) {
        dev.probes++;
        return dev.get_error == -EOPNOTSUPP ? 0 : dev.get_error < 0 ? dev.get_error : 1;
}

static const MacMergeState port_off = {
        .verify_status = 5, .verify_time_ms = 10, .max_verify_time_ms = 128,
        .tx_min_frag_size = 124, .rx_min_frag_size = 60,
        .stats = { 3, 1, 120345, 240690, 98765, 42 }, .stats_present = 0x3f,
};

static Link *new_link(const char *mac_merge) {
        char text[512];
        LinkContext *ctx = calloc(1, sizeof(LinkContext));
        DiagList d = {};
        Link *l = NULL;

        snprintf(text, sizeof(text),
                 "{\"interface\": \"eno0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1, \"priority_map\": "
                 "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], \"queues\": [{\"count\": 1, \"offset\": 0}]}%s%s}",
                 mac_merge ? ", \"mac_merge\": " : "", mac_merge ?: "");
        assert_non_null(ctx);
        assert_int_equal(link_new(ctx, "eno0", &l), 0);
        assert_int_equal(schedule_parse_json("eno0.json", text, strlen(text), &d, &l->schedule), 0);
        diag_list_clear(&d);
        l->ifindex = 7;
        dev = (typeof(dev)) { .state = port_off };
        return l;
}

static void free_link(Link *l) {
        LinkContext *ctx = (LinkContext *) l->ctx;

        link_free(l);
        free(ctx);
}

static void test_no_layer(void **state) {
        Link *l = new_link("{\"tx_enabled\": true}");
        ApplyReport rep = {};
        char *line = NULL;

        dev.get_error = -EOPNOTSUPP;
        assert_int_equal(link_mac_merge_prepare(l, &line), -EOPNOTSUPP);
        assert_string_equal(line, "mac_merge: the device has no MAC merge layer (ethtool netlink MM_GET: "
                                  "Operation not supported); nothing changed");
        assert_int_equal(dev.sets, 0);
        /* the engine is not run; a finish (as after any refusal) changes nothing */
        assert_int_equal(link_mac_merge_finish(l, 0, &rep), 0);
        assert_int_equal(dev.sets, 0);
        free(line);
        free_link(l);
}

static void test_set_then_unchanged(void **state) {
        Link *l = new_link("{\"tx_enabled\": true, \"verify_enabled\": true, \"verify_time_ms\": 10, "
                           "\"tx_min_frag_bytes\": 60}");
        ApplyReport rep = {};
        char *line = NULL;

        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        assert_null(line);
        assert_int_equal(dev.gets, 1);
        assert_int_equal(dev.sets, 1);
        assert_false(dev.last_set_all);
        assert_true(dev.state.tx_enabled && dev.state.pmac_enabled && dev.state.verify_enabled);
        assert_int_equal(dev.state.tx_min_frag_size, 60);
        /* the tree unchanged, the layer set: applied, one change */
        assert_int_equal(link_mac_merge_finish(l, 0, &rep), 1);
        assert_int_equal(rep.n_messages, 1);

        /* again: the device has it all, nothing is sent */
        rep = (ApplyReport) {};
        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        assert_int_equal(dev.sets, 1);
        assert_int_equal(link_mac_merge_finish(l, 0, &rep), 0);
        assert_int_equal(rep.n_messages, 0);
        free_link(l);
}

static void test_rollback(void **state) {
        Link *l = new_link("{\"tx_enabled\": true, \"tx_min_frag_bytes\": 60}");
        ApplyReport rep = {};
        char *line = NULL;

        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        assert_int_equal(dev.sets, 1);
        /* the tree's apply failed: every setting back as it was read */
        assert_int_equal(link_mac_merge_finish(l, -EINVAL, &rep), -EINVAL);
        assert_int_equal(dev.sets, 2);
        assert_true(dev.last_set_all);
        assert_false(dev.state.tx_enabled || dev.state.pmac_enabled || dev.state.verify_enabled);
        assert_int_equal(dev.state.tx_min_frag_size, 124);
        assert_null(rep.rollback_error);

        /* putting it back fails too: said in the report */
        dev.state = port_off;
        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        dev.set_error = -EIO;
        assert_int_equal(link_mac_merge_finish(l, -EINVAL, &rep), -EINVAL);
        assert_non_null(rep.rollback_error);
        assert_string_equal(rep.rollback_error, "mac_merge: putting the MAC merge layer back failed (ethtool netlink "
                                                "MM_SET: Input/output error)");
        apply_report_done(&rep);
        free_link(l);
}

static void test_set_refused(void **state) {
        Link *l = new_link("{\"tx_enabled\": true}");
        char *line = NULL;

        dev.set_error = -ERANGE;
        assert_int_equal(link_mac_merge_prepare(l, &line), -ERANGE);
        assert_string_equal(line, "mac_merge: the kernel refused the settings (ethtool netlink MM_SET: Numerical "
                                  "result out of range); nothing changed");
        free(line);
        free_link(l);
}

/* A schedule without mac_merge: no question at the apply. */
static void test_without_key(void **state) {
        Link *l = new_link(NULL);
        ApplyReport rep = {};
        char *line = NULL;

        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        assert_int_equal(link_mac_merge_finish(l, 0, &rep), 0);
        assert_int_equal(dev.gets + dev.sets + dev.probes, 0);
        free_link(l);
}

/* Status and metrics: the device asked once whether it has the layer. */
static void test_lazy_read(void **state) {
        Link *l = new_link(NULL);
        MetricsLink m = {};
        struct json_object *o, *caps = json_object_new_object();

        dev.get_error = -EOPNOTSUPP;
        assert_null(link_mac_merge_json(l));
        link_mac_merge_metrics(l, &m);
        assert_false(m.has_mac_merge);
        assert_int_equal(dev.probes, 1);
        assert_int_equal(dev.gets, 0);
        link_mac_merge_note_caps(l, caps);
        assert_string_equal(json_object_to_json_string(caps), "{ \"mac_merge\": false }");
        json_object_put(caps);
        free_link(l);

        l = new_link(NULL);
        o = link_mac_merge_json(l);
        assert_non_null(o);
        assert_string_equal(json_object_get_string(json_object_object_get(o, "verify_status")), "disabled");
        json_object_put(o);
        link_mac_merge_metrics(l, &m);
        assert_true(m.has_mac_merge);
        assert_int_equal(m.mac_merge.verify_status, 5);
        assert_int_equal(m.mac_merge.counters[METRICS_MM_TX_FRAGMENTS], 98765);
        assert_int_equal(dev.probes, 1);
        assert_int_equal(dev.gets, 2);
        free_link(l);
}

/* Drift: the settings the file gives, changed by someone else, said in one
 * line; the settings it leaves out are the device's business. */
static void test_drift_describe(void **state) {
        Link *l = new_link("{\"tx_enabled\": true, \"verify_time_ms\": 20}");
        char *what = NULL;

        /* the apply set them: no drift */
        assert_int_equal(link_mac_merge_prepare(l, &what), 0);
        assert_int_equal(link_mac_merge_drift(l, &what), 0);
        assert_null(what);
        /* a change the file does not speak of */
        dev.state.tx_min_frag_size = 252;
        dev.state.verify_enabled = true;
        assert_int_equal(link_mac_merge_drift(l, &what), 0);
        /* ethtool --set-mm eno0 tx-enabled off pmac-enabled off verify-time 10 */
        dev.state.tx_enabled = dev.state.pmac_enabled = false;
        dev.state.verify_time_ms = 10;
        assert_int_equal(link_mac_merge_drift(l, &what), 1);
        assert_string_equal(what, "mac_merge: tx_enabled false instead of true, pmac_enabled false instead of true, "
                                  "verify_time_ms 10 instead of 20");
        free(what);
        what = NULL;
        /* enforce: the re-apply sets what differs, and it matches again */
        assert_int_equal(link_mac_merge_prepare(l, &what), 0);
        assert_int_equal(dev.sets, 2);
        assert_false(dev.last_set_all);
        assert_int_equal(link_mac_merge_drift(l, &what), 0);
        /* a layer that cannot be read is not judged */
        dev.get_error = -EIO;
        dev.state.tx_enabled = false;
        assert_int_equal(link_mac_merge_drift(l, &what), 0);
        assert_null(what);
        free_link(l);

        /* a schedule without mac_merge: no question */
        l = new_link(NULL);
        assert_int_equal(link_mac_merge_drift(l, &what), 0);
        assert_int_equal(dev.gets + dev.sets + dev.probes, 0);
        free_link(l);
}

static struct {
        char kinds[256], last[512];
} events;

static void on_event(Link *l, const char *kind, const char *message, void *userdata) {
        snprintf(events.kinds + strlen(events.kinds), sizeof(events.kinds) - strlen(events.kinds), "%s%s",
                 events.kinds[0] ? " " : "", kind);
        snprintf(events.last, sizeof(events.last), "%s", message);
}

static int ifindex_of(const char *name, void *userdata) {
        return 7;
}

/* The link's drift check (link_reconcile()) with a tree as declared in a
 * dump: the layer changed behind tbsd's back is drift; with "report" the
 * link goes degraded with what changed and back to configured when the
 * settings return. ("enforce" re-applies: link_mac_merge_prepare() above
 * is what that apply does to the layer.) */
static void test_drift_report(void **state) {
        Link *l = new_link("{\"tx_enabled\": true}");
        LinkContext *ctx = (LinkContext *) l->ctx;
        QDiscTree t = { .ifindex = 7, .has_root = true, .root_known = true };
        QDiscTreeSet set = { .trees = &t, .n = 1 };
        char *line = NULL;

        ctx->on_event = on_event;
        ctx->ifindex_of = ifindex_of;
        ctx->one_shot = true;
        events.kinds[0] = 0;
        l->schedule->drift = DRIFT_REPORT;
        t.root.handle = TBS_DEFAULT_ROOT_HANDLE;
        snprintf(t.root.kind, sizeof(t.root.kind), "mqprio");
        t.root_spec = l->schedule->root;
        t.root_spec.handle = TBS_DEFAULT_ROOT_HANDLE;
        /* installed, the layer set */
        assert_int_equal(link_mac_merge_prepare(l, &line), 0);
        l->rt->applied = true;
        link_update_installed_state(l);
        assert_int_equal(l->state, LINK_STATE_CONFIGURED);

        link_reconcile(l, &set);
        assert_int_equal(l->state, LINK_STATE_CONFIGURED);
        assert_string_equal(events.kinds, "");

        dev.state.tx_enabled = false;
        link_reconcile(l, &set);
        assert_int_equal(l->state, LINK_STATE_DEGRADED);
        assert_string_equal(l->state_reason, "drift: mac_merge: tx_enabled false instead of true");
        assert_string_equal(events.kinds, "drift");
        assert_string_equal(events.last, "mac_merge: tx_enabled false instead of true (changed outside tbsd; "
                                         "policy report)");
        assert_int_equal(dev.sets, 1);  /* left as it is */
        /* the same drift again: said once */
        link_reconcile(l, &set);
        assert_string_equal(events.kinds, "drift");

        dev.state.tx_enabled = true;
        link_reconcile(l, &set);
        assert_int_equal(l->state, LINK_STATE_CONFIGURED);
        assert_string_equal(events.kinds, "drift restored");
        free_link(l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_layer),
                cmocka_unit_test(test_set_then_unchanged),
                cmocka_unit_test(test_rollback),
                cmocka_unit_test(test_set_refused),
                cmocka_unit_test(test_without_key),
                cmocka_unit_test(test_lazy_read),
                cmocka_unit_test(test_drift_describe),
                cmocka_unit_test(test_drift_report),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

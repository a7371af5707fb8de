/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl status over every root kind tbsd can meet (issue 47): the link's
 * Describe() document (daemon/link/link-describe.c) of a recorded kernel
 * dump (fixtures/qdisc/, whose tc -j is the oracle) or of a root the kernel
 * makes itself (noqueue, pfifo_fast, mq, fq_codel) or an administrator
 * puts there, and its human form (cli/status-render.c): the root's kind and
 * handle as the kernel has them, whose it is, why the schedule's tree is
 * not there, and never a "?" for something the document does not say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <linux/pkt_sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json-util.h"
#include "link.h"
#include "qdisc-fixture-roots.h"
#include "qdisc-tree.h"
#include "read-all.h"
#include "schedule-parse.h"
#include "status-render.h"

/* The schedule of mqprio-etf.bin: its tree is tbsd's. */
static const char schedule_text[] =
        "{\"interface\": \"va\","
        " \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 3,"
        "          \"priority_map\": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],"
        "          \"queues\": [{\"count\": 1, \"offset\": 0}, {\"count\": 1, \"offset\": 1},"
        "                     {\"count\": 2, \"offset\": 2}]},"
        " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"etf\", \"delta_ns\": 300000},"
        "              {\"queue\": 1, \"qdisc\": \"etf\", \"delta_ns\": 500000, \"deadline_mode\": true,"
        "               \"skip_sock_check\": true}],"
        " \"clock\": {\"ptp4l_socket\": \"/run/none\"}}";

static const char refusal[] = "root.mode: full offload needs a device with taprio offload (va has none)";

static Link *new_link(bool with_schedule, LinkState state) {
        static LinkContext ctx = {};    /* nobody told: no manager, no bus */
        DiagList d = {};
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "va", &l), 0);
        if (with_schedule) {
                assert_int_equal(schedule_parse_json("va.json", schedule_text, strlen(schedule_text), &d,
                                                     &l->schedule), 0);
                diag_list_clear(&d);
        }
        l->state = state;
        if (state == LINK_STATE_FAILED) {
                free(l->state_reason);
                l->state_reason = strdup(refusal);
                assert_non_null(l->state_reason);
        }
        return l;
}

/* What render_status() prints for d. */
static char *rendered(struct json_object *d) {
        char path[] = "/tmp/test-status-render.XXXXXX";
        int fd = mkstemp(path), saved = dup(STDOUT_FILENO);
        char *s;

        assert_true(fd >= 0);
        assert_true(saved >= 0);
        fflush(stdout);
        assert_true(dup2(fd, STDOUT_FILENO) >= 0);
        render_status(d);
        fflush(stdout);
        assert_true(dup2(saved, STDOUT_FILENO) >= 0);
        close(saved);
        close(fd);
        s = read_all(path);
        assert_int_equal(unlink(path), 0);
        return s;
}

/* The document as it reaches tbsctl: through its text. */
static struct json_object *describe(Link *l, const QDiscTree *t) {
        struct json_object *doc = NULL, *copy;

        assert_int_equal(link_describe_tree(l, t, &doc), 0);
        copy = json_tokener_parse(json_object_to_json_string(doc));
        assert_non_null(copy);
        json_object_put(doc);
        return copy;
}

typedef struct RootCase {
        const char *fixture;            /* fixtures/qdisc/NAME.bin, or NULL: a root made here */
        const char *kind;               /* the kernel's (for a fixture: its tc.json's) */
        uint32_t handle;                /* a root made here */
        const char *handle_text;
        bool modeled;
        bool schedule;                  /* the link has mqprio-etf's schedule */
        LinkState state;
        const char *owner;
} RootCase;

static const RootCase cases[] = {
        /* the kernel's own roots: noqueue (a veth), pfifo_fast (one queue),
         * mq (several, each with its default child), fq_codel (Debian's
         * default_qdisc on one queue) */
        { "default", "noqueue", 0, "0:", false, true, LINK_STATE_FAILED, "default" },
        { NULL, "noqueue", 0, "0:", false, false, LINK_STATE_PENDING, "default" },
        { NULL, "pfifo_fast", 0, "0:", false, true, LINK_STATE_FAILED, "default" },
        { NULL, "mq", 0, "0:", false, true, LINK_STATE_FAILED, "default" },
        { NULL, "fq_codel", 0, "0:", false, true, LINK_STATE_PENDING, "default" },
        /* an administrator's roots tbsd does not read */
        { "htb", "htb", 0, "1:", false, true, LINK_STATE_FAILED, "foreign" },
        { NULL, "fq_codel", 0x80010000, "8001:", false, true, LINK_STATE_FAILED, "foreign" },
        { NULL, "mq", 0x10000, "1:", false, false, LINK_STATE_PENDING, "foreign" },
        { NULL, "prio", 0x10000, "1:", false, true, LINK_STATE_FAILED, "foreign" },
        /* the kinds tbsd reads, someone else's and its own */
        { "mqprio-foreign", "mqprio", 0, "100:", true, true, LINK_STATE_FAILED, "foreign" },
        { "mqprio-etf", "mqprio", 0, "100:", true, true, LINK_STATE_CONFIGURED, "tbsd" },
        { "mqprio-cbs-etf", "mqprio", 0, "100:", true, true, LINK_STATE_DEGRADED, "tbsd" },
        { "taprio-txtime", "taprio", 0, "100:", true, true, LINK_STATE_FAILED, "foreign" },
        { "taprio-admin", "taprio", 0, "100:", true, false, LINK_STATE_PENDING, "foreign" },
        { "root-etf", "etf", 0, "100:", true, true, LINK_STATE_FAILED, "foreign" },
        { "root-cbs-etf", "cbs", 0, "100:", true, true, LINK_STATE_FAILED, "foreign" },
};

/* The tree of c: its recorded dump, or a root alone. */
static void case_tree(const RootCase *c, QDiscTree *ret) {
        if (c->fixture) {
                char name[64];

                snprintf(name, sizeof(name), "%s.bin", c->fixture);
                load_fixture_tree(name, ret);
                return;
        }
        *ret = (QDiscTree) { .ifindex = 3, .has_root = true };
        snprintf(ret->root.kind, sizeof(ret->root.kind), "%s", c->kind);
        ret->root.handle = c->handle;
        ret->root.parent = TC_H_ROOT;
}

/* tc -j's kind and handle of the fixture's root. */
static void fixture_root(const char *fixture, char kind[static 32], char handle[static 16]) {
        _cleanup_json_ struct json_object *tc = NULL;
        char path[512];

        snprintf(path, sizeof(path), TBS_SOURCE_DIR "/tests/unit/fixtures/qdisc/%s.tc.json", fixture);
        tc = json_object_from_file(path);
        assert_non_null(tc);
        for (size_t i = 0; i < json_object_array_length(tc); i++) {
                struct json_object *q = json_object_array_get_idx(tc, i);

                if (!json_get_bool(q, "root", 0))
                        continue;
                snprintf(kind, 32, "%s", json_get_string(q, "kind"));
                snprintf(handle, 16, "%s", json_get_string(q, "handle"));
                return;
        }
        fail_msg("%s.tc.json has no root", fixture);
}

static void check_case(const RootCase *c) {
        _cleanup_json_ struct json_object *doc = NULL;
        struct json_object *root;
        QDiscTree t = {};
        Link *l = new_link(c->schedule, c->state);
        char kind[32], handle[16], line[160], *text;

        case_tree(c, &t);
        if (c->fixture) {
                /* the oracle of the recorded dump agrees with the table */
                fixture_root(c->fixture, kind, handle);
                assert_string_equal(kind, c->kind);
                assert_string_equal(handle, c->handle_text);
        }
        doc = describe(l, &t);

        /* --json: the kernel's kind and handle, whether tbsd reads it, whose */
        root = json_get(doc, "root");
        assert_non_null(root);
        assert_string_equal(json_get_string(root, "qdisc"), c->kind);
        assert_string_equal(json_get_string(root, "handle"), c->handle_text);
        assert_int_equal(json_get_bool(root, "modeled", -1), c->modeled);
        assert_string_equal(json_get_string(root, "owner"), c->owner);
        if (strcmp(c->owner, "foreign") == 0)
                assert_non_null(strstr(json_get_string(root, "owner_reason"), "is not tbsd's"));
        else
                assert_null(json_get_string(root, "owner_reason"));

        /* the human form */
        text = rendered(doc);
        if (strchr(text, '?'))
                fail_msg("a \"?\" in tbsctl status of %s %s:\n%s", c->kind, c->handle_text, text);
        snprintf(line, sizeof(line), "Root: %s %s", c->kind, c->handle_text);
        if (!strstr(text, line))
                fail_msg("no \"%s\" in:\n%s", line, text);
        if (strcmp(c->owner, "default") == 0)
                assert_non_null(strstr(text, "the kernel's default root (not tbsd's tree)"));
        if (strcmp(c->owner, "foreign") == 0) {
                snprintf(line, sizeof(line), "Root owner: %s", json_get_string(root, "owner_reason"));
                assert_non_null(strstr(text, line));
        }
        if (strcmp(c->owner, "tbsd") == 0)
                assert_null(strstr(text, "not tbsd's"));
        if (c->state == LINK_STATE_FAILED) {
                snprintf(line, sizeof(line), "Schedule tree: not installed: %s", refusal);
                assert_non_null(strstr(text, line));
        } else if (c->state == LINK_STATE_PENDING)
                assert_non_null(strstr(text, "Schedule tree: not installed (pending)"));
        else
                assert_null(strstr(text, "Schedule tree:"));
        if (!c->modeled)
                /* no settings of a kind it is not */
                assert_null(strstr(text, "the only qdisc"));
        free(text);

        /* An older daemon's document (no "modeled", "owner"): the same
         * kind and handle, and still no "?". */
        json_object_object_del(root, "modeled");
        json_object_object_del(root, "owner");
        json_object_object_del(root, "owner_reason");
        text = rendered(doc);
        if (strchr(text, '?'))
                fail_msg("a \"?\" in tbsctl status of an older document of %s %s:\n%s", c->kind, c->handle_text,
                         text);
        snprintf(line, sizeof(line), "Root: %s %s", c->kind, c->handle_text);
        assert_non_null(strstr(text, line));
        if (c->handle == 0 && !c->fixture)
                assert_non_null(strstr(text, "the kernel's default root"));
        free(text);

        qdisc_tree_done(&t);
        link_free(l);
}

static void test_every_root(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                check_case(&cases[i]);
}

/* No dump of the interface (it is absent): no root, said so. */
static void test_no_root(void **state) {
        _cleanup_json_ struct json_object *doc = NULL;
        Link *l = new_link(true, LINK_STATE_PENDING);
        char *text;

        doc = describe(l, &(QDiscTree) {});
        assert_null(json_get(doc, "root"));
        text = rendered(doc);
        assert_null(strchr(text, '?'));
        assert_non_null(strstr(text, "Root: none (no qdisc dump of the interface)"));
        free(text);
        link_free(l);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_root),
                cmocka_unit_test(test_no_root),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whose root is it (qdisc-owner.c): kernel dumps recorded in the test
 * kernel (tests/unit/fixtures/qdisc/, the veth "va" has ifindex 3) judged
 * against the roots a schedule declares. Only a root equal to one of them
 * is tbsd's; the rest (htb, an mqprio of the administrator's) stays. And
 * which roots an apply may replace: only those a rollback puts back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nl-qdisc.h"
#include "qdisc-owner.h"

#include "qdisc-fixture-roots.h"


static RootSpec taprio_root(void) {
        return taprio_root_cycle(1000000);
}


static int judge(const char *fixture, const RootSpec *a, const RootSpec *b, char **ret_why) {
        const RootSpec *ours[2] = { a, b };
        QDiscTree t = {};
        int r;

        load_fixture_tree(fixture, &t);
        r = qdisc_root_owner(&t, ours, 2, NULL, ret_why);
        qdisc_tree_done(&t);
        return r;
}

static void test_default_root(void **state) {
        char *why = NULL;

        /* noqueue 0: is the kernel's: nothing to remove, whatever is declared. */
        assert_int_equal(judge("default.bin", &mqprio_root, NULL, &why), OWNER_DEFAULT);
        assert_int_equal(judge("default.bin", NULL, NULL, &why), OWNER_DEFAULT);
        assert_null(why);
}

static void test_declared_root(void **state) {
        RootSpec m = mqprio_root, t = taprio_root();
        char *why = NULL;

        assert_int_equal(judge("mqprio-etf.bin", &m, NULL, &why), OWNER_TBSD);
        assert_int_equal(judge("mqprio-etf.bin", NULL, &m, &why), OWNER_TBSD);
        /* handle 0 in a schedule means 100: */
        m.handle = 0;
        assert_int_equal(judge("mqprio-etf.bin", &m, NULL, &why), OWNER_TBSD);
        assert_int_equal(judge("taprio-txtime.bin", &t, NULL, &why), OWNER_TBSD);
        /* the current schedule declares a taprio, the root tbsd installed
         * before (the mqprio) is still there: tbsd's */
        assert_int_equal(judge("mqprio-etf.bin", &t, &mqprio_root, &why), OWNER_TBSD);
        assert_null(why);
}

/* A base time the schedule leaves to tbsd (past, or "now") is the file's
 * at any later installed one: an in-place change moved it forward. The
 * recorded taprio has base time 1000; 1000 ns after the epoch is long
 * past on every clock. */
static void test_moved_base_time(void **state) {
        RootSpec t = taprio_root();

        t.taprio.base_time_ns = 0;
        assert_int_equal(judge("taprio-txtime.bin", &t, NULL, NULL), OWNER_TBSD);
        t.taprio.base_time_ns = 500;
        t.taprio.base_time_now = true;
        assert_int_equal(judge("taprio-txtime.bin", &t, NULL, NULL), OWNER_TBSD);
        /* past but after the installed one: not this schedule's root */
        t.taprio.base_time_now = false;
        t.taprio.base_time_ns = 2000;
        assert_int_equal(judge("taprio-txtime.bin", &t, NULL, NULL), OWNER_FOREIGN);
}

static void test_htb_is_foreign(void **state) {
        char *why = NULL;

        assert_int_equal(judge("htb.bin", &mqprio_root, NULL, &why), OWNER_FOREIGN);
        assert_string_equal(why, "root qdisc htb 1: is not tbsd's (the schedule declares mqprio 100:)");
        free(why);
        assert_int_equal(judge("htb.bin", NULL, NULL, &why), OWNER_FOREIGN);
        assert_string_equal(why, "root qdisc htb 1: is not tbsd's (no schedule of tbsd declares a tree here)");
        free(why);
        assert_int_equal(judge("htb.bin", NULL, NULL, NULL), OWNER_FOREIGN);
}

static void test_other_settings_are_foreign(void **state) {
        RootSpec m = mqprio_root, t = taprio_root();
        char *why = NULL;

        /* mqprio 100: num_tc 2 (mqprio-foreign.tc.json): same kind and handle
         * as declared, other settings */
        assert_int_equal(judge("mqprio-foreign.bin", &mqprio_root, NULL, &why), OWNER_FOREIGN);
        assert_string_equal(why, "root qdisc mqprio 100: is not tbsd's (its settings differ from the schedule's)");
        free(why);
        /* one priority mapped elsewhere is enough */
        m.priority_map[15] = 1;
        assert_int_equal(judge("mqprio-etf.bin", &m, NULL, NULL), OWNER_FOREIGN);
        /* another handle */
        m = mqprio_root;
        m.handle = 0x02000000;
        assert_int_equal(judge("mqprio-etf.bin", &m, NULL, &why), OWNER_FOREIGN);
        assert_string_equal(why, "root qdisc mqprio 100: is not tbsd's (the schedule declares mqprio 200:)");
        free(why);
        /* a taprio whose gate list differs from the declared one */
        t.taprio.entries = (GateEntry[]) { { GATE_SET_GATES, 0x1, 300000 }, { GATE_SET_GATES, 0x2, 300000 },
                                    { GATE_SET_GATES, 0x4, 300000 } };
        t.taprio.cycle_time_ns = 900000;
        assert_int_equal(judge("taprio-txtime.bin", &t, NULL, NULL), OWNER_FOREIGN);
        /* another kind than declared */
        assert_int_equal(judge("taprio-txtime.bin", &mqprio_root, NULL, &why), OWNER_FOREIGN);
        assert_string_equal(why, "root qdisc taprio 100: is not tbsd's (the schedule declares mqprio 100:)");
        free(why);
}

static void test_replaceable(void **state) {
        QDiscTree t = {};
        char *why = NULL;

        /* the kernel's default, and mqprio/taprio (tbsd rebuilds them from the
         * model) may be replaced, whoever put them there */
        load_fixture_tree("default.bin", &t);
        assert_int_equal(qdisc_root_replaceable(&t, &why), 1);
        qdisc_tree_done(&t);
        load_fixture_tree("mqprio-foreign.bin", &t);
        assert_int_equal(qdisc_root_replaceable(&t, &why), 1);
        qdisc_tree_done(&t);
        assert_null(why);

        /* htb: its classes are not in a qdisc dump and its dumped options
         * are refused back */
        load_fixture_tree("htb.bin", &t);
        assert_int_equal(qdisc_root_replaceable(&t, &why), 0);
        assert_string_equal(why, "root qdisc htb 1: is not tbsd's and could not be put back if the apply "
                            "failed (classes, children or options a qdisc dump does not give back): left "
                            "in place; delete it (tc qdisc del dev IFACE root) to hand the interface to tbsd");
        free(why);
        assert_int_equal(qdisc_root_replaceable(&t, NULL), 0);
        /* the judgement goes by kind: a classless kind the kernel takes back */
        strcpy(t.root.kind, "fq_codel");
        assert_int_equal(qdisc_root_replaceable(&t, NULL), 1);
        strcpy(t.root.kind, "prio");
        assert_int_equal(qdisc_root_replaceable(&t, NULL), 0);
        qdisc_tree_done(&t);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default_root),
                cmocka_unit_test(test_declared_root),
                cmocka_unit_test(test_moved_base_time),
                cmocka_unit_test(test_htb_is_foreign),
                cmocka_unit_test(test_other_settings_are_foreign),
                cmocka_unit_test(test_replaceable),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

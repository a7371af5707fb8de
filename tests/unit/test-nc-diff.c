/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module's difference between a datastore's documents and
 * those tbsd keeps, and its copy of the kept ones once tbsd took it
 * (netconf/nc-diff.c, issue 48: a commit compares with that copy). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../netconf/nc-diff.h"

/* A list of (ifname, json) pairs, json NULL: an entry without a document;
 * error: with the translation's refusal. */
static struct doc *list(const char *const *pairs, size_t n, const char *error_of) {
        struct doc *head = NULL, **tail = &head;

        for (size_t i = 0; i < n; i += 2) {
                struct doc *d = calloc(1, sizeof(*d));
                assert_non_null(d);
                d->ifname = strdup(pairs[i]);
                d->json = pairs[i + 1] ? strdup(pairs[i + 1]) : NULL;
                if (error_of && strcmp(error_of, pairs[i]) == 0)
                        d->error = strdup("netconf: interface: no");
                *tail = d;
                tail = &d->next;
        }
        return head;
}

static void free_list(struct doc *d) {
        while (d) {
                struct doc *next = d->next;
                free(d->ifname);
                free(d->json);
                free(d->error);
                free(d);
                d = next;
        }
}

static const char *json_of(const struct doc *d, const char *ifname) {
        for (; d; d = d->next)
                if (strcmp(d->ifname, ifname) == 0)
                        return d->json;
        return NULL;
}

static size_t count(const struct doc *d) {
        size_t n = 0;
        for (; d; d = d->next)
                n++;
        return n;
}

static bool alone_a2(const char *ifname) {
        return strcmp(ifname, "a2") == 0;
}

static void test_diff(void **state) {
        const char *const want_p[] = { "a0", "{0}", "a1", "{1new}", "a3", NULL, "a4", "{4}", "a5", NULL };
        const char *const kept_p[] = { "a0", "{0}", "a1", "{1}", "a2", "{2}", "a3", "{3}", "a5", "{5}", "a6", "{6}" };
        struct doc *want = list(want_p, 10, "a5"), *kept = list(kept_p, 12, NULL);
        struct change *c = NULL;
        int n = -1;
        (void) state;

        assert_int_equal(nc_diff(want, kept, alone_a2, &c, &n), 0);
        /* a1 changed, a4 added; a3 (entry without document) and a6 (no
         * entry) removed; a0 the same, a2 left alone, a5 refused keeps its own. */
        assert_int_equal(n, 4);
        assert_non_null(c);
        assert_string_equal(c->ifname, "a1");
        assert_string_equal(c->json, "{1new}");
        assert_string_equal(c->next->ifname, "a4");
        assert_string_equal(c->next->next->ifname, "a3");
        assert_null(c->next->next->json);
        assert_string_equal(c->next->next->next->ifname, "a6");
        assert_null(c->next->next->next->json);
        assert_null(c->next->next->next->next);

        /* Without the predicate a2 goes too. */
        nc_changes_free(c);
        assert_int_equal(nc_diff(want, kept, NULL, &c, &n), 0);
        assert_int_equal(n, 5);
        nc_changes_free(c);

        /* The same on both sides: nothing. */
        assert_int_equal(nc_diff(kept, kept, NULL, &c, &n), 0);
        assert_int_equal(n, 0);
        assert_null(c);
        free_list(want);
        free_list(kept);
}

static void test_kept_take(void **state) {
        const char *const want_p[] = { "a0", "{0}", "a1", "{1new}", "a4", "{4}" };
        const char *const kept_p[] = { "a0", "{0}", "a1", "{1}", "a2", "{2}" };
        struct doc *want = list(want_p, 6, NULL), *kept = list(kept_p, 6, NULL), *again;
        struct change *c = NULL;
        int n;
        (void) state;

        assert_int_equal(nc_diff(want, kept, NULL, &c, &n), 0);
        assert_int_equal(n, 3);         /* a1, a4, a2 removed */
        assert_int_equal(nc_kept_take(&kept, c), 0);
        assert_int_equal(count(kept), 3);
        assert_string_equal(json_of(kept, "a0"), "{0}");
        assert_string_equal(json_of(kept, "a1"), "{1new}");
        assert_string_equal(json_of(kept, "a4"), "{4}");
        assert_null(json_of(kept, "a2"));
        nc_changes_free(c);

        /* The copy is what the datastore says now: no difference left. */
        assert_int_equal(nc_diff(want, kept, NULL, &c, &n), 0);
        assert_int_equal(n, 0);

        /* All removed: the copy is empty; a removal of what it lacks changes nothing. */
        again = list((const char *const[]) { "zz", NULL }, 2, NULL);
        assert_int_equal(nc_diff(again, kept, NULL, &c, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(nc_kept_take(&kept, c), 0);
        assert_null(kept);
        assert_int_equal(nc_kept_take(&kept, c), 0);
        assert_null(kept);
        nc_changes_free(c);
        free_list(again);
        free_list(want);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_diff),
                cmocka_unit_test(test_kept_take),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

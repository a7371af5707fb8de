/* SPDX-License-Identifier: GPL-2.0-or-later */
/* name-index.c: lookups by name and by ifindex, replacing, removing (the
 * backward shift keeps every other key found), growing, at 4096 keys. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "name-index.h"

#define N 4096

typedef struct Item {
        char name[16];
        int ifindex;
} Item;

static Item items[N];

static void make_items(void) {
        for (int i = 0; i < N; i++) {
                snprintf(items[i].name, sizeof(items[i].name), "veth%d", i);
                items[i].ifindex = i + 2;
        }
}

static void test_by_name(void **state) {
        _cleanup_(name_index_freep) NameIndex *idx = NULL;

        make_items();
        assert_int_equal(name_index_new(false, &idx), 0);
        assert_null(name_index_get(idx, "veth0", 0));
        assert_int_equal(name_index_remove(idx, "veth0", 0, NULL), 0);
        for (int i = 0; i < N; i++)
                assert_int_equal(name_index_put(idx, items[i].name, 0, &items[i]), 0);
        assert_int_equal(name_index_size(idx), N);
        /* Every key, asked backwards (no order helps). */
        for (int i = N - 1; i >= 0; i--)
                assert_ptr_equal(name_index_get(idx, items[i].name, 0), &items[i]);
        assert_null(name_index_get(idx, "veth4096", 0));
        assert_null(name_index_get(idx, "", 0));

        /* Drop the even ones: the odd ones are all still found. */
        for (int i = 0; i < N; i += 2)
                assert_int_equal(name_index_remove(idx, items[i].name, 0, NULL), 1);
        assert_int_equal(name_index_size(idx), N / 2);
        for (int i = 0; i < N; i++)
                if (i % 2)
                        assert_ptr_equal(name_index_get(idx, items[i].name, 0), &items[i]);
                else
                        assert_null(name_index_get(idx, items[i].name, 0));
        /* Put them back: found again. */
        for (int i = 0; i < N; i += 2)
                assert_int_equal(name_index_put(idx, items[i].name, 0, &items[i]), 0);
        for (int i = 0; i < N; i++)
                assert_ptr_equal(name_index_get(idx, items[i].name, 0), &items[i]);
        name_index_clear(idx);
        assert_int_equal(name_index_size(idx), 0);
        assert_null(name_index_get(idx, "veth7", 0));
}

static void test_by_ifindex(void **state) {
        _cleanup_(name_index_freep) NameIndex *idx = NULL;

        make_items();
        assert_int_equal(name_index_new(true, &idx), 0);
        for (int i = 0; i < N; i++)
                assert_int_equal(name_index_put(idx, NULL, items[i].ifindex, &items[i]), 0);
        for (int i = 0; i < N; i++)
                assert_ptr_equal(name_index_get(idx, NULL, items[i].ifindex), &items[i]);
        assert_null(name_index_get(idx, NULL, 1));
        assert_null(name_index_get(idx, NULL, N + 2));
        /* Remove in a scattered order, checking the rest each time around. */
        for (int k = 0; k < N; k++) {
                int i = (int) (((unsigned) k * 2654435761u) % N);

                if (!name_index_get(idx, NULL, items[i].ifindex))
                        continue;
                assert_int_equal(name_index_remove(idx, NULL, items[i].ifindex, &items[i]), 1);
                assert_null(name_index_get(idx, NULL, items[i].ifindex));
        }
        for (int i = 0; i < N; i++) {
                void *v = name_index_get(idx, NULL, items[i].ifindex);

                if (v)
                        assert_ptr_equal(v, &items[i]);
                else
                        assert_int_equal(name_index_remove(idx, NULL, items[i].ifindex, NULL), 0);
        }
}

static void test_replace_and_remove_if(void **state) {
        _cleanup_(name_index_freep) NameIndex *idx = NULL;
        int a, b;

        assert_int_equal(name_index_new(false, &idx), 0);
        assert_int_equal(name_index_put(idx, "eth0", 0, &a), 0);
        assert_int_equal(name_index_put(idx, "eth0", 0, &b), 0);
        assert_int_equal(name_index_size(idx), 1);
        assert_ptr_equal(name_index_get(idx, "eth0", 0), &b);
        /* Only when it maps to the value given. */
        assert_int_equal(name_index_remove(idx, "eth0", 0, &a), 0);
        assert_ptr_equal(name_index_get(idx, "eth0", 0), &b);
        assert_int_equal(name_index_remove(idx, "eth0", 0, &b), 1);
        assert_null(name_index_get(idx, "eth0", 0));
        assert_int_equal(name_index_put(idx, "eth0", 0, NULL), -EINVAL);
        assert_int_equal(name_index_put(idx, NULL, 0, &a), -EINVAL);
        assert_null(name_index_get(NULL, "eth0", 0));
}

/* Keys put and removed in rounds, half of them each time, so removals
 * fall in the middle of probe runs: the rest stays reachable. */
static void test_runs(void **state) {
        _cleanup_(name_index_freep) NameIndex *idx = NULL;
        static int v[64];

        assert_int_equal(name_index_new(true, &idx), 0);
        for (int round = 0; round < 8; round++) {
                for (int i = 0; i < 64; i++)
                        assert_int_equal(name_index_put(idx, NULL, i * 16 + round, &v[i]), 0);
                for (int i = round % 2; i < 64; i += 2)
                        assert_int_equal(name_index_remove(idx, NULL, i * 16 + round, NULL), 1);
                for (int i = 0; i < 64; i++)
                        assert_ptr_equal(name_index_get(idx, NULL, i * 16 + round),
                                         (i % 2) == (round % 2) ? NULL : &v[i]);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_by_name),
                cmocka_unit_test(test_by_ifindex),
                cmocka_unit_test(test_replace_and_remove_if),
                cmocka_unit_test(test_runs),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

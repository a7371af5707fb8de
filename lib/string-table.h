/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Enum <-> name tables: one array of names indexed by the enum value, and
 * the two lookups every enum with a text form needs. */
#pragma once

#include <stddef.h>
#include <string.h>

#include "macro.h"

/* The name of v, or NULL when v is outside the table or has no name. */
static inline const char *string_table_lookup(const char *const *table, size_t n, int v) {
        if (v < 0 || (size_t) v >= n)
                return NULL;
        return table[v];
}

/* The index whose name is s (exactly), or -1. */
static inline int string_table_find(const char *const *table, size_t n, const char *s) {
        if (!s)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (table[i] && strcmp(table[i], s) == 0)
                        return (int) i;
        return -1;
}

/* const char *NAME_to_string(TYPE v) over TABLE. */
#define DEFINE_STRING_TABLE_TO_STRING(name, type, table)                                \
        const char *name##_to_string(type v) {                                          \
                return string_table_lookup(table, ELEMENTSOF(table), (int) v);          \
        }

/* TYPE NAME_from_string(const char *s) over TABLE; INVALID when s is none
 * of its names. */
#define DEFINE_STRING_TABLE_FROM_STRING(name, type, table, invalid)                     \
        type name##_from_string(const char *s) {                                        \
                int i = string_table_find(table, ELEMENTSOF(table), s);                 \
                return i < 0 ? (type) (invalid) : (type) i;                             \
        }

#define DEFINE_STRING_TABLE_LOOKUP(name, type, table, invalid)                          \
        DEFINE_STRING_TABLE_TO_STRING(name, type, table)                                \
        DEFINE_STRING_TABLE_FROM_STRING(name, type, table, invalid)

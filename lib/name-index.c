/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "name-index.h"

typedef struct Slot {
        const char *name;       /* by-name index */
        int ifindex;            /* by-ifindex index */
        void *value;            /* NULL: empty slot */
} Slot;

struct NameIndex {
        bool by_ifindex;
        Slot *slots;
        size_t n_slots;         /* 0 or a power of two */
        size_t n_used;
};

int name_index_new(bool by_ifindex, NameIndex **ret) {
        NameIndex *idx;

        if (!ret)
                return -EINVAL;
        idx = calloc(1, sizeof(*idx));
        if (!idx)
                return -ENOMEM;
        idx->by_ifindex = by_ifindex;
        *ret = idx;
        return 0;
}

NameIndex *name_index_free(NameIndex *idx) {
        if (!idx)
                return NULL;
        free(idx->slots);
        free(idx);
        return NULL;
}

/* FNV-1a for names; a multiplicative hash spreads consecutive indexes. */
static size_t key_hash(const NameIndex *idx, const char *name, int ifindex) {
        uint32_t h = 2166136261u;

        if (idx->by_ifindex)
                return (size_t) ((uint32_t) ifindex * 2654435761u);
        for (const unsigned char *p = (const unsigned char *) name; *p; p++)
                h = (h ^ *p) * 16777619u;
        return h;
}

static bool key_equal(const NameIndex *idx, const Slot *s, const char *name, int ifindex) {
        return idx->by_ifindex ? s->ifindex == ifindex : strcmp(s->name, name) == 0;
}

/* The slot holding the key, or the empty slot where it would go. The
 * table is never full (at most half used), so the probe ends. */
static Slot *slot_find(const NameIndex *idx, const char *name, int ifindex) {
        size_t mask = idx->n_slots - 1;

        for (size_t i = key_hash(idx, name, ifindex) & mask;; i = (i + 1) & mask) {
                Slot *s = &idx->slots[i];

                if (!s->value || key_equal(idx, s, name, ifindex))
                        return s;
        }
}

static int grow(NameIndex *idx) {
        size_t n = idx->n_slots ? idx->n_slots * 2 : 16;
        Slot *old = idx->slots, *slots;
        size_t n_old = idx->n_slots;

        slots = calloc(n, sizeof(Slot));
        if (!slots)
                return -ENOMEM;
        idx->slots = slots;
        idx->n_slots = n;
        for (size_t i = 0; i < n_old; i++)
                if (old[i].value)
                        *slot_find(idx, old[i].name, old[i].ifindex) = old[i];
        free(old);
        return 0;
}

int name_index_put(NameIndex *idx, const char *name, int ifindex, void *value) {
        Slot *s;
        int r;

        if (!idx || !value || (!idx->by_ifindex && !name))
                return -EINVAL;
        if ((idx->n_used + 1) * 2 > idx->n_slots) {
                r = grow(idx);
                if (r < 0)
                        return r;
        }
        s = slot_find(idx, name, ifindex);
        if (!s->value)
                idx->n_used++;
        *s = (Slot) { .name = idx->by_ifindex ? NULL : name, .ifindex = idx->by_ifindex ? ifindex : 0,
                      .value = value };
        return 0;
}

void *name_index_get(const NameIndex *idx, const char *name, int ifindex) {
        if (!idx || idx->n_used == 0 || (!idx->by_ifindex && !name))
                return NULL;
        return slot_find(idx, name, ifindex)->value;
}

int name_index_remove(NameIndex *idx, const char *name, int ifindex, const void *value) {
        size_t mask, i, j;
        Slot *s;

        if (!idx || idx->n_used == 0 || (!idx->by_ifindex && !name))
                return 0;
        s = slot_find(idx, name, ifindex);
        if (!s->value || (value && s->value != value))
                return 0;

        /* Backward shift: move up every later slot of the run that would
         * no longer be found past the hole, so no tombstones are needed. */
        mask = idx->n_slots - 1;
        i = (size_t) (s - idx->slots);
        for (j = (i + 1) & mask; idx->slots[j].value; j = (j + 1) & mask) {
                size_t home = key_hash(idx, idx->slots[j].name, idx->slots[j].ifindex) & mask;

                /* j may move to i when its home is not in (i, j] (cyclically). */
                if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
                        idx->slots[i] = idx->slots[j];
                        i = j;
                }
        }
        idx->slots[i] = (Slot) {};
        idx->n_used--;
        return 1;
}

void name_index_clear(NameIndex *idx) {
        if (!idx || idx->n_used == 0)
                return;
        memset(idx->slots, 0, idx->n_slots * sizeof(Slot));
        idx->n_used = 0;
}

size_t name_index_size(const NameIndex *idx) {
        return idx ? idx->n_used : 0;
}

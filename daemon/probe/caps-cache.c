/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <net/if.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "caps-cache.h"
#include "name-index.h"

/* A probe result, shared by the cache and every link that keeps it
 * (caps_cache_ref()): one copy per distinct result, not one in the cache
 * and another in the link. Interfaces of one kind without a bus address
 * (hundreds of veth, say) all get the same answer and share one copy. */
typedef struct SharedCaps {
        unsigned n_ref;
        LinkCaps caps;
} SharedCaps;

typedef struct CapsCacheEntry {
        int ifindex;
        char ifname[IFNAMSIZ];
        size_t pos;                     /* in entries[] */
        SharedCaps *shared;
} CapsCacheEntry;

struct CapsCache {
        bool has_io;
        CapsIO io;
        CapsCacheEntry **entries;       /* in the order they were made, but for removals */
        size_t n_entries;
        size_t n_allocated;
        NameIndex *by_ifindex;          /* ifindex -> entry */
        NameIndex *by_name;             /* ifname -> the entry made last with that name */
        bool name_shadowed;             /* some entry's name was taken by a newer entry since
                                         * the cache was last empty */
};

int caps_cache_new(const CapsIO *io, CapsCache **ret) {
        CapsCache *c;

        if (!ret)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        if (name_index_new(true, &c->by_ifindex) < 0 || name_index_new(false, &c->by_name) < 0) {
                caps_cache_free(c);
                return -ENOMEM;
        }
        if (io) {
                c->has_io = true;
                c->io = *io;
        }
        *ret = c;
        return 0;
}

static SharedCaps *shared_of(const LinkCaps *c) {
        return (SharedCaps *) ((char *) c - offsetof(SharedCaps, caps));
}

const LinkCaps *caps_cache_ref(const LinkCaps *c) {
        if (c)
                shared_of(c)->n_ref++;
        return c;
}

const LinkCaps *caps_cache_unref(const LinkCaps *c) {
        SharedCaps *s;

        if (!c)
                return NULL;
        s = shared_of(c);
        if (--s->n_ref == 0)
                free(s);
        return NULL;
}

CapsCache *caps_cache_free(CapsCache *cache) {
        if (!cache)
                return NULL;
        for (size_t i = 0; i < cache->n_entries; i++) {
                caps_cache_unref(&cache->entries[i]->shared->caps);
                free(cache->entries[i]);
        }
        free(cache->entries);
        name_index_free(cache->by_ifindex);
        name_index_free(cache->by_name);
        free(cache);
        return NULL;
}

static bool caps_equal(const LinkCaps *a, const LinkCaps *b) {
        /* Field by field: padding bytes of copied structs need not match. */
        return strncmp(a->driver, b->driver, sizeof(a->driver)) == 0 &&
               strncmp(a->version, b->version, sizeof(a->version)) == 0 &&
               strncmp(a->fw_version, b->fw_version, sizeof(a->fw_version)) == 0 &&
               strncmp(a->bus_info, b->bus_info, sizeof(a->bus_info)) == 0 &&
               a->pci_known == b->pci_known && a->pci_vendor == b->pci_vendor &&
               a->pci_device == b->pci_device && a->pci_subsystem_vendor == b->pci_subsystem_vendor &&
               a->pci_subsystem_device == b->pci_subsystem_device && a->tx_queues == b->tx_queues &&
               a->hw_timestamping == b->hw_timestamping && a->sw_timestamping == b->sw_timestamping &&
               a->so_timestamping == b->so_timestamping && a->tx_types == b->tx_types &&
               a->rx_filters == b->rx_filters && a->phc_index == b->phc_index &&
               a->launch_time_mask == b->launch_time_mask && a->cbs_offload_mask == b->cbs_offload_mask &&
               a->link_speed_mbps == b->link_speed_mbps &&
               a->taprio_full_offload == b->taprio_full_offload &&
               a->taprio_txtime_assist == b->taprio_txtime_assist && a->confidence == b->confidence &&
               a->resets_link_on_offload == b->resets_link_on_offload &&
               a->tx_stamp_slots == b->tx_stamp_slots && a->mac_merge == b->mac_merge &&
               strncmp(a->reason, b->reason, sizeof(a->reason)) == 0;
}

/* A stored result equal to c, newest first (interfaces are mostly probed
 * in runs of one kind), or NULL. */
static SharedCaps *cache_find_equal(CapsCache *cache, const LinkCaps *c) {
        for (size_t i = cache->n_entries; i > 0; i--)
                if (caps_equal(&cache->entries[i - 1]->shared->caps, c))
                        return cache->entries[i - 1]->shared;
        return NULL;
}

static CapsCacheEntry *cache_find(CapsCache *cache, int ifindex) {
        return name_index_get(cache->by_ifindex, NULL, ifindex);
}

int caps_cache_ifindex_of(CapsCache *cache, const char *ifname) {
        CapsCacheEntry *e;

        if (!cache || !ifname)
                return 0;
        e = name_index_get(cache->by_name, ifname, 0);
        return e ? e->ifindex : 0;
}

/* Point the name index at e for its name; remember when that hides an
 * older entry of the same name. */
static int name_link(CapsCache *cache, CapsCacheEntry *e) {
        CapsCacheEntry *old = name_index_get(cache->by_name, e->ifname, 0);

        if (old && old != e)
                cache->name_shadowed = true;
        return name_index_put(cache->by_name, e->ifname, 0, e);
}

/* e loses its name (renamed or dropped): when the name index pointed at
 * e, point it at the newest other entry of that name, if a shadowed one
 * may exist (rare: only an interface renamed without a notification). */
static void name_unlink(CapsCache *cache, CapsCacheEntry *e) {
        if (name_index_remove(cache->by_name, e->ifname, 0, e) <= 0 || !cache->name_shadowed)
                return;
        for (size_t i = cache->n_entries; i > 0; i--) {
                CapsCacheEntry *o = cache->entries[i - 1];

                if (o != e && strcmp(o->ifname, e->ifname) == 0) {
                        /* Replacing a key only writes its slot: cannot fail. */
                        (void) name_index_put(cache->by_name, o->ifname, 0, o);
                        return;
                }
        }
}

/* Drop the entry at position i (the last one takes its place). */
static void entry_drop(CapsCache *cache, size_t i) {
        CapsCacheEntry *e = cache->entries[i];

        (void) name_index_remove(cache->by_ifindex, NULL, e->ifindex, e);
        name_unlink(cache, e);
        caps_cache_unref(&e->shared->caps);
        cache->entries[i] = cache->entries[--cache->n_entries];
        cache->entries[i]->pos = i;
        free(e);
}

int caps_cache_get(CapsCache *cache, int ifindex, const char *ifname, const LinkCaps **ret) {
        CapsCacheEntry *e;
        SharedCaps *shared;
        LinkCaps caps;
        int r;

        if (!cache || ifindex <= 0 || !ifname || strlen(ifname) >= IFNAMSIZ || !ret)
                return -EINVAL;

        e = cache_find(cache, ifindex);
        if (e && strcmp(e->ifname, ifname) == 0) {
                *ret = &e->shared->caps;
                return 0;
        }

        r = caps_probe(cache->has_io ? &cache->io : NULL, ifname, &caps);
        if (r < 0) {
                if (e)   /* what was cached for this index is stale now */
                        caps_cache_invalidate(cache, ifindex);
                return r;
        }

        shared = cache_find_equal(cache, &caps);
        if (shared)
                shared->n_ref++;
        else {
                shared = malloc(sizeof(SharedCaps));
                if (!shared)
                        return -ENOMEM;
                *shared = (SharedCaps) { .n_ref = 1, .caps = caps };
        }
        if (!e) {
                _cleanup_free_ CapsCacheEntry *n = NULL;

                r = -ENOMEM;
                if (cache->n_entries == cache->n_allocated) {
                        size_t k = cache->n_allocated ? cache->n_allocated * 2 : 4;
                        CapsCacheEntry **p = reallocarray(cache->entries, k, sizeof(*p));

                        if (!p)
                                goto fail;
                        cache->entries = p;
                        cache->n_allocated = k;
                }
                n = calloc(1, sizeof(*n));
                if (!n)
                        goto fail;
                *n = (CapsCacheEntry) { .ifindex = ifindex, .pos = cache->n_entries };
                memcpy(n->ifname, ifname, strlen(ifname) + 1);
                r = name_index_put(cache->by_ifindex, NULL, ifindex, n);
                if (r < 0)
                        goto fail;
                r = name_link(cache, n);
                if (r < 0) {
                        (void) name_index_remove(cache->by_ifindex, NULL, ifindex, n);
                        goto fail;
                }
                e = cache->entries[cache->n_entries++] = TAKE_PTR(n);
        } else {
                /* The same index under a new name. */
                name_unlink(cache, e);
                memcpy(e->ifname, ifname, strlen(ifname) + 1);
                r = name_link(cache, e);
                if (r < 0) {
                        entry_drop(cache, e->pos);
                        goto fail;
                }
                caps_cache_unref(&e->shared->caps);
        }
        e->shared = shared;

        *ret = &shared->caps;
        return 1;
fail:
        caps_cache_unref(&shared->caps);
        return r;
}

int caps_cache_invalidate(CapsCache *cache, int ifindex) {
        CapsCacheEntry *e;

        if (!cache || cache->n_entries == 0)
                return 0;
        if (ifindex != 0) {
                e = cache_find(cache, ifindex);
                if (!e)
                        return 0;
                entry_drop(cache, e->pos);
                return 1;
        }
        for (size_t i = 0; i < cache->n_entries; i++) {
                caps_cache_unref(&cache->entries[i]->shared->caps);
                free(cache->entries[i]);
        }
        cache->n_entries = 0;
        name_index_clear(cache->by_ifindex);
        name_index_clear(cache->by_name);
        cache->name_shadowed = false;
        return 1;
}

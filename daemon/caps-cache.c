/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <net/if.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "caps-cache.h"

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
        SharedCaps *shared;
} CapsCacheEntry;

struct CapsCache {
        bool has_io;
        CapsIO io;
        CapsCacheEntry *entries;
        size_t n_entries;
        size_t n_allocated;
        size_t hint;                    /* where caps_cache_ifindex_of() looks first */
};

int caps_cache_new(const CapsIO *io, CapsCache **ret) {
        CapsCache *c;

        if (!ret)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
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
        for (size_t i = 0; i < cache->n_entries; i++)
                caps_cache_unref(&cache->entries[i].shared->caps);
        free(cache->entries);
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
               strncmp(a->reason, b->reason, sizeof(a->reason)) == 0;
}

/* A stored result equal to c, newest first (interfaces are mostly probed
 * in runs of one kind), or NULL. */
static SharedCaps *cache_find_equal(CapsCache *cache, const LinkCaps *c) {
        for (size_t i = cache->n_entries; i > 0; i--)
                if (caps_equal(&cache->entries[i - 1].shared->caps, c))
                        return cache->entries[i - 1].shared;
        return NULL;
}

static CapsCacheEntry *cache_find(CapsCache *cache, int ifindex) {
        for (size_t i = 0; i < cache->n_entries; i++)
                if (cache->entries[i].ifindex == ifindex)
                        return &cache->entries[i];
        return NULL;
}

int caps_cache_ifindex_of(CapsCache *cache, const char *ifname) {
        for (size_t k = 0; cache && k < cache->n_entries; k++) {
                size_t i = (cache->hint + k) % cache->n_entries;

                if (strcmp(cache->entries[i].ifname, ifname) == 0) {
                        cache->hint = i + 1;
                        return cache->entries[i].ifindex;
                }
        }
        return 0;
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
                if (cache->n_entries == cache->n_allocated) {
                        size_t n = cache->n_allocated ? cache->n_allocated * 2 : 4;
                        CapsCacheEntry *p = realloc(cache->entries, n * sizeof(*p));

                        if (!p) {
                                caps_cache_unref(&shared->caps);
                                return -ENOMEM;
                        }
                        cache->entries = p;
                        cache->n_allocated = n;
                }
                e = &cache->entries[cache->n_entries++];
        } else
                caps_cache_unref(&e->shared->caps);
        *e = (CapsCacheEntry) { .ifindex = ifindex, .shared = shared };
        memcpy(e->ifname, ifname, strlen(ifname) + 1);

        *ret = &shared->caps;
        return 1;
}

int caps_cache_invalidate(CapsCache *cache, int ifindex) {
        int dropped = 0;

        if (!cache)
                return 0;
        for (size_t i = 0; i < cache->n_entries;) {
                if (ifindex == 0 || cache->entries[i].ifindex == ifindex) {
                        caps_cache_unref(&cache->entries[i].shared->caps);
                        cache->entries[i] = cache->entries[--cache->n_entries];
                        dropped = 1;
                } else
                        i++;
        }
        return dropped;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small cache of capability probe results, keyed by ifindex. The probe
 * itself (caps-probe.c) stays pure; the daemon keeps one CapsCache and calls
 * caps_cache_invalidate() when rtnetlink reports a link change (new or
 * removed link, rename, queue count change), so the next caps_cache_get()
 * probes again. An entry also goes stale by itself when the name stored
 * with the ifindex differs from the one asked for (a rename or a reused
 * index). Not thread-safe; the daemon has one event loop. */
#pragma once

#include "caps-probe.h"
#include "macro.h"

typedef struct CapsCache CapsCache;

/** Create an empty cache that probes through io (NULL: the real system).
 *  io, when given, is copied; what it points to must outlive the cache.
 *  Returns 0 and *ret, or -ENOMEM. */
int caps_cache_new(const CapsIO *io, CapsCache **ret);

/** Free the cache and every entry. Accepts NULL; returns NULL. */
CapsCache *caps_cache_free(CapsCache *cache);
DEFINE_TRIVIAL_CLEANUP_FUNC(CapsCache *, caps_cache_free);

/** The probe result for (ifindex, ifname): the cached one, or a fresh probe
 *  stored for next time. ifindex must be > 0.
 *  *ret points into the cache and stays valid until the next
 *  caps_cache_get(), caps_cache_invalidate() or caps_cache_free().
 *  Returns 0 when it came from the cache, 1 when it was probed now, or the
 *  probe's -errno (nothing is cached then). */
int caps_cache_get(CapsCache *cache, int ifindex, const char *ifname, const LinkCaps **ret);

/** Keep a result of caps_cache_get() past the cache's next change: takes a
 *  reference on it (the cache shares it, no copy is made) and returns it.
 *  Accepts NULL. */
const LinkCaps *caps_cache_ref(const LinkCaps *c);
/** Drop a reference from caps_cache_ref(). Accepts NULL; returns NULL. */
const LinkCaps *caps_cache_unref(const LinkCaps *c);

/** The index cached with ifname (from the last caps_cache_get() for that
 *  name), 0 when none: what the interface was called when it was probed,
 *  not what it is called now. For a run that is over before anything can
 *  change (tbsd --once), or while every link notification has been read
 *  (the daemon's load: a rename or removal drops the entry), where asking
 *  the kernel again is a system call per interface for nothing. A hash
 *  lookup: the same cost at any number of entries, in any order. */
int caps_cache_ifindex_of(CapsCache *cache, const char *ifname);

/** Forget the entry for ifindex (0: forget all). Returns 1 when an entry
 *  was dropped, 0 when there was none. */
int caps_cache_invalidate(CapsCache *cache, int ifindex);

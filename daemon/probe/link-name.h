/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An interface name to its index without the kernel's module autoload: the
 * one way tbsd (and the probe it shares with tbsctl) resolves a name it was
 * given. See link-name.c for why never an ioctl or if_nametoindex(). */
#pragma once

#include <stddef.h>
#include <stdint.h>

/** Why s is not a name tbsd takes from a caller, or NULL when it is one:
 *  a name the kernel could give an interface (dev_valid_name(): 1-15
 *  bytes, not "." or "..", no '/', ':' or white space), without control
 *  characters (it would break a line of a message, a log or an rpc-error)
 *  and without '%' (the kernel makes "%d" into a number, so no interface
 *  has one; the schedule store writes a leading '.' as "%2e"). The reason
 *  is a static text to follow "it". */
const char *link_name_refusal(const char *s);

/** The RTM_GETLINK request for ifname (by IFLA_IFNAME, without counters)
 *  into buf. Returns its length, -EINVAL for a name that is empty or not
 *  shorter than IFNAMSIZ, -ENOBUFS when buf is too small. */
int link_name_request(void *buf, size_t size, const char *ifname, uint32_t seq);

/** Read one datagram of answers to request seq: the index (> 0) and
 *  *ret_flags (IFF_*, may be NULL), the kernel's -errno (-ENODEV: no such
 *  interface), -EBADMSG for a malformed answer, or 0 when the datagram
 *  holds no answer to seq. */
int link_name_parse(const void *buf, size_t len, uint32_t seq, unsigned *ret_flags);

/** The index of the interface called ifname (> 0), with its IFF_* flags
 *  in *ret_flags (may be NULL); -ENODEV when there is none, -EINVAL for a
 *  name no interface can have, another -errno when rtnetlink fails. One
 *  RTM_GETLINK on the process's one rtnetlink socket for lookups (opened
 *  at the first); never loads a module. Not thread-safe. */
int link_name_lookup(const char *ifname, unsigned *ret_flags);

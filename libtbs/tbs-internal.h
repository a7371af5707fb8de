/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the files of libtbs share and the unit tests reach; not installed. */
#ifndef TBS_INTERNAL_H
#define TBS_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tbs.h"

#define TBS_PUBLIC __attribute__((visibility("default")))
#define TBS_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* D-Bus names of tbsd (dbus/org.tsn.Tbs.xml), repeated here: the library
 * shares no code with the daemon. */
#define TBS_BUS_DEST        "org.tsn.Tbs"
#define TBS_BUS_MANAGER     "/org/tsn/Tbs"
#define TBS_BUS_MANAGER_IF  "org.tsn.Tbs.Manager"
#define TBS_BUS_LINK_IF     "org.tsn.Tbs.Link"
#define TBS_BUS_ERROR       "org.tsn.Tbs.Error."
/* OpenTxtimeSocket()'s queue argument that means "use an option". */
#define TBS_BUS_QUEUE_BY_OPTION UINT32_C(0xffffffff)

/* The negative errno for a D-Bus error name: tbsd's own names from a table,
 * any other through sd-bus's mapping; -EIO for a name nobody knows (a
 * future tbsd error, say). name NULL or empty gives -EIO too. */
int tbs_errno_from_bus_error(const char *name);

/* Fill *e (when not NULL): error r (negative), D-Bus name (may be NULL),
 * and the message, printf-style, cut to one line. Returns r. */
int tbs_error_set(struct tbs_error *e, int r, const char *name, const char *fmt, ...) TBS_PRINTF(4, 5);

/* The SCM_TXTIME control message of tbs_send_at() for txtime_ns, built in
 * buf (size bytes, aligned for a struct cmsghdr). Returns its length (the
 * msg_controllen to send), 0 when size is too small. */
size_t tbs_txtime_control_build(uint64_t txtime_ns, void *buf, size_t size);

/* Clear *e (when not NULL) at the start of a call. */
void tbs_error_clear(struct tbs_error *e);

/* The arguments of tbs_open_txtime_socket() checked before anything is
 * sent: 0, or -EINVAL with the reason in *e. */
int tbs_open_check(const char *ifname, enum tbs_target target, uint32_t value, enum tbs_socket_kind kind,
                   uint16_t protocol, unsigned flags, struct tbs_error *e);

struct sd_bus_message;
/* Append OpenTxtimeSocket()'s arguments (u queue, s kind, a{sv} options)
 * for checked arguments to the method call m. Returns 0 or -errno. */
int tbs_open_append_args(struct sd_bus_message *m, enum tbs_target target, uint32_t value,
                         enum tbs_socket_kind kind, uint16_t protocol, unsigned flags);

#endif

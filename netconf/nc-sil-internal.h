/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module's own parts (netconf/README.md), for netconf/ only:
 * netconfd's API, the modules' names, and what each file gives the others.
 * Calls go one way: tbsd-sil.c (module init) -> nc-commit.c (the commit),
 * nc-state.c (operational state; -> nc-link-state.c -> nc-view.c),
 * nc-notify.c (notifications), nc-sync.c;
 * nc-commit.c -> nc-sync.c -> nc-docs.c -> nc-translate.c; nc-tbsd.c (the
 * bus client) under the ones that call tbsd. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <xmlstring.h>

#include "agt.h"
#include "agt_util.h"
#include "cfg.h"
#include "getcb.h"
#include "log.h"
#include "obj.h"
#include "ncxconst.h"
#include "ncxmod.h"
#include "ncx.h"
#include "dlq.h"
#include "rpc.h"
#include "ses.h"
#include "status.h"
#include "typ.h"
#include "val.h"
#include "val_util.h"
#include "xml_util.h"

#include "../lib/bus-names.h"
#include "nc-doc.h"

#define TBSD_MODULE "tbsd"
#define TBSD_REVISION "2026-12-07"
#define SCHED_MODULE "ieee802-dot1q-sched"
#define SCHED_REVISION "2026-12-07"
/* The published modules (issue 48): 802.1DC's table on each interface,
 * and what tbsd does otherwise than they say. */
#define DC_SCHED_MODULE "ieee802-dot1dc-sched-if"
#define DC_SCHED_REVISION "2024-09-26"
#define DEVIATIONS_MODULE "tbsd-deviations"
#define ORIGIN "netconf"

/* nc-docs.c: a datastore's interfaces as schedule documents (struct doc: nc-doc.h). */

/* One per ietf-interfaces interface of root (NULL: none); *oom when memory
 * ran out (the list then stops there). */
struct doc *docs_of(const val_value_t *root, bool *oom);
const struct doc *find_doc(const struct doc *d, const char *ifname);

/* nc-sync.c: tbsd keeps, for the origin netconf, what a datastore says. */

/* Make tbsd keep exactly the documents of want (nc-sync.c says how).
 * Returns the number of interfaces changed; -EAGAIN when tbsd did not
 * answer; another -errno when tbsd refused (*error: its lines,
 * newline-separated) or memory ran out (*error NULL). */
int make_tbsd_match(const struct doc *want, uint64_t list_timeout_usec, char **error);

/* How long the last make_tbsd_match()'s calls took, answer included
 * (microseconds, 0: not made), for the commit's log line. */
struct nc_match_times {
        uint64_t list_usec;     /* ListSchedulesGeneration */
        uint64_t ping_usec;     /* the Ping before an apply against the module's copy */
        uint64_t apply_usec;    /* ApplySchedulesIfGeneration */
};
extern struct nc_match_times nc_last_match;

/* At netconfd's start: without a startup configuration (no_startup) the
 * documents tbsd keeps are left alone until the datastore speaks for
 * their interface; then tbsd is given the running datastore. NO_ERR, or
 * an error logged with the reason. */
status_t nc_sync_start(bool no_startup);

/* Once a second: tbsd pinged, and the reconcile when due. */
void nc_sync_heartbeat(void);

/* A confirmed commit rolled back: tbsd given the running datastore now. */
void nc_sync_rolled_back(void);

/* netconfd's cleanup. */
void nc_sync_stop(void);

/* nc-commit.c: the commit check, and <validate>'s (tbsd's dry run). */
status_t commit_validate(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate);
status_t validate_check(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *root);
/* After a commit: how long the module's part of it took, logged (netconfd's
 * info level) with leaves_usec, the time the operational leaves took. */
void commit_log_times(uint64_t leaves_usec);

/* nc-state.c: the operational state, read from Link.Describe(). */

/* Every gate parameter table and interface of the running datastore gets
 * its operational nodes (virtual, read when asked). */
status_t add_oper_leaves(void);
void free_views(void);

/* nc-link-state.c: tbsd's own state (tbsd:state, tbsd:links). */

/* tbsd:state under the interface entry iface; tbsd:links in the running
 * datastore. Each once (virtual, read when asked). */
status_t add_link_state(val_value_t *iface);
status_t add_links_node(void);

/* nc-notify.c: tbsd's signals as notifications. */

/* Subscribe, and learn each link's state now. */
status_t start_notifications(void);
/* Read the signals that came (from netconfd's timer). */
void read_signals(void);
void stop_notifications(void);

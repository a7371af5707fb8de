/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who may call tbsd's privileged methods (Reload, Apply, Remove,
 * OpenTxtimeSocket). */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "bus-names.h"
#include "refusal-log.h"

/** Decide from credentials alone: allowed when euid is 0, or when the bus
 *  vouched for the supplementary groups and admin_gid is among them.
 *  gids may be NULL when not vouched for. */
bool bus_access_decide(uid_t euid, const gid_t *gids, int n_gids, bool gids_vouched, gid_t admin_gid,
                       bool have_admin_gid);

/** Check the sender of m against the admin group admin_group (a name; NULL
 *  or "": root only). The group is looked up only for a caller other than
 *  root, at each such call. A refusal is logged in one line through
 *  refusals (limited per caller; NULL: every one). Returns 1 when allowed,
 *  0 when not (ret_error set to org.tsn.Tbs.Error.AccessDenied naming the
 *  method), or -errno when the credentials could not be read (ret_error set
 *  as well). */
int bus_access_check(sd_bus_message *m, const char *admin_group, RefusalLog *refusals, const char *method,
                     sd_bus_error *ret_error);

/* Who called, as the bus vouches for it. */
typedef struct BusCaller {
        uid_t uid;
        pid_t pid;              /* 0: the bus did not say */
        bool admin;             /* uid 0 or a member of the admin group, not only of the extra group */
        bool admin_unknown;     /* bus_access_admit_groups(): admitted by the extra group, the admin
                                 * group not looked up (admin is false; bus_access_caller() tells) */
} BusCaller;

/** bus_access_check() where the members of extra_group (a group name;
 *  NULL or "": nobody more) may call too, and with the caller: when allowed,
 *  *ret_caller (may be NULL) gets its uid and pid. A refusal names both
 *  groups. Returns as bus_access_check(). */
int bus_access_check_groups(sd_bus_message *m, const char *admin_group, const char *extra_group,
                            RefusalLog *refusals, const char *method, BusCaller *ret_caller,
                            sd_bus_error *ret_error);

/** bus_access_check_groups() for a method that needs to know whether its
 *  caller is in the admin group only now and then (the schedule methods: a
 *  document setting a key beyond the extra group's): a member of
 *  extra_group is admitted after that group's lookup alone, without the
 *  admin group's (each lookup goes through NSS, about 1.5 ms in the test
 *  kernel's guest), with ret_caller->admin false and ->admin_unknown true.
 *  Who is admitted, who refused and how a refusal reads are
 *  bus_access_check_groups()'s. */
int bus_access_admit_groups(sd_bus_message *m, const char *admin_group, const char *extra_group,
                            RefusalLog *refusals, const char *method, BusCaller *ret_caller,
                            sd_bus_error *ret_error);

/** bus_access_check() for a method handler: 0 when the caller may call
 *  method, else -EACCES or -errno with ret_error set. */
int bus_access_require(sd_bus_message *m, const char *admin_group, RefusalLog *refusals, const char *method,
                       sd_bus_error *ret_error);

/** An internal failure of a method (out of memory, a reply that could not
 *  be built, a dump that failed) as org.tsn.Tbs.Error.Failed with "WHAT:
 *  errno text", never the errno-mapped generic name sd-bus would pick:
 *  every error a tbsd method answers is an org.tsn.Tbs.Error.*. Returns
 *  what sd_bus_error_setf() returns. */
/** Who calls, without deciding anything: its user id as the bus vouches
 *  for it, and whether the daemon trusts it (uid 0 or the admin group).
 *  Returns 0, or -errno when the bus does not vouch for a user id. */
int bus_access_caller(sd_bus_message *m, const char *admin_group, uid_t *ret_uid, bool *ret_trusted);

int bus_method_failed(sd_bus_error *error, int r, const char *what);

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>

#include "bus-access.h"
#include "log.h"
#include "sd-cleanup.h"

bool bus_access_decide(uid_t euid, const gid_t *gids, int n_gids, bool gids_vouched, gid_t admin_gid,
                       bool have_admin_gid) {
        if (euid == 0)
                return true;
        if (!have_admin_gid || !gids_vouched || !gids)
                return false;
        for (int i = 0; i < n_gids; i++)
                if (gids[i] == admin_gid)
                        return true;
        return false;
}

/* Ask the bus itself (GetConnectionCredentials) for what it knows of the
 * sender from SO_PEERCRED/SO_PEERGROUPS: the user id, and the groups when
 * it can tell them all. sd-bus would fill missing groups in from /proc,
 * which the caller can race, so only the bus's own answer is used. */
static int bus_creds(sd_bus_message *m, uid_t *ret_uid, pid_t *ret_pid, gid_t **ret_gids, int *ret_n_gids) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ gid_t *gids = NULL;
        bool have_uid = false, have_gids = false;
        uint32_t uid = 0, pid = 0;
        int n = 0, r;

        r = sd_bus_call_method(sd_bus_message_get_bus(m), "org.freedesktop.DBus", "/org/freedesktop/DBus",
                               "org.freedesktop.DBus", "GetConnectionCredentials", NULL, &reply, "s",
                               sd_bus_message_get_sender(m));
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *key;

                r = sd_bus_message_read(reply, "s", &key);
                if (r < 0)
                        return r;
                if (strcmp(key, "UnixUserID") == 0) {
                        r = sd_bus_message_read(reply, "v", "u", &uid);
                        have_uid = r >= 0;
                } else if (strcmp(key, "ProcessID") == 0) {
                        r = sd_bus_message_read(reply, "v", "u", &pid);
                } else if (strcmp(key, "UnixGroupIDs") == 0) {
                        const void *a;
                        size_t sz;

                        r = sd_bus_message_enter_container(reply, 'v', "au");
                        if (r >= 0)
                                r = sd_bus_message_read_array(reply, 'u', &a, &sz);
                        if (r >= 0) {
                                n = (int) (sz / sizeof(uint32_t));
                                gids = calloc(n > 0 ? (size_t) n : 1, sizeof(gid_t));
                                if (!gids)
                                        return -ENOMEM;
                                for (int i = 0; i < n; i++)
                                        gids[i] = (gid_t) ((const uint32_t *) a)[i];
                                have_gids = true;
                                r = sd_bus_message_exit_container(reply);
                        }
                } else
                        r = sd_bus_message_skip(reply, "v");
                if (r < 0)
                        return r;
                r = sd_bus_message_exit_container(reply);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        if (!have_uid)
                return -EPERM;
        *ret_uid = (uid_t) uid;
        *ret_pid = (pid_t) pid;
        *ret_n_gids = have_gids ? n : -1;
        *ret_gids = TAKE_PTR(gids);
        return 0;
}

/* A group's id (the admin group's, a schedule's sockets group), or false
 * when there is none (the refusal says so). Looked up per call, not once at start: a lookup may load NSS
 * modules (nss_systemd and libm, 0.6 MiB resident) that a daemon only root
 * talks to never needs, and a group created after the start counts. */
static bool admin_group_gid(const char *name, gid_t *ret) {
        struct group *g;

        if (!name || !*name)
                return false;
        g = getgrnam(name);
        if (!g)
                return false;
        *ret = g->gr_gid;
        return true;
}

/* bus_access_check_groups(); admin_lazily: bus_access_admit_groups(). */
static int check_groups(sd_bus_message *m, const char *admin_group, const char *extra_group, bool admin_lazily,
                        RefusalLog *refusals, const char *method, BusCaller *ret_caller, sd_bus_error *ret_error) {
        _cleanup_free_ gid_t *gids = NULL;
        gid_t admin_gid = 0, extra_gid = 0;
        bool have_admin_gid = false, have_extra_gid = false, extra = extra_group && *extra_group, admin;
        uid_t euid;
        pid_t pid = 0;
        int n_gids = -1, r;

        r = bus_creds(m, &euid, &pid, &gids, &n_gids);
        if (r < 0) {
                refusal_log_note(refusals, (uid_t) -1, "%s to %s: the bus did not vouch for its user id: %s", method,
                                 sd_bus_message_get_sender(m) ?: "an unnamed caller", strerror(-r));
                return sd_bus_error_setf(ret_error, TBS_ERROR_ACCESS_DENIED,
                                         "%s: the bus did not vouch for the caller's user id: %s", method,
                                         strerror(-r));
        }
        if (euid != 0 && n_gids >= 0) {
                if (extra)
                        have_extra_gid = admin_group_gid(extra_group, &extra_gid);
                /* The extra group admits it: the admin group matters only
                 * for what it may do, which the caller asks later. */
                if (admin_lazily && bus_access_decide(euid, gids, n_gids, true, extra_gid, have_extra_gid)) {
                        if (ret_caller)
                                *ret_caller = (BusCaller) { .uid = euid, .pid = pid, .admin_unknown = true };
                        return 1;
                }
                have_admin_gid = admin_group_gid(admin_group, &admin_gid);
        }
        admin = bus_access_decide(euid, gids, n_gids < 0 ? 0 : n_gids, n_gids >= 0, admin_gid, have_admin_gid);
        if (admin || bus_access_decide(euid, gids, n_gids < 0 ? 0 : n_gids, n_gids >= 0, extra_gid, have_extra_gid)) {
                if (ret_caller)
                        *ret_caller = (BusCaller) { .uid = euid, .pid = pid, .admin = admin };
                return 1;
        }

        /* One line per refusal, where it is decided, limited per caller. */
        if (n_gids < 0)
                refusal_log_note(refusals, euid, "%s to uid %u (the bus did not report its groups)", method,
                                 (unsigned) euid);
        else if (extra)
                refusal_log_note(refusals, euid, "%s to uid %u (in neither the admin group nor group '%s'%s)",
                                 method, (unsigned) euid, extra_group,
                                 have_extra_gid ? "" : ", which does not exist");
        else if (!admin_group || !*admin_group)
                refusal_log_note(refusals, euid, "%s to uid %u (no admin group is configured)", method,
                                 (unsigned) euid);
        else if (!have_admin_gid)
                refusal_log_note(refusals, euid, "%s to uid %u (admin group '%s' does not exist)", method,
                                 (unsigned) euid, admin_group);
        else
                refusal_log_note(refusals, euid, "%s to uid %u (not in the admin group)", method, (unsigned) euid);
        if (extra)
                sd_bus_error_setf(ret_error, TBS_ERROR_ACCESS_DENIED,
                                  "%s is for uid 0, the tbsd admin group and group '%s' only", method, extra_group);
        else
                sd_bus_error_setf(ret_error, TBS_ERROR_ACCESS_DENIED,
                                  "%s is privileged: uid 0 or the tbsd admin group only", method);
        return 0;
}

int bus_access_check_groups(sd_bus_message *m, const char *admin_group, const char *extra_group,
                            RefusalLog *refusals, const char *method, BusCaller *ret_caller,
                            sd_bus_error *ret_error) {
        return check_groups(m, admin_group, extra_group, false, refusals, method, ret_caller, ret_error);
}

int bus_access_admit_groups(sd_bus_message *m, const char *admin_group, const char *extra_group,
                            RefusalLog *refusals, const char *method, BusCaller *ret_caller,
                            sd_bus_error *ret_error) {
        return check_groups(m, admin_group, extra_group, true, refusals, method, ret_caller, ret_error);
}

int bus_access_check(sd_bus_message *m, const char *admin_group, RefusalLog *refusals, const char *method,
                     sd_bus_error *ret_error) {
        return bus_access_check_groups(m, admin_group, NULL, refusals, method, NULL, ret_error);
}

int bus_access_require(sd_bus_message *m, const char *admin_group, RefusalLog *refusals, const char *method,
                       sd_bus_error *ret_error) {
        int r = bus_access_check(m, admin_group, refusals, method, ret_error);

        if (r == 0)
                return -EACCES;
        return r < 0 ? r : 0;
}

int bus_method_failed(sd_bus_error *error, int r, const char *what) {
        return sd_bus_error_setf(error, TBS_ERROR_FAILED, "%s: %s", what, strerror(r < 0 ? -r : r));
}

int bus_access_caller(sd_bus_message *m, const char *admin_group, uid_t *ret_uid, bool *ret_trusted) {
        _cleanup_free_ gid_t *gids = NULL;
        gid_t admin_gid = 0;
        bool have_admin_gid = false;
        uid_t euid;
        pid_t pid;
        int n_gids = -1, r;

        r = bus_creds(m, &euid, &pid, &gids, &n_gids);
        if (r < 0)
                return r;
        if (euid != 0 && n_gids >= 0)
                have_admin_gid = admin_group_gid(admin_group, &admin_gid);
        *ret_uid = euid;
        *ret_trusted = bus_access_decide(euid, gids, n_gids < 0 ? 0 : n_gids, n_gids >= 0, admin_gid,
                                         have_admin_gid);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>

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

int bus_access_check(sd_bus_message *m, gid_t admin_gid, bool have_admin_gid, const char *method,
                     sd_bus_error *ret_error) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        const gid_t *gids = NULL;
        uid_t euid;
        int n_gids = 0, r;
        bool vouched;

        /* Only what the bus itself reports can be trusted: sd-bus fills in
         * missing fields from /proc ("augmenting"), which a caller can race. */
        r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_SUPPLEMENTARY_GIDS, &creds);
        if (r < 0)
                return sd_bus_error_set_errnof(ret_error, r, "%s: cannot read the caller's credentials: %m",
                                               method);
        if (sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_EUID)
                r = -EPERM;
        else
                r = sd_bus_creds_get_euid(creds, &euid);
        if (r < 0)
                return sd_bus_error_setf(ret_error, TBS_ERROR_ACCESS_DENIED,
                                         "%s: the bus did not vouch for the caller's user id", method);

        vouched = !(sd_bus_creds_get_augmented_mask(creds) & SD_BUS_CREDS_SUPPLEMENTARY_GIDS);
        if (vouched) {
                n_gids = sd_bus_creds_get_supplementary_gids(creds, &gids);
                if (n_gids < 0) {
                        vouched = false;
                        n_gids = 0;
                }
        }
        if (bus_access_decide(euid, gids, n_gids, vouched, admin_gid, have_admin_gid))
                return 1;

        log_notice("denied %s to uid %u", method, (unsigned) euid);
        sd_bus_error_setf(ret_error, TBS_ERROR_ACCESS_DENIED,
                          "%s is privileged: uid 0 or the tbsd admin group only", method);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module (SIL) of yuma123's netconfd for the YANG modules tbsd,
 * ieee802-dot1q-sched, ieee802-dot1dc-sched-if, -preemption-if and 802.3's
 * ieee802-ethernet-mac-merge (the .yang files of
 * netconf/, with the deviations of netconf/tbsd-deviations.yang): netconfd
 * loads it for --module=tbsd from its --runpath as libtbsd.so and calls the
 * three functions below by the module's name (docs/netconf.md).
 *
 * This file is the module's start and end: it loads the modules, registers
 * the commit check (nc-commit.c) and the operational nodes (nc-state.c),
 * gives tbsd the running datastore at the start (nc-sync.c), subscribes to
 * tbsd's signals (nc-notify.c) and runs the heartbeat once a second; it
 * also guards two of netconfd's faults (NACM's defaults, its socket file).
 * The server never touches qdiscs itself: it needs no capability, only the
 * bus and tbsd's --schedule-group. netconf/README.md has the table. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agt_commit_validate.h"
#include "agt_commit_complete.h"
#include "agt_timer.h"

#include "nc-sil-internal.h"
#include "nc-caps.h"
#include "nc-translate.h"
#include "nc-cbsa.h"
#include "nc-confirmed.h"
#include "nc-preemption.h"
#include "nc-tbsd.h"
#include "nc-validate.h"

/* The heartbeat: netconfd's timer, once a second, reads tbsd's signals
 * (the server's loop is not ours to add a descriptor to) and keeps tbsd
 * matched to the running datastore. */
static uint32 heartbeat_timer;

static int heartbeat(uint32 timer_id, void *cookie) {
        (void) timer_id;
        (void) cookie;
        read_signals();
        nc_sync_heartbeat();
        return 0;
}

/* After every commit: the operational leaves of the running datastore's
 * tables, and the commit's times logged. */
static status_t commit_complete(void) {
        uint64_t t0 = nc_now_usec();
        status_t res = add_oper_leaves();

        commit_log_times(nc_now_usec() - t0);
        return res;
}

/* Phase 1: load the modules' definitions, take part in every commit. */
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision);
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision) {
        agt_profile_t *profile = agt_get_profile();
        status_t res;

        if (xmlStrcmp(modname, (const xmlChar *) TBSD_MODULE) != 0)
                return ERR_NCX_UNKNOWN_MODULE;
        if (nc_tbsd_settings() < 0)
                return ERR_NCX_INVALID_VALUE;
        if (revision && xmlStrcmp(revision, (const xmlChar *) TBSD_REVISION) != 0)
                return ERR_NCX_WRONG_VERSION;
        /* Edits reach tbsd at <commit> only: an edit-config written to
         * running directly would leave tbsd out. */
        if (profile->agt_targ != NCX_AGT_TARG_CANDIDATE) {
                log_error("\ntbsd: netconfd must run with --target=candidate (its default): tbsd applies the "
                          "schedules at <commit>\n");
                return ERR_NCX_OPERATION_NOT_SUPPORTED;
        }
        /* Saved first: netconfd applies it once every module is loaded. */
        res = ncxmod_load_deviation((const xmlChar *) DEVIATIONS_MODULE, &profile->agt_savedevQ);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) SCHED_MODULE, (const xmlChar *) SCHED_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) DC_SCHED_MODULE, (const xmlChar *) DC_SCHED_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) CBSA_IF_MODULE, (const xmlChar *) CBSA_IF_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) PREEMPT_IF_MODULE, (const xmlChar *) PREEMPT_IF_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) MAC_MERGE_MODULE, (const xmlChar *) MAC_MERGE_REVISION,
                                         &profile->agt_savedevQ, NULL);
        if (res == NO_ERR)
                res = ncxmod_load_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION,
                                         &profile->agt_savedevQ, NULL);
        /* A standard-only taprio root runs as tbsd's probe says the device can. */
        nc_translate_set_mode_of(nc_caps_mode);
        if (res == NO_ERR)
                res = agt_commit_validate_register((const xmlChar *) TBSD_MODULE, commit_validate);
        if (res == NO_ERR)
                res = agt_commit_complete_register((const xmlChar *) TBSD_MODULE, commit_complete);
        return res;
}

/* NACM for a user in no NACM group (issue 46). netconfd 2.13 applies its
 * exec-default (permit, RFC 8341's default) to such a user, and denies by
 * default only an operation it flagged "secure": it takes the flag from the
 * extensions nacm:secure and nacm:very-secure of yuma's old NACM draft and
 * not from RFC 8341's nacm:default-deny-all, so kill-session, restart,
 * shutdown, load and set-log-level ran for anyone (docs/netconf.md,
 * "netconfd's known faults"). Every operation of every module loaded gets
 * the flag here except those that only read: such an operation is then
 * denied unless a rule of one of the user's groups permits it (the package
 * ships the group cnc with a rule for each, netconf/nacm-startup.xml). */
static const char *const read_only_rpcs[] = {
        "get", "get-config", "get-schema", "get-data", "close-session", "create-subscription", "get-my-session",
        "no-op", NULL,
};

static bool rpc_reads_only(const obj_template_t *obj) {
        for (size_t i = 0; read_only_rpcs[i]; i++)
                if (xmlStrcmp(obj_get_name(obj), (const xmlChar *) read_only_rpcs[i]) == 0)
                        return true;
        return false;
}

static void deny_by_default_all_but_reads(void) {
        unsigned denied = 0;

        for (ncx_module_t *mod = ncx_get_first_module(); mod; mod = ncx_get_next_module(mod))
                for (obj_template_t *obj = (obj_template_t *) dlq_firstEntry(&mod->datadefQ); obj;
                     obj = (obj_template_t *) dlq_nextEntry(obj))
                        if (obj_is_rpc(obj) && !rpc_reads_only(obj) && !(obj->flags & OBJ_FL_VERY_SECURE)) {
                                obj->flags |= OBJ_FL_VERY_SECURE;
                                denied++;
                        }
        log_info("\ntbsd: %u operations denied by default to users without a NACM rule for them\n", denied);
}

/* netconfd 2.13 unlinks /tmp/ncxserver.sock when it stops serving, not the
 * --ncxserver-sockname it bound, so <restart> (and a start after a stop)
 * found its socket there and failed "Address already in use". At cleanup
 * (after netconfd closed its socket) the file is unlinked unless a server
 * still answers on it (another instance that owns it). */
static char *server_socket;

static void remember_server_socket(void) {
        const xmlChar *name = agt_get_profile()->agt_ncxserver_sockname;

        free(server_socket);
        server_socket = name ? strdup((const char *) name) : NULL;
}

static void unlink_stale_server_socket(void) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (!server_socket || strlen(server_socket) >= sizeof(sa.sun_path))
                goto out;
        strcpy(sa.sun_path, server_socket);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 && errno == ECONNREFUSED)
                unlink(server_socket);
        if (fd >= 0)
                close(fd);
out:
        free(server_socket);
        server_socket = NULL;
}

/* netconfd rolled a confirmed commit back: tbsd is given the running
 * datastore, and its oper leaves are added to the restored tree. */
static void rolled_back(void) {
        nc_sync_rolled_back();
        add_oper_leaves();
}

/* Phase 2, after the startup configuration. */
status_t y_tbsd_init2(void);
status_t y_tbsd_init2(void) {
        status_t res;

        deny_by_default_all_but_reads();
        remember_server_socket();
        res = nc_sync_start(!agt_get_profile()->agt_usestartup || agt_get_profile()->agt_factorystartup);
        if (res == NO_ERR)
                res = nc_validate_register(validate_check);
        if (res == NO_ERR)
                res = nc_confirmed_register(rolled_back);
        if (res == NO_ERR)
                res = start_notifications();
        if (res == NO_ERR)
                res = agt_timer_create(1, TRUE, heartbeat, NULL, &heartbeat_timer);
        return res == NO_ERR ? add_oper_leaves() : res;
}

void y_tbsd_cleanup(void);
void y_tbsd_cleanup(void) {
        unlink_stale_server_socket();
        nc_validate_unregister();
        nc_confirmed_unregister();
        agt_commit_validate_unregister((const xmlChar *) TBSD_MODULE);
        agt_commit_complete_unregister((const xmlChar *) TBSD_MODULE);
        if (heartbeat_timer)
                agt_timer_delete(heartbeat_timer);
        heartbeat_timer = 0;
        stop_notifications();
        nc_tbsd_close();
        free_views();
        nc_sync_stop();
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module (SIL) of yuma123's netconfd for the YANG module tbsd
 * (netconf/tbsd.yang): netconfd loads it for --module=tbsd from its
 * --runpath as libtbsd.so and calls the three functions below by the
 * module's name. This skeleton only loads the module, so that netconfd
 * announces its capability and serves its text (get-schema); it registers
 * no callbacks and changes nothing. The data model's callbacks will call
 * org.tsn.Tbs.Manager.ApplySchedule() over D-Bus (docs/netconf.md): the
 * server never touches qdiscs itself. */
#include <xmlstring.h>

#include "agt.h"
#include "ncxmod.h"
#include "status.h"

#define TBSD_MODULE "tbsd"
#define TBSD_REVISION "2026-12-07"

static ncx_module_t *tbsd_mod;

/* Phase 1: load the module's definitions. */
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision);
status_t y_tbsd_init(const xmlChar *modname, const xmlChar *revision) {
        agt_profile_t *profile = agt_get_profile();

        if (xmlStrcmp(modname, (const xmlChar *) TBSD_MODULE) != 0)
                return ERR_NCX_UNKNOWN_MODULE;
        if (revision && xmlStrcmp(revision, (const xmlChar *) TBSD_REVISION) != 0)
                return ERR_NCX_WRONG_VERSION;
        return ncxmod_load_module((const xmlChar *) TBSD_MODULE, (const xmlChar *) TBSD_REVISION,
                                  &profile->agt_savedevQ, &tbsd_mod);
}

/* Phase 2, after the startup configuration: nothing to add yet. */
status_t y_tbsd_init2(void);
status_t y_tbsd_init2(void) {
        return NO_ERR;
}

void y_tbsd_cleanup(void);
void y_tbsd_cleanup(void) {
        tbsd_mod = NULL;
}

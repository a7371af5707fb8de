/* SPDX-License-Identifier: GPL-2.0-or-later */
/* <validate> asks tbsd (issue 48, docs/netconf.md "Validate and confirmed
 * commits"): netconfd checks the source against the YANG modules and calls
 * no module; the server module adds the invoke phase of the validate
 * operation, which gives tbsd the source's documents with
 * Manager.ValidateSchedules(): tbsd's parser, verifier and device check,
 * nothing kept, nothing applied. */
#pragma once

#include "agt.h"
#include "rpc.h"
#include "ses.h"
#include "status.h"
#include "val.h"
#include "xml_util.h"

#include "nc-doc.h"

/* What the module checks of a datastore (or inline <config>) root: its
 * rpc-errors recorded, NO_ERR when tbsd would take it. */
typedef status_t (*nc_validate_check_t)(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *root);

/* Hook check into netconfd's <validate> (after its own checks passed). */
status_t nc_validate_register(nc_validate_check_t check);
/* Take it out again (the module's cleanup, before netconfd's own). */
void nc_validate_unregister(void);

/* ValidateSchedules() of the documents of docs (the interfaces with one):
 * 0 when tbsd would take them; -EINVAL and *error (tbsd's lines,
 * newline-separated) when it would refuse them; another -errno and *error
 * when it was not asked (no answer within the answer time, no bus), *error
 * NULL when memory ran out. */
int nc_validate_documents(const struct doc *docs, char **error);

/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <xmlstring.h>

#include "agt.h"
#include "agt_not.h"
#include "agt_not_queue_notification_cb.h"
#include "dlq.h"
#include "log.h"
#include "obj.h"
#include "val.h"

#include "nc-confirmed.h"

/* The name the callbacks are kept under (one set per name). */
#define CALLBACK_NAME (const xmlChar *) "tbsd-confirmed-commit"

static void (*on_rollback)(void);

/* Whether n is netconf-confirmed-commit saying the commit was undone
 * (confirm-event timeout or cancel, not start, extend or complete). */
static bool is_rollback(const agt_not_msg_t *n) {
        if (!n->notobj || xmlStrcmp(obj_get_name(n->notobj), (const xmlChar *) "netconf-confirmed-commit") != 0)
                return false;
        for (const val_value_t *v = (const val_value_t *) dlq_firstEntry(&n->payloadQ); v;
             v = (const val_value_t *) dlq_nextEntry(v))
                if (xmlStrcmp(v->name, (const xmlChar *) "confirm-event") == 0 && VAL_ENUM_NAME(v))
                        return xmlStrcmp(VAL_ENUM_NAME(v), (const xmlChar *) "timeout") == 0 ||
                               xmlStrcmp(VAL_ENUM_NAME(v), (const xmlChar *) "cancel") == 0;
        return false;
}

static status_t on_notification(agt_not_msg_t *n) {
        if (on_rollback && is_rollback(n)) {
                log_info("\ntbsd: netconfd rolled a confirmed commit back: tbsd is given the running datastore\n");
                on_rollback();
        }
        return NO_ERR;
}

status_t nc_confirmed_register(void (*rolled_back)(void)) {
        on_rollback = rolled_back;
        return agt_not_queue_notification_cb_register(CALLBACK_NAME, on_notification);
}

void nc_confirmed_unregister(void) {
        agt_not_queue_notification_cb_unregister(CALLBACK_NAME);
        on_rollback = NULL;
}

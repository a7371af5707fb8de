/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Edit and commit: on <commit> (target candidate, netconfd's default),
 * before the candidate becomes the running datastore, every interface whose
 * configuration of the modules changed is turned into tbsd's schedule
 * document (nc-docs.c, nc-translate.c), and tbsd is given all of them
 * (and the interfaces whose schedule went) in one call (nc-sync.c): tbsd
 * checks every document, keeps and applies them in one load, and puts
 * every one back when any is refused. A refusal ends the commit with one
 * rpc-error per line of tbsd's reason, and netconfd keeps the running
 * datastore as it was. A confirmed commit is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nc-sil-internal.h"
#include "nc-tbsd.h"

/* The rpc-error of a refused commit: line, and the interface's path
 * (none when ifname is NULL). */
static void record(ses_cb_t *scb, xml_msg_hdr_t *msghdr, const char *ifname, const char *line) {
        ncx_errinfo_t info;
        char path[128];

        memset(&info, 0, sizeof(info));
        info.error_message = (xmlChar *) (line ? line : "out of memory");
        snprintf(path, sizeof(path), "/if:interfaces/if:interface[if:name='%s']", ifname ? ifname : "");
        agt_record_error_errinfo(scb, msghdr, NCX_LAYER_CONTENT, ERR_NCX_OPERATION_FAILED, NULL, NCX_NT_NONE,
                                 NULL, ifname ? NCX_NT_STRING : NCX_NT_NONE, ifname ? path : NULL, &info);
}

/* A <commit> with <confirmed/>: netconfd's rollback of an unconfirmed
 * commit (timeout, <cancel-commit>) restores its copy of the running
 * datastore without asking the modules, so tbsd would keep the schedules
 * of a commit the datastore no longer has. Refused before anything is
 * applied. */
static bool is_confirmed_commit(xml_msg_hdr_t *msghdr) {
        rpc_msg_t *msg = (rpc_msg_t *) (void *) ((char *) msghdr - offsetof(rpc_msg_t, mhdr));

        return msg->rpc_input &&
               val_find_child(msg->rpc_input, val_get_mod_name(msg->rpc_input), NCX_EL_CONFIRMED) != NULL;
}

/* A refused ApplySchedules: one rpc-error per line of tbsd's answer, each
 * with the path of the interface the line names ("ApplySchedules(IFACE)
 * by ..."), when it names one. */
static void record_lines(ses_cb_t *scb, xml_msg_hdr_t *msghdr, char *text) {
        static const char head[] = "ApplySchedules(";

        for (char *p = text; p && *p;) {
                char *e = strchr(p, '\n'), *close;
                char ifname[64] = "";

                if (e)
                        *e = 0;
                if (strncmp(p, head, strlen(head)) == 0 && (close = strchr(p + strlen(head), ')')) &&
                    (size_t) (close - p) - strlen(head) < sizeof(ifname))
                        snprintf(ifname, sizeof(ifname), "%.*s", (int) ((size_t) (close - p) - strlen(head)),
                                 p + strlen(head));
                record(scb, msghdr, ifname[0] ? ifname : NULL, p);
                p = e ? e + 1 : NULL;
        }
}

/* <commit>: tbsd is given the candidate's documents (what differs from
 * what it keeps) before netconfd makes the candidate the running
 * datastore; a refusal ends the commit and changes nothing. */
status_t commit_validate(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate) {
        bool oom;
        struct doc *now = docs_of(candidate, &oom);
        status_t res = NO_ERR;
        char *error = NULL, line[256];

        if (is_confirmed_commit(msghdr)) {
                record(scb, msghdr, NULL,
                       "netconf: a confirmed commit (<confirmed/>) is not supported: tbsd applies a schedule at "
                       "<commit> and netconfd's rollback would not reach it; commit without <confirmed/>");
                res = ERR_NCX_OPERATION_NOT_SUPPORTED;
                goto out;
        }
        if (oom) {
                record(scb, msghdr, NULL, NULL);
                res = ERR_INTERNAL_MEM;
                goto out;
        }
        for (const struct doc *d = now; d; d = d->next)
                if (d->error) {
                        record(scb, msghdr, d->ifname, d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                        goto out;
                }
        /* Fail fast: netconfd would serve no one while it waited. */
        if (!nc_tbsd.answering) {
                snprintf(line, sizeof(line),
                         "netconf: tbsd has not answered for %llu s (stopped or busy): the commit is refused and "
                         "nothing was applied; commit again when it answers",
                         (unsigned long long) ((nc_now_usec() - nc_tbsd.since_usec) / 1000000));
                record(scb, msghdr, NULL, line);
                res = ERR_NCX_OPERATION_FAILED;
                goto out;
        }
        /* One call, one load: all of them in force, or none changed. */
        if (make_tbsd_match(now, nc_times.answer_usec, &error) < 0) {
                if (error)
                        record_lines(scb, msghdr, error);
                else
                        record(scb, msghdr, NULL, NULL);
                res = ERR_NCX_OPERATION_FAILED;
        }
out:
        free(error);
        free_docs(now);
        return res;
}

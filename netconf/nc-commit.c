/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Edit and commit: on <commit> (target candidate, netconfd's default),
 * before the candidate becomes the running datastore, every interface whose
 * configuration of the modules changed is turned into tbsd's schedule
 * document (nc-docs.c, nc-translate.c), and tbsd is given all of them
 * (and the interfaces whose schedule went) in one call (nc-sync.c): tbsd
 * checks every document, keeps and applies them in one load, and puts
 * every one back when any is refused. A refusal ends the commit with one
 * rpc-error per line of tbsd's reason, and netconfd keeps the running
 * datastore as it was. <validate> goes the same way to tbsd's dry run
 * (nc-validate.c); a confirmed commit rolled back gives tbsd the running
 * datastore again (nc-confirmed.c, nc-sync.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nc-origin.h"
#include "nc-sil-internal.h"
#include "nc-tbsd.h"
#include "nc-validate.h"

/* The rpc-error of a refused commit: line, and as its error-path the node
 * the line's key came from (node: its value in the datastore checked,
 * netconfd writes its instance-identifier), else the interface's path
 * (none when ifname is NULL). */
static void record_at(ses_cb_t *scb, xml_msg_hdr_t *msghdr, const char *ifname, const void *node, const char *line) {
        ncx_errinfo_t info;
        char path[128];

        memset(&info, 0, sizeof(info));
        info.error_message = (xmlChar *) (line ? line : "out of memory");
        snprintf(path, sizeof(path), "/if:interfaces/if:interface[if:name='%s']", ifname ? ifname : "");
        agt_record_error_errinfo(scb, msghdr, NCX_LAYER_CONTENT, ERR_NCX_OPERATION_FAILED, NULL, NCX_NT_NONE,
                                 NULL, node ? NCX_NT_VAL : ifname ? NCX_NT_STRING : NCX_NT_NONE,
                                 node ? (void *) node : ifname ? path : NULL, &info);
}

static void record(ses_cb_t *scb, xml_msg_hdr_t *msghdr, const char *ifname, const char *line) {
        record_at(scb, msghdr, ifname, NULL, line);
}

/* A refused ApplySchedules (or ValidateSchedules): one rpc-error per
 * line of tbsd's answer, each with the path of the interface the line
 * names ("ApplySchedules(IFACE) by ...", "ValidateSchedules(IFACE) by
 * ..."), when it names one, or of the YANG node the line's document key
 * came from (docs: the documents sent, with their nodes). */
static void record_lines(ses_cb_t *scb, xml_msg_hdr_t *msghdr, char *text, const struct doc *docs) {
        for (char *p = text; p && *p;) {
                char *e = strchr(p, '\n'), *close;
                char ifname[64] = "";
                size_t head = strncmp(p, "ApplySchedules(", 15) == 0      ? 15
                              : strncmp(p, "ValidateSchedules(", 18) == 0 ? 18
                                                                           : 0;

                if (e)
                        *e = 0;
                if (head && (close = strchr(p + head, ')')) && (size_t) (close - p) - head < sizeof(ifname))
                        snprintf(ifname, sizeof(ifname), "%.*s", (int) ((size_t) (close - p) - head), p + head);
                const struct doc *d = ifname[0] ? find_doc(docs, ifname) : NULL;
                char key[128];
                const struct nc_origin *o = d ? nc_origin_find(d->origins, nc_origin_line_key(p, key, sizeof(key)))
                                              : NULL;
                record_at(scb, msghdr, ifname[0] ? ifname : NULL, o ? o->source : NULL, p);
                p = e ? e + 1 : NULL;
        }
}

/* The commit's times, logged when it is complete: where the module's
 * part of a commit goes (bench/netconf-64.sh reads the line). */
static struct {
        uint64_t start, translated, checked, cpu;
        unsigned n;
        bool pending;
} commit_times;

static uint64_t cpu_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* <commit>: tbsd is given the candidate's documents (what differs from
 * what it keeps) before netconfd makes the candidate the running
 * datastore; a refusal ends the commit and changes nothing. <validate>
 * (dry_run): tbsd checks the documents of the root named and keeps
 * nothing. */
static status_t check_root(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate, bool dry_run) {
        uint64_t start = nc_now_usec(), cpu = cpu_usec();
        bool oom;
        struct doc *now = docs_of(candidate, &oom);
        uint64_t translated = nc_now_usec();
        status_t res = NO_ERR;
        char *error = NULL, line[256];
        unsigned n = 0;

        if (oom) {
                record(scb, msghdr, NULL, NULL);
                res = ERR_INTERNAL_MEM;
                goto out;
        }
        /* Fail fast: netconfd would serve no one while it waited. */
        if (!nc_tbsd.answering) {
                snprintf(line, sizeof(line),
                         "netconf: tbsd has not answered for %llu s (stopped or busy): the %s is refused and "
                         "nothing was applied; %s again when it answers",
                         (unsigned long long) ((nc_now_usec() - nc_tbsd.since_usec) / 1000000),
                         dry_run ? "validate" : "commit", dry_run ? "validate" : "commit");
                record(scb, msghdr, NULL, line);
                res = ERR_NCX_OPERATION_FAILED;
                goto out;
        }
        for (const struct doc *d = now; d; d = d->next)
                if (d->error) {
                        record(scb, msghdr, d->ifname, d->error);
                        res = ERR_NCX_OPERATION_FAILED;
                        goto out;
                }
        /* One call, one load: all of them in force, or none changed. */
        if ((dry_run ? nc_validate_documents(now, &error) : make_tbsd_match(now, nc_times.answer_usec, &error)) < 0) {
                if (error)
                        record_lines(scb, msghdr, error, now);
                else
                        record(scb, msghdr, NULL, NULL);
                res = ERR_NCX_OPERATION_FAILED;
        }
        for (const struct doc *d = now; d; d = d->next)
                n++;
        if (res == NO_ERR && !dry_run)
                commit_times = (typeof(commit_times)) { start, translated, nc_now_usec(), cpu, n, true };
out:
        free(error);
        free_docs(now);
        return res;
}

status_t commit_validate(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *candidate) {
        return check_root(scb, msghdr, candidate, false);
}

status_t validate_check(ses_cb_t *scb, xml_msg_hdr_t *msghdr, val_value_t *root) {
        return check_root(scb, msghdr, root, true);
}

/* After a commit: how long the module's part of it took (leaves_usec: the
 * operational leaves added after it), logged once. */
void commit_log_times(uint64_t leaves_usec) {
        if (!commit_times.pending)
                return;
        commit_times.pending = false;
        log_info("\ntbsd: commit of %u interfaces: translation %.1f ms, ListSchedules %.1f ms, Ping %.1f ms, "
                 "ApplySchedulesIfGeneration %.1f ms, commit check %.1f ms in all; operational leaves %.1f ms; "
                 "CPU %.1f ms from the check to here\n", commit_times.n,
                 (double) (commit_times.translated - commit_times.start) / 1e3,
                 (double) nc_last_match.list_usec / 1e3, (double) nc_last_match.ping_usec / 1e3,
                 (double) nc_last_match.apply_usec / 1e3,
                 (double) (commit_times.checked - commit_times.start) / 1e3, (double) leaves_usec / 1e3,
                 (double) (cpu_usec() - commit_times.cpu) / 1e3);
}

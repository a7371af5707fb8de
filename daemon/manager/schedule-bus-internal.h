/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What schedule-bus.c (one interface a call) and schedule-batch-bus.c
 * (many) share: who may call, how a document is checked, how the lines of
 * a refusal are built and answered. For daemon/manager/ only. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "macro.h"
#include "manager.h"

/* The same bound as Validate() and the folder's files. */
#define SCHEDULE_MAX_BYTES (1024 * 1024)

typedef struct Caller {
        char who[32];           /* "uid N" */
        uid_t uid;
        uint32_t may;           /* the rights-granting keys it may set (lib/schedule-rights.h): root and
                                 * the admin group all, the schedule group's the operator's choice */
        bool admin_unknown;     /* admitted by the schedule group, the admin group not looked up yet:
                                 * done when a document sets a key beyond may (check_rights()) */
        sd_bus_message *msg;    /* the call */
} Caller;

/* The error for a name link_name_refusal() refused, the name escaped. */
int schedule_bus_refuse_ifname(sd_bus_error *error, const char *method, const char *who, const char *ifname,
                               const char *why);
/* The caller's check: root, the admin group, or the schedule group. */
int schedule_bus_admit(sd_bus_message *msg, Manager *m, const char *method, Caller *ret, sd_bus_error *error);
/* The schedules folder's file for ifname (the operator's), or NULL. */
const char *schedule_declared_by_file(Manager *m, const char *ifname);
/* A load's error lines about path, each "label: REST"; NULL: none. */
char *load_errors_about(const char *errors, const char *path, const char *label);
/* Whether the load gave ifname the store's document at path. */
bool schedule_in_force(Manager *m, const char *ifname, const char *path);
/* One line (printf-style) appended to *lines (newline-separated). */
int schedule_lines_addf(char **lines, const char *fmt, ...) _printf_(2, 3);
/* The checks a file of the folder gets; refusals to *lines, warnings to
 * *warnings. 1 when refused, 0 when not, -ENOMEM. */
int schedule_bus_check_document(Manager *m, Caller *c, const char *label, const char *ifname,
                                const char *text, char **lines, char **warnings);
/* A document for ifname refused before any load: counted on its link, if
 * tbsd has one (Describe()'s counters.changes_refused, NETCONF's
 * config-change-error). */
void schedule_count_refused(Manager *m, const char *ifname);
/* The lines of text (may be NULL) appended to reply as strings. */
int schedule_bus_append_lines(sd_bus_message *reply, const char *text);

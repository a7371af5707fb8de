/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Manager.ApplySchedule(), ApplySchedules(), ApplySchedulesBefore(),
 * RemoveSchedule(), GetSchedule(), ListSchedules()
 * (daemon/manager/schedule-bus.c): schedule documents given over the bus,
 * kept in the state folder (schedule-store.h). Callable by root, the admin
 * group and the schedule group (tbsd --schedule-group). userdata: the
 * Manager. */
#pragma once

#include <systemd/sd-bus.h>

/** ApplySchedule(s interface, s schedule_json, s origin) -> (b changed,
 *  as warnings): check the document as a file is checked, keep it and
 *  apply it; refused whole (nothing changed) with one line per problem. */
int schedule_bus_apply(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** ApplySchedules(a(ss) interfaces_and_documents, as removed_interfaces,
 *  s origin) -> (as changed, as warnings): ApplySchedule() and
 *  RemoveSchedule() of many interfaces in one call and one load; every
 *  document checked before anything is kept, and a refusal of any (the
 *  kernel's too) puts every one back. */
int schedule_bus_apply_many(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** ApplySchedulesBefore(a(ss) interfaces_and_documents, as removed_interfaces,
 *  s origin, t deadline_usec) -> (as changed, as warnings): ApplySchedules()
 *  refused, nothing changed, when CLOCK_MONOTONIC passes deadline_usec
 *  before tbsd answers (the caller has given up waiting). */
int schedule_bus_apply_before(sd_bus_message *msg, void *userdata, sd_bus_error *error);
/* ApplySchedulesBefore() refused, changing nothing, unless the kept
 * documents are still at the caller's generation (ListSchedulesGeneration());
 * answers the generation after it. */
int schedule_bus_apply_if_generation(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** ValidateSchedules(a(ss) interfaces_and_documents) -> (as problems,
 *  as warnings): the checks of ApplySchedules() (caller, bounds, names,
 *  parser, verifier against the device's probe), nothing kept or applied;
 *  problems: the lines ApplySchedules() would refuse them with, none when
 *  it would take them (the kernel's load aside). */
int schedule_bus_validate_many(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** ListSchedules(s origin) -> (a(sss) schedules): every document kept (of
 *  that origin; "" every origin) as (interface, schedule_json, origin). */
int schedule_bus_list(sd_bus_message *msg, void *userdata, sd_bus_error *error);
/* ListSchedules() and the kept documents' generation they are of. */
int schedule_bus_list_generation(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** RemoveSchedule(s interface, s origin): forget the document given for
 *  interface; its tree goes as when a file is unlinked. */
int schedule_bus_remove(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/** GetSchedule(s interface) -> (s schedule_json, s origin, s path). */
int schedule_bus_get(sd_bus_message *msg, void *userdata, sd_bus_error *error);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taprio's schedule side (kinds/taprio-keys.c), for its ops table in
 * kinds/taprio.c: the root keys' parsing, rules and JSON. */
#pragma once

#include "qdisc-kind.h"

void taprio_parse_root(Parser *p, const JsonNode *root, RootSpec *r);
void taprio_verify_root(Verifier *v, const Schedule *s, const DeviceFacts *f);
int taprio_root_to_json(struct json_object *o, const RootSpec *r);
/** Describe(): the running ("oper") and the pending ("admin") schedule of
 *  a dumped root, and "change_pending". */
void taprio_describe_root(struct json_object *o, const RootSpec *r);

/** A gate list as the file gives it ("command", "gate_mask" as a hex
 *  string, "interval_ns" each): a new array, or NULL on -ENOMEM. */
struct json_object *gate_entries_to_json(const GateEntry *entries, size_t n);

/** taprio's own part of two roots' compare (clock, times, mode, max SDU,
 *  gate list), after root_head_equal() and root_classes_equal(). */
bool taprio_schedule_equal(const RootSpec *a, const RootSpec *b);

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands of tbsctl, one file each (cli/verb-*.c), registered in the
 * verbs[] table of tbsctl.c. Each gets the arguments after the command name
 * and returns the process exit code (0 ok, 1 failed, 2 usage, 3 no daemon). */
#pragma once

#include <stdbool.h>

/* --json was given: print JSON instead of text. */
extern bool arg_json;

/** tbsctl validate FILE...: read, parse and verify schedule files without a
 *  daemon. Prints each problem as "FILE: JSON.PATH: REASON" on stderr (or,
 *  with --json, [{"file", "valid", "interface", "errors", "warnings"}] on
 *  stdout). Returns 0 when every file is valid (warnings allowed), else 1. */
int verb_validate(int argc, char *argv[]);

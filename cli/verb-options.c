/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options the verbs read (verbs.h), set by tbsctl.c's main(). Apart
 * from tbsctl.c, which calls the verbs: the verbs read them here, so the
 * calls between the files run one way. */
#include <stdbool.h>

#include "verbs.h"

bool arg_json;
bool arg_verbose;
unsigned arg_count = 20;
double arg_watch = -1;
const char *arg_device;
const char *arg_device_caps;
const char *arg_output;
bool arg_force;

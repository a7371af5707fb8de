/* SPDX-License-Identifier: GPL-2.0-or-later */
/* How a value from a schedule appears inside a one-line message: as JSON
 * (so control characters are escaped and cannot forge a second line), cut
 * when long. Shared by the parser and the validator. */
#pragma once

#define SHOW_MAX 64     /* longest rendering of a value in a message */

/** Copy the JSON text t into buf, cut at a UTF-8 character boundary and
 *  ended with "..." when it does not fit. Returns buf. */
const char *show_json_text(const char *t, char buf[static SHOW_MAX]);

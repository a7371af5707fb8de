/* SPDX-License-Identifier: GPL-2.0-or-later */
/* IEEE 802.1DC's credit-based shaper table (ieee802-dot1dc-cbsa-if, with
 * ieee802-dot1q-cbsa's grouping) on an interface (issue 48): each shaped
 * traffic class becomes a cbs on the class's first queue, its four values
 * computed by tbsd from the idle slope and the link speed (the bandwidth
 * form of docs/schedule-format.md's cbs); the idle slope in force is read
 * back from Link.Describe(). docs/netconf.md, "Credit-based shaping". */
#pragma once

#include <json-c/json.h>
#include <stdint.h>

#include "nc-translate.h"

#define CBSA_IF_MODULE "ieee802-dot1dc-cbsa-if"
#define CBSA_IF_REVISION "2024-09-26"

/* The frame sizes the four values are computed with: a full-size
 * VLAN-tagged frame (1500 bytes of payload, 14 header, 4 tag, 4 FCS), for
 * the class's own frames and for the other traffic's frame that may delay
 * them (tbsd's default max_interference_bytes). The standard's table has
 * no frame size; tbsd's module gives other values with a cbs of its own. */
#define NC_CBSA_FRAME_BYTES 1522

struct ctx;

/* The traffic classes iface's cbsa table names, one bit each (bit N:
 * class N): the classes a standard-only root must have. 0: no table. */
uint8_t nc_cbsa_classes(const struct nc_node *iface);

/* iface's cbsa table into doc, whose root has its num_tc and queues: a cbs
 * on the first queue of each class (an etf tbsd's module put there becomes
 * the cbs's child). 0, or -1 with ctx's one-line error. */
int nc_cbsa_translate(struct ctx *ctx, const struct nc_node *iface, json_object *doc);

/* The idle slope in force of traffic class tc, in bits/s, from
 * Describe()'s document: the installed cbs on the class's first queue of
 * the installed root. 0, or -1 when there is none (nothing installed, no
 * cbs there, not a document of that shape). */
int nc_cbsa_oper_idle_slope(const char *describe_json, unsigned tc, uint64_t *bps);

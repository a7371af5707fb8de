/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A qdisc's size table (tc's "stab", TCA_STAB): how long the qdisc takes a
 * frame to be when it shapes or schedules it (per-frame overhead such as
 * preamble, SFD, FCS and inter-frame gap, a minimum size, ATM cells).
 * Everything about it in one place: the model, the file's "stab" object,
 * the values the kernel is sent and dumps, the comparison and the JSON. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "json-tree.h"

struct tc_sizespec;
struct json_object;
typedef struct Parser Parser;

typedef enum StabLinkLayer {
        STAB_LINKLAYER_UNSPEC,          /* the kernel's TC_LINKLAYER_UNAWARE */
        STAB_LINKLAYER_ETHERNET,
        STAB_LINKLAYER_ATM,
        _STAB_LINKLAYER_MAX,
} StabLinkLayer;

/* Bounds of the file's keys. A table has tsize slots of 2 bytes in the
 * request; 1024 is twice tc's default of 512 and keeps a request with a
 * table within a page (libnl's message size). */
#define TBS_STAB_OVERHEAD_MIN (-65535)
#define TBS_STAB_OVERHEAD_MAX 65535
#define TBS_STAB_BYTES_MAX 65535
#define TBS_STAB_TSIZE_MAX 1024

typedef struct StabSpec {
        bool given;                     /* the file has "stab" / the dump has TCA_STAB */
        int32_t overhead;               /* bytes added to every frame */
        uint32_t mpu;                   /* a frame counts at least this long */
        uint32_t mtu;                   /* largest frame the table covers (table only) */
        uint32_t tsize;                 /* slots of the table (table only) */
        StabLinkLayer linklayer;
        /* from a dump only: the kernel's copy of what was sent */
        uint8_t cell_log, size_log;
        int16_t cell_align;
        bool dumped;
} StabSpec;

/* The file's "stab" object under PREFIX (root, txqueues[i]); absent: not given. */
void parse_stab(Parser *p, const char *prefix, const JsonNode *o, StabSpec *ret);

/* Why a file's stab cannot be sent as it says (NULL: it can): one that
 * changes nothing, or mtu/tsize without a table to size. */
const char *stab_refusal(const StabSpec *s);

/* What of a dumped stab the file's keys cannot say (NULL: they can). */
const char *stab_unexpressed(const StabSpec *s);

/* Whether a given stab changes anything (overhead, mpu or a link layer):
 * tc sends none otherwise, and the verifier refuses such a "stab". */
bool stab_has_effect(const StabSpec *s);

/* The sizespec the kernel is sent (and dumps back) for s, as tc computes
 * it: with no table (Ethernet or unspecified link layer, no mpu) mtu and
 * tsize are 0; with one, mtu defaults to 2047, tsize to 512, cell_log is
 * the smallest that covers mtu, size_log the smallest whose sizes fit 16
 * bits, cell_align -1. A dumped spec is returned as dumped. */
void stab_sizespec(const StabSpec *s, struct tc_sizespec *ret);

/* The table for a sizespec with tsize > 0: slot i holds the counted size
 * of a frame of (i + 1) << cell_log bytes, shifted by size_log. */
void stab_table(const StabSpec *s, const struct tc_sizespec *spec, uint16_t *table);

/* Two stabs (desired or dumped) against each other: the same sizespec,
 * or neither in force. */
bool stab_equal(const StabSpec *a, const StabSpec *b);

/* Whether a request for the qdisc carries TCA_STAB: a change without it
 * takes the kernel's table away. */
bool stab_needs_request(const StabSpec *s);

/* A dumped TCA_STAB_BASE payload into ret (given, dumped). */
void stab_from_sizespec(const struct tc_sizespec *spec, StabSpec *ret);

/* The file's "stab" object for s, NULL on allocation failure. */
struct json_object *stab_to_json(const StabSpec *s);

const char *stab_linklayer_to_string(StabLinkLayer l);
StabLinkLayer stab_linklayer_from_string(const char *s);

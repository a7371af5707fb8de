/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One interface of a datastore as tbsd is given it: its schedule
 * document, or why it has none. */
#pragma once

struct nc_origin;

struct doc {
        char *ifname;
        char *json;  /* NULL: no schedule */
        char *error; /* the translation's refusal (the commit's or validate's rpc-error) */
        struct nc_origin *origins; /* the YANG node of each key a node gave (nc-origin.h) */
        struct doc *next;
};

/* A list of documents freed (nc-diff.c: pure, for the unit tests too). */
void free_docs(struct doc *d);

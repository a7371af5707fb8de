/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include "json-tree.h"

/* The arena: blocks of memory, each used from its start; a block never
 * moves, so nodes and strings keep their addresses. The first block is
 * allocated with the tree. */
typedef struct Block Block;
struct Block {
        Block *next;
        size_t size, used;
        _Alignas(16) unsigned char data[];
};

struct JsonTree {
        Block *top;             /* the block in use; older ones follow */
        _Alignas(16) unsigned char first[];     /* the first Block */
};

#define FIRST_MAX (64U * 1024U)

JsonTree *json_tree_new(size_t size_hint) {
        /* A schedule file's tree (32 bytes a value, plus its decoded
         * strings) fits in about four times its text. */
        size_t size = size_hint > (FIRST_MAX - 512) / 4 ? FIRST_MAX : size_hint * 4 + 512;
        JsonTree *t = malloc(sizeof(JsonTree) + sizeof(Block) + size);

        if (!t)
                return NULL;
        t->top = (Block *) t->first;
        *t->top = (Block) { .size = size };
        return t;
}

void *json_tree_alloc(JsonTree *t, size_t n) {
        Block *b = t->top;
        void *p;

        n = (n + 7) & ~(size_t) 7;
        if (b->size - b->used < n) {
                size_t size = b->size * 2 > n ? b->size * 2 : n;

                if (size < b->size || size > SIZE_MAX - sizeof(Block))
                        return NULL;
                b = malloc(sizeof(Block) + size);
                if (!b)
                        return NULL;
                *b = (Block) { .next = t->top, .size = size };
                t->top = b;
        }
        p = b->data + b->used;
        b->used += n;
        return p;
}

JsonTree *json_tree_free(JsonTree *t) {
        if (!t)
                return NULL;
        for (Block *b = t->top, *next; b != (Block *) t->first; b = next) {
                next = b->next;
                free(b);
        }
        free(t);
        return NULL;
}

const JsonNode *json_member(const JsonNode *o, const char *key) {
        if (!json_is(o, JSON_OBJECT))
                return NULL;
        for (uint32_t i = 0; i < o->len; i++)
                if (o->items[i].key[0] == key[0] && strcmp(o->items[i].key, key) == 0)
                        return &o->items[i];
        return NULL;
}

/* Appends s[0..len) as a JSON string to out (at most SHOW_MAX bytes and
 * one escape more: what show_json_text() looks at), escaped as json-c
 * does with JSON_C_TO_STRING_NOSLASHESCAPE. Returns the bytes written. */
static size_t escape_string(const char *s, size_t len, char out[static SHOW_MAX + 8]) {
        static const char hex[] = "0123456789abcdef";
        size_t o = 0;

        out[o++] = '"';
        for (size_t i = 0; i < len && o < SHOW_MAX; i++) {
                unsigned char c = (unsigned char) s[i];

                switch (c) {
                case '\b': out[o++] = '\\'; out[o++] = 'b'; break;
                case '\n': out[o++] = '\\'; out[o++] = 'n'; break;
                case '\r': out[o++] = '\\'; out[o++] = 'r'; break;
                case '\t': out[o++] = '\\'; out[o++] = 't'; break;
                case '\f': out[o++] = '\\'; out[o++] = 'f'; break;
                case '"': out[o++] = '\\'; out[o++] = '"'; break;
                case '\\': out[o++] = '\\'; out[o++] = '\\'; break;
                default:
                        if (c < ' ') {
                                memcpy(out + o, "\\u00", 4);
                                out[o + 4] = hex[c >> 4];
                                out[o + 5] = hex[c & 0xF];
                                o += 6;
                        } else
                                out[o++] = (char) c;
                }
        }
        if (o < SHOW_MAX)
                out[o++] = '"';
        out[o] = 0;
        return o;
}

const char *json_show_string(const char *s, size_t len, char buf[static SHOW_MAX]) {
        char t[SHOW_MAX + 8];

        escape_string(s, len, t);
        return show_json_text(t, buf);
}

const char *json_show(const JsonNode *v, char buf[static SHOW_MAX]) {
        char t[SHOW_MAX + 8];
        size_t n;

        if (json_is(v, JSON_INTEGER) && v->len == 2 && v->text[0] == '-' && v->text[1] == '0')
                return "0";
        switch (v ? v->kind : JSON_NULL) {
        case JSON_NULL:
                return "null";
        case JSON_OBJECT:
                return "an object";
        case JSON_ARRAY:
                return "an array";
        case JSON_BOOLEAN:
                return v->b ? "true" : "false";
        case JSON_STRING:
                return json_show_string(v->text, v->len, buf);
        default:
                /* As written; past SHOW_MAX the cut is the same. */
                n = v->len < SHOW_MAX ? v->len : SHOW_MAX;
                memcpy(t, v->text, n);
                t[n] = 0;
                return show_json_text(t, buf);
        }
}

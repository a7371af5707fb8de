/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus-queue.h"
#include "log.h"
#include "macro.h"

typedef enum QueuedKind {
        QUEUED_ADDED,
        QUEUED_REMOVED,
        QUEUED_CHANGED,
        QUEUED_SIGNAL,
} QueuedKind;

/* Where no string is: an offset past any text. */
#define NONE SIZE_MAX

/* An entry refers to its strings by offset into the queue's one text
 * buffer, and to its property names through a chain in the queue's one
 * name array: a burst of hundreds of links then takes three growing blocks
 * that go back whole at the flush, not thousands of small allocations
 * between the links' lasting ones, whose holes would keep the heap's pages
 * resident (measured: a Reload() of 256 links). */
typedef struct Queued {
        QueuedKind kind;
        size_t path;
        size_t interface;               /* CHANGED, SIGNAL */
        size_t member;                  /* SIGNAL */
        size_t args[3];                 /* SIGNAL */
        size_t first_name, last_name;   /* CHANGED: chain in BusQueue.names, NONE when empty */
        size_t n_names;
} Queued;

typedef struct QueuedName {
        size_t text;
        size_t next;                    /* the entry's next name, NONE at its end */
} QueuedName;

struct BusQueue {
        sd_bus *bus;
        sd_event_source *idle;
        Queued *items;
        size_t n, allocated;
        char *text;
        size_t text_len, text_allocated;
        QueuedName *names;
        size_t n_names, names_allocated;
        bool flushing;                  /* sending: what is queued meanwhile goes at once */
        bool failed;                    /* out of memory once: logged */
};

/* Make room for one more element in *array (n used of *allocated). */
static int grow(void **array, size_t n, size_t *allocated, size_t size, size_t first) {
        void *a;
        size_t want;

        if (n < *allocated)
                return 0;
        want = *allocated ? *allocated * 2 : first;
        a = reallocarray(*array, want, size);
        if (!a)
                return -ENOMEM;
        *array = a;
        *allocated = want;
        return 0;
}

/* Copy s into the text buffer. Returns its offset, NONE without memory. */
static size_t text_add(BusQueue *q, const char *s) {
        size_t l = strlen(s) + 1, at = q->text_len;

        if (at + l > q->text_allocated) {
                size_t want = q->text_allocated ? q->text_allocated : 1024;
                char *t;

                while (want < at + l)
                        want *= 2;
                t = realloc(q->text, want);
                if (!t)
                        return NONE;
                q->text = t;
                q->text_allocated = want;
        }
        memcpy(q->text + at, s, l);
        q->text_len += l;
        return at;
}

static const char *text_at(const BusQueue *q, size_t at) {
        return q->text + at;
}

/* Emit one signal of kind on the bus (the strings it needs; the others NULL). */
static void emit(sd_bus *bus, QueuedKind kind, const char *path, const char *interface, const char *member,
                 char **names, const char *a, const char *b, const char *c) {
        switch (kind) {
        case QUEUED_ADDED:
                (void) sd_bus_emit_object_added(bus, path);
                break;
        case QUEUED_REMOVED:
                (void) sd_bus_emit_object_removed(bus, path);
                break;
        case QUEUED_CHANGED:
                (void) sd_bus_emit_properties_changed_strv(bus, path, interface, names);
                break;
        case QUEUED_SIGNAL:
                (void) sd_bus_emit_signal(bus, path, interface, member, "sss", a, b, c);
                break;
        }
}

/* A string of x, or NULL where it has none. */
static const char *text_or_null(const BusQueue *q, size_t at) {
        return at == NONE ? NULL : text_at(q, at);
}

/* Send x. Its strings are resolved here, after every append of the burst:
 * the buffers do not move any more. */
static void send_one(BusQueue *q, const Queued *x) {
        _cleanup_free_ char **v = NULL;

        if (x->kind == QUEUED_CHANGED) {
                size_t i = 0;

                if (x->n_names == 0)
                        return;         /* an entry left as a no-op (see bus_queue_signal_sss()) */
                v = calloc(x->n_names + 1, sizeof(char *));
                if (!v) {
                        log_warning("out of memory sending a bus signal; PropertiesChanged of %s dropped",
                                    text_at(q, x->path));
                        return;
                }
                for (size_t k = x->first_name; k != NONE; k = q->names[k].next)
                        v[i++] = (char *) text_at(q, q->names[k].text);
        }
        emit(q->bus, x->kind, text_at(q, x->path), text_or_null(q, x->interface), text_or_null(q, x->member), v,
             text_or_null(q, x->args[0]), text_or_null(q, x->args[1]), text_or_null(q, x->args[2]));
}

void bus_queue_flush(BusQueue *q) {
        if (!q || q->flushing)
                return;
        /* Sending runs the property getters, none of which queues; should
         * one ever, its signal goes at once rather than into buffers that
         * are being read. */
        q->flushing = true;
        for (size_t i = 0; i < q->n; i++)
                send_one(q, &q->items[i]);
        q->flushing = false;
        q->items = mfree(q->items);
        q->text = mfree(q->text);
        q->names = mfree(q->names);
        q->n = q->allocated = 0;
        q->text_len = q->text_allocated = 0;
        q->n_names = q->names_allocated = 0;
}

static int on_idle(sd_event_source *s, void *userdata) {
        bus_queue_flush(userdata);
        return 0;
}

int bus_queue_new(sd_bus *bus, sd_event *event, BusQueue **ret) {
        BusQueue *q;
        int r;

        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        q->bus = bus;
        r = sd_event_add_defer(event, &q->idle, on_idle, q);
        if (r < 0) {
                free(q);
                return r;
        }
        /* After everything else that is ready: a whole burst of work is
         * done (and its method replies sent) before its signals. */
        (void) sd_event_source_set_priority(q->idle, SD_EVENT_PRIORITY_IDLE);
        (void) sd_event_source_set_enabled(q->idle, SD_EVENT_OFF);
        *ret = q;
        return 0;
}

BusQueue *bus_queue_free(BusQueue *q) {
        if (!q)
                return NULL;
        bus_queue_flush(q);
        sd_event_source_disable_unref(q->idle);
        free(q);
        return NULL;
}

/* A new entry for path, NULL without memory (or while flushing). */
static Queued *append(BusQueue *q, QueuedKind kind, const char *path) {
        size_t at;

        if (q->flushing || grow((void **) &q->items, q->n, &q->allocated, sizeof(Queued), 16) < 0)
                return NULL;
        at = text_add(q, path);
        if (at == NONE)
                return NULL;
        q->items[q->n] = (Queued) {
                .kind = kind,
                .path = at,
                .interface = NONE,
                .member = NONE,
                .args = { NONE, NONE, NONE },
                .first_name = NONE,
                .last_name = NONE,
        };
        (void) sd_event_source_set_enabled(q->idle, SD_EVENT_ONESHOT);
        return &q->items[q->n++];
}

/* Out of memory: what cannot be queued is sent at once (order may then
 * differ, nothing is lost). */
static void send_now(BusQueue *q, QueuedKind kind, const char *path, const char *interface, const char *member,
                     char **names, const char *a, const char *b, const char *c) {
        if (!q->flushing && !q->failed) {
                log_warning("out of memory queueing a bus signal; sending it at once");
                q->failed = true;
        }
        emit(q->bus, kind, path, interface, member, names, a, b, c);
}

void bus_queue_object_added(BusQueue *q, const char *path) {
        if (!append(q, QUEUED_ADDED, path))
                send_now(q, QUEUED_ADDED, path, NULL, NULL, NULL, NULL, NULL, NULL);
}

/* Take entry i out of the list (its text stays until the flush). */
static void drop_at(BusQueue *q, size_t i) {
        memmove(q->items + i, q->items + i + 1, (q->n - i - 1) * sizeof(*q->items));
        q->n--;
}

void bus_queue_object_removed(BusQueue *q, const char *path) {
        bool added_unsent = false;

        for (size_t i = q->n; i > 0; i--) {
                Queued *x = &q->items[i - 1];

                if (x->kind == QUEUED_SIGNAL || strcmp(text_at(q, x->path), path) != 0)
                        continue;
                if (x->kind == QUEUED_REMOVED)
                        break;          /* an earlier life of the same path */
                if (x->kind == QUEUED_ADDED)
                        added_unsent = true;
                drop_at(q, i - 1);
                if (added_unsent)
                        break;
        }
        if (added_unsent)
                return;         /* never announced: nothing to take back */
        if (!append(q, QUEUED_REMOVED, path))
                send_now(q, QUEUED_REMOVED, path, NULL, NULL, NULL, NULL, NULL, NULL);
}

static bool has_name(const BusQueue *q, const Queued *x, const char *name) {
        for (size_t k = x->first_name; k != NONE; k = q->names[k].next)
                if (strcmp(text_at(q, q->names[k].text), name) == 0)
                        return true;
        return false;
}

/* Add names to x's list (x is q->items[i]: the text buffer may move, the
 * entry does not). Returns 0 or -ENOMEM. */
static int merge_names(BusQueue *q, size_t i, char **names) {
        for (char **n = names; *n; n++) {
                Queued *x = &q->items[i];
                size_t at, k;

                if (has_name(q, x, *n))
                        continue;
                if (grow((void **) &q->names, q->n_names, &q->names_allocated, sizeof(QueuedName), 64) < 0)
                        return -ENOMEM;
                at = text_add(q, *n);
                if (at == NONE)
                        return -ENOMEM;
                k = q->n_names++;
                q->names[k] = (QueuedName) { .text = at, .next = NONE };
                if (x->last_name == NONE)
                        x->first_name = k;
                else
                        q->names[x->last_name].next = k;
                x->last_name = k;
                x->n_names++;
        }
        return 0;
}

void bus_queue_properties_changed(BusQueue *q, const char *path, const char *interface, char **names) {
        Queued *x = NULL;

        if (!names || !names[0])
                return;
        /* The values are read when the signal is sent: a change queued for
         * the same object since its last addition or removal takes these
         * names too. */
        for (size_t i = q->n; i > 0; i--) {
                Queued *y = &q->items[i - 1];

                if (y->kind == QUEUED_SIGNAL || strcmp(text_at(q, y->path), path) != 0)
                        continue;
                if (y->kind == QUEUED_CHANGED && y->interface != NONE &&
                    strcmp(text_at(q, y->interface), interface) == 0)
                        x = y;
                break;
        }
        if (!x) {
                x = append(q, QUEUED_CHANGED, path);
                if (x && (x->interface = text_add(q, interface)) == NONE)
                        x = NULL;       /* left without names: a no-op at the flush */
        }
        if (!x || merge_names(q, (size_t) (x - q->items), names) < 0)
                send_now(q, QUEUED_CHANGED, path, interface, NULL, names, NULL, NULL, NULL);
}

void bus_queue_signal_sss(BusQueue *q, const char *path, const char *interface, const char *member,
                          const char *a, const char *b, const char *c) {
        Queued *x = append(q, QUEUED_SIGNAL, path);

        if (x) {
                size_t i = (size_t) (x - q->items);

                /* Offsets: the entry is found again by index after each
                 * text_add() (the items do not move, the text may). */
                q->items[i].interface = text_add(q, interface);
                q->items[i].member = text_add(q, member);
                q->items[i].args[0] = text_add(q, a);
                q->items[i].args[1] = text_add(q, b);
                q->items[i].args[2] = text_add(q, c);
                x = &q->items[i];
                if (x->interface != NONE && x->member != NONE && x->args[0] != NONE && x->args[1] != NONE &&
                    x->args[2] != NONE)
                        return;
                /* Incomplete: sent now instead; the entry becomes a no-op
                 * change with no names, which send_one() skips. */
                x->kind = QUEUED_CHANGED;
        }
        send_now(q, QUEUED_SIGNAL, path, interface, member, NULL, a, b, c);
}

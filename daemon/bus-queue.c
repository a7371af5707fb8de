/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
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

typedef struct Queued {
        QueuedKind kind;
        char *path;
        char *interface;                /* CHANGED, SIGNAL */
        char *member;                   /* SIGNAL */
        char *args[3];                  /* SIGNAL */
        char **names;                   /* CHANGED: NULL-terminated */
        size_t n_names;
} Queued;

struct BusQueue {
        sd_bus *bus;
        sd_event_source *idle;
        Queued *items;
        size_t n, allocated;
        bool failed;                    /* out of memory once: logged */
};

static void queued_done(Queued *x) {
        free(x->path);
        free(x->interface);
        free(x->member);
        for (size_t i = 0; i < ELEMENTSOF(x->args); i++)
                free(x->args[i]);
        for (size_t i = 0; i < x->n_names; i++)
                free(x->names[i]);
        free(x->names);
}

static void send_one(sd_bus *bus, Queued *x) {
        switch (x->kind) {
        case QUEUED_ADDED:
                (void) sd_bus_emit_object_added(bus, x->path);
                break;
        case QUEUED_REMOVED:
                (void) sd_bus_emit_object_removed(bus, x->path);
                break;
        case QUEUED_CHANGED:
                if (x->interface && x->names)   /* else left incomplete by an allocation failure */
                        (void) sd_bus_emit_properties_changed_strv(bus, x->path, x->interface, x->names);
                break;
        case QUEUED_SIGNAL:
                (void) sd_bus_emit_signal(bus, x->path, x->interface, x->member, "sss", x->args[0], x->args[1],
                                          x->args[2]);
                break;
        }
}

void bus_queue_flush(BusQueue *q) {
        size_t n;

        if (!q)
                return;
        /* Sending may run no callback of ours, but take the list first so
         * that whatever is queued meanwhile waits for the next round. */
        n = q->n;
        for (size_t i = 0; i < n; i++) {
                send_one(q->bus, &q->items[i]);
                queued_done(&q->items[i]);
        }
        memmove(q->items, q->items + n, (q->n - n) * sizeof(*q->items));
        q->n -= n;
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
        free(q->items);
        free(q);
        return NULL;
}

static Queued *append(BusQueue *q, QueuedKind kind, const char *path) {
        Queued *x;

        if (q->n == q->allocated) {
                size_t a = q->allocated ? q->allocated * 2 : 16;
                Queued *n = reallocarray(q->items, a, sizeof(*n));

                if (!n)
                        return NULL;
                q->items = n;
                q->allocated = a;
        }
        x = &q->items[q->n];
        *x = (Queued) { .kind = kind, .path = strdup(path) };
        if (!x->path)
                return NULL;
        q->n++;
        (void) sd_event_source_set_enabled(q->idle, SD_EVENT_ONESHOT);
        return x;
}

/* Out of memory: what cannot be queued is sent at once (order may then
 * differ, nothing is lost). */
static void send_now(BusQueue *q, Queued *x) {
        if (!q->failed)
                log_warning("out of memory queueing a bus signal; sending it at once");
        q->failed = true;
        send_one(q->bus, x);
}

void bus_queue_object_added(BusQueue *q, const char *path) {
        Queued now = { .kind = QUEUED_ADDED, .path = (char *) path };

        if (!append(q, QUEUED_ADDED, path))
                send_now(q, &now);
}

static void drop_at(BusQueue *q, size_t i) {
        queued_done(&q->items[i]);
        memmove(q->items + i, q->items + i + 1, (q->n - i - 1) * sizeof(*q->items));
        q->n--;
}

void bus_queue_object_removed(BusQueue *q, const char *path) {
        Queued now = { .kind = QUEUED_REMOVED, .path = (char *) path };
        bool added_unsent = false;

        for (size_t i = q->n; i > 0; i--) {
                Queued *x = &q->items[i - 1];

                if (x->kind == QUEUED_SIGNAL || strcmp(x->path, path) != 0)
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
                send_now(q, &now);
}

static bool has_name(const Queued *x, const char *name) {
        for (size_t i = 0; i < x->n_names; i++)
                if (strcmp(x->names[i], name) == 0)
                        return true;
        return false;
}

/* Add names to x's list. Returns 0 or -ENOMEM. */
static int merge_names(Queued *x, char **names) {
        for (char **n = names; *n; n++) {
                char **grown;

                if (has_name(x, *n))
                        continue;
                grown = reallocarray(x->names, x->n_names + 2, sizeof(char *));
                if (!grown)
                        return -ENOMEM;
                x->names = grown;
                x->names[x->n_names] = strdup(*n);
                if (!x->names[x->n_names])
                        return -ENOMEM;
                x->names[++x->n_names] = NULL;
        }
        return 0;
}

void bus_queue_properties_changed(BusQueue *q, const char *path, const char *interface, char **names) {
        Queued now = { .kind = QUEUED_CHANGED, .path = (char *) path, .interface = (char *) interface,
                       .names = names };
        Queued *x = NULL;

        if (!names || !names[0])
                return;
        /* The values are read when the signal is sent: a change queued for
         * the same object since its last addition or removal takes these
         * names too. */
        for (size_t i = q->n; i > 0; i--) {
                Queued *y = &q->items[i - 1];

                if (y->kind == QUEUED_SIGNAL || strcmp(y->path, path) != 0)
                        continue;
                if (y->kind == QUEUED_CHANGED && y->interface && strcmp(y->interface, interface) == 0)
                        x = y;
                break;
        }
        if (!x) {
                x = append(q, QUEUED_CHANGED, path);
                if (x && !(x->interface = strdup(interface)))
                        x = NULL;       /* freed with the rest at the flush */
        }
        if (!x || merge_names(x, names) < 0)
                send_now(q, &now);
}

void bus_queue_signal_sss(BusQueue *q, const char *path, const char *interface, const char *member,
                          const char *a, const char *b, const char *c) {
        Queued now = { .kind = QUEUED_SIGNAL, .path = (char *) path, .interface = (char *) interface,
                       .member = (char *) member, .args = { (char *) a, (char *) b, (char *) c } };
        Queued *x = append(q, QUEUED_SIGNAL, path);

        if (x) {
                x->interface = strdup(interface);
                x->member = strdup(member);
                x->args[0] = strdup(a);
                x->args[1] = strdup(b);
                x->args[2] = strdup(c);
                if (x->interface && x->member && x->args[0] && x->args[1] && x->args[2])
                        return;
                /* Incomplete: sent now instead; the entry becomes a no-op
                 * change with no names, which send_one() skips. */
                x->kind = QUEUED_CHANGED;
        }
        send_now(q, &now);
}

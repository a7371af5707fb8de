/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "utf8.h"

int diag_add(DiagList *l, DiagSeverity severity, const char *file, const char *path,
             const char *format, ...) {
        va_list ap;
        int r;

        va_start(ap, format);
        r = diag_addv(l, severity, file, path, format, ap);
        va_end(ap);
        return r;
}

int diag_addv(DiagList *l, DiagSeverity severity, const char *file, const char *path, const char *format,
              va_list ap) {
        _cleanup_free_ char *f = NULL, *p = NULL, *reason = NULL;
        Diag *items;
        int r;

        r = vasprintf(&reason, format, ap);
        if (r < 0) {
                reason = NULL;
                return -ENOMEM;
        }
        if (file && !(f = strdup(file)))
                return -ENOMEM;
        if (path && *path && !(p = strdup(path)))
                return -ENOMEM;

        items = reallocarray(l->items, l->n + 1, sizeof(Diag));
        if (!items)
                return -ENOMEM;
        l->items = items;
        l->items[l->n++] = (Diag) {
                .severity = severity,
                .file = TAKE_PTR(f),
                .path = TAKE_PTR(p),
                .reason = TAKE_PTR(reason),
        };
        if (severity == DIAG_ERROR)
                l->n_errors++;
        return 0;
}

char *diag_format(const Diag *d) {
        _cleanup_free_ char *f = NULL, *p = NULL, *r = NULL;
        char *s;

        /* The file name comes from outside (a folder listing, the command
         * line) and the reason may quote a value: escaped, the line stays
         * one line of valid UTF-8, for a terminal, a log and D-Bus. */
        if (asprintf(&s, "%s%s%s%s%s%s",
                     d->file ? text_safe(d->file, &f) : "", d->file ? ": " : "",
                     d->path ? text_safe(d->path, &p) : "", d->path ? ": " : "",
                     d->severity == DIAG_WARNING ? "warning: " : "",
                     text_safe(d->reason, &r)) < 0)
                return NULL;
        return s;
}

void diag_list_clear(DiagList *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].file);
                free(l->items[i].path);
                free(l->items[i].reason);
        }
        free(l->items);
        *l = (DiagList) {};
}

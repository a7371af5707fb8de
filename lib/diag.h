/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A list of one-line diagnostics gathered while reading and checking a
 * schedule, so that every problem of a file is reported, not just the first.
 * Each line reads "FILE: PATH: REASON", e.g.
 *   "schedules.d/eth0.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -5". */
#pragma once

#include <stdarg.h>

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef enum DiagSeverity {
        DIAG_ERROR,
        DIAG_WARNING,
        _DIAG_SEVERITY_MAX,
        _DIAG_SEVERITY_INVALID = -EINVAL,
} DiagSeverity;

typedef struct Diag {
        DiagSeverity severity;
        char *file;     /* as given by the caller; may be NULL */
        char *path;     /* JSON path ("txqueues[1].delta_ns"); NULL for the whole file */
        char *reason;
} Diag;

typedef struct DiagList {
        Diag *items;
        size_t n;
        size_t n_errors;
} DiagList;

/** Append a diagnostic. file and path may be NULL. Returns 0 or -ENOMEM. */
int diag_add(DiagList *l, DiagSeverity severity, const char *file, const char *path,
             const char *format, ...) _printf_(5, 6);
/** diag_add() with the arguments as a va_list. */
int diag_addv(DiagList *l, DiagSeverity severity, const char *file, const char *path, const char *format,
              va_list ap) _printf_(5, 0);

#define diag_error(l, file, path, ...) diag_add(l, DIAG_ERROR, file, path, __VA_ARGS__)
#define diag_warning(l, file, path, ...) diag_add(l, DIAG_WARNING, file, path, __VA_ARGS__)

/** Format one diagnostic as its single line ("FILE: PATH: REASON", with
 *  "warning: " before the reason for warnings), control characters and
 *  invalid UTF-8 escaped (text_escape()): always one line, always valid
 *  UTF-8. Returns a new string or NULL. */
char *diag_format(const Diag *d);

/** Number of errors (warnings excluded). */
static inline size_t diag_errors(const DiagList *l) {
        return l->n_errors;
}

/** Free every item; the list is empty afterwards and may be reused. */
void diag_list_clear(DiagList *l);

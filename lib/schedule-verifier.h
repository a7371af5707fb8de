/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the validator gives the kinds' rules (schedule-verifier.c)
 * (kinds/KIND.c): where findings go and where a qdisc's keys sit. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "diag.h"
#include "macro.h"

#define VERIFY_PATH_MAX 128

typedef struct Verifier {
        const char *file;
        DiagList *diags;
        bool oom;
} Verifier;

/* Where a queue's qdisc sits in the file: "root", "root.child",
 * "txqueues[3]", "txqueues[3].child". Only made into text for a message:
 * formatting it for every queue of every file costs more than the checks. */
typedef struct Where {
        const char *prefix;     /* "root" or "txqueues" */
        size_t index;           /* with "txqueues" */
        bool child;             /* the etf under a cbs */
} Where;

void vdiag(Verifier *v, DiagSeverity sev, const char *path, const char *format, ...) _printf_(4, 5);
#define verr(v, path, ...) vdiag(v, DIAG_ERROR, path, __VA_ARGS__)
#define vwarn(v, path, ...) vdiag(v, DIAG_WARNING, path, __VA_ARGS__)

/* The path of key under w ("txqueues[3].child.delta_ns"). */
const char *where_key(char buf[static VERIFY_PATH_MAX], const Where *w, const char *key);
/* A clock's name for a message ("CLOCK_TAI", else "clock N"). */
const char *clock_name(clockid_t c, char buf[static 32]);
const char *pathf(char buf[static VERIFY_PATH_MAX], const char *format, ...) _printf_(2, 3);
/* "must be between min and INT64_MAX, got x" at path, when x < min. */
void verify_at_least(Verifier *v, const char *path, int64_t x, int64_t min);

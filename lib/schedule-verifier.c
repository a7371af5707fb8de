/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What schedule-verifier.h gives the kinds' rules and the validator: where
 * findings go and how their paths are written. Below kinds/ (the kinds
 * call it), apart from the validator (schedule-verify.c) that asks them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "schedule.h"
#include "schedule-verifier.h"

void vdiag(Verifier *v, DiagSeverity sev, const char *path, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        if (diag_addv(v->diags, sev, v->file, path, format, ap) < 0)
                v->oom = true;
        va_end(ap);
}

const char *pathf(char buf[static VERIFY_PATH_MAX], const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        vsnprintf(buf, VERIFY_PATH_MAX, format, ap);
        va_end(ap);
        return buf;
}

void verify_at_least(Verifier *v, const char *path, int64_t x, int64_t min) {
        if (x < min)
                verr(v, path, "must be between %" PRIi64 " and %" PRIi64 ", got %" PRIi64, min, INT64_MAX, x);
}

const char *clock_name(clockid_t c, char buf[static 32]) {
        const char *n = clockid_to_string(c);

        if (n)
                return n;
        snprintf(buf, 32, "clock %d", (int) c);
        return buf;
}

const char *where_key(char buf[static VERIFY_PATH_MAX], const Where *w, const char *key) {
        if (strcmp(w->prefix, "txqueues") == 0)
                return pathf(buf, "txqueues[%zu]%s.%s", w->index, w->child ? ".child" : "", key);
        return pathf(buf, "%s%s.%s", w->prefix, w->child ? ".child" : "", key);
}

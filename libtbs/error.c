/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Errors: tbsd's D-Bus error names as errnos, and the caller's one-line
 * message. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "tbs-internal.h"

/* tbsd's names (dbus/org.tsn.Tbs.xml), after "org.tsn.Tbs.Error.". */
static const struct {
        const char *name;
        int error;
} tbs_errors[] = {
        { "AccessDenied", EACCES },
        { "NoSuchLink", ENODEV },
        { "InvalidArguments", EINVAL },
        { "InvalidQueue", ENXIO },
        { "InvalidSchedule", EBADMSG },
        { "ApplyFailed", EIO },
        { "NotOwned", EBUSY },
        { "Failed", EIO },
        /* OpenTxtimeSocket(), GetTxtimeWindow() */
        { "NotConfigured", ENETDOWN },
        { "NoEtf", EOPNOTSUPP },
        { "UnknownKind", EINVAL },
        { "ProtocolMissing", EINVAL },
        { "InvalidOption", EINVAL },
        { "NotSupported", EOPNOTSUPP },
};

int tbs_errno_from_bus_error(const char *name) {
        size_t prefix = strlen(TBS_BUS_ERROR);
        int r;

        if (!name || !*name)
                return -EIO;
        if (strncmp(name, TBS_BUS_ERROR, prefix) == 0) {
                for (size_t i = 0; i < sizeof(tbs_errors) / sizeof(tbs_errors[0]); i++)
                        if (strcmp(name + prefix, tbs_errors[i].name) == 0)
                                return -tbs_errors[i].error;
                return -EIO;
        }
        /* org.freedesktop.DBus.Error.* and the System.Error.* names. */
        r = sd_bus_error_get_errno(&(const sd_bus_error) { .name = name });
        return r > 0 ? -r : -EIO;
}

/* Copy src into dst (size bytes) as one line: control characters (a
 * newline of a longer message, say) become spaces. */
static void copy_line(char *dst, size_t size, const char *src) {
        size_t i = 0;

        for (; src && src[i] && i + 1 < size; i++)
                dst[i] = (unsigned char) src[i] < 0x20 || src[i] == 0x7f ? ' ' : src[i];
        dst[i] = '\0';
}

void tbs_error_clear(struct tbs_error *e) {
        if (e)
                *e = (struct tbs_error) {};
}

int tbs_error_set(struct tbs_error *e, int r, const char *name, const char *fmt, ...) {
        char line[sizeof(e->message)];
        va_list ap;

        if (!e)
                return r;
        va_start(ap, fmt);
        (void) vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        e->error = r;
        copy_line(e->name, sizeof(e->name), name);
        copy_line(e->message, sizeof(e->message), line);
        if (!e->message[0])
                /* Never empty: the errno's text at least. */
                (void) snprintf(e->message, sizeof(e->message), "%s", strerrordesc_np(-r) ?: "unknown error");
        return r;
}

TBS_PUBLIC const char *tbs_error_message(const struct tbs_error *e) {
        return e ? e->message : "";
}

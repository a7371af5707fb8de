/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "show.h"

const char *show_json_text(const char *t, char buf[static SHOW_MAX]) {
        size_t n = strlen(t);

        if (n < SHOW_MAX) {
                memcpy(buf, t, n + 1);
                return buf;
        }
        /* Cut at a UTF-8 character boundary and mark the cut. */
        n = SHOW_MAX - 5;
        while (n > 0 && ((unsigned char) t[n] & 0xC0) == 0x80)
                n--;
        memcpy(buf, t, n);
        memcpy(buf + n, "...", 4);
        return buf;
}

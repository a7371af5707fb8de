/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A standard-only taprio root's mode from tbsd's probe of the device
 * (nc-caps.c; the translation's hook, nc_translate_set_mode_of()). */
#pragma once

/* *mode ("full-offload" or "software", nc_derive_mode()) of ifname's
 * device, as tbsd's GetCapabilities() says it, waiting at most the answer
 * time: 0, or -errno and *why (malloc'ed, one line: tbsd's refusal, or
 * that it did not answer). */
int nc_caps_mode(const char *ifname, const char **mode, char **why);

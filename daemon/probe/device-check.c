/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device-check.h"
#include "log.h"
#include "schedule-verify.h"

int device_verify(const Schedule *s, const LinkCaps *caps, DiagList *diags) {
        DeviceFacts facts;

        if (!caps)
                return schedule_verify(s, NULL, diags);
        caps_to_device_facts(caps, &facts);
        /* The daemon's apply reads the MAC merge layer itself before it
         * changes anything and refuses a device without one in its own
         * line, with the kernel's answer (link-mac-merge.c). */
        facts.mac_merge = DEVICE_MAC_MERGE_UNKNOWN;
        return schedule_verify(s, &facts, diags);
}

/* DeviceFacts.ask_mac_merge of a probed interface: asked once, the answer
 * kept in its probe result (and so in validate --json's capabilities). */
static int probe_ask_mac_merge(void *userdata) {
        DeviceProbe *d = userdata;
        int r;

        r = d->ask_mac_merge(d->ask_userdata, d->ifname);
        if (r < 0)
                log_debug_errno(r, "%s: cannot ask for the MAC merge layer: %m", d->ifname);
        d->caps.mac_merge = (int8_t) (r < 0 ? -1 : r > 0);
        caps_to_device_facts(&d->caps, &d->facts);
        d->facts.ifname = d->ifname;
        return r;
}

void device_probes_init(DeviceProbes *p, const CapsIO *io) {
        int r;

        *p = (DeviceProbes) { .sock.fd = -1 };
        if (io) {
                p->io = *io;
                p->have_io = true;
                /* Asked only for a file with "mac_merge", not at every probe. */
                p->io.mac_merge = NULL;
                p->ask_mac_merge = io->mac_merge;
                p->ask_userdata = io->userdata;
                return;
        }
        r = caps_system_socket_open(&p->sock, &p->io);
        if (r < 0)
                log_debug_errno(r, "cannot open a socket for the capability probe, one per interface: %m");
        else {
                p->have_io = true;
                p->ask_mac_merge = caps_system_mac_merge;
                p->ask_userdata = &p->sock;
        }
}

void device_probes_done(DeviceProbes *p) {
        for (size_t i = 0; i < p->n; i++)
                free(p->items[i]);
        free(p->items);
        caps_system_socket_close(&p->sock);
        *p = (DeviceProbes) { .sock.fd = -1 };
}

const DeviceProbe *device_probes_find(const DeviceProbes *p, const char *ifname) {
        for (size_t i = 0; i < p->n; i++)
                if (strcmp(p->items[i]->ifname, ifname) == 0)
                        return p->items[i];
        return NULL;
}

const DeviceProbe *device_probes_get(DeviceProbes *p, const char *ifname) {
        const DeviceProbe *found = device_probes_find(p, ifname);
        DeviceProbe **t, *d;

        if (found)
                return found;
        d = calloc(1, sizeof(DeviceProbe));
        if (!d)
                return NULL;
        t = reallocarray(p->items, p->n + 1, sizeof(DeviceProbe *));
        if (!t) {
                free(d);
                return NULL;
        }
        p->items = t;
        p->items[p->n++] = d;
        snprintf(d->ifname, sizeof(d->ifname), "%s", ifname);

        d->error = caps_probe(p->have_io ? &p->io : NULL, ifname, &d->caps);
        if (d->error < 0) {
                log_debug_errno(d->error, "%s: capability probe failed: %m", ifname);
                return d;
        }
        caps_to_device_facts(&d->caps, &d->facts);
        d->facts.ifname = d->ifname;
        if (d->caps.mac_merge < 0 && p->ask_mac_merge) {
                d->ask_mac_merge = p->ask_mac_merge;
                d->ask_userdata = p->ask_userdata;
                d->facts.ask_mac_merge = probe_ask_mac_merge;
                d->facts.ask_userdata = d;
        }
        return d;
}

const DeviceFacts *device_probes_facts_for(const char *ifname, void *userdata) {
        const DeviceProbe *d = device_probes_get(userdata, ifname);

        return d && d->error == 0 ? &d->facts : NULL;
}

unsigned device_probes_ifindex(const DeviceProbes *p, const char *ifname) {
        return caps_system_ifindex(p->sock.fd >= 0 ? &p->sock : NULL, ifname);
}

int device_probe_note(const DeviceProbe *d, const char *file, bool own, DiagList *diags) {
        const char *skipped = "the device checks (TX queues, launch-time offload) were skipped",
                   *path = own ? "interface" : NULL;

        if (d->error == 0)
                return 0;
        if (d->error == -ENODEV)
                return diag_warning(diags, file, path, "interface %s does not exist on this machine; %s%s",
                                    d->ifname, skipped,
                                    own ? " (tbsd waits for it and makes them when it appears)" : "");
        return diag_warning(diags, file, path, "cannot probe interface %s: %s; %s", d->ifname,
                            strerror(-d->error), skipped);
}

int device_check(DeviceProbes *p, const Schedule *s, const char *ifname, bool own, DiagList *diags) {
        const DeviceProbe *d = device_probes_get(p, ifname);
        int r;

        if (!d)
                return -ENOMEM;
        /* The facts of device_probes_facts_for(), as tbsd --check judges. */
        r = schedule_verify(s, d->error == 0 ? &d->facts : NULL, diags);
        if (r < 0)
                return r;
        /* Like tbsd --check: only a file that passes everything else. */
        return device_probe_note(d, s->source, own, diags);
}

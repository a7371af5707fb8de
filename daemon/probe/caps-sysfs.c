/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capability probe's sysfs reads (caps-sysfs.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps-sysfs.h"
#include "macro.h"

static int read_sysfs_line(const char *path, char *buf, size_t size) {
        _cleanup_close_ int fd = -1;
        ssize_t n;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        n = read(fd, buf, size - 1);
        if (n < 0)
                return negative_errno();
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

/* sysfs prints PCI ids ("0x8086") and interface flags ("0x1003") in hex.
 * attr is relative to class/net/IFACE. */
int read_sysfs_hex(const char *root, const char *ifname, const char *attr, unsigned long max,
                   unsigned long *ret) {
        char path[PATH_MAX], buf[32], *end = NULL;
        unsigned long v;
        int r;

        if ((size_t) snprintf(path, sizeof(path), "%s/class/net/%s/%s", root, ifname, attr) >= sizeof(path))
                return -ENAMETOOLONG;
        r = read_sysfs_line(path, buf, sizeof(buf));
        if (r < 0)
                return r;
        errno = 0;
        v = strtoul(buf, &end, 16);
        if (errno != 0 || end == buf || *end != '\0' || v > max)
                return -EBADMSG;
        *ret = v;
        return 0;
}

static int read_sysfs_u16(const char *root, const char *ifname, const char *attr, uint16_t *ret) {
        unsigned long v;
        int r;

        r = read_sysfs_hex(root, ifname, attr, 0xffff, &v);
        if (r < 0)
                return r;
        *ret = (uint16_t) v;
        return 0;
}

/* The device is a PCI function when its "subsystem" link ends in "pci"
 * (a virtio_net device's parent is on the virtio bus and has its own
 * vendor/device files, which are not PCI ids). */
static bool sysfs_device_is_pci(const char *root, const char *ifname) {
        char path[PATH_MAX], target[PATH_MAX];
        const char *base;
        ssize_t n;

        if ((size_t) snprintf(path, sizeof(path), "%s/class/net/%s/device/subsystem", root, ifname) >= sizeof(path))
                return false;
        n = readlink(path, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = '\0';
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        return strcmp(base, "pci") == 0;
}

void probe_pci_ids(const char *root, const char *ifname, LinkCaps *c) {
        uint16_t vendor, device, sub_vendor = 0, sub_device = 0;

        if (!sysfs_device_is_pci(root, ifname))
                return;
        if (read_sysfs_u16(root, ifname, "device/vendor", &vendor) < 0 ||
            read_sysfs_u16(root, ifname, "device/device", &device) < 0)
                return;
        /* Every PCI function has them; a missing one stays 0. */
        (void) read_sysfs_u16(root, ifname, "device/subsystem_vendor", &sub_vendor);
        (void) read_sysfs_u16(root, ifname, "device/subsystem_device", &sub_device);

        c->pci_known = true;
        c->pci_vendor = vendor;
        c->pci_device = device;
        c->pci_subsystem_vendor = sub_vendor;
        c->pci_subsystem_device = sub_device;
}

static bool is_tx_queue_dir(const char *p) {
        if (strncmp(p, "tx-", 3) != 0 || !p[3])
                return false;
        p += 3;
        return strspn(p, "0123456789") == strlen(p);
}

/* Number of queues/tx-N directories: the device's real_num_tx_queues.
 * getdents64() on the directory itself: opendir() would add an fstat(),
 * and this runs once per interface. */
int sysfs_count_tx_queues(const char *root, const char *ifname) {
        _cleanup_close_ int fd = -1;
        char path[PATH_MAX];
        union {
                struct dirent64 de;
                char bytes[4096];
        } buf;
        int n = 0;

        if ((size_t) snprintf(path, sizeof(path), "%s/class/net/%s/queues", root, ifname) >= sizeof(path))
                return -ENAMETOOLONG;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        for (;;) {
                ssize_t k = getdents64(fd, buf.bytes, sizeof(buf.bytes));

                if (k < 0)
                        return negative_errno();
                if (k == 0)
                        return n;
                for (ssize_t o = 0; o < k;) {
                        const struct dirent64 *de = (const struct dirent64 *) (buf.bytes + o);

                        if (is_tx_queue_dir(de->d_name))
                                n++;
                        o += de->d_reclen;
                }
        }
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phc-record DEVICE OUTDIR: record the raw answers of a PTP hardware clock
 * to the ioctls daemon/clock/phc-offset.c uses, for the unit test fixtures
 * (tests/unit/fixtures/phc). Writes OUTDIR/precise.bin, extended.bin and
 * basic.bin (the kernel's structs, byte for byte, 9 samples) or, for an
 * ioctl the driver refuses, NAME.errno with the errno number. Not a test. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/ptp_clock.h>

static int save(const char *dir, const char *name, const void *data, size_t len, int err) {
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s.%s", dir, name, err ? "errno" : "bin");
        f = fopen(path, "wb");
        if (!f)
                return -1;
        if (err)
                fprintf(f, "%d\n", err);
        else
                fwrite(data, 1, len, f);
        fclose(f);
        printf("%s: %s\n", path, err ? strerror(err) : "recorded");
        return 0;
}

int main(int argc, char *argv[]) {
        struct ptp_sys_offset_precise p = {};
        struct ptp_sys_offset_extended e = { .n_samples = 9 };
        struct ptp_sys_offset b = { .n_samples = 9 };
        int fd, r = 0;

        if (argc != 3) {
                fprintf(stderr, "usage: phc-record DEVICE OUTDIR\n");
                return 2;
        }
        fd = open(argv[1], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                perror(argv[1]);
                return 1;
        }
        r |= save(argv[2], "precise", &p, sizeof(p), ioctl(fd, PTP_SYS_OFFSET_PRECISE, &p) < 0 ? errno : 0);
        r |= save(argv[2], "extended", &e, sizeof(e), ioctl(fd, PTP_SYS_OFFSET_EXTENDED, &e) < 0 ? errno : 0);
        r |= save(argv[2], "basic", &b, sizeof(b), ioctl(fd, PTP_SYS_OFFSET, &b) < 0 ? errno : 0);
        close(fd);
        return r ? 1 : 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tai-offset [SECONDS]: print the kernel's TAI offset (CLOCK_TAI minus
 * CLOCK_REALTIME, in seconds, from adjtimex()), or set it first (ADJ_TAI,
 * needs CAP_SYS_TIME) and print the new value. A test helper for the NIC
 * test bed: linuxptp 3.1's phc2sys keeps the PHC at TAI but never sets
 * the kernel's offset, and Debian 12 has no adjtimex tool by default.
 *
 * Exit status: 0 on success, 1 when adjtimex() fails, 2 for a usage error. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>

int main(int argc, char *argv[]) {
        struct timex tx = {};

        if (argc > 2 || (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
                fprintf(argc > 2 ? stderr : stdout, "usage: tai-offset [SECONDS]\n");
                return argc > 2 ? 2 : 0;
        }
        if (argc == 2) {
                char *end;
                long s;

                errno = 0;
                s = strtol(argv[1], &end, 10);
                if (errno != 0 || end == argv[1] || *end != '\0' || s < 0 || s > INT_MAX) {
                        fprintf(stderr, "tai-offset: '%s' is not a number of seconds\n", argv[1]);
                        return 2;
                }
                tx.modes = ADJ_TAI;
                tx.constant = s;
                if (adjtimex(&tx) < 0) {
                        fprintf(stderr, "tai-offset: setting %ld s: %s\n", s, strerror(errno));
                        return 1;
                }
                tx = (struct timex) {};
        }
        if (adjtimex(&tx) < 0) {
                fprintf(stderr, "tai-offset: adjtimex: %s\n", strerror(errno));
                return 1;
        }
        printf("%d\n", tx.tai);
        return 0;
}

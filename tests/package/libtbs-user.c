/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program built against the installed libtbs (tbs.h, libtbs.pc,
 * libtbs.so.0) by the package tests: it must compile, link and run, and the
 * library must answer as documented without a daemon (arguments are checked
 * before the bus is used). */
#include <errno.h>
#include <stdio.h>
#include <tbs.h>

int main(void) {
        struct tbs_error e;
        uint64_t t;
        int r;

        r = tbs_open_txtime_socket("eth0", TBS_TARGET_QUEUE, 0, TBS_SOCKET_PACKET, 0, 0, NULL, &e);
        if (r != -EINVAL || e.error != -EINVAL) {
                fprintf(stderr, "tbs_open_txtime_socket: %d, expected %d\n", r, -EINVAL);
                return 1;
        }
        if (tbs_next_launch_time(0, 1000, 100, 1050, &t) < 0 || t != 1100) {
                fprintf(stderr, "tbs_next_launch_time: wrong answer\n");
                return 1;
        }
        printf("%s: %s\n", tbs_socket_kind_to_string(TBS_SOCKET_PACKET), tbs_error_message(&e));
        return 0;
}

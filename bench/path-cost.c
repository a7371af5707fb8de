/* How long one system call takes in the benchmark's guest as more
 * interfaces are visited in turn: opening an interface's sysfs folder (a
 * path lookup, what tbsd's capability probe does once per interface) and an
 * ioctl naming the interface (no path). Explains why the cost per added
 * interface is not flat there, for every tool.
 *
 *   path-cost N...   prints "N open_us IOCTL_us" per N: the median over 7
 *                    rounds of the time per call, each round visiting
 *                    b0 .. b(N-1) once. */
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 7

static double now_us(void) {
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return (double) t.tv_sec * 1e6 + (double) t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *) a, y = *(const double *) b;

        return (x > y) - (x < y);
}

/* Per-call microseconds of one round: open+close of class/net/bI/queues, or
 * SIOCGIFFLAGS on bI, for I < n. -1 when a call fails. */
static double round_us(int sock, int n, int use_ioctl) {
        double s = now_us();

        for (int i = 0; i < n; i++) {
                char path[64];
                struct ifreq ifr = {};

                if (use_ioctl) {
                        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "b%d", i);
                        if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
                                return -1;
                } else {
                        int fd;

                        snprintf(path, sizeof(path), "/sys/class/net/b%d/queues", i);
                        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (fd < 0)
                                return -1;
                        close(fd);
                }
        }
        return (now_us() - s) / n;
}

static double median_us(int sock, int n, int use_ioctl) {
        double v[ROUNDS];

        for (int r = 0; r < ROUNDS; r++) {
                v[r] = round_us(sock, n, use_ioctl);
                if (v[r] < 0)
                        return -1;
        }
        qsort(v, ROUNDS, sizeof(v[0]), cmp_double);
        return v[ROUNDS / 2];
}

int main(int argc, char **argv) {
        int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        if (sock < 0) {
                perror("path-cost: socket");
                return 1;
        }
        for (int a = 1; a < argc; a++) {
                int n = atoi(argv[a]);
                double o, i;

                if (n <= 0) {
                        fprintf(stderr, "path-cost: not a count: %s\n", argv[a]);
                        return 1;
                }
                o = median_us(sock, n, 0);
                i = median_us(sock, n, 1);
                if (o < 0 || i < 0) {
                        fprintf(stderr, "path-cost: a call on b0..b%d failed\n", n - 1);
                        return 1;
                }
                printf("%d %.1f %.1f\n", n, o, i);
        }
        close(sock);
        return 0;
}

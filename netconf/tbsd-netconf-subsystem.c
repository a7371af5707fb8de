/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsd-netconf-subsystem: sshd's "netconf" subsystem for netconfd, in place
 * of yuma123's netconf-subsystem (issue 46, docs/netconf.md "netconfd's
 * known faults").
 *
 * netconfd 2.13 writes to its sessions' sockets blocking (it asks for
 * O_NONBLOCK with F_SETFD, which sets no such flag), and
 * netconf-subsystem passes its replies on to sshd with blocking writes: a
 * client that does not read its replies fills sshd's channel window, then
 * netconf-subsystem's pipe, then netconfd's socket, and netconfd, single
 * threaded, waits in write() and serves nobody while that client stays.
 *
 * This relay speaks netconfd's side as netconf-subsystem does (the
 * <ncx-connect> greeting with the SSH user, address and port, then the
 * session's bytes both ways) but never lets netconfd wait: it always reads
 * netconfd's socket and keeps what the client has not read yet. While more
 * than SOFT_LIMIT bytes wait for the client, it stops passing the client's
 * requests on (so netconfd gets no more work from it); a client that lets
 * more than HARD_LIMIT bytes pile up (replies to requests already passed
 * on) loses its session. Memory and time spent on a slow client are its
 * own process's, charged to its own user.
 *
 * Usage (sshd_config):
 *   Subsystem netconf "/usr/libexec/tbsd/tbsd-netconf-subsystem --ncxserver-sockname=830@/run/tbsd-netconf/ncxserver.sock"
 * --ncxserver-sockname=PORT@PATH maps the SSH port the client came to to
 * netconfd's socket (as netconf-subsystem's option); default
 * /tmp/ncxserver.sock. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* What netconfd expects first on its socket (yuma123's agt.h, ncxconst.h). */
#define NCX_URN "http://netconfcentral.org/ns/yuma-ncx"
#define NCX_SERVER_MAGIC "x56o8937ab17eg922z34rwhobskdbyswfehkpsqq3i55a0an960ccw24a4ek864aOpal1t2p"
#define DEFAULT_SOCKET "/tmp/ncxserver.sock"

#define SOFT_LIMIT (4u << 20)
#define HARD_LIMIT (32u << 20)
#define TO_SERVER_LIMIT (1u << 20)
#define CHUNK 65536

struct buf {
        char *data;
        size_t len, cap;
};

static int buf_read(struct buf *b, int fd) {
        ssize_t n;

        if (b->cap - b->len < CHUNK) {
                size_t cap = b->cap < 4 * CHUNK ? 4 * CHUNK : b->cap;
                char *d;

                while (cap - b->len < CHUNK)
                        cap *= 2;
                d = realloc(b->data, cap);

                if (!d)
                        return -ENOMEM;
                b->data = d;
                b->cap = cap;
        }
        n = read(fd, b->data + b->len, CHUNK);
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 1 : -errno;
        b->len += (size_t) n;
        return n > 0 ? 1 : 0; /* 0: end of file */
}

static int buf_write(struct buf *b, int fd) {
        ssize_t n = write(fd, b->data, b->len);

        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        memmove(b->data, b->data + n, b->len - (size_t) n);
        b->len -= (size_t) n;
        return 0;
}

/* "tbsd-netconf-subsystem: WHAT DETAIL" on stderr (sshd's log), and exit. */
static void die(const char *what, const char *detail) {
        fprintf(stderr, "tbsd-netconf-subsystem: %s%s\n", what, detail);
        exit(EXIT_FAILURE);
}

/* A value for an XML attribute of the greeting: refused when it would need
 * escaping (no SSH user name or address does). */
static const char *attribute(const char *s, const char *what) {
        if (!s || !*s || strpbrk(s, "\"<>&'"))
                die("no usable value from sshd for the ", what);
        return s;
}

static const char *socket_path(int argc, char **argv, const char *port) {
        char prefix[64];

        snprintf(prefix, sizeof(prefix), "--ncxserver-sockname=%s@", port);
        for (int i = 1; i < argc; i++)
                if (strncmp(argv[i], prefix, strlen(prefix)) == 0 && argv[i][strlen(prefix)])
                        return argv[i] + strlen(prefix);
        return DEFAULT_SOCKET;
}

static int connect_server(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(path) >= sizeof(sa.sun_path))
                die("socket path too long: ", path);
        strcpy(sa.sun_path, path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                die("cannot reach netconfd at ", path);
        return fd;
}

static void set_nonblocking(int fd) {
        int flags = fcntl(fd, F_GETFL);

        if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
                die("cannot make a descriptor non-blocking", "");
}

int main(int argc, char **argv) {
        struct buf to_server = { 0 }, to_client = { 0 };
        bool client_eof = false, server_eof = false;
        const char *conn = getenv("SSH_CONNECTION");
        char addr[256] = "", port[16] = "", *greeting = NULL;
        int sock, r = 0;

        /* SSH_CONNECTION: client address, client port, server address, server port. */
        if (!conn || sscanf(conn, "%255s %*s %*s %15s", addr, port) != 2)
                die("SSH_CONNECTION not set by sshd", "");
        signal(SIGPIPE, SIG_IGN);
        sock = connect_server(socket_path(argc, argv, attribute(port, "port")));
        if (asprintf(&greeting,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ncx-connect xmlns=\"%s\" version=\"1\" user=\"%s\" "
                     "address=\"%s\" magic=\"%s\" transport=\"ssh\" port=\"%s\" />\n]]>]]>",
                     NCX_URN, attribute(getenv("USER"), "user"), attribute(addr, "address"), NCX_SERVER_MAGIC,
                     port) < 0)
                die("out of memory", "");
        to_server.data = greeting;
        to_server.len = to_server.cap = strlen(greeting);
        set_nonblocking(sock);
        set_nonblocking(STDIN_FILENO);
        set_nonblocking(STDOUT_FILENO);

        while (r >= 0 && !(server_eof && to_client.len == 0)) {
                struct pollfd p[3] = {
                        { STDIN_FILENO, !client_eof && to_server.len < TO_SERVER_LIMIT && to_client.len < SOFT_LIMIT
                                                ? POLLIN : 0, 0 },
                        { sock, (server_eof ? 0 : POLLIN) | (to_server.len ? POLLOUT : 0), 0 },
                        { STDOUT_FILENO, to_client.len ? POLLOUT : 0, 0 },
                };

                if (client_eof && to_server.len == 0 && !server_eof)
                        shutdown(sock, SHUT_WR); /* the client is done: netconfd closes the session */
                if (poll(p, 3, -1) < 0) {
                        if (errno != EINTR)
                                r = -errno;
                        continue;
                }
                if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                        r = buf_read(&to_server, STDIN_FILENO);
                        client_eof = r == 0 || r < 0;
                        r = 0;
                }
                if (p[1].revents & (POLLIN | POLLHUP | POLLERR) && !server_eof) {
                        r = buf_read(&to_client, sock);
                        server_eof = r <= 0;
                        r = 0;
                        if (to_client.len > HARD_LIMIT) {
                                fprintf(stderr, "tbsd-netconf-subsystem: user %s left more than %u MiB of replies "
                                        "unread: session closed\n", getenv("USER"), HARD_LIMIT >> 20);
                                r = -ENOBUFS;
                                break;
                        }
                }
                if (p[1].revents & POLLOUT && to_server.len)
                        r = buf_write(&to_server, sock);
                if (r >= 0 && p[2].revents & (POLLOUT | POLLERR | POLLHUP))
                        r = p[2].revents & POLLOUT ? buf_write(&to_client, STDOUT_FILENO) : -EPIPE;
        }
        close(sock);
        free(to_server.data);
        free(to_client.data);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

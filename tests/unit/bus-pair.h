/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A peer-to-peer sd-bus pair over a socketpair, for unit tests that need a
 * real bus connection without a bus daemon: *ret_server answers (as tbsd
 * does), *ret_client calls. Both are started and past the handshake;
 * with fds true they may pass file descriptors. cmocka asserts. */
#pragma once

#include <stdbool.h>
#include <sys/socket.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

static inline void bus_pair_open(bool fds, sd_bus **ret_server, sd_bus **ret_client) {
        sd_bus *server = NULL, *client = NULL;
        sd_id128_t id;
        int sv[2];

        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        assert_int_equal(sd_id128_randomize(&id), 0);
        assert_int_equal(sd_bus_new(&server), 0);
        assert_int_equal(sd_bus_set_fd(server, sv[0], sv[0]), 0);
        assert_int_equal(sd_bus_set_server(server, true, id), 0);
        assert_int_equal(sd_bus_negotiate_fds(server, fds), 0);
        assert_int_equal(sd_bus_new(&client), 0);
        assert_int_equal(sd_bus_set_fd(client, sv[1], sv[1]), 0);
        assert_int_equal(sd_bus_negotiate_fds(client, fds), 0);
        assert_int_equal(sd_bus_start(server), 0);
        assert_int_equal(sd_bus_start(client), 0);
        /* The handshake: each end in turn until both are running. */
        for (int i = 0; i < 100 && (sd_bus_is_ready(server) <= 0 || sd_bus_is_ready(client) <= 0); i++) {
                (void) sd_bus_process(server, NULL);
                (void) sd_bus_process(client, NULL);
                (void) sd_bus_wait(client, 1000);
        }
        assert_true(sd_bus_is_ready(server) > 0 && sd_bus_is_ready(client) > 0);
        *ret_server = server;
        *ret_client = client;
}

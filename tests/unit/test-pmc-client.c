/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/clock/pmc-client.c over real Unix datagram sockets: the test stands in
 * for ptp4l on a socket in a temporary folder and answers with the replies
 * recorded from ptp4l (tests/unit/fixtures/ptp), re-stamped with the
 * request's sequenceId. Covers matching by sequenceId, answers out of order,
 * strays and duplicates, timeouts, error status, malformed answers and the
 * missing/dead socket cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <cmocka.h>

#include "pmc-client.h"

typedef struct Fixture {
        char dir[64];
        char server_path[128];
        int server_fd;
        sd_event *event;
        PmcClient *client;
        bool done;
        int error;
        PmcReply replies[PMC_MAX_QUERY_IDS];
        PtpMgmtMessage answers[PMC_MAX_ANSWERS];  /* replies[].answers point here */
        size_t n_replies;
} Fixture;

static int bind_server(const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        strcpy(sa.sun_path, path);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        return fd;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        strcpy(f->dir, "/tmp/tbs-pmc-test.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        snprintf(f->server_path, sizeof(f->server_path), "%s/ptp4l", f->dir);
        f->server_fd = bind_server(f->server_path);
        assert_int_equal(sd_event_new(&f->event), 0);
        assert_int_equal(pmc_client_new(f->event, f->server_path, 0, 0, f->dir, &f->client), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        char local[128];

        snprintf(local, sizeof(local), "%s", pmc_client_local_path(f->client));
        pmc_client_free(f->client);
        /* the client's own socket is gone again */
        assert_int_equal(access(local, F_OK), -1);
        close(f->server_fd);
        unlink(f->server_path);
        assert_int_equal(rmdir(f->dir), 0);
        sd_event_unref(f->event);
        free(f);
        return 0;
}

static void on_done(PmcClient *c, int error, const PmcReply *replies, size_t n, void *userdata) {
        Fixture *f = userdata;

        f->done = true;
        f->error = error;
        f->n_replies = n;
        memcpy(f->replies, replies, n * sizeof(*replies));
        /* answers are only valid during the callback: keep copies */
        for (size_t i = 0, k = 0; i < n; i++) {
                assert_true(k + replies[i].n_answers <= PMC_MAX_ANSWERS);
                memcpy(f->answers + k, replies[i].answers, replies[i].n_answers * sizeof(PtpMgmtMessage));
                f->replies[i].answers = f->answers + k;
                k += replies[i].n_answers;
        }
}

static void run_until_done(Fixture *f) {
        for (int i = 0; i < 100 && !f->done; i++)
                assert_true(sd_event_run(f->event, 100 * 1000) >= 0);
        assert_true(f->done);
}

/* Receive one request: check it is a GET for the expected id, return its
 * sequenceId and the client's address. */
static uint16_t recv_request(Fixture *f, uint16_t expected_id, struct sockaddr_un *ret_from) {
        uint8_t buf[PTP_MGMT_MAX_LEN];
        socklen_t alen = sizeof(*ret_from);
        PtpMgmtMessage m;
        ssize_t n;

        n = recvfrom(f->server_fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *) ret_from, &alen);
        assert_int_equal(n, PTP_MGMT_GET_LEN);
        assert_int_equal(ptp_mgmt_unpack(buf, (size_t) n, &m), 0);
        assert_int_equal(m.action, PTP_MGMT_GET);
        assert_int_equal(m.management_id, expected_id);
        assert_false(m.has_data);
        assert_int_equal(m.target.port_number, 0xffff);
        return m.sequence_id;
}

/* Send a recorded reply with its sequenceId replaced; len_cut bytes less. */
static void send_fixture(Fixture *f, const char *name, uint16_t seq, const struct sockaddr_un *to,
                         size_t len_cut, int patch_off, uint16_t patch_val) {
        char path[512];
        uint8_t buf[PTP_MGMT_MAX_LEN];
        FILE *fp;
        size_t len;

        snprintf(path, sizeof(path), "%s/tests/unit/fixtures/ptp/%s", TBS_SOURCE_DIR, name);
        fp = fopen(path, "rb");
        assert_non_null(fp);
        len = fread(buf, 1, sizeof(buf), fp);
        fclose(fp);
        buf[30] = (uint8_t) (seq >> 8);
        buf[31] = (uint8_t) seq;
        if (patch_off >= 0) {
                buf[patch_off] = (uint8_t) (patch_val >> 8);
                buf[patch_off + 1] = (uint8_t) patch_val;
        }
        assert_true(sendto(f->server_fd, buf, len - len_cut, 0, (const struct sockaddr *) to, sizeof(*to)) ==
                    (ssize_t) (len - len_cut));
}

static void test_query_answered(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET, PTP_MID_TIME_STATUS_NP, PTP_MID_CURRENT_DATA_SET };
        struct sockaddr_un from;
        uint16_t seq[3];

        assert_int_equal(pmc_client_query(f->client, ids, 3, 2000 * 1000, on_done, f), 0);
        assert_true(pmc_client_busy(f->client));
        assert_int_equal(pmc_client_query(f->client, ids, 1, 1000, on_done, f), -EBUSY);
        for (int i = 0; i < 3; i++)
                seq[i] = recv_request(f, ids[i], &from);
        assert_int_equal((uint16_t) (seq[1] - seq[0]), 1);
        assert_string_equal(from.sun_path, pmc_client_local_path(f->client));

        /* out of order, a stray sequenceId, and a duplicate */
        send_fixture(f, "slave-current-data-set.bin", seq[2], &from, 0, -1, 0);
        send_fixture(f, "slave-port-data-set.bin", (uint16_t) (seq[0] + 100), &from, 0, -1, 0);
        send_fixture(f, "slave-time-status-np.bin", seq[1], &from, 0, -1, 0);
        send_fixture(f, "master-port-data-set.bin", seq[0], &from, 0, -1, 0);
        send_fixture(f, "slave-port-data-set.bin", seq[0], &from, 0, -1, 0);
        run_until_done(f);

        assert_int_equal(f->error, 0);
        assert_int_equal(f->n_replies, 3);
        for (int i = 0; i < 3; i++) {
                assert_int_equal(f->replies[i].error, 0);
                assert_int_equal(f->replies[i].management_id, ids[i]);
                assert_int_equal(f->replies[i].msg.sequence_id, seq[i]);
        }
        /* the first answer for a sequenceId is msg; both are kept as answers */
        assert_int_equal(f->replies[0].msg.data.port_ds.port_state, PTP_PORT_MASTER);
        assert_int_equal(f->replies[0].n_answers, 2);
        assert_int_equal(f->replies[0].answers[0].data.port_ds.port_state, PTP_PORT_MASTER);
        assert_int_equal(f->replies[0].answers[1].data.port_ds.port_state, PTP_PORT_SLAVE);
        assert_int_equal(f->replies[1].n_answers, 1);
        assert_int_equal(f->replies[2].n_answers, 1);
        assert_true(f->replies[1].msg.data.time_status_np.master_offset == -128);
        assert_int_equal(f->replies[2].msg.data.current_ds.steps_removed, 1);
        assert_false(pmc_client_busy(f->client));
        assert_string_equal(pmc_client_server_path(f->client), f->server_path);
}

/* A boundary clock: each port answers the port-level GETs; the clock-level
 * GET listed last is answered after them (recorded from ptp4l with two
 * ports, fixtures/ptp/bc-*). */
static void test_query_two_ports(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET, PTP_MID_PORT_PROPERTIES_NP, PTP_MID_TIME_STATUS_NP };
        struct sockaddr_un from;
        uint16_t seq[3];

        assert_int_equal(pmc_client_query(f->client, ids, 3, 2000 * 1000, on_done, f), 0);
        for (int i = 0; i < 3; i++)
                seq[i] = recv_request(f, ids[i], &from);
        send_fixture(f, "bc-port-data-set.bin", seq[0], &from, 0, -1, 0);
        send_fixture(f, "bc-port-data-set-2.bin", seq[0], &from, 0, -1, 0);
        send_fixture(f, "bc-port-properties-np.bin", seq[1], &from, 0, -1, 0);
        send_fixture(f, "bc-port-properties-np-2.bin", seq[1], &from, 0, -1, 0);
        send_fixture(f, "bc-time-status-np.bin", seq[2], &from, 0, -1, 0);
        run_until_done(f);

        assert_int_equal(f->error, 0);
        assert_int_equal(f->replies[0].n_answers, 2);
        assert_int_equal(f->replies[0].answers[0].data.port_ds.port_identity.port_number, 1);
        assert_int_equal(f->replies[0].answers[1].data.port_ds.port_identity.port_number, 2);
        assert_int_equal(f->replies[1].n_answers, 2);
        assert_string_equal(f->replies[1].answers[0].data.port_properties_np.interface, "p5");
        assert_string_equal(f->replies[1].answers[1].data.port_properties_np.interface, "p7");
        assert_int_equal(f->replies[2].n_answers, 1);
        assert_int_equal(f->replies[2].msg.data.time_status_np.gm_present, 1);
}

static void test_query_partial_and_bad(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET, PTP_MID_TIME_STATUS_NP, PTP_MID_PARENT_DATA_SET,
                                 PTP_MID_TIME_PROPERTIES_DATA_SET };
        struct sockaddr_un from;
        uint16_t seq[4];

        assert_int_equal(pmc_client_query(f->client, ids, 4, 200 * 1000, on_done, f), 0);
        for (int i = 0; i < 4; i++)
                seq[i] = recv_request(f, ids[i], &from);

        /* error status for PORT_DATA_SET (the FAULT_LOG answer, its id set to 0x2004) */
        send_fixture(f, "slave-fault-log.bin", seq[0], &from, 0, 54, PTP_MID_PORT_DATA_SET);
        /* truncated TIME_STATUS_NP */
        send_fixture(f, "slave-time-status-np.bin", seq[1], &from, 3, -1, 0);
        /* PARENT_DATA_SET answered with a CURRENT_DATA_SET */
        send_fixture(f, "slave-current-data-set.bin", seq[2], &from, 0, -1, 0);
        /* TIME_PROPERTIES: no answer */
        run_until_done(f);

        assert_int_equal(f->error, 0);
        assert_int_equal(f->replies[0].error, -EREMOTEIO);
        assert_int_equal(f->replies[0].msg.error_code, 0x0006);
        assert_int_equal(f->replies[1].error, -EBADMSG);
        assert_int_equal(f->replies[2].error, -EBADMSG);
        assert_int_equal(f->replies[3].error, -ETIMEDOUT);
        for (int i = 0; i < 4; i++)
                assert_int_equal(f->replies[i].n_answers, 0);
}

static void test_query_timeout(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET };
        struct sockaddr_un from;

        assert_int_equal(pmc_client_query(f->client, ids, 1, 100 * 1000, on_done, f), 0);
        (void) recv_request(f, ids[0], &from);
        run_until_done(f);
        assert_int_equal(f->error, -ETIMEDOUT);
        assert_int_equal(f->replies[0].error, -ETIMEDOUT);

        /* a late answer to the old query does not confuse the next one */
        f->done = false;
        assert_int_equal(pmc_client_query(f->client, ids, 1, 500 * 1000, on_done, f), 0);
        uint16_t seq = recv_request(f, ids[0], &from);
        send_fixture(f, "slave-port-data-set.bin", (uint16_t) (seq - 1), &from, 0, -1, 0);
        send_fixture(f, "slave-port-data-set.bin", seq, &from, 0, -1, 0);
        run_until_done(f);
        assert_int_equal(f->error, 0);
        assert_int_equal(f->replies[0].msg.sequence_id, seq);
}

/* Fill the stand-in ptp4l's socket queue (net.unix.max_dgram_qlen) from a
 * socket of the test's own, as other links' requests do; returns that
 * socket. */
static int fill_server_queue(Fixture *f) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), n = 0;
        uint8_t junk[8] = {};

        assert_true(fd >= 0);
        assert_true(strlen(f->server_path) < sizeof(sa.sun_path));
        memcpy(sa.sun_path, f->server_path, strlen(f->server_path) + 1);
        while (sendto(fd, junk, sizeof(junk), MSG_DONTWAIT, (struct sockaddr *) &sa, sizeof(sa)) >= 0)
                assert_true(++n < 100000);
        assert_int_equal(errno, EAGAIN);
        assert_true(n > 0);
        return fd;
}

static void drain_server_queue(Fixture *f) {
        uint8_t buf[PTP_MGMT_MAX_LEN];

        while (recv(f->server_fd, buf, sizeof(buf), MSG_DONTWAIT) == 8)
                ;
}

/* A queue full for a moment (several links asking one ptp4l at once): the
 * requests go when it drains, and the query is answered. */
static void test_queue_full_for_a_moment(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET, PTP_MID_TIME_STATUS_NP, PTP_MID_CURRENT_DATA_SET };
        struct sockaddr_un from;
        uint16_t seq[3];
        int filler = fill_server_queue(f);

        assert_int_equal(pmc_client_query(f->client, ids, 3, 2000 * 1000, on_done, f), 0);
        assert_true(pmc_client_busy(f->client));
        drain_server_queue(f);
        /* The retry sends the three (each send may meet a queue that is
         * only being emptied now): wait until they are there. */
        for (int i = 0; i < 3; i++) {
                struct pollfd p = { .fd = f->server_fd, .events = POLLIN };

                for (int k = 0; k < 100 && poll(&p, 1, 0) == 0; k++)
                        assert_true(sd_event_run(f->event, 20 * 1000) >= 0);
                seq[i] = recv_request(f, ids[i], &from);
        }
        send_fixture(f, "slave-port-data-set.bin", seq[0], &from, 0, -1, 0);
        send_fixture(f, "slave-time-status-np.bin", seq[1], &from, 0, -1, 0);
        send_fixture(f, "slave-current-data-set.bin", seq[2], &from, 0, -1, 0);
        run_until_done(f);
        assert_int_equal(f->error, 0);
        for (int i = 0; i < 3; i++)
                assert_int_equal(f->replies[i].error, 0);
        close(filler);
}

/* A queue that stays full (ptp4l not reading): the query ends at its
 * timeout with -EAGAIN, not with "no answer". */
static void test_queue_stays_full(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET, PTP_MID_TIME_STATUS_NP };
        int filler = fill_server_queue(f);

        assert_int_equal(pmc_client_query(f->client, ids, 2, 150 * 1000, on_done, f), 0);
        run_until_done(f);
        assert_int_equal(f->error, -EAGAIN);
        assert_int_equal(f->n_replies, 2);
        assert_int_equal(f->replies[0].error, -EAGAIN);
        assert_int_equal(f->replies[1].error, -EAGAIN);
        assert_false(pmc_client_busy(f->client));
        drain_server_queue(f);
        close(filler);
}

static void test_bad_arguments(void **state) {
        Fixture *f = *state;
        const uint16_t ids[PMC_MAX_QUERY_IDS + 1] = { 0x2010 };
        PmcClient *c = NULL;

        assert_int_equal(pmc_client_query(f->client, ids, 1, 1000, on_done, f), -EINVAL);
        assert_int_equal(pmc_client_query(f->client, ids, 0, 1000, on_done, f), -EINVAL);
        assert_int_equal(pmc_client_query(f->client, ids, PMC_MAX_QUERY_IDS + 1, 1000, on_done, f), -EINVAL);
        assert_int_equal(pmc_client_new(f->event, "/x", 0, 16, f->dir, &c), -EINVAL);
        assert_null(c);
}

/* No socket file: -ENOENT. A socket file nobody listens on: -ECONNREFUSED. */
static void test_no_ptp4l(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET };
        char path[160];
        PmcClient *c = NULL;

        snprintf(path, sizeof(path), "%s/none", f->dir);
        assert_int_equal(pmc_client_new(f->event, path, 0, 0, f->dir, &c), 0);
        assert_int_equal(pmc_client_query(c, ids, 1, 1000, on_done, f), -ENOENT);
        assert_false(pmc_client_busy(c));
        pmc_client_free(c);

        snprintf(path, sizeof(path), "%s/dead", f->dir);
        close(bind_server(path));
        assert_int_equal(pmc_client_new(f->event, path, 0, 0, f->dir, &c), 0);
        assert_int_equal(pmc_client_query(c, ids, 1, 1000, on_done, f), -ECONNREFUSED);
        pmc_client_free(c);
        unlink(path);
        assert_false(f->done);
}

/* Freeing with a query pending: no callback, nothing left behind. */
static void test_free_pending(void **state) {
        Fixture *f = *state;
        const uint16_t ids[] = { PTP_MID_PORT_DATA_SET };
        PmcClient *c = NULL;

        assert_int_equal(pmc_client_new(f->event, f->server_path, 0, 0, f->dir, &c), 0);
        assert_int_equal(pmc_client_query(c, ids, 1, 1000, on_done, f), 0);
        pmc_client_free(c);
        assert_true(sd_event_run(f->event, 10 * 1000) >= 0);
        assert_false(f->done);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_query_answered, setup, teardown),
                cmocka_unit_test_setup_teardown(test_query_two_ports, setup, teardown),
                cmocka_unit_test_setup_teardown(test_query_partial_and_bad, setup, teardown),
                cmocka_unit_test_setup_teardown(test_query_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(test_queue_full_for_a_moment, setup, teardown),
                cmocka_unit_test_setup_teardown(test_queue_stays_full, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_ptp4l, setup, teardown),
                cmocka_unit_test_setup_teardown(test_free_pending, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

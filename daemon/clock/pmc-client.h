/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A native client of ptp4l's management socket (what `pmc -u` does), run
 * from an sd-event loop without blocking.
 *
 * The client binds its own Unix datagram address,
 * <runtime_dir>/pmc.<pid>.<n> (removed again by pmc_client_free()), because
 * ptp4l answers to the sender's address and an abstract address would not
 * reach a ptp4l in another network namespace. A query sends one GET per
 * managementId, matches the answers by sequenceId and completes when all
 * are answered or its timeout passes; either way the callback runs once.
 * A ptp4l that is not there fails the query at once (-ENOENT,
 * -ECONNREFUSED); one that does not answer completes it with -ETIMEDOUT.
 *
 * Port-level data sets (PORT_DATA_SET, PORT_PROPERTIES_NP) with the
 * wildcard target are answered once per port. ptp4l handles requests one
 * after the other and sends all answers to one before reading the next, and
 * a Unix datagram socket keeps their order; so when a query lists such ids
 * before a clock-level one (answered once), every port's answer has arrived
 * by the time the query completes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"
#include "ptp-mgmt.h"

/* ptp4l's default uds_address: linuxptp 3.x/4.x, then newer releases. */
#define PMC_DEFAULT_SOCKET "/var/run/ptp4l"
#define PMC_FALLBACK_SOCKET "/var/run/ptp/ptp4l"
#define PMC_DEFAULT_RUNTIME_DIR "/run/tbsd"
#define PMC_MAX_QUERY_IDS 8
#define PMC_MAX_ANSWERS 32                    /* answers kept per query, all ids together */

typedef struct PmcClient PmcClient;

typedef struct PmcReply {
        uint16_t management_id;
        int error;                            /* 0: msg is the RESPONSE with data;
                                               * -EREMOTEIO: ptp4l sent an error status (msg.error_code);
                                               * -EBADMSG: the answer was malformed;
                                               * -ETIMEDOUT: no answer */
        PtpMgmtMessage msg;                   /* the first answer */
        const PtpMgmtMessage *answers;        /* every valid answer (one per port for port-level
                                               * ids), answers[0] == msg; valid during the callback */
        size_t n_answers;
} PmcReply;

/** Called once per query. error is 0 when at least one GET was answered
 *  (each reply says how it went), -ETIMEDOUT when none was. replies[] has
 *  one entry per requested id, in request order, valid during the call.
 *  The callback may start a new query or free the client. */
typedef void (*pmc_client_done_fn)(PmcClient *c, int error, const PmcReply *replies, size_t n_replies,
                                   void *userdata);

/** Create a client and bind its socket.
 *  e: the event loop (referenced). socket_path: ptp4l's uds_address, or NULL
 *  to try PMC_DEFAULT_SOCKET then PMC_FALLBACK_SOCKET. domain and
 *  transport_specific (0..15) go into every request: ptp4l silently drops
 *  requests that differ from its own. runtime_dir: where the client's own
 *  socket lives, created (0755) if missing; NULL for $RUNTIME_DIRECTORY (set
 *  by systemd's RuntimeDirectory=) or else PMC_DEFAULT_RUNTIME_DIR.
 *  Returns 0 and *ret; -EINVAL for a bad argument or a path that does not
 *  fit sockaddr_un; -errno from socket()/bind()/mkdir(); -ENOMEM. */
int pmc_client_new(sd_event *e, const char *socket_path, uint8_t domain, uint8_t transport_specific,
                   const char *runtime_dir, PmcClient **ret);

/** Cancel a pending query (its callback does not run), close and remove the
 *  socket, free. Accepts NULL; returns NULL. */
PmcClient *pmc_client_free(PmcClient *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(PmcClient *, pmc_client_free);

/** Send a GET (without data) for each of n_ids managementIds and call cb
 *  when all are answered or after timeout_usec (CLOCK_MONOTONIC).
 *  Returns 0 when sent (cb will run); -EBUSY while another query is pending;
 *  -EINVAL for n_ids 0 or > PMC_MAX_QUERY_IDS or an id ptp_mgmt does not
 *  decode; -ENOENT or -ECONNREFUSED when no ptp4l listens on the socket
 *  path(s); other -errno from sendto() (cb does not run on failure). */
int pmc_client_query(PmcClient *c, const uint16_t *ids, size_t n_ids, uint64_t timeout_usec,
                     pmc_client_done_fn cb, void *userdata);

/** Called for each datagram that answers no request of this client and is
 *  a RESPONSE with data of an id ptp_mgmt decodes: ptp4l's notifications
 *  (PORT_DATA_SET, TIME_STATUS_NP, ...) to a subscriber. m is valid during
 *  the call. The callback may start a query; it must not free the client. */
typedef void (*pmc_client_notify_fn)(PmcClient *c, const PtpMgmtMessage *m, void *userdata);

/** Take notifications: fn (NULL: none) gets them from now on. A client
 *  that takes them keeps what arrives between queries instead of dropping
 *  it as stale. */
void pmc_client_set_notify(PmcClient *c, pmc_client_notify_fn fn, void *userdata);

/** Send a SET of SUBSCRIBE_EVENTS_NP (linuxptp: notify this client of the
 *  n_events events for duration_s seconds; a SET with no event ends the
 *  subscription) and call cb with its answer, a query of one reply: error 0
 *  when ptp4l took it (the reply's data echoes the subscription),
 *  -EREMOTEIO when it refused (NOT_SUPPORTED on a read-only socket or an
 *  older ptp4l), -ETIMEDOUT without answer. Returns as pmc_client_query().
 *  ptp4l sends the notifications to this client's own socket; use a client
 *  for them alone (pmc_client_set_notify()). */
int pmc_client_subscribe(PmcClient *c, const PtpNotifyEvent *events, size_t n_events, uint16_t duration_s,
                         uint64_t timeout_usec, pmc_client_done_fn cb, void *userdata);

/** Drop a pending query without calling its callback. */
void pmc_client_cancel(PmcClient *c);

/** True while a query is pending. */
bool pmc_client_busy(const PmcClient *c);

/** The ptp4l socket path of the last successful send, or the first
 *  candidate before that. */
const char *pmc_client_server_path(const PmcClient *c);

/** The ptp4l socket path of the last successful send; NULL before one. */
const char *pmc_client_reached_path(const PmcClient *c);

/** How many requests (datagrams) this client has sent to ptp4l. */
uint64_t pmc_client_requests(const PmcClient *c);

/** The client's own bound socket path. */
const char *pmc_client_local_path(const PmcClient *c);

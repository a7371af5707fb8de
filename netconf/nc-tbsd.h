/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server module's bus client of tbsd (docs/netconf.md, "When tbsd
 * does not answer"): one system bus connection kept for the calls, each
 * call waiting at most a given time, and whether tbsd answers, learnt
 * from every call and from a Ping sent every second without waiting.
 * netconfd serves one request at a time: whatever the module waits for,
 * every session waits for. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* The module's times, in microseconds; nc_tbsd_settings() reads them from
 * netconfd's environment. */
struct nc_tbsd_times {
        uint64_t answer_usec;    /* a read, the check before a commit: TBSD_NETCONF_ANSWER_MS (2000) */
        uint64_t apply_usec;     /* the deadline of an apply: TBSD_NETCONF_APPLY_MS (30000) */
        uint64_t reconcile_usec; /* between two reconciles: TBSD_NETCONF_RECONCILE_S (30) */
};
extern struct nc_tbsd_times nc_times;

/* What the module knows of tbsd. */
struct nc_tbsd_state {
        bool answering;      /* false from a call or Ping it left unanswered until it answers */
        uint64_t since_usec; /* CLOCK_MONOTONIC of the last change of answering */
};
extern struct nc_tbsd_state nc_tbsd;

/* CLOCK_MONOTONIC now, in microseconds. */
uint64_t nc_now_usec(void);

/* Read the times from netconfd's environment: 0, or -EINVAL (logged, naming
 * the variable) when one is not a whole number from 1 to 10^7. */
int nc_tbsd_settings(void);

/* Send the message build makes (on the bus given, with arg) to tbsd and
 * wait at most timeout_usec for the answer; a connection found closed is
 * opened again and the call sent once more. Notes whether tbsd answered.
 * Returns sd_bus_call()'s result. */
int nc_tbsd_call(int (*build)(sd_bus *bus, sd_bus_message **m, void *arg), void *arg, uint64_t timeout_usec,
                 sd_bus_error *e, sd_bus_message **reply);

/* Whether a failed call got no answer from tbsd (a timeout, no tbsd on
 * the bus, the connection gone) rather than a refusal of tbsd's. */
bool nc_tbsd_no_answer(int r, const sd_bus_error *e);

/* *error (malloc'ed, NULL when out of memory): tbsd's answer, or "WHAT:
 * tbsd did not answer within N ms (stopped or busy): nothing was applied"
 * (N from timeout_usec), or "WHAT: cannot reach tbsd: REASON". */
void nc_tbsd_error_text(const sd_bus_error *e, int r, const char *what, uint64_t timeout_usec, char **error);

/* Once a second: read the answers that came, and Ping tbsd
 * (org.freedesktop.DBus.Peer) without waiting, unless a Ping is out. */
void nc_tbsd_ping(void);

/* Close the connection (netconfd's cleanup). */
void nc_tbsd_close(void);

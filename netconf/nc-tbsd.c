/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

#include "../lib/bus-names.h"
#include "nc-tbsd.h"

struct nc_tbsd_times nc_times = {
        .answer_usec = 2000000,
        .apply_usec = 30000000,     /* a commit of 64 interfaces takes 0.34 s (BENCHMARKS.md) */
        .reconcile_usec = 30000000,
};

struct nc_tbsd_state nc_tbsd = { .answering = true };

static bool ping_in_flight;
static uint64_t ping_sent_usec;

uint64_t nc_now_usec(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000ULL + (uint64_t) ts.tv_nsec / 1000ULL;
}

/* A time of netconfd's environment, in units of unit_usec (absent: *usec kept). */
static int setting(const char *name, uint64_t unit_usec, uint64_t *usec) {
        const char *v = getenv(name);
        char *end;
        unsigned long long n;

        if (!v)
                return 0;
        errno = 0;
        n = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-' || n < 1 || n > 10000000ULL) {
                log_error("\ntbsd: %s='%s': not a whole number from 1 to 10000000\n", name, v);
                return -EINVAL;
        }
        *usec = n * unit_usec;
        return 0;
}

int nc_tbsd_settings(void) {
        if (setting("TBSD_NETCONF_ANSWER_MS", 1000, &nc_times.answer_usec) < 0 ||
            setting("TBSD_NETCONF_APPLY_MS", 1000, &nc_times.apply_usec) < 0 ||
            setting("TBSD_NETCONF_RECONCILE_S", 1000000, &nc_times.reconcile_usec) < 0)
                return -EINVAL;
        return 0;
}

static void note_answer(bool answered) {
        if (answered == nc_tbsd.answering)
                return;
        nc_tbsd.answering = answered;
        nc_tbsd.since_usec = nc_now_usec();
        if (answered)
                log_info("\ntbsd: tbsd answers again\n");
        else
                log_warn("\ntbsd: tbsd does not answer (stopped or busy): reads answer from the last view, "
                         "commits are refused until it answers\n");
}

bool nc_tbsd_no_answer(int r, const sd_bus_error *e) {
        if (!sd_bus_error_is_set(e))
                return true;
        return r == -ETIMEDOUT || sd_bus_error_has_names(e, SD_BUS_ERROR_TIMEOUT, SD_BUS_ERROR_NO_REPLY,
                                                         SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
                                                         SD_BUS_ERROR_DISCONNECTED);
}

/* The connection of the calls to tbsd, opened at the first call and kept
 * (a commit used to open one per interface); opened again when it was
 * closed under us (tbsd or the bus restarted). */
static sd_bus *call_bus;

void nc_tbsd_close(void) {
        call_bus = sd_bus_flush_close_unref(call_bus);
        ping_in_flight = false; /* its answer went with the connection */
}

static sd_bus *the_bus(int *r) {
        if (call_bus && sd_bus_is_open(call_bus) > 0) {
                *r = 0;
                return call_bus;
        }
        nc_tbsd_close();
        *r = sd_bus_open_system(&call_bus);
        return *r < 0 ? NULL : call_bus;
}

/* Whether a failed call failed on the connection (not an answer of
 * tbsd's or of the bus daemon): worth a new connection and one try more. */
static bool connection_lost(int r, const sd_bus_error *e) {
        return !sd_bus_error_is_set(e) &&
               (r == -ENOTCONN || r == -ECONNRESET || r == -EPIPE || r == -ESHUTDOWN || r == -ECONNREFUSED);
}

int nc_tbsd_call(int (*build)(sd_bus *bus, sd_bus_message **m, void *arg), void *arg, uint64_t timeout_usec,
                 sd_bus_error *e, sd_bus_message **reply) {
        int r = 0;

        for (int attempt = 0; attempt < 2; attempt++) {
                sd_bus_message *m = NULL;
                sd_bus *bus = the_bus(&r);

                if (bus)
                        r = build(bus, &m, arg);
                if (r >= 0)
                        r = sd_bus_call(bus, m, timeout_usec, e, reply);
                sd_bus_message_unref(m);
                if (r >= 0 || !connection_lost(r, e))
                        break;
                nc_tbsd_close();
        }
        note_answer(r >= 0 || !nc_tbsd_no_answer(r, e));
        return r;
}

void nc_tbsd_error_text(const sd_bus_error *e, int r, const char *what, uint64_t timeout_usec, char **error) {
        bool timeout = r == -ETIMEDOUT || sd_bus_error_has_names(e, SD_BUS_ERROR_TIMEOUT, SD_BUS_ERROR_NO_REPLY);
        int k;

        if (sd_bus_error_is_set(e) && !nc_tbsd_no_answer(r, e))
                k = asprintf(error, "%s", e->message);
        else if (timeout)
                k = asprintf(error, "%s: tbsd did not answer within %llu ms (stopped or busy): nothing was applied",
                             what, (unsigned long long) (timeout_usec / 1000));
        else
                k = asprintf(error, "%s: cannot reach tbsd: %s", what,
                             sd_bus_error_is_set(e) && e->message ? e->message : strerror(-r));
        if (k < 0)
                *error = NULL;
}

static int on_pong(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        const sd_bus_error *e = sd_bus_message_get_error(m);

        (void) userdata;
        (void) ret_error;
        ping_in_flight = false;
        note_answer(!e || !nc_tbsd_no_answer(-sd_bus_message_get_errno(m), e));
        return 0;
}

/* The Ping's answer is read at a later beat, and judged here rather than by
 * a timeout of sd-bus': netconfd's timer may beat late (a loaded machine),
 * and sd-bus would time a call out before reading the answer waiting on
 * the socket. No answer within answer_usec: tbsd is silent; its answer,
 * when it comes, says it answers again. */
void nc_tbsd_ping(void) {
        sd_bus_message *m = NULL;
        sd_bus *bus;
        uint64_t now;
        int r;

        while (call_bus && sd_bus_process(call_bus, NULL) > 0)
                ;
        now = nc_now_usec();
        if (ping_in_flight && now - ping_sent_usec > nc_times.answer_usec)
                note_answer(false);
        /* One Ping out at a time; another after a long silence, in case
         * that one went astray. */
        if (ping_in_flight && now - ping_sent_usec < 10 * nc_times.answer_usec)
                return;
        bus = the_bus(&r);
        if (!bus)
                return;
        r = sd_bus_message_new_method_call(bus, &m, TBS_BUS_NAME, TBS_MANAGER_PATH, "org.freedesktop.DBus.Peer",
                                           "Ping");
        if (r >= 0)
                r = sd_bus_call_async(bus, NULL, m, on_pong, NULL, UINT64_MAX);
        sd_bus_message_unref(m);
        if (r >= 0) {
                ping_in_flight = true;
                ping_sent_usec = now;
        }
}

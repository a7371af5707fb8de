/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: the org.tsn.Tbs.Manager.Validate() path of tbsd
 * (daemon/manager/manager-bus.c method_validate), step for step:
 *   the argument string -> length limit -> schedule_parse_json("<Validate>",
 *   text, strlen(text)) -> schedule_verify(s, NULL) -> the reply (b, as).
 * Only inputs D-Bus can carry are used: the bytes are cut at the first NUL
 * and must be a string sd-bus accepts (valid UTF-8); sd-bus itself judges
 * that, by appending the text to a method call. The reply is built with
 * sd-bus too, so a diagnostic that sd-bus would refuse to send (say, a
 * message cut inside a UTF-8 character) is a finding: Validate() would then
 * answer with an unnamed error instead of its result.
 *
 * The same bytes as a schedule file (any bytes: NULs, invalid UTF-8), the
 * way tbsd reads its folder: every diagnostic line (Reload()'s error, the
 * StateReason) and a valid file's interface name (ListLinks, the object
 * path) must be strings sd-bus sends. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <systemd/sd-bus.h>

#include "diag.h"
#include "fuzz.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "schedule.h"
#include "sd-cleanup.h"

/* Same limit as bus-manager.c's VALIDATE_MAX_BYTES. */
#define VALIDATE_MAX_BYTES (1024 * 1024)

/* A bus object that never connects anywhere: enough for sd-bus to build
 * (and validate) messages. One per process. */
static sd_bus *message_factory(void) {
        static sd_bus *bus;
        int fds[2];

        if (bus)
                return bus;
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
                fuzz_fail("socketpair: %m");
        if (sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fds[0], fds[1]) < 0 || sd_bus_start(bus) < 0)
                fuzz_fail("sd-bus setup failed");
        return bus;
}

static sd_bus_message *new_message(void) {
        sd_bus_message *m = NULL;

        if (sd_bus_message_new_method_call(message_factory(), &m, "org.tsn.Tbs", "/org/tsn/Tbs",
                                           "org.tsn.Tbs.Manager", "Validate") < 0)
                fuzz_fail("sd_bus_message_new_method_call failed");
        return m;
}

/* The bytes as a schedule file: what of it reaches the bus. */
static void as_file(const uint8_t *data, size_t size) {
        _cleanup_bus_message_ sd_bus_message *m = new_message();
        _cleanup_schedule_ Schedule *s = NULL;
        DiagList diags = {};
        int r;

        if (size > SCHEDULE_FILE_MAX)
                return;
        r = schedule_parse_json("schedules.d/\xff\n.json", (const char *) data, size, &diags, &s);
        if (r >= 0)
                (void) schedule_verify(s, NULL, &diags);
        for (size_t i = 0; i < diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&diags.items[i]);

                fuzz_check(line, "diag_format failed");
                r = sd_bus_message_append(m, "s", line);
                fuzz_check(r >= 0, "sd-bus refuses a file's diagnostic line (%d): %s", r, line);
        }
        if (s) {
                _cleanup_free_ char *path = NULL;

                r = sd_bus_message_append(m, "s", s->ifname);
                fuzz_check(r >= 0, "sd-bus refuses the interface name of a valid file (%d)", r);
                r = sd_bus_path_encode("/org/tsn/Tbs/link", s->ifname, &path);
                fuzz_check(r >= 0, "no object path for the interface name (%d)", r);
                r = sd_bus_message_append(m, "o", path);
                fuzz_check(r >= 0, "sd-bus refuses the object path (%d)", r);
        }
        diag_list_clear(&diags);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_bus_message_ sd_bus_message *call = NULL, *reply = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        _cleanup_free_ char *text = NULL;
        DiagList diags = {};
        int r;

        as_file(data, size);

        /* What a caller can send: a NUL-free string, valid UTF-8. */
        text = strndup((const char *) data, size);
        if (!text)
                return 0;
        call = new_message();
        if (sd_bus_message_append(call, "s", text) < 0)
                return 0;

        /* method_validate() */
        if (strlen(text) > VALIDATE_MAX_BYTES)
                return 0;
        r = schedule_parse_json("<Validate>", text, strlen(text), &diags, &s);
        if (r >= 0)
                (void) schedule_verify(s, NULL, &diags);
        fuzz_check(r >= 0 || diag_errors(&diags) > 0 || r == -ENOMEM,
                   "parse failed (%d) without saying why: Validate() would answer valid=false and no reason", r);

        reply = new_message();
        r = sd_bus_message_append(reply, "b", diag_errors(&diags) == 0);
        fuzz_check(r >= 0, "append b: %d", r);
        r = sd_bus_message_open_container(reply, 'a', "s");
        fuzz_check(r >= 0, "open a: %d", r);
        for (size_t i = 0; i < diags.n; i++) {
                _cleanup_free_ char *line = diag_format(&diags.items[i]);

                fuzz_check(line, "diag_format failed");
                r = sd_bus_message_append(reply, "s", line);
                fuzz_check(r >= 0, "sd-bus refuses diagnostic line (%d): Validate() would fail: %s", r, line);
        }
        r = sd_bus_message_close_container(reply);
        fuzz_check(r >= 0, "close a: %d", r);
        diag_list_clear(&diags);
        return 0;
}

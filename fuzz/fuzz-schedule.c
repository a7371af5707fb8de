/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: a schedule file's bytes through schedule_parse_json(), then
 * schedule_verify() without device facts and with the facts of a few real
 * devices. Invariants checked besides "no crash, no leak, no UB":
 *  - the return codes agree with the diagnostics (0 <=> no errors added);
 *  - every diagnostic formats to one line of valid UTF-8 without control
 *    characters; a valid file's interface name and socket path are valid
 *    UTF-8 (they go on D-Bus);
 *  - schedule_peek_ifname() finds the interface of every valid file;
 *  - parse(to_json(parse(x))) equals parse(x) (compared as JSON text), and
 *    schedule_copy() gives the same JSON. */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "diag.h"
#include "fuzz.h"
#include "json-util.h"
#include "schedule-json.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "schedule.h"
#include "utf8.h"

static void check_diags(const DiagList *d) {
        size_t errors = 0;

        for (size_t i = 0; i < d->n; i++) {
                _cleanup_free_ char *line = diag_format(&d->items[i]);

                fuzz_check(line, "diag_format failed");
                fuzz_check(!strchr(line, '\n'), "diagnostic spans lines: %s", line);
                /* one line of valid UTF-8 without control characters: a
                 * terminal, a log and D-Bus take it as it is */
                fuzz_check(text_is_safe(line), "diagnostic not escaped: %s", line);
                errors += d->items[i].severity == DIAG_ERROR;
        }
        fuzz_check(errors == diag_errors(d), "error count %zu != %zu", errors, diag_errors(d));
}

static void verify_with(const Schedule *s, const DeviceFacts *facts) {
        DiagList d = {};
        int r;

        r = schedule_verify(s, facts, &d);
        check_diags(&d);
        if (r == 0)
                fuzz_check(diag_errors(&d) == 0, "verify returned 0 with errors");
        else if (r == -EINVAL)
                fuzz_check(diag_errors(&d) > 0, "verify returned -EINVAL without errors");
        else
                fuzz_check(r == -ENOMEM, "verify returned %d", r);
        diag_list_clear(&d);
}

/* The model as JSON text; NULL only on allocation failure. */
static char *to_text(const Schedule *s) {
        _cleanup_json_ struct json_object *o = schedule_to_json(s);
        const char *t;

        if (!o)
                return NULL;
        t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        return t ? strdup(t) : NULL;
}

static void round_trip(const Schedule *s) {
        _cleanup_schedule_ Schedule *again = NULL, *copy = NULL;
        _cleanup_free_ char *text = NULL, *text2 = NULL, *text3 = NULL;
        DiagList d = {};
        int r;

        text = to_text(s);
        fuzz_check(text, "schedule_to_json failed");

        r = schedule_parse_json("round-trip", text, strlen(text), &d, &again);
        if (r != 0) {
                for (size_t i = 0; i < d.n; i++) {
                        _cleanup_free_ char *line = diag_format(&d.items[i]);
                        fprintf(stderr, "%s\n", line ?: "?");
                }
                fuzz_fail("to_json output does not parse (%d): %s", r, text);
        }
        diag_list_clear(&d);
        text2 = to_text(again);
        fuzz_check(text2 && strcmp(text, text2) == 0, "round trip differs:\n%s\n%s", text, text2 ?: "(null)");

        fuzz_check(schedule_copy(s, &copy) == 0, "schedule_copy failed");
        text3 = to_text(copy);
        fuzz_check(text3 && strcmp(text, text3) == 0, "copy differs:\n%s\n%s", text, text3 ?: "(null)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static const DeviceFacts facts[] = {
                {},                                                     /* nothing known */
                { .tx_queues = 1 },                                     /* veth default */
                { .tx_queues = 4, .offload_known = true, .launch_time_mask = 0x3,
                  .offload_reason = "i210: launch time on queues 0 and 1 only" },
                { .tx_queues = 4, .offload_known = true, .launch_time_mask = 0xf },  /* i225 */
                { .tx_queues = 8, .offload_known = true, .launch_time_mask = 0 },    /* 82576 */
                { .tx_queues = 64, .offload_known = true, .launch_time_mask = UINT64_MAX },
        };
        _cleanup_schedule_ Schedule *s = NULL;
        char ifname[IFNAMSIZ];
        DiagList d = {};
        int r;

        if (size > SCHEDULE_FILE_MAX)
                return 0;

        r = schedule_parse_json("fuzz.json", (const char *) data, size, &d, &s);
        check_diags(&d);
        if (r == -EINVAL) {
                fuzz_check(diag_errors(&d) > 0, "parse returned -EINVAL without errors");
                diag_list_clear(&d);
                return 0;
        }
        if (r == -ENOMEM) {
                diag_list_clear(&d);
                return 0;
        }
        fuzz_check(r == 0 && s, "parse returned %d", r);
        fuzz_check(diag_errors(&d) == 0, "parse returned 0 with errors");
        diag_list_clear(&d);

        fuzz_check(schedule_peek_ifname((const char *) data, size, ifname) == 0,
                   "peek_ifname misses a valid file's interface");
        fuzz_check(strncmp(ifname, s->ifname, IFNAMSIZ) == 0, "peek_ifname '%s' != '%s'", ifname, s->ifname);
        /* What goes on the bus from a file: the name (ListLinks), the
         * socket path (clock reasons); D-Bus takes valid UTF-8 only. */
        fuzz_check(!ifname_problem(s->ifname, strnlen(s->ifname, IFNAMSIZ)), "invalid interface name accepted");
        fuzz_check(utf8_is_valid_n(s->ifname, strlen(s->ifname)), "interface name not UTF-8");
        fuzz_check(!s->clock.ptp4l_socket || text_is_safe(s->clock.ptp4l_socket), "ptp4l_socket not safe");

        verify_with(s, NULL);
        for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++)
                verify_with(s, &facts[i]);

        round_trip(s);
        return 0;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Link on a context of the test's own, with neither a Manager nor a bus:
 * every change of state, every property and every event reaches the
 * context's callbacks, once and in order; nothing is reported when nothing
 * changed; a link without callbacks works all the same. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "link-internal.h"
#include "link.h"
#include "nl-qdisc.h"
#include "schedule-parse.h"

/* What the callbacks saw, one line each: "state pending->failed",
 * "props State,StateReason", "event absent: ...", "applied -19: ...". */
typedef struct Seen {
        char lines[32][256];
        size_t n;
        uint64_t sample_at;     /* on_statistics_read: give a sample taken then (0: none) */
} Seen;

static void seen_add(Seen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seen_add(Seen *s, const char *fmt, ...) {
        va_list ap;

        assert_true(s->n < 32);
        va_start(ap, fmt);
        vsnprintf(s->lines[s->n++], sizeof(s->lines[0]), fmt, ap);
        va_end(ap);
}

static void on_state_changed(Link *l, LinkState old, void *userdata) {
        seen_add(userdata, "state %s->%s: %s", link_state_to_string(old), link_state_to_string(l->state),
                 l->state_reason);
}

static void on_event(Link *l, const char *kind, const char *message, void *userdata) {
        seen_add(userdata, "event %s %s: %s", l->name, kind, message);
}

static void on_properties_changed(Link *l, char **names, void *userdata) {
        char buf[200] = "";

        for (size_t i = 0; names[i]; i++)
                snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? "," : "", names[i]);
        seen_add(userdata, "props %s", buf);
}

static void on_applied(Link *l, int r, const char *error, const ApplyReport *report, void *userdata) {
        seen_add(userdata, "applied %d%s: %s", r, report ? " with report" : "", error ?: "-");
}

static int on_statistics_read(Link *l, uint64_t *ret_sampled_usec, void *userdata) {
        Seen *s = userdata;
        QDiscTree t = { .ifindex = 3, .has_root = true };

        seen_add(s, "statistics read %s", l->name);
        if (s->sample_at == 0)
                return 0;
        link_take_sample(l, &t, s->sample_at, s->sample_at);
        *ret_sampled_usec = s->sample_at;
        return 1;
}

static LinkContext test_context(Seen *seen) {
        return (LinkContext) {
                .userdata = seen,
                .on_event = on_event,
                .on_state_changed = on_state_changed,
                .on_statistics_read = on_statistics_read,
                .bus_userdata = seen,
                .on_properties_changed = on_properties_changed,
                .applied_userdata = seen,
                .on_applied = on_applied,
        };
}

static void assert_seen(Seen *s, size_t n, ...) {
        va_list ap;

        va_start(ap, n);
        for (size_t i = 0; i < n && i < s->n; i++)
                assert_string_equal(s->lines[i], va_arg(ap, const char *));
        va_end(ap);
        assert_int_equal(s->n, n);
        s->n = 0;
}

static void test_state_reaches_callbacks(void **state) {
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "t0", &l), 0);
        assert_int_equal(l->state, LINK_STATE_PENDING);
        assert_string_equal(l->state_reason, "not applied yet");
        assert_seen(&seen, 0);  /* creating reports nothing: the owner announces it */

        link_set_state(l, LINK_STATE_FAILED, "bad %d", 1);
        assert_seen(&seen, 2, "props State,StateReason", "state pending->failed: bad 1");

        link_set_state(l, LINK_STATE_FAILED, "bad %d", 1);
        assert_seen(&seen, 0);  /* nothing changed: nothing reported */

        link_set_state(l, LINK_STATE_FAILED, "bad %d", 2);
        assert_seen(&seen, 2, "props State,StateReason", "state failed->failed: bad 2");

        /* The kept note ends the reason, and goes again when cleared. */
        link_set_kept_note(l, "the new file is invalid");
        assert_seen(&seen, 2, "props State,StateReason",
                    "state failed->failed: bad 2; the new file is invalid");
        link_set_kept_note(l, "the new file is invalid");
        assert_seen(&seen, 0);
        link_set_state(l, LINK_STATE_PENDING, "waiting");
        assert_seen(&seen, 2, "props State,StateReason", "state failed->pending: waiting; the new file is invalid");
        link_set_kept_note(l, NULL);
        assert_seen(&seen, 2, "props State,StateReason", "state pending->pending: waiting");

        /* A reason that is not one clean line is escaped before anyone sees it. */
        link_set_state(l, LINK_STATE_FAILED, "file %s", "a\nb");
        assert_seen(&seen, 2, "props State,StateReason", "state pending->failed: file a\\nb");

        /* An interface that goes: Index, an event, then the state. */
        l->ifindex = 7;
        link_vanished(l);
        assert_int_equal(l->ifindex, 0);
        assert_seen(&seen, 4, "props Index", "event t0 vanished: interface t0 is gone",
                    "props State,StateReason", "state failed->absent: interface t0 is gone; waiting for it to return");
        link_vanished(l);
        assert_seen(&seen, 0);

        assert_null(link_free(l));
}

static const char schedule_text[] =
        "{\"interface\": \"tbs-none0\", \"root\": {\"qdisc\": \"mqprio\", \"num_tc\": 1,"
        " \"priority_map\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],"
        " \"queues\": [{\"count\": 1, \"offset\": 0}]},"
        " \"txqueues\": [{\"queue\": 0, \"qdisc\": \"etf\", \"delta_ns\": 200000, \"offload\": false}]}";

/* An apply ends in the callbacks, whatever it ends with; here before any
 * netlink is needed: no schedule, or no such interface. */
static void test_apply_outcome_reaches_callbacks(void **state) {
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        Schedule *s = NULL;
        char *error = NULL;
        DiagList d = {};
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "tbs-none0", &l), 0);
        assert_int_equal(link_apply(l, &error), -EINVAL);
        assert_string_equal(error, "not applied yet");
        error = mfree(error);
        assert_seen(&seen, 1, "applied -22: not applied yet");

        assert_int_equal(schedule_parse_json("tbs-none0.json", schedule_text, strlen(schedule_text), &d, &s), 0);
        assert_int_equal(link_set_schedule(l, "/etc/tbsd/schedules.d/tbs-none0.json", s, NULL), 1);
        assert_seen(&seen, 0);  /* taking a schedule does not apply it */

        assert_int_equal(link_apply(l, &error), -ENODEV);
        assert_string_equal(error, "interface tbs-none0 does not exist");
        error = mfree(error);
        /* The properties the apply changed come at its end, in one report. */
        assert_seen(&seen, 4, "event tbs-none0 absent: interface tbs-none0 does not exist",
                    "state pending->absent: interface tbs-none0 does not exist; waiting for it",
                    "applied -19: interface tbs-none0 does not exist", "props Index,State,StateReason");
        assert_int_equal(l->state, LINK_STATE_ABSENT);

        /* Still absent: no second event, no state change; the apply is told. */
        assert_int_equal(link_apply(l, NULL), -ENODEV);
        assert_seen(&seen, 2, "applied -19: interface tbs-none0 does not exist", "props Index");

        /* A batch of one takes the same way (no dump: one by one). */
        assert_int_equal(links_apply(&l, 1, NULL, NULL, NULL), 0);
        assert_seen(&seen, 2, "applied -19: interface tbs-none0 does not exist", "props Index");

        link_free(l);
        diag_list_clear(&d);
}

/* A new schedule taken while the previous one's tree is installed keeps
 * that one aside; when the new one is refused the previous one goes back
 * in force (state and its reason kept, the note and a "failed" event
 * added). With nothing installed nothing is kept aside. */
static void test_refused_keeps_previous(void **state) {
        static const char path[] = "/etc/tbsd/schedules.d/tbs-none0.json";
        char text2[sizeof(schedule_text)], *delta;
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        Schedule *s1 = NULL, *s2 = NULL, *s3 = NULL;
        DiagList d = {};
        Link *l = NULL;

        memcpy(text2, schedule_text, sizeof(text2));
        delta = strstr(text2, "200000");
        assert_non_null(delta);
        delta[0] = '3';
        assert_int_equal(link_new(&ctx, "tbs-none0", &l), 0);
        assert_int_equal(schedule_parse_json(path, schedule_text, strlen(schedule_text), &d, &s1), 0);
        assert_int_equal(schedule_parse_json(path, text2, strlen(text2), &d, &s2), 0);
        assert_int_equal(link_set_schedule(l, path, s1, NULL), 1);
        /* as after a successful apply */
        l->rt->applied = true;
        link_set_state(l, LINK_STATE_CONFIGURED, "schedule installed");

        assert_int_equal(link_set_schedule(l, path, s2, NULL), 1);
        assert_ptr_equal(l->schedule, s2);
        assert_ptr_equal(l->rt->previous, s1);
        seen.n = 0;
        assert_true(link_keep_previous(l, "is refused", "txqueues[0].offload: no"));
        assert_ptr_equal(l->schedule, s1);
        assert_null(l->rt->previous);
        assert_string_equal(l->schedule_file, path);
        assert_int_equal(l->state, LINK_STATE_CONFIGURED);
        assert_string_equal(l->state_reason, "schedule installed; the new version of "
                            "/etc/tbsd/schedules.d/tbs-none0.json is refused (txqueues[0].offload: no); "
                            "the previous version stays in force");
        assert_true(seen.n >= 1);
        assert_string_equal(seen.lines[seen.n - 1], "event tbs-none0 failed: the new version of "
                            "/etc/tbsd/schedules.d/tbs-none0.json is refused (txqueues[0].offload: no); "
                            "the previous version stays in force");

        /* Nothing installed: the new schedule simply replaces the old. */
        l->rt->applied = false;
        assert_int_equal(schedule_parse_json(path, text2, strlen(text2), &d, &s3), 0);
        assert_int_equal(link_set_schedule(l, path, s3, NULL), 1);
        assert_null(l->rt->previous);
        assert_false(link_keep_previous(l, "is refused", "x"));
        assert_ptr_equal(l->schedule, s3);

        link_free(l);
        diag_list_clear(&d);
}

/* Held changes are reported once, named in a fixed order, when the
 * outermost hold ends; nothing when nothing changed. */
static void test_held_changes(void **state) {
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "t3", &l), 0);
        link_hold_changes(l);
        link_hold_changes(l);
        link_set_state(l, LINK_STATE_FAILED, "a");
        l->ifindex = 4;
        link_vanished(l);
        link_release_changes(l);
        assert_seen(&seen, 3, "state pending->failed: a", "event t3 vanished: interface t3 is gone",
                    "state failed->absent: interface t3 is gone; waiting for it to return");
        link_release_changes(l);
        assert_seen(&seen, 1, "props Index,State,StateReason");
        link_release_changes(l);        /* not held: nothing */
        link_hold_changes(l);
        link_release_changes(l);
        assert_seen(&seen, 0);
        link_free(l);
}

/* Statistics reads go to the context's sampler; the link answers from
 * the sample it was given. */
static void test_statistics_read(void **state) {
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "t1", &l), 0);
        assert_null(link_statistics_read(l));         /* the sampler had nothing new */
        assert_seen(&seen, 1, "statistics read t1");
        assert_null(link_last_sample(l, NULL));

        seen.sample_at = 5000000;
        assert_non_null(link_statistics_read(l));     /* taken just now: the freshest tree */
        assert_seen(&seen, 1, "statistics read t1");
        assert_ptr_equal(link_last_sample(l, NULL), link_sample_taken_at(l, 5000000));
        assert_null(link_sample_taken_at(l, 4000000));
        link_free(l);
}

/* Without callbacks (nobody listens) a link works all the same. */
static void test_no_callbacks(void **state) {
        LinkContext ctx = {};
        Link *l = NULL;

        assert_int_equal(link_new(&ctx, "t2", &l), 0);
        link_set_state(l, LINK_STATE_FAILED, "x");
        link_set_kept_note(l, "y");
        assert_string_equal(l->state_reason, "x; y");
        l->ifindex = 3;
        link_vanished(l);
        assert_int_equal(l->state, LINK_STATE_ABSENT);
        assert_null(link_statistics_read(l));
        assert_int_equal(link_apply(l, NULL), -EINVAL);
        link_free(l);
        assert_null(link_free(NULL));
}

/* After an apply that reset the NIC (link_begin_ptp_relock(), which the
 * apply calls when apply_resets_link() says so; test-ptp-relock.c checks
 * that judgement) the link is pending, waiting for PTP, and still counts
 * as installed; when the bound passes it takes the clock's state with a
 * reason. The clock check runs for real against a ptp4l socket that does
 * not exist: it finds no ptp4l. */
static void test_ptp_relock_state(void **state) {
        char dir[] = "/tmp/tbs-test-link.XXXXXX", sock[64];
        Seen seen = {};
        LinkContext ctx = test_context(&seen);
        ClockSpec cs = { .configured = true, .max_master_offset_ns = 100, .max_phc_offset_ns = 1000 };
        Schedule *s = NULL;
        DiagList d = {};
        sd_event *e = NULL;
        Link *l = NULL;

        assert_non_null(mkdtemp(dir));
        assert_int_equal(setenv("RUNTIME_DIRECTORY", dir, 1), 0);     /* the client's own socket */
        snprintf(sock, sizeof(sock), "%s/no-ptp4l", dir);
        cs.ptp4l_socket = sock;
        assert_int_equal(sd_event_new(&e), 0);
        ctx.event = e;
        assert_int_equal(link_new(&ctx, "t3", &l), 0);
        assert_int_equal(schedule_parse_json("t3.json", schedule_text, strlen(schedule_text), &d, &s), 0);
        assert_int_equal(link_set_schedule(l, "/etc/tbsd/schedules.d/t3.json", s, NULL), 1);
        l->ifindex = 5;
        l->rt->applied = true;
        link_begin_ptp_relock(l);
        assert_int_equal(clock_check_new(e, "t3", &cs, -1, NULL, NULL, &l->rt->clock), 0);
        (void) clock_check_run_now(l->rt->clock);
        for (int i = 0; i < 100 && clock_check_status(l->rt->clock)->checked_at_usec == 0; i++)
                assert_true(sd_event_run(e, 10000) >= 0);
        assert_int_equal(clock_check_status(l->rt->clock)->state, CLOCK_STATE_NO_PTP4L);

        link_update_installed_state(l);
        assert_int_equal(l->state, LINK_STATE_PENDING);
        assert_string_equal(l->state_reason, "waiting for PTP to lock again: the apply switched on an offload and "
                            "the driver resets the link for it (at most 120 s); clock no-ptp4l");
        assert_true(link_is_installed(l));
        assert_null(link_tree_missing(l));
        seen.n = 0;

        /* The bound passes (its timer would call this). */
        l->rt->relock.since_usec -= TBS_PTP_RELOCK_TIMEOUT_USEC;
        link_update_installed_state(l);
        assert_int_equal(l->state, LINK_STATE_DEGRADED);
        assert_non_null(strstr(l->state_reason, "clock no-ptp4l: "));
        assert_non_null(strstr(l->state_reason, " (since the NIC reset)"));
        assert_string_equal(seen.lines[0], "event t3 clock: PTP did not lock again within 120 s of the NIC reset");
        assert_true(link_is_installed(l));

        /* A wait ends with the installed schedule (failed, removed, gone). */
        link_begin_ptp_relock(l);
        assert_true(l->rt->relock.waiting);
        l->rt->applied = false;
        link_update_installed_state(l);
        assert_false(l->rt->relock.waiting);
        assert_null(l->rt->relock_timer);

        /* An interface that goes stops its clock check: the clock is not
         * checked (it went on with ptp4l's answers), and ClockState comes
         * in one signal with State and StateReason. */
        {
                ClockStatus buf;

                l->rt->applied = true;
                l->schedule->clock.configured = true;   /* as the check above stands for */
                seen.n = 0;
                link_vanished(l);
                assert_null(l->rt->clock);
                assert_int_equal(link_clock_status(l, &buf)->state, CLOCK_STATE_UNSYNCED);
                assert_string_equal(buf.reason, "not checked while the schedule is not installed (absent)");
                assert_seen(&seen, 4, "props Index", "event t3 vanished: interface t3 is gone",
                            "state degraded->absent: interface t3 is gone; waiting for it to return",
                            "props State,StateReason,ClockState");
        }

        link_free(l);
        sd_event_unref(e);
        assert_int_equal(rmdir(dir), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_state_reaches_callbacks),
                cmocka_unit_test(test_apply_outcome_reaches_callbacks),
                cmocka_unit_test(test_refused_keeps_previous),
                cmocka_unit_test(test_held_changes),
                cmocka_unit_test(test_statistics_read),
                cmocka_unit_test(test_no_callbacks),
                cmocka_unit_test(test_ptp_relock_state),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}

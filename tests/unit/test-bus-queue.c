/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bus signal queue (daemon/bus/bus-queue.c) on a real sd-bus connection:
 * a peer-to-peer pair over a socketpair, the daemon's end registering an
 * object, the other end reading what arrives. Nothing is sent before the
 * queue is flushed; changes of one object are coalesced; a removal drops
 * what was queued for the object, and everything when its addition was
 * never sent; order is kept otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "bus-pair.h"
#include "bus-queue.h"

#define IFACE "org.example.Q"

typedef struct Pair {
        sd_bus *daemon, *client;
        sd_event *event;
        BusQueue *q;
        uint32_t value;
} Pair;

static int get_value(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        Pair *p = userdata;

        return sd_bus_message_append(reply, "u", p->value);
}

static const sd_bus_vtable vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Value", "u", get_value, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Other", "u", get_value, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

static void pair_setup(Pair *p) {
        memset(p, 0, sizeof(*p));
        bus_pair_open(false, &p->daemon, &p->client);
        assert_int_equal(sd_bus_add_object_manager(p->daemon, NULL, "/q"), 0);
        assert_int_equal(sd_bus_add_fallback_vtable(p->daemon, NULL, "/q", IFACE, vtable, NULL, p), 0);
        assert_int_equal(sd_event_new(&p->event), 0);
        assert_int_equal(bus_queue_new(p->daemon, p->event, &p->q), 0);
}

static void pair_teardown(Pair *p) {
        p->q = bus_queue_free(p->q);
        sd_bus_flush_close_unref(p->daemon);
        sd_bus_flush_close_unref(p->client);
        sd_event_unref(p->event);
}

/* The next signal the client gets, as "MEMBER PATH [details]", or NULL
 * when none comes within a short wait. */
static char *next_signal(Pair *p) {
        for (int i = 0; i < 20; i++) {
                sd_bus_message *m = NULL;
                char *line = NULL;
                int r;

                (void) sd_bus_flush(p->daemon);
                r = sd_bus_process(p->client, &m);
                assert_true(r >= 0);
                if (!m) {
                        if (r == 0)
                                (void) sd_bus_wait(p->client, 20000);
                        continue;
                }
                uint8_t type = 0;

                if (sd_bus_message_get_type(m, &type) < 0 || type != SD_BUS_MESSAGE_SIGNAL) {
                        sd_bus_message_unref(m);
                        continue;
                }
                if (sd_bus_message_is_signal(m, "org.freedesktop.DBus.Properties", "PropertiesChanged")) {
                        const char *iface, *name;
                        char names[128] = "";

                        assert_true(sd_bus_message_read(m, "s", &iface) >= 0);
                        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") >= 0);
                        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                                assert_true(sd_bus_message_read(m, "s", &name) >= 0);
                                assert_true(sd_bus_message_skip(m, "v") >= 0);
                                assert_true(sd_bus_message_exit_container(m) >= 0);
                                strncat(names, " ", sizeof(names) - strlen(names) - 1);
                                strncat(names, name, sizeof(names) - strlen(names) - 1);
                        }
                        assert_true(asprintf(&line, "PropertiesChanged %s%s", sd_bus_message_get_path(m), names) > 0);
                } else if (sd_bus_message_is_signal(m, "org.example.Q", "Event")) {
                        const char *a, *b, *c;

                        assert_true(sd_bus_message_read(m, "sss", &a, &b, &c) >= 0);
                        assert_true(asprintf(&line, "Event %s %s %s", a, b, c) > 0);
                } else
                        assert_true(asprintf(&line, "%s %s", sd_bus_message_get_member(m),
                                             sd_bus_message_get_path(m)) > 0);
                sd_bus_message_unref(m);
                return line;
        }
        return NULL;
}

static void expect(Pair *p, const char *want) {
        char *got = next_signal(p);

        if (!want) {
                assert_null(got);
                return;
        }
        assert_non_null(got);
        assert_string_equal(got, want);
        free(got);
}

static void test_nothing_before_flush(void **state) {
        Pair p;

        pair_setup(&p);
        bus_queue_object_added(p.q, "/q/a");
        bus_queue_signal_sss(p.q, "/q", IFACE, "Event", "a", "applied", "done");
        expect(&p, NULL);
        /* The event loop's idle round sends them. */
        assert_true(sd_event_run(p.event, 0) >= 0);
        expect(&p, "InterfacesAdded /q");
        expect(&p, "Event a applied done");
        expect(&p, NULL);
        pair_teardown(&p);
}

static void test_coalesced(void **state) {
        char *value[] = { (char *) "Value", NULL }, *both[] = { (char *) "Other", (char *) "Value", NULL };
        Pair p;

        pair_setup(&p);
        bus_queue_properties_changed(p.q, "/q/a", IFACE, value);
        bus_queue_properties_changed(p.q, "/q/b", IFACE, value);
        bus_queue_signal_sss(p.q, "/q", IFACE, "Event", "a", "state", "x");
        bus_queue_properties_changed(p.q, "/q/a", IFACE, both);
        p.value = 7;
        bus_queue_flush(p.q);
        /* a's changes are one signal, at its first place, both names. */
        expect(&p, "PropertiesChanged /q/a Value Other");
        expect(&p, "PropertiesChanged /q/b Value");
        expect(&p, "Event a state x");
        expect(&p, NULL);
        pair_teardown(&p);
}

static void test_removed(void **state) {
        char *value[] = { (char *) "Value", NULL };
        Pair p;

        pair_setup(&p);
        /* Added and removed before anything was sent: no signal of it. */
        bus_queue_object_added(p.q, "/q/a");
        bus_queue_properties_changed(p.q, "/q/a", IFACE, value);
        bus_queue_object_removed(p.q, "/q/a");
        /* Changed, then removed: only the removal. */
        bus_queue_properties_changed(p.q, "/q/b", IFACE, value);
        bus_queue_object_removed(p.q, "/q/b");
        /* Removed, then back: removal, addition, change, in that order. */
        bus_queue_object_removed(p.q, "/q/c");
        bus_queue_object_added(p.q, "/q/c");
        bus_queue_properties_changed(p.q, "/q/c", IFACE, value);
        bus_queue_flush(p.q);
        expect(&p, "InterfacesRemoved /q");
        expect(&p, "InterfacesRemoved /q");
        expect(&p, "InterfacesAdded /q");
        expect(&p, "PropertiesChanged /q/c Value");
        expect(&p, NULL);
        pair_teardown(&p);
}

static void test_free_sends(void **state) {
        Pair p;

        pair_setup(&p);
        bus_queue_signal_sss(p.q, "/q", IFACE, "Event", "*", "stopping", "bye");
        p.q = bus_queue_free(p.q);
        expect(&p, "Event * stopping bye");
        pair_teardown(&p);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nothing_before_flush),
                cmocka_unit_test(test_coalesced),
                cmocka_unit_test(test_removed),
                cmocka_unit_test(test_free_sends),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

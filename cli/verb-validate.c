/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tbsctl validate [--device IFACE | --device-caps FILE] FILE...: the schedule
 * file checks of `tbsd --check`, for single files and without a daemon.
 * Without --device the files are judged alone, on any machine; with it they
 * are also judged against that interface of this machine (TX queue count,
 * launch-time capable queues) by the code the daemon refuses them with
 * before an apply (daemon/probe/device-check.h); with --device-caps against
 * a NIC that is elsewhere, from its capabilities as `tbsctl --json caps`
 * printed them there (daemon/probe/caps-profile.h), by the same rules. */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "caps-profile.h"
#include "device-check.h"
#include "diag.h"
#include "json-util.h"
#include "log.h"
#include "schedule-parse.h"
#include "schedule-verify.h"
#include "utf8.h"
#include "verbs.h"

/* The interface a file is checked against: --device's, or with "." the
 * file's own. */
static const char *device_for(const Schedule *s) {
        return strcmp(arg_device, ".") == 0 ? s->ifname : arg_device;
}

/* Reads, parses and verifies one file; problems go to diags. With probes
 * (--device), also against the device, whose probe result comes back in
 * *ret_probe (NULL when the file did not get that far). Returns 0 (the file
 * may still be invalid: see diags) or -ENOMEM. */
static int validate_file(const char *path, DeviceProbes *probes, const LinkCaps *profile, DiagList *diags,
                         char ifname[static IFNAMSIZ], const DeviceProbe **ret_probe) {
        _cleanup_free_ char *text = NULL;
        _cleanup_schedule_ Schedule *s = NULL;
        size_t len;
        int r;

        *ret_probe = NULL;
        r = schedule_read_file(path, NULL, diags, &text, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        (void) schedule_peek_ifname(text, len, ifname);
        r = schedule_parse_json(path, text, len, diags, &s);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;
        if (profile) {
                DeviceFacts facts;

                caps_to_device_facts(profile, &facts);
                facts.ifname = s->ifname;
                r = schedule_verify(s, &facts, diags);
                return r == -ENOMEM ? r : 0;
        }
        if (!probes) {
                r = schedule_verify(s, NULL, diags);
                return r == -ENOMEM ? r : 0;
        }
        r = device_check(probes, s, device_for(s), strcmp(device_for(s), s->ifname) == 0, diags);
        if (r == -ENOMEM)
                return r;
        *ret_probe = device_probes_find(probes, device_for(s));
        return 0;
}

/* Add s to o under key as a JSON string, or null for NULL. JSON escapes
 * control characters, but cannot carry bytes that are not UTF-8 (a file
 * name may hold them): those are escaped as diag_format() escapes them.
 * Returns 0 or -ENOMEM. */
static int add_text(json_object *o, const char *key, const char *s) {
        _cleanup_free_ char *fixed = NULL;

        if (s && !utf8_is_valid_n(s, strlen(s)) && !(fixed = utf8_escape_invalid(s)))
                return -ENOMEM;
        return json_add_string(o, key, fixed ?: s);
}

/* One diagnostic as {"file", "path", "reason", "severity"}: the parts of
 * its line, path null for the file as a whole. */
static json_object *diag_to_json(const Diag *d) {
        _cleanup_json_ json_object *o = json_object_new_object();

        if (!o || add_text(o, "file", d->file) < 0 || add_text(o, "path", d->path) < 0 ||
            add_text(o, "reason", d->reason) < 0 ||
            json_add_string(o, "severity", d->severity == DIAG_ERROR ? "error" : "warning") < 0)
                return NULL;
        return TAKE_PTR(o);
}

/* {"file", "valid", "interface", "errors": [lines], "warnings": [lines],
 *  "diagnostics": [diag_to_json(), errors and warnings in the order found],
 *  "device": the interface checked against or null, "device_caps": the
 *  profile file checked against or null, "capabilities": the interface's
 *  probe result (as in tbsctl caps), the profile's, or null} */
static json_object *file_to_json(const char *path, const DiagList *diags, const char *ifname,
                                 const DeviceProbe *probe, const LinkCaps *profile) {
        _cleanup_json_ json_object *o = json_object_new_object(), *errors = json_object_new_array(),
                                   *warnings = json_object_new_array(), *all = json_object_new_array();

        if (!o || !errors || !warnings || !all)
                return NULL;
        for (size_t i = 0; i < diags->n; i++) {
                _cleanup_free_ char *line = diag_format(&diags->items[i]);
                json_object *l, *d;

                if (!line || !(l = json_object_new_string(line)))
                        return NULL;
                if (json_object_array_add(diags->items[i].severity == DIAG_ERROR ? errors : warnings, l) < 0) {
                        json_object_put(l);
                        return NULL;
                }
                d = diag_to_json(&diags->items[i]);
                if (!d || json_object_array_add(all, d) < 0) {
                        json_object_put(d);
                        return NULL;
                }
        }
        if (add_text(o, "file", path) < 0 ||
            json_add(o, "valid", json_object_new_boolean(diag_errors(diags) == 0)) < 0 ||
            json_add_string(o, "interface", ifname[0] ? ifname : NULL) < 0 ||
            json_add(o, "errors", TAKE_PTR(errors)) < 0 ||
            json_add(o, "warnings", TAKE_PTR(warnings)) < 0 ||
            json_add(o, "diagnostics", TAKE_PTR(all)) < 0 ||
            json_add_string(o, "device", probe ? probe->ifname : NULL) < 0 ||
            add_text(o, "device_caps", profile ? arg_device_caps : NULL) < 0)
                return NULL;
        if (profile || (probe && probe->error == 0)) {
                json_object *c = caps_to_json(profile ?: &probe->caps);

                if (!c || json_add(o, "capabilities", c) < 0)
                        return NULL;
        } else if (json_add(o, "capabilities", NULL) < 0)
                return NULL;
        return TAKE_PTR(o);
}

int verb_validate(int argc, char *argv[]) {
        _cleanup_(device_probes_done) DeviceProbes probes = { .sock.fd = -1 };
        _cleanup_json_ json_object *all = NULL;
        LinkCaps profile;
        bool ok = true;

        if (arg_device && strcmp(arg_device, ".") != 0) {
                const char *problem = ifname_problem(arg_device, strlen(arg_device));

                if (problem) {
                        log_error("--device: interface name %s", problem);
                        return 2;
                }
        }
        if (arg_device)
                device_probes_init(&probes, NULL);
        if (arg_device_caps) {
                DiagList diags = {};
                int r = caps_profile_read(arg_device_caps, &profile, &diags);

                for (size_t j = 0; j < diags.n; j++) {
                        _cleanup_free_ char *line = diag_format(&diags.items[j]);

                        fprintf(stderr, "--device-caps: %s\n", line ?: "out of memory");
                }
                diag_list_clear(&diags);
                if (r == -ENOMEM)
                        return log_error_errno(r, "out of memory"), 1;
                if (r < 0)
                        return 1;
        }
        if (arg_json && !(all = json_object_new_array()))
                return log_error_errno(ENOMEM, "out of memory"), 1;

        for (int i = 0; i < argc; i++) {
                char ifname[IFNAMSIZ] = "";
                const DeviceProbe *probe;
                DiagList diags = {};
                int r;

                r = validate_file(argv[i], arg_device ? &probes : NULL, arg_device_caps ? &profile : NULL, &diags,
                                  ifname, &probe);
                if (r < 0) {
                        diag_list_clear(&diags);
                        log_error_errno(r, "%s: %m", argv[i]);
                        return 1;
                }
                if (diag_errors(&diags) > 0)
                        ok = false;

                if (arg_json) {
                        json_object *o = file_to_json(argv[i], &diags, ifname, probe, arg_device_caps ? &profile : NULL);

                        if (!o || json_object_array_add(all, o) < 0) {
                                json_object_put(o);
                                diag_list_clear(&diags);
                                log_error_errno(ENOMEM, "out of memory");
                                return 1;
                        }
                } else {
                        for (size_t j = 0; j < diags.n; j++) {
                                _cleanup_free_ char *line = diag_format(&diags.items[j]);

                                fprintf(stderr, "%s\n", line ?: "out of memory");
                        }
                        if (diag_errors(&diags) == 0) {
                                _cleanup_free_ char *f = NULL, *n = NULL, *d = NULL;

                                if (arg_device_caps) {
                                        _cleanup_free_ char *c = NULL;

                                        printf("%s: valid schedule for %s, checked against the device %s describes\n",
                                               text_safe(argv[i], &f), text_safe(ifname, &n),
                                               text_safe(arg_device_caps, &c));
                                } else if (probe && probe->error == 0)
                                        printf("%s: valid schedule for %s, checked against %s of this machine\n",
                                               text_safe(argv[i], &f), text_safe(ifname, &n),
                                               text_safe(probe->ifname, &d));
                                else
                                        printf("%s: valid schedule for %s\n", text_safe(argv[i], &f),
                                               text_safe(ifname, &n));
                        }
                }
                diag_list_clear(&diags);
        }

        if (arg_json)
                puts(json_object_to_json_string_ext(all, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
        return ok ? 0 : 1;
}

/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capability probe replayed on recorded devices
 * (tests/unit/fixtures/caps/, see its README.md): the recorded sysfs tree
 * through CapsIO.sysfs_root, the recorded ethtool answers through
 * CapsIO.ethtool. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "caps-replay.h"
#include "caps-cache.h"
#include "caps-probe.h"

/* What "auto" picks on each queue, as a bit mask of the queues that get
 * hardware; also checks that no known device asks for a trial. */
static uint64_t auto_hw_mask(const LinkCaps *c, bool expect_probe) {
        uint64_t mask = 0;

        for (unsigned q = 0; q < c->tx_queues; q++) {
                bool try_hw = false, must_probe = true;

                assert_int_equal(caps_offload_for_queue(c, q, &try_hw, &must_probe), 0);
                assert_int_equal(must_probe, expect_probe);
                if (try_hw)
                        mask |= UINT64_C(1) << q;
        }
        return mask;
}

/* ---- The recorded devices --------------------------------------------- */

static void test_i210(void **state) {
        Recording rec;
        LinkCaps c;
        DeviceFacts f;
        bool try_hw = true, must_probe = true;

        probe_device("i210", &rec, &c);
        assert_string_equal(c.driver, "igb");
        assert_string_equal(c.version, "6.1.0-18-amd64");
        assert_string_equal(c.fw_version, "3.25, 0x800005cc");
        assert_string_equal(c.bus_info, "0000:03:00.0");
        assert_true(c.pci_known);
        assert_int_equal(c.pci_vendor, 0x8086);
        assert_int_equal(c.pci_device, 0x1533);
        assert_int_equal(c.pci_subsystem_vendor, 0x8086);
        assert_int_equal(c.pci_subsystem_device, 0x0001);
        assert_int_equal(c.tx_queues, 4);
        assert_true(c.hw_timestamping);
        assert_true(c.sw_timestamping);
        assert_int_equal(c.so_timestamping, 0x5f);
        assert_int_equal(c.phc_index, 0);
        assert_int_equal(c.launch_time_mask, 0x3);
        assert_false(c.taprio_full_offload);
        assert_true(c.taprio_txtime_assist);
        assert_int_equal(c.confidence, CAPS_KNOWN);
        assert_string_equal(c.reason, "igb: launch time only on i210 queues 0 and 1");

        /* auto: hardware on queues 0 and 1, software on 2 and 3 */
        assert_int_equal(auto_hw_mask(&c, false), 0x3);
        assert_int_equal(caps_offload_for_queue(&c, 2, &try_hw, &must_probe), 0);
        assert_false(try_hw);
        assert_false(must_probe);
        /* offload: true is allowed on 0-1 only; queue 4 does not exist */
        assert_true(caps_queue_may_offload(&c, 0));
        assert_true(caps_queue_may_offload(&c, 1));
        assert_false(caps_queue_may_offload(&c, 2));
        assert_false(caps_queue_may_offload(&c, 3));
        try_hw = must_probe = true;
        assert_int_equal(caps_offload_for_queue(&c, 4, &try_hw, &must_probe), -ERANGE);
        assert_true(try_hw && must_probe);   /* untouched */

        caps_to_device_facts(&c, &f);
        assert_int_equal(f.tx_queues, 4);
        assert_true(f.offload_known);
        assert_int_equal(f.launch_time_mask, 0x3);
        assert_ptr_equal(f.offload_reason, c.reason);
        assert_false(f.taprio_full_offload);
        /* igb_offload_cbs() shapes queues 0 and 1 of an i210 */
        assert_int_equal(c.cbs_offload_mask, 0x3);
        assert_int_equal(f.cbs_offload_mask, 0x3);
        /* the recording predates the speed question: unknown */
        assert_int_equal(c.link_speed_mbps, 0);
        assert_int_equal(f.link_speed_mbps, 0);

        /* drvinfo, the sysfs queue count (no GCHANNELS needed), GSET (the speed) and ts_info */
        assert_int_equal(rec.calls, 3);
}

static void test_i211(void **state) {
        Recording rec;
        LinkCaps c;
        DeviceFacts f;

        probe_device("i211", &rec, &c);
        assert_string_equal(c.driver, "igb");
        assert_string_equal(c.fw_version, " 0. 6-6");
        assert_true(c.pci_known);
        assert_int_equal(c.pci_device, 0x1539);
        assert_int_equal(c.pci_subsystem_vendor, 0x1849);
        assert_int_equal(c.tx_queues, 2);
        assert_true(c.hw_timestamping);
        assert_int_equal(c.phc_index, 0);
        assert_int_equal(c.launch_time_mask, 0);
        assert_false(c.taprio_full_offload);
        assert_true(c.taprio_txtime_assist);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "igb: launch time only on i210 queues 0 and 1; 8086:1539 is not an i210");
        assert_int_equal(auto_hw_mask(&c, false), 0);
        assert_false(caps_queue_may_offload(&c, 0));

        caps_to_device_facts(&c, &f);
        assert_int_equal(f.tx_queues, 2);
        assert_true(f.offload_known);
        assert_int_equal(f.launch_time_mask, 0);
        assert_string_equal(f.offload_reason, c.reason);
}

static void test_82576(void **state) {
        Recording rec;
        LinkCaps c;

        probe_device("82576", &rec, &c);
        assert_string_equal(c.driver, "igb");
        assert_string_equal(c.fw_version, "1.2.1");
        assert_string_equal(c.bus_info, "0000:05:00.0");
        assert_int_equal(c.pci_vendor, 0x8086);
        assert_int_equal(c.pci_device, 0x10c9);
        assert_int_equal(c.pci_subsystem_device, 0xa03c);
        assert_int_equal(c.tx_queues, 8);
        assert_true(c.hw_timestamping);
        assert_int_equal(c.rx_filters, 0x1019);
        assert_int_equal(c.phc_index, 0);
        assert_int_equal(c.launch_time_mask, 0);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "igb: launch time only on i210 queues 0 and 1; 8086:10c9 is not an i210");
        assert_int_equal(auto_hw_mask(&c, false), 0);
        assert_int_equal(c.tx_stamp_slots, 1);  /* every igb device: one */
}

/* The real igb driver on QEMU's 82576, never brought up: sysfs shows all 8
 * allocated queues, the driver will run with 2 (its channel count). */
static void test_82576_qemu(void **state) {
        Recording rec;
        LinkCaps c;
        CapsIO io;

        probe_device("82576-qemu", &rec, &c);
        assert_string_equal(c.driver, "igb");
        assert_string_equal(c.version, "6.1.0-50-amd64");
        assert_string_equal(c.fw_version, "2.1.0");
        assert_string_equal(c.bus_info, "0000:01:00.0");
        assert_true(c.pci_known);
        assert_int_equal(c.pci_vendor, 0x8086);
        assert_int_equal(c.pci_device, 0x10c9);
        assert_int_equal(c.pci_subsystem_vendor, 0x1af4);
        assert_int_equal(c.pci_subsystem_device, 0x1100);
        assert_int_equal(c.tx_queues, 2);
        assert_int_equal(rec.calls, 4);         /* down: GCHANNELS was asked */
        assert_true(c.hw_timestamping);
        assert_int_equal(c.rx_filters, 0x1019);
        assert_int_equal(c.phc_index, 1);
        assert_int_equal(c.launch_time_mask, 0);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "igb: launch time only on i210 queues 0 and 1; 8086:10c9 is not an i210");
        assert_int_equal(auto_hw_mask(&c, false), 0);

        /* without GCHANNELS, the sysfs count is all there is */
        rec.channels_error = -EOPNOTSUPP;
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "eth1", &c), 0);
        assert_int_equal(c.tx_queues, 8);
}

static void test_i225(void **state) {
        Recording rec;
        LinkCaps c;
        DeviceFacts f;

        probe_device("i225", &rec, &c);
        assert_string_equal(c.driver, "igc");
        assert_string_equal(c.fw_version, "1082:8770");
        assert_int_equal(c.pci_device, 0x15f3);
        assert_int_equal(c.tx_queues, 4);
        assert_true(c.hw_timestamping);
        assert_int_equal(c.phc_index, 0);
        assert_int_equal(c.launch_time_mask, 0xf);
        assert_int_equal(c.cbs_offload_mask, 0xf);          /* igc: cbs on every queue */
        assert_true(c.taprio_full_offload);
        assert_true(c.taprio_txtime_assist);
        assert_int_equal(c.confidence, CAPS_KNOWN);
        assert_string_equal(c.reason, "igc: launch time on every TX queue; taprio full offload");
        assert_int_equal(auto_hw_mask(&c, false), 0xf);
        for (unsigned q = 0; q < 4; q++)
                assert_true(caps_queue_may_offload(&c, q));
        assert_false(caps_queue_may_offload(&c, 4));

        caps_to_device_facts(&c, &f);
        assert_true(f.offload_known);
        assert_int_equal(f.launch_time_mask, 0xf);
        assert_true(f.taprio_full_offload);
}

/* How many transmit stamps the driver holds at once: igc's depend on the
 * kernel release its version names (four from Linux 6.4 on). */
static void test_tx_stamp_slots(void **state) {
        static const struct {
                const char *device, *version;
                unsigned slots;
        } cases[] = {
                { "i210", "6.1.0-18-amd64", 1 },
                { "i210", "6.12.9", 1 },
                { "i225", "6.1.0-18-amd64", 1 },
                { "i225", "6.3.13", 1 },
                { "i225", "6.4.0", 4 },
                { "i225", "6.12.9+bpo-amd64", 4 },
                { "i225", "7.0", 4 },
                { "i225", "", 1 },               /* unreadable: the older, smaller count */
                { "i225", "5.15.0-91-generic", 1 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                Recording rec;
                LinkCaps c;
                CapsIO io;

                recording_load(&rec, cases[i].device);
                snprintf(rec.drvinfo.version, sizeof(rec.drvinfo.version), "%s", cases[i].version);
                io = recording_io(&rec);
                assert_int_equal(caps_probe(&io, rec.ifname, &c), 0);
                assert_int_equal(c.tx_stamp_slots, cases[i].slots);
        }
}

static void test_e1000e(void **state) {
        Recording rec;
        LinkCaps c;

        probe_device("e1000e", &rec, &c);
        assert_string_equal(c.driver, "e1000e");
        assert_int_equal(c.pci_device, 0x15b7);
        assert_int_equal(c.tx_queues, 1);
        assert_true(c.hw_timestamping);         /* e1000e has a PHC ... */
        assert_int_equal(c.phc_index, 0);
        assert_int_equal(c.rx_filters, 0x76db);
        assert_int_equal(c.launch_time_mask, 0); /* ... but no launch time */
        assert_false(c.taprio_full_offload);
        assert_false(c.taprio_txtime_assist);   /* one queue: no taprio at all */
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "e1000e: no launch-time (etf) offload in this driver");
        assert_int_equal(auto_hw_mask(&c, false), 0);
}

static void test_virtio_net(void **state) {
        Recording rec;
        LinkCaps c;
        DeviceFacts f;

        probe_device("virtio_net", &rec, &c);
        assert_string_equal(c.driver, "virtio_net");
        assert_string_equal(c.version, "1.0.0");
        assert_string_equal(c.fw_version, "");
        assert_string_equal(c.bus_info, "0000:01:00.0");
        /* the parent is a virtio device: its vendor file is not a PCI id */
        assert_false(c.pci_known);
        assert_int_equal(c.pci_vendor, 0);
        assert_int_equal(c.tx_queues, 1);
        assert_false(c.hw_timestamping);
        assert_true(c.sw_timestamping);
        assert_int_equal(c.phc_index, -1);
        assert_int_equal(c.launch_time_mask, 0);
        assert_false(c.taprio_txtime_assist);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "virtio_net: no launch-time (etf) offload in this driver");

        caps_to_device_facts(&c, &f);
        assert_int_equal(f.tx_queues, 1);
        assert_true(f.offload_known);
        assert_int_equal(f.launch_time_mask, 0);
}

static void test_veth(void **state) {
        Recording rec;
        LinkCaps c;

        probe_device("veth", &rec, &c);
        assert_string_equal(c.driver, "veth");
        assert_string_equal(c.version, "1.0");
        assert_string_equal(c.bus_info, "");
        assert_int_equal(c.tx_stamp_slots, 0);  /* not in the table's slot facts: not known */
        assert_false(c.pci_known);
        assert_int_equal(c.tx_queues, 4);
        assert_false(c.hw_timestamping);
        assert_true(c.sw_timestamping);
        assert_int_equal(c.so_timestamping, 0x1a);
        assert_int_equal(c.tx_types, 0);
        assert_int_equal(c.phc_index, -1);
        assert_int_equal(c.launch_time_mask, 0);
        assert_false(c.taprio_full_offload);
        assert_true(c.taprio_txtime_assist);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
        assert_string_equal(c.reason, "veth: no launch-time (etf) offload in this driver");
        assert_int_equal(c.cbs_offload_mask, 0);
        assert_int_equal(c.link_speed_mbps, 10000);
        assert_int_equal(auto_hw_mask(&c, false), 0);
        for (unsigned q = 0; q < 4; q++)
                assert_false(caps_queue_may_offload(&c, q));
}

/* ---- Variations on the recordings -------------------------------------- */

/* No queues/ folder in sysfs: the count comes from ETHTOOL_GCHANNELS
 * (tx_count + combined_count). */
static void test_queues_from_channels(void **state) {
        Recording rec;
        CapsIO io;
        LinkCaps c;

        recording_load(&rec, "veth");
        snprintf(rec.sysfs, sizeof(rec.sysfs), FIXTURES "/does-not-exist");
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "veth0", &c), 0);
        assert_int_equal(c.tx_queues, 4);
        assert_int_equal(rec.calls, 4);

        recording_load(&rec, "i225");
        snprintf(rec.sysfs, sizeof(rec.sysfs), FIXTURES "/does-not-exist");
        rec.channels.combined_count = 2;     /* as after ethtool -L enp6s0 combined 2 */
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "enp6s0", &c), 0);
        assert_int_equal(c.tx_queues, 2);
        assert_int_equal(c.launch_time_mask, 0x3);   /* every queue there is */
        /* no PCI ids either: igc does not need them */
        assert_false(c.pci_known);
        assert_int_equal(c.confidence, CAPS_KNOWN);

        /* neither sysfs nor GCHANNELS: the count is unknown (0) */
        recording_load(&rec, "e1000e");
        snprintf(rec.sysfs, sizeof(rec.sysfs), FIXTURES "/does-not-exist");
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "enp0s31f6", &c), 0);
        assert_int_equal(c.tx_queues, 0);
        assert_int_equal(c.confidence, CAPS_UNSUPPORTED);
}

/* An igb whose PCI id cannot be read: the table cannot tell an i210 from
 * the rest, so "auto" has to try. */
static void test_igb_without_sysfs(void **state) {
        Recording rec;
        CapsIO io;
        LinkCaps c;
        DeviceFacts f;

        recording_load(&rec, "i210");
        snprintf(rec.sysfs, sizeof(rec.sysfs), FIXTURES "/does-not-exist");
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "enp3s0", &c), 0);
        assert_false(c.pci_known);
        assert_int_equal(c.tx_queues, 4);       /* from GCHANNELS */
        assert_int_equal(c.confidence, CAPS_UNKNOWN);
        assert_int_equal(c.launch_time_mask, 0);
        assert_string_equal(c.reason, "igb: launch time only on i210 queues 0 and 1; the PCI device id could not be read");
        assert_int_equal(auto_hw_mask(&c, true), 0xf);

        caps_to_device_facts(&c, &f);
        assert_false(f.offload_known);
}

/* A queues folder larger than one getdents64() buffer (the probe reads it
 * 4 KiB at a time): every tx-N is counted once, other names not at all. Up,
 * the count comes from sysfs; down, from GCHANNELS (igc: 4 recorded). */
static void test_many_sysfs_queues(void **state) {
        char root[] = "/tmp/tbs-caps-XXXXXX", path[PATH_MAX], cmd[PATH_MAX];
        const char *junk[] = { "tx-", "tx-1a", "txq-3", "rx-x", "tx--1" };
        Recording rec;
        CapsIO io;
        LinkCaps c;
        FILE *f;

        (void) state;
        recording_load(&rec, "i225");
        assert_non_null(mkdtemp(root));
        snprintf(path, sizeof(path), "%s/class/net/%s/queues", root, rec.ifname);
        assert_true((size_t) snprintf(cmd, sizeof(cmd), "mkdir -p %s", path) < sizeof(cmd));
        assert_int_equal(system(cmd), 0);
        for (unsigned q = 0; q < 300; q++)
                for (unsigned rx = 0; rx < 2; rx++) {
                        snprintf(path, sizeof(path), "%s/class/net/%s/queues/%s-%u", root, rec.ifname,
                                 rx ? "rx" : "tx", q);
                        assert_int_equal(mkdir(path, 0755), 0);
                }
        for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
                snprintf(path, sizeof(path), "%s/class/net/%s/queues/%s", root, rec.ifname, junk[i]);
                assert_int_equal(mkdir(path, 0755), 0);
        }

        snprintf(rec.sysfs, sizeof(rec.sysfs), "%s", root);
        io = recording_io(&rec);
        snprintf(path, sizeof(path), "%s/class/net/%s/flags", root, rec.ifname);
        assert_non_null(f = fopen(path, "w"));
        fputs("0x1003\n", f);         /* IFF_UP */
        assert_int_equal(fclose(f), 0);
        assert_int_equal(caps_probe(&io, rec.ifname, &c), 0);
        assert_int_equal(c.tx_queues, 300);

        assert_non_null(f = fopen(path, "w"));
        fputs("0x1002\n", f);         /* down */
        assert_int_equal(fclose(f), 0);
        assert_int_equal(caps_probe(&io, rec.ifname, &c), 0);
        assert_int_equal(c.tx_queues, rec.channels.tx_count + rec.channels.combined_count);
        assert_int_not_equal(c.tx_queues, 300);

        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        assert_int_equal(system(cmd), 0);
}

/* Drivers outside the table, and stmmac, whose answer lives in platform
 * data: confidence unknown, "auto" tries every queue. */
static void test_unknown_drivers(void **state) {
        Recording rec;
        CapsIO io;
        LinkCaps c;
        DeviceFacts f;

        recording_load(&rec, "i225");
        strcpy(rec.drvinfo.driver, "tsnep");
        io = recording_io(&rec);
        assert_int_equal(caps_probe(&io, "enp6s0", &c), 0);
        assert_string_equal(c.driver, "tsnep");
        assert_int_equal(c.confidence, CAPS_UNKNOWN);
        assert_int_equal(c.launch_time_mask, 0);
        assert_false(c.taprio_full_offload);
        assert_string_equal(c.reason,
                            "tsnep: not in the launch-time table; offload \"auto\" tries it and keeps software mode if refused");
        assert_int_equal(auto_hw_mask(&c, true), 0xf);
        assert_true(caps_queue_may_offload(&c, 3));
        assert_false(caps_queue_may_offload(&c, 4));
        caps_to_device_facts(&c, &f);
        assert_false(f.offload_known);
        assert_int_equal(f.tx_queues, 4);

        strcpy(rec.drvinfo.driver, "st_gmac");
        assert_int_equal(caps_probe(&io, "enp6s0", &c), 0);
        assert_int_equal(c.confidence, CAPS_UNKNOWN);
        assert_non_null(strstr(c.reason, "stmmac: launch time is per queue"));
        assert_int_equal(auto_hw_mask(&c, true), 0xf);

        /* no driver name at all (lo answers GDRVINFO with EOPNOTSUPP) */
        rec.drvinfo_error = -EOPNOTSUPP;
        assert_int_equal(caps_probe(&io, "enp6s0", &c), 0);
        assert_string_equal(c.driver, "");
        assert_int_equal(c.confidence, CAPS_UNKNOWN);
        assert_non_null(strstr(c.reason, "does not report its name"));
}

static void test_errors(void **state) {
        Recording rec;
        CapsIO io;
        LinkCaps c, before;

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        memset(&c, 0xa5, sizeof(c));
        before = c;

        assert_int_equal(caps_probe(&io, "enp9s0", &c), -ENODEV);
        assert_memory_equal(&c, &before, sizeof(c));   /* untouched on failure */
        assert_int_equal(caps_probe(&io, "", &c), -EINVAL);
        assert_int_equal(caps_probe(&io, "a-name-far-too-long", &c), -EINVAL);
        assert_int_equal(caps_probe(&io, "../x", &c), -EINVAL);
        assert_int_equal(caps_probe(&io, NULL, &c), -EINVAL);
        assert_int_equal(caps_probe(&io, "enp3s0", NULL), -EINVAL);
        assert_memory_equal(&c, &before, sizeof(c));

        /* a driver without get_ts_info: no stamps known, no PHC */
        rec.ts_info_error = -EOPNOTSUPP;
        assert_int_equal(caps_probe(&io, "enp3s0", &c), 0);
        assert_false(c.hw_timestamping);
        assert_false(c.sw_timestamping);
        assert_int_equal(c.phc_index, -1);
        assert_int_equal(c.confidence, CAPS_KNOWN);

        /* any other failure of a command is the probe's failure */
        rec.ts_info_error = -EIO;
        assert_int_equal(caps_probe(&io, "enp3s0", &c), -EIO);
        rec.ts_info_error = 0;
        rec.drvinfo_error = -EPERM;
        assert_int_equal(caps_probe(&io, "enp3s0", &c), -EPERM);

        assert_int_equal(caps_offload_for_queue(NULL, 0, NULL, NULL), -EINVAL);
        assert_false(caps_queue_may_offload(NULL, 0));
}

/* The real system: whatever the host has, "lo" exists and has no launch
 * time (no driver name: unknown) and a name that cannot exist fails. */
static void test_real_system(void **state) {
        LinkCaps c;

        assert_int_equal(caps_probe(NULL, "lo", &c), 0);
        assert_int_equal(c.tx_queues, 1);
        assert_int_equal(c.phc_index, -1);
        assert_false(c.hw_timestamping);
        assert_int_equal(caps_probe(NULL, "tbs-nonexist0", &c), -ENODEV);
}

static void test_json(void **state) {
        Recording rec;
        LinkCaps c;
        struct json_object *o, *v;

        probe_device("i210", &rec, &c);
        o = caps_to_json(&c);
        assert_non_null(o);
        assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                            "{\"driver\":\"igb\",\"driver_version\":\"6.1.0-18-amd64\","
                            "\"firmware_version\":\"3.25, 0x800005cc\",\"bus_info\":\"0000:03:00.0\","
                            "\"pci_vendor\":\"0x8086\",\"pci_device\":\"0x1533\","
                            "\"pci_subsystem_vendor\":\"0x8086\",\"pci_subsystem_device\":\"0x0001\","
                            "\"tx_queues\":4,\"launch_time_queues\":[0,1],\"cbs_offload_queues\":[0,1],"
                            "\"link_speed_mbps\":null,\"hw_timestamping\":true,"
                            "\"sw_timestamping\":true,\"phc_index\":0,\"taprio_full_offload\":false,"
                            "\"taprio_txtime_assist\":true,\"resets_link_on_offload\":false,\"mac_merge\":null,\"tx_stamp_slots\":1,"
                            "\"confidence\":\"known\","
                            "\"reason\":\"igb: launch time only on i210 queues 0 and 1\"}");
        json_object_put(o);

        probe_device("veth", &rec, &c);
        o = caps_to_json(&c);
        assert_non_null(o);
        assert_true(json_object_object_get_ex(o, "pci_vendor", &v));
        assert_null(v);
        assert_true(json_object_object_get_ex(o, "launch_time_queues", &v));
        assert_int_equal(json_object_array_length(v), 0);
        assert_true(json_object_object_get_ex(o, "phc_index", &v));
        assert_int_equal(json_object_get_int(v), -1);
        assert_true(json_object_object_get_ex(o, "confidence", &v));
        assert_string_equal(json_object_get_string(v), "unsupported");
        assert_true(json_object_object_get_ex(o, "hw_timestamping", &v));
        assert_false(json_object_get_boolean(v));
        json_object_put(o);

        assert_null(caps_to_json(NULL));
}

static void test_confidence_strings(void **state) {
        assert_string_equal(caps_confidence_to_string(CAPS_KNOWN), "known");
        assert_string_equal(caps_confidence_to_string(CAPS_UNSUPPORTED), "unsupported");
        assert_string_equal(caps_confidence_to_string(CAPS_UNKNOWN), "unknown");
        assert_null(caps_confidence_to_string(_CAPS_CONFIDENCE_MAX));
        assert_null(caps_confidence_to_string(_CAPS_CONFIDENCE_INVALID));
        assert_int_equal(caps_confidence_from_string("unsupported"), CAPS_UNSUPPORTED);
        assert_int_equal(caps_confidence_from_string("maybe"), -EINVAL);
        assert_int_equal(caps_confidence_from_string(NULL), -EINVAL);
}

static void test_cache(void **state) {
        _cleanup_(caps_cache_freep) CapsCache *cache = NULL;
        Recording rec;
        CapsIO io;
        const LinkCaps *c = NULL;

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        assert_int_equal(caps_cache_new(&io, &cache), 0);

        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &c), 1);   /* probed */
        assert_int_equal(c->launch_time_mask, 0x3);
        assert_int_equal(rec.calls, 3);
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &c), 0);   /* cached */
        assert_int_equal(rec.calls, 3);
        /* the index it was probed with, by name (tbsd --once) */
        assert_int_equal(caps_cache_ifindex_of(cache, "enp3s0"), 3);
        assert_int_equal(caps_cache_ifindex_of(cache, "enp3s1"), 0);
        assert_int_equal(caps_cache_ifindex_of(NULL, "enp3s0"), 0);

        /* the link changed: the daemon invalidates, the next get probes */
        rec.channels.combined_count = 1;
        assert_int_equal(caps_cache_invalidate(cache, 3), 1);
        assert_int_equal(caps_cache_invalidate(cache, 3), 0);
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &c), 1);
        assert_int_equal(rec.calls, 6);

        /* a different name on the same index is a different link */
        assert_int_equal(caps_cache_get(cache, 3, "enp3s1", &c), -ENODEV);
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &c), 1);

        /* more entries than the first allocation, then forget them all */
        for (int i = 10; i < 20; i++)
                assert_int_equal(caps_cache_get(cache, i, "enp3s0", &c), 1);
        assert_int_equal(caps_cache_get(cache, 15, "enp3s0", &c), 0);
        assert_int_equal(caps_cache_invalidate(cache, 0), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "enp3s0"), 0);  /* forgotten */
        assert_int_equal(caps_cache_get(cache, 15, "enp3s0", &c), 1);

        assert_int_equal(caps_cache_get(cache, 0, "enp3s0", &c), -EINVAL);
        assert_null(caps_cache_free(NULL));
}

/* A link keeps its probe result (a reference, not a copy) while the cache
 * forgets or replaces it, and after the cache is gone. */
static void test_cache_ref(void **state) {
        CapsCache *cache = NULL;
        Recording rec;
        CapsIO io;
        const LinkCaps *c = NULL, *kept, *again;

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        assert_int_equal(caps_cache_new(&io, &cache), 0);

        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &c), 1);
        kept = caps_cache_ref(c);
        assert_ptr_equal(kept, c);
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &again), 0);
        assert_ptr_equal(again, kept);                  /* shared, not copied */

        assert_int_equal(caps_cache_invalidate(cache, 3), 1);
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &again), 1);
        assert_ptr_not_equal(again, kept);              /* a new probe */
        assert_int_equal(kept->launch_time_mask, 0x3);  /* the kept one lives on */

        assert_null(caps_cache_free(cache));
        assert_string_equal(kept->driver, "igb");
        assert_null(caps_cache_unref(kept));
        assert_null(caps_cache_ref(NULL));
        assert_null(caps_cache_unref(NULL));
}

/* 4096 interfaces: every one found by index and by name, asked in any
 * order; a rename or a removal takes the old name out; a name taken by a
 * newer index answers with it, and with the older one again once the
 * newer is gone. */
static void test_cache_many(void **state) {
        _cleanup_(caps_cache_freep) CapsCache *cache = NULL;
        Recording rec;
        CapsIO io;
        const LinkCaps *c = NULL;
        char name[IFNAMSIZ];

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        assert_int_equal(caps_cache_new(&io, &cache), 0);
        for (int i = 0; i < 4096; i++) {
                snprintf(name, sizeof(name), "veth%d", i);
                snprintf(rec.ifname, sizeof(rec.ifname), "%s", name);   /* the device answers as */
                assert_int_equal(caps_cache_get(cache, i + 2, name, &c), 1);
        }
        for (int i = 4095; i >= 0; i--) {
                snprintf(name, sizeof(name), "veth%d", i);
                assert_int_equal(caps_cache_ifindex_of(cache, name), i + 2);
                assert_int_equal(caps_cache_get(cache, i + 2, name, &c), 0);   /* cached */
        }
        /* removals from the middle keep the rest found */
        for (int i = 0; i < 4096; i += 3)
                assert_int_equal(caps_cache_invalidate(cache, i + 2), 1);
        for (int i = 0; i < 4096; i++) {
                snprintf(name, sizeof(name), "veth%d", i);
                assert_int_equal(caps_cache_ifindex_of(cache, name), i % 3 ? i + 2 : 0);
        }
        /* a rename: the old name is gone, the new one answers */
        snprintf(rec.ifname, sizeof(rec.ifname), "renamed");
        assert_int_equal(caps_cache_get(cache, 3, "renamed", &c), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "veth1"), 0);
        assert_int_equal(caps_cache_ifindex_of(cache, "renamed"), 3);
        /* the same name at two indexes (no notification in between) */
        assert_int_equal(caps_cache_get(cache, 9000, "renamed", &c), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "renamed"), 9000);
        assert_int_equal(caps_cache_invalidate(cache, 9000), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "renamed"), 3);
        assert_int_equal(caps_cache_invalidate(cache, 3), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "renamed"), 0);
        assert_int_equal(caps_cache_invalidate(cache, 0), 1);
        assert_int_equal(caps_cache_ifindex_of(cache, "veth2"), 0);
        assert_int_equal(caps_cache_invalidate(cache, 0), 0);
}

/* Interfaces that give the same answer share one stored result; a
 * different answer gets its own. */
static void test_cache_shares_equal_results(void **state) {
        _cleanup_(caps_cache_freep) CapsCache *cache = NULL;
        Recording rec;
        CapsIO io;
        const LinkCaps *a = NULL, *b = NULL, *c = NULL, *kept;

        recording_load(&rec, "i210");
        io = recording_io(&rec);
        assert_int_equal(caps_cache_new(&io, &cache), 0);

        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &a), 1);
        assert_int_equal(caps_cache_get(cache, 4, "enp3s0", &b), 1);   /* probed, */
        assert_ptr_equal(a, b);                                          /* not stored twice */

        /* a different firmware: a different result */
        snprintf(rec.drvinfo.fw_version, sizeof(rec.drvinfo.fw_version), "3.99, 0x80000001");
        assert_int_equal(caps_cache_get(cache, 5, "enp3s0", &c), 1);
        assert_ptr_not_equal(c, a);
        assert_string_equal(c->fw_version, "3.99, 0x80000001");
        assert_string_not_equal(a->fw_version, c->fw_version);

        /* forgetting both users of the shared result keeps a reference alive */
        kept = caps_cache_ref(a);
        assert_int_equal(caps_cache_invalidate(cache, 3), 1);
        assert_int_equal(caps_cache_invalidate(cache, 4), 1);
        assert_string_equal(kept->driver, "igb");
        assert_int_equal(kept->launch_time_mask, 0x3);
        /* index 3 probed again now answers like index 5: shares its result */
        assert_int_equal(caps_cache_get(cache, 3, "enp3s0", &b), 1);
        assert_ptr_equal(b, c);
        assert_null(caps_cache_unref(kept));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_i210),
                cmocka_unit_test(test_i211),
                cmocka_unit_test(test_82576),
                cmocka_unit_test(test_82576_qemu),
                cmocka_unit_test(test_i225),
                cmocka_unit_test(test_tx_stamp_slots),
                cmocka_unit_test(test_e1000e),
                cmocka_unit_test(test_virtio_net),
                cmocka_unit_test(test_veth),
                cmocka_unit_test(test_queues_from_channels),
                cmocka_unit_test(test_igb_without_sysfs),
                cmocka_unit_test(test_unknown_drivers),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_real_system),
                cmocka_unit_test(test_many_sysfs_queues),
                cmocka_unit_test(test_json),
                cmocka_unit_test(test_confidence_strings),
                cmocka_unit_test(test_cache),
                cmocka_unit_test(test_cache_ref),
                cmocka_unit_test(test_cache_shares_equal_results),
                cmocka_unit_test(test_cache_many),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}

#!/usr/bin/env python3
"""What `tbsctl status` and `tbsctl metrics` ask tbsd, timed from one
connection (bench/bounds.sh): in the user-mode-linux guest starting a
program costs 0.1-2 s by itself, which would hide the daemon's answer.

  bus-latency.py ROUNDS [metrics]

status: ListLinks, then Describe() of every link; metrics: the same and
each link's LaunchTimeError property. One line per round: "R NAME MS"."""
import sys
import time

import dbus

rounds = int(sys.argv[1])
metrics = len(sys.argv) > 2 and sys.argv[2] == "metrics"
name = "bus_metrics" if metrics else "bus_status"
bus = dbus.SystemBus()
manager = dbus.Interface(bus.get_object("org.tsn.Tbs", "/org/tsn/Tbs"), "org.tsn.Tbs.Manager")
for _ in range(rounds):
    t0 = time.monotonic()
    for link, path, _state in manager.ListLinks(timeout=120):
        obj = bus.get_object("org.tsn.Tbs", path)
        obj.Describe(dbus_interface="org.tsn.Tbs.Link", timeout=120)
        if metrics:
            obj.Get("org.tsn.Tbs.Link", "LaunchTimeError", dbus_interface="org.freedesktop.DBus.Properties",
                    timeout=120)
    print(f"R {name} {(time.monotonic() - t0) * 1000:.0f}", flush=True)
    time.sleep(0.2)

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The tbsd YANG module's schedule nodes match the schedule's key tables.

Every node under tbsd:schedule (netconf/tbsd.yang) is a key of tbsd's JSON
schedule document at the same place, with '-' for '_' (the module's own
description says so); every key the parser accepts has a node, except those
listed below with the reason. The keys are read from the parser's KeySpec
and the kinds' KindKey tables (as check-man-keys.py does), each table placed
in the document by TABLES; a table that is not placed fails the test, so a
new table needs a decision here.

Usage: check-yang-keys.py SOURCE_DIR"""
import glob
import os
import re
import sys

src = sys.argv[1]

# (file, first key of the table) -> where its keys sit in the document.
TABLES = {
    ("lib/schedule-parse.c", "interface"): "schedule",
    ("lib/schedule-parse.c", "qdisc"): "schedule/root",
    ("lib/schedule-parse.c", "stab"): "schedule/root",
    ("lib/schedule-parse.c", "count"): "schedule/root/queues",
    ("lib/schedule-parse.c", "ptp4l_socket"): "schedule/clock",
    ("lib/schedule-parse.c", "group"): "schedule/sockets",
    ("lib/schedule-parse.c", "pmac_enabled"): "schedule/mac_merge",
    ("kinds/mqprio.c", "hw_offload"): "schedule/root",
    ("kinds/taprio.c", "clockid"): "schedule/root",
    ("kinds/taprio-keys.c", "command"): "schedule/root/entries",
    ("lib/schedule-parse-txqueues.c", "queue"): "schedule/txqueues",
    ("lib/schedule-parse-txqueues.c", "stab"): "schedule/txqueues",
    # A root that is a single etf or cbs (no traffic classes).
    ("lib/schedule-parse-txqueues.c", "qdisc"): "schedule/leaf_root",
    ("lib/schedule-parse-txqueues.c", "num_tc"): "schedule/root",
    ("kinds/etf.c", "clockid"): "schedule/txqueues",
    ("kinds/cbs.c", "offload"): "schedule/txqueues",
    ("kinds/cbs.c", "qdisc"): "schedule/txqueues/child",
    ("lib/schedule-parse-monitor.c", "interval_ms"): "schedule/txqueues/monitor",
    ("lib/schedule-parse-streams.c", "name"): "schedule/root/streams",
    ("lib/schedule-stab.c", "overhead"): "schedule/root/stab",
}

# Keys without a node of the tbsd module (a prefix covers what is under it).
NO_NODE = {
    "schedule/interface": "the ietf-interfaces entry's name gives it",
    "schedule/sockets": "a commit hands out no sockets: the module has none (docs/netconf.md)",
    "schedule/mac_merge": "802.3's ieee802-ethernet-mac-merge admin-control, or derived (netconf/nc-preemption.c)",
    "schedule/root/fp": "802.1DC's frame-preemption-status-table per class (netconf/nc-preemption.c)",
    "schedule/root/qdisc": "derived: taprio when the gate parameter table has gate-enabled, mqprio otherwise",
    "schedule/root/entries": "the gate parameter table's admin-control-list (ieee802-dot1q-sched, 802.1DC)",
    "schedule/root/base_time_ns": "the gate parameter table's admin-base-time",
    "schedule/root/cycle_time_ns": "the gate parameter table's admin-cycle-time",
    "schedule/root/cycle_time_extension_ns": "the gate parameter table's admin-cycle-time-extension",
    "schedule/root/max_sdu": "the gate parameter table's queue-max-sdu-table",
    "schedule/root/streams": "the stream planner's input: files and the bus only",
    "schedule/root/link_speed_mbps": "with streams, for the guard band: files and the bus only",
    "schedule/root/guard_frame_bytes": "with streams, for the guard band: files and the bus only",
    "schedule/root/stab": "the size table: files and the bus only",
    "schedule/txqueues/stab": "the size table: files and the bus only",
    "schedule/txqueues/monitor": "launch-time monitors: files and the bus only",
    "schedule/txqueues/child": "a cbs's etf child: files and the bus only",
    "schedule/leaf_root": "the module gives an mqprio or taprio root; a single etf or cbs root is files' and the bus's",
}

# Nodes that are no key: a list's key standing for the index of the
# document's array.
NO_KEY = {
    "schedule/root/priority_map/priority": "root.priority_map's index",
    "schedule/root/priority_map/traffic_class": "root.priority_map's value at that index",
    "schedule/root/queues/traffic_class": "root.queues' index",
    "schedule/leave_mac_merge": "stops mac_merge's derivation (netconf/nc-preemption.c)",
}

problems = []
keys = set()
for path in sorted(glob.glob(os.path.join(src, "lib", "schedule-*.c")) +
                   glob.glob(os.path.join(src, "kinds", "*.c"))):
    rel = os.path.relpath(path, src)
    text = open(path, encoding="utf-8").read()
    for table in re.findall(r"(?:KeySpec|KindKey)\s+\w+\[\]\s*=\s*\{(.*?)\};", text, re.S):
        names = re.findall(r'\{\s*"([a-z0-9_]+)"\s*,', table)
        if not names:
            continue
        where = TABLES.get((rel, names[0]))
        if not where:
            problems.append(f"{rel}: the key table starting \"{names[0]}\" is not placed in "
                            f"tests/unit/check-yang-keys.py's TABLES")
            continue
        keys.update(f"{where}/{n}" for n in names)
if len(keys) < 40:
    sys.exit(f"found only {len(keys)} keys: has the KeySpec table form changed?")

# The module's data nodes under the augment's container schedule.
yang = open(os.path.join(src, "netconf", "tbsd.yang"), encoding="utf-8").read()
yang = re.sub(r'"(?:[^"\\]|\\.)*"', '""', yang)
nodes, stack = set(), []
for m in re.finditer(r"\b(container|list|leaf-list|leaf)\s+([A-Za-z0-9_-]+)\s*\{|\{|\}", yang):
    if m.group(0) == "}":
        stack.pop()
    elif m.group(1):
        stack.append(m.group(2).replace("-", "_"))
        names = [s for s in stack if s]
        if len(names) > 1 and names[0] == "schedule":
            nodes.add("/".join(names))
    else:
        stack.append(None)
if len(nodes) < 20:
    sys.exit(f"found only {len(nodes)} nodes under tbsd:schedule in netconf/tbsd.yang")


def listed(path, table):
    return any(path == p or path.startswith(p + "/") for p in table)


for k in sorted(keys - nodes):
    if not listed(k, NO_NODE):
        problems.append(f"netconf/tbsd.yang: the schedule key {k.replace('/', '.')} has no node "
                        f"(add it, or list it with the reason in NO_NODE)")
for n in sorted(nodes - keys):
    if not listed(n, NO_KEY):
        problems.append(f"netconf/tbsd.yang: the node {n.replace('_', '-')} is no key of the schedule")
for p in sorted(set(NO_NODE) & nodes):
    problems.append(f"tests/unit/check-yang-keys.py: NO_NODE lists {p}, which the module has")
for p in sorted(set(NO_NODE)):
    if not any(k == p or k.startswith(p + "/") for k in keys):
        problems.append(f"tests/unit/check-yang-keys.py: NO_NODE lists {p}, which is no key")
for p in sorted(set(NO_KEY) - nodes):
    problems.append(f"tests/unit/check-yang-keys.py: NO_KEY lists {p}, which the module does not have")
for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"{len(keys)} schedule keys, {len(nodes)} nodes of tbsd:schedule: each key has its node "
      f"or a reason ({len(NO_NODE)} listed), each node its key")

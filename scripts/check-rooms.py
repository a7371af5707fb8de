#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The rooms depend one way (docs/architecture.md, "Rooms").

Reads the #include "..." lines of every .c and .h of the rooms and, given a
build directory, the symbols of its objects (nm), and fails on
  - an include or a call from a floor to a higher one (FLOORS below),
  - a room's private header (*-internal.h) included from another folder,
  - a circle: headers that include each other round, or (with BUILD_DIR)
    objects that call each other round.

Usage: check-rooms.py SOURCE_DIR [BUILD_DIR]   (BUILD_DIR adds the calls)
       check-rooms.py --self-test SOURCE_DIR  (the check fails on a planted
                                               upward include and circle)
"""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

# The floors, lowest first: a file may include and call its own floor and the
# ones below. The first pattern that matches a file (relative to the source
# root) gives its floor.
FLOORS = [
    # The model's types and the helpers everything uses: lib/ but the
    # whole-schedule files of "schedule". A kind's spec header is model data
    # until each kind owns its spec (issue 50, point 1).
    ("model", ["kinds/*-spec.h"]),
    # One module per qdisc kind and their table.
    ("kinds", ["kinds/*"]),
    # etf's "monitor" key: a field reader that etf's module calls.
    ("model", ["lib/schedule-parse-monitor.*"]),
    # What reads, checks and writes a whole schedule by asking the kinds.
    ("schedule", ["lib/schedule-parse*", "lib/schedule-verify.*", "lib/schedule-json.*",
                  "lib/schedule-safety.*", "lib/schedule-streams.*", "lib/schedule-read.*",
                  "lib/schedule-dir.*", "lib/schedule-store.*", "lib/schedule-rights.*"]),
    ("model", ["lib/*"]),
    # The daemon's lower rooms: the qdisc engine, the device probe, the clock,
    # the broker's socket map and sockets, the bus plumbing.
    ("engine", ["daemon/qdisc/*", "daemon/probe/*"]),
    ("services", ["daemon/clock/*", "daemon/broker/txtime-map.*", "daemon/broker/txtime-socket.*",
                  "daemon/bus/*"]),
    # The D-Bus objects, over the Manager, beside what they serve.
    ("bus", ["daemon/link/link-bus.*", "daemon/manager/*-bus.*", "daemon/broker/txtime-bus.*"]),
    # One interface, then the set of them.
    ("link", ["daemon/link/*"]),
    ("manager", ["daemon/manager/*"]),
    # The programs and the other sides.
    ("top", ["daemon/tbsd*", "cli/*", "netconf/*", "libtbs/*"]),
]
ORDER = ["model", "kinds", "schedule", "engine", "services", "link", "manager", "bus", "top"]
ROOMS = ["lib", "kinds", "daemon", "daemon/qdisc", "daemon/probe", "daemon/clock", "daemon/broker",
         "daemon/link", "daemon/manager", "daemon/bus", "cli", "netconf", "libtbs"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floor_of(path):
    for name, patterns in FLOORS:
        if any(fnmatch.fnmatch(path, p) for p in patterns):
            return name
    return None


def read_sources(src):
    files = {}
    for room in ROOMS:
        d = os.path.join(src, room)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                with open(os.path.join(d, f), encoding="utf-8") as fh:
                    files[f"{room}/{f}"] = fh.read()
    return files


def resolve(files):
    """name -> path, for the includes by bare name (meson's include dirs)."""
    by_name = defaultdict(list)
    for f in files:
        by_name[os.path.basename(f)].append(f)
    return by_name


def object_calls(build, files):
    """(caller file, callee file, symbol) from nm on the build's objects."""
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as fh:
        commands = json.load(fh)
    objects = {}
    for c in commands:
        f = os.path.normpath(os.path.join(c["directory"], c["file"]))
        rel = os.path.relpath(f, os.path.realpath(SRC))
        if rel in files and rel not in objects:
            objects[rel] = os.path.join(c["directory"], c["output"])
    defined, undefined = defaultdict(set), {}
    for rel, obj in objects.items():
        if not os.path.exists(obj):
            sys.exit(f"check-rooms: {obj} is missing; build first")
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        undefined[rel] = set()
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBR":
                defined[p[2]].add(rel)
            elif len(p) == 2 and p[0] == "U":
                undefined[rel].add(p[1])
    calls = []
    for rel, syms in undefined.items():
        for s in syms:
            for target in defined.get(s, ()):
                if target != rel:
                    calls.append((rel, target, s))
    return calls


def check(src, build=None):
    files = read_sources(src)
    by_name = resolve(files)
    problems = []
    includes = defaultdict(set)   # file -> files it includes
    for f, text in files.items():
        if floor_of(f) is None:
            problems.append(f"{f}: in no floor of check-rooms.py")
        for name in INCLUDE.findall(text):
            cands = by_name.get(os.path.basename(name), [])
            if not cands:
                continue                    # a system or generated header
            if len(cands) > 1:
                problems.append(f"{f}: includes \"{name}\", which is ambiguous: {', '.join(cands)}")
                continue
            includes[f].add(cands[0])

    def rank(path):
        return ORDER.index(floor_of(path))

    for f, targets in includes.items():
        for t in sorted(targets):
            if floor_of(t) and floor_of(f) and rank(t) > rank(f):
                problems.append(f"{f} ({floor_of(f)}) includes {t} ({floor_of(t)}): against the direction")
            if t.endswith("-internal.h") and os.path.dirname(t) != os.path.dirname(f):
                problems.append(f"{f} includes {t}, the private header of {os.path.dirname(t)}/")

    # Circles: between headers through their includes, and between objects
    # through their calls (a header may serve several .c files of one
    # module, as qdisc-tree.h does qdisc-tree.c and qdisc-tree-stats.c, so
    # a .c including a header is no edge back by itself).
    edges = defaultdict(set)
    why = {}
    for f, targets in includes.items():
        if f.endswith(".h"):
            for t in targets:
                edges[f].add(t)
                why[(f, t)] = "includes it"
    if build:
        for caller, callee, sym in object_calls(build, files):
            if rank(callee) > rank(caller):
                problems.append(f"{caller} ({floor_of(caller)}) calls {sym}() of {callee} ({floor_of(callee)}): "
                                "against the direction")
            edges[caller].add(callee)
            why.setdefault((caller, callee), f"calls {sym}()")
    for circle in circles(edges):
        steps = [f"{a} {why[(a, b)]} of {b}" if why[(a, b)].startswith("calls") else f"{a} includes {b}"
                 for a, b in zip(circle, circle[1:] + circle[:1])]
        problems.append("circle: " + "; ".join(steps))
    return problems, len(files), sum(len(v) for v in edges.values())


def circles(edges):
    """One circle per strongly connected component of more than one module."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(set(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        # A shortest way back to the start, to name one circle of the component.
        start = min(comp)
        prev, todo = {start: None}, [start]
        found = None
        while todo and not found:
            nxt = []
            for v in todo:
                for w in sorted(edges[v] & comp):
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found:
                    break
            todo = nxt
        path = []
        v = found
        while v is not None:
            path.append(v)
            v = prev[v]
        out.append(path[::-1])
    return out


def self_test(src):
    """Plants an upward include and a circle in a copy of the tree; both must be found."""
    with tempfile.TemporaryDirectory() as tmp:
        for path, text in read_sources(src).items():
            os.makedirs(os.path.join(tmp, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(tmp, path), "w", encoding="utf-8") as fh:
                fh.write(text)
        problems = check(tmp)[0]
        if problems:
            print("\n".join(problems))
            sys.exit("self-test: the tree itself does not pass")
        with open(os.path.join(tmp, "lib/utf8.c"), "a", encoding="utf-8") as fh:
            fh.write('#include "manager.h"\n')
        problems = check(tmp)[0]
        if not any("lib/utf8.c (model) includes daemon/manager/manager.h (manager)" in p for p in problems):
            sys.exit("self-test: an upward include was not reported: " + repr(problems))
        print("ok: an upward include fails:", problems[0])
        with open(os.path.join(tmp, "lib/utf8.h"), "a", encoding="utf-8") as fh:
            fh.write('#include "log.h"\n')
        with open(os.path.join(tmp, "lib/log.h"), "a", encoding="utf-8") as fh:
            fh.write('#include "utf8.h"\n')
        problems = check(tmp)[0]
        if not any(p.startswith("circle: lib/log.h includes lib/") for p in problems):
            sys.exit("self-test: a circle was not reported: " + repr(problems))
        print("ok: a circle fails:", [p for p in problems if p.startswith("circle")][0])


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--self-test":
        SRC = args[1]
        self_test(SRC)
        sys.exit(0)
    if not 1 <= len(args) <= 2:
        sys.exit(__doc__)
    SRC = args[0]
    found, n_files, n_edges = check(SRC, args[1] if len(args) > 1 else None)
    for p in found:
        print(p)
    what = "includes and calls" if len(args) > 1 else "includes"
    print(f"check-rooms: {n_files} files, {n_edges} edges ({what}), {len(found)} problem(s)")
    sys.exit(1 if found else 0)

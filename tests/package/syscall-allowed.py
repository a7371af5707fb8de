#!/usr/bin/env python3
"""Print the system calls a unit's SystemCallFilter= lines allow, one a
line: the lines are applied in order as systemd does for an allow list
(the first names what is allowed, "~" lines remove, later plain lines add),
with every @group expanded through `systemd-analyze syscall-filter`.
Usage: syscall-allowed.py UNIT-FILE"""
import subprocess
import sys

cache = {}


def expand(name, seen=None):
    if not name.startswith("@"):
        return {name}
    if name in cache:
        return cache[name]
    seen = seen or set()
    if name in seen:
        return set()
    seen.add(name)
    out = subprocess.run(["systemd-analyze", "syscall-filter", name], check=True,
                         capture_output=True, text=True).stdout
    result = set()
    for line in out.splitlines()[1:]:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        result |= expand(line, seen)
    cache[name] = result
    return result


allowed = None
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("SystemCallFilter="):
        continue
    value = line.split("=", 1)[1].strip()
    deny = value.startswith("~")
    names = set()
    for item in value.lstrip("~").split():
        names |= expand(item)
    if allowed is None:
        if deny:
            sys.exit("syscall-allowed.py: a deny list first is not an allow list")
        allowed = names
    elif deny:
        allowed -= names
    else:
        allowed |= names
if allowed is None:
    sys.exit("syscall-allowed.py: no SystemCallFilter= in " + sys.argv[1])
print("\n".join(sorted(allowed)))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/support.md's table "Features by kernel" agrees with the test list.

The table has a row per feature and a column per kernel; each cell names
the tests that show the feature on that kernel in backticks. Checked
against the build tree's test list (meson-info/intro-tests.json):
- every test a cell names exists, in the kernel's suite: kernel-NAME
  (suite kernel) under Linux 6.1, kernel612-NAME (suite kernel612) under
  Linux 6.12; nic-NAME (suite nic, Linux 6.1) in the 6.1 column unless it
  ends in -612, nic612-NAME (suite nic612) in the 6.12 column;
- a row names the same scripts on both kernels (kernel-X with kernel612-X,
  nic-X with nic612-X; a nic-NAME-612 has no 6.1 twin);
- every test of the suites kernel, kernel612, nic and nic612 is in some row.
Tests the tree does not register (--absent NAME, e.g. valgrind-tbsd in a
sanitizer tree) are left out of both sides.

Usage: check-support.py SOURCE_DIR BUILD_DIR [--absent NAME]..."""
import json
import os
import re
import sys

src, build = sys.argv[1], sys.argv[2]
absent = set()
args = sys.argv[3:]
while args:
    if args[0] != "--absent" or len(args) < 2:
        sys.exit(__doc__)
    absent.add(args[1])
    args = args[2:]

tests = {}
for t in json.load(open(os.path.join(build, "meson-info", "intro-tests.json"), encoding="utf-8")):
    tests[t["name"]] = {s.split(":")[-1] for s in t["suite"]}

doc_path = os.path.join(src, "docs", "support.md")
doc = open(doc_path, encoding="utf-8").read()
m = re.search(r"^## Features by kernel\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
if not m:
    sys.exit(f"{doc_path}: no section '## Features by kernel'")
rows = [line for line in m.group(1).splitlines() if line.startswith("|")]
if len(rows) < 3 or [c.strip() for c in rows[0].strip("|").split("|")] != ["feature", "Linux 6.1", "Linux 6.12"]:
    sys.exit(f"{doc_path}: the table's header must be | feature | Linux 6.1 | Linux 6.12 |")

errors = []
named = set()
columns = (("Linux 6.1", "kernel-", "kernel"), ("Linux 6.12", "kernel612-", "kernel612"))
for row in rows[2:]:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 3:
        errors.append(f"row '{row}': {len(cells)} cells, not 3")
        continue
    feature = cells[0]
    scripts = []
    nic_scripts = []
    for (title, prefix, suite), cell in zip(columns, cells[1:]):
        names = re.findall(r"`([a-z0-9-]+)`", cell)
        mine = set()
        mine_nic = set()
        nic_prefix = "nic-" if suite == "kernel" else "nic612-"
        for name in names:
            if name.startswith("nic-") and name.endswith("-612"):
                if suite != "kernel612":
                    errors.append(f"{feature}: {name} is not a {title} test")
            elif name.startswith("nic-") or name.startswith("nic612-"):
                if not name.startswith(nic_prefix):
                    errors.append(f"{feature}: {name} in the {title} column (its nic tests are {nic_prefix}NAME)")
                    continue
                mine_nic.add(name[len(nic_prefix):])
            elif not name.startswith(prefix):
                errors.append(f"{feature}: {name} in the {title} column (its tests are {prefix}NAME)")
                continue
            else:
                mine.add(name[len(prefix):])
            named.add(name)
            if name.split("-", 1)[1] in absent:
                continue
            if name not in tests:
                errors.append(f"{feature}: {name} is no test")
            elif not name.startswith("nic") and suite not in tests[name]:
                errors.append(f"{feature}: {name} is not in suite {suite}")
        scripts.append(mine)
        nic_scripts.append(mine_nic)
    if nic_scripts[0] != nic_scripts[1]:
        errors.append(f"{feature}: the kernels' nic cells differ: only on 6.1 {sorted(nic_scripts[0] - nic_scripts[1])}, "
                      f"only on 6.12 {sorted(nic_scripts[1] - nic_scripts[0])}")
    if scripts[0] != scripts[1]:
        errors.append(f"{feature}: the kernels' cells differ: only on 6.1 {sorted(scripts[0] - scripts[1])}, "
                      f"only on 6.12 {sorted(scripts[1] - scripts[0])}")

for name, suites in sorted(tests.items()):
    if suites & {"kernel", "kernel612", "nic", "nic612"} and name not in named:
        errors.append(f"{name} (suite {', '.join(sorted(suites))}) is in no row of the table")

if errors:
    print(f"{doc_path} disagrees with the test list:", file=sys.stderr)
    for e in errors:
        print(f"  {e}", file=sys.stderr)
    sys.exit(1)
print(f"ok: {len(rows) - 2} features, {len(named)} tests named, every kernel, kernel612, nic and nic612 test in a row")

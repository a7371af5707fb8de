#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""README.md's quick start says what the demos show, and the demo tests check it.

tests/kernel/demo-claims.txt lists each claim of scripts/demo and
scripts/demo --netconf: the command, an ID and the README's words. This
holds three sides against that list:
- README.md's quick-start comment of each command (its `# ...` lines, joined)
  says every claim's words;
- the kernel test that checks a command's claims (a tests/kernel/test-*.sh
  with `claim() { demo_claim COMMAND "$1"; }`, registered in
  tests/kernel/meson.build) calls `claim ID` for exactly that command's IDs
  (and demo_claims_all fails the test when one is not reached);
- a count of tests the README names ("N tests") is `meson test --list`'s.

Usage: check-demo-claims.py SOURCE_DIR BUILD_DIR"""
import glob
import os
import re
import subprocess
import sys

src, build = sys.argv[1], sys.argv[2]
errors = []

claims = {}  # command -> {id: words}
for n, line in enumerate(open(os.path.join(src, "tests/kernel/demo-claims.txt"), encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    parts = line.split("\t")
    if len(parts) != 3 or not all(parts):
        sys.exit(f"tests/kernel/demo-claims.txt:{n}: not COMMAND<tab>ID<tab>WORDS: {line!r}")
    claims.setdefault(parts[0], {})[parts[1]] = parts[2]
if "scripts/demo" not in claims:
    sys.exit("tests/kernel/demo-claims.txt: no claim of scripts/demo")

readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
m = re.search(r"^## Quick start\n(.*?)^## ", readme, re.S | re.M)
if not m:
    sys.exit("README.md: no '## Quick start' section")
quick = m.group(1)

# The comment of each command of the quick start's code block: the text after
# '#' on its line and on the comment-only lines under it.
comments = {}
current = None
for line in quick.splitlines():
    cmd = re.match(r"^    (\S[^#]*?)\s+#\s?(.*)$", line)
    more = re.match(r"^\s+#\s?(.*)$", line)
    if cmd:
        current = cmd.group(1)
        comments[current] = cmd.group(2)
    elif more and current:
        comments[current] += " " + more.group(1)
    else:
        current = None
comments = {c: " ".join(t.split()) for c, t in comments.items()}

for command, ids in sorted(claims.items()):
    if command not in comments:
        errors.append(f"README.md: the quick start has no commented `{command}`")
        continue
    for cid, words in ids.items():
        if " ".join(words.split()) in comments[command]:
            print(f"ok: README says of {command}: {words}")
        else:
            errors.append(f"README.md: the quick-start comment of `{command}` does not say claim {cid}: "
                          f"{words!r} (it says: {comments[command]!r})")

# The tests: which command each one checks, and the IDs it checks.
registered = open(os.path.join(src, "tests/kernel/meson.build"), encoding="utf-8").read()
tested = {}
for path in sorted(glob.glob(os.path.join(src, "tests/kernel/test-*.sh"))):
    text = open(path, encoding="utf-8").read()
    w = re.search(r'^claim\(\) \{ demo_claim "?([^"$]+?)"? "\$1"; \}$', text, re.M)
    if not w:
        continue
    name = os.path.basename(path)
    command = w.group(1)
    if f"'{name}'" not in registered:
        errors.append(f"tests/kernel/{name} checks {command} but is not in tests/kernel/meson.build")
    ids = set(re.findall(r"^\s*claim ([a-z0-9-]+)\s*$", text, re.M))
    tested.setdefault(command, set()).update(ids)
    if "demo_claims_all" not in text:
        errors.append(f"tests/kernel/{name}: no demo_claims_all {command}")
for command, ids in sorted(claims.items()):
    got = tested.get(command, set())
    for cid in sorted(set(ids) - got):
        errors.append(f"claim {cid} of {command}: no kernel test calls `claim {cid}`")
    for cid in sorted(got - set(ids)):
        errors.append(f"a kernel test checks claim {cid} of {command}, which demo-claims.txt does not list")
    if set(ids) <= got:
        print(f"ok: every claim of {command} is checked by a kernel test")
for command in sorted(set(tested) - set(claims)):
    errors.append(f"a kernel test checks claims of {command}, which demo-claims.txt does not list")

# A count of tests in the README is the test list's.
counts = re.findall(r"\b(\d[\d,]*) tests\b", readme)
if counts:
    out = subprocess.run(["meson", "test", "-C", build, "--no-rebuild", "--list"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        errors.append(f"meson test --list failed: {out.stderr.strip()}")
    else:
        n = len([l for l in out.stdout.splitlines() if l.strip()])
        for c in counts:
            if int(c.replace(",", "")) != n:
                errors.append(f"README.md names {c} tests; meson test --list has {n}")
            else:
                print(f"ok: README's {c} tests = meson test --list")
else:
    print("ok: README.md names no count of tests")

for e in errors:
    print(e)
sys.exit(1 if errors else 0)

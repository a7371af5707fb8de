#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every key the schedule parser accepts is documented in tbsd.schedule(5).

The parser's keys are read from its KeySpec tables in lib/schedule-*.c and
the kinds' KindKey tables in kinds/*.c (the tables check_keys() refuses
unknown keys with, so a key added there
without a man page entry fails this test); a key is documented when the
page defines it as a term: a line `.BR KEY " (TYPE...)"` (or
`.BR KEY1 ", " KEY2 " (TYPES)"`).

Usage: check-man-keys.py SOURCE_DIR"""
import glob
import os
import re
import sys

src = sys.argv[1]
parser_keys = set()
for path in sorted(glob.glob(os.path.join(src, "lib", "schedule-*.c")) +
                   glob.glob(os.path.join(src, "kinds", "*.c"))):
    text = open(path, encoding="utf-8").read()
    # static const KeySpec keys[] = { { "name", K_ANY }, ... }; (KindKey: { "name", false })
    for table in re.findall(r"(?:KeySpec|KindKey)\s+\w+\[\]\s*=\s*\{(.*?)\};", text, re.S):
        parser_keys.update(re.findall(r'\{\s*"([a-z0-9_]+)"\s*,', table))
if len(parser_keys) < 20:
    sys.exit(f"found only {len(parser_keys)} keys in lib/schedule-*.c and kinds/*.c: has the KeySpec table form changed?")

page = open(os.path.join(src, "man", "tbsd.schedule.5"), encoding="utf-8").read()
documented = set()
# `.BR KEY " (TYPE...)"`, or several keys: `.BR KEY1 ", " KEY2 " (TYPE...)"`
for terms in re.findall(r'^\.BR\s+(.*?)"\s*\(', page, re.M):
    names = re.findall(r'(?:^|"\s*,\s*"\s*)([a-z0-9_]+)', terms)
    if names and re.fullmatch(r'[a-z0-9_]+(\s*",\s*"\s*[a-z0-9_]+)*\s*', terms):
        documented.update(names)

missing = sorted(parser_keys - documented)
unknown = sorted(documented - parser_keys)
for k in missing:
    print(f"man/tbsd.schedule.5: key \"{k}\" is accepted by the parser but not documented "
          f"(add a .TP/.BR {k} \" (type, default)\" entry)")
for k in unknown:
    print(f"man/tbsd.schedule.5: documents \"{k}\", which the parser does not accept")
if missing or unknown:
    sys.exit(1)
print(f"{len(parser_keys)} parser keys, all documented in tbsd.schedule(5)")

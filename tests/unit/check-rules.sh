#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-rules.sh RULES TESTS METRICS_RENDER DOC.json...: the alert rules
# pass `promtool check rules`, behave as tests/unit/tbsd.rules.test.yml
# says (`promtool test rules`), and name only series lib/metrics.c exports
# (the families of METRICS_RENDER's output on the documents), which passes
# `promtool check metrics`.
# promtool comes with Debian's prometheus package (scripts/deps.sh).
set -euo pipefail
rules=$1 tests=$2 render=$3
shift 3
command -v promtool >/dev/null || { echo "promtool not found: apt-get install prometheus" >&2; exit 1; }
promtool check rules "$rules"
# promtool resolves rule_files from the test file's folder: run it on a
# copy that names the rules file given.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s|^  - .*tbsd\.rules\.yml\$|  - $(realpath "$rules")|" "$tests" > "$tmp/test.yml"
grep -q "$(realpath "$rules")" "$tmp/test.yml" || { echo "$tests: no rule_files entry for tbsd.rules.yml" >&2; exit 1; }
promtool test rules "$tmp/test.yml"
exported=$("$(dirname "$0")/check-metrics.py" --families --render "$render" "$@")
# promtool's own lint of the exposition the rules read.
"$render" "$@" | promtool check metrics
bad=0
for name in $(grep -o '\btbs_[a-z][a-z0-9_]*' "$rules" | sort -u); do
        grep -qx "$name" <<<"$exported" || { echo "$rules: $name is not an exported metric" >&2; bad=1; }
done
[ "$bad" = 0 ]
echo "ok: the rules name only exported series"

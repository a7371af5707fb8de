#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-recorded-alerts.sh RULES PHASE_DIR...: `promtool test rules` of
# RULES over metrics files recorded from tbsd (tests/unit/fixtures/alerts/,
# recorded by kernel-daemon-alerts, which checks the same against a live
# daemon): in each phase exactly the alerts of its "expect" file fire
# (tests/unit/recorded-alert-tests.py says how the series are made).
# To record them again: tests/kernel/uml-run --keep tests/kernel/test-daemon-alerts.sh
# and copy the kept alerts/ folder here.
set -euo pipefail
rules=$1
shift
command -v promtool >/dev/null || { echo "promtool not found: apt-get install prometheus" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$(dirname "$0")/recorded-alert-tests.py" "$rules" "$tmp/recorded.yml" "$@"
promtool test rules "$tmp/recorded.yml"

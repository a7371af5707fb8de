#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The host's side of bench/bounds.sh's "cost" phase: the same tbsctl, on
# this machine instead of in the guest, starting (`tbsctl --version`) and
# validating bench/streams-doc.py's document (`tbsctl validate`: only
# user-space work, no kernel and no daemon). The ratio of the two
# measurements is what the guest's emulation costs the same code.
#
#   TBS_BUILD_DIR=$PWD/build-bench bench/emulation-cost.sh [ROUNDS]
#
# One line per measurement: "R NAME MS" (each of ten runs in a row).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${TBS_BUILD_DIR:-$src/build}
rounds=${1:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$src/bench/streams-doc.py" > "$work/streams.json"
now_ms() { local t=$EPOCHREALTIME; echo $(( ${t/./} / 1000 )); }
ten() { for k in 1 2 3 4 5 6 7 8 9 10; do "$@" >/dev/null 2>&1 || true; done; }  # validate: refused after the work
timed() {
        local name=$1 s e
        shift
        s=$(now_ms)
        "$@"
        e=$(now_ms)
        echo "R $name $(( e - s ))"
}
for ((r = 0; r < rounds; r++)); do timed host_start_x10 ten "$build/cli/tbsctl" --version; done
for ((r = 0; r < rounds; r++)); do timed host_validate_x10 ten "$build/cli/tbsctl" validate "$work/streams.json"; done

#!/bin/bash
# tbsctl and tbsd --check under valgrind: no invalid read or write, no use of
# uninitialised memory, no definite or indirect leak, on the good paths and
# the error paths (invalid file, missing file, no bus, usage error).
# Usage: valgrind-tbsctl.sh VALGRIND TBSCTL TBSD SOURCE_DIR
set -u
valgrind=$1 tbsctl=$2 tbsd=$3 src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 n=0

# vg NAME EXPECTED_EXIT CMD...: run CMD under valgrind; its exit status must
# be EXPECTED_EXIT and valgrind must report nothing.
vg() {
        local name=$1 want=$2 rc log
        shift 2
        n=$((n + 1))
        log=$tmp/vg.$n
        "$valgrind" -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
                --errors-for-leak-kinds=definite,indirect --track-origins=yes \
                --log-file="$log" "$@" >"$tmp/out.$n" 2>"$tmp/err.$n"
        rc=$?
        if [ -s "$log" ]; then
                echo "FAIL: $name: valgrind reports:"
                cat "$log"
                failures=$((failures + 1))
        elif [ "$rc" != "$want" ]; then
                echo "FAIL: $name: exit $rc, expected $want"
                cat "$tmp/err.$n"
                failures=$((failures + 1))
        else
                echo "ok: $name"
        fi
}

mkdir -p "$tmp/conf"
cp "$src/examples/veth-software.json" "$tmp/conf/veth0.json"
printf '{"interface": "eth0", "root": {"qdisc": "cbs"}, "txqueues": [5]}' > "$tmp/bad.json"

vg "tbsctl --help" 0 "$tbsctl" --help
vg "tbsctl --version" 0 "$tbsctl" --version
vg "tbsctl validate examples" 0 "$tbsctl" validate "$src"/examples/*.json
vg "tbsctl --json validate examples" 0 "$tbsctl" --json validate "$src"/examples/*.json
vg "tbsctl validate invalid file" 1 "$tbsctl" validate "$tmp/bad.json"
vg "tbsctl --json validate invalid and missing" 1 "$tbsctl" --json validate "$tmp/bad.json" "$tmp/missing.json"
vg "tbsctl usage error" 2 "$tbsctl" no-such-verb
DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/no-bus vg "tbsctl status without a bus" 3 "$tbsctl" status
vg "tbsd --help" 0 "$tbsd" --help
vg "tbsd --check" 0 "$tbsd" --check --config-dir "$tmp/conf"
cp "$tmp/bad.json" "$tmp/conf/eth0.json"
vg "tbsd --check with an invalid file" 1 "$tbsd" --check --config-dir "$tmp/conf"

echo "$n runs, $failures failed"
[ "$failures" -eq 0 ]

#!/bin/bash
# tbsctl validate and tbsd --check as programs: exit codes, the exact lines on
# stderr, and the --json document (read back with jq).
# Usage: test-validate-cli.sh TBSCTL TBSD SOURCE_DIR
set -u
tbsctl=$1 tbsd=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
        echo "FAIL: $*"
        failures=$((failures + 1))
}

expect_eq() { # NAME GOT EXPECTED
        if [ "$2" != "$3" ]; then
                fail "$1"
                echo "  expected: $3"
                echo "  got:      $2"
        fi
}

# 1. The examples are valid (the issue's "done when").
out=$("$tbsctl" validate "$src"/examples/*.json 2>"$tmp/err"); rc=$?
expect_eq "validate examples: exit code" "$rc" 0
expect_eq "validate examples: stderr" "$(cat "$tmp/err")" ""
expect_eq "validate examples: stdout" "$out" \
"$src/examples/enetc-taprio-fp.json: valid schedule for eno0
$src/examples/i210-mqprio-cbs-etf.json: valid schedule for enp5s0
$src/examples/i210-mqprio-cbs.json: valid schedule for enp3s0
$src/examples/i210-mqprio-launchtime.json: valid schedule for enp1s0
$src/examples/i210-taprio-txtime-assist.json: valid schedule for enp4s0
$src/examples/i225-taprio-txtime-assist.json: valid schedule for enp2s0
$src/examples/single-queue-etf.json: valid schedule for end0
$src/examples/veth-software.json: valid schedule for veth0
$src/examples/veth-streams.json: valid schedule for veth1
$src/examples/veth-taprio-short-gates.json: valid schedule for veth-gate"

# 2. A bad file: exit 1, one exact line per problem on stderr.
cat >"$tmp/eth0.json" <<'JSON'
{"interface": "eth0",
 "root": {"qdisc": "mqprio", "num_tc": 1, "priority_map": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],
          "queues": [{"count": 2, "offset": 0}]},
 "txqueues": [{"queue": 0, "delta_ns": 1}, {"queue": 1, "delta_ns": -5, "offlaod": true}]}
JSON
"$tbsctl" validate "$tmp/eth0.json" "$src/examples/veth-software.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "validate bad: exit code" "$rc" 1
expect_eq "validate bad: stderr" "$(cat "$tmp/err")" \
"$tmp/eth0.json: txqueues[1].offlaod: unknown key; known keys: queue, qdisc, clockid, delta_ns, offload, deadline_mode, skip_sock_check, monitor, stab
$tmp/eth0.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -5"
expect_eq "validate bad: stdout" "$(cat "$tmp/out")" "$src/examples/veth-software.json: valid schedule for veth0"

# 3. --json: one object per file.
"$tbsctl" --json validate "$tmp/eth0.json" "$src/examples/veth-software.json" /nonexistent.json >"$tmp/json"; rc=$?
expect_eq "validate --json: exit code" "$rc" 1
expect_eq "validate --json: summary" \
        "$(jq -c '[.[] | [.file, .valid, .interface, (.errors | length), (.warnings | length)]]' "$tmp/json")" \
        "[[\"$tmp/eth0.json\",false,\"eth0\",2,0],[\"$src/examples/veth-software.json\",true,\"veth0\",0,0],[\"/nonexistent.json\",false,null,1,0]]"
expect_eq "validate --json: error line" "$(jq -r '.[0].errors[1]' "$tmp/json")" \
        "$tmp/eth0.json: txqueues[1].delta_ns: must be between 0 and 2147483647, got -5"
expect_eq "validate --json: missing file" "$(jq -r '.[2].errors[0]' "$tmp/json")" \
        "/nonexistent.json: cannot open: No such file or directory"
# ... and each problem as an object of its parts, errors and warnings in
# one list (the lines above stay as they were: a key added, none changed).
expect_eq "validate --json: diagnostics" "$(jq -c '[.[] | .diagnostics]' "$tmp/json")" \
        "[[{\"file\":\"$tmp/eth0.json\",\"path\":\"txqueues[1].offlaod\",\"reason\":\"unknown key; known keys: queue, qdisc, clockid, delta_ns, offload, deadline_mode, skip_sock_check, monitor, stab\",\"severity\":\"error\"},\
{\"file\":\"$tmp/eth0.json\",\"path\":\"txqueues[1].delta_ns\",\"reason\":\"must be between 0 and 2147483647, got -5\",\"severity\":\"error\"}],\
[],\
[{\"file\":\"/nonexistent.json\",\"path\":null,\"reason\":\"cannot open: No such file or directory\",\"severity\":\"error\"}]]"

# 4. A warning alone is not a failure.
jq '.txqueues[0].skip_sock_check = false' "$src/examples/i225-taprio-txtime-assist.json" >"$tmp/warn.json"
"$tbsctl" --json validate "$tmp/warn.json" >"$tmp/json"; rc=$?
expect_eq "validate warning: exit code" "$rc" 0
expect_eq "validate warning: warnings" "$(jq -r '.[0].valid, (.[0].warnings | length)' "$tmp/json" | tr '\n' ' ')" "true 1 "
expect_eq "validate warning: diagnostics" "$(jq -r '.[0].diagnostics[] | [.file, .path, .severity] | join(" ")' "$tmp/json")" \
        "$tmp/warn.json txqueues[0].skip_sock_check warning"

# 5. tbsd --check on the examples folder, and on one with two files for eth0
# (--no-probe: the files alone, whatever interfaces this machine has; 6.
# checks them against the machine).
"$tbsd" --check --no-probe --config-dir "$src/examples" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check examples: exit code" "$rc" 0
expect_eq "check examples: stderr" "$(cat "$tmp/err")" ""
# ... and prints the cycle of the file with streams (the software mode's
# 100 us shortest entry makes every window and guard band 100 us).
timeline="veth1: cycle 2000000 ns at 1000 Mbit/s, guard band 100000 ns, streams' windows 15.0 % of the cycle
  stream axis-ctrl: class 0, every 1000000 ns at 0 ns (given), window 100000 ns, from the file
  stream vision: class 1, every 2000000 ns at 100000 ns (placed), window 100000 ns, from the file
      START_NS    LENGTH_NS GATES  CLASSES    STREAMS
             0       100000 0x1    0          axis-ctrl
        100000       100000 0x2    1          vision
        200000       700000 0x4    2          (best effort)
        900000       100000 0x0    -          (guard band)
       1000000       100000 0x1    0          axis-ctrl
       1100000       800000 0x4    2          (best effort)
       1900000       100000 0x0    -          (guard band)"
expect_eq "check examples: stdout" "$(cat "$tmp/out")" "$timeline
$src/examples: 10 schedule files, 0 errors, 0 warnings"

# 5b. tbsctl schedule FILE: the same timeline, and as JSON.
out=$("$tbsctl" schedule "$src/examples/veth-streams.json" 2>"$tmp/err"); rc=$?
expect_eq "schedule: exit code" "$rc" 0
expect_eq "schedule: stderr" "$(cat "$tmp/err")" ""
expect_eq "schedule: stdout" "$out" "$timeline"
out=$("$tbsctl" --json schedule "$src/examples/veth-streams.json" |
      jq -c '[.cycle_ns, ([.entries[].interval_ns] | add), [.streams[] | [.name, .offset_ns, .window_ns]],
              [.entries[] | [.start_ns, .gate_mask, .kind, .streams]][0:4]]')
expect_eq "schedule --json" "$out" \
        '[2000000,2000000,[["axis-ctrl",0,100000],["vision",100000,100000]],[[0,"0x1","window",["axis-ctrl"]],[100000,"0x2","window",["vision"]],[200000,"0x4","best-effort",[]],[900000,"0x0","guard",[]]]]'
"$tbsctl" schedule "$src/examples/veth-software.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "schedule of entries: exit code" "$rc" 1
expect_eq "schedule of entries: stderr" "$(cat "$tmp/err")" \
        "tbsctl: $src/examples/veth-software.json: the schedule gives its entries itself, not streams (tbsctl status shows them)"
# 400 frames of 1500 bytes: 1524 * 400 * 8 ns = 4876800 ns, plus two 100 us
# windows of axis-ctrl, in 2 ms: 253.8 %.
sed 's/"frames_per_period": 4/"frames_per_period": 400/' "$src/examples/veth-streams.json" >"$tmp/over.json"
"$tbsctl" schedule "$tmp/over.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "schedule over 100 %: exit code" "$rc" 1
expect_eq "schedule over 100 %: stderr" "$(cat "$tmp/err")" \
        "tbsctl: $tmp/over.json: root.streams: the streams' windows take 253.8 % of the cycle of 2000000 ns (above 100 % at 1000 Mbit/s)"
# tbsctl schedule IFACE reads the folder of the running tbsd; with none
# (here not even a system bus), the compiled-in folder, and says so.
DBUS_SYSTEM_BUS_ADDRESS="unix:path=$tmp/no-bus" "$tbsctl" schedule veth1 >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "schedule IFACE without tbsd: exit code" "$rc" 1
case "$(head -n1 "$tmp/err")" in
"tbsctl: tbsd is not reachable (no system bus: No such file or directory): reading the compiled-in folder /"*) ;;
*) fail "schedule IFACE without tbsd: no note of the folder read: $(cat "$tmp/err")" ;;
esac
mkdir "$tmp/conf"
cp "$src/examples/veth-software.json" "$tmp/conf/a.json"
cp "$src/examples/veth-software.json" "$tmp/conf/b.json"
cp "$src/examples/i210-mqprio-launchtime.json" "$tmp/conf/c.json"
echo "ignored" >"$tmp/conf/README"
before=$(ls -la --time-style=full-iso "$tmp/conf")
"$tbsd" --check --no-probe --config-dir "$tmp/conf" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check duplicates: exit code" "$rc" 1
expect_eq "check duplicates: stderr" "$(cat "$tmp/err")" \
"$tmp/conf/a.json: interface: interface \"veth0\" is configured by 2 files ($tmp/conf/a.json, $tmp/conf/b.json); each interface must have exactly one schedule file"
expect_eq "check duplicates: stdout" "$(cat "$tmp/out")" "$tmp/conf: 3 schedule files, 1 error, 0 warnings"
expect_eq "check touches nothing" "$(ls -la --time-style=full-iso "$tmp/conf")" "$before"
# Seven files for one interface and two for another: one line per
# interface, naming its files (not one per pair of files, from both sides).
for f in d e f g h; do cp "$src/examples/veth-software.json" "$tmp/conf/$f.json"; done
cp "$src/examples/veth-streams.json" "$tmp/conf/i.json"
cp "$src/examples/veth-streams.json" "$tmp/conf/j.json"
"$tbsd" --check --no-probe --config-dir "$tmp/conf" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check 7 + 2 duplicates: exit code" "$rc" 1
expect_eq "check 7 + 2 duplicates: stderr" "$(cat "$tmp/err")" \
"$tmp/conf/a.json: interface: interface \"veth0\" is configured by 7 files ($tmp/conf/a.json, $tmp/conf/b.json, \
$tmp/conf/d.json, $tmp/conf/e.json, $tmp/conf/f.json, $tmp/conf/g.json, $tmp/conf/h.json); each interface must have exactly one schedule file
$tmp/conf/i.json: interface: interface \"veth1\" is configured by 2 files ($tmp/conf/i.json, $tmp/conf/j.json); each interface must have exactly one schedule file"
expect_eq "check 7 + 2 duplicates: stdout" "$(cat "$tmp/out")" "$tmp/conf: 10 schedule files, 2 errors, 0 warnings"
rm "$tmp/conf/"[d-j].json
"$tbsd" --check --config-dir "$tmp/missing" >/dev/null 2>"$tmp/err"; rc=$?
expect_eq "check missing folder: exit code" "$rc" 1
grep -q "cannot read the schedules folder" "$tmp/err" || fail "check missing folder: message"

# 6. Against this machine's devices. Every Linux machine (and network
# namespace) has "lo", with one TX queue; no machine has "tbsnosuch0".
mkdir "$tmp/dev"
cat >"$tmp/dev/lo.json" <<'JSON'
{"interface": "lo",
 "root": {"qdisc": "mqprio", "num_tc": 2, "priority_map": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0],
          "queues": [{"count": 1, "offset": 0}, {"count": 3, "offset": 1}]},
 "txqueues": [{"queue": 0, "delta_ns": 300000}]}
JSON
sed 's/"lo"/"tbsnosuch0"/' "$tmp/dev/lo.json" >"$tmp/dev/nosuch.json"
lo_error="$tmp/dev/lo.json: root.queues[1]: uses queues 1-3, but the device has 1 TX queue"
nosuch_warning="$tmp/dev/nosuch.json: interface: warning: interface tbsnosuch0 does not exist on this machine; \
the device checks (TX queues, launch-time offload) were skipped (tbsd waits for it and makes them when it appears)"
"$tbsd" --check --config-dir "$tmp/dev" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check devices: exit code" "$rc" 1
expect_eq "check devices: stderr" "$(cat "$tmp/err")" "$lo_error
$nosuch_warning"
expect_eq "check devices: stdout" "$(cat "$tmp/out")" "$tmp/dev: 2 schedule files, 1 error, 1 warning"
"$tbsd" --check --no-probe --config-dir "$tmp/dev" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check --no-probe: exit code" "$rc" 0
expect_eq "check --no-probe: stderr" "$(cat "$tmp/err")" ""
rm "$tmp/dev/lo.json"
"$tbsd" --check --config-dir "$tmp/dev" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "check missing interface: exit code (a warning)" "$rc" 0
expect_eq "check missing interface: stderr" "$(cat "$tmp/err")" "$nosuch_warning"
"$tbsd" --no-probe >/dev/null 2>"$tmp/err"; rc=$?
expect_eq "--no-probe without --check: exit code" "$rc" 2
expect_eq "--no-probe without --check: message" "$(cat "$tmp/err")" \
        "tbsd: --no-probe is only for --check; see 'tbsd --help'"

# tbsctl validate: without --device the file alone; --device=lo against lo,
# --device=. against each file's own interface.
sed 's/"tbsnosuch0"/"lo"/' "$tmp/dev/nosuch.json" >"$tmp/dev/lo.json"
out=$("$tbsctl" validate "$tmp/dev/lo.json" 2>"$tmp/err"); rc=$?
expect_eq "validate without --device: exit code" "$rc" 0
expect_eq "validate without --device: stdout" "$out" "$tmp/dev/lo.json: valid schedule for lo"
for dev in lo .; do
        "$tbsctl" validate --device "$dev" "$tmp/dev/lo.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
        expect_eq "validate --device $dev: exit code" "$rc" 1
        expect_eq "validate --device $dev: stderr" "$(cat "$tmp/err")" "$lo_error"
        expect_eq "validate --device $dev: stdout" "$(cat "$tmp/out")" ""
done
# One queue for everything: PTP shares the etf queue, which the file allows.
jq '.root.num_tc = 1 | .root.priority_map = [range(16) | 0] | .root.queues = [{"count": 1, "offset": 0}] |
    .allow = ["ptp-etf"]' \
        "$tmp/dev/lo.json" >"$tmp/fit.json"
out=$("$tbsctl" validate --device lo "$tmp/fit.json" 2>"$tmp/err"); rc=$?
expect_eq "validate --device, a file that fits: exit code" "$rc" 0
expect_eq "validate --device, a file that fits: stderr" "$(cat "$tmp/err")" ""
expect_eq "validate --device, a file that fits: stdout" "$out" "$tmp/fit.json: valid schedule for lo, checked against lo of this machine"
"$tbsctl" validate --device=tbsnosuch0 "$tmp/dev/lo.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "validate --device missing: exit code" "$rc" 0
expect_eq "validate --device missing: stderr" "$(cat "$tmp/err")" \
        "$tmp/dev/lo.json: warning: interface tbsnosuch0 does not exist on this machine; \
the device checks (TX queues, launch-time offload) were skipped"
"$tbsctl" --json validate --device=. "$tmp/dev/lo.json" "$tmp/dev/nosuch.json" >"$tmp/json"; rc=$?
expect_eq "validate --json --device: exit code" "$rc" 1
expect_eq "validate --json --device: summary" \
        "$(jq -c '[.[] | [.interface, .valid, .device, .capabilities.tx_queues, .errors, (.warnings | length)]]' "$tmp/json")" \
        "[[\"lo\",false,\"lo\",1,[\"$lo_error\"],0],[\"tbsnosuch0\",true,\"tbsnosuch0\",null,[],1]]"
"$tbsctl" --json validate "$tmp/dev/lo.json" >"$tmp/json"; rc=$?
expect_eq "validate --json without --device: device" "$(jq -c '.[0] | [.valid, .device, .capabilities]' "$tmp/json")" \
        "[true,null,null]"
"$tbsctl" validate --device=a/b "$tmp/dev/lo.json" >/dev/null 2>"$tmp/err"; rc=$?
expect_eq "validate --device bad name: exit code" "$rc" 2
expect_eq "validate --device bad name: message" "$(cat "$tmp/err")" \
        "tbsctl: --device: interface name must not contain '/'"
"$tbsctl" --device=lo list >/dev/null 2>"$tmp/err"; rc=$?
expect_eq "--device with another command: exit code" "$rc" 2

# File names from outside: a newline, an escape sequence and a byte that is
# not UTF-8 in the name; the interface name holds ESC (the kernel allows it).
# Every line stays one line without raw control bytes; --json stays JSON.
mkdir "$tmp/odd"
odd="$tmp/odd/a"$'\n\e[1m\xff'".json"
jq '.interface = "e\u001b[1m"' "$src/examples/veth-software.json" >"$odd"
jq '.drift = "report\n"' "$src/examples/veth-software.json" >"$tmp/odd/b"$'\xff'".json"
"$tbsctl" validate "$tmp/odd/"* >"$tmp/out" 2>"$tmp/err"; rc=$?
expect_eq "odd names: exit code" "$rc" 1
expect_eq "odd names: stdout" "$(cat "$tmp/out")" "$tmp/odd/a\n\x1b[1m\xff.json: valid schedule for e\x1b[1m"
expect_eq "odd names: stderr" "$(cat "$tmp/err")" \
        "$tmp/odd/b\xff.json: drift: must not contain control characters, got \"report\n\""
expect_eq "odd names: no raw control bytes" "$(cat "$tmp/out" "$tmp/err" | tr -d '\n' | tr -cd '\000-\037\177' | wc -c)" 0
"$tbsctl" --json validate "$tmp/odd/"* >"$tmp/json"; rc=$?
expect_eq "odd names --json: exit code" "$rc" 1
expect_eq "odd names --json: files and interfaces" "$(jq -c '[.[] | [.file, .interface, .valid]]' "$tmp/json")" \
        "[[\"$tmp/odd/a\\n\\u001b[1m\\\\xff.json\",\"e\\u001b[1m\",true],[\"$tmp/odd/b\\\\xff.json\",\"veth0\",false]]"

if [ "$failures" -gt 0 ]; then
        echo "$failures failure(s)"
        exit 1
fi
echo "all passed"

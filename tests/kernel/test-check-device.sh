# Device-aware checking: tbsd --check and tbsctl validate --device judge the
# schedules against this machine's interfaces with the rules the daemon
# refuses them with before an apply (daemon/probe/device-check.c), and say the
# same line. veth has no launch time and the number of TX queues it was made
# with; tc shows that nothing changes, and the running daemon is the oracle
# for "the same judgement".
make_veth va vb 4
conf=$TMPDIR/check.d
mkdir -p "$conf"
reason="veth: no launch-time (etf) offload in this driver"

# check_dir: tbsd --check of $conf; sets rc, out (stdout) and err (stderr).
check_dir() {
        set +e
        out=$("$TBSD" --check --config-dir "$conf" "$@" 2>"$TMPDIR/check.err")
        rc=$?
        set -e
        err=$(cat "$TMPDIR/check.err")
}

# validate ARGS...: tbsctl validate ARGS; sets rc, out and err.
validate() {
        set +e
        out=$("$TBSCTL" validate "$@" 2>"$TMPDIR/validate.err")
        rc=$?
        set -e
        err=$(cat "$TMPDIR/validate.err")
}

before=$(tc -j qdisc show dev va)

# 1. A schedule that fits the 4-queue veth: no remark from either.
write_mqprio_schedule "$conf/va.json" va 200000 500000
check_dir
assert_eq "$rc" 0 "check, a good file: exit code"
assert_eq "$err" "" "check, a good file: stderr"
assert_eq "$out" "$conf: 1 schedule file, 0 errors, 0 warnings" "check, a good file: summary"
validate --device va "$conf/va.json"
assert_eq "$rc" 0 "validate --device va, a good file: exit code"
assert_eq "$err" "" "validate --device va, a good file: stderr"
assert_eq "$out" "$conf/va.json: valid schedule for va, checked against va of this machine" "validate --device va, a good file"

# 2. offload true on a queue without launch time: an error naming the file,
# the field and the probe's reason; without the device it passes (as before).
jq '.txqueues[0].offload = true' "$conf/va.json" >"$TMPDIR/offload.json"
cp "$TMPDIR/offload.json" "$conf/va.json"
offload_error="$conf/va.json: txqueues[0].offload: launch-time offload is not available on queue 0: $reason"
check_dir
assert_eq "$rc" 1 "check, offload true on veth: exit code"
assert_eq "$err" "$offload_error" "check, offload true on veth: stderr"
assert_eq "$out" "$conf: 1 schedule file, 1 error, 0 warnings" "check, offload true on veth: summary"
check_dir --no-probe
assert_eq "$rc" 0 "check --no-probe, offload true: exit code (the file alone is valid)"
for dev in va .; do
        validate --device "$dev" "$conf/va.json"
        assert_eq "$rc" 1 "validate --device $dev, offload true: exit code"
        assert_eq "$err" "$offload_error" "validate --device $dev, offload true: stderr"
done
validate "$conf/va.json"
assert_eq "$rc" 0 "validate without --device, offload true: exit code (device-independent)"
validate --device va "$TMPDIR/offload.json"
assert_eq "$err" "$TMPDIR/offload.json: txqueues[0].offload: launch-time offload is not available on queue 0: $reason" \
        "validate --device va of a file outside the folder"
set +e
json=$("$TBSCTL" --json validate --device va "$conf/va.json")
set -e
assert_eq "$(jq -c '.[0] | [.valid, .device, .capabilities.driver, .capabilities.tx_queues, .errors]' <<<"$json")" \
        "$(jq -cn --arg e "$offload_error" '[false, "va", "veth", 4, [$e]]')" "validate --json --device va"

# 3. Queue 7 on the 4-queue veth: the traffic class that holds it does not
# fit the device.
# (PTP's priority 0 goes to class 1, whose queue no longer has an etf.)
jq '.root.queues[2].count = 6 | .txqueues[1].queue = 7 | .root.priority_map[0] = 1' "$TMPDIR/offload.json" |
        jq '.txqueues[0].offload = "auto"' >"$conf/va.json"
queue_error="$conf/va.json: root.queues[2]: uses queues 2-7, but the device has 4 TX queues"
check_dir
assert_eq "$rc" 1 "check, queue 7 on a 4-queue veth: exit code"
assert_eq "$err" "$queue_error" "check, queue 7 on a 4-queue veth: stderr"
validate --device va "$conf/va.json"
assert_eq "$rc" 1 "validate --device va, queue 7: exit code"
assert_eq "$err" "$queue_error" "validate --device va, queue 7: stderr"
# The same file against an 8-queue device fits.
make_veth v8 v8p 8
validate --device v8 "$conf/va.json"
assert_eq "$rc" 0 "validate --device v8 (8 queues), queue 7: exit code"

# 4. A taprio whose queue layout is beyond the device ...
cat >"$conf/va.json" <<'EOJ'
{
  "interface": "va",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 2, "clockid": "CLOCK_TAI",
    "priority_map": [1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [{"count": 2, "offset": 0}, {"count": 4, "offset": 2}],
    "base_time_ns": 1000000000, "cycle_time_ns": 1000000,
    "entries": [{"gate_mask": 1, "interval_ns": 300000}, {"gate_mask": 2, "interval_ns": 700000}]
  }
}
EOJ
check_dir
assert_eq "$rc" 1 "check, taprio beyond the device: exit code"
assert_eq "$err" "$conf/va.json: root.queues[1]: uses queues 2-5, but the device has 4 TX queues" \
        "check, taprio beyond the device: stderr"

# ... and one in full-offload mode, which veth's driver cannot run: the
# kernel refuses it too.
jq '.root.queues[1].count = 2 | .root.mode = "full-offload" | del(.root.clockid)' "$conf/va.json" >"$TMPDIR/full.json"
cp "$TMPDIR/full.json" "$conf/va.json"
check_dir
assert_eq "$rc" 1 "check, taprio full offload on veth: exit code"
assert_eq "$err" "$conf/va.json: root.mode: taprio full offload is not available on this device: its driver \
cannot run the gate schedule itself; use mode \"software\" or \"txtime-assist\"" "check, taprio full offload on veth: stderr"
if out=$(tc qdisc replace dev va root handle 100: taprio num_tc 2 map 1 1 0 0 1 1 1 1 1 1 1 1 1 1 1 1 \
        queues 2@0 2@2 base-time 1000000000 sched-entry S 01 300000 sched-entry S 02 700000 flags 0x2 2>&1); then
        fail "the kernel accepted taprio full offload on veth"
fi
pass "the kernel refuses taprio full offload on veth too: $out"
jq '.root.mode = "software" | .root.clockid = "CLOCK_TAI"' "$TMPDIR/full.json" >"$conf/va.json"
check_dir
assert_eq "$rc" 0 "check, software taprio on veth: exit code"
assert_eq "$err" "" "check, software taprio on veth: stderr"

# 5. A missing interface is a warning, not an error: exit 0.
cp "$TMPDIR/offload.json" "$conf/va.json"
jq '.interface = "vgone"' "$conf/va.json" >"$conf/vgone.json"
rm "$conf/va.json"
missing="$conf/vgone.json: interface: warning: interface vgone does not exist on this machine; the device checks \
(TX queues, launch-time offload) were skipped (tbsd waits for it and makes them when it appears)"
check_dir
assert_eq "$rc" 0 "check, missing interface: exit code"
assert_eq "$err" "$missing" "check, missing interface: stderr"
assert_eq "$out" "$conf: 1 schedule file, 0 errors, 1 warning" "check, missing interface: summary"
validate --device . "$conf/vgone.json"
assert_eq "$rc" 0 "validate --device ., missing interface: exit code"
assert_eq "$err" "$missing" "validate --device ., missing interface: stderr"
# ... and when it appears (a veth without launch time), the error comes.
make_veth vgone vgonep 4
check_dir
assert_eq "$rc" 1 "check, the interface appeared: exit code"
assert_contains "$err" "$conf/vgone.json: txqueues[0].offload: launch-time offload is not available on queue 0" \
        "check, the interface appeared"

# Nothing of all that touched the kernel.
assert_eq "$(tc -j qdisc show dev va)" "$before" "va's qdiscs after the checks"

# 6. The running daemon judges the same file the same way: its StateReason
# is the line tbsd --check printed.
rm "$conf/vgone.json"
cp "$TMPDIR/offload.json" "$conf/va.json"
check_dir
assert_eq "$err" "$offload_error" "check before the daemon"
start_system_bus
start_tbsd "$conf"
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status va | jq -r .state)\" = failed ]" ||
        fail "va did not fail: $("$TBSCTL" status va 2>&1)"
assert_eq "$("$TBSCTL" --json status va | jq -r .state_reason)" "$offload_error" "the daemon's StateReason"
assert_eq "$(tc -j qdisc show dev va)" "$before" "va's qdiscs after the daemon refused"

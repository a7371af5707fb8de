# offload "auto" and true end to end (tbsd --once) on the real igb driver
# of an Intel 82576, with tc as the oracle: "auto" installs a software etf
# and tbsd records why launch time is not used (the 82576 is not an i210);
# true is refused before anything changes, and the kernel agrees that it
# would have refused the offload; tbsd --check and tbsctl validate --device
# refuse it beforehand with the same line.
dev=$NIC0
ethtool -L "$dev" combined 4
ip link set "$dev" up
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

# write_schedule OFFLOAD: queue 0 of an mqprio root gets etf with OFFLOAD (JSON).
write_schedule() {
        cat > "$conf/$dev.json" <<EOS
{
  "interface": "$dev",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "clockid": "CLOCK_TAI", "delta_ns": 300000, "offload": $1}
  ]
}
EOS
}

write_schedule '"auto"'
out=$("$TBSD" --once --config-dir "$conf" 2>"$TBS_OUT/once.log") ||
        { cat "$TBS_OUT/once.log"; fail "tbsd --once with offload auto: $out"; }
cat "$TBS_OUT/once.log"
assert_eq "$out" "$dev: applied" "tbsd --once with offload auto"
assert_eq "$(qdisc_at "$dev" root | jq -r .kind)" mqprio "root qdisc"
assert_eq "$(qdisc_at "$dev" 100:1 | jq -r .kind)" etf "queue 0 kind"
assert_eq "$(qdisc_at "$dev" 100:1 | jq -r .options.offload)" off "auto on the 82576 installs software etf"
assert_eq "$(qdisc_at "$dev" 100:1 | jq -r .options.delta)" 300000 "etf delta"
log=$(cat "$TBS_OUT/once.log")
assert_contains "$log" "txqueue 0: etf software (" "tbsd log"
assert_contains "$log" "not an i210" "tbsd's reason for software etf"

# The kernel refuses the offload here, with its message (on queue 1: an
# etf cannot be changed in place; on an i210 both queues have launch time).
if msg=$(tc qdisc add dev "$dev" parent 100:2 etf clockid CLOCK_TAI delta 300000 offload 2>&1); then
        fail "the kernel accepted etf offload on an 82576"
fi
assert_contains "$msg" "Specified device failed to setup ETF hardware offload" "kernel refusal"

# Applying the same schedule again changes nothing.
out=$("$TBSD" --once --config-dir "$conf" 2>>"$TBS_OUT/once.log") || fail "second tbsd --once: $out"
assert_eq "$out" "$dev: unchanged" "tbsd --once again"

# offload true: refused when the schedule is validated; the tree stays.
before=$(tc -j qdisc show dev "$dev")
write_schedule true
if out=$("$TBSD" --once --config-dir "$conf" 2>>"$TBS_OUT/once.log"); then
        fail "tbsd --once accepted offload true on an 82576: $out"
fi
echo "tbsd --once: $out"
assert_contains "$out" "$dev: failed:" "tbsd --once with offload true"
assert_contains "$out" "not an i210" "refusal reason"
assert_eq "$(tc -j qdisc show dev "$dev")" "$before" "qdiscs after the refused schedule"

# tbsd --check and tbsctl validate --device see it coming, on the real igb,
# with the very line the apply failed with.
refusal=${out#"$dev: failed: "}
assert_eq "$refusal" \
        "$conf/$dev.json: txqueues[0].offload: launch-time offload is not available on queue 0: igb: launch time only on i210 queues 0 and 1; 8086:10c9 is not an i210" \
        "the refusal line"
if check=$("$TBSD" --check --config-dir "$conf" 2>"$TBS_OUT/check.err"); then
        fail "tbsd --check passed offload true on an 82576: $check"
fi
assert_eq "$(cat "$TBS_OUT/check.err")" "$refusal" "tbsd --check"
assert_eq "$check" "$conf: 1 schedule file, 1 error, 0 warnings" "tbsd --check summary"
if "$TBSCTL" validate --device "$dev" "$conf/$dev.json" 2>"$TBS_OUT/validate.err"; then
        fail "tbsctl validate --device $dev passed offload true on an 82576"
fi
assert_eq "$(cat "$TBS_OUT/validate.err")" "$refusal" "tbsctl validate --device $dev"
"$TBSCTL" validate "$conf/$dev.json" >/dev/null || fail "tbsctl validate without --device refused the file"
pass "tbsctl validate without --device judges the file alone"
assert_eq "$(tc -j qdisc show dev "$dev")" "$before" "qdiscs after the checks"

# And on an untouched port: nothing is installed at all.
ethtool -L "$NIC1" combined 4
ip link set "$NIC1" up
before=$(tc -j qdisc show dev "$NIC1")
sed "s/\"$dev\"/\"$NIC1\"/" "$conf/$dev.json" > "$conf/$NIC1.json"
rm "$conf/$dev.json"
if out=$("$TBSD" --once --config-dir "$conf" 2>>"$TBS_OUT/once.log"); then
        fail "tbsd --once accepted offload true on $NIC1: $out"
fi
assert_eq "$(tc -j qdisc show dev "$NIC1")" "$before" "$NIC1 qdiscs after the refused schedule"
[ -z "$(qdisc_at "$NIC1" root | jq -r 'select(.kind == "mqprio") | .kind')" ] ||
        fail "an mqprio root appeared on $NIC1"
pass "nothing installed on $NIC1"

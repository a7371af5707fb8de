# offload "auto" and true on a NIC whose driver the capability table does
# not know (QEMU's vmxnet3, run with `qemu-run --nic vmxnet3`): the probe
# says "unknown", so tbsd asks the kernel for launch time, the kernel
# refuses, and tbsd keeps a software etf and records the kernel's own
# message; with offload true the refusal fails the schedule and the
# transaction leaves the qdisc tree as it was. tc is the oracle.
dev=$NIC_EXTRA
[ -n "$dev" ] || fail "no extra NIC (run with qemu-run --nic vmxnet3)"
assert_eq "$(ethtool_field "$dev" driver)" vmxnet3 "ethtool -i $dev driver"
ip link set "$dev" up
queues=$(tx_queues "$dev")
[ "$queues" -ge 2 ] || fail "$dev has $queues TX queue(s); mqprio needs 2"

caps=$("$TBS_BUILD_DIR/tests/tools/caps-probe" "$dev")
echo "caps-probe $dev: $caps"
assert_eq "$(jq -r .confidence <<<"$caps")" unknown "probe confidence"

# The kernel's own answer, to compare with what tbsd records.
tc qdisc add dev "$dev" root handle 100: mqprio num_tc 2 \
        map 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 hw 0
if kmsg=$(tc qdisc add dev "$dev" parent 100:1 etf clockid CLOCK_TAI delta 300000 offload 2>&1); then
        fail "the kernel accepted etf offload on $dev"
fi
kmsg=${kmsg#Error: }
kmsg=${kmsg%.}
echo "kernel: $kmsg"
tc qdisc del dev "$dev" root

conf=$TMPDIR/schedules.d
mkdir -p "$conf"
write_schedule() { # OFFLOAD (JSON value)
        cat > "$conf/$dev.json" <<EOS
{
  "interface": "$dev",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 2,
    "priority_map": [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}]
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
assert_eq "$(qdisc_at "$dev" 100:1 | jq -r .options.offload)" off "auto falls back to software etf"
assert_contains "$(cat "$TBS_OUT/once.log")" "txqueue 0: etf software (offload refused by the kernel ($kmsg)" \
        "tbsd records the kernel's refusal"

# offload true: the kernel refuses, the schedule fails, nothing changes.
tc qdisc del dev "$dev" root
before=$(tc -j qdisc show dev "$dev")
write_schedule true
if out=$("$TBSD" --once --config-dir "$conf" 2>>"$TBS_OUT/once.log"); then
        fail "tbsd --once applied offload true on $dev: $out"
fi
echo "tbsd --once: $out"
assert_contains "$out" "$dev: failed:" "tbsd --once with offload true"
assert_contains "$out" "$kmsg" "the kernel's message in the failure"
assert_eq "$(tc -j qdisc show dev "$dev")" "$before" "qdiscs after the refused schedule"

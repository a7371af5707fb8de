# The capability probe on the test kernel's veth, with ethtool (-i, -T, -l),
# sysfs and tc as independent oracles: driver veth, as many TX queues as
# created, no launch-time queues (the kernel refuses etf offload), no PHC,
# software time stamping only, confidence "unsupported"; txtime-assist
# taprio possible on a multi-queue veth and not on a single-queue one.
CAPS_PROBE=$TBS_BUILD_DIR/tests/tools/caps-probe
[ -x "$CAPS_PROBE" ] || fail "caps-probe is not built: $CAPS_PROBE"

make_veth va vb 4
caps=$("$CAPS_PROBE" va) || fail "caps-probe va failed"
echo "caps-probe va: $caps"
field() { jq -c ".$1" <<<"$caps"; }

# The probe's own view.
assert_eq "$(field driver)" '"veth"' "driver"
assert_eq "$(field tx_queues)" 4 "tx_queues"
assert_eq "$(field launch_time_queues)" "[]" "launch_time_queues"
assert_eq "$(field phc_index)" -1 "phc_index"
assert_eq "$(field hw_timestamping)" false "hw_timestamping"
assert_eq "$(field sw_timestamping)" true "sw_timestamping"
assert_eq "$(field pci_vendor)" null "pci_vendor"
assert_eq "$(field taprio_full_offload)" false "taprio_full_offload"
assert_eq "$(field taprio_txtime_assist)" true "taprio_txtime_assist"
assert_eq "$(field confidence)" '"unsupported"' "confidence"
assert_eq "$(field reason)" '"veth: no launch-time (etf) offload in this driver"' "reason"

# ethtool -i: driver, version and bus address as the kernel reports them.
drvinfo=$(ethtool -i va)
assert_eq "$(sed -n 's/^driver: //p' <<<"$drvinfo")" "$(jq -r .driver <<<"$caps")" "driver (ethtool -i)"
assert_eq "$(sed -n 's/^version: //p' <<<"$drvinfo")" "$(jq -r .driver_version <<<"$caps")" "version (ethtool -i)"
assert_eq "$(sed -n 's/^bus-info: *//p' <<<"$drvinfo")" "$(jq -r .bus_info <<<"$caps")" "bus-info (ethtool -i)"

# ethtool -T: software stamps only, no PTP hardware clock.
tsinfo=$(ethtool -T va)
echo "$tsinfo"
assert_contains "$tsinfo" "software-transmit" "ethtool -T"
assert_contains "$tsinfo" "software-receive" "ethtool -T"
assert_contains "$tsinfo" "software-system-clock" "ethtool -T"
if grep -q "hardware-" <<<"$tsinfo"; then
        fail "ethtool -T reports hardware time stamping on veth"
fi
assert_eq "$(sed -n 's/^PTP Hardware Clock: *//p' <<<"$tsinfo")" none "PTP Hardware Clock (ethtool -T)"

# TX queues: sysfs and ethtool -l.
assert_eq "$(ls -d /sys/class/net/va/queues/tx-* | wc -l)" "$(field tx_queues)" "tx queues (sysfs)"
assert_eq "$(ethtool -l va | sed -n '/^Current/,$ s/^TX:[[:space:]]*//p')" "$(field tx_queues)" "TX channels (ethtool -l)"

# Down, the count comes from ETHTOOL_GCHANNELS (veth: tx_count = real
# queues): still 4.
ip link set va down
assert_eq "$("$CAPS_PROBE" va | jq -c .tx_queues)" 4 "tx_queues of the veth while down"
ip link set va up

# The kernel agrees there is no launch time: etf offload is refused,
# software etf installs.
tc qdisc add dev va root handle 100: mqprio num_tc 3 \
        map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 0
if out=$(tc qdisc add dev va parent 100:1 etf clockid CLOCK_TAI delta 300000 offload 2>&1); then
        fail "etf offload was accepted on veth"
fi
assert_contains "$out" "not support ETF offload" "tc etf offload refusal"
tc qdisc add dev va parent 100:1 etf clockid CLOCK_TAI delta 300000
assert_eq "$(qdisc_at va 100:1 | jq -r .kind)" etf "software etf on queue 0"
tc qdisc del dev va root

# txtime-assist taprio: installs on the 4-queue veth ...
taprio() {
        tc qdisc replace dev "$1" root handle 100: taprio num_tc "$2" \
                map 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 queues "$3" \
                base-time 1000000000 sched-entry S 01 300000 sched-entry S 01 700000 \
                flags 0x1 txtime-delay 300000 clockid CLOCK_TAI
}
taprio va 1 "1@0" || fail "txtime-assist taprio refused on the 4-queue veth"
assert_eq "$(qdisc_at va root | jq -r .kind)" taprio "txtime-assist taprio on va"
pass "txtime-assist taprio installs where the probe says it can"

# ... and the probe and the kernel agree that a single-queue veth cannot.
make_veth vc vd 1
caps1=$("$CAPS_PROBE" vc) || fail "caps-probe vc failed"
assert_eq "$(jq -c .tx_queues <<<"$caps1")" 1 "tx_queues (1-queue veth)"
assert_eq "$(jq -c .taprio_txtime_assist <<<"$caps1")" false "taprio_txtime_assist (1-queue veth)"
if out=$(taprio vc 1 "1@0" 2>&1); then
        fail "taprio was accepted on a single-queue veth"
fi
assert_contains "$out" "Multi-queue device is required" "tc taprio refusal on vc"

# Several interfaces at once, and a missing one fails with the errno text.
assert_eq "$("$CAPS_PROBE" va vc | jq -r .driver | tr '\n' ' ')" "veth veth " "two interfaces"
if err=$("$CAPS_PROBE" nosuch0 2>&1); then
        fail "caps-probe nosuch0 succeeded"
fi
assert_contains "$err" "No such device" "caps-probe on a missing interface"

# offload "auto" end to end (tbsd --once): the probe's verdict makes the
# engine install a software etf on the veth, and tbsd records why.
make_veth vx vy 4
conf=$TMPDIR/caps-schedules.d
mkdir -p "$conf"
write_ve_schedule() { # OFFLOAD: a JSON value
        cat > "$conf/vx.json" <<EOS
{
  "interface": "vx",
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
reason="veth: no launch-time (etf) offload in this driver"

write_ve_schedule '"auto"'
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/once.log") ||
        { cat "$TMPDIR/once.log"; fail "tbsd --once with offload auto: $out"; }
assert_eq "$out" "vx: applied" "tbsd --once with offload auto"
assert_eq "$(qdisc_at vx 100:1 | jq -r .kind)" etf "queue 0 kind"
assert_eq "$(qdisc_at vx 100:1 | jq -r .options.offload)" off "auto on veth installs software etf"
assert_contains "$(cat "$TMPDIR/once.log")" "txqueue 0: etf software ($reason)" "tbsd log"

# offload true where the probe says there is no launch time: refused when
# the schedule is validated, with the probe's reason, and nothing changes.
before=$(tc -j qdisc show dev vx)
write_ve_schedule true
if out=$("$TBSD" --once --config-dir "$conf" 2>>"$TMPDIR/once.log"); then
        fail "tbsd --once accepted offload true on veth: $out"
fi
assert_contains "$out" "launch-time offload is not available on queue 0: $reason" "tbsd --once refusal"
assert_eq "$(tc -j qdisc show dev vx)" "$before" "qdiscs after the refused schedule"

# The capability probe (tests/tools/caps-probe) on the real igb driver of
# an Intel 82576, checked against ethtool and sysfs as oracles: driver,
# PCI ids, TX queues after `ethtool -L`, hardware time stamping with the
# PHC index, and no launch-time queues because the 82576 is not an i210.
#
#   test-caps-igb.sh [CAPS_PROBE]   (default: the build tree's)
caps_probe=${1:-$TBS_BUILD_DIR/tests/tools/caps-probe}
[ -x "$caps_probe" ] || fail "$caps_probe not built"

# probe DEV KEY: one key of the probe's JSON for DEV (jq -r).
probe() {
        "$caps_probe" "$1" | jq -r ".$2"
}

dev=$NIC0
ethtool -L "$dev" combined 4
# While the link is down igb keeps all 8 TX queues in sysfs; the probe
# must still report the 4 that ethtool -l says are configured.
assert_eq "$(combined_channels "$dev")" 4 "ethtool -l $dev combined (link down)"
assert_eq "$(probe "$dev" tx_queues)" 4 "tx_queues with the link down"
ip link set "$dev" up
json=$("$caps_probe" "$dev")
echo "caps-probe $dev: $json"

assert_eq "$(jq -r .driver <<<"$json")" "$(ethtool_field "$dev" driver)" "driver (ethtool -i)"
assert_eq "$(jq -r .driver <<<"$json")" igb "driver"
assert_eq "$(jq -r .bus_info <<<"$json")" "$(ethtool_field "$dev" bus-info)" "bus_info (ethtool -i)"
sysdev=/sys/class/net/$dev/device
assert_eq "$(jq -r .pci_vendor <<<"$json")" "$(cat "$sysdev/vendor")" "pci_vendor (sysfs)"
assert_eq "$(jq -r .pci_device <<<"$json")" "$(cat "$sysdev/device")" "pci_device (sysfs)"
assert_eq "$(jq -r .pci_vendor <<<"$json")" 0x8086 "pci_vendor"
assert_eq "$(jq -r .pci_device <<<"$json")" 0x10c9 "pci_device (82576)"

assert_eq "$(combined_channels "$dev")" 4 "ethtool -l $dev combined"
assert_eq "$(jq -r .tx_queues <<<"$json")" "$(tx_queues "$dev")" "tx_queues (sysfs)"
assert_eq "$(jq -r .tx_queues <<<"$json")" 4 "tx_queues after ethtool -L combined 4"

ts=$(ethtool -T "$dev")
assert_contains "$ts" hardware-raw-clock "ethtool -T $dev"
assert_eq "$(jq -r .hw_timestamping <<<"$json")" true "hw_timestamping"
assert_eq "$(jq -r .phc_index <<<"$json")" "$(phc_index "$dev")" "phc_index (ethtool -T)"

assert_eq "$(jq -c .launch_time_queues <<<"$json")" "[]" "launch_time_queues"
assert_eq "$(jq -r .confidence <<<"$json")" unsupported "confidence"
assert_contains "$(jq -r .reason <<<"$json")" "not an i210" "reason"
# The kernel agrees: igb refuses etf offload on this device.
tc qdisc add dev "$dev" root handle 100: mqprio num_tc 3 \
        map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 0
if msg=$(tc qdisc add dev "$dev" parent 100:1 etf clockid CLOCK_TAI delta 300000 offload 2>&1); then
        fail "etf offload accepted on queue 0 of an 82576"
fi
pass "kernel refuses etf offload on queue 0 too: $msg"
tc qdisc del dev "$dev" root

# taprio: no full offload on the 82576, txtime-assist (a software mode of
# taprio with etf children) possible on a multi-queue device. The kernel
# decides both.
taprio() { # FLAGS [EXTRA...]
        local flags=$1
        shift
        tc qdisc replace dev "$dev" root handle 100: taprio num_tc 2 \
                map 1 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 3@1 \
                base-time 1000000000 sched-entry S 01 300000 sched-entry S 02 700000 \
                flags "$flags" "$@"
}
assert_eq "$(jq -r .taprio_full_offload <<<"$json")" false "taprio_full_offload"
if msg=$(taprio 0x2 2>&1); then
        fail "the kernel accepted taprio full offload on an 82576"
fi
assert_contains "$msg" "taprio offload" "kernel refusal of taprio flags 0x2"
assert_eq "$(jq -r .taprio_txtime_assist <<<"$json")" true "taprio_txtime_assist"
taprio 0x1 txtime-delay 300000 clockid CLOCK_TAI || fail "txtime-assist taprio refused on $dev"
assert_eq "$(qdisc_at "$dev" root | jq -r .kind)" taprio "txtime-assist taprio installed"
tc qdisc del dev "$dev" root

# The second port: its own PHC, its own queue count (2: one per CPU; igb
# sets its real TX queues when the link goes up, sysfs shows 8 before).
ip link set "$NIC1" up
json1=$("$caps_probe" "$NIC1")
assert_eq "$(jq -r .phc_index <<<"$json1")" "$(phc_index "$NIC1")" "$NIC1 phc_index (ethtool -T)"
[ "$(jq -r .phc_index <<<"$json1")" != "$(jq -r .phc_index <<<"$json")" ] ||
        fail "both ports report PHC $(jq -r .phc_index <<<"$json")"
assert_eq "$(jq -r .tx_queues <<<"$json1")" "$(combined_channels "$NIC1")" "$NIC1 tx_queues (ethtool -l)"

# No such interface: an error, not a result.
if "$caps_probe" nosuch0 >/dev/null 2>"$TBS_OUT/nosuch.err"; then
        fail "caps-probe succeeded on a missing interface"
fi
pass "caps-probe fails on a missing interface: $(cat "$TBS_OUT/nosuch.err")"

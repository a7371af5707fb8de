# The NIC test bed itself: the 82576 ports are driven by the real igb
# driver, have PTP hardware clocks that keep time, take 4 TX queues, carry
# an mqprio root with software etf children, and refuse etf offload (only
# the i210 has launch time) with the kernel's own message.
dev=$NIC0

assert_eq "$(ethtool_field "$dev" driver)" igb "ethtool -i $dev driver"

ts=$(ethtool -T "$dev")
for cap in hardware-transmit hardware-receive hardware-raw-clock; do
        assert_contains "$ts" "$cap" "ethtool -T $dev"
done
phc=$(phc_index "$dev")
[[ "$phc" =~ ^[0-9]+$ ]] || fail "ethtool -T $dev: no PTP Hardware Clock index ('$phc')"
[ -c "/dev/ptp$phc" ] || fail "/dev/ptp$phc missing"
[ -d "/sys/class/net/$dev/device/ptp/ptp$phc" ] || fail "ptp$phc is not $dev's clock in sysfs"
pass "$dev has PTP hardware clock /dev/ptp$phc"

ethtool -L "$dev" combined 4
ip link set "$dev" up
assert_eq "$(combined_channels "$dev")" 4 "ethtool -l $dev combined channels"
assert_eq "$(tx_queues "$dev")" 4 "TX queues of $dev in sysfs after ethtool -L combined 4"

tc qdisc add dev "$dev" root handle 100: mqprio num_tc 3 \
        map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 0
tc qdisc add dev "$dev" parent 100:1 etf clockid CLOCK_TAI delta 300000
assert_eq "$(qdisc_at "$dev" root | jq -r .kind)" mqprio "root qdisc"
etf=$(qdisc_at "$dev" 100:1)
assert_eq "$(jq -r .kind <<<"$etf")" etf "qdisc under 100:1"
assert_eq "$(jq -r .options.offload <<<"$etf")" off "etf offload flag"

if msg=$(tc qdisc add dev "$dev" parent 100:2 etf clockid CLOCK_TAI delta 300000 offload 2>&1); then
        fail "etf offload accepted on an 82576"
fi
assert_contains "$msg" "Specified device failed to setup ETF hardware offload" "refusal of etf offload"
[ -z "$(qdisc_at "$dev" 100:2 | jq -r 'select(.kind == "etf") | .kind')" ] ||
        fail "a refused etf offload left an etf qdisc under 100:2"
pass "no etf under 100:2 after the refusal"

# The PHC keeps time (the e1000e PHC of older QEMU versions stood still).
# Two `phc_ctl get`s, each with phc_ctl's own CLOCK_MONOTONIC stamp: the
# PHC advances with the system clock. Loose (10 %): on a loaded host the
# emulated CPU can stall between the reading and its stamp.
phc_get() {
        phc_ctl "$1" get | awk '/clock time is/ { t = $1; gsub(/^phc_ctl\[|\]:$/, "", t); print t, $5 }'
}
read -r m1 p1 <<<"$(phc_get "$dev")"
sleep 3
read -r m2 p2 <<<"$(phc_get "$dev")"
echo "PHC advanced $(awk -v a="$p1" -v b="$p2" 'BEGIN { printf "%.6f", b - a }') s" \
        "while the system clock advanced $(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.3f", b - a }') s"
awk -v p1="$p1" -v p2="$p2" -v m1="$m1" -v m2="$m2" 'BEGIN {
        r = (p2 - p1) / (m2 - m1)
        exit !(m2 - m1 > 2.5 && r > 0.9 && r < 1.1) }' ||
        fail "PHC advanced $p1 -> $p2 while the system clock advanced $m1 -> $m2"
pass "PHC advances with the system clock (within 10 % over 3 s)"
# The rate, precisely: the PHC-to-CLOCK_REALTIME offset that `phc_ctl cmp`
# measures in the kernel (PTP_SYS_OFFSET, immune to scheduling) drifts by
# less than 100 ppm over 2 s.
o1=$(phc_minus_realtime "$dev")
sleep 2
o2=$(phc_minus_realtime "$dev")
drift=$(( o2 - o1 )); drift=${drift#-}
echo "PHC - CLOCK_REALTIME: $o1 ns, 2 s later $o2 ns"
[ "$drift" -lt 200000 ] || fail "PHC drifted $drift ns against CLOCK_REALTIME in 2 s"
pass "PHC drift against CLOCK_REALTIME $drift ns in 2 s"

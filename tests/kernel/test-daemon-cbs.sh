# cbs children (credit-based shaper) with `tc -j` as the oracle: a bandwidth
# computed with the link speed the device reports (veth: 10000 Mbit/s) and
# raw kernel values install field for field; a second --once changes
# nothing; the device's speed bounds the reservations; offload true is
# refused on veth (no cbs offload) and "auto" stays in software; on a
# device the probe does not know (ifb) "auto" tries offload, the kernel
# refuses it and software is kept, a failed apply puts a changed cbs back,
# and a bandwidth without any link speed is refused; the daemon shows the
# values, offers no launch times on a cbs queue, repairs a cbs changed with
# tc and counts its packets.
modprobe -d /run/modroot ifb
make_veth_to_peer cb0 cb0p
conf=$TMPDIR/conf
mkdir -p "$conf"

speed=$(ethtool cb0 | sed -n 's/.*Speed: \([0-9]*\)Mb\/s.*/\1/p')
assert_eq "$speed" 10000 "veth link speed (ethtool)"

# Priority 0 (any UDP socket) goes to class 0, queue 0.
write_cbs() { # FILE IFACE OFFLOAD0 [LINK_SPEED_KEY]
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "cbs", "bandwidth_kbps": 20000, "max_frame_bytes": 1500,
     "max_interference_bytes": 1500, "offload": $3 ${4:-}},
    {"queue": 1, "qdisc": "cbs", "idle_slope_kbps": 98688, "send_slope_kbps": -9901312,
     "hi_credit_bytes": 153, "lo_credit_bytes": -1390, "offload": false}
  ]
}
EOJ
}
cbs_opts() { # DEV PARENT
        qdisc_at "$1" "$2" | jq -c '[.kind, .options.idleslope, .options.sendslope, .options.hicredit, .options.locredit, .options.offload]'
}

# 1. --check with the probe: valid; offload true on veth is refused.
write_cbs "$conf/cb0.json" cb0 '"auto"'
out=$("$TBSD" --check --config-dir "$conf" 2>&1) || fail "tbsd --check refused the cbs schedule: $out"
pass "tbsd --check accepts the cbs schedule"
mkdir -p "$TMPDIR/hw"
write_cbs "$TMPDIR/hw/cb0.json" cb0 true
rc=0
out=$("$TBSD" --check --config-dir "$TMPDIR/hw" 2>&1) || rc=$?
assert_eq "$rc" 1 "--check exit status with offload true on veth"
assert_contains "$out" "txqueues[0].offload: cbs offload is not available on queue 0 of this device" "offload true refused"

# The device's speed bounds the reservations: 6 + 5 Gbit/s on 10 Gbit/s.
mkdir -p "$TMPDIR/over"
jq '.txqueues[0].bandwidth_kbps = 6000000 | .txqueues[1].idle_slope_kbps = 5000000 | .txqueues[1].send_slope_kbps = -5000000' \
        "$conf/cb0.json" > "$TMPDIR/over/cb0.json"
rc=0
out=$("$TBSD" --check --config-dir "$TMPDIR/over" 2>&1) || rc=$?
assert_eq "$rc" 1 "--check exit status with 11 Gbit/s reserved"
assert_contains "$out" "txqueues: the cbs queues reserve 11000000 kbit/s in all (the sum of their idle slopes), more than the link's 10000000 kbit/s (10000 Mbit/s)" "reservation above the device's speed"

# 2. --once installs: queue 0 from 20000 kbit/s on 10000 Mbit/s
#    (rate 10000000 kbit/s: sendslope -9980000, hicredit 1500 * 20000 /
#    10000000 = 3, locredit 1500 * -9980000 / 10000000 = -1497), queue 1 as given.
out=$("$TBSD" --once --config-dir "$conf")
assert_eq "$out" "cb0: applied" "first --once"
assert_eq "$(cbs_opts cb0 100:1)" '["cbs",20000,-9980000,3,-1497,0]' "queue 0 cbs as computed"
assert_eq "$(cbs_opts cb0 100:2)" '["cbs",98688,-9901312,153,-1390,0]' "queue 1 cbs as given"
before=$(handles cb0)
out=$("$TBSD" --once --config-dir "$conf")
assert_eq "$out" "cb0: unchanged" "second --once"
assert_eq "$(handles cb0)" "$before" "handles after an unchanged --once"

# offload true through --once: refused before anything is sent, tree kept.
rc=0
out=$("$TBSD" --once --config-dir "$TMPDIR/hw" 2>"$TMPDIR/err") || rc=$?
assert_eq "$rc" 1 "--once exit status with offload true on veth"
assert_contains "$out$(cat "$TMPDIR/err")" "cbs offload is not available on queue 0" "--once says why"
assert_eq "$(handles cb0)" "$before" "tree kept after the refused offload"

# 3. A device the probe does not know (ifb, no link speed): the file's
#    link_speed_mbps; "auto" tries offload, the kernel refuses, software
#    stays. 1000 Mbit/s: sendslope -980000, hicredit 30, locredit -1470.
ip link add ifb0 numtxqueues 4 numrxqueues 4 type ifb
ip link set ifb0 up
mkdir -p "$TMPDIR/ifb"
write_cbs "$TMPDIR/ifb/ifb0.json" ifb0 '"auto"' ', "link_speed_mbps": 1000'
out=$("$TBSD" --once --config-dir "$TMPDIR/ifb" 2>"$TMPDIR/err")
assert_eq "$out" "ifb0: applied" "ifb0 --once"
assert_eq "$(cbs_opts ifb0 100:1)" '["cbs",20000,-980000,30,-1470,0]' "ifb0 queue 0 in software"
assert_contains "$(cat "$TMPDIR/err")" "offload refused by the kernel (Specified device does not support cbs offload): software mode" "fallback reason"
out=$("$TBSD" --once --config-dir "$TMPDIR/ifb")
assert_eq "$out" "ifb0: unchanged" "ifb0 second --once keeps the software fallback"
#    A failed apply puts a changed cbs back as it was: queue 0 gets other
#    values, then queue 1 (an etf with offload true now) is refused.
before=$(qdisc_json ifb0 | jq -c '[.[] | {kind, handle, parent, options}] | sort_by(.parent)')
write_cbs "$TMPDIR/ifb/ifb0.json" ifb0 false ', "link_speed_mbps": 100'
jq '.txqueues[1] = {"queue": 1, "qdisc": "etf", "delta_ns": 500000, "offload": true}' "$TMPDIR/ifb/ifb0.json" > "$TMPDIR/x" &&
        mv "$TMPDIR/x" "$TMPDIR/ifb/ifb0.json"
rc=0
out=$("$TBSD" --once --config-dir "$TMPDIR/ifb") || rc=$?
assert_eq "$rc" 1 "--once with a refused etf after a changed cbs"
assert_eq "$out" "ifb0: failed: txqueue 1 (etf on 100:2): Specified device does not support ETF offload" "refused child message"
after=$(qdisc_json ifb0 | jq -c '[.[] | {kind, handle, parent, options}] | sort_by(.parent)')
assert_eq "$after" "$before" "ifb0 tree after the rollback (cbs values and handles)"
#    Without link_speed_mbps ifb0 has no speed: refused, naming the queue.
write_cbs "$TMPDIR/ifb/ifb0.json" ifb0 '"auto"'
rc=0
out=$("$TBSD" --once --config-dir "$TMPDIR/ifb") || rc=$?
assert_eq "$rc" 1 "--once without a link speed"
assert_eq "$out" "ifb0: failed: txqueue 0 (cbs): bandwidth_kbps needs the link speed, which the device does not report (is the link down?); give link_speed_mbps" "no link speed message"

# 4. The daemon: status shows the values and why offload is off.
start_system_bus
start_tbsd "$conf" --stats-interval 0.2
wait_configured cb0
doc=$("$TBSCTL" --json status cb0)
assert_eq "$(jq -c '.txqueues[0] | [.declared_qdisc, .installed, .idle_slope_kbps, .send_slope_kbps, .hi_credit_bytes, .lo_credit_bytes, .offload]' <<<"$doc")" \
        '["cbs",true,20000,-9980000,3,-1497,false]' "status of queue 0"
assert_eq "$(jq -r '.txqueues[0].offload_reason' <<<"$doc")" "no cbs offload on this queue of the device" "offload reason"
assert_eq "$("$TBSCTL" --json caps cb0 | jq -c '[.link_speed_mbps, .cbs_offload_queues]')" '[10000,[]]' "caps: speed and cbs queues"
"$TBSCTL" status cb0 | grep -q "Queue 0: cbs 101: parent 100:1, idleslope 20000 kbit/s, sendslope -9980000 kbit/s, hicredit 3 B, locredit -1497 B, offload off" ||
        fail "tbsctl status does not show the cbs values: $("$TBSCTL" status cb0)"
pass "tbsctl status shows the cbs values"

# A cbs queue takes no launch times: the txtime calls say it has no etf.
rc=0
out=$("$TBSCTL" txtime-params cb0 0 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "txtime-params on a cbs queue succeeded: $out"
assert_contains "$out" "no etf qdisc is declared on TX queue 0" "txtime-params on a cbs queue"

# 5. Drift: a cbs changed with tc is put back, and the log says what differed.
tc qdisc replace dev cb0 parent 100:1 handle 999: cbs idleslope 1000 sendslope -9999000 hicredit 1 locredit -1
wait_until 2 sh -c "[ \"\$(tc -j qdisc show dev cb0 | jq -r '.[] | select(.parent == \"100:1\") | .options.idleslope')\" = 20000 ]" ||
        fail "cbs on 100:1 not restored: $(cbs_opts cb0 100:1)"
assert_eq "$(cbs_opts cb0 100:1)" '["cbs",20000,-9980000,3,-1497,0]' "queue 0 restored"
grep -q "txqueue 0: cbs 999: idleslope 1000 kbit/s instead of 20000" "$TBS_OUT/tbsd.log" ||
        fail "the log does not say what changed: $(grep drift "$TBS_OUT/tbsd.log")"
pass "drift repaired and named"
wait_configured cb0

# 6. Statistics: 30 datagrams through queue 0's cbs, counted as tc counts them.
for i in $(seq 1 30); do echo "cbs $i" > /dev/udp/192.0.2.2/9; done
wait_until 5 sh -c "[ \$(\"$TBSCTL\" --json stats cb0 | jq '.txqueues[] | select(.queue == 0) | .stats.packets') -ge 30 ]" ||
        fail "tbsctl stats never counted 30 packets on queue 0: $("$TBSCTL" --json stats cb0)"
tc_packets=$(tc -j -s qdisc show dev cb0 | jq '.[] | select(.parent == "100:1") | .packets')
ctl_packets=$("$TBSCTL" --json stats cb0 | jq '.txqueues[] | select(.queue == 0) | .stats.packets')
[ "$tc_packets" -ge 30 ] && [ "$ctl_packets" -le "$tc_packets" ] || fail "stats $ctl_packets, tc $tc_packets"
assert_eq "$("$TBSCTL" --json stats cb0 | jq -r '.txqueues[] | select(.queue == 0) | .qdisc')" cbs "stats kind"
pass "queue 0 counted $ctl_packets packets (tc: $tc_packets)"
grep -q "drift" <(grep -v "999:" "$TBS_OUT/tbsd.log") && fail "tbsd took its own install for drift: $(grep drift "$TBS_OUT/tbsd.log")"
pass "no other drift reported"

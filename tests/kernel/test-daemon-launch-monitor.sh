# The launch-time monitor (the schedule's "monitor" key, daemon/link/launch-monitor.c)
# on software etf queues of a veth: queue 0 (delta 50 ms) and queue 1 (delta
# 1000 ns, too small: etf wakes later than the launch time and drops the
# probes as missed), both monitored every 200 ms with 4 frames. Read with
# busctl (LaunchTimeError), against tc -s and /proc/net/packet:
#  - queue 0 fills its histogram: the buckets add up to count, every probe
#    sent is accounted for (count + missed + invalid + unstamped == sent),
#    p99 is reported and lies in [min, max], the stamps are software ones;
#    the etf sent at least the stamped probes and counted the rest as drops;
#  - queue 1 counts missed probes, and etf's drops and overlimits moved by
#    at least as many;
#  - Describe()'s "monitor" object agrees with the property;
#  - each monitor has its own packet socket (Type 2, protocol 0, on lm0);
#  - changing queue 1's monitor on reload restarts it (its figures start
#    again) without touching the tree;
#  - removing queue 0's key and reloading stops its probes (etf's packet
#    counter stays put) and closes its socket; tbsctl remove stops the last
#    one, tbsctl apply starts it again; a file refused on reload (a schedule
#    that does not fit the device) leaves the schedule in force and its
#    monitor running; a link that fails (the same file with nothing in
#    force) monitors nothing until it is fixed; no descriptor is left
#    behind.
make_veth lm0 lm0p 4
ifindex=$(cat /sys/class/net/lm0/ifindex)

conf=$TMPDIR/conf
mkdir -p "$conf"
# Priority 3 -> class 0 (queue 0), 2 -> class 1 (queue 1), 1 -> class 2
# (queue 2), the rest (other traffic) -> class 3 (queue 3, no etf).
write_schedule() { # MONITOR_Q0 MONITOR_Q1
        cat > "$conf/lm0.json" <<EOJ
{
  "interface": "lm0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 50000000, "offload": false $1},
    {"queue": 1, "qdisc": "etf", "delta_ns": 1000, "offload": false $2}
  ]
}
EOJ
}
write_schedule ', "monitor": {"interval_ms": 200, "frames": 4}' ', "monitor": {"interval_ms": 200, "frames": 4}'

start_system_bus
start_tbsd "$conf"
wait_configured lm0

# lte QUEUE: queue's struct of LaunchTimeError as a JSON array (empty when
# the queue is not monitored): 0 queue, 1 source, 2 sent, 3 missed,
# 4 invalid, 5 unstamped, 6 count, 7 early, 8 late, 9 sum, 10 min, 11 p50,
# 12 p99, 13 max, 14 buckets.
lte_all() {
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/lm0 org.tsn.Tbs.Link LaunchTimeError
}
lte() {
        lte_all | jq -c --argjson q "$1" '.data[] | select(.[0] == $q)'
}
field() { # JSON INDEX
        jq -r ".[$2]" <<<"$1"
}
# The monitors' sockets: AF_PACKET, SOCK_DGRAM (type 2), protocol 0, on lm0.
probe_sockets() {
        awk -v i="$ifindex" 'NR > 1 && $3 == 2 && $4 == "0000" && $5 == i' /proc/net/packet | wc -l
}
fds() {
        ls /proc/"$TBSD_PID"/fd | wc -l
}
etf_stat() { # PARENT FIELD
        qdisc_at lm0 "$1" | jq -r ".$2"
}

intro=$(busctl --system introspect org.tsn.Tbs /org/tsn/Tbs/link/lm0 org.tsn.Tbs.Link)
grep -q 'LaunchTimeError *property *a(ustttttttxxxxxat)' <<<"$intro" ||
        fail "no LaunchTimeError property of the contract's signature: $intro"
pass "LaunchTimeError a(ustttttttxxxxxat)"

# ---- queue 0: the histogram fills ----
count_at_least() { [ "$(field "$(lte "$1")" 6)" -ge "$2" ]; }
wait_until 30 count_at_least 0 20 || fail "queue 0: fewer than 20 stamped probes: $(lte_all)"
# A snapshot with no probe in flight: every probe sent is accounted for.
settled() {
        snap=$(lte 0)
        [ "$(jq '.[6] + .[3] + .[4] + .[5] == .[2]' <<<"$snap")" = true ]
}
wait_until 10 settled || fail "queue 0: count + missed + invalid + unstamped never equals sent: $(lte 0)"
echo "queue 0: $snap"
sent=$(field "$snap" 2)
count=$(field "$snap" 6)
assert_eq "$(field "$snap" 1)" software "queue 0: stamp source"
assert_eq "$(jq '.[14] | length' <<<"$snap")" 33 "queue 0: bucket count"
assert_eq "$(jq '.[14] | add' <<<"$snap")" "$count" "queue 0: the buckets add up to count"
assert_eq "$(jq '.[7] + .[8] <= .[6]' <<<"$snap")" true "queue 0: early + late <= count"
p99=$(field "$snap" 12)
[ "$p99" != 0 ] || fail "queue 0: p99 is 0"
assert_eq "$(jq '.[10] <= .[12] and .[12] <= .[13] and .[10] <= .[11] and .[11] <= .[13]' <<<"$snap")" true \
        "queue 0: min <= p50, p99 <= max"
# Software etf lets a frame go delta (50 ms) before its launch time: the
# frames leave early, by less than delta.
assert_eq "$(jq '.[13] < 0 and .[10] > -50000000' <<<"$snap")" true "queue 0: errors in (-delta, 0)"
assert_eq "$(jq '.[7] == .[6]' <<<"$snap")" true "queue 0: every stamped probe early"
pkts=$(etf_stat 100:1 packets)
drops=$(etf_stat 100:1 drops)
[ "$pkts" -ge "$count" ] || fail "queue 0: etf sent $pkts packets, fewer than the $count stamped probes"
[ $((pkts + drops)) -ge "$sent" ] || fail "queue 0: etf packets $pkts + drops $drops < $sent probes sent"
pass "queue 0: etf sent $pkts, dropped $drops of $sent probes ($count stamped)"

# Describe() says the same (read after the property: figures only grow).
desc=$("$TBSCTL" --json status lm0 | jq -c '.txqueues[] | select(.queue == 0) | .monitor')
echo "Describe monitor: $desc"
assert_eq "$(jq -r '[.interval_ms, .frames, .running, .source] | join(",")' <<<"$desc")" "200,4,true,software" \
        "Describe: queue 0's monitor setting"
assert_eq "$(jq --argjson s "$sent" --argjson c "$count" '.sent >= $s and .count >= $c and
        .min_ns <= .p50_ns and .p50_ns <= .p99_ns and .p99_ns <= .max_ns' <<<"$desc")" true "Describe: queue 0's figures"
assert_eq "$("$TBSCTL" --json status lm0 | jq -c '.txqueues[] | select(.queue == 1) | .monitor.running')" true \
        "Describe: queue 1 monitored"
assert_eq "$("$TBSCTL" --json status lm0 | jq -c '.declared.txqueues[0].monitor')" '{"interval_ms":200,"frames":4}' \
        "Describe: the declared schedule carries the key"

# ---- queue 1: delta too small, probes missed ----
missed_at_least() { [ "$(field "$(lte 1)" 3)" -ge "$1" ]; }
wait_until 30 missed_at_least 8 || fail "queue 1: fewer than 8 missed probes: $(lte 1)"
q1=$(lte 1)
echo "queue 1: $q1"
missed=$(field "$q1" 3)
d1=$(etf_stat 100:2 drops)
o1=$(etf_stat 100:2 overlimits)
[ "$d1" -ge "$missed" ] && [ "$o1" -ge "$missed" ] ||
        fail "queue 1: etf drops $d1, overlimits $o1, fewer than the $missed probes the monitor saw missed"
pass "queue 1: $missed missed on the bus, etf drops $d1, overlimits $o1"
dm=$("$TBSCTL" --json status lm0 | jq '.txqueues[] | select(.queue == 1) | .stats.deadline_misses')
[ "$dm" -ge "$missed" ] || fail "queue 1: Describe's deadline_misses $dm < $missed missed probes"
pass "queue 1: Describe's deadline_misses $dm"

# ---- one socket per monitor ----
assert_eq "$(probe_sockets)" 2 "probe sockets on lm0"
fds_two=$(fds)

# ---- a changed monitor restarts; the tree stays ----
tree=$(handles lm0)
sent1=$(field "$(lte 1)" 2)
write_schedule ', "monitor": {"interval_ms": 200, "frames": 4}' ', "monitor": {"interval_ms": 300, "frames": 2}'
"$TBSCTL" reload >/dev/null || fail "reload with queue 1's monitor changed"
restarted() { [ "$(field "$(lte 1)" 2)" -lt "$sent1" ]; }
wait_until 5 restarted || fail "queue 1's figures did not start again: $(lte 1) (sent $sent1 before)"
assert_eq "$("$TBSCTL" --json status lm0 | jq -r '.txqueues[] | select(.queue == 1) | "\(.monitor.interval_ms),\(.monitor.frames)"')" \
        "300,2" "Describe: queue 1's new setting"
assert_eq "$(handles lm0)" "$tree" "tree unchanged by a monitor change"
assert_eq "$(probe_sockets)" 2 "probe sockets after the restart"
assert_eq "$(fds)" "$fds_two" "tbsd's descriptors after the restart"
grep -q "queue 1: launch monitor stopped" "$TBS_OUT/tbsd.log" || fail "no log line for the stop"

# ---- removing queue 0's key stops its probes and closes its socket ----
write_schedule '' ', "monitor": {"interval_ms": 300, "frames": 2}'
"$TBSCTL" reload >/dev/null || fail "reload without queue 0's monitor"
gone0() { [ -z "$(lte 0)" ]; }
wait_until 5 gone0 || fail "queue 0 still on the bus: $(lte_all)"
assert_eq "$("$TBSCTL" --json status lm0 | jq -c '.txqueues[] | select(.queue == 0) | .monitor')" null \
        "Describe: no monitor object on queue 0"
assert_eq "$(probe_sockets)" 1 "probe sockets after queue 0's key is gone"
assert_eq "$(fds)" "$((fds_two - 1))" "tbsd's descriptors after queue 0's key is gone"
p0=$(etf_stat 100:1 packets)
d0=$(etf_stat 100:1 drops)
sent_q1=$(field "$(lte 1)" 2)
q1_moves() { [ "$(field "$(lte 1)" 2)" -ge $((sent_q1 + 4)) ]; }
# Two more rounds of queue 1 (300 ms each): queue 0 would have had three.
wait_until 10 q1_moves || fail "queue 1 stopped sending too: $(lte 1)"
assert_eq "$(etf_stat 100:1 packets),$(etf_stat 100:1 drops)" "$p0,$d0" "queue 0's etf counters while unmonitored"

# ---- tbsctl remove stops the last one; apply starts it again ----
"$TBSCTL" remove lm0 >/dev/null || fail "tbsctl remove"
empty() { [ "$(lte_all | jq '.data | length')" = 0 ]; }
wait_until 5 empty || fail "LaunchTimeError not empty after remove: $(lte_all)"
assert_eq "$(probe_sockets)" 0 "probe sockets after remove"
assert_eq "$(fds)" "$((fds_two - 2))" "tbsd's descriptors after remove"
"$TBSCTL" apply lm0 >/dev/null || fail "tbsctl apply"
wait_configured lm0
back() { [ "$(field "$(lte 1)" 2)" -gt 0 ]; }
wait_until 10 back || fail "queue 1 not monitored again after apply: $(lte_all)"
assert_eq "$(probe_sockets)" 1 "probe sockets after apply"
assert_eq "$(fds)" "$((fds_two - 1))" "tbsd's descriptors after apply"

# ---- a refused file keeps the monitor; a failed link monitors nothing ----
# offload on a veth does not fit the device: the file is refused, the
# schedule in force stays and its monitor runs on.
jq '.txqueues[1].offload = true' "$conf/lm0.json" > "$conf/lm0.tmp" && mv "$conf/lm0.tmp" "$conf/lm0.json"
"$TBSCTL" reload >/dev/null 2>&1 && fail "reload of a file that does not fit the device succeeded"
assert_eq "$(link_state lm0)" configured "lm0 keeps the schedule in force"
sent1=$(field "$(lte 1)" 2)
moved() { [ "$(field "$(lte 1)" 2)" -gt "$sent1" ]; }
wait_until 10 moved || fail "queue 1's monitor stopped with the refused file: $(lte 1)"
assert_eq "$(probe_sockets)" 1 "probe sockets with a refused file"
# With nothing in force (removed first) the refused file fails the link.
"$TBSCTL" remove lm0 >/dev/null || fail "tbsctl remove"
"$TBSCTL" reload >/dev/null 2>&1 && fail "reload of a file that does not fit the device succeeded"
assert_eq "$(link_state lm0)" failed "lm0 with offload on a veth and nothing in force"
wait_until 5 empty || fail "LaunchTimeError not empty on a failed link: $(lte_all)"
assert_eq "$(probe_sockets)" 0 "probe sockets of a failed link"
assert_eq "$("$TBSCTL" --json status lm0 | jq -c '.txqueues[] | select(.queue == 1) | .monitor.running')" false \
        "Describe: queue 1's monitor not running"
write_schedule '' ', "monitor": {"interval_ms": 300, "frames": 2}'
"$TBSCTL" reload >/dev/null || fail "reload of the fixed file"
wait_configured lm0
wait_until 10 back || fail "queue 1 not monitored again after the fix: $(lte_all)"
assert_eq "$(probe_sockets)" 1 "probe sockets after the fix"
assert_eq "$(fds)" "$((fds_two - 1))" "tbsd's descriptors after the fix"

kill "$TBSD_PID"
wait "$TBSD_PID" || true
pass "launch monitor"

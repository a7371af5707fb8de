# Statistics sampling: the Statistics property and Describe()'s rates follow
# tc's counters, and --metrics-file is rewritten on every sample.
make_veth_to_peer st0 st0p
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/st0.json" st0 200000 500000
start_system_bus
start_tbsd "$conf" --stats-interval 0.2 --metrics-file /run/tbs.prom
wait_configured st0

# UDP with priority 0 goes to class 2 (queues 2-3, the default children).
for i in $(seq 1 40); do echo "sample $i" > /dev/udp/192.0.2.2/9; done
# A sample taken after the packets (the property answers from samples at most 0.2 s old).
prop_queue23() {
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/st0 org.tsn.Tbs.Link Statistics |
                jq '[.data[] | select(.[0] == 2 or .[0] == 3) | .[2]] | add'
}
wait_until 5 sh -c "[ \$(busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/st0 org.tsn.Tbs.Link Statistics | jq '[.data[] | select(.[0] == 2 or .[0] == 3) | .[2]] | add') -ge 40 ]" ||
        fail "Statistics never counted the 40 packets (now $(prop_queue23))"
tc_packets=$(tc -j -s qdisc show dev st0 | jq '[.[] | select(.parent == "100:3" or .parent == "100:4") | .packets] | add')
[ "$tc_packets" -ge 40 ] || fail "tc counted only $tc_packets packets on queues 2-3"

# The typed property: one entry per TX queue, counters as tc shows them.
busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/st0 org.tsn.Tbs.Link Statistics \
        > "$TMPDIR/stats.json"
assert_eq "$(jq -r .type "$TMPDIR/stats.json")" "a(ustttttttttddd)" "Statistics signature"
assert_eq "$(jq '.data | length' "$TMPDIR/stats.json")" 4 "Statistics entries (one per TX queue)"
prop_packets=$(jq '[.data[] | select(.[0] == 2 or .[0] == 3) | .[2]] | add' "$TMPDIR/stats.json")
tc_now=$(tc -j -s qdisc show dev st0 | jq '[.[] | select(.parent == "100:3" or .parent == "100:4") | .packets] | add')
[ "$prop_packets" -le "$tc_now" ] && [ "$prop_packets" -ge 40 ] ||
        fail "Statistics packets $prop_packets, tc $tc_now"
pass "Statistics packets on queues 2-3: $prop_packets (tc: $tc_now)"
assert_eq "$(jq -r '.data[] | select(.[0] == 0) | .[1]' "$TMPDIR/stats.json")" etf "queue 0 kind in Statistics"

# Rates appear once there are two samples of the same qdisc.
rate=$("$TBSCTL" --json status st0 | jq -r '.txqueues[0].rates.interval_s')
[ "$rate" != null ] || fail "no rates in Describe() after several samples"
pass "Describe() has rates (interval ${rate} s)"

# The metrics file: rewritten on every sample, with the queue counters.
[ -f /run/tbs.prom ] || fail "no metrics file"
m1=$(stat -c %Y.%N /run/tbs.prom 2>/dev/null; md5sum < /run/tbs.prom)
grep -q '^tbs_queue_packets_total{interface="st0",device="st0",queue="0",qdisc="etf"} ' /run/tbs.prom ||
        fail "metrics file lacks tbs_queue_packets_total for st0 queue 0: $(head -20 /run/tbs.prom)"
pass "metrics file has tbs_queue_packets_total for st0"
echo "more" > /dev/udp/192.0.2.2/9
ino=$(stat -c %i /run/tbs.prom)
wait_until 5 sh -c "[ \$(stat -c %i /run/tbs.prom) != $ino ]" || fail "the metrics file was not rewritten"
ls /run/tbs.prom.* >/dev/null 2>&1 && fail "a temporary metrics file was left behind"
pass "no temporary metrics file left"

# The daemon's own series and what happened to the link, counted where it
# happens: the start's load and apply, a reload with an invalid file, a
# drift repair (the file is the oracle for the daemon; tc for the repair).
mf=/run/tbs.prom
metric_value() { awk -v k="$1" '$1 == k { print $2 }' "$mf"; }
version=$("$TBSD" --version | awk '{ print $2 }')
assert_eq "$(metric_value "tbs_build_info{version=\"$version\"}")" 1 "tbs_build_info names tbsd's version"
assert_eq "$(metric_value tbs_config_last_reload_successful)" 1 "the start's load succeeded"
t0=$(metric_value tbs_config_last_reload_success_timestamp_seconds)
now=$(date +%s)
awk -v t="$t0" -v now="$now" 'BEGIN { exit !(t > now - 120 && t <= now + 1) }' ||
        fail "last reload success at $t0, now $now"
pass "last reload success time is the start ($t0)"
assert_eq "$(metric_value 'tbs_link_reloads_total{interface="st0",device="st0"}')" 1 "st0 loads at start"
assert_eq "$(metric_value 'tbs_link_applies_total{interface="st0",device="st0"}')" 1 "st0 applies at start"
assert_eq "$(metric_value 'tbs_link_apply_failures_total{interface="st0",device="st0"}')" 0 "st0 failed applies"
grep -q '_per_second\|^tbs_queue_overlimits_total' "$mf" && fail "rates or overlimits still exported"
pass "no per-second gauges, no overlimits counter"

echo '{' > "$conf/broken.json"
busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload >/dev/null 2>&1 || true
wait_until 10 grep -qx 'tbs_config_last_reload_successful 0' "$mf" ||
        fail "a reload with an invalid file does not show: $(grep reload "$mf")"
assert_eq "$(metric_value tbs_config_last_reload_success_timestamp_seconds)" "$t0" \
        "a failed reload keeps the last success time"
assert_eq "$(metric_value 'tbs_link_reloads_total{interface="st0",device="st0"}')" 2 "st0 loads after a reload"
rm "$conf/broken.json"
busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload >/dev/null ||
        fail "Reload of a valid folder failed"
wait_until 10 grep -qx 'tbs_config_last_reload_successful 1' "$mf" || fail "a good reload does not show"
t1=$(metric_value tbs_config_last_reload_success_timestamp_seconds)
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b > a) }' || fail "success time $t1 not after $t0"
pass "a good reload sets the success time again ($t1)"

# Drift: the etf on queue 0 deleted behind tbsd's back is restored (policy enforce).
tc qdisc del dev st0 parent 100:1
wait_until 10 sh -c "tc -j qdisc show dev st0 | jq -e '[.[] | select(.parent == \"100:1\" and .kind == \"etf\")] | length == 1' >/dev/null" ||
        fail "the deleted etf was not restored: $(tc qdisc show dev st0)"
wait_until 5 grep -qx 'tbs_link_drift_repairs_total{interface="st0",device="st0"} 1' "$mf" ||
        fail "the repair was not counted: $(grep st0 "$mf" | grep _total | grep -v queue)"
assert_eq "$(metric_value 'tbs_link_applies_total{interface="st0",device="st0"}')" 2 "st0 applies after the repair"
pass "drift repair counted"

# A schedule that does not fit the device (8 queues on 4): the apply fails,
# counted, the reload too, and the tree and the schedule in force stay.
before=$(handles st0)
sed 's/"count": 2, "offset": 2/"count": 6, "offset": 2/' "$conf/st0.json" > "$conf/st0.json.new"
grep -q '"count": 6' "$conf/st0.json.new" || fail "the test's schedule edit did not apply"
mv "$conf/st0.json.new" "$conf/st0.json"
busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload >/dev/null 2>&1 || true
wait_until 10 grep -qx 'tbs_link_apply_failures_total{interface="st0",device="st0"} 1' "$mf" ||
        fail "the failed apply was not counted: $(grep 'st0' "$mf" | grep 'tbs_link_')"
assert_eq "$(metric_value 'tbs_link_state{interface="st0",device="st0",state="configured"}')" 1 \
        "st0 keeps the schedule in force"
assert_eq "$(metric_value tbs_config_last_reload_successful)" 0 "the reload with the refused file failed"
assert_eq "$(metric_value 'tbs_link_applies_total{interface="st0",device="st0"}')" 2 "no apply counted for the failure"
assert_eq "$(handles st0)" "$before" "the failed apply left the tree as it was"

# The launch-time monitor in the metrics: tbsd's --metrics-file and
# tbsctl metrics carry tbs_launch_error_seconds (histogram: cumulative
# buckets, +Inf = _count, _sum) and the probe counters for each monitored
# queue, and only for those; both pass the format checker and promtool.
# Queue 0 (software etf on veth, delta 5 ms) fills its histogram from
# veth's software time stamps; queue 1 (delta 0: every probe's launch time
# passes before etf may send it) counts misses, exported as
# tbs_launch_probes_dropped_total{reason="missed"}, and its qdisc's
# overlimits (tc, the oracle) count at least as many. tbsctl stats and
# status show the figures and the probe frames sent.
CHECK_METRICS=$TBS_SOURCE_DIR/tests/unit/check-metrics.py

make_veth lm0 lm0p 4
conf=$TMPDIR/conf
mkdir -p "$conf" /run/lm
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
    {"queue": 0, "qdisc": "etf", "delta_ns": 5000000, "offload": false,
     "monitor": {"interval_ms": 100, "frames": 4}},
    {"queue": 1, "qdisc": "etf", "delta_ns": 0, "offload": false,
     "monitor": {"interval_ms": 100, "frames": 2}},
    {"queue": 2, "qdisc": "etf", "delta_ns": 5000000, "offload": false}
  ]
}
EOJ
start_system_bus
start_tbsd "$conf" --stats-interval 0.2 --metrics-file /run/lm/tbs.prom
wait_configured lm0

# sample FILE NAME LABELS: the value of the series NAME{LABELS} in FILE.
sample() {
        awk -v s="$2{$3}" '$1 == s { print $2 }' "$1"
}
q0='device="lm0",queue="0",source="software"'
wait_until 30 sh -c "[ \"\$(awk -v s='tbs_launch_error_seconds_count{$q0}' '\$1 == s { print \$2 }' /run/lm/tbs.prom)\" -ge 8 ] 2>/dev/null" ||
        fail "no stamped probes of queue 0 in the metrics file: $(grep launch /run/lm/tbs.prom | grep -v _bucket)"
cp /run/lm/tbs.prom "$TMPDIR/file.prom"
tc0=$(tc -j -s qdisc show dev lm0 | jq '.[] | select(.parent == "100:1") | .packets')
tc1=$(tc -j -s qdisc show dev lm0 | jq '.[] | select(.parent == "100:2") | .overlimits')
grep '^tbs_launch' "$TMPDIR/file.prom" | grep -v _bucket
"$CHECK_METRICS" "$TMPDIR/file.prom" || fail "the metrics file does not pass the format check"
promtool check metrics < "$TMPDIR/file.prom" || fail "promtool check metrics refuses the metrics file"
pass "the metrics file with the launch families passes both checks"

f=$TMPDIR/file.prom
count0=$(sample "$f" tbs_launch_error_seconds_count "$q0")
assert_eq "$(sample "$f" tbs_launch_error_seconds_bucket "$q0,le=\"+Inf\"")" "$count0" "queue 0: the +Inf bucket is _count"
assert_eq "$(grep -c "^tbs_launch_error_seconds_bucket{$q0," "$f")" 33 "queue 0: 33 buckets"
# cumulative: the counts never go down, bound after bound
assert_eq "$(grep "^tbs_launch_error_seconds_bucket{$q0," "$f" | awk '{ if ($2 < prev) bad = 1; prev = $2 } END { print bad + 0 }')" 0 \
        "queue 0: the buckets are cumulative"
[ -n "$(sample "$f" tbs_launch_error_seconds_sum "$q0")" ] || fail "queue 0: no _sum"
sent0=$(sample "$f" tbs_launch_probes_sent_total 'device="lm0",queue="0"')
missed0=$(sample "$f" tbs_launch_probes_dropped_total 'device="lm0",queue="0",reason="missed"')
unst0=$(sample "$f" tbs_launch_probes_unstamped_total 'device="lm0",queue="0"')
# Every probe sent is stamped, dropped, unstamped or still on its way: at
# most two rounds of 4, since the monitor's sources run after the daemon's
# others (issue 37 point 5), so the metrics file can be written while one
# round's reports wait and the next round has gone out (seen: 6).
[ "$sent0" -ge "$count0" ] && [ $((sent0 - count0 - missed0 - unst0)) -le 8 ] ||
        fail "queue 0: sent $sent0, stamped $count0, missed $missed0, unstamped $unst0"
pass "queue 0: sent $sent0 = stamped $count0 + missed $missed0 + unstamped $unst0 (+ in flight)"
# tc counted the probes that left (nothing else goes through queue 0).
[ "$tc0" -ge "$count0" ] || fail "tc: queue 0 sent $tc0 packets, fewer than the $count0 stamped probes"
pass "tc: queue 0 sent $tc0 packets, at least the $count0 stamped probes"

# Queue 1: misses counted and exported, the qdisc's overlimits agree.
missed1=$(sample "$f" tbs_launch_probes_dropped_total 'device="lm0",queue="1",reason="missed"')
[ "${missed1:-0}" -ge 2 ] || fail "queue 1: missed probes not exported: $(grep 'queue="1"' "$f" | grep -v _bucket)"
[ "$tc1" -ge "$missed1" ] || fail "tc: queue 1 overlimits $tc1 < the $missed1 missed probes"
pass "queue 1: $missed1 missed probes exported, tc counted $tc1 overlimits"
assert_eq "$(sample "$f" tbs_launch_error_seconds_count 'device="lm0",queue="1",source="none"')" 0 \
        "queue 1: no stamped probe, source none"
assert_eq "$(grep -E '^tbs_launch_(error|probes)' "$f" | grep -c 'queue="2"' || true)" 0 \
        "queue 2 (not monitored): no launch series"

# tbsctl metrics: the same families from Describe() and LaunchTimeError.
"$TBSCTL" metrics lm0 > "$TMPDIR/cli.prom" || fail "tbsctl metrics failed"
"$CHECK_METRICS" "$TMPDIR/cli.prom" || fail "tbsctl metrics does not pass the format check"
assert_eq "$(grep -c "^tbs_launch_error_seconds_bucket{$q0," "$TMPDIR/cli.prom")" 33 "tbsctl metrics: queue 0's buckets"
cli_count=$(sample "$TMPDIR/cli.prom" tbs_launch_error_seconds_count "$q0")
[ "$cli_count" -ge "$count0" ] || fail "tbsctl metrics: count $cli_count < the file's earlier $count0"
pass "tbsctl metrics: queue 0's histogram, count $cli_count"
"$TBSCTL" --json metrics lm0 | jq -e '.[] | select(.name == "tbs_launch_error_seconds") | .samples[0].name == "tbs_launch_error_seconds_bucket"' >/dev/null ||
        fail "tbsctl --json metrics: the histogram's samples have no name"

# tbsctl stats and status.
out=$("$TBSCTL" stats lm0)
echo "$out"
assert_contains "$out" "queue 0 launch error: source software, sent " "tbsctl stats: queue 0's launch line"
assert_contains "$out" "queue 1 launch error: source none, sent " "tbsctl stats: queue 1's launch line"
[ "$(grep -c 'launch error' <<<"$out")" = 2 ] || fail "tbsctl stats: launch lines for other queues: $out"
json=$("$TBSCTL" --json stats lm0)
assert_eq "$(jq -r '.txqueues[] | select(.queue == 0) | .monitor | [.source, .count > 0, .p99_ns != null, .interval_ms, .frames] | @csv' <<<"$json")" \
        '"software",true,true,100,4' "tbsctl --json stats: queue 0's monitor object"
assert_eq "$(jq -r '.txqueues[] | select(.queue == 2) | has("monitor")' <<<"$json")" false \
        "tbsctl --json stats: no monitor object for queue 2"
out=$("$TBSCTL" status lm0)
assert_contains "$out" "probe frames sent" "tbsctl status: the probe frames sent"
kill -0 "$TBSD_PID" || fail "tbsd died"

# Statistics agreement: SO_TXTIME traffic through tbsd-configured etf queues
# on a veth pair. On queue 0 (delta 50 ms): frames on time (sent latest
# first), frames whose txtime is already past (refused at enqueue: invalid),
# frames without SO_TXTIME (dropped by etf's socket check). On queue 1
# (delta 0, so every frame's launch time passes before etf may dequeue it):
# deadline misses. The receiver in a second namespace sees exactly the
# on-time frames, in txtime order; tbsd's counters (tbsctl stats --json),
# tbsctl metrics and tbsd's --metrics-file (both checked by the format
# checker), tc -s and the sender's error-queue counts agree exactly
# (etf's "invalid" also holds the frames without SO_TXTIME, which have no
# error queue to report to); stats --watch samples with rates; tbsctl
# selftest reports the same for its own bursts (also on queue 2, in
# deadline mode) with the launch error from veth's software time stamps,
# changes nothing, and is refused without privileges.
#
# Why delta 0 gives deadline misses every time: etf dequeues a frame only
# when now > txtime - delta, and drops it (drops + overlimits, MISSED
# report) when txtime < now; with delta 0 no moment satisfies the first
# without the second.
SEND=$TBS_BUILD_DIR/tests/tools/txtime-send
CHECK_METRICS=$TBS_SOURCE_DIR/tests/unit/check-metrics.py

make_veth st0 st0p 4
ip netns add peer
ip link set st0p netns peer
ip -n peer link set st0p up
ip -n peer link set lo up

conf=$TMPDIR/conf
mkdir -p "$conf"
cat > "$conf/st0.json" <<EOJ
{
  "interface": "st0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 50000000, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 0, "offload": false},
    {"queue": 2, "qdisc": "etf", "delta_ns": 1000000, "offload": false, "deadline_mode": true}
  ]
}
EOJ
start_system_bus
mkdir -p "$TMPDIR/textfile"
mfile=$TMPDIR/textfile/tbsd.prom
start_tbsd "$conf" --stats-interval 0.5 --metrics-file "$mfile"
wait_until 10 sh -c "\"$TBSCTL\" --json status st0 | jq -e '.state == \"configured\"'" ||
        fail "st0 not configured: $("$TBSCTL" status st0 2>&1)"

read -r _ prio0 _ _ delta0 _ < <(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/st0 org.tsn.Tbs.Link GetTxtimeParams u 0)
read -r _ prio1 _ _ delta1 _ < <(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/st0 org.tsn.Tbs.Link GetTxtimeParams u 1)
assert_eq "$delta0/$delta1" "50000000/0" "deltas of queues 0 and 1"

# tc_stat Q FIELD: the counter from tc -s (the independent oracle), now.
tc_stat() {
        tc -j -s qdisc show dev st0 | jq -r --arg p "100:$(($1 + 1))" ".[] | select(.parent == \$p) | .$2"
}
# snapshot: tc -s and tbsctl stats --json once, for snap_tc and snap_tbs
# (every process start costs about half a second in the guest).
snapshot() {
        SNAP_TC=$(tc -j -s qdisc show dev st0)
        SNAP_TBS=$("$TBSCTL" --json stats st0)
}
snap_tc() {
        jq -r --arg p "100:$(($1 + 1))" ".[] | select(.parent == \$p) | .$2" <<<"$SNAP_TC"
}
# tbsd's view of queue Q in the snapshot.
tbs_stat() {
        jq -r --argjson q "$1" ".txqueues[] | select(.queue == \$q) | .stats.$2" <<<"$SNAP_TBS"
}

ON=12 PAST=5 NOTX=4 MISS=7
ip netns exec peer "$SEND" recv st0p "$ON" 15000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
recv_pid=$!
wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start"
"$SEND" send st0 "$prio0" --on-time $ON --past $PAST --no-txtime $NOTX --lead-ns 300000000 > "$TMPDIR/send0.json"
"$SEND" send st0 "$prio1" --on-time $MISS --lead-ns 100000000 > "$TMPDIR/send1.json"
wait "$recv_pid"
s0=$(cat "$TMPDIR/send0.json"); s1=$(cat "$TMPDIR/send1.json"); rx=$(cat "$TMPDIR/recv.json")
echo "queue 0 sender: $s0"; echo "queue 1 sender: $s1"; echo "receiver: $rx"

# What each frame became, by the sender's error queue.
assert_eq "$(jq -c '[.sent, .on_time, .missed, .invalid]' <<<"$s0")" "[$((ON + PAST + NOTX)),$ON,0,$PAST]" \
        "queue 0 sender: sent, on_time, missed, invalid"
assert_eq "$(jq -c '[.sent, .on_time, .missed, .invalid]' <<<"$s1")" "[$MISS,0,$MISS,0]" \
        "queue 1 sender: sent, on_time, missed, invalid"
# The peer received exactly the on-time frames, in txtime order (they were sent latest first).
assert_eq "$(jq -c .seqs <<<"$rx")" "$(jq -c .on_time_seqs <<<"$s0")" "frames received, in txtime order"
assert_eq "$(jq '.txtimes | . == sort' <<<"$rx")" true "receive order is txtime order"

# tc -s: etf counts a frame refused at enqueue in drops only, a missed one in drops and overlimits.
assert_eq "$(tc_stat 0 packets)/$(tc_stat 0 drops)/$(tc_stat 0 overlimits)" "$ON/$((PAST + NOTX))/0" \
        "tc: queue 0 packets/drops/overlimits"
assert_eq "$(tc_stat 1 packets)/$(tc_stat 1 drops)/$(tc_stat 1 overlimits)" "0/$MISS/$MISS" \
        "tc: queue 1 packets/drops/overlimits"

# tbsd's counters (it may sample them on an interval: wait for the sample).
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json stats st0 | jq '.txqueues[] | select(.queue == 1) | .stats.deadline_misses')\" = $MISS ]" ||
        fail "tbsd's deadline misses never reached $MISS: $("$TBSCTL" --json stats st0)"
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json stats st0 | jq '.txqueues[] | select(.queue == 0) | .stats.packets')\" = $ON ]" ||
        fail "tbsd's packets never reached $ON: $("$TBSCTL" --json stats st0)"
snapshot
for q in 0 1; do
        for f in packets bytes drops overlimits; do
                assert_eq "$(tbs_stat $q $f)" "$(snap_tc $q $f)" "tbsd queue $q $f = tc"
        done
done
# etf's own counters and the sender's error queue: deadline misses are the
# MISSED reports; invalid are the INVALID_PARAM reports plus the frames
# without SO_TXTIME (no socket to report to).
assert_eq "$(tbs_stat 0 packets)" "$(jq .on_time <<<"$s0")" "queue 0: packets = sender's on time"
assert_eq "$(tbs_stat 0 deadline_misses)" "$(jq .missed <<<"$s0")" "queue 0: deadline_misses = sender's missed"
assert_eq "$(tbs_stat 0 invalid)" "$(jq '.invalid + .no_txtime' <<<"$s0")" "queue 0: invalid = sender's invalid + no SO_TXTIME"
assert_eq "$(tbs_stat 1 deadline_misses)" "$(jq .missed <<<"$s1")" "queue 1: deadline_misses = sender's missed"
assert_eq "$(tbs_stat 1 invalid)" "$(jq .invalid <<<"$s1")" "queue 1: invalid = sender's invalid"

# tbsctl metrics: valid exposition, same numbers.
"$TBSCTL" metrics > "$TMPDIR/metrics.prom"
"$CHECK_METRICS" "$TMPDIR/metrics.prom" || fail "tbsctl metrics does not pass the format checker"
pass "tbsctl metrics passes the format checker"
metric() {
        awk -v k="$1{interface=\"st0\",device=\"st0\",queue=\"$2\",qdisc=\"etf\"}" '$1 == k { print $2 }' "$TMPDIR/metrics.prom"
}
for q in 0 1; do
        assert_eq "$(metric tbs_queue_packets_total $q)" "$(tbs_stat $q packets)" "metrics queue $q packets"
        assert_eq "$(metric tbs_queue_drops_total $q)" "$(tbs_stat $q drops)" "metrics queue $q drops"
        assert_eq "$(metric tbs_queue_deadline_misses_total $q)" "$(tbs_stat $q deadline_misses)" "metrics queue $q deadline misses"
        assert_eq "$(metric tbs_queue_invalid_total $q)" "$(tbs_stat $q invalid)" "metrics queue $q invalid"
        assert_eq "$(metric tbs_launch_time_offload $q)" 0 "metrics queue $q offload"
done
assert_eq "$(awk '$1 == "tbs_link_state{interface=\"st0\",device=\"st0\",state=\"configured\"}" { print $2 }' "$TMPDIR/metrics.prom")" 1 \
        "metrics link state configured"

# tbsd --metrics-file: rewritten on every sample, passes the checker, same numbers.
wait_until 5 sh -c "grep -qx 'tbs_queue_deadline_misses_total{interface=\"st0\",device=\"st0\",queue=\"1\",qdisc=\"etf\"} $MISS' '$mfile'" ||
        fail "the metrics file never showed $MISS deadline misses: $(cat "$mfile" 2>&1 | grep st0)"
cp "$mfile" "$TMPDIR/file.prom"
"$CHECK_METRICS" "$TMPDIR/file.prom" || fail "tbsd's metrics file does not pass the format checker"
pass "tbsd's metrics file passes the format checker"
# The daemon's own series (version, reloads) are the file's only.
daemon_only='^tbs_build_info{\|^tbs_config_last_reload_'
diff <(grep -v "$daemon_only" "$TMPDIR/file.prom") "$TMPDIR/metrics.prom" ||
        fail "tbsd's metrics file and tbsctl metrics differ (the daemon's own series aside)"
pass "tbsd's metrics file = tbsctl metrics (the daemon's own series aside)"
assert_eq "$(ls -A "$TMPDIR/textfile")" tbsd.prom "no temporary file left in the textfile folder"
grep -q _per_second "$TMPDIR/file.prom" && fail "the metrics file still has per-second gauges"

# tbsctl stats --watch: successive samples with rates, until interrupted.
timeout -s INT 4 "$TBSCTL" --json stats st0 --watch 0.5 > "$TMPDIR/watch.jsonl" || true
n=$(wc -l < "$TMPDIR/watch.jsonl")
[ "$n" -ge 3 ] || fail "stats --watch printed $n samples in 4 s"
assert_eq "$(tail -n1 "$TMPDIR/watch.jsonl" | jq '.txqueues[] | select(.queue == 1) | .rates.deadline_misses_per_second')" 0 \
        "stats --watch: no new deadline misses"
assert_eq "$(tail -n1 "$TMPDIR/watch.jsonl" | jq '.txqueues[] | select(.queue == 1) | .stats.deadline_misses')" "$MISS" \
        "stats --watch: counters"

timeout -s INT 3 "$TBSCTL" stats st0 --watch 0.5 > "$TMPDIR/watch.txt" || true
assert_contains "$(cat "$TMPDIR/watch.txt")" "st0, every 0.5 s" "stats --watch human output"
assert_contains "$(cat "$TMPDIR/watch.txt")" "MISSED/S" "stats --watch human output: rate columns"
assert_eq "$(awk '$1 == 1 && $2 == "etf" { print $6, $7 }' "$TMPDIR/watch.txt" | tail -n1)" "$MISS 0.0" \
        "stats --watch human output: queue 1 deadline misses and their rate"

# tbsctl selftest: its own burst, the same figures from the error queue and the qdisc.
before=$(handles st0)
opts_before=$(tc -j qdisc show dev st0 | jq -c '[.[] | .options]')
ip netns exec peer "$SEND" recv st0p 20 15000 > "$TMPDIR/recv-self.json" 2> "$TMPDIR/recv-self.err" &
recv_pid=$!
wait_until 5 grep -q listening "$TMPDIR/recv-self.err" || fail "receiver did not start"
p0=$(tc_stat 0 packets)
"$TBSCTL" --json selftest st0 0 > "$TMPDIR/self0.json" || fail "selftest of queue 0 failed: $(cat "$TMPDIR/self0.json")"
cat "$TMPDIR/self0.json"
wait "$recv_pid"
self=$(cat "$TMPDIR/self0.json")
assert_eq "$(jq -c '[.sent, .on_time, .missed, .invalid]' <<<"$self")" "[20,20,0,0]" "selftest queue 0: sent, on_time, missed, invalid"
assert_eq "$(jq -c '.queues[0].qdisc | [.packets, .deadline_misses, .invalid]' <<<"$self")" "[20,0,0]" \
        "selftest queue 0: what the qdisc counted"
assert_eq "$(( $(tc_stat 0 packets) - p0 ))" 20 "tc: queue 0 sent the selftest's 20 frames"
assert_eq "$(jq .received <<<"$(cat "$TMPDIR/recv-self.json")")" 20 "the peer received the selftest's frames"
assert_contains "$(jq -r '.queues[0].timestamps' <<<"$self")" "no transmit time stamps" "selftest on veth"
assert_eq "$(jq -r '.queues[0].launch_time_error_ns' <<<"$self")" null "no launch time error distribution on veth"
# The launch-time figures from veth's software stamps (skb_tx_timestamp at
# xmit, CLOCK_REALTIME moved to CLOCK_TAI): one per frame sent on time.
# Software etf sends a frame as soon as now > txtime - delta, so no frame
# leaves more than delta (50 ms) early.
assert_eq "$(jq -r '.queues[0].source' <<<"$self")" software "selftest on veth: software time stamps"
assert_eq "$(jq -r '.queues[0] | [.count, .unstamped, .early + .late <= .count] | @csv' <<<"$self")" "20,0,true" \
        "selftest on veth: a launch error for each on-time frame"
assert_eq "$(jq -r '.queues[0] | [.min_ns >= -50000000, .min_ns <= .p50_ns, .p50_ns <= .p99_ns, .p99_ns <= .max_ns] | @csv' <<<"$self")" \
        "true,true,true,true" "selftest on veth: no frame more than delta early, min <= p50 <= p99 <= max"

m1=$(tc_stat 1 overlimits)
set +e
"$TBSCTL" --json selftest st0 1 --count 10 > "$TMPDIR/self1.json"; rc=$?
set -e
cat "$TMPDIR/self1.json"
self=$(cat "$TMPDIR/self1.json")
assert_eq "$rc" 1 "selftest exit status when frames miss their launch time"
assert_eq "$(jq -c '[.sent, .on_time, .missed, .invalid]' <<<"$self")" "[10,0,10,0]" "selftest queue 1: sent, on_time, missed, invalid"
assert_eq "$(jq -c '.queues[0].qdisc | [.packets, .deadline_misses, .invalid]' <<<"$self")" "[0,10,0]" \
        "selftest queue 1: what the qdisc counted"
assert_eq "$(( $(tc_stat 1 overlimits) - m1 ))" 10 "tc: queue 1 overlimits of the selftest"
assert_eq "$(jq -c '.queues[0] | [.source, .count, .missed, .p50_ns, .p99_ns, .max_ns]' <<<"$self")" \
        '["none",0,10,null,null,null]' "selftest queue 1: no frame left, no launch error"

# A queue in deadline mode: the probe socket must say so too (etf refuses
# every frame of a socket whose deadline mode differs), and etf sends each
# frame as soon as it can.
s2=$("$SEND" send st0 1 --on-time 3 --quiet-ms 200)
assert_eq "$(jq -c '[.sent, .on_time, .invalid]' <<<"$s2")" "[3,0,3]" \
        "a socket without SOF_TXTIME_DEADLINE_MODE on the deadline-mode queue: all invalid"
"$TBSCTL" --json selftest st0 2 --count 10 > "$TMPDIR/self2.json" || fail "selftest of queue 2 failed: $(cat "$TMPDIR/self2.json")"
self=$(cat "$TMPDIR/self2.json")
assert_eq "$(jq -c '.queues[0] | [.deadline_mode, .sent, .on_time, .missed, .invalid]' <<<"$self")" "[true,10,10,0,0]" \
        "selftest queue 2 (deadline mode): sent, on_time, missed, invalid"
assert_eq "$(jq -c '.queues[0].qdisc | [.packets, .drops]' <<<"$self")" "[10,0]" "selftest queue 2: what the qdisc counted"

# Every etf queue at once; human output.
set +e
out=$("$TBSCTL" selftest st0 --count 5 2>&1); rc=$?
set -e
echo "$out"
assert_contains "$out" "st0 queue 0" "selftest of every etf queue"
assert_contains "$out" "sent 5, on time 5, missed 0, invalid 0" "selftest human output, queue 0"
assert_contains "$out" "sent 5, on time 0, missed 5, invalid 0" "selftest human output, queue 1"
assert_contains "$out" "launch error: source software, sent 5, p50 -" "selftest human output: the launch error, early"
assert_contains "$out" "launch error: source none, sent 5, p50 -, p99 -, max -, early 0, late 0, missed 5" \
        "selftest human output: no launch error when every frame missed"
assert_contains "$out" "st0 queue 2 (SO_PRIORITY 1, CLOCK_TAI, delta 1000000 ns, deadline mode, software)" \
        "selftest human output, queue 2"
assert_eq "$(grep -c "^st0 queue" <<<"$out")" 3 "selftest of every etf queue: 3 queues"

# The schedule is untouched.
assert_eq "$(handles st0)" "$before" "qdisc tree after selftest"
assert_eq "$(tc -j qdisc show dev st0 | jq -c '[.[] | .options]')" "$opts_before" "qdisc options after selftest"

# Unprivileged: refused, and it says why.
set +e
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TBSCTL" selftest st0 0 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "selftest exit status without privileges"
assert_contains "$out" "CAP_NET_RAW" "selftest message without privileges"

# Not an etf queue.
set +e
out=$("$TBSCTL" selftest st0 3 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "selftest of a queue without etf"
assert_contains "$out" "no installed etf" "selftest message for a queue without etf"

# Statistics are sampled only while someone consumes them. Without
# --metrics-file the sampler pauses when no bus client has read statistics
# for a few intervals; a read after the pause takes a fresh sample first
# (answers are never stale) and starts the sampler again, and the first
# rate after the pause covers the whole pause. With --metrics-file the file
# is the consumer and the sampler never pauses.
make_veth_to_peer si0 si0p
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/si0.json" si0 200000 500000
start_system_bus
start_tbsd "$conf" --stats-interval 0.2 --log-level debug
wait_configured si0

# count PATTERN: lines of tbsd's log with PATTERN.
count() {
        grep -c "$1" "$TBS_OUT/tbsd.log" || true
}
# wait_count PATTERN N: until the log has N lines with PATTERN.
wait_count() {
        wait_until 20 sh -c "[ \$(grep -c '$1' '$TBS_OUT/tbsd.log') -ge $2 ]"
}
# tc_packets: packets of queues 2-3 (where UDP of priority 0 goes), as tc counts them.
tc_packets() {
        tc -j -s qdisc show dev si0 | jq '[.[] | select(.parent == "100:3" or .parent == "100:4") | .packets] | add'
}

# wait_configured's Describe() started the sampler; nobody reads now.
wait_count "sampling paused" 1 || fail "the sampler did not pause without readers: $(tail -5 "$TBS_OUT/tbsd.log")"
pass "the sampler pauses when nobody reads"

# An idle spell: if the daemon took no sample in it, the first rate after
# it spans the whole spell (with the sampler running it would span 0.2 s).
sleep 2
interval=$("$TBSCTL" --json status si0 | jq -r '.txqueues[0].rates.interval_s')
[ "$interval" != null ] || fail "no rate after the pause"
echo "$interval" | grep -Eq '^[0-9]+(\.[0-9]{1,3})?$' || fail "interval_s $interval is not rounded to ms"
pass "interval_s rounded to ms: $interval"
awk -v i="$interval" 'BEGIN { exit !(i >= 2) }' ||
        fail "the first rate after a 2 s pause spans $interval s: the daemon sampled while nobody read"
pass "no samples while nobody read: the first rate after the pause spans $interval s"

# That read started the sampler again; it pauses again without readers.
[ "$(count "statistics read: sampling every")" -ge 2 ] || fail "the read did not start the sampler again"
wait_count "sampling paused" 2 || fail "the sampler did not pause a second time"
pass "a read starts the sampler again, and it pauses again"

# A read while paused answers with counters taken now, not before the pause.
before=$(tc_packets)
for i in $(seq 1 40); do echo "sample $i" > /dev/udp/192.0.2.2/9; done
busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/si0 org.tsn.Tbs.Link Statistics \
        > "$TMPDIR/stats.json"
after=$(tc_packets)
prop=$(jq '[.data[] | select(.[0] == 2 or .[0] == 3) | .[2]] | add' "$TMPDIR/stats.json")
[ "$prop" -ge $((before + 40)) ] && [ "$prop" -le "$after" ] ||
        fail "Statistics after the pause: $prop packets; tc: $before before the 40 packets, $after after"
pass "Statistics read after the pause is fresh: $prop packets (tc: $before before, $after after)"

# With --metrics-file the sampler keeps rewriting the file with no reader.
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
: > "$TBS_OUT/tbsd.log"
start_tbsd "$conf" --stats-interval 0.2 --metrics-file /run/tbs.prom --log-level debug
wait_until 5 test -f /run/tbs.prom || fail "no metrics file"
inodes=$(stat -c %i /run/tbs.prom)
rewrites() {
        local i
        i=$(stat -c %i /run/tbs.prom)
        case " $inodes " in *" $i "*) ;; *) inodes="$inodes $i" ;; esac
        [ "$(wc -w <<<"$inodes")" -ge 3 ]
}
# Not wait_until: rewrites() keeps its list in this shell.
deadline=$((SECONDS + 5 * ${TBS_TEST_TIMEOUT_FACTOR%.*}))
until rewrites; do
        [ "$SECONDS" -lt "$deadline" ] || fail "the metrics file was not rewritten while nobody read (inodes: $inodes)"
        sleep 0.05
done
[ "$(count "sampling paused")" = 0 ] || fail "the sampler paused although the metrics file consumes it"
pass "with --metrics-file the sampler runs without readers"

# Restart safety: SIGKILL and a restart leave traffic untouched: no qdisc is
# re-created (same handles) and counters keep counting.
make_veth_to_peer rs0 rs0p
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/rs0.json" rs0 200000 500000
start_system_bus
start_tbsd "$conf"
wait_configured rs0
before=$(handles rs0)

# UDP through the default children (priority 0 maps to class 2: queues 2-3).
send_udp() { for i in $(seq 1 "$1"); do echo "probe $i" > /dev/udp/192.0.2.2/9; done; }
send_udp 5
pk0=$(tc -j -s qdisc show dev rs0 | jq '[.[] | select(.root) | .packets][0]')
[ "$pk0" -gt 0 ] || fail "no packets counted before the restart"

kill -KILL "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
start_tbsd "$conf"
wait_configured rs0
assert_eq "$(handles rs0)" "$before" "handles after SIGKILL and restart"
assert_eq "$(grep -c 'rs0: applied' "$TBS_OUT/tbsd.log")" 1 "applies of rs0 over both runs (the restarted tbsd sent nothing)"
send_udp 3
pk1=$(tc -j -s qdisc show dev rs0 | jq '[.[] | select(.root) | .packets][0]')
[ "$pk1" -gt "$pk0" ] || fail "counters restarted: $pk0 before, $pk1 after"
pass "counters kept counting ($pk0 -> $pk1)"

# Per-class max SDU (issue 24, part 3) on Linux 6.1, which knows
# TCA_TAPRIO_ATTR_TC_ENTRY: root.max_sdu is installed, read back through
# tbsd's own dump (tbsctl status --json), compared (an unchanged file stays
# unchanged), changed in place (handles stay), and the kernel enforces it:
# a datagram above the class's limit is dropped by taprio, one below goes
# out. (iproute2 6.1's tc neither sets nor prints max-sdu: the kernel's
# drop counter is the independent oracle.) The refusal on a kernel without
# TC entries cannot be shown here; the unit tests replay such a dump.
make_veth ms0 ms0p 4
ip addr add 10.25.0.1/24 dev ms0
ip addr add 10.25.0.2/24 dev ms0p
ip netns add peer
ip link set ms0p netns peer
ip -n peer addr add 10.25.0.2/24 dev ms0p
ip -n peer link set ms0p up
peer_mac=$(ip -n peer -j link show ms0p | jq -r '.[0].address')
ip neigh replace 10.25.0.2 lladdr "$peer_mac" dev ms0 nud permanent

conf=$TMPDIR/conf
mkdir -p "$conf"
# Priority 0 (a plain socket) is traffic class 1, queue 1.
write_schedule() {
        cat > "$conf/ms0.json" <<EOJ
{
  "interface": "ms0",
  "root": {
    "qdisc": "taprio", "num_tc": 3,
    "priority_map": [1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ],
    "max_sdu": $1,
    "entries": [ {"gate_mask": "0x7", "interval_ns": 1000000}, {"gate_mask": "0x5", "interval_ns": 1000000} ]
  }
}
EOJ
}
write_schedule "[0, 1000, 0]"
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || fail "tbsd --once: $out"
assert_contains "$out" "ms0: applied" "first apply"
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || fail "tbsd --once: $out"
assert_contains "$out" "ms0: unchanged" "the same file again: compared with the kernel's max SDUs"

start_system_bus
start_tbsd "$conf"
wait_until 20 sh -c "\"$TBSCTL\" --json status ms0 | jq -e '.state == \"configured\"'" ||
        fail "ms0 not configured: $("$TBSCTL" status ms0 2>&1)"
assert_eq "$("$TBSCTL" --json status ms0 | jq -c .root.max_sdu)" "[0,1000,0]" "tbsd's dump: the installed max SDUs"
assert_contains "$("$TBSCTL" status ms0)" "Max SDU: 0 1000 0" "tbsctl status"
before=$(handles ms0)

root_drops() {
        tc_j -s qdisc show dev ms0 | jq '.[] | select(.root == true) | .drops'
}
# send BYTES: one UDP datagram of BYTES payload bytes from a plain socket.
send() {
        head -c "$1" /dev/zero > /dev/udp/10.25.0.2/9
}
d0=$(root_drops)
send 900
send 1200
assert_eq "$(( $(root_drops) - d0 ))" 1 "taprio drops the datagram above 1000 bytes of SDU, not the one below"

write_schedule "[0, 600, 0]"
"$TBSCTL" reload || fail "reload failed"
assert_eq "$("$TBSCTL" --json status ms0 | jq -c .root.max_sdu)" "[0,600,0]" "max SDU changed"
assert_eq "$(handles ms0)" "$before" "handles after a max SDU change"
assert_contains "$(tail -n 2 "$TBS_OUT/tbsd.log")" "root changed in place" "the root was changed in place, not replaced"
d0=$(root_drops)
send 500
send 900
assert_eq "$(( $(root_drops) - d0 ))" 1 "the new limit holds at once"

write_schedule "[0, 0, 0]"
"$TBSCTL" reload || fail "reload failed"
assert_eq "$("$TBSCTL" --json status ms0 | jq -c .root.max_sdu)" "[0,0,0]" "no limit again"
d0=$(root_drops)
send 1400
assert_eq "$(( $(root_drops) - d0 ))" 0 "0 is no limit"
assert_eq "$(handles ms0)" "$before" "handles at the end"

# A file that does not give one entry per class is refused whole, the tree stays.
write_schedule "[0, 600]"
"$TBSCTL" reload 2>"$TMPDIR/reload.err" && fail "a reload with a bad max_sdu succeeded"
assert_contains "$(cat "$TMPDIR/reload.err")" "root.max_sdu: must have one entry per traffic class (num_tc is 3), got 2" \
        "the refusal names the field"
assert_eq "$(handles ms0)" "$before" "the tree after a refused file"

# taprio's offload statistics (Linux 6.5+) come only from a driver that
# offloads taprio and counts them: a veth's software taprio has none, on
# 6.1 and 6.12 alike, and tbsd invents none (no keys, no series).
assert_eq "$("$TBSCTL" --json status ms0 | jq -c '.root.stats | [has("window_drops"), has("tx_overruns")]')" \
        "[false,false]" "no offload statistics in the root's stats"
assert_eq "$("$TBSCTL" --json stats ms0 | jq -c 'has("root_offload_stats")')" false "none in tbsctl stats"
if "$TBSCTL" metrics | grep -E '^tbs_taprio_(window_drops|tx_overruns)_total\{'; then
        fail "tbsctl metrics has offload statistics of a software taprio"
fi
pass "no tbs_taprio_* series for a software taprio"

# A first schedule with its base time an hour ahead: Linux 6.12 dumps the
# per-class max SDU of the running schedule only, so none until then (6.1
# dumps them whatever runs). The apply reads the root back without taking
# that for a kernel that lacks them, and the same file again is unchanged.
make_veth fu0 fu0p 4
base=$(( ($(date +%s) + 3600 + 37) * 1000000000 ))
cat > "$conf/fu0.json" <<EOJ
{ "interface": "fu0",
  "root": { "qdisc": "taprio", "num_tc": 2, "clockid": "CLOCK_TAI", "base_time_ns": $base,
            "priority_map": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}], "max_sdu": [0, 800],
            "entries": [{"gate_mask": "0x3", "interval_ns": 500000}, {"gate_mask": "0x1", "interval_ns": 500000}] } }
EOJ
kill "$TBSD_PID"
wait "$TBSD_PID" || true
rm -f "$conf/ms0.json"
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || fail "tbsd --once with a future base time: $out"
assert_eq "$out" "fu0: applied" "a first schedule waiting for its base time"
echo "fu0: $(tc -j -d qdisc show dev fu0 | jq -c '.[] | select(.root) | .options | {"max-sdu": .["max-sdu"], admin: (.admin != null)}')"
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || fail "tbsd --once again: $out"
assert_eq "$out" "fu0: unchanged" "the same file again while it waits"

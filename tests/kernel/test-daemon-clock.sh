# The clock state drives the link state: without ptp4l the link is
# degraded; with ptp4l (here the grandmaster itself, software time stamps)
# it is configured; killing ptp4l degrades it again and a restart recovers.
# Every change is an event in tbsctl monitor and the log.
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null || fail "cannot set the kernel TAI offset"
make_veth ck0 ck0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/ck0.json" ck0 200000 500000
jq '. + {"clock": {"ptp4l_socket": "/run/ptp4l-ck0", "max_master_offset_ns": 1000000000}}' "$conf/ck0.json" \
        > "$conf/ck0.tmp" && mv "$conf/ck0.tmp" "$conf/ck0.json"
start_system_bus
start_tbsd "$conf" --clock-interval 0.2
start_monitor

state_is() { [ "$("$TBSCTL" --json status ck0 | jq -r .state)" = "$1" ]; }
clock_is() { [ "$("$TBSCTL" --json clock ck0 | jq -r .state)" = "$1" ]; }

wait_until 3 clock_is no-ptp4l || fail "clock state $("$TBSCTL" --json clock ck0 | jq -r .state) without ptp4l"
wait_until 2 state_is degraded || fail "link state $(link_state ck0) without ptp4l"
assert_contains "$("$TBSCTL" --json status ck0 | jq -r .state_reason)" "no-ptp4l" "state reason names the clock"
pass "degraded without ptp4l"

start_ptp4l() {
        ptp4l -i ck0 -S -2 --uds_address=/run/ptp4l-ck0 -m >>"$TBS_OUT/ptp4l.log" 2>&1 &
        PTP4L_PID=$!
}
start_ptp4l
wait_until 30 state_is configured || fail "not configured with ptp4l: $("$TBSCTL" --json clock ck0)"
c=$("$TBSCTL" --json clock ck0)
assert_eq "$(jq -r .state <<<"$c")" no-phc "clock state with ptp4l on a veth (no PHC)"
assert_contains "$(jq -r .port_state <<<"$c")" MASTER "port state"
assert_eq "$(jq -r .tai_offset_s <<<"$c")" 37 "TAI offset"
pmc_state=$(pmc -u -b 0 -s /run/ptp4l-ck0 'GET PORT_DATA_SET' | awk '$1 == "portState" { print $2 }')
assert_eq "$(jq -r .port_state <<<"$c")" "$pmc_state" "port state agrees with pmc"
expect_event ck0 clock

kill "$PTP4L_PID"
wait "$PTP4L_PID" 2>/dev/null || true
wait_until 3 state_is degraded || fail "still $(link_state ck0) after ptp4l stopped"
pass "degraded after ptp4l stopped"
start_ptp4l
wait_until 30 state_is configured || fail "not configured after ptp4l restarted"
pass "configured again after ptp4l restarted"
[ "$(grep -c ' ck0 *clock ' "$TBS_OUT/monitor.log")" -ge 3 ] || fail "monitor shows fewer than 3 clock changes"
pass "monitor shows every clock change"
kill "$PTP4L_PID"

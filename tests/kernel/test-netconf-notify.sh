# issue 40: notifications (RFC 5277). A link whose schedule checks a
# ptp4l is configured while ptp4l runs; ncclient subscribes
# (create-subscription) and ptp4l is stopped: the client receives tbsd's
# link-event (kind clock) and link-state-change (degraded, with the
# reason), sent by the server module from tbsd's Event signal and the
# Link's State property; ptp4l started again, link-state-change
# configured.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null || fail "cannot set the kernel TAI offset"
make_veth ck0 ck0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"
write_mqprio_schedule "$conf/ck0.json" ck0 200000 500000
jq '. + {"clock": {"ptp4l_socket": "/run/ptp4l-ck0", "max_master_offset_ns": 1000000000}}' "$conf/ck0.json" \
        > "$conf/ck0.tmp" && mv "$conf/ck0.tmp" "$conf/ck0.json"
start_system_bus
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup --clock-interval 0.2
state_is() { [ "$("$TBSCTL" --json status ck0 | jq -r .state)" = "$1" ]; }
start_ptp4l() {
        ptp4l -i ck0 -S -2 --uds_address=/run/ptp4l-ck0 -m >>"$TBS_OUT/ptp4l.log" 2>&1 &
        PTP4L_PID=$!
}
start_ptp4l
wait_until 30 state_is configured || fail "not configured with ptp4l: $("$TBSCTL" --json clock ck0)"
pass "ck0 configured with ptp4l"

start_netconf 65534
notes=$TMPDIR/notes
HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" notify 120 \
        > "$notes" 2>"$TBS_OUT/notify.err" &
CLIENT_PID=$!
wait_until 30 grep -q subscribed "$notes" || fail "ncclient did not subscribe: $(cat "$TBS_OUT/notify.err")"
pass "ncclient subscribed"

kill "$PTP4L_PID"
wait "$PTP4L_PID" 2>/dev/null || true
wait_until 10 state_is degraded || fail "ck0 not degraded without ptp4l"
wait_until 10 grep -q "^link-state-change interface=ck0 state=degraded" "$notes" ||
        fail "no link-state-change degraded: $(cat "$notes")"
cat "$notes"
assert_contains "$(grep "^link-state-change interface=ck0 state=degraded" "$notes")" "reason=clock no-ptp4l" \
        "the notification's reason names the clock"
wait_until 10 grep -q "^link-event interface=ck0 kind=clock message=.* -> no-ptp4l" "$notes" ||
        fail "no link-event of kind clock: $(cat "$notes")"
pass "link-event: $(grep '^link-event interface=ck0 kind=clock' "$notes" | tail -1)"
st=$(client state ck0)
echo "$st"
assert_contains "$st" "link-state degraded" "get: ck0's link-state while ptp4l is stopped"
assert_contains "$st" "clock-state no-ptp4l" "get: ck0's clock-state"
grep -q "^link-state-reason clock no-ptp4l" <<<"$st" || fail "get: ck0's link-state-reason: $st"
pass "get: ck0's link-state-reason names the clock"

start_ptp4l
wait_until 30 state_is configured || fail "not configured again with ptp4l"
wait_until 10 grep -q "^link-state-change interface=ck0 state=configured" "$notes" ||
        fail "no link-state-change configured: $(cat "$notes")"
pass "link-state-change configured after ptp4l's restart"
kill "$CLIENT_PID" "$PTP4L_PID" 2>/dev/null || true
stop_netconf

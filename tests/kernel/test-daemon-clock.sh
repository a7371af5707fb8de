# The clock state drives the link state: without ptp4l the link is
# degraded; with ptp4l (here the grandmaster itself, software time stamps)
# it is configured; killing ptp4l degrades it again and a restart recovers.
# Every change is an event in tbsctl monitor and the log.
# With an argument, linuxptp from that folder (tests/kernel/linuxptp4-run
# passes the unpacked 4.2) instead of the host's 3.1.1.
if [ -n "${1:-}" ]; then
        PATH=${1%/}/usr/sbin:$PATH
        echo "linuxptp $(ptp4l -v) from $1"
fi
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

# Every PropertiesChanged of ck0, as the bus carried it (busctl is the oracle).
busctl --system monitor --json=short \
        --match "type='signal',member='PropertiesChanged',path='/org/tsn/Tbs/link/ck0'" \
        > "$TBS_OUT/props.json" 2>/dev/null &
BUSMON_PID=$!
wait_until 3 clock_is no-ptp4l || fail "clock state $("$TBSCTL" --json clock ck0 | jq -r .state) without ptp4l"
wait_until 2 state_is degraded || fail "link state $(link_state ck0) without ptp4l"
assert_contains "$("$TBSCTL" --json status ck0 | jq -r .state_reason)" "no-ptp4l" "state reason names the clock"
pass "degraded without ptp4l"

# One truth: StateReason quotes the clock's current reason, also when only
# the reason changes in the same state (it once kept the reason of the last
# state change: "port state FAULTY" beside a clock saying "port state
# LISTENING"). A socket file nobody reads turns "no ptp4l socket" into
# "nothing listens", both no-ptp4l.
reasons_agree() {
        local st
        st=$("$TBSCTL" --json status ck0)
        [ "$(jq -r .state_reason <<<"$st")" = "clock $(jq -r .clock.state <<<"$st"): $(jq -r .clock.reason <<<"$st")" ] &&
                grep -q -- "$1" <<<"$(jq -r .clock.reason <<<"$st")"
}
wait_until 3 reasons_agree "no ptp4l socket at /run/ptp4l-ck0" ||
        fail "state reason and clock reason differ: $("$TBSCTL" --json status ck0 | jq -c '[.state_reason, .clock.reason]')"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).bind(sys.argv[1])' /run/ptp4l-ck0
wait_until 3 reasons_agree "nothing listens on /run/ptp4l-ck0" ||
        fail "StateReason did not follow the clock's new reason: $("$TBSCTL" --json status ck0 | jq -c '[.state_reason, .clock.reason]')"
"$TBSCTL" status ck0 > "$TMPDIR/human"
grep -q "State: degraded - clock no-ptp4l: nothing listens on /run/ptp4l-ck0" "$TMPDIR/human" &&
        grep -q "Clock: no-ptp4l - nothing listens on /run/ptp4l-ck0" "$TMPDIR/human" ||
        fail "tbsctl status shows two truths: $(cat "$TMPDIR/human")"
pass "a new clock reason in the same state reaches StateReason and tbsctl status"
assert_eq "$(busctl --system get-property org.tsn.Tbs /org/tsn/Tbs/link/ck0 org.tsn.Tbs.Link StateReason)" \
        "s \"clock no-ptp4l: nothing listens on /run/ptp4l-ck0 (ptp4l not running)\"" "StateReason property"
rm -f /run/ptp4l-ck0

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
# The metrics: the port state as a state-set (pmc is the oracle), the ptp4l
# the link's check asks, the system's TAI offset once, the last check's time.
"$TBSCTL" metrics > "$TMPDIR/ck.prom"
mv_() { awk -v k="$1" '$1 == k { print $2 }' "$TMPDIR/ck.prom"; }
assert_eq "$(mv_ "tbs_ptp_port_state{interface=\"ck0\",device=\"ck0\",state=\"$pmc_state\"}")" 1 \
        "metrics: port state $pmc_state (pmc)"
assert_eq "$(grep -c '^tbs_ptp_port_state{interface="ck0",.*} 1$' "$TMPDIR/ck.prom")" 1 "metrics: one port state is 1"
assert_eq "$(mv_ 'tbs_link_ptp4l_info{interface="ck0",device="ck0",ptp4l="/run/ptp4l-ck0"}')" 1 "metrics: ck0's ptp4l"
assert_eq "$(mv_ tbs_clock_tai_offset_seconds)" 37 "metrics: the TAI offset, one series without labels"
checked=$(mv_ 'tbs_clock_last_check_timestamp_seconds{interface="ck0",device="ck0"}')
now=$(date +%s)
awk -v t="$checked" -v now="$now" 'BEGIN { exit !(t > now - 10 && t <= now + 1) }' ||
        fail "metrics: last clock check at $checked, now $now"
pass "metrics: last clock check $checked (now $now)"
expect_event ck0 clock

# The change no-ptp4l -> no-phc came in one PropertiesChanged carrying
# ClockState with State and StateReason, and the reason-only change as
# StateReason alone (no ClockState: that did not change).
changed() {
        jq -c 'select(.member == "PropertiesChanged") | .payload.data[1] | with_entries(.value |= .data)' \
                "$TBS_OUT/props.json"
}
wait_until 3 sh -c "grep -q 'no-phc' '$TBS_OUT/props.json'" || fail "no PropertiesChanged with no-phc: $(cat "$TBS_OUT/props.json")"
sig=$(changed | jq -c 'select(.ClockState == "no-phc")' | head -1)
assert_eq "$(jq -r .State <<<"$sig")" configured "State in the signal that carries ClockState no-phc"
assert_eq "$(jq -r .StateReason <<<"$sig")" "schedule installed; clock no-phc" "StateReason in the same signal"
sig=$(changed | jq -c 'select(.StateReason != null and (.StateReason | test("nothing listens")))' | head -1)
[ -n "$sig" ] || fail "no PropertiesChanged for the reason-only change: $(changed)"
assert_eq "$(jq -r 'has("ClockState")' <<<"$sig")" false "ClockState in the reason-only signal"
changed | jq -e -s 'map(select(has("ClockState"))) | all(has("StateReason"))' >/dev/null ||
        fail "a ClockState change came without StateReason: $(changed)"
pass "clock changes and StateReason travel in the same PropertiesChanged"
kill "$BUSMON_PID" 2>/dev/null || true

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

# What the schedule declares stays visible when nothing is installed: a
# link removed with tbsctl remove (pending) and one whose schedule the
# device refuses (failed: offload on a veth) show their declared clock and
# offload, and why the kernel has none of it.
"$TBSCTL" remove ck0
st=$("$TBSCTL" --json status ck0)
assert_eq "$(jq -r .state <<<"$st")" pending "state after remove"
assert_eq "$(jq -r .clock.state <<<"$st")" unsynced "clock state of a removed link with a clock section"
assert_eq "$(jq -r .clock.reason <<<"$st")" "not checked while the schedule is not installed (pending)" "clock reason after remove"
assert_eq "$(jq -r .declared.clock.max_master_offset_ns <<<"$st")" 1000000000 "declared clock after remove"
assert_eq "$(jq -r .declared.clock.ptp4l_socket <<<"$st")" /run/ptp4l-ck0 "declared ptp4l socket after remove"
assert_eq "$(busctl --system get-property org.tsn.Tbs /org/tsn/Tbs/link/ck0 org.tsn.Tbs.Link ClockState)" \
        's "unsynced"' "ClockState property after remove"
"$TBSCTL" status ck0 > "$TMPDIR/human"
cat "$TMPDIR/human"
grep -q "Clock: unsynced - not checked while the schedule is not installed (pending)" "$TMPDIR/human" ||
        fail "removed link: clock line wrong"
grep -q "Clock declared: ptp4l /run/ptp4l-ck0, domain 0, max master offset 1000000000 ns" "$TMPDIR/human" ||
        fail "removed link: no declared clock"
grep -q "Queue 0: not installed (kernel: .*); declared etf, CLOCK_TAI, delta 200000 ns, offload requested auto" \
        "$TMPDIR/human" || fail "removed link: queue 0 does not show what is declared"
pass "a removed link shows its declared clock and queues"

make_veth ck1 ck1p 4
write_mqprio_schedule "$conf/ck1.json" ck1 200000 500000
jq '.txqueues[0].offload = true | . + {"clock": {"ptp4l_socket": "/run/ptp4l-ck1", "max_phc_offset_ns": 5000}}' \
        "$conf/ck1.json" > "$conf/ck1.tmp" && mv "$conf/ck1.tmp" "$conf/ck1.json"
"$TBSCTL" reload || true
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status ck1 | jq -r .state)\" = failed ]" ||
        fail "ck1 with offload on a veth is $(link_state ck1)"
st=$("$TBSCTL" --json status ck1)
assert_eq "$(jq -r .txqueues[0].offload_requested <<<"$st")" true "failed link: offload_requested (the old key, a boolean)"
assert_eq "$(jq -r .txqueues[0].offload_requested_mode <<<"$st")" on "failed link: offload_requested_mode"
assert_eq "$(jq -r .txqueues[0].installed <<<"$st")" false "failed link: queue 0 installed"
assert_eq "$(jq -r .clock.state <<<"$st")" unsynced "failed link: clock state"
assert_eq "$(jq -r .clock.reason <<<"$st")" "not checked while the schedule is not installed (failed)" "failed link: clock reason"
assert_eq "$(jq -r .declared.clock.max_phc_offset_ns <<<"$st")" 5000 "failed link: declared clock"
assert_eq "$(jq -r .declared.txqueues[0].offload <<<"$st")" true "failed link: declared offload"
"$TBSCTL" status ck1 > "$TMPDIR/human"
cat "$TMPDIR/human"
grep -q "Queue 0: not installed (kernel: .*); declared etf, CLOCK_TAI, delta 200000 ns, offload requested on" \
        "$TMPDIR/human" || fail "failed link: queue 0 does not show offload requested on"
grep -q "Queue 1: .*offload requested off" "$TMPDIR/human" || fail "failed link: queue 1 does not show offload requested off"
grep -q "State: failed - " "$TMPDIR/human" || fail "failed link: no reason"
grep -q "Clock declared: ptp4l /run/ptp4l-ck1, domain 0, max master offset 100 ns, max PHC offset 5000 ns" \
        "$TMPDIR/human" || fail "failed link: no declared clock"
pass "a failed link shows its declared offload and clock, and why nothing is installed"

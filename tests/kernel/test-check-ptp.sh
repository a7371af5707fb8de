# Schedules that would break time sync (lib/schedule-safety.c): tbsd
# --check and tbsctl validate refuse a taprio whose cycle never opens PTP's
# traffic class (ptp-gate) and an mqprio whose PTP queue has an etf
# (ptp-etf), each with one line naming the file, the field, the check and
# how to allow it; the running daemon keeps the tree it had (tc -j is the
# oracle) and installs the file once it says "allow".
make_veth va vb 4
conf=$TMPDIR/ptp.d
mkdir -p "$conf"

check_dir() {
        set +e
        out=$("$TBSD" --check --config-dir "$conf" 2>"$TMPDIR/check.err")
        rc=$?
        set -e
        err=$(cat "$TMPDIR/check.err")
}

# taprio_file GATE_MASK_OF_SECOND_ENTRY [ALLOW_JSON]: priority 0 (ptp4l's)
# goes to class 1 (queues 2-3); the second entry opens MASK.
taprio_file() {
        local allow=""
        [ -z "${2:-}" ] || allow=", \"allow\": $2"
        cat > "$conf/va.json" <<EOJ
{
  "interface": "va",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 2, "clockid": "CLOCK_TAI",
    "priority_map": [1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [{"count": 2, "offset": 0}, {"count": 2, "offset": 2}],
    "base_time_ns": 1000000000, "cycle_time_ns": 1000000,
    "entries": [{"gate_mask": 1, "interval_ns": 300000}, {"gate_mask": $1, "interval_ns": 700000}]
  }$allow
}
EOJ
}

# 1. A good schedule, installed by the daemon.
taprio_file 2
check_dir
assert_eq "$rc" 0 "check, PTP's class open: exit code"
assert_eq "$err" "" "check, PTP's class open: stderr"
start_system_bus
start_tbsd "$conf"
wait_configured va
good=$(tc -j qdisc show dev va | jq -c '[.[] | select(.kind == "taprio") | .options.schedule]')
assert_contains "$good" '"gatemask":"0x2"' "the good schedule is installed"

# 2. The second entry opens class 0 too, never class 1: PTP starves.
taprio_file 1
# starve NS SPEED [NOTE]: the line, with the frame time at the link speed
# (veth says 10000 Mbit/s; without a device 1000 is assumed).
starve() {
        echo "$conf/va.json: root.entries: ptp-gate: traffic class 1 carries PTP (clock.ptp_priority 0 through \
root.priority_map), but no entry opens it; a maximum-size frame (1542 bytes on the wire) takes $1 ns at \
$2 Mbit/s${3:-}, so ptp4l's messages would wait for a gate that never lets them out; open class 1 for at least \
$1 ns in one entry of every cycle; to accept it, add \"ptp-gate\" to \"allow\""
}
check_dir
assert_eq "$rc" 1 "check, PTP starved: exit code"
assert_eq "$err" "$(starve 1234 10000)" "check, PTP starved: the one line, at veth's speed"
set +e
vout=$("$TBSCTL" validate --device va "$conf/va.json" 2>"$TMPDIR/validate.err"); vrc=$?
set -e
assert_eq "$vrc" 1 "validate --device va, PTP starved: exit code"
assert_eq "$(cat "$TMPDIR/validate.err")" "$(starve 1234 10000)" "validate --device va, PTP starved: the same line"
assert_eq "$vout" "" "validate, PTP starved: nothing on stdout"
set +e
"$TBSCTL" validate "$conf/va.json" 2>"$TMPDIR/validate.err"; vrc=$?
set -e
assert_eq "$vrc" 1 "validate without a device, PTP starved: exit code"
assert_eq "$(cat "$TMPDIR/validate.err")" "$(starve 12336 1000 " (assumed: the link speed is not known)")" \
        "validate without a device: the line at the assumed speed"

# The daemon refuses it too (Reload() names it) and keeps the tree it had.
set +e
rout=$("$TBSCTL" reload 2>&1); rrc=$?
set -e
assert_eq "$rrc" 1 "reload with PTP starved: exit code"
assert_contains "$rout" "va.json: root.entries: ptp-gate: traffic class 1 carries PTP" "reload names the check"
wait_until 5 sh -c "\"$TBSCTL\" --json status va | jq -r .state_reason | grep -q ptp-gate" ||
        fail "no ptp-gate in va's StateReason: $("$TBSCTL" status va 2>&1)"
assert_eq "$(tc -j qdisc show dev va | jq -c '[.[] | select(.kind == "taprio") | .options.schedule]')" "$good" \
        "va keeps the previous tree"
pass "the daemon kept the previous tree: $("$TBSCTL" --json status va | jq -r .state_reason)"

# 3. The same file with "allow": accepted, and installed.
taprio_file 1 '["ptp-gate"]'
check_dir
assert_eq "$rc" 0 "check, PTP starved but allowed: exit code"
assert_eq "$err" "" "check, allowed: stderr"
"$TBSCTL" reload
wait_until 5 sh -c "tc -j qdisc show dev va | jq -e '[.[] | select(.kind == \"taprio\") | .options.schedule[1].gatemask] == [\"0x1\"]' >/dev/null" ||
        fail "the allowed schedule was not installed: $(tc -j qdisc show dev va)"
wait_configured va
pass "the allowed schedule is installed"

# 4. An unknown name in "allow" is refused.
taprio_file 2 '["ptp-gates"]'
check_dir
assert_eq "$rc" 1 "check, unknown allow name: exit code"
assert_eq "$err" "$conf/va.json: allow[0]: unknown check \"ptp-gates\"; expected one of \"ptp-gate\", \"ptp-etf\", \
\"assist-delay\", \"delta-cycle\", \"base-time\", \"software-gate-interval\"" "check, unknown allow name: the line"

# 5. ptp-etf: an mqprio whose PTP class (2: queues 2-3) has an etf on queue 2.
cat > "$conf/va.json" <<'EOJ'
{
  "interface": "va",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}]
  },
  "txqueues": [{"queue": 2, "qdisc": "etf", "delta_ns": 300000, "offload": false}]
}
EOJ
check_dir
assert_eq "$rc" 1 "check, etf on PTP's queue: exit code"
assert_eq "$err" "$conf/va.json: txqueues[0]: ptp-etf: queue 2 carries PTP (traffic class 2, clock.ptp_priority 0), \
and etf drops every packet without a launch time, ptp4l's included; map priority 0 (root.priority_map[0]) to a \
traffic class whose queues have no etf; to accept it, add \"ptp-etf\" to \"allow\"" "check, etf on PTP's queue: the line"
# ptp4l at priority 3 (class 0, queue 0, no etf) is fine.
jq '. + {"clock": {"ptp_priority": 3}}' "$conf/va.json" > "$TMPDIR/p3.json"
mv "$TMPDIR/p3.json" "$conf/va.json"
check_dir
assert_eq "$rc" 0 "check, clock.ptp_priority 3: exit code"
# (--check also warns that the running taprio root would be re-created.)
case "$err" in *ptp-*) fail "check, clock.ptp_priority 3: a safety finding: $err" ;; esac
pass "check, clock.ptp_priority 3: no safety finding"

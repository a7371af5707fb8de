# issue 46 point 6 (first weakness): the schedule group's rights are
# exactly "schedules". A member of tbsd --schedule-group (uid 65534 in
# nogroup) giving a document with "allow" (a 20 us software gate that the
# software-gate-interval check refuses), "sockets" (its own group, then
# launch-time UDP sockets from the broker) or an etf's "skip_sock_check"
# under mqprio is refused by default: one line naming the caller, the key,
# the reason and the option that widens it; tc unchanged, nothing kept,
# the refusal logged; in ApplySchedules one such document refuses the
# whole call. Root keeps every right. tbsd --schedule-group-may=allow,sockets
# widens exactly those two: the group's 20 us gate is installed (tc), its
# sockets document gives it a udp4 socket (OpenTxtimeSocket), and
# skip_sock_check stays refused. A bad list stops tbsd at the start.
make_veth_to_peer sr0 sr0p 4
make_veth sr1 sr1p 4
make_veth sr2 sr2p 4
for i in sr0 sr1 sr2; do ip link set "$i" up; done
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"

# gate_doc IFACE [EXTRA]: detd's software taprio schedule with a 20 us
# gate for class 1 (under the 100 us of the software-gate-interval check),
# "allow" naming that check; EXTRA: more top-level members.
gate_doc() {
        cat <<EOJ
{
  "interface": "$1",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 2, "mode": "software", "clockid": "CLOCK_TAI",
    "priority_map": [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
    "base_time_ns": 1000,
    "entries": [{"gate_mask": "0x1", "interval_ns": 250000},
                {"gate_mask": "0x2", "interval_ns": 20000},
                {"gate_mask": "0x1", "interval_ns": 19730000}]
  },
  "allow": ["software-gate-interval"]${2:-}
}
EOJ
}
# mq_doc IFACE [EXTRA] [SKIP]: write_mqprio_schedule's 3-class mqprio,
# EXTRA top-level members, SKIP "true" for skip_sock_check on queue 0.
mq_doc() {
        cat <<EOJ
{
  "interface": "$1",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 200000, "offload": false, "skip_sock_check": ${3:-false}},
    {"queue": 1, "qdisc": "etf", "delta_ns": 500000, "offload": false}
  ]${2:-}
}
EOJ
}
sockets=', "sockets": {"group": "nogroup"}'

start_system_bus
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup

# uid 65534 with primary group users (100), in nogroup (65534, the schedule group) only.
asgroup() { setpriv --reuid=65534 --regid=100 --groups 65534 "$@"; }
group_call() {
        asgroup busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"
}
# group_refused METHOD ARGS...: the call fails; its message on stdout.
group_refused() {
        local out
        if out=$(group_call "$@" 2>&1); then
                fail "$1 by the schedule group was not refused: $out"
        fi
        printf '%s\n' "$out"
}
root_call() { busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
# unchanged WHAT: sr0, sr1 and sr2's trees and kept documents as before.
unchanged() {
        assert_eq "$(qdisc_shape sr0)$(qdisc_shape sr1)$(qdisc_shape sr2)" "$before" "$1: the trees (tc)"
        assert_eq "$(cat "$state"/schedules.d/sr[012].json | md5sum)" "$kept" "$1: the kept documents"
}

# The group's own schedules go through: a tree on each, which the refusals below leave alone.
for i in sr0 sr1 sr2; do
        assert_eq "$(group_call ApplySchedule sss "$i" "$(mq_doc "$i")" "netconf cnc-1")" "bas true 0" \
                "ApplySchedule($i) without those keys by the schedule group"
        wait_configured "$i"
done
before="$(qdisc_shape sr0)$(qdisc_shape sr1)$(qdisc_shape sr2)"
kept=$(cat "$state"/schedules.d/sr[012].json | md5sum)
assert_eq "$(qdisc_at sr1 root | jq -r .kind)" mqprio "sr1's root before the refusals (tc)"

# The software gate of 20 us with "allow".
out=$(group_refused ApplySchedule sss sr1 "$(gate_doc sr1)" "netconf cnc-1")
assert_contains "$out" "ApplySchedule(sr1) by uid 65534: allow: the schedule group may not set this key: it switches off safety checks" \
        "allow's refusal: caller, key, reason"
assert_contains "$out" "tbsd --schedule-group-may=allow gives it to the schedule group" "allow's refusal: the option"
[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || fail "allow's refusal is not one line: $out"
pass "allow's refusal is one line"
unchanged "allow refused"

# Sockets for its own group.
out=$(group_refused ApplySchedule sss sr0 "$(mq_doc sr0 "$sockets")" "netconf cnc-1")
assert_contains "$out" "ApplySchedule(sr0) by uid 65534: sockets: the schedule group may not set this key: it gives a group launch-time sockets from tbsd" \
        "sockets' refusal"
assert_contains "$out" "--schedule-group-may=sockets" "sockets' refusal: the option"
unchanged "sockets refused"
if out=$(asgroup "$CLIENT" open sr0 0 udp4 2>&1); then
        fail "the schedule group got a socket: $out"
fi
assert_contains "$out" "AccessDenied" "OpenTxtimeSocket on sr0 by the schedule group"

# skip_sock_check on an etf under mqprio.
out=$(group_refused ApplySchedule sss sr2 "$(mq_doc sr2 "" true)" "netconf cnc-1")
assert_contains "$out" "ApplySchedule(sr2) by uid 65534: txqueues[0].skip_sock_check: the schedule group may not set this key" \
        "skip_sock_check's refusal"
unchanged "skip_sock_check refused"

# ApplySchedules: a good document beside a refused one changes nothing; one line per key.
out=$(group_refused ApplySchedules 'a(ss)ass' 2 sr2 "$(mq_doc sr2 "" "false")" sr1 "$(gate_doc sr1 "$sockets")" 0 \
        "netconf cnc-2")
assert_contains "$out" "ApplySchedules(sr1) by uid 65534: allow: the schedule group may not set this key" \
        "ApplySchedules: allow's line"
assert_contains "$out" "ApplySchedules(sr1) by uid 65534: sockets: the schedule group may not set this key" \
        "ApplySchedules: sockets' line"
unchanged "ApplySchedules refused"

# Logged, with the caller.
grep -q "ApplySchedule(sr1) by uid 65534: allow: the schedule group may not set this key (tbsd --schedule-group-may=allow gives it)" \
        "$TBS_OUT/tbsd.log" || fail "allow's refusal is not logged: $(tail -5 "$TBS_OUT/tbsd.log")"
pass "the refusal is logged with the caller"

# Root keeps every right.
assert_eq "$(root_call ApplySchedule sss sr1 "$(gate_doc sr1)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr1) with allow by root"
assert_eq "$(tc -j qdisc show dev sr1 | jq -c '[.[] | select(.kind == "taprio") | .options.schedule[].interval]')" \
        "[250000,20000,19730000]" "root's 20 us gate on sr1 (tc)"
assert_eq "$(group_call ApplySchedule sss sr1 "$(mq_doc sr1)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr1) by the schedule group: without allow again"
assert_eq "$(root_call ApplySchedule sss sr2 "$(mq_doc sr2 "$sockets" true)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr2) with sockets and skip_sock_check by root"
assert_eq "$(tc -j qdisc show dev sr2 | jq -r '.[] | select(.parent == "100:1") | .options.skip_sock_check')" on \
        "root's skip_sock_check on sr2 (tc)"
assert_eq "$(group_call ApplySchedule sss sr2 "$(mq_doc sr2)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr2) by the schedule group: without them again"

# A bad list stops tbsd before it starts.
if out=$("$TBSD" --config-dir "$conf" --state-dir "$TMPDIR/other" --schedule-group-may=allow,clock 2>&1); then
        fail "tbsd started with --schedule-group-may=allow,clock: $out"
fi
assert_contains "$out" "--schedule-group-may: 'clock': expected a comma-separated list of allow, sockets and skip_sock_check" \
        "a bad --schedule-group-may"

# Widened by the operator: allow and sockets, not skip_sock_check.
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup --schedule-group-may=allow,sockets
assert_eq "$(group_call ApplySchedule sss sr1 "$(gate_doc sr1)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr1) with allow by the widened schedule group"
assert_eq "$(tc -j qdisc show dev sr1 | jq -c '[.[] | select(.kind == "taprio") | .options.schedule[].interval]')" \
        "[250000,20000,19730000]" "the group's 20 us gate on sr1 (tc)"
assert_eq "$(group_call ApplySchedule sss sr0 "$(mq_doc sr0 "$sockets")" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr0) with sockets by the widened schedule group"
wait_configured sr0
out=$(asgroup "$CLIENT" open sr0 0 udp4) || fail "the widened schedule group got no udp4 socket on sr0: $out"
assert_eq "$(jq -r '[.domain, .bound_device] | join(",")' <<<"$out")" "AF_INET,sr0" "the group's udp4 socket on sr0"
out=$(group_refused ApplySchedule sss sr2 "$(mq_doc sr2 "" true)" "netconf cnc-1")
assert_contains "$out" "txqueues[0].skip_sock_check: the schedule group may not set this key" \
        "skip_sock_check, not named by the option"
assert_contains "$out" "--schedule-group-may=skip_sock_check" "skip_sock_check's refusal: the option"
assert_eq "$(jq -c .txqueues[0].skip_sock_check "$state/schedules.d/sr2.json")" false "sr2's kept document after the refusal"
assert_eq "$(tc -j qdisc show dev sr2 | jq -r '.[] | select(.parent == "100:1") | .options.skip_sock_check')" off \
        "sr2's skip_sock_check after the refusal (tc)"

# A caller in both groups keeps the admin group's rights: tbsd admits a
# schedule-group member after that group's lookup alone and asks for the
# admin group (adm here) only when a document sets a key beyond the
# group's; a member of the schedule group alone is still refused.
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup --admin-group adm
assert_eq "$(group_call ApplySchedule sss sr1 "$(mq_doc sr1)" "netconf cnc-1")" "bas true 0" \
        "ApplySchedule(sr1) without allow by the schedule group (admin group adm)"
out=$(group_refused ApplySchedule sss sr1 "$(gate_doc sr1)" "netconf cnc-1")
assert_contains "$out" "ApplySchedule(sr1) by uid 65534: allow: the schedule group may not set this key" \
        "allow by the schedule group alone (admin group adm)"
assert_eq "$(setpriv --reuid=65534 --regid=100 --groups 65534,4 busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager ApplySchedules 'a(ss)ass' 1 sr1 "$(gate_doc sr1)" 0 "netconf cnc-3")" \
        "asas 1 \"sr1\" 0" "ApplySchedules(sr1) with allow by a member of the schedule and admin groups"
assert_eq "$(tc -j qdisc show dev sr1 | jq -c '[.[] | select(.kind == "taprio") | .options.schedule[].interval]')" \
        "[250000,20000,19730000]" "the admin group member's 20 us gate on sr1 (tc)"

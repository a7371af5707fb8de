# issue 46 point 6 (first weakness) over NETCONF: netconfd calls tbsd as a
# member of the schedule group, so a controller's commit that sets
# tbsd:schedule/allow or an etf's skip-sock-check under mqprio is refused
# by default: an rpc-error per key with tbsd's line (the caller, the key,
# the reason, tbsd --schedule-group-may), nothing changed (tc, the running
# datastore, tbsd's kept document). With tbsd --schedule-group-may=allow the
# same commit with allow goes through (tc), skip-sock-check stays refused.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vm0 vm0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

# nc_iface EXTRA_SCHEDULE SKIP: nc_mq_iface's vm0 (etf delta 200000 on
# queue 2, PTP's class 0 without etf) with EXTRA_SCHEDULE in its
# <schedule> and skip-sock-check SKIP on the etf.
nc_iface() {
        nc_config "$(nc_mq_iface vm0 200000 |
                sed "s|<offload>false</offload>|<offload>false</offload><skip-sock-check>$2</skip-sock-check>|;
                     s|</schedule>|$1</schedule>|")"
}
nc_iface "" false > "$NC/plain.xml"
nc_iface "<allow>software-gate-interval</allow>" false > "$NC/allow.xml"
nc_iface "<allow>software-gate-interval</allow>" true > "$NC/both.xml"
nc_iface "" true > "$NC/skip.xml"

assert_eq "$(client edit "$NC/plain.xml")" ok "a commit without those keys"
assert_eq "$(qdisc_at vm0 root | jq -r .kind)" mqprio "vm0's root (tc)"
tree=$(qdisc_shape vm0)
running=$(client running)
kept=$(md5sum < "$state/schedules.d/vm0.json")

out=$(client edit "$NC/both.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(vm0) by uid 64999: allow: the schedule group may not set this key: it switches off safety checks" \
        "allow over NETCONF: refused with tbsd's reason"
assert_contains "$out" "tbsd --schedule-group-may=allow gives it to the schedule group" "allow over NETCONF: the option"
assert_contains "$out" "rpc-error: ApplySchedules(vm0) by uid 64999: txqueues[0].skip_sock_check: the schedule group may not set this key" \
        "skip-sock-check over NETCONF: refused"
assert_eq "$(qdisc_shape vm0)" "$tree" "vm0's tree after the refusal (tc)"
assert_eq "$(client running)" "$running" "the running datastore after the refusal"
assert_eq "$(md5sum < "$state/schedules.d/vm0.json")" "$kept" "tbsd's kept document after the refusal"

# Widened: the operator lets the NETCONF server set allow (tbsd restarted; netconfd stays).
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup --schedule-group-may=allow
wait_configured vm0
assert_eq "$(client edit "$NC/allow.xml")" ok "a commit with allow, widened"
assert_eq "$(jq -c .allow "$state/schedules.d/vm0.json")" '["software-gate-interval"]' "tbsd's kept document has allow"
assert_eq "$(etf_delta vm0 100:3)" 200000 "vm0 queue 2's etf after the widened commit (tc)"
out=$(client edit "$NC/skip.xml")
assert_contains "$out" "txqueues[0].skip_sock_check: the schedule group may not set this key" \
        "skip-sock-check, not named by the option: refused"
assert_contains "$out" "--schedule-group-may=skip_sock_check" "skip-sock-check's refusal: the option"
assert_eq "$(tc -j qdisc show dev vm0 | jq -r '.[] | select(.parent == "100:3") | .options.skip_sock_check')" off \
        "vm0's etf without skip_sock_check (tc)"
stop_netconf

# issue 46 (finding 3): a <restart> of netconfd (yuma123-system, here by
# root, NACM's superuser) with --no-startup, the way tbsd's tests and a
# stateless deployment run it. netconfd re-initialises in the same process
# with an empty running datastore; the server module must not take that for
# "every schedule removed": both trees (tc -j) and tbsd's kept documents
# stay as they were. netconfd binds its socket again (2.13 left the file
# of --ncxserver-sockname behind, and the new bind failed "Address already
# in use") and serves: a commit afterwards reaches tbsd.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
make_veth vm0 vm0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf
pid=$NETCONFD_PID

nc_gates vt0 1 1000 > "$NC/vt0.xml"
nc_config "$(nc_mq_iface vm0 200000)" > "$NC/vm0.xml"
assert_eq "$(client edit "$NC/vt0.xml")" ok "commit of vt0's taprio gate schedule"
assert_eq "$(client edit "$NC/vm0.xml")" ok "commit of vm0's mqprio and etf"
trees() { tc_j qdisc show dev vt0 | jq -c '[.[] | {kind, handle, parent, options}]'; tc_j qdisc show dev vm0 | jq -c '[.[] | {kind, handle, parent, options}]'; }
before=$(trees)
kept=$(cat "$state/schedules.d/vt0.json" "$state/schedules.d/vm0.json" | md5sum)
assert_contains "$before" '"kind":"taprio"' "vt0's taprio (tc)"

out=$(client rpc '<restart xmlns="http://yuma123.org/ns/yuma123-system"/>')
echo "restart: $out"
case $out in ok* | closed*) pass "netconfd took the restart ($out)" ;; *) fail "restart: $out" ;; esac
wait_until 30 grep -q "no startup configuration: tbsd's schedules of origin netconf are kept" /run/nchome/netconfd.log ||
        fail "netconfd did not re-initialise: $(tail -n 20 /run/nchome/netconfd.log)"
served() { client running | grep -q "<data"; }
wait_until 30 served || fail "netconfd does not serve after the restart: $(tail -n 20 /run/nchome/netconfd.log)"
pass "netconfd serves again after the restart"
assert_eq "$(ps -o pid= -p "$pid" | tr -d ' ')" "$pid" "the same netconfd process (restarted in place)"
if grep -q "Address already in use\|Cannot connect to ncxserver socket" /run/nchome/netconfd.log "$TBS_OUT/netconfd.out"; then
        fail "netconfd could not bind its socket again"
fi
pass "netconfd bound its socket again"
assert_eq "$(trees)" "$before" "both trees after the restart (tc -j)"
assert_eq "$(cat "$state/schedules.d/vt0.json" "$state/schedules.d/vm0.json" | md5sum)" "$kept" "tbsd's kept documents after the restart"
assert_eq "$("$TBSCTL" --json status vm0 | jq -r .origin)" netconf "vm0's origin (tbsctl status)"

# It serves commits again.
nc_config "$(nc_mq_iface vm0 300000)" > "$NC/vm0-b.xml"
assert_eq "$(client edit "$NC/vm0-b.xml")" ok "a commit after the restart"
assert_eq "$(etf_delta vm0 100:3)" 300000 "vm0 queue 2's etf delta after that commit (tc)"
stop_netconf

# issue 40: the running datastore equals what tbsd has in force. netconfd
# runs with a startup configuration (--startup=FILE, saved at each
# commit). (Confirmed commits: test-netconf-confirmed.sh.) While netconfd is stopped, tbsd's
# netconf documents drift (vt0's removed, one for vm0 added over the bus);
# at netconfd's start the server module gives tbsd the startup
# configuration's documents again and removes the others: get-config,
# tbsd's kept documents and tc agree. A startup configuration tbsd refuses
# stops netconfd with tbsd's line in its log.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
make_veth vm0 vm0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
NC_STARTUP=/run/nchome/startup-cfg.xml
start_tbsd_netconf

nc_config "$(nc_mq_iface vt0 200000)" > "$NC/vt0.xml"
assert_eq "$(client edit "$NC/vt0.xml")" ok "ncclient: edit-config + commit of vt0"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf delta (tc)"
wait_until 10 grep -q "<name>vt0</name>" "$NC_STARTUP" || fail "netconfd did not save its startup configuration"
pass "the running datastore is saved in $NC_STARTUP"
kept=$(cat "$state/schedules.d/vt0.json")

running=$(client running)

# netconfd stopped; tbsd's netconf documents drift.
stop_netconfd
busctl call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager RemoveSchedule ss vt0 netconf
doc=$(jq -c '.interface = "vm0"' <<<"$kept")
busctl call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedule sss vm0 "$doc" netconf >/dev/null
assert_eq "$(qdisc_at vt0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vt0's tree removed while netconfd is stopped"
assert_eq "$(qdisc_at vm0 root | jq -r .kind)" mqprio "vm0 given a netconf schedule over the bus"

run_netconfd
wait_netconfd
assert_eq "$(client running)" "$running" "get-config after the restart: the startup configuration"
assert_eq "$(qdisc_at vt0 root | jq -r .kind)" mqprio "vt0's tree is back (tc)"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0's etf delta after the restart (tc)"
[ "$(cat "$state/schedules.d/vt0.json")" = "$kept" ] || fail "vt0's kept document is not the datastore's"
assert_eq "$("$TBSCTL" --json status vt0 | jq -r .origin)" netconf "vt0's origin (tbsctl status)"
assert_eq "$(qdisc_at vm0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vm0's tree, absent from the datastore, removed"
[ ! -e "$state/schedules.d/vm0.json" ] || fail "vm0's document is still kept"
pass "tbsd keeps exactly the running datastore's documents"

# A startup configuration tbsd refuses: netconfd does not start.
stop_netconfd
sed -i 's/<name>vt0</<name>nope0</' "$NC_STARTUP"
run_netconfd
wait_until 20 sh -c "! kill -0 $NETCONFD_PID 2>/dev/null" || fail "netconfd runs with a refused startup configuration"
pass "netconfd stopped on a refused startup configuration"
cat /run/nchome/netconfd.log | tail -5
grep -q "tbsd: the startup configuration refused: ApplySchedules(nope0) by uid 64999: interface: no interface nope0 here" \
        /run/nchome/netconfd.log || fail "netconfd's log does not say why"
pass "netconfd's log has tbsd's line"
kill "$(cat "$NC/sshd.pid")"

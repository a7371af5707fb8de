# issue 40: the running datastore equals what tbsd has in force. netconfd
# runs with a startup configuration (--startup=FILE, saved at each
# commit). (Confirmed commits: test-netconf-confirmed.sh.) While netconfd is stopped, tbsd's
# netconf documents drift (vt0's removed, one for vm0 added over the bus);
# at netconfd's start the server module gives tbsd the startup
# configuration's documents again and removes the others: get-config,
# tbsd's kept documents and tc agree. A startup configuration tbsd refuses
# stops netconfd with tbsd's line in its log.
# Issue 48: the module compares a commit with its copy of what tbsd keeps
# (the generation it saw); another schedule-group caller changing vt0's
# netconf document between two commits makes the second commit list
# again (GenerationChanged), so vt0 is given back as the datastore has it
# and the new interface applied; a commit after that uses the copy.
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

# last_list_ms: the ListSchedules time of the module's last commit line.
last_list_ms() {
        grep "tbsd: commit of" /run/nchome/netconfd.log | tail -1 | sed -n 's/.*ListSchedules \([0-9.]*\) ms.*/\1/p'
}
commits() { grep -c "tbsd: commit of" /run/nchome/netconfd.log; }
# Another caller of the schedule group (uid 65534, in nogroup alone)
# changes vt0's document of origin netconf behind the datastore.
other=$(jq -c '(.. | objects | select(has("delta_ns")) | .delta_ns) |= 300000' <<<"$kept")
setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager ApplySchedule sss vt0 "$other" netconf >/dev/null
assert_eq "$(etf_delta vt0 100:3)" 300000 "vt0's etf delta given by another schedule-group caller (tc)"
n=$(commits)
nc_config "$(nc_mq_iface vm0 250000)" > "$NC/vm0.xml"
assert_eq "$(client edit "$NC/vm0.xml")" ok "ncclient: edit-config + commit of vm0 (vt0 untouched)"
assert_eq "$(etf_delta vm0 100:3)" 250000 "vm0's etf delta (tc)"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0's etf delta back as the running datastore has it (tc)"
[ "$(cat "$state/schedules.d/vt0.json")" = "$kept" ] || fail "vt0's kept document is not the datastore's"
wait_until 10 sh -c "[ \$(grep -c 'tbsd: commit of' /run/nchome/netconfd.log) -gt $n ]" ||
        fail "no commit line in netconfd's log"
[ "$(last_list_ms)" != "0.0" ] || fail "the commit after another caller's change did not list tbsd's documents"
running=$(client running)
assert_contains "$running" "<delta-ns>200000</delta-ns>" "get-config: vt0's delta"
assert_contains "$running" "<name>vm0</name>" "get-config: vm0"
pass "a commit after another caller's change: tbsd's documents listed again, vt0 given back, vm0 applied"

# Nothing changed behind it since: the next commit uses the module's copy.
n=$(commits)
cat > "$NC/del-vm0.xml" <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">
<interfaces $IF_NS><interface nc:operation="delete"><name>vm0</name></interface></interfaces></config>
EOX
assert_eq "$(client edit "$NC/del-vm0.xml")" ok "ncclient: delete vm0's entry + commit"
assert_eq "$(qdisc_at vm0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vm0's tree removed (tc)"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0's etf delta unchanged (tc)"
wait_until 10 sh -c "[ \$(grep -c 'tbsd: commit of' /run/nchome/netconfd.log) -gt $n ]" ||
        fail "no commit line in netconfd's log"
assert_eq "$(last_list_ms)" "0.0" "the next commit's listing: none, the module's copy"
pass "a commit with nothing changed behind it: no listing"

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

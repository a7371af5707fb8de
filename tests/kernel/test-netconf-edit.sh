# issue 40 points 3-4: edits over NETCONF reach the kernel through tbsd.
# yuma123's netconfd with tbsd's modules (ieee802-dot1q-sched, tbsd) and
# server module runs as an unprivileged user without capabilities, in the
# group of tbsd --schedule-group; python3-ncclient edits the candidate
# datastore and commits: a taprio gate schedule on one veth, an mqprio
# with etf on another (tc -j is the oracle); a bad cycle time and an
# unknown interface come back as rpc-errors with tbsd's reason and change
# nothing (tc, the running datastore); yangcli edits too; a deleted
# schedule container, or interface entry, removes the tree.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
make_veth vm0 vm0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf
capeff=$(awk '/^CapEff/ {print $2}' "/proc/$NETCONFD_PID/status")
assert_eq "$capeff" 0000000000000000 "netconfd's effective capabilities"

nc_gates vt0 1 1000 > "$NC/vt0.xml"
nc_config "$(nc_mq_iface vm0 200000)" > "$NC/vm0.xml"

# A gate schedule and an etf queue, one commit each.
assert_eq "$(client edit "$NC/vt0.xml")" ok "ncclient: edit-config + commit of vt0's gate schedule"
assert_eq "$(client edit "$NC/vm0.xml")" ok "ncclient: edit-config + commit of vm0's mqprio and etf"
root=$(qdisc_at vt0 root)
assert_eq "$(jq -r .kind <<<"$root")" taprio "vt0's root (tc)"
assert_eq "$(jq -c '[.options.schedule // .options.admin.schedule | .[] | [.gatemask, .interval]]' <<<"$root")" \
        '[["0x1",300000],["0x6",700000]]' "vt0's gate list (tc)"
assert_eq "$(jq -r '.options.cycle_time // .options.admin.cycle_time' <<<"$root")" 1000000 "vt0's cycle time (tc)"
assert_eq "$(qdisc_at vm0 root | jq -r .kind)" mqprio "vm0's root (tc)"
assert_eq "$(etf_delta vm0 100:3)" 200000 "vm0 queue 2's etf delta (tc)"
assert_eq "$("$TBSCTL" --json status vt0 | jq -r .origin)" netconf "vt0's origin (tbsctl status)"
assert_eq "$("$TBSCTL" --json status vm0 | jq -r .origin)" netconf "vm0's origin (tbsctl status)"

# Operational state from Describe(): the gates in force (the entry
# running now: class 0's or classes 1 and 2's), the limits.
oper=$(client oper vt0)
echo "$oper"
assert_contains "$oper" "gate-enabled true" "get: the configured gate-enabled"
assert_contains "$oper" "supported-list-max 80" "get: supported-list-max"
assert_contains "$oper" "supported-cycle-max/numerator 2147483647" "get: supported-cycle-max's numerator (INT_MAX ns)"
assert_contains "$oper" "supported-cycle-max/denominator 1000000000" "get: supported-cycle-max's denominator"
assert_contains "$oper" "config-pending false" "get: config-pending"
states=$(awk '$1 == "oper-gate-states" {print $2}' <<<"$oper")
case "$states" in
1|6) pass "get: oper-gate-states is an entry's ($states)" ;;
*) fail "get: oper-gate-states is '$states', not 1 or 6" ;;
esac
# The standard's oper gate schedule: the committed entries and cycle.
ops() { grep -E "^$1/" <<<"$oper" | sed "s|^$1/||" | sort; }
assert_eq "$(ops oper-control-list)" "$(ops admin-control-list)" "get: oper-control-list is the committed admin-control-list"
assert_contains "$oper" "oper-control-list/gate-control-entry[1]/gate-states-value 6" "get: oper-control-list's second entry"
grep -Eq '^oper-control-list/gate-control-entry\[0\]/operation-name ([a-z0-9-]+:)?set-gate-states$' <<<"$oper" ||
        fail "get: oper-control-list's first operation-name is not set-gate-states: $oper"
pass "get: oper-control-list's operation-name"
assert_eq "$(ops oper-cycle-time | tr '\n' ' ')" "denominator 1000 numerator 1 " "get: oper-cycle-time 1/1000 s"
assert_eq "$(ops oper-base-time | tr '\n' ' ')" "nanoseconds 0 seconds 0 " "get: oper-base-time 0"
grep -Eq '^current-time/seconds [1-9][0-9]*$' <<<"$oper" || fail "get: no current-time/seconds: $oper"
pass "get: current-time"
grep -q '^config-change-time/' <<<"$oper" && fail "get: a config-change-time without a pending change: $oper"
pass "get: no config-change-time without a pending change"

# Refused edits: tbsd's reason in the rpc-error, nothing changed.
tree_t=$(qdisc_shape vt0)
tree_m=$(qdisc_shape vm0)
running=$(client running)
assert_contains "$running" "<name>vt0</name>" "the running datastore has vt0"
nc_gates vt0 1 2000 > "$NC/bad-cycle.xml"
out=$(client edit "$NC/bad-cycle.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(vt0) by uid 64999: " "a cycle shorter than the gate list: refused"
assert_contains "$out" "root.cycle_time_ns" "the refusal names the field"
sed 's/<name>vm0</<name>nope0</' "$NC/vm0.xml" > "$NC/nope0.xml"
out=$(client edit "$NC/nope0.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(nope0) by uid 64999: interface: no interface nope0 here" \
        "an unknown interface: refused"
nc_gates vt0 1 3 > "$NC/third.xml"
out=$(client edit "$NC/third.xml")
assert_contains "$out" "rpc-error: netconf: interface vt0: ieee802-dot1q-sched:gate-parameter-table/admin-cycle-time: 1/3 s is not a whole number of nanoseconds" \
        "a cycle time that is no whole number of ns: refused"
assert_eq "$(qdisc_shape vt0)" "$tree_t" "vt0's tree after the refusals"
assert_eq "$(qdisc_shape vm0)" "$tree_m" "vm0's tree after the refusals"
assert_eq "$(client running)" "$running" "the running datastore after the refusals"
[ ! -e "$state/schedules.d/nope0.json" ] || fail "a refused document was kept"

# tbsd's operational state (container state, from Describe()): the link's
# state, and per TX queue of vm0's schedule its qdisc's counters.
st=$(client state vm0)
echo "$st"
assert_contains "$st" "link-state configured" "get: vm0's link-state"
assert_contains "$st" "txqueue[2]/queue 2" "get: vm0's TX queue 2 is listed"
for leaf in sent-packets sent-bytes dropped overlimits; do
        grep -Eq "^txqueue\[2\]/$leaf [0-9]+$" <<<"$st" || fail "get: no counter $leaf for queue 2: $st"
done
pass "get: queue 2's counters sent-packets, sent-bytes, dropped, overlimits"
echo "sget /interfaces/interface[name='vm0']/state" > "$NC/sget.yc"
out=$(yangcli_script "$NC/sget.yc") || fail "yangcli sget failed: $out"
echo "$out" | tail -30
assert_contains "$out" "link-state configured" "yangcli sget: vm0's link-state"
grep -Eq "sent-packets [0-9]+" <<<"$out" || fail "yangcli sget: no sent-packets: $out"
pass "yangcli sget: vm0's queue counters"

# yangcli: one edit (vm0's etf delta) and a commit.
cp "$NC/userkey" "$NC/userkey.pub" /run/nchome/
chown 64999 /run/nchome/userkey /run/nchome/userkey.pub
cat > /run/nchome/edit.yc <<'EOY'
merge /interfaces/interface[name='vm0']/schedule/txqueues[queue='2']/delta-ns value=300000
commit
EOY
chown 64999 /run/nchome/edit.yc
set +e
out=$(cd /run/nchome && setpriv --reuid=64999 --regid=65534 --groups 65534 env HOME=/run/nchome \
        timeout 90 yangcli --server=127.0.0.1 --ncport=8830 --user=root \
        --private-key=/run/nchome/userkey --public-key=/run/nchome/userkey.pub --batch-mode \
        --run-script=/run/nchome/edit.yc 2>&1)
rc=$?
set -e
echo "$out" | tail -20
[ "$rc" = 0 ] || fail "yangcli exited with $rc"
assert_eq "$(etf_delta vm0 100:3)" 300000 "yangcli: vm0 queue 2's etf delta after the commit (tc)"

# One commit for two interfaces, the second refused: tbsd checks both
# before it keeps or applies either (one ApplySchedules call), so vm0 is
# not applied at all (tbsd's log shows no apply of it).
kept=$(cat "$state/schedules.d/vm0.json")
applies() { grep -c "ApplySchedules(vm0) by uid 64999: schedule applied" "$TBS_OUT/tbsd.log" || true; }
n=$(applies)
[ "$n" -ge 1 ] || fail "no ApplySchedules(vm0) in tbsd's log before"
running=$(client running)
nc_config "$(nc_mq_iface vm0 400000)" "$(nc_mq_iface zz0 200000)" > "$NC/two.xml"
out=$(client edit "$NC/two.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(zz0) by uid 64999: interface: no interface zz0 here" \
        "a commit of vm0 and an unknown interface: refused"
assert_eq "$(applies)" "$n" "vm0's schedule not applied (tbsd's log)"
assert_eq "$(etf_delta vm0 100:3)" 300000 "vm0 queue 2's etf delta after the refused commit (tc)"
[ "$(cat "$state/schedules.d/vm0.json")" = "$kept" ] || fail "vm0's kept document changed"
pass "vm0's kept document is the one before the refused commit"
assert_eq "$(client running)" "$running" "the running datastore after the refused commit"

# Deleting vm0's schedule removes its tree.
cat > "$NC/del.xml" <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">
<interfaces $IF_NS><interface><name>vm0</name>
<schedule xmlns="urn:tsn:tbsd" nc:operation="delete"/></interface></interfaces></config>
EOX
assert_eq "$(client edit "$NC/del.xml")" ok "ncclient: delete vm0's schedule + commit"
assert_eq "$(qdisc_at vm0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vm0's root after the delete: no mqprio (tc)"
[ ! -e "$state/schedules.d/vm0.json" ] || fail "vm0's document is still kept"
pass "vm0's document is gone"
assert_eq "$(qdisc_at vt0 root | jq -r .kind)" taprio "vt0's root stays"

# Deleting vt0's whole interface entry removes its tree too.
cat > "$NC/del-vt0.xml" <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">
<interfaces $IF_NS><interface nc:operation="delete"><name>vt0</name></interface></interfaces></config>
EOX
assert_eq "$(client edit "$NC/del-vt0.xml")" ok "ncclient: delete vt0's interface entry + commit"
assert_eq "$(qdisc_at vt0 root | jq -r 'select(.kind == "taprio") | .kind')" "" "vt0's root after the delete: no taprio (tc)"
[ ! -e "$state/schedules.d/vt0.json" ] || fail "vt0's document is still kept"
pass "vt0's document is gone"
stop_netconf

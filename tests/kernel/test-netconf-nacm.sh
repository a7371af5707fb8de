# issue 40: NACM (RFC 8341) and privilege separation. ncop, an SSH user
# who is not NACM's superuser, may read but not edit (netconfd's default
# write rule, deny): edit-config is refused with access-denied and nothing
# changes. root (the superuser) then commits a NACM group with ncop and a
# rule list permitting the schedule modules: ncop's edit and commit reach
# tbsd (tc). netconfd's process cannot change qdiscs itself: no
# capabilities in any set, and tc run as its user and groups gets EPERM;
# it cannot write tbsd's kept documents either.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf
cat > "$NC/vt0.xml" <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces $IF_NS><interface><name>vt0</name>$TYPE
<schedule xmlns="urn:tsn:tbsd"><root><num-tc>2</num-tc>
  <priority-map><priority>1</priority><traffic-class>1</traffic-class></priority-map>
  <queues><traffic-class>0</traffic-class><count>2</count><offset>0</offset></queues>
  <queues><traffic-class>1</traffic-class><count>2</count><offset>2</offset></queues></root>
 <txqueues><queue>2</queue><delta-ns>200000</delta-ns><offload>false</offload></txqueues>
</schedule></interface></interfaces></config>
EOX

# ncop without a rule: reads, but may not edit.
running=$(NC_USER=ncop client running)
assert_contains "$running" "<data" "ncop reads the running datastore"
out=$(NC_USER=ncop client editconfig "$NC/vt0.xml")
echo "$out"
assert_contains "$out" "rpc-error: access-denied" "ncop's edit-config without a NACM rule: access-denied"
assert_eq "$(qdisc_at vt0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vt0 untouched (tc)"
[ ! -e "$state/schedules.d/vt0.json" ] || fail "a document was kept"

# root, the superuser, writes the rules of docs/netconf.md: no operation
# without a rule (exec-default deny), writes follow the operations a group
# may run (write-default permit); group cnc may edit and commit, group
# monitor may read. ncop is in neither yet: refused.
rules() {
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">
<nacm xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-acm">
 <write-default nc:operation="replace">permit</write-default>
 <exec-default>deny</exec-default>
 <groups>
  <group><name>cnc</name><user-name>$1</user-name></group>
  <group><name>monitor</name><user-name>$2</user-name></group>
 </groups>
 <rule-list><name>cnc</name><group>cnc</group>
EOX
        for rpc in get get-config get-schema create-subscription edit-config commit discard-changes validate lock unlock; do
                echo "  <rule><name>$rpc</name><module-name>*</module-name><rpc-name>$rpc</rpc-name>"
                echo "   <access-operations>exec</access-operations><action>permit</action></rule>"
        done
        echo ' </rule-list>'
        echo ' <rule-list><name>monitor</name><group>monitor</group>'
        for rpc in get get-config get-schema create-subscription; do
                echo "  <rule><name>$rpc</name><module-name>*</module-name><rpc-name>$rpc</rpc-name>"
                echo "   <access-operations>exec</access-operations><action>permit</action></rule>"
        done
        echo ' </rule-list>'
        echo '</nacm></config>'
}
rules cnc-admin ncop > "$NC/nacm.xml"
assert_eq "$(client edit "$NC/nacm.xml")" ok "root commits the NACM groups cnc and monitor and their rules"
out=$(NC_USER=ncop client edit "$NC/vt0.xml")
echo "$out"
assert_contains "$out" "rpc-error: access denied" "ncop, in group monitor only: edit-config refused"
assert_contains "$(NC_USER=ncop client running)" "<data" "ncop, in group monitor: get-config"
assert_eq "$(qdisc_at vt0 root | jq -r 'select(.kind == "mqprio") | .kind')" "" "vt0 untouched (tc)"

# ncop in group cnc: the edit and the commit reach tbsd.
rules ncop cnc-viewer > "$NC/nacm.xml"
assert_eq "$(client edit "$NC/nacm.xml")" ok "root moves ncop to group cnc"
out=$(NC_USER=ncop client edit "$NC/vt0.xml")
echo "$out"
assert_eq "$out" ok "ncop in group cnc: edit-config + commit accepted"
assert_eq "$(qdisc_at vt0 root | jq -r .kind)" mqprio "vt0's root after ncop's commit (tc)"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf (tc)"
assert_eq "$("$TBSCTL" --json status vt0 | jq -r .origin)" netconf "vt0's origin (tbsctl status)"
# ncop out of group cnc (still in monitor): no edit.
cat > "$NC/nacm-out.xml" <<'EOX'
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0">
<nacm xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-acm"><groups>
 <group><name>cnc</name><user-name nc:operation="delete">ncop</user-name></group>
</groups></nacm></config>
EOX
assert_eq "$(client edit "$NC/nacm-out.xml")" ok "root takes ncop out of group cnc"
sed 's/200000/300000/' "$NC/vt0.xml" > "$NC/vt0-b.xml"
out=$(NC_USER=ncop client edit "$NC/vt0-b.xml")
echo "$out"
assert_contains "$out" "rpc-error: access denied" "ncop back in group monitor only: edit-config refused"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf unchanged (tc)"

# netconfd cannot change qdiscs by itself.
for set in CapInh CapPrm CapEff CapBnd CapAmb; do
        v=$(awk -v k="$set:" '$1 == k {print $2}' "/proc/$NETCONFD_PID/status")
        echo "netconfd $set $v"
done
assert_eq "$(awk '$1 == "CapPrm:" {print $2}' "/proc/$NETCONFD_PID/status")" 0000000000000000 "netconfd's permitted capabilities"
assert_eq "$(awk '$1 == "CapEff:" {print $2}' "/proc/$NETCONFD_PID/status")" 0000000000000000 "netconfd's effective capabilities"
assert_eq "$(awk '$1 == "CapAmb:" {print $2}' "/proc/$NETCONFD_PID/status")" 0000000000000000 "netconfd's ambient capabilities"
set +e
out=$(setpriv --reuid=64999 --regid=65534 --groups 65534 tc qdisc replace dev vt0 root pfifo_fast 2>&1)
rc=$?
set -e
echo "tc as netconfd's user: rc $rc: $out"
[ "$rc" != 0 ] || fail "netconfd's user replaced vt0's root qdisc"
assert_contains "$out" "Operation not permitted" "tc qdisc replace as netconfd's user: EPERM"
assert_eq "$(qdisc_at vt0 root | jq -r .kind)" mqprio "vt0's root is still tbsd's"
if setpriv --reuid=64999 --regid=65534 --groups 65534 sh -c "echo {} > '$state/schedules.d/vt0.json'" 2>/dev/null; then
        fail "netconfd's user wrote tbsd's kept document"
fi
pass "netconfd's user cannot write tbsd's kept documents"
stop_netconf

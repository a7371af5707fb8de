# Runs inside the test kernel for `scripts/demo --netconf` (with
# tests/kernel/lib.sh): tbsd and yuma123's netconfd with tbsd's module
# (docs/netconf.md), sshd on 127.0.0.1:8830, and python3-ncclient as the
# controller: one edit-config + commit of a taprio gate schedule, the
# kernel's tree, tbsctl's view (origin netconf), a refused edit with tbsd's
# reason, and the operational gate state.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
echo "== kernel: $(uname -sr) (user-mode-linux)"
make_veth gw0 gw0p 4
mkdir -p "$TMPDIR/conf"
start_system_bus
start_tbsd "$TMPDIR/conf" --state-dir "$TMPDIR/state" --schedule-group nogroup
echo "== netconfd (user tbsnc, no capabilities) behind sshd"
start_netconf 65534
client() { HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" "$@"; }
gates() {
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">
 <interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface>
  <name>gw0</name>
  <type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type>
  <gate-parameter-table xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"
                        xmlns:sched="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched">
   <gate-enabled>true</gate-enabled>
   <admin-control-list>
    <gate-control-entry><index>0</index><operation-name>sched:set-gate-states</operation-name>
     <gate-states-value>1</gate-states-value><time-interval-value>300000</time-interval-value></gate-control-entry>
    <gate-control-entry><index>1</index><operation-name>sched:set-gate-states</operation-name>
     <gate-states-value>6</gate-states-value><time-interval-value>700000</time-interval-value></gate-control-entry>
   </admin-control-list>
   <admin-cycle-time><numerator>$1</numerator><denominator>$2</denominator></admin-cycle-time>
   <admin-base-time><seconds>0</seconds><nanoseconds>0</nanoseconds></admin-base-time>
  </gate-parameter-table>
  <schedule xmlns="urn:tsn:tbsd"><root><num-tc>3</num-tc>
   <priority-map><priority>1</priority><traffic-class>1</traffic-class></priority-map>
   <priority-map><priority>2</priority><traffic-class>2</traffic-class></priority-map>
   <queues><traffic-class>0</traffic-class><count>1</count><offset>0</offset></queues>
   <queues><traffic-class>1</traffic-class><count>1</count><offset>1</offset></queues>
   <queues><traffic-class>2</traffic-class><count>2</count><offset>2</offset></queues>
   <mode>software</mode></root></schedule>
 </interface></interfaces>
</config>
EOX
}
gates 1 1000 > "$NC/gw0.xml"
echo "== ncclient: edit-config on candidate, then commit (a 1 ms cycle, two gate entries)"
cat "$NC/gw0.xml"
echo "-> $(client edit "$NC/gw0.xml")"
echo "== tc qdisc show dev gw0 (the kernel)"
tc qdisc show dev gw0 root
echo "== tbsctl status gw0"
"$TBSCTL" status gw0
echo "== ncclient: a cycle shorter than the gate list (0.5 ms): refused, nothing changed"
gates 1 2000 > "$NC/bad.xml"
client edit "$NC/bad.xml"
echo "== ncclient: get of gw0's gate parameter table (operational state)"
client oper gw0
stop_netconf
pass "netconf demo done"

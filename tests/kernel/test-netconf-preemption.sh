# issue 48 point 3: frame preemption from the published modules. A
# controller writes 802.1DC's frame-preemption-status-table (per priority)
# beside its gate table; tbsd makes it root.fp per traffic class and, as
# 802.3's MAC merge layer must transmit preemptable frames, derives
# mac_merge "transmit enabled" (docs/netconf.md, "Frame preemption").
# tc -j, the running datastore and tbsd's lines are the oracles:
# (a) on a veth (no MAC merge layer, no offload) the standard-only commit
#     is an rpc-error with tbsd's reason; tc and the running datastore
#     unchanged; 802.3's admin-control written by the controller (no
#     preemptable class, so software mode) gets tbsd's MAC merge line;
# (b) with tbsd:schedule/leave-mac-merge (root.fp alone): when this
#     kernel's taprio takes a preemptable class on this device (asked of
#     the kernel with tc, never read from its version) a P class in tc -j's
#     fp; otherwise tbsd's refusal line, nothing changed;
# (c) priorities of one class that disagree: one rpc-error naming both;
# then <get> of preemption-active and the MAC merge status on the veth.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vp0 vp0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

caps=$(client caps)
for want in "urn:ieee:std:802.1Q:yang:ieee802-dot1dc-preemption-if?module=ieee802-dot1dc-preemption-if&revision=2024-09-26" \
        "urn:ieee:std:802.1Q:yang:ieee802-dot1q-preemption?module=ieee802-dot1q-preemption&revision=2023-10-26" \
        "urn:ieee:std:802.3:yang:ieee802-ethernet-mac-merge?module=ieee802-ethernet-mac-merge&revision=2025-09-10"; do
        assert_contains "$caps" "cap $want" "capability ${want%%&*}"
done

# pre_config S4 S5 [EXTRA]: vp0's <config>, the standard's nodes: a gate
# list of 3 classes (priorities 4 and 5 are class 1 by Table 8-5), the
# status of priorities 4 and 5 (none when S4 is empty), and EXTRA XML.
pre_config() {
        local table=""
        [ -z "$1" ] || table="<frame-preemption-parameters xmlns=\"urn:ieee:std:802.1Q:yang:ieee802-dot1dc-preemption-if\">
 <frame-preemption-status-table><priority4>$1</priority4><priority5>$2</priority5></frame-preemption-status-table>
</frame-preemption-parameters>"
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces $IF_NS><interface><name>vp0</name>$TYPE
<gate-parameter-table xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1dc-sched-if" xmlns:q="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched">
 <gate-enabled>true</gate-enabled><admin-control-list>
 <gate-control-entry><index>0</index><operation-name>q:set-gate-states</operation-name><gate-states-value>1</gate-states-value><time-interval-value>400000</time-interval-value></gate-control-entry>
 <gate-control-entry><index>1</index><operation-name>q:set-gate-states</operation-name><gate-states-value>6</gate-states-value><time-interval-value>600000</time-interval-value></gate-control-entry>
 </admin-control-list><admin-cycle-time><numerator>1</numerator><denominator>1000</denominator></admin-cycle-time>
</gate-parameter-table>$table${3:-}
</interface></interfaces></config>
EOX
}

pre_config "" "" > "$NC/gates.xml"
assert_eq "$(client edit "$NC/gates.xml")" ok "the gate table alone (no preemption)"
tc_before=$(tc -j qdisc show dev vp0)
jq -e '.[] | select(.root == true) | .kind == "taprio"' <<<"$tc_before" >/dev/null || fail "no taprio on vp0: $tc_before"
running_before=$(client running)

# unchanged WHAT: tc -j and the running datastore as before the refusals.
unchanged() {
        assert_eq "$(tc -j qdisc show dev vp0)" "$tc_before" "$1: tc -j qdisc show unchanged"
        assert_eq "$(client running)" "$running_before" "$1: the running datastore unchanged"
}

# (a) a preemptable class, mac_merge derived: veth has no MAC merge layer.
pre_config preemptable preemptable > "$NC/pre.xml"
grep -q 'urn:tsn:tbsd' "$NC/pre.xml" && fail "the standard-only document names tbsd's module"
out=$(client edit "$NC/pre.xml")
echo "$out"
assert_contains "$out" "rpc-error: " "(a) a preemptable class on a veth: refused"
# A preemptable class is derived in full offload (the kernel takes one
# only from a taprio the NIC runs), which a veth cannot run: tbsd's line.
assert_contains "$out" "rpc-error: ApplySchedules(vp0) by uid 64999: root.mode: taprio full offload is not available on this device" \
        "(a) tbsd's reason: the veth cannot run the schedule"
unchanged "(a)"
# The same through 802.3's module, the controller's own admin-control.
MM='<ethernet xmlns="urn:ieee:std:802.3:yang:ieee802-ethernet-interface"><mac-merge xmlns="urn:ieee:std:802.3:yang:ieee802-ethernet-mac-merge"><admin-control><merge-enable-tx>Enabled</merge-enable-tx></admin-control></mac-merge></ethernet>'
pre_config "" "" "$MM" > "$NC/mm.xml"
out=$(client edit "$NC/mm.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(vp0) by uid 64999: mac_merge: the device has no MAC merge layer" "(a) 802.3's admin-control on a veth: tbsd's reason"
unchanged "(a, admin-control)"

# (b) tbsd:schedule/leave-mac-merge: root.fp alone. Does this kernel's taprio take a
# preemptable class on this device? tc is asked (a taprio with fp E P in
# full offload); a tc that does not know fp (iproute2 before 6.4) or a
# kernel that refuses it answer no.
make_veth fq0 fq0p 4
takes_p=no
if tc qdisc add dev fq0 root handle 1: taprio num_tc 2 map 0 1 queues 1@0 1@1 base-time 0 \
        sched-entry S 3 1000000 flags 0x2 fp E P 2>"$TMPDIR/probe.err" &&
        tc -j -d qdisc show dev fq0 | jq -e '.[] | select(.root == true) | .options.fp[1] == "P"' >/dev/null; then
        takes_p=yes
fi
echo "kernel $(uname -r): its taprio takes a preemptable class on a veth: $takes_p ($(cat "$TMPDIR/probe.err"))"
ip link del fq0
LEAVE='<schedule xmlns="urn:tsn:tbsd"><leave-mac-merge>true</leave-mac-merge></schedule>'
if [ $takes_p = yes ]; then
        pre_config preemptable preemptable "$LEAVE" > "$NC/leave.xml"
        assert_eq "$(client edit "$NC/leave.xml")" ok "(b) leave-mac-merge: committed"
        assert_eq "$(tc -j -d qdisc show dev vp0 | jq -c '.[] | select(.root == true) | .options.fp[0:3]')" '["E","P","E"]' \
                "(b) class 1 preemptable (tc -j fp)"
else
        pre_config preemptable preemptable "$LEAVE" > "$NC/leave.xml"
        out=$(client edit "$NC/leave.xml")
        echo "$out"
        assert_contains "$out" "rpc-error: ApplySchedules(vp0) by uid 64999: root.mode: taprio full offload is not available on this device" \
                "(b) leave-mac-merge where the kernel takes no preemptable class: tbsd's line"
        case $out in *mac_merge*) fail "(b) leave-mac-merge: mac_merge was still set: $out" ;; esac
        unchanged "(b)"
        # tbsd's module's mode software: tbsd's verifier says why not.
        pre_config preemptable preemptable '<schedule xmlns="urn:tsn:tbsd"><leave-mac-merge>true</leave-mac-merge><root><mode>software</mode></root></schedule>' \
                > "$NC/leave-sw.xml"
        out=$(client edit "$NC/leave-sw.xml")
        echo "$out"
        assert_contains "$out" 'root.fp: a preemptible traffic class needs mode "full-offload"' \
                "(b) leave-mac-merge, tbsd's mode software: tbsd's line"
        unchanged "(b, software)"
fi

# (c) priorities 4 and 5 share class 1 and disagree.
pre_config preemptable express > "$NC/disagree.xml"
out=$(client edit "$NC/disagree.xml")
echo "$out"
assert_contains "$out" "rpc-error: netconf: interface vp0: ieee802-dot1dc-preemption-if:frame-preemption-parameters/frame-preemption-status-table: priority4 is preemptable and priority5 express, but both go to traffic class 1" \
        "(c) priorities of one class that disagree: both named"
[ "$(grep -c '^rpc-error' <<<"$out")" -eq 1 ] || fail "(c) more than one rpc-error: $out"
pass "(c) one rpc-error"
[ $takes_p = yes ] || unchanged "(c)"

# Operational: where the controller has the containers (empty: nothing
# to set), <get> answers from what tbsd reads with MM_GET. A veth has no
# MAC merge layer: known, so NotSupported and preemption-active false;
# what it cannot say (verification, transmit status, counters) absent.
EMPTY='<frame-preemption-parameters xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1dc-preemption-if"/>
<ethernet xmlns="urn:ieee:std:802.3:yang:ieee802-ethernet-interface"><mac-merge xmlns="urn:ieee:std:802.3:yang:ieee802-ethernet-mac-merge"/></ethernet>'
pre_config "" "" "$EMPTY" > "$NC/empty.xml"
assert_eq "$(client edit "$NC/empty.xml")" ok "the empty preemption and MAC merge containers: committed"
oper=$(client tree "<interfaces $IF_NS><interface><name>vp0</name>$EMPTY</interface></interfaces>")
echo "$oper"
assert_contains "$oper" "interfaces/interface/frame-preemption-parameters/preemption-active false" "get: preemption-active"
assert_contains "$oper" "interfaces/interface/ethernet/mac-merge/admin-status/merge-support NotSupported" "get: merge-support"
for absent in verify-status status-tx statistics hold-advance release-advance hold-request; do
        case $oper in *"/$absent"*) fail "get: $absent is answered on a device that cannot say it: $oper" ;; esac
done
pass "get: verify-status, status-tx, statistics absent; hold-advance, release-advance, hold-request not served"
stop_netconf

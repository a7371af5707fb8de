# issue 48 point 3: credit-based shaping from the published modules. A
# controller's standard-only commit (802.1DC's gate table and
# ieee802-dot1dc-cbsa-if's idle slope for one class, no node of tbsd's
# module) on a veth of 4 queues gives a cbs on the class's first queue
# under the derived taprio root, whose four values are those of IEEE
# 802.1Q Annex L (docs/schedule-format.md, "From bandwidth to the four
# values") for the link speed the veth reports, computed here from the
# formula; <get> answers the idle slope in force from the kernel; an idle
# slope at the link's rate is refused with tbsd's line and tc keeps its
# tree. A class without a gate table whose queue has an etf of tbsd's
# module: a cbs with that etf under it (mqprio root derived); with that
# cbs removed by tc, oper-idle-slope is absent.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vc0 vc0p 4
make_veth vc1 vc1p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

CBSA=urn:ieee:std:802.1Q:yang:ieee802-dot1dc-cbsa-if
caps=$(client caps)
assert_contains "$caps" "cap $CBSA?module=ieee802-dot1dc-cbsa-if&revision=2024-09-26" "capability ieee802-dot1dc-cbsa-if"
assert_contains "$caps" "cap urn:ieee:std:802.1Q:yang:ieee802-dot1q-cbsa?module=ieee802-dot1q-cbsa&revision=2024-08-07" \
        "capability ieee802-dot1q-cbsa"

# cbsa_edit IFACE CLASS SLOPE [GATES [MORE]]: the controller's <config>:
# GATES (802.1DC's gate table, $GATES below) when given, the cbsa table
# shaping CLASS at SLOPE bit/s, then MORE.
GATES='<gate-parameter-table xmlns="urn:ieee:std:802.1Q:yang:ieee802-dot1dc-sched-if"
 xmlns:q-sched="urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched"><gate-enabled>true</gate-enabled>
 <admin-control-list><gate-control-entry><index>0</index><operation-name>q-sched:set-gate-states</operation-name>
  <gate-states-value>7</gate-states-value><time-interval-value>1000000</time-interval-value></gate-control-entry>
 </admin-control-list><admin-cycle-time><numerator>1</numerator><denominator>1000</denominator></admin-cycle-time>
</gate-parameter-table>'
cbsa_edit() {
        cat <<EOX
<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces $IF_NS><interface>
<name>$1</name>$TYPE
${4:-}
<cbsa xmlns="$CBSA"><cbsa-parameter-table><traffic-class>$2</traffic-class>
 <admin-idle-slope>$3</admin-idle-slope></cbsa-parameter-table></cbsa>
${5:-}</interface></interfaces></config>
EOX
}

# The expected values, from the link speed the device reports (ethtool)
# and 802.1Q Annex L with 1522-byte frames (maxFrameSize and
# maxInterferenceSize), the credits rounded away from zero.
speed=$(ethtool vc0 | sed -n 's/.*Speed: \([0-9]*\)Mb\/s.*/\1/p')
[ -n "$speed" ] && [ "$speed" -gt 0 ] || fail "vc0 reports no link speed: $(ethtool vc0)"
slope_bps=30000000
port=$((speed * 1000))
idle=$((slope_bps / 1000))
send=$((idle - port))
hi=$(((1522 * idle + port - 1) / port))
lo=$((-((1522 * -send + port - 1) / port)))
want="[\"cbs\",$idle,$send,$hi,$lo]"
pass "expected for $speed Mbit/s and $slope_bps bit/s: idleslope $idle sendslope $send hicredit $hi locredit $lo"

cbsa_edit vc0 2 "$slope_bps" "$GATES" > "$NC/cbsa.xml"
grep -q 'urn:tsn:tbsd' "$NC/cbsa.xml" && fail "the standard-only document names tbsd's module"
assert_eq "$(client edit "$NC/cbsa.xml")" ok "ncclient: edit-config + commit of the gate table and class 2's idle slope"

root=$(qdisc_at vc0 root)
assert_eq "$(jq -r .kind <<<"$root")" taprio "vc0's root (tc)"
assert_eq "$(jq -c '[.options.queues[] | [.count, .offset]]' <<<"$root")" '[[1,0],[1,1],[2,2]]' \
        "3 classes, class 2 on queues 2 and 3 (tc)"
major=$(jq -r '.handle | rtrimstr(":")' <<<"$root")
cbs_of() { # DEV: every cbs of DEV as [parent, kind, idleslope, sendslope, hicredit, locredit]
        tc -j qdisc show dev "$1" | jq -c '[.[] | select(.kind == "cbs") |
                [.parent, .kind, .options.idleslope, .options.sendslope, .options.hicredit, .options.locredit]]'
}
assert_eq "$(cbs_of vc0)" "[[\"$major:3\",${want#[}]" "one cbs, on class 2's first queue (queue 2), Annex L's values (tc)"
assert_eq "$("$TBSCTL" --json status vc0 | jq -r .origin)" netconf "vc0's origin (tbsctl status)"

out=$(client cbsa vc0)
echo "$out"
assert_contains "$out" "cbsa-parameter-table[2]/admin-idle-slope $slope_bps" "get: admin-idle-slope"
assert_contains "$out" "cbsa-parameter-table[2]/oper-idle-slope $slope_bps" "get: oper-idle-slope, the kernel's"

# An idle slope at the link's rate: tbsd's line, nothing changed.
tree=$(qdisc_shape vc0)
cbsa_edit vc0 2 $((port * 1000)) "$GATES" > "$NC/cbsa-over.xml"
out=$(client edit "$NC/cbsa-over.xml")
echo "$out"
assert_contains "$out" "rpc-error: ApplySchedules(vc0) by uid 64999: txqueues[0].bandwidth_kbps: must be below the link's rate of $port kbit/s (link speed $speed Mbit/s), got $port" \
        "an idle slope at the link's rate: refused with tbsd's line"
# Its error-path: the node the controller wrote, not the document's key.
assert_eq "${out##*| path: }" \
        "/if:interfaces/if:interface[if:name='vc0']/cbsa-if:cbsa/cbsa-if:cbsa-parameter-table[cbsa-if:traffic-class='2']/cbsa-if:admin-idle-slope" \
        "the rpc-error's error-path: the class's admin-idle-slope"
assert_eq "$(qdisc_shape vc0)" "$tree" "vc0's tree after the refusal (tc)"
assert_contains "$(client cbsa vc0)" "cbsa-parameter-table[2]/oper-idle-slope $slope_bps" \
        "get after the refusal: the idle slope in force"

# Without a gate table, an etf of tbsd's module on class 1's queue: the
# cbs (mqprio root, 2 classes derived) holds it.
# (drift "report": tbsd leaves a tree changed by tc, below.)
cbsa_edit vc1 1 20000000 "" '<schedule xmlns="urn:tsn:tbsd"><txqueues><queue>1</queue><delta-ns>500000</delta-ns>
 <offload>false</offload></txqueues><drift>report</drift></schedule>' > "$NC/cbsa-etf.xml"
assert_eq "$(client edit "$NC/cbsa-etf.xml")" ok "ncclient: class 1's idle slope over tbsd's etf"
root=$(qdisc_at vc1 root)
assert_eq "$(jq -c '[.kind, .options.tc]' <<<"$root")" '["mqprio",2]' "vc1's root: mqprio, 2 classes (tc)"
major=$(jq -r '.handle | rtrimstr(":")' <<<"$root")
cbs=$(tc -j qdisc show dev vc1 | jq -c '.[] | select(.kind == "cbs")')
assert_eq "$(jq -r .parent <<<"$cbs")" "$major:2" "vc1's cbs on queue 1 (tc)"
assert_eq "$(jq -c '[.options.idleslope, .options.sendslope]' <<<"$cbs")" "[20000,$((20000 - port))]" "vc1's cbs slopes (tc)"
etf=$(tc -j qdisc show dev vc1 | jq -c '.[] | select(.kind == "etf")')
assert_eq "$(jq -r .parent <<<"$etf")" "$(jq -r .handle <<<"$cbs")1" "the etf under the cbs (tc)"
assert_eq "$(jq -r .options.delta <<<"$etf")" 500000 "the etf's delta (tc)"
assert_contains "$(client cbsa vc1)" "cbsa-parameter-table[1]/oper-idle-slope 20000000" "get: vc1's oper-idle-slope"

# The cbs gone from the kernel (tc replaces it, tbsd only reports the
# drift): the idle slope in force is absent, not 0; the admin one stays.
tc qdisc replace dev vc1 parent "$major:2" pfifo
no_oper_slope() {
        local out
        out=$(client cbsa vc1) && grep -qF "cbsa-parameter-table[1]/admin-idle-slope 20000000" <<<"$out" &&
                ! grep -q oper-idle-slope <<<"$out"
}
wait_until 10 no_oper_slope || fail "get: oper-idle-slope after tc removed the cbs: $(client cbsa vc1)"
pass "get: no oper-idle-slope once the kernel has no cbs for the class"
stop_netconf

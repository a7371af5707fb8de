# issue 48 (Done when, first bullet): a controller that knows only the
# published IEEE modules configures tbsd. Its XML: gate-parameter-table in
# ieee802-dot1dc-sched-if's namespace, operation names from
# ieee802-dot1q-sched's identities, no node of tbsd's module. tbsd derives
# the root (3 classes from the gate list, IEEE 802.1Q Table 8-5's
# priorities, one queue per class and the rest on the last, software
# mode, as tbsd's probe (GetCapabilities) says veth runs no taprio gates);
# tc -j is the oracle. A change of cycle (6/5000 s) reaches the
# kernel; <get> answers in the 802.1DC namespace; the server advertises
# the published modules and tbsd-deviations, whose range checks keep a
# 32-bit value beyond 2^32 - 1 from being stored wrapped.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vs0 vs0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

caps=$(client caps)
for want in "$DC?module=ieee802-dot1dc-sched-if&revision=2024-09-26" \
        "urn:ieee:std:802.1Q:yang:ieee802-types?module=ieee802-types&revision=2023-10-22" \
        "urn:ieee:std:802.1Q:yang:ieee802-dot1q-types?module=ieee802-dot1q-types&revision=2023-10-26"; do
        assert_contains "$caps" "cap $want" "capability ${want%%&*}"
done
grep -q '^cap urn:ieee:std:802.1Q:yang:ieee802-dot1dc-sched-if?.*deviations=tbsd-deviations' <<<"$caps" ||
        grep -q '^cap urn:tsn:tbsd-deviations?module=tbsd-deviations' <<<"$caps" ||
        fail "no capability names tbsd-deviations: $caps"
pass "the deviations are advertised"

std_gates vs0 1 1000 > "$NC/std.xml"
grep -q 'urn:tsn:tbsd' "$NC/std.xml" && fail "the standard-only document names tbsd's module"
assert_eq "$(client edit "$NC/std.xml")" ok "ncclient: edit-config + commit of the standard-only gate table"

root=$(qdisc_at vs0 root)
echo "$root"
assert_eq "$(jq -r .kind <<<"$root")" taprio "vs0's root (tc)"
assert_eq "$(jq -c '.options | [.tc, .map[0:8]]' <<<"$root")" '[3,[0,0,0,0,1,1,2,2]]' \
        "3 classes, priorities by IEEE 802.1Q Table 8-5 (tc)"
assert_eq "$(jq -c '[.options.queues[] | [.count, .offset]]' <<<"$root")" '[[1,0],[1,1],[2,2]]' \
        "one queue per class, the rest on the last (tc)"
assert_eq "$(jq -c '[.options.schedule // .options.admin.schedule | .[] | [.gatemask, .interval]]' <<<"$root")" \
        '[["0x1",300000],["0x6",700000]]' "vs0's gate list (tc)"
assert_eq "$(jq -r '.options.cycle_time // .options.admin.cycle_time' <<<"$root")" 1000000 "cycle 1/1000 s (tc)"
assert_eq "$(jq -r '.options.flags // "0x0"' <<<"$root")" 0x0 "software mode (tc: no offload flags)"
# The device's answer the module chose it by: tbsd's probe of vs0, as the
# schedule group (netconfd's) reads it, says veth runs no taprio gates.
devcaps=$(setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system --json=short call org.tsn.Tbs \
        /org/tsn/Tbs org.tsn.Tbs.Manager GetCapabilities s vs0 | jq -r '.data[0]')
echo "$devcaps"
assert_eq "$(jq -c '[.driver, .tx_queues, .taprio_full_offload]' <<<"$devcaps")" '["veth",4,false]' \
        "GetCapabilities(vs0): veth, 4 TX queues, no taprio full offload"
out=$(setpriv --reuid=65534 --regid=100 --groups 65534 busctl --system call org.tsn.Tbs /org/tsn/Tbs \
        org.tsn.Tbs.Manager GetCapabilities s nope0 2>&1) && fail "GetCapabilities(nope0) answered: $out"
assert_contains "$out" "GetCapabilities(nope0) by uid 65534: interface: no interface nope0 here" \
        "GetCapabilities of an interface that is not there"
assert_eq "$("$TBSCTL" --json status vs0 | jq -r .origin)" netconf "vs0's origin (tbsctl status)"

# A change of cycle: 6/5000 s = 1.2 ms.
std_gates vs0 6 5000 > "$NC/std-cycle.xml"
assert_eq "$(client edit "$NC/std-cycle.xml")" ok "ncclient: the cycle changed to 6/5000 s"
wait_until 10 sh -c "tc -j qdisc show dev vs0 | jq -e '.[] | select(.root == true) |
        (.options.cycle_time // .options.admin.cycle_time) == 1200000' >/dev/null" ||
        fail "the cycle of 6/5000 s did not reach the kernel: $(qdisc_at vs0 root)"
pass "cycle 6/5000 s = 1200000 ns (tc)"

# <get> in the 802.1DC namespace: the configured and the operational nodes.
oper=$(client oper vs0 "$DC")
echo "$oper"
assert_contains "$oper" "gate-enabled true" "get (802.1DC): gate-enabled"
assert_contains "$oper" "admin-cycle-time/numerator 6" "get (802.1DC): admin-cycle-time"
assert_contains "$oper" "supported-list-max 80" "get (802.1DC): supported-list-max, state by tbsd-deviations"
# The kernel's longest cycle (INT_MAX ns, lib/taprio-limits.h), reduced.
assert_contains "$oper" "supported-cycle-max/numerator 2147483647" "get (802.1DC): supported-cycle-max's numerator"
assert_contains "$oper" "supported-cycle-max/denominator 1000000000" "get (802.1DC): supported-cycle-max's denominator"
assert_contains "$oper" "config-pending false" "get (802.1DC): config-pending"
grep -Eq '^tick-granularity [1-9][0-9]*$' <<<"$oper" || fail "get (802.1DC): no tick-granularity: $oper"
pass "get (802.1DC): tick-granularity $(awk '$1 == "tick-granularity" {print $2}' <<<"$oper") (tenths of ns)"
assert_contains "$oper" "oper-control-list/gate-control-entry[1]/gate-states-value 6" "get (802.1DC): oper-control-list"
grep -Eq '^oper-control-list/gate-control-entry\[0\]/operation-name ([a-z0-9-]+:)?set-gate-states$' <<<"$oper" ||
        fail "get (802.1DC): the first oper operation-name is not set-gate-states: $oper"
pass "get (802.1DC): oper operation-name"
num=$(awk '$1 == "oper-cycle-time/numerator" {print $2}' <<<"$oper")
den=$(awk '$1 == "oper-cycle-time/denominator" {print $2}' <<<"$oper")
[ -n "$num" ] && [ -n "$den" ] && [ $((num * 1000000000 / den)) -eq 1200000 ] ||
        fail "get (802.1DC): oper-cycle-time is $num/$den, not 1.2 ms"
pass "get (802.1DC): oper-cycle-time $num/$den s"
states=$(awk '$1 == "oper-gate-states" {print $2}' <<<"$oper")
case "$states" in
1|6) pass "get (802.1DC): oper-gate-states is an entry's ($states)" ;;
*) fail "get (802.1DC): oper-gate-states is '$states', not 1 or 6" ;;
esac

# netconfd's fault 3 (a uint32 beyond 2^32 - 1 stored wrapped) contained
# by tbsd-deviations: refused with a range error, nothing changed.
tree=$(qdisc_shape vs0)
sed 's|<time-interval-value>700000<|<time-interval-value>4295667296<|' "$NC/std-cycle.xml" > "$NC/std-wrap.xml"
out=$(client edit "$NC/std-wrap.xml")
echo "$out"
assert_contains "$out" "rpc-error:" "time-interval-value 2^32+700000: refused"
case $out in *range*) pass "time-interval-value 2^32+700000: a range error" ;;
*) fail "time-interval-value 2^32+700000: not a range error: $out" ;; esac
assert_eq "$(qdisc_shape vs0)" "$tree" "vs0's tree after the refused value"

# Both tables on one interface: refused with the module's line, nothing changed.
sed "s|</gate-parameter-table>|</gate-parameter-table><gate-parameter-table $SCHED_NS><gate-enabled>true</gate-enabled></gate-parameter-table>|" \
        "$NC/std.xml" > "$NC/both.xml"
out=$(client edit "$NC/both.xml")
assert_contains "$out" "rpc-error: netconf: interface vs0: ieee802-dot1dc-sched-if:gate-parameter-table: the interface has ieee802-dot1q-sched:gate-parameter-table too" \
        "two gate tables on one interface: refused"
assert_eq "$(qdisc_shape vs0)" "$tree" "vs0's tree after the refusal"
stop_netconf

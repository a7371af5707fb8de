# issue 40 (Done when): yuma123's yangcli by itself, a client nobody here
# wrote, drives tbsd over NETCONF: it gets the capabilities and the YANG
# modules, edits the candidate datastore with create/merge and commits a
# taprio gate schedule on one veth and an mqprio with a software etf on
# another (tc -j is the oracle); a bad cycle time and an unknown interface
# come back in yangcli's output with tbsd's reason and change nothing (tc's
# dump, the running datastore as yangcli's sget-config and ncclient read it);
# it reads the operational state. (Its notifications:
# test-netconf-notify.sh.)
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
make_veth vm0 vm0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

# yc NAME: run the yangcli script $NC/NAME.yc (yangcli_script), its output
# in $NC/NAME.out and on stdout; yangcli's exit status is not judged here.
yc() {
        local out
        out=$(yangcli_script "$NC/$1.yc" || true)
        printf '%s\n' "$out" > "$NC/$1.out"
        printf '%s\n' "$out"
}

# Capabilities and modules.
echo 'get-schema identifier=ieee802-dot1q-sched version=2026-12-07 format=yang' > "$NC/caps.yc"
out=$(yc caps)
echo "$out" | sed -n 1,40p
assert_contains "$out" "tbsd@2026-12-07" "yangcli: the server's module tbsd"
assert_contains "$out" "ieee802-dot1q-sched@2026-12-07" "yangcli: the server's module ieee802-dot1q-sched"
assert_contains "$out" 'namespace "urn:ieee:std:802.1Q:yang:ieee802-dot1q-sched";' "yangcli: get-schema ieee802-dot1q-sched"

# yc_root IFACE: merges of a three-class root (as netconf-lib.sh's ROOT3).
yc_root() {
        local s="/interfaces/interface[name='$1']/schedule/root"
        cat <<EOY
merge $s/num-tc value=3
merge $s/priority-map[priority='1']/traffic-class value=1
merge $s/priority-map[priority='2']/traffic-class value=2
merge $s/queues[traffic-class='0']/count value=1
merge $s/queues[traffic-class='0']/offset value=0
merge $s/queues[traffic-class='1']/count value=1
merge $s/queues[traffic-class='1']/offset value=1
merge $s/queues[traffic-class='2']/count value=2
merge $s/queues[traffic-class='2']/offset value=2
EOY
}

# yc_gates IFACE: create vt0's entry, a gate schedule of two entries
# (300 us class 0, 700 us classes 1 and 2), cycle 1/1000 s, software mode.
yc_gates() {
        local i="/interfaces/interface[name='$1']" g
        g="$i/sched:gate-parameter-table"
        cat <<EOY
create $i/type value=ianaift:ethernetCsmacd
merge $g/gate-enabled value=true
create $g/admin-control-list/gate-control-entry[index='0']/operation-name value=sched:set-gate-states
merge $g/admin-control-list/gate-control-entry[index='0']/gate-states-value value=1
merge $g/admin-control-list/gate-control-entry[index='0']/time-interval-value value=300000
create $g/admin-control-list/gate-control-entry[index='1']/operation-name value=sched:set-gate-states
merge $g/admin-control-list/gate-control-entry[index='1']/gate-states-value value=6
merge $g/admin-control-list/gate-control-entry[index='1']/time-interval-value value=700000
merge $g/admin-cycle-time/numerator value=1
merge $g/admin-cycle-time/denominator value=1000
merge $g/admin-base-time/seconds value=0
merge $g/admin-base-time/nanoseconds value=0
merge $i/schedule/root/mode value=software
EOY
        yc_root "$1"
}

# yc_mq IFACE DELTA: create the entry, an mqprio root and a software etf of
# delta DELTA on queue 2.
yc_mq() {
        local i="/interfaces/interface[name='$1']"
        echo "create $i/type value=ianaift:ethernetCsmacd"
        yc_root "$1"
        cat <<EOY
create $i/schedule/txqueues[queue='2']/delta-ns value=$2
merge $i/schedule/txqueues[queue='2']/offload value=false
EOY
}

# A gate schedule on vt0 and an etf queue on vm0: edits of the candidate,
# one commit.
{ yc_gates vt0; yc_mq vm0 200000; echo commit; } > "$NC/edit.yc"
out=$(yc edit)
echo "$out" | tail -20
root=$(qdisc_at vt0 root)
assert_eq "$(jq -r .kind <<<"$root")" taprio "yangcli: vt0's root (tc)"
assert_eq "$(jq -c '[.options.schedule // .options.admin.schedule | .[] | [.gatemask, .interval]]' <<<"$root")" \
        '[["0x1",300000],["0x6",700000]]' "yangcli: vt0's gate list (tc)"
assert_eq "$(jq -r '.options.cycle_time // .options.admin.cycle_time' <<<"$root")" 1000000 "yangcli: vt0's cycle time (tc)"
assert_eq "$(qdisc_at vm0 root | jq -r .kind)" mqprio "yangcli: vm0's root (tc)"
assert_eq "$(qdisc_at vm0 root | jq -c '[.options.tc, .options.queues, .options.map[0:3]]')" \
        '[3,[[0,0],[1,1],[2,3]],[0,1,2]]' "yangcli: vm0's classes, queues, priorities 0-2 (tc)"
assert_eq "$(etf_delta vm0 100:3)" 200000 "yangcli: vm0 queue 2's etf delta (tc)"
assert_eq "$("$TBSCTL" --json status vt0 | jq -r .origin)" netconf "vt0's origin (tbsctl status)"
assert_eq "$("$TBSCTL" --json status vm0 | jq -r .origin)" netconf "vm0's origin (tbsctl status)"

# The running datastore as yangcli prints it: its sget-config's rpc-reply.
echo "sget-config /interfaces source=running" > "$NC/running.yc"
running_yc() { yc running | sed -n '/^rpc-reply {/,/^}/p'; }
run_yc=$(running_yc)
echo "$run_yc"
assert_contains "$run_yc" "vt0" "yangcli sget-config: the running datastore has vt0"
assert_contains "$run_yc" "200000" "yangcli sget-config: the running datastore has vm0's delta"
run_nc=$(client running)

# Refused edits: tbsd's reason in yangcli's output, nothing changed.
tree_t=$(qdisc_shape vt0)
tree_m=$(qdisc_shape vm0)
printf '%s\n' "merge /interfaces/interface[name='vt0']/sched:gate-parameter-table/admin-cycle-time/denominator value=2000" \
        commit > "$NC/bad-cycle.yc"
out=$(yc bad-cycle)
echo "$out" | tail -20
assert_contains "$out" "ApplySchedules(vt0) by uid 64999: " "yangcli: a cycle shorter than the gate list: refused"
assert_contains "$out" "root.cycle_time_ns" "yangcli: the refusal names the field"
echo discard-changes > "$NC/discard.yc"
yc discard | tail -5
{ yc_mq nope0 200000; echo commit; } > "$NC/nope0.yc"
out=$(yc nope0)
echo "$out" | tail -20
assert_contains "$out" "ApplySchedules(nope0) by uid 64999: interface: no interface nope0 here" \
        "yangcli: an unknown interface: refused"
yc discard | tail -5
assert_eq "$(qdisc_shape vt0)" "$tree_t" "vt0's tree after the refusals (tc -j -d)"
assert_eq "$(qdisc_shape vm0)" "$tree_m" "vm0's tree after the refusals (tc -j -d)"
assert_eq "$(running_yc)" "$run_yc" "the running datastore after the refusals (yangcli sget-config)"
assert_eq "$(client running)" "$run_nc" "the running datastore after the refusals (ncclient get-config)"
[ ! -e "$state/schedules.d/nope0.json" ] || fail "a refused document was kept"
pass "no document kept for nope0"

# Operational state: vt0's gate parameters in force, vm0's tbsd:state.
printf '%s\n' "sget /interfaces/interface[name='vt0']/sched:gate-parameter-table" \
        "sget /interfaces/interface[name='vm0']/state" > "$NC/oper.yc"
out=$(yc oper)
echo "$out" | tail -40
assert_contains "$out" "supported-list-max 80" "yangcli sget: vt0's supported-list-max"
assert_contains "$out" "config-pending false" "yangcli sget: vt0's config-pending"
grep -Eq "oper-gate-states (1|6)$" <<<"$out" || fail "yangcli sget: oper-gate-states not 1 or 6: $out"
pass "yangcli sget: vt0's oper-gate-states is an entry's"
assert_contains "$out" "link-state configured" "yangcli sget: vm0's link-state"
grep -Eq "sent-packets [0-9]+" <<<"$out" || fail "yangcli sget: no sent-packets: $out"
pass "yangcli sget: vm0's queue counters"
stop_netconf

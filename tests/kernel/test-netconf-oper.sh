# issue 48 point 5: every operational leaf, for every link. A controller
# that knows only the published modules commits a 3-class gate schedule on
# a veth of 4 queues, listing its classes in queue-max-sdu-table; its
# <get> in the 802.1DC namespace has tick-granularity, config-change-error
# and, per listed class, transmission-overrun exactly where the kernel
# gives the class's transmit overruns (taprio's per-class TCA_STATS_APP,
# Linux 6.5+, from a driver that counts them): the oracle is tc's class
# statistics, and a veth's taprio gives none on 6.1 and 6.12, so the leaf
# must be absent, not 0, also after traffic went through every class.
# A second veth configured by a file of the schedules folder is in
# tbsd:links with origin file, the first with origin netconf; a commit tbsd
# refuses adds 1 to config-change-error (Describe()'s changes_refused).
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth_to_peer vs0 vs0p 4
make_veth vf0 vf0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"
write_mqprio_schedule "$conf/vf0.json" vf0 300000 400000
start_tbsd_netconf
wait_configured vf0

# The standard-only <config> with every class in queue-max-sdu-table (0:
# the MAC's largest), cycle 1/DENOMINATOR s (netconf-lib.sh's std_gates).
SDU_TABLE=$(for c in 0 1 2; do
        printf '\n <queue-max-sdu-table><traffic-class>%s</traffic-class><queue-max-sdu>0</queue-max-sdu></queue-max-sdu-table>' "$c"
done)
std_sdu_gates() { std_gates "$1" 1 "$2" "$SDU_TABLE"; }
std_sdu_gates vs0 1000 > "$NC/std.xml"
grep -q 'urn:tsn:tbsd' "$NC/std.xml" && fail "the standard-only document names tbsd's module"
assert_eq "$(client edit "$NC/std.xml")" ok "ncclient: commit of the standard-only 3-class gate table"
root=$(qdisc_at vs0 root)
assert_eq "$(jq -c '[.kind, .options.tc]' <<<"$root")" '["taprio",3]' "vs0: taprio with 3 classes (tc)"

# Traffic through every class (Table 8-5 for 3 classes: priority 0 to
# class 0, 4 to class 1, 6 to class 2; queues 1@0 1@1 2@2), frames of
# 1400 bytes. Software taprio sends a frame only when it ends before its
# gate closes (taprio_dequeue_from_txq()'s guard): it cannot overrun, and
# what the kernel does not count tbsd does not invent.
peer_mac=$(ip -n peer -j link show vs0p | jq -r '.[0].address')
ip neigh replace 192.0.2.2 lladdr "$peer_mac" dev vs0 nud permanent
python3 - <<'EOP' || fail "cannot send the frames"
import socket
for prio in (0, 4, 6):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, prio)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"vs0")
    for _ in range(20):
        s.sendto(b"x" * 1400, ("192.0.2.2", 9))
    s.close()
EOP
sent_by_queue() {
        tc -s -j qdisc show dev vs0 | jq -r '[.[] | select(.parent != null and (.parent | startswith("100:")))
                | {key: .parent, value: .packets}] | from_entries | [."100:1" // 0, ."100:2" // 0,
                ((."100:3" // 0) + (."100:4" // 0))] | map(tostring) | join(" ")'
}
every_class_sent() {
        local c0 c1 c2
        read -r c0 c1 c2 <<<"$(sent_by_queue)"
        [ "$c0" -ge 20 ] && [ "$c1" -ge 20 ] && [ "$c2" -ge 20 ]
}
wait_until 10 every_class_sent ||
        fail "not every class sent its 20 frames (tc, queue 0, 1, 2-3): $(sent_by_queue)"
pass "20 frames went out in each class (tc, queue 0, 1, 2-3: $(sent_by_queue))"

# The oracle: the kernel's per-queue transmit overruns, taprio's class
# statistics as tc prints them ("tx_overruns N" where the kernel gave it;
# iproute2 6.1's tc has no JSON for classes, so its text is read); a class
# has a figure when each of its queues has one.
overruns_by_tc() {
        tc -s class show dev vs0 | awk '
                $1 == "class" { q = $3 }
                { for (i = 1; i < NF; i++) if ($i ~ /^tx_overruns:?$/) n[q] = $(i + 1) }
                END {
                        c2 = ("100:3" in n && "100:4" in n) ? n["100:3"] + n["100:4"] : "none"
                        print ("100:1" in n ? n["100:1"] : "none"), ("100:2" in n ? n["100:2"] : "none"), c2
                }'
}
tc -s class show dev vs0
want=$(overruns_by_tc)
echo "the kernel's transmit overruns per class (tc): $want"
oper=$(client oper vs0 "$DC")
echo "$oper"
grep -Eq '^tick-granularity [1-9][0-9]*$' <<<"$oper" || fail "get (802.1DC): no tick-granularity: $oper"
pass "get (802.1DC): tick-granularity $(awk '$1 == "tick-granularity" {print $2}' <<<"$oper") (tenths of ns)"
tc=0
for w in $want; do
        got=$(awk -v k="queue-max-sdu-table[$tc]/transmission-overrun" '$1 == k {print $2}' <<<"$oper")
        assert_contains "$oper" "queue-max-sdu-table[$tc]/traffic-class $tc" "get (802.1DC): class $tc listed"
        if [ "$w" = none ]; then
                [ -z "$got" ] || fail "class $tc: transmission-overrun $got where the kernel gives none"
                pass "class $tc: no transmission-overrun, as the kernel gives none (absent, not 0)"
        else
                assert_eq "$got" "$w" "class $tc: transmission-overrun, the kernel's figure"
        fi
        tc=$((tc + 1))
done
assert_eq "$tc" 3 "the oracle covered the 3 classes"
[ "$(jq '.root.class_stats | length' <<<"$("$TBSCTL" --json status vs0)")" = 3 ] ||
        fail "Describe() has no class_stats of 3 classes: $("$TBSCTL" --json status vs0 | jq -c .root.class_stats)"
pass "Describe(): root.class_stats has the 3 classes"
errors=$(awk '$1 == "config-change-error" {print $2}' <<<"$oper")
assert_eq "$errors" 0 "get (802.1DC): config-change-error 0 after a commit tbsd took"

# Every link tbsd manages, with its origin: vf0 from the schedules folder
# has no entry in the running datastore, but it is in tbsd:links.
links=$(client links)
echo "$links"
assert_contains "$links" "vf0 origin file" "tbsd:links: vf0, origin file"
assert_contains "$links" "vf0 link-state configured" "tbsd:links: vf0 configured"
assert_contains "$links" "vs0 origin netconf" "tbsd:links: vs0, origin netconf"
assert_contains "$links" "vs0 link-state configured" "tbsd:links: vs0 configured"
assert_contains "$(client running)" "vs0" "the running datastore has vs0"
case $(client running) in *vf0*) fail "vf0 is in the running datastore: links must not be configuration" ;; esac
pass "vf0 is state only (not in get-config)"
assert_contains "$(client state vs0)" "origin netconf" "tbsd:state of vs0: origin netconf"

# A change tbsd refuses (a cycle of 0.5 ms under a 1 ms gate list):
# nothing changes, and config-change-error counts it.
tree=$(qdisc_shape vs0)
std_sdu_gates vs0 2000 > "$NC/short.xml"
out=$(client edit "$NC/short.xml")
assert_contains "$out" "rpc-error: ApplySchedules(vs0)" "the cycle shorter than the gate list: refused by tbsd"
assert_eq "$(qdisc_shape vs0)" "$tree" "vs0's tree after the refusal"
assert_eq "$("$TBSCTL" --json status vs0 | jq -r .counters.changes_refused)" 1 "Describe(): counters.changes_refused"
wait_until 5 sh -c "HOME=/run/home /usr/bin/python3 '$TBS_SOURCE_DIR/tests/kernel/nc-client.py' '$NC/userkey' oper vs0 '$DC' |
        grep -qx 'config-change-error $((errors + 1))'" ||
        fail "config-change-error is not $((errors + 1)): $(client oper vs0 "$DC" | grep config-change-error)"
pass "get (802.1DC): config-change-error $((errors + 1)) after the refused change"
stop_netconf

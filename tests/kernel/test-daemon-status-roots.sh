# tbsctl status says what root each link has (issue 47): for every kind of
# root tbsd can meet, made here for real, `tbsctl status` names the
# kernel's kind and handle, says whose it is and why the schedule's tree is
# not there, and prints no "?"; `tbsctl --json status` agrees with
# `tc -j qdisc show`. The kernel's own roots: noqueue (a fresh veth),
# pfifo_fast (a one-queue ifb), mq (a four-queue ifb), fq_codel (an ifb made
# under default_qdisc fq_codel); an administrator's: fq_codel, htb, prio,
# mqprio, taprio, etf and cbs roots put there with tc; and tbsd's own tree.
# Every link but the last has a schedule the device check refuses (offload
# on a veth or ifb, which have none), so tbsd leaves each root as it is.

# root_of DEV: "kind handle" of the root qdisc, as tc says.
root_of() {
        tc -j qdisc show dev "$1" | jq -r '.[] | select(.root) | "\(.kind) \(.handle)"'
}

for m in ifb sch_htb sch_fq_codel sch_prio; do modprobe -d /run/modroot "$m"; done

# The kernel's own roots: the default qdisc the kernel attaches.
make_veth nq0 nq0p 4
# (the kernel attaches it when the device comes up, by default_qdisc then)
default_was=$(sysctl -n net.core.default_qdisc)
sysctl -qw net.core.default_qdisc=pfifo_fast
ip link add pf0 numtxqueues 1 type ifb
ip link add mq0 numtxqueues 4 type ifb
ip link set pf0 up
ip link set mq0 up
sysctl -qw net.core.default_qdisc=fq_codel
ip link add fc0 numtxqueues 1 type ifb
ip link set fc0 up
sysctl -qw net.core.default_qdisc="$default_was"

# An administrator's roots.
make_veth fq1 fq1p 4
tc qdisc add dev fq1 root handle 2: fq_codel
make_veth ht1 ht1p 4
tc qdisc add dev ht1 root handle 1: htb default 10
tc class add dev ht1 parent 1: classid 1:10 htb rate 1mbit
make_veth pr1 pr1p 4
tc qdisc add dev pr1 root handle 5: prio bands 4
make_veth mp1 mp1p 4
tc qdisc add dev mp1 root handle 100: mqprio num_tc 2 map 0 1 queues 1@0 3@1 hw 0
make_veth tp1 tp1p 4
tc qdisc add dev tp1 root handle 100: taprio num_tc 2 map 0 1 queues 1@0 3@1 base-time 0 \
        sched-entry S 01 300000 sched-entry S 02 300000 clockid CLOCK_TAI
make_veth et1 et1p 1
tc qdisc add dev et1 root handle 100: etf clockid CLOCK_TAI delta 300000
make_veth cb1 cb1p 1
tc qdisc add dev cb1 root handle 100: cbs idleslope 20000 sendslope -980000 hicredit 30 locredit -1470
# tbsd's own tree.
make_veth ok0 ok0p 4

refused="nq0 pf0 mq0 fc0 fq1 ht1 pr1 mp1 tp1 et1 cb1"
declare -A owner=([nq0]=default [pf0]=default [mq0]=default [fc0]=default [ok0]=tbsd)
declare -A modeled=([mp1]=true [tp1]=true [et1]=true [cb1]=true [ok0]=true)
declare -A before
for i in $refused ok0; do before[$i]=$(root_of "$i"); done
assert_eq "${before[nq0]}" "noqueue 0:" "a fresh veth's root"
assert_eq "${before[pf0]}" "pfifo_fast 0:" "a one-queue ifb's root"
assert_eq "${before[mq0]}" "mq 0:" "a four-queue ifb's root"
assert_eq "${before[fc0]}" "fq_codel 0:" "a one-queue ifb's root under default_qdisc fq_codel"

conf=$TMPDIR/conf
mkdir -p "$conf"
for i in $refused ok0; do write_mqprio_schedule "$conf/$i.json" "$i" 200000 500000; done
for i in $refused; do
        jq '.txqueues[0].offload = true' "$conf/$i.json" > "$conf/$i.tmp" && mv "$conf/$i.tmp" "$conf/$i.json"
done

start_system_bus
start_tbsd "$conf"
wait_configured ok0
for i in $refused; do
        wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status $i | jq -r .state)\" = failed ]" ||
                fail "$i not refused: $("$TBSCTL" status "$i" 2>&1)"
done
pass "every schedule but ok0's refused"

for i in $refused ok0; do
        kh=$(root_of "$i")
        [ "$i" = ok0 ] || assert_eq "$kh" "${before[$i]}" "$i's root left as it was"
        read -r kind handle <<<"$kh"
        text=$("$TBSCTL" status "$i")
        json=$("$TBSCTL" --json status "$i")
        case "$text" in
        *"?"*) fail "a '?' in tbsctl status $i: $text" ;;
        esac
        pass "no '?' in tbsctl status $i"
        assert_contains "$text" "Root: $kind $handle" "tbsctl status $i"
        # --json against tc -j
        assert_eq "$(jq -r '.root.qdisc' <<<"$json")" "$kind" "$i: root.qdisc"
        assert_eq "$(jq -r '.root.handle' <<<"$json")" "$handle" "$i: root.handle"
        assert_eq "$(jq -r '.root.modeled' <<<"$json")" "${modeled[$i]:-false}" "$i: root.modeled"
        assert_eq "$(jq -r '.root.owner' <<<"$json")" "${owner[$i]:-foreign}" "$i: root.owner"
        case ${owner[$i]:-foreign} in
        default)
                assert_contains "$text" "Root: $kind $handle, the kernel's default root (not tbsd's tree)" \
                        "tbsctl status $i" ;;
        foreign)
                assert_contains "$(jq -r '.root.owner_reason' <<<"$json")" "root qdisc $kind $handle is not tbsd's" \
                        "$i: root.owner_reason"
                assert_contains "$text" "Root owner: root qdisc $kind $handle is not tbsd's" "tbsctl status $i" ;;
        tbsd)
                assert_eq "$(jq -r '.root.owner_reason' <<<"$json")" null "$i: root.owner_reason" ;;
        esac
        if [ "$i" != ok0 ]; then
                reason=$(jq -r .state_reason <<<"$json")
                assert_contains "$text" "Schedule tree: not installed: $reason" "tbsctl status $i"
        fi
done

# Every link at once: the same, and no "?" either.
all=$("$TBSCTL" status)
case "$all" in
*"?"*) fail "a '?' in tbsctl status: $all" ;;
esac
assert_eq "$("$TBSCTL" --json status | jq -r '[.[] | .root.qdisc] | length')" 12 "roots in tbsctl --json status"
pass "tbsctl status of every link: no '?'"

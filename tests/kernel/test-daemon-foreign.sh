# tbsd removes only the trees it owns. An administrator's own root (htb with
# a class, fq_codel, prio, an mqprio with other settings) on an interface whose
# schedule failed the device check stays through `tbsctl remove`, a deleted
# schedule file and `tbsd --remove`, and each says what it left and why.
# Trees tbsd did install are still removed by all of them. `tbsd --remove`
# with a daemon running goes through it (the tree does not come back), and
# without one works on its own.

# root_of DEV: "kind handle" of the root qdisc.
root_of() {
        tc -j qdisc show dev "$1" | jq -r '.[] | select(.root) | "\(.kind) \(.handle)"'
}

# htb_classes DEV: the handles of DEV's htb classes (tc has no JSON for them).
htb_classes() {
        tc class show dev "$1" | awk '$1 == "class" && $2 == "htb" { print $3 }' | tr '\n' ' ' | sed 's/ $//'
}

# expect_root DEV "KIND HANDLE" WHAT
expect_root() {
        assert_eq "$(root_of "$1")" "$2" "$3"
}

for m in sch_htb sch_fq_codel sch_prio; do modprobe -d /run/modroot "$m"; done

make_veth fh0 fh0p 2    # htb; the schedule's queues are beyond the device
make_veth fq0 fq0p 4    # fq_codel; the schedule asks for offload on veth
make_veth fm0 fm0p 2    # mqprio 100: of its own; queues beyond the device
make_veth fd0 fd0p 2    # htb; its file gets deleted
make_veth fp0 fp0p 2    # prio; its file gets deleted
make_veth ok0 ok0p 4    # tbsd's tree: tbsctl remove
make_veth ok1 ok1p 4    # tbsd's tree: file deleted
make_veth ok2 ok2p 4    # tbsd's tree, then a new schedule that fails the device check
make_veth ok3 ok3p 4    # tbsd's tree: tbsd --remove with the daemon running
make_veth ok4 ok4p 4    # tbsd's tree, replaced by an administrator's htb

tc qdisc add dev fh0 root handle 1: htb default 10
tc class add dev fh0 parent 1: classid 1:10 htb rate 1mbit
tc qdisc add dev fq0 root handle 2: fq_codel
tc qdisc add dev fm0 root handle 100: mqprio num_tc 2 map 0 1 queues 1@0 1@1 hw 0
tc qdisc add dev fd0 root handle 1: htb default 10
tc class add dev fd0 parent 1: classid 1:10 htb rate 1mbit
tc qdisc add dev fp0 root handle 5: prio bands 4

conf=$TMPDIR/conf
mkdir -p "$conf"
for i in fh0 fm0 fd0 fp0 ok0 ok1 ok2 ok3 ok4; do write_mqprio_schedule "$conf/$i.json" "$i" 200000 500000; done
write_mqprio_schedule "$conf/fq0.json" fq0 200000 500000
jq '.txqueues[0].offload = true' "$conf/fq0.json" > "$conf/fq0.tmp" && mv "$conf/fq0.tmp" "$conf/fq0.json"

start_system_bus
start_tbsd "$conf"
start_monitor
for i in ok0 ok1 ok2 ok3 ok4; do wait_configured "$i"; done

# The device check refused the schedules: nothing was touched.
for i in fh0 fq0 fm0 fd0 fp0; do assert_eq "$(link_state "$i")" failed "$i refused by the device check"; done
expect_root fh0 "htb 1:" "fh0 keeps its htb after the failed apply"
expect_root fq0 "fq_codel 2:" "fq0 keeps its fq_codel after the failed apply"
expect_root fm0 "mqprio 100:" "fm0 keeps its mqprio after the failed apply"

# tbsctl remove: the foreign roots stay, the answer says which and why.
set +e
out=$("$TBSCTL" remove fh0 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "tbsctl remove of a foreign htb fails"
assert_contains "$out" "root qdisc htb 1: is not tbsd's (the schedule declares mqprio 100:), left in place" \
        "tbsctl remove fh0"
expect_root fh0 "htb 1:" "fh0's htb left in place"
assert_eq "$(htb_classes fh0)" 1:10 "fh0's htb class left"
expect_event fh0 foreign
assert_eq "$(link_state fh0)" pending "fh0 set aside"
assert_contains "$("$TBSCTL" --json status fh0 | jq -r .state_reason)" "htb 1: is not tbsd's" "fh0 state reason"

set +e
out=$("$TBSCTL" remove fq0 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "tbsctl remove of a foreign fq_codel fails"
assert_contains "$out" "fq_codel 2: is not tbsd's" "tbsctl remove fq0"
expect_root fq0 "fq_codel 2:" "fq0's fq_codel left in place"

# Same kind and handle as the schedule's root, other settings: not tbsd's.
set +e
out=$("$TBSCTL" remove fm0 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "tbsctl remove of a foreign mqprio fails"
assert_contains "$out" "mqprio 100: is not tbsd's (its settings differ from the schedule's)" "tbsctl remove fm0"
expect_root fm0 "mqprio 100:" "fm0's mqprio left in place"
assert_eq "$(tc -j qdisc show dev fm0 | jq -r '.[] | select(.root) | .options.tc')" 2 "fm0's own number of classes"

# A deleted schedule file: the foreign htb stays, tbsd's tree goes. The
# reload fails: it names the files the device check still refuses.
rm "$conf/fd0.json" "$conf/fp0.json" "$conf/ok1.json"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "reload with files the device check refuses"
assert_eq "$(grep -c "$conf/f[hmq]0.json: " <<<"$out")" 3 "the reload names fh0, fm0 and fq0: $out"
expect_root fp0 "prio 5:" "fp0's prio left in place after its file was deleted"
assert_eq "$(tc -j qdisc show dev fp0 | jq -r '.[] | select(.root) | .options.bands')" 4 "fp0's prio bands"
expect_event fp0 foreign
expect_root fd0 "htb 1:" "fd0's htb left in place after its file was deleted"
assert_eq "$(htb_classes fd0)" 1:10 "fd0's htb class left"
expect_event fd0 foreign
grep -q "fd0: foreign: root qdisc htb 1: is not tbsd's" "$TBS_OUT/tbsd.log" || fail "the log does not say what fd0 kept"
pass "the log says what fd0 kept"
expect_root ok1 "noqueue 0:" "ok1's tree removed with its file"
expect_event ok1 removed

# tbsctl remove of a tree tbsd installed still removes it.
"$TBSCTL" remove ok0
expect_root ok0 "noqueue 0:" "ok0's tree removed by tbsctl remove"
assert_eq "$(tc -j qdisc show dev ok0 | jq length)" 1 "nothing but ok0's default root"

# The tree tbsd installed stays tbsd's when a new schedule for it cannot be
# installed (launch-time offload on a veth): the schedule in force stays,
# and remove still takes it off.
jq '.txqueues[0].offload = true' "$conf/ok2.json" > "$conf/ok2.tmp"
mv "$conf/ok2.tmp" "$conf/ok2.json"
"$TBSCTL" reload || true
assert_eq "$(link_state ok2)" configured "ok2's new schedule refused by the device check, the old one in force"
expect_root ok2 "mqprio 100:" "ok2's installed tree kept"
"$TBSCTL" remove ok2
expect_root ok2 "noqueue 0:" "ok2's tree (installed by the previous schedule) removed"

# An administrator replaces tbsd's root with an htb and a class: drift
# enforcement does not put tbsd's tree over it (a failed apply could not put
# the htb back), the link is failed and says why.
tc qdisc replace dev ok4 root handle 1: htb default 10
tc class add dev ok4 parent 1: classid 1:10 htb rate 1mbit
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status ok4 | jq -r .state)\" = failed ]" ||
        fail "ok4 not failed: $("$TBSCTL" status ok4 2>&1)"
assert_contains "$("$TBSCTL" --json status ok4 | jq -r .state_reason)" \
        "root qdisc htb 1: is not tbsd's and could not be put back if the apply failed" "ok4 state reason"
expect_root ok4 "htb 1:" "ok4's htb left in place"
assert_eq "$(htb_classes ok4)" 1:10 "ok4's htb class left"

# tbsd --remove with the daemon running goes through it: the tree does not
# come back (drift enforcement restores a deleted root within 1 s).
out=$("$TBSD" --remove ok3 --config-dir "$conf")
assert_eq "$out" "ok3: removed by the running tbsd" "tbsd --remove with the daemon running"
expect_root ok3 "noqueue 0:" "ok3's tree removed"
if wait_until 3 sh -c "[ \"\$(tc -j qdisc show dev ok3 | jq -r '.[] | select(.root) | .kind')\" = mqprio ]"; then
        fail "ok3's tree came back after tbsd --remove"
fi
pass "ok3's tree stays removed for 3 s"
assert_eq "$(link_state ok3)" pending "ok3 pending after tbsd --remove"
set +e
out=$("$TBSD" --remove fh0 --config-dir "$conf"); rc=$?
set -e
assert_eq "$rc" 1 "tbsd --remove of a foreign htb through the daemon fails"
assert_contains "$out" "fh0: failed: root qdisc htb 1: is not tbsd's" "tbsd --remove fh0 through the daemon"
expect_root fh0 "htb 1:" "fh0's htb still in place"
kill -0 "$TBSD_PID" || fail "tbsd died"

# Without a daemon (the bus still runs, nobody owns org.tsn.Tbs),
# tbsd --remove works on its own, with the same rule.
kill "$TBSD_PID"
wait "$TBSD_PID" || true
wait_until 5 sh -c "! busctl --system status org.tsn.Tbs" || fail "org.tsn.Tbs still owned"
write_mqprio_schedule "$conf/ok1.json" ok1 200000 500000
out=$("$TBSD" --once --config-dir "$conf" 2>/dev/null | grep '^ok1:' || true)  # the foreign ones fail
assert_eq "$out" "ok1: applied" "ok1 installed by tbsd --once"
out=$("$TBSD" --remove ok1 --config-dir "$conf")
assert_eq "$out" "ok1: removed" "tbsd --remove without a daemon"
expect_root ok1 "noqueue 0:" "ok1's tree removed without a daemon"
set +e
out=$("$TBSD" --remove fh0 --config-dir "$conf"); rc=$?
set -e
assert_eq "$rc" 1 "tbsd --remove of a foreign htb without a daemon fails"
assert_contains "$out" "fh0: failed: root qdisc htb 1: is not tbsd's (the schedule declares mqprio 100:), left in place" \
        "tbsd --remove fh0 without a daemon"
expect_root fh0 "htb 1:" "fh0's htb still in place"
set +e
out=$("$TBSD" --remove fd0 --config-dir "$conf"); rc=$?
set -e
assert_eq "$rc" 1 "tbsd --remove where no schedule declares the interface fails"
assert_contains "$out" "htb 1: is not tbsd's (no schedule of tbsd declares a tree here), left in place" \
        "tbsd --remove fd0 without a schedule"
expect_root fd0 "htb 1:" "fd0's htb still in place"

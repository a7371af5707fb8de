# Issue 39 point 2: the Linux 6.1 behaviours tbsd works around, asked of the
# running kernel with tc. Does grafting a child stop a software taprio's gate
# schedule on the running kernel? Linux 6.1 does (sch_taprio.c: the graft
# deactivates the device, taprio_reset() cancels the timer that advances
# the schedule, dev_activate() does not start it again), so tbsd sends the
# schedule once more after grafting (qdisc-plan.c plan_restart_schedule(),
# qdisc-rollback.c restart_software_taprio()). This test shows the kernel's
# behaviour with tc and traffic (UDP frames on class 0 leave through the
# root only while its schedule runs), then that tbsd's apply leaves a
# running schedule. It asserts the stop on every kernel it runs on: the day
# a kernel no longer stops the schedule, this fails and the workaround can
# become a probe. The same for the qdisc dump that ignores tcm_ifindex (5).
make_veth va vb 4
ip addr add 10.39.0.1/24 dev va
ip neigh replace 10.39.0.2 lladdr "$(cat /sys/class/net/vb/address)" dev va nud permanent

sent() { # DEV: packets the root qdisc has sent
        qdisc_at "$1" root | jq -r .packets
}
sent_at_least() { # DEV N: the root has sent N packets or more
        [ "$(sent "$1")" -ge "$2" ]
}
ping_some() { # DEV ADDR: five UDP frames out of DEV on class 0 (priority 0)
        local i
        for i in 1 2 3 4 5; do
                echo "frame $i" > "/dev/udp/$2/9" || true
        done
}

sched='num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 3@1 base-time 0 sched-entry S 01 500000 sched-entry S 02 500000 clockid CLOCK_TAI'

# 1. A software taprio root: frames of class 0 go out.
tc qdisc add dev va root handle 100: taprio $sched
before=$(sent va)
ping_some va 10.39.0.2
wait_until 10 sent_at_least va $((before + 5)) || fail "a fresh software taprio sent $(sent va) packets, expected $((before + 5))"

# 2. A child grafted with tc: the schedule stops. A window in which the
# root must not send (not a wait): frames stay queued.
tc qdisc replace dev va parent 100:2 handle 20: pfifo
before=$(sent va)
ping_some va 10.39.0.2
sleep 1
after=$(sent va)
echo "kernel $(uname -r): after a graft the root sent $((after - before)) of 5 frames (backlog $(qdisc_at va root | jq -r .qlen))"
assert_eq "$after" "$before" "packets sent after a graft (the kernel stops a software taprio's schedule)"

# 3. The same schedule sent again as a change (what tbsd sends): it runs
# again and the queued frames leave.
tc qdisc replace dev va root handle 100: taprio base-time 0 sched-entry S 01 500000 sched-entry S 02 500000 clockid CLOCK_TAI
wait_until 10 sent_at_least va $((before + 5)) || fail "after the change the root sent $(( $(sent va) - before )) packets, expected 5"

# 4. tbsd: a software taprio with an etf grafted on queue 1 (the plan sends
# the schedule again after the child); frames of class 0 flow.
tc qdisc del dev va root
conf=$TMPDIR/schedules.d
mkdir -p "$conf"
cat > "$conf/va.json" <<EOS
{ "interface": "va",
  "root": { "qdisc": "taprio", "handle": "100:", "num_tc": 2,
    "priority_map": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [{"count": 1, "offset": 0}, {"count": 3, "offset": 1}],
    "clockid": "CLOCK_TAI", "base_time_ns": 0, "mode": "software",
    "entries": [
      {"command": "set-gates", "gate_mask": 1, "interval_ns": 500000},
      {"command": "set-gates", "gate_mask": 2, "interval_ns": 500000}
    ] },
  "txqueues": [
    {"queue": 1, "qdisc": "etf", "delta_ns": 300000, "offload": false, "skip_sock_check": true}
  ] }
EOS
assert_eq "$("$TBSD" --once --config-dir "$conf" || true)" "va: applied" "tbsd --once"
assert_eq "$(qdisc_at va 100:2 | jq -r .kind)" etf "etf on queue 1"
before=$(sent va)
ping_some va 10.39.0.2
wait_until 10 sent_at_least va $((before + 5)) || fail "after tbsd's apply the root sent $(( $(sent va) - before )) packets, expected 5"
# No software taprio left running: under TCG its 2 kHz gate timer slows
# the rest of the guest (6.12 once reported a soft lockup of tc in step 7
# with two of them running).
tc qdisc del dev va root

# 5. The qdisc dump (RTM_GETQDISC with NLM_F_DUMP) names one interface in
# tcm_ifindex, as tc qdisc show dev X sends it: Linux 6.1 dumps every
# interface anyway (tc_dump_qdisc() walks every device), so tbsd drops the
# other interfaces' messages as they arrive (qdisc_dump_wants()). The bytes
# tc receives for lo grow with the qdiscs of other interfaces while the
# kernel still does so.
dump_bytes() { # the bytes tc reads from netlink for `tc qdisc show dev lo`
        strace -qq -e trace=recvmsg -s 0 -o "$TMPDIR/dump.strace" tc qdisc show dev lo >/dev/null
        awk '/^recvmsg/ && $NF > 0 { n += $NF } END { print n + 0 }' "$TMPDIR/dump.strace"
}
b1=$(dump_bytes)
for i in 1 2 3 4 5 6 7 8; do
        make_veth "dm$i" "dp$i" 4
        tc qdisc add dev "dm$i" root handle 100: mqprio num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 3@1 hw 0
done
b2=$(dump_bytes)
echo "kernel $(uname -r): a dump for lo read $b1 bytes, $b2 with 8 more interfaces' qdiscs"
[ "$b2" -gt $((b1 + 2000)) ] || fail "the dump for lo did not grow with other interfaces' qdiscs ($b1 -> $b2 bytes): the kernel filters by tcm_ifindex"

# 6. What the kernel will not change in place, as tc says it (Linux 6.1:
# "Change operation not supported by specified qdisc."): an mqprio root
# (tbsd re-creates it, qdisc_root_change_request() answers -EOPNOTSUPP),
# and an etf replaced without a handle (the kernel tries to change the etf
# in place; tbsd grafts a new one under a fresh handle, qdisc_etf_request()).
tc qdisc add dev dm1 parent 100:1 etf clockid CLOCK_TAI delta 300000
out=$(tc qdisc change dev dm1 root handle 100: mqprio num_tc 2 map 1 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 3@1 hw 0 2>&1) && fail "mqprio changed in place: $out"
assert_contains "$out" "Change operation not supported" "tc qdisc change of an mqprio root"
out=$(tc qdisc replace dev dm1 parent 100:1 etf clockid CLOCK_TAI delta 400000 2>&1) && fail "etf replaced without a handle: $out"
assert_contains "$out" "Change operation not supported" "tc qdisc replace of an etf without a handle"
assert_eq "$(qdisc_at dm1 100:1 | jq -r .options.delta)" 300000 "the etf left as it was"

# 7. A root put in place of an mqprio or taprio root under another handle
# in one request: Linux 6.1 answers success and leaves the new root with no
# traffic classes (the old root's destroy resets the device's), so tbsd
# deletes the old root first (qdisc_root_delete_first(); every direction
# with rollbacks: kernel-root-rehandle and kernel612-root-rehandle).
tc qdisc replace dev dm2 root handle 200: taprio num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 3@1 \
        base-time 0 sched-entry S 01 50000000 sched-entry S 02 50000000 clockid CLOCK_TAI
r=$(qdisc_at dm2 root)
echo "kernel $(uname -r): mqprio 100: -> taprio 200: in one request: $(jq -c '[.handle, (.options.tc // 0)]' <<<"$r")"
assert_eq "$(jq -c '[.kind, .handle, (.options.tc // 0), (.options.queues // [] | length)]' <<<"$r")" '["taprio","200:",0,0]' \
        "one-step replace mqprio 100: -> taprio 200: leaves no traffic classes"
pass "quirks-61"

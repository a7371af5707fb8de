# Link.GetTxtimeWindow() on a taprio root in txtime-assist mode, against
# what `tc -j qdisc show` says the kernel holds: base time, cycle time and,
# per traffic class, the open windows worked out from tc's gate list by an
# independent reading (python below) of how sch_taprio.c checks a launch
# time: one window per entry that opens the class, entries end to end from
# the cycle's start, cut at the cycle's end. The cycle is longer than the
# entries, so the last 200 us of each cycle are open to no class. An etf
# queue under the taprio root gets its socket (OpenTxtimeSocket), and a
# class with no window is a window list that is empty. Then the kernel
# itself: frames through that socket with launch times at chosen offsets
# into the cycle reach the peer inside a window and are dropped by taprio
# (the send fails with ENOBUFS) at a window's very start, across the
# boundary of two adjacent windows of the class, across a window's end and
# in the gap at the end of the cycle; tc's drop counter of the root agrees.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client

make_veth_to_peer tw0 tw0p
conf=$TMPDIR/conf
mkdir -p "$conf"
cat > "$conf/tw0.json" <<EOJ
{
  "interface": "tw0",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
               {"count": 1, "offset": 3}],
    "clockid": "CLOCK_TAI", "base_time_ns": 1000, "cycle_time_ns": 1200000,
    "mode": "txtime-assist", "txtime_delay_ns": 200000,
    "entries": [
      {"gate_mask": "0x1", "interval_ns": 300000},
      {"gate_mask": "0x3", "interval_ns": 200000},
      {"gate_mask": "0x4", "interval_ns": 400000},
      {"gate_mask": "0x5", "interval_ns": 100000}
    ]
  },
  "txqueues": [
    {"queue": 0, "delta_ns": 300000, "offload": false, "skip_sock_check": true},
    {"queue": 1, "delta_ns": 300000, "offload": false, "skip_sock_check": true},
    {"queue": 2, "delta_ns": 300000, "offload": false, "skip_sock_check": true}
  ],
  "sockets": {"group": "users"},
  "allow": ["ptp-gate", "assist-delay"]
}
EOJ
start_system_bus
start_tbsd "$conf" --admin-group users
wait_configured tw0

tc -j qdisc show dev tw0 > "$TMPDIR/tc.json"
root=$(jq -c '.[] | select(.root)' "$TMPDIR/tc.json")
echo "$root"
assert_eq "$(jq -r .kind <<<"$root")" taprio "root qdisc"
assert_eq "$(jq -r .options.flags <<<"$root")" 0x1 "taprio flags (txtime-assist)"

# uid 65534 in group users, tbsd's admin group here: packet sockets are for
# admins (kernel-daemon-txtime-confine).
member() { setpriv --reuid=65534 --regid=65534 --groups 100 "$@"; }
for tc in 0 1 2 3; do
        got=$(member "$CLIENT" window tw0 $tc) || fail "GetTxtimeWindow($tc): $got"
        want=$(taprio_windows tw0 $tc)
        assert_eq "$(jq -c . <<<"$got")" "$(jq -c . <<<"$want")" "class $tc windows against tc"
done
# What the classes look like, for the reader (offset, length in ns):
assert_eq "$(member "$CLIENT" window tw0 0 | jq -c .windows)" "[[0,300000],[300000,200000],[900000,100000]]" \
        "class 0 windows"
assert_eq "$(member "$CLIENT" window tw0 3 | jq -c .windows)" "[]" "class 3 is never open"
# busctl as a second client.
assert_eq "$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tw0 org.tsn.Tbs.Link GetTxtimeWindow u 2)" \
        "tta(tt) 1000 1200000 2 500000 400000 900000 100000" "busctl: class 2"

# The etf queue of class 1 under taprio: its socket on taprio's clock.
out=$(member "$CLIENT" open tw0 options packet --protocol 0x88b5 --class 1)
assert_eq "$(jq -r '[.so_priority, .so_txtime_clockid, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" \
        "2,11,2,300000" "class 1 socket under taprio"
set +e
out=$(member "$CLIENT" open tw0 3 packet --protocol 0x88b5); rc=$?
set -e
assert_eq "$rc" 1 "queue 3 without etf"
assert_contains "$out" "org.tsn.Tbs.Error.NoEtf" "queue 3 without etf"

# Launch times against the windows, as taprio checks them at enqueue: N
# frames at OFFSET into N successive cycles through the class 0 socket;
# prints "sent-and-refused passed": passed are those received, plus those
# the error queue reports missed (taprio let them in; the etf's wake-up in
# a loaded guest came after their launch time).
at_offset() {
        local n=5 out
        ip netns exec peer "$CLIENT" recv tw0p 0x88b5 $n 3000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
        local rp=$!
        wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start"
        out=$(member "$CLIENT" send tw0 0 packet --protocol 0x88b5 --count $n --cycle-offset "$1") || fail "send at $1: $out"
        wait "$rp"
        echo "$(jq -r .enobufs <<<"$out") $(( $(jq -r .received "$TMPDIR/recv.json") + $(jq -r .missed <<<"$out") ))"
}
# Class 0's windows: [0, 300000), [300000, 500000), [900000, 1000000); a
# frame of 60 bytes takes 48 ns at veth's 10 Gb/s.
drops0=$(tc -j -s qdisc show dev tw0 | jq -r '.[] | select(.root) | .drops')
assert_eq "$(at_offset 10000)" "0 5" "inside the first window: all received"
assert_eq "$(at_offset 450000)" "0 5" "inside the second window: all received"
assert_eq "$(at_offset 999900)" "0 5" "ending just before the third window's end: all received"
assert_eq "$(at_offset 0)" "5 0" "exactly at a window's start: all dropped"
assert_eq "$(at_offset 299990)" "5 0" "across two adjacent windows of the class: all dropped"
assert_eq "$(at_offset 300000)" "5 0" "exactly on the boundary of two adjacent windows: all dropped"
assert_eq "$(at_offset 999990)" "5 0" "across a window's end: all dropped"
assert_eq "$(at_offset 1100000)" "5 0" "in the gap after the last entry: all dropped"
drops1=$(tc -j -s qdisc show dev tw0 | jq -r '.[] | select(.root) | .drops')
assert_eq "$((drops1 - drops0))" 25 "tc: the taprio root dropped them"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

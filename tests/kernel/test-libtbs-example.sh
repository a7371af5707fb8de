# examples/txtime-sender, the application of libtbs, run as an unprivileged
# user (uid 65534) in tbsd's admin group, which is also the schedule's
# sockets.group (packet sockets, the sender's default, are for admins;
# kernel-daemon-txtime-confine): it gets its socket from
# tbsd (OpenTxtimeSocket() over the system bus, the descriptor passed),
# sends a frame every cycle through the tbsd-installed etf on queue 0 and
# reports them sent, none invalid or missed; etf's own counters (tc -s, the
# independent oracle) count the same frames. With every 5th launch time put
# in the past, the sender's error queue reports exactly those as invalid and
# etf counts them as drops. By traffic class and by priority it reaches
# the same queue; with --timestamps each frame comes back as a software TX
# time stamp. Under valgrind the library's whole path over the bus is clean
# (a leak of 22 bytes put into get_link() failed it). Without the groups the
# same user is refused,
# with tbsd's error name. On a taprio link with --class the sender reads the
# class's gate window (GetTxtimeWindow()) and places its launch times in it;
# launch times outside it are dropped by taprio, and the sender counts them.
SENDER=$TBS_BUILD_DIR/examples/txtime-sender
[ -x "$SENDER" ] || fail "no $SENDER (meson compile)"

# The guest's timers fire late now and then by tens of ms when the host is
# busy (seen: a 20 ms delta and a lead of 20.5 ms gave 10 refused and some
# missed launch times in 100): the etf here has a delta of 200 ms and the
# sender queues each frame 400 ms ahead, so only the scheduled refusals of
# --past-every are expected.
make_veth lx0 lx0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
cat > "$conf/lx0.json" <<EOJ
{
  "interface": "lx0",
  "sockets": {"group": "nogroup"},
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 200000000, "offload": false}
  ]
}
EOJ
start_system_bus
start_tbsd "$conf" --admin-group nogroup
wait_configured lx0

# etf's counter FIELD on queue 0 (parent 100:1), from tc -s.
etf_stat() {
        tc -j -s qdisc show dev lx0 | jq -r '.[] | select(.parent == "100:1" and .kind == "etf") | .'"$1"
}
# as_member ARGS...: the sender as uid 65534, primary group users (100),
# nogroup (65534) as a supplementary group: a member of sockets.group and
# of the admin group.
as_member() {
        setpriv --reuid=65534 --regid=100 --groups 65534 "$SENDER" "$@"
}
# total OUTPUT FIELD: the sender's total count FIELD (sent, invalid, missed).
total() {
        sed -n "s/^total: .* $2 \([0-9]*\).*/\1/p; s/^total: $2 \([0-9]*\).*/\1/p" <<<"$1" | head -1
}

# 1. On time: a frame every 20 ms for 2 s, 5 ms into the cycle.
p0=$(etf_stat packets)
d0=$(etf_stat drops)
out=$(as_member --interface lx0 --queue 0 --cycle 20000000 --offset 5000000 --duration 2 --lead 400000000) ||
        fail "txtime-sender failed: $out"
echo "$out"
assert_contains "$out" "socket from tbsd: priority 3 clockid 11 txtime_flags 0x2 delta_ns 200000000" "the socket tbsd set up"
grep -qE '^1 s: sent [0-9]+ invalid 0 missed 0$' <<<"$out" || fail "no per-second line for the first second: $out"
pass "per-second counts printed"
sent=$(total "$out" sent)
[ -n "$sent" ] && [ "$sent" -ge 50 ] || fail "sent only '$sent' frames in 2 s of 20 ms cycles"
assert_eq "$(total "$out" invalid)" 0 "invalid launch times"
assert_eq "$(total "$out" missed)" 0 "missed launch times"
wait_until 5 sh -c "[ \$(( \$(tc -j -s qdisc show dev lx0 | jq -r '.[] | select(.parent == \"100:1\") | .packets') - $p0 )) -eq $sent ]" ||
        fail "etf on queue 0 sent $(( $(etf_stat packets) - p0 )) frames, the sender counted $sent"
assert_eq "$(( $(etf_stat drops) - d0 ))" 0 "etf drops"
pass "etf's own counters: $sent frames through queue 0, no drops"

# 2. Every 5th launch time in the past: refused at enqueue, reported on the
# sender's error queue, dropped by etf.
p0=$(etf_stat packets)
d0=$(etf_stat drops)
out=$(as_member --interface lx0 --queue 0 --cycle 20000000 --offset 5000000 --count 20 --past-every 5 --lead 400000000) ||
        fail "txtime-sender failed: $out"
echo "$out"
assert_eq "$(total "$out" sent)" 16 "frames sent"
assert_eq "$(total "$out" invalid)" 4 "launch times refused (every 5th of 20)"
assert_eq "$(total "$out" missed)" 0 "missed launch times"
wait_until 5 sh -c "[ \$(( \$(tc -j -s qdisc show dev lx0 | jq -r '.[] | select(.parent == \"100:1\") | .packets') - $p0 )) -eq 16 ]" ||
        fail "etf sent $(( $(etf_stat packets) - p0 )) frames, not 16"
assert_eq "$(( $(etf_stat drops) - d0 ))" 4 "etf drops (the refused launch times)"

# 3. By traffic class and by priority: class 0 and priority 3 reach queue 0.
p0=$(etf_stat packets)
out=$(as_member --interface lx0 --class 0 --count 3 --cycle 20000000 --lead 400000000) || fail "by class: $out"
assert_contains "$out" "priority 3 clockid 11" "class 0's socket"
assert_eq "$(total "$out" sent)" 3 "frames sent by class"
out=$(as_member --interface lx0 --priority 3 --count 3 --cycle 20000000 --lead 400000000 --timestamps) ||
        fail "by priority: $out"
echo "$out"
assert_eq "$(total "$out" sent)" 3 "frames sent by priority"
# veth stamps in software what it transmits: one TX time stamp per frame.
assert_eq "$(total "$out" timestamps)" 3 "TX time stamps (option tx_timestamps)"
wait_until 5 sh -c "[ \$(( \$(tc -j -s qdisc show dev lx0 | jq -r '.[] | select(.parent == \"100:1\") | .packets') - $p0 )) -eq 6 ]" ||
        fail "etf on queue 0 sent $(( $(etf_stat packets) - p0 )) frames by class and priority, not 6"
pass "by class and by priority, the frames went through queue 0's etf"

# The library's whole path (bus connection, the descriptor passed, the
# reply read, the error queue) under valgrind: no error, no leak.
# (valgrind's own files go where uid 65534 may write)
vg_dir=$TMPDIR/vg
mkdir -p "$vg_dir"
chmod 1777 "$vg_dir"
vg_log=$vg_dir/valgrind-txtime-sender.log
out=$(TMPDIR=$vg_dir setpriv --reuid=65534 --regid=100 --groups 65534 valgrind -q --error-exitcode=99 --leak-check=full \
        --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --log-file="$vg_log" \
        "$SENDER" --interface lx0 --class 0 --count 3 --cycle 20000000 --lead 400000000 --timestamps) ||
        { cat "$vg_log"; fail "txtime-sender under valgrind: $out"; }
assert_eq "$(total "$out" sent)" 3 "frames sent under valgrind"
cp "$vg_log" "$TBS_OUT/" 2>/dev/null || true
[ ! -s "$vg_log" ] || { cat "$vg_log"; fail "valgrind reported on txtime-sender"; }
pass "txtime-sender (libtbs over the bus) clean under valgrind"

# 4. Not in the group: refused by tbsd, and the sender says why.
set +e
out=$(setpriv --reuid=65534 --regid=100 --clear-groups "$SENDER" --interface lx0 --queue 0 --count 1 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "the sender's exit status outside the group"
assert_contains "$out" "(org.tsn.Tbs.Error.AccessDenied)" "the refusal"

# 5. taprio: the class's gate window. Class 1 (queue 1) is open from 300 us
# to 600 us of a 1 ms cycle; the sender's offset counts from the window.
make_veth lx1 lx1p 4
cat > "$conf/lx1.json" <<EOJ
{
  "interface": "lx1",
  "sockets": {"group": "nogroup"},
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ],
    "clockid": "CLOCK_TAI", "base_time_ns": 1000, "mode": "txtime-assist", "txtime_delay_ns": 200000,
    "entries": [
      {"command": "set-gates", "gate_mask": "0x1", "interval_ns": 300000},
      {"command": "set-gates", "gate_mask": "0x2", "interval_ns": 300000},
      {"command": "set-gates", "gate_mask": "0x4", "interval_ns": 400000}
    ]
  },
  "txqueues": [
    {"queue": 1, "qdisc": "etf", "delta_ns": 200000000, "offload": false, "skip_sock_check": true}
  ],
  "allow": ["assist-delay", "delta-cycle"]
}
EOJ
"$TBSCTL" reload || fail "reload with lx1 failed: $(tail -5 "$TBS_OUT/tbsd.log")"
wait_configured lx1
assert_eq "$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/lx1 org.tsn.Tbs.Link GetTxtimeWindow u 1)" \
        "tta(tt) 1000 1000000 1 300000 300000" "GetTxtimeWindow of class 1"
p0=$(tc -j -s qdisc show dev lx1 | jq -r '.[] | select(.parent == "100:2" and .kind == "etf") | .packets')
out=$(as_member --interface lx1 --class 1 --offset 50000 --count 5 --lead 400000000) || fail "taprio: $out"
echo "$out"
assert_contains "$out" "taprio: base 1000 cycle 1000000 ns, class 1 window 300000+300000 ns of 1" "the class's window"
assert_eq "$(total "$out" sent)" 5 "frames sent on taprio"
assert_eq "$(total "$out" invalid)" 0 "invalid launch times on taprio"
# taprio drops a launch time outside the class's window silently: that all 5
# reached the etf of queue 1 shows they were inside it.
wait_until 5 sh -c "[ \$(( \$(tc -j -s qdisc show dev lx1 | jq -r '.[] | select(.parent == \"100:2\" and .kind == \"etf\") | .packets') - $p0 )) -eq 5 ]" ||
        fail "the etf under taprio passed $(( $(tc -j -s qdisc show dev lx1 | jq -r '.[] | select(.parent == "100:2" and .kind == "etf") | .packets') - p0 )) frames, not 5"
pass "taprio passed all 5 frames to the etf of queue 1"
# By queue the sender does not look at the windows: 100 us into the cycle
# class 1's gate is closed, taprio drops every frame (the send fails with
# ENOBUFS, nothing on the error queue), and its root counts the drops.
d0=$(tc -j -s qdisc show dev lx1 | jq -r '.[] | select(.root) | .drops')
out=$(as_member --interface lx1 --queue 1 --cycle 1000000 --offset 100000 --count 3 --lead 400000000) ||
        fail "taprio by queue: $out"
echo "$out"
assert_contains "$out" "total: sent 0 invalid 0 missed 0 dropped 3" "frames outside the window"
assert_eq "$(( $(tc -j -s qdisc show dev lx1 | jq -r '.[] | select(.root) | .drops') - d0 ))" 3 "taprio's drops"
out=$(as_member --interface lx1 --class 1 --offset 300000 --count 1 2>&1) && fail "an offset past the window was taken: $out"
assert_contains "$out" "is outside class 1's first window" "an offset outside the window"

# The launch-time monitor under a software taprio root (etf children under
# its classes): queue 1 (class 1, the only queue of its class, priority 2)
# is monitored, and class 1 opens for 300 us of each 1 ms cycle. taprio
# drops a launch time outside the class's windows at enqueue (the send
# fails with ENOBUFS: the monitor counts it invalid, tc counts it in the
# root's drops), so the monitor aims each probe at a window. Checked with
# busctl, tc -s -j and the probe frames themselves, received on the peer
# (txtime-client recv) and held against the windows an independent
# reading (python) of tc's dump gives:
#  - the histogram fills: 20 stamped probes with none missed or invalid
#    meanwhile (a window tried again when a stalled guest made etf refuse
#    or drop one: the etf's counters show those); taprio's drop counter
#    did not move; every probe frame
#    that arrived has a launch time inside class 1's window, a probe
#    frame's transmission time (68 ns at veth's 10 Gb/s) from its edges;
#  - a gate list changed in place (class 1 moves from [400, 700) us to
#    [0, 300) us, disjoint) with the change pending 3 s: the probes keep
#    the running schedule's windows until the change and take the new ones
#    from its base time on (an old window after the switch, or a new one
#    before it, would be dropped by taprio and counted invalid): 20 more
#    stamped probes without a miss or an invalid one, taprio's drops
#    unchanged, the frames
#    received after the switch inside the new windows;
#  - a gate list that never opens the monitored queue's class is refused
#    with one line naming the file, the field and the reason (tbsd --check
#    and reload), and the running tree stays. A class that opens, but for
#    a window too short for a probe, is refused the same way where the link
#    speed is known (unit test test-schedule-verify; a software taprio
#    window is at least 100 us, which always holds a probe at veth's
#    10 Gb/s).
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client

make_veth tq0 tq0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
# write_schedule ENTRIES: priority 3 -> class 0, 2 -> class 1 (queue 1,
# etf, monitored), 1 -> class 2, the rest (PTP's priority 0 and other
# traffic) -> class 3, open in every entry. The cycle is the entries' sum
# (software gates and launch-time windows stay aligned). No ptp4l runs
# here: etf's delta of 50 ms (longer than the cycle) keeps the guest's
# timer lag from turning into misses.
write_schedule() {
        cat > "$conf/tq0.json" <<EOJ
{
  "interface": "tq0",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ],
    "mode": "software", "base_time_ns": 0, "change_margin_ns": 3000000000,
    "entries": [ $1 ]
  },
  "txqueues": [
    {"queue": 1, "qdisc": "etf", "delta_ns": 50000000, "offload": false,
     "monitor": {"interval_ms": 200, "frames": 4}}
  ],
  "allow": ["delta-cycle"]
}
EOJ
}
OLD='{"gate_mask": "0x9", "interval_ns": 400000}, {"gate_mask": "0xa", "interval_ns": 300000},
      {"gate_mask": "0xc", "interval_ns": 300000}'
NEW='{"gate_mask": "0xa", "interval_ns": 300000}, {"gate_mask": "0x9", "interval_ns": 400000},
      {"gate_mask": "0xc", "interval_ns": 300000}'
write_schedule "$OLD"

start_system_bus
start_tbsd "$conf"
wait_configured tq0
# Linux 6.1 stops a software taprio's schedule when a child is grafted;
# tbsd sends it again, and it runs from that schedule's base time.
wait_until 10 sh -c "[ \"\$(\"$TBSCTL\" --json status tq0 | jq -r .root.change_pending)\" = false ]" ||
        fail "the schedule does not run: $("$TBSCTL" --json status tq0 | jq -c .root)"
tree=$(handles tq0)
echo "tree: $tree"
assert_contains "$tree" "root=100:=taprio" "taprio root"
assert_contains "$tree" "100:2=" "a child on queue 1"
assert_eq "$(etf_delta tq0 100:2)" 50000000 "etf on queue 1"

lte() {
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/tq0 org.tsn.Tbs.Link LaunchTimeError |
                jq -c '.data[] | select(.[0] == 1)'
}
field() { jq -r ".[$2]" <<<"$1"; }
root_drops() { qdisc_at tq0 root | jq -r .drops; }
etf_drops() { qdisc_at tq0 100:2 | jq -r .drops; }

# outside WINDOWS_JSON RECV_JSON GUARD: the launch times of the received
# probes that are not inside a window, GUARD ns from its edges ([] when
# all are).
outside() {
        python3 - "$1" "$2" "$3" <<'EOP'
import json, sys
w, r, g = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
bad = []
for t in r["txtimes"]:
    off = (t - w["base_time_ns"]) % w["cycle_time_ns"]
    if not any(o + g <= off <= o + l - g for o, l in w["windows"]):
        bad.append([t, off])
print(json.dumps(bad))
EOP
}
# receive N: the next N probe frames on the peer (JSON).
receive() {
        "$CLIENT" recv tq0p 0x88b5 "$1" 5000 2> "$TMPDIR/recv.err"
}

d_root=$(root_drops)
d_etf=$(etf_drops)
win=$(taprio_windows tq0 1)
echo "class 1: $win"
assert_eq "$(jq -c .windows <<<"$win")" "[[400000,300000]]" "class 1's window (tc)"
assert_eq "$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tq0 org.tsn.Tbs.Link GetTxtimeWindow u 1 | cut -d' ' -f3-)" \
        "1000000 1 400000 300000" "GetTxtimeWindow of class 1"

# ---- the histogram fills, nothing dropped ----
got=$(receive 12)
echo "received: $got"
[ "$(jq .received <<<"$got")" -ge 12 ] || fail "fewer than 12 probe frames on the peer: $got"
assert_eq "$(outside "$win" "$got" 68)" "[]" "every probe received launched inside class 1's window"
count_at_least() { [ "$(field "$(lte)" 6)" -ge "$1" ]; }
# clean_window WHAT: 20 more stamped probes with no probe missed or
# invalid meanwhile. A guest stalled for longer than the etf's delta (a
# loaded host) makes etf refuse or drop a probe now and then, which the
# etf's own counters show; such a window is tried again, up to 5 times.
# Probes aimed outside the windows would be dropped by taprio every round.
clean_window() {
        local s0 s1 try
        for try in 1 2 3 4 5; do
                s0=$(lte)
                wait_until 60 count_at_least $(( $(field "$s0" 6) + 20 )) || fail "$1: fewer than 20 stamped probes: $(lte)"
                s1=$(lte)
                if [ "$(field "$s1" 3),$(field "$s1" 4)" = "$(field "$s0" 3),$(field "$s0" 4)" ]; then
                        pass "$1: 20 stamped probes, none missed or invalid ($s1)"
                        return 0
                fi
                echo "$1: a probe missed or invalid meanwhile (try $try): $s0 -> $s1; etf: $(qdisc_at tq0 100:2 | jq -c '[.drops, .overlimits]')"
        done
        fail "$1: no window of 20 stamped probes without a miss or an invalid one"
}
clean_window "taprio, class 1 at [400, 700) us"
settled() {
        snap=$(lte)
        [ "$(jq '.[6] + .[3] + .[4] + .[5] == .[2]' <<<"$snap")" = true ]
}
wait_until 10 settled || fail "count + missed + invalid + unstamped never equals sent: $(lte)"
echo "queue 1: $snap"
assert_eq "$(field "$snap" 1)" software "stamp source"
assert_eq "$(jq '.[14] | add' <<<"$snap")" "$(field "$snap" 6)" "the buckets add up to count"
[ "$(field "$snap" 12)" != 0 ] || fail "p99 is 0"
assert_eq "$(root_drops)" "$d_root" "taprio's drops while the probes run"
desc=$("$TBSCTL" --json status tq0 | jq -c '.txqueues[] | select(.queue == 1) | .monitor')
assert_eq "$(jq -c '.running' <<<"$desc")" "true" "Describe: monitor of queue 1"
grep -q "queue 1: launch monitor started: .*inside the class's gate windows" "$TBS_OUT/tbsd.log" ||
        fail "no start line for a gated monitor: $(grep 'launch monitor' "$TBS_OUT/tbsd.log")"

# ---- a gate list changed in place: old windows until the switch, new after ----
handles_before=$(handles tq0)
write_schedule "$NEW"
"$TBSCTL" reload >/dev/null || fail "reload with the new gate list"
st=$("$TBSCTL" --json status tq0 | jq -c .root)
assert_eq "$(jq -r .change_pending <<<"$st")" true "the change is pending"
admin_base=$(jq '.admin_schedule.base_time_ns' <<<"$st")
now_tai() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_TAI))'; }
echo "new schedule from $admin_base (now $(now_tai))"
sent0=$(field "$(lte)" 2)
# Probes while the change is pending (the margin is 3 s; rounds every 200 ms).
more_sent() { [ "$(field "$(lte)" 2)" -ge $((sent0 + 8)) ]; }
wait_until 10 more_sent || fail "no probes while the change is pending: $(lte)"
[ "$(now_tai)" -lt "$admin_base" ] || echo "note: the probes above may include some after the switch"
wait_until 20 sh -c "[ \"\$(\"$TBSCTL\" --json status tq0 | jq -r .root.change_pending)\" = false ]" ||
        fail "the new schedule never took over: $("$TBSCTL" --json status tq0 | jq -c .root)"
assert_eq "$(handles tq0)" "$handles_before" "the tree after the change in place"
win2=$(taprio_windows tq0 1)
echo "class 1 after the change: $win2"
assert_eq "$(jq -c '[.base_time_ns, .windows]' <<<"$win2")" "[$admin_base,[[0,300000]]]" "class 1's new window (tc)"
got=$(receive 12)
echo "received after the switch: $got"
[ "$(jq .received <<<"$got")" -ge 12 ] || fail "fewer than 12 probe frames after the switch: $got"
assert_eq "$(outside "$win2" "$got" 68)" "[]" "every probe received after the switch inside the new window"
clean_window "taprio, class 1 at [0, 300) us after the change"
wait_until 10 settled || fail "after the switch, the probes never add up: $(lte)"
echo "queue 1 after the change: $snap; etf drops $(etf_drops) (from $d_etf)"
assert_eq "$(root_drops)" "$d_root" "taprio's drops across the change"

# ---- a gate list that never opens the monitored class ----
cp "$conf/tq0.json" "$TMPDIR/good.json"
write_schedule '{"gate_mask": "0x9", "interval_ns": 500000}, {"gate_mask": "0xc", "interval_ns": 500000}'
set +e
out=$("$TBSD" --check --config-dir "$conf" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "tbsd --check: exit code"
assert_contains "$out" "$conf/tq0.json: txqueues[0].monitor: traffic class 1 of queue 1 never opens in the gate list (root.entries): taprio drops every launch time of the class, so no probe frame can pass" \
        "tbsd --check names file, field and reason"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
[ "$rc" != 0 ] || fail "reload of a file whose monitored class never opens succeeded: $out"
assert_contains "$out" "txqueues[0].monitor: traffic class 1 of queue 1 never opens" "tbsctl reload refuses it"
assert_eq "$(handles tq0)" "$handles_before" "the tree after the refused reload"
assert_eq "$(qdisc_at tq0 root | jq -c '[.options.schedule[].gatemask]')" '["0xa","0x9","0xc"]' \
        "the running gate list after the refused reload"
cp "$TMPDIR/good.json" "$conf/tq0.json"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "launch monitor under taprio"

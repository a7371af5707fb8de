# A taprio root given by streams (docs/streams.md), installed by the daemon
# with the link speed the veth reports (10000 Mbit/s, no link_speed_mbps in
# the file): `tc -j qdisc show` holds the gate list worked out by hand below
# from the documented rules (not from tbsd's code); tbsctl schedule prints
# the same cycle with the probed speed; GetTxtimeWindow() gives each class
# its windows; frames sent through txtime-assist at the computed offsets
# (tbsctl schedule --json's offset_ns) reach the peer, frames sent into
# another stream's window are dropped by taprio; a changed stream (reload)
# changes the installed gate list (in place: the kernel's admin schedule).
# Link.AddStream() places a stream at run time (busctl as the client): the
# gate list changes, the stream is kept in the state directory and is still
# there after a restart, with its origin; RemoveStream() takes it out;
# refusals for a duplicate, a file's stream and an unprivileged caller.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client

make_veth_to_peer ts0 ts0p
conf=$TMPDIR/conf
mkdir -p "$conf"
streams_file() { # BULK_PERIOD_NS
        write_streams_schedule "$conf/ts0.json" ts0 '
      {"name": "ctrl", "traffic_class": 0, "period_ns": 1000000, "offset_ns": 0, "max_frame_bytes": 128},
      {"name": "bulk", "traffic_class": 1, "period_ns": '"$1"', "max_frame_bytes": 1500, "frames_per_period": 4}'
}
streams_file 2000000
start_system_bus
start_tbsd "$conf" --state-dir "$TMPDIR/state" --admin-group users
wait_configured ts0

# By hand, at 10000 Mbit/s: ctrl's frame takes (128 + 24) * 0.8 = 122 ns,
# bulk's four (1500 + 24) * 4 * 0.8 = 4877 ns, a guard band (1518 + 24) *
# 0.8 = 1234 ns; txtime-assist makes each at least 100 us. Cycle lcm(1 ms,
# 2 ms) = 2 ms. ctrl at 0 and 1 ms; bulk (no offset) at the first free time,
# 100 us, right after ctrl (no guard band needed there); best effort (class
# 2, PTP's: priority 0) until the guard band before ctrl's next window.
# Masks as hex digits without "0x" (tc and tbsctl alike).
gates() { tc_j qdisc show dev ts0 | jq -c '[.[] | select(.root) | .options.schedule[] | [(.gatemask | ltrimstr("0x")), .interval]]'; }
assert_eq "$(gates)" \
        '[["1",100000],["2",100000],["4",700000],["0",100000],["1",100000],["4",800000],["0",100000]]' \
        "tc: the gate list computed from the streams"
assert_eq "$(tc_j qdisc show dev ts0 | jq -r '.[] | select(.root) | .options.cycle_time')" 2000000 "tc: cycle time"

# tbsctl schedule on the file: the probed speed, the same cycle.
sched=$("$TBSCTL" --json schedule "$conf/ts0.json") || fail "tbsctl schedule: $sched"
assert_eq "$(jq -c '[.link_speed_mbps, .cycle_ns, [.streams[] | [.name, .offset_ns]]]' <<<"$sched")" \
        '[10000,2000000,[["ctrl",0],["bulk",100000]]]' "tbsctl schedule: speed, cycle, offsets"
assert_eq "$(jq -c '[.entries[] | [(.gate_mask | ltrimstr("0x")), .interval_ns]]' <<<"$sched")" "$(gates)" \
        "tbsctl schedule: tc's entries"
"$TBSCTL" schedule "$conf/ts0.json"

# uid 65534 in group users, tbsd's admin group here: packet sockets are for
# admins (kernel-daemon-txtime-confine).
member() { setpriv --reuid=65534 --regid=65534 --groups 100 "$@"; }
assert_eq "$(member "$CLIENT" window ts0 0 | jq -c .windows)" "[[0,100000],[1000000,100000]]" "class 0 windows"
assert_eq "$(member "$CLIENT" window ts0 1 | jq -c .windows)" "[[100000,100000]]" "class 1 windows"

# N frames at OFFSET into N successive cycles through QUEUE's socket:
# "refused passed" (passed: received, or let in by taprio and missed by a
# late etf wake-up in the loaded guest, as the error queue reports).
at_offset() { # QUEUE OFFSET
        local n=4 out
        ip netns exec peer "$CLIENT" recv ts0p 0x88b5 $n 3000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
        local rp=$!
        wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start"
        out=$(member "$CLIENT" send ts0 "$1" packet --protocol 0x88b5 --count $n --cycle-offset "$2") ||
                fail "send at $2: $out"
        wait "$rp"
        echo "$(jq -r .enobufs <<<"$out") $(( $(jq -r .received "$TMPDIR/recv.json") + $(jq -r .missed <<<"$out") ))"
}
ctrl_at=$(jq -r '.streams[] | select(.name == "ctrl") | .offset_ns' <<<"$sched")
bulk_at=$(jq -r '.streams[] | select(.name == "bulk") | .offset_ns' <<<"$sched")
assert_eq "$(at_offset 0 $((ctrl_at + 10000)))" "0 4" "ctrl at its computed offset: all through"
assert_eq "$(at_offset 1 $((bulk_at + 10000)))" "0 4" "bulk at its computed offset: all through"
assert_eq "$(at_offset 0 $((bulk_at + 10000)))" "4 0" "ctrl in bulk's window: all dropped"

# bulk every 1 ms instead: the cycle is 1 ms, bulk at 100 us of it. The
# change goes in place, as the kernel's admin schedule.
streams_file 1000000
kill -HUP "$TBSD_PID"
want='[["1",100000],["2",100000],["4",700000],["0",100000]]'
# The pending admin schedule if there is one, else the running one.
newest_is() { # JQ_PATH
        [ "$(tc_j qdisc show dev ts0 | jq -c "[.[] | select(.root) | $1[] | [(.gatemask | ltrimstr(\"0x\")), .interval]]")" = "$want" ]
}
wait_until 10 newest_is '(.options.admin.schedule // .options.schedule)' ||
        fail "the changed stream's gate list was not installed: $(tc_j qdisc show dev ts0 | jq -c .)"
pass "a changed stream changed the installed gate list"
assert_eq "$(tc_j qdisc show dev ts0 | jq -r '[.[] | select(.root) | (.options.admin.cycle_time // .options.cycle_time)][0]')" \
        1000000 "tc: the new cycle time"
wait_configured ts0

# A stream over the bus: class 1 like bulk, so placed after bulk's window
# (200 us); class 1's lowest priority is 5.
link=/org/tsn/Tbs/link/ts0
add() { busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link AddStream 'a{sv}' 4 name s "$1" traffic_class u 1 \
        period_ns u 1000000 max_frame_bytes u 128; }
assert_eq "$(add extra 2>&1)" "tuu 200000 1 5" "AddStream: offset, class, priority"
want='[["1",100000],["2",200000],["4",600000],["0",100000]]'
wait_until 10 newest_is '(.options.admin.schedule // .options.schedule)' ||
        fail "AddStream did not change the gate list: $(gates)"
pass "AddStream changed the installed gate list"
assert_eq "$(jq -c '[.[].name]' "$TMPDIR/state/streams/ts0.json")" '["extra"]' "the state directory keeps it"
set +e
out=$(add extra 2>&1)
set -e
assert_contains "$out" 'a stream named "extra" exists already (from the bus)' "AddStream: a duplicate"
set +e
out=$(busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link RemoveStream s ctrl 2>&1)
set -e
assert_contains "$out" 'stream "ctrl" comes from the schedule file' "RemoveStream: a file's stream"
set +e
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link \
        RemoveStream s extra 2>&1)
set -e
assert_contains "$out" "RemoveStream is privileged" "RemoveStream: unprivileged caller refused"

# A restart keeps it: the same tree (unchanged), the stream from the bus.
kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
start_tbsd "$conf" --state-dir "$TMPDIR/state" --admin-group users
wait_configured ts0
wait_until 10 newest_is '(.options.admin.schedule // .options.schedule)' || fail "after the restart: $(gates)"
assert_eq "$("$TBSCTL" --json status ts0 | jq -c '[.declared.root.streams[] | [.name, .origin // "file"]]')" \
        '[["ctrl","file"],["bulk","file"],["extra","bus"]]' "status: the streams and their origin after a restart"
assert_eq "$("$TBSCTL" --json schedule "$conf/ts0.json" | jq -c '[.streams[].name]')" '["ctrl","bulk"]' \
        "tbsctl schedule FILE: the file's streams only"

assert_eq "$(busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link RemoveStream s extra 2>&1)" "" "RemoveStream"
want='[["1",100000],["2",100000],["4",700000],["0",100000]]'
wait_until 10 newest_is '(.options.admin.schedule // .options.schedule)' ||
        fail "RemoveStream did not change the gate list: $(gates)"
pass "RemoveStream changed the installed gate list"
[ ! -e "$TMPDIR/state/streams/ts0.json" ] || fail "the state file stays after the last bus stream is removed"
wait_configured ts0

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

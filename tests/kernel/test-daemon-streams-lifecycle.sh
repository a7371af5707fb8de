# The lifecycle of streams added with Link.AddStream() (docs/streams.md,
# "Lifecycle"), busctl as the client and tc as the oracle for what is
# installed:
# - after Remove() (tbsctl remove) AddStream is refused with NotConfigured
#   and installs nothing; RemoveStream takes a stream out of the schedule
#   and the state directory without installing anything; Apply() installs
#   the schedule with the streams left;
# - a new version of the file that gives no streams drops them (state file
#   gone, a stream-removed event), and they do not come back with a later
#   version that gives streams again;
# - a deleted file drops them with its link, and a new file for the
#   interface starts without them;
# - a file deleted while tbsd was stopped: dropped at the next start.
make_veth ts0 ts0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"
streams_file() {
        write_streams_schedule "$conf/ts0.json" ts0 \
                '{"name": "ctrl", "traffic_class": 0, "period_ns": 1000000, "offset_ns": 0, "max_frame_bytes": 128}'
}
streams_file
start_system_bus
start_tbsd "$conf" --state-dir "$state"
start_monitor
wait_configured ts0

link=/org/tsn/Tbs/link/ts0
add() { busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link AddStream 'a{sv}' 4 name s "$1" traffic_class u 1 \
        period_ns u 1000000 max_frame_bytes u 128 2>&1; }
remove_stream() { busctl --system call org.tsn.Tbs $link org.tsn.Tbs.Link RemoveStream s "$1" 2>&1; }
# The streams kept in the state directory, the bus streams of the schedule
# (Describe), the root qdisc's kind (tc) and the number of taprio entries.
kept() { if [ -e "$state/streams/ts0.json" ]; then jq -c '[.[].name]' "$state/streams/ts0.json"; else echo none; fi; }
bus_streams() { "$TBSCTL" --json status ts0 | jq -c '[.declared.root.streams // [] | .[] | select(.origin == "bus") | .name]'; }
root_kind() { tc_j qdisc show dev ts0 | jq -r '.[] | select(.root) | .kind'; }
# The gate list of the newest schedule (the admin one while one is pending),
# masks as hex digits without "0x": by hand (docs/streams.md, as in
# kernel-daemon-streams), ctrl at 0, the bus streams of class 1 right after
# it, 100 us each (txtime-assist's minimum), best effort, then the guard band.
gates() { tc_j qdisc show dev ts0 | jq -c '[.[] | select(.root) | (.options.admin.schedule // .options.schedule)[] | [(.gatemask | ltrimstr("0x")), .interval]]'; }
one_bus='[["1",100000],["2",100000],["4",700000],["0",100000]]'
two_bus='[["1",100000],["2",200000],["4",600000],["0",100000]]'
# dropped_events_are N: tbsctl monitor has shown N events of dropped bus streams.
dropped_events_are() {
        wait_until 5 sh -c "[ \"\$(grep -c ' ts0 *stream-removed .*dropped' '$TBS_OUT/monitor.log')\" = $1 ]" ||
                fail "not $1 stream-removed events for dropped streams: $(cat "$TBS_OUT/monitor.log")"
        pass "$1 stream-removed event(s) for dropped streams"
}
# streams_file_again WHAT: the streams file, reloaded: no bus stream from before.
streams_file_again() {
        streams_file
        "$TBSCTL" reload
        wait_configured ts0
        assert_eq "$(bus_streams)" '[]' "$1: no bus stream from before"
}
added() { # NAME: AddStream answers with an offset, class 1 and its priority 5
        local out
        out=$(add "$1")
        [[ $out =~ ^tuu\ [0-9]+\ 1\ 5$ ]] || fail "AddStream $1: $out"
        pass "AddStream $1: $out"
}

added a1
added a2
assert_eq "$(kept)" '["a1","a2"]' "kept in the state directory"
assert_eq "$(gates)" "$two_bus" "tc: the gate list with a1 and a2"

# Remove(): it lasts until Apply() or a reload; AddStream is no way round it.
"$TBSCTL" remove ts0
[ "$(root_kind)" != taprio ] || fail "tbsctl remove left the taprio root"
# gdbus as the client here: it prints the error's name.
out=$(gdbus call --system --dest org.tsn.Tbs --object-path $link --method org.tsn.Tbs.Link.AddStream \
        "{'name': <'a3'>, 'traffic_class': <uint32 1>, 'period_ns': <uint32 1000000>, 'max_frame_bytes': <uint32 128>}" \
        2>&1) && fail "AddStream on a removed link succeeded: $out"
assert_contains "$out" "org.tsn.Tbs.Error.NotConfigured: ts0: the schedule was removed (Remove(), tbsctl remove) and stays so until Apply() or a reload" \
        "AddStream after Remove(): why"
[ "$(root_kind)" != taprio ] || fail "AddStream after Remove() installed the taprio root again"
assert_eq "$(link_state ts0)" pending "state after a refused AddStream"
assert_eq "$(kept)" '["a1","a2"]' "a refused AddStream keeps nothing"
pass "AddStream after Remove() refused; nothing installed"

# RemoveStream after Remove(): out of the schedule and the state, nothing installed.
assert_eq "$(remove_stream a2)" "" "RemoveStream a2 on a removed link"
[ "$(root_kind)" != taprio ] || fail "RemoveStream after Remove() installed the taprio root again"
assert_eq "$(link_state ts0)" pending "state after RemoveStream on a removed link"
assert_eq "$(kept)" '["a1"]' "RemoveStream on a removed link: the state directory"
assert_eq "$(bus_streams)" '["a1"]' "RemoveStream on a removed link: the schedule"

# Apply() installs the schedule with the streams left.
"$TBSCTL" apply ts0
wait_configured ts0
assert_eq "$(root_kind)" taprio "tbsctl apply: the taprio root"
assert_eq "$(gates)" "$one_bus" "tc: Apply() installed the gate list with a1 alone"

# A new version of the file without streams: the bus streams are dropped.
write_mqprio_schedule "$conf/ts0.json" ts0 200000 500000
"$TBSCTL" reload
wait_configured ts0
assert_eq "$(root_kind)" mqprio "the file's mqprio root"
assert_eq "$(kept)" none "a file without streams drops the bus streams"
dropped_events_are 1
streams_file_again "the streams file again"
assert_eq "$(kept)" none "the streams file again: nothing kept"

# A deleted file: its link and its bus streams go; a new file starts afresh.
added b1
rm "$conf/ts0.json"
"$TBSCTL" reload
wait_until 5 sh -c "! \"$TBSCTL\" status ts0 >/dev/null 2>&1" || fail "ts0 still there after its file went"
assert_eq "$(kept)" none "the file deleted: its bus streams go"
dropped_events_are 2
streams_file_again "a new file for ts0"

# A file deleted while tbsd was stopped: dropped at the next start.
added c1
kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
rm "$conf/ts0.json"
start_tbsd "$conf" --state-dir "$state"
assert_eq "$(kept)" none "a file deleted while tbsd was stopped: dropped at the start"
grep -q "ts0: stream-removed: the streams added over the bus are dropped with the schedule" "$TBS_OUT/tbsd.log" ||
        fail "tbsd's log does not say the streams were dropped: $(tail -5 "$TBS_OUT/tbsd.log")"
streams_file_again "the file back after the restart"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

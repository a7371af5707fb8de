# tbsd under valgrind for a whole daemon cycle: start on a private system
# bus with one veth schedule, apply it (tc shows the tree), answer status,
# Validate() (good and bad), Apply, Reload (also with invalid files) and
# unknown-link calls, then SIGTERM. valgrind must report nothing (no invalid access, no use of
# uninitialised memory, no definite or indirect leak) and tbsd must exit 0.
VG_LOG=$TBS_OUT/valgrind-tbsd.log

make_veth tbs0 tbs0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/tbs0.json" tbs0 200000 500000
start_system_bus

valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --track-origins=yes --log-file="$VG_LOG" \
        "$TBSD" --config-dir "$conf" >>"$TBS_OUT/tbsd.log" 2>&1 &
vg_pid=$!
show_logs() {
        echo "---- tbsd.log"; cat "$TBS_OUT/tbsd.log"
        echo "---- valgrind log"; cat "$VG_LOG"
}
wait_until 90 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version ||
        { show_logs; fail "tbsd under valgrind did not appear on the bus"; }
pass "tbsd under valgrind answers on the bus"

wait_until 60 sh -c "\"$TBSCTL\" --json status tbs0 | jq -e '.state == \"configured\"'" ||
        { show_logs; fail "tbs0 not configured: $("$TBSCTL" status tbs0 2>&1)"; }
assert_eq "$(qdisc_at tbs0 root | jq -r .kind)" mqprio "root qdisc installed by tbsd under valgrind"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 200000 "etf on queue 0"

out=$("$TBSCTL" status tbs0)
assert_contains "$out" "tbs0" "tbsctl status"
"$TBSCTL" --json status >/dev/null || fail "tbsctl --json status"
"$TBSCTL" clock tbs0 >/dev/null || true      # no ptp4l here: only the call path matters
"$TBSCTL" stats tbs0 >/dev/null || fail "tbsctl stats"
"$TBSCTL" apply tbs0 || fail "tbsctl apply"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s \
        "$(cat "$conf/tbs0.json")")
assert_contains "$out" "true" "Validate() of the schedule"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s \
        '{"interface": "a/b", "root": {"qdisc": "cbs"}, "txqueues": [{"queue": 99}]')
assert_contains "$out" "false" "Validate() of a bad schedule"
set +e
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s nope 2>&1)
set -e
assert_contains "$out" "nope" "GetLink of an unknown link is refused"
write_mqprio_schedule "$conf/tbs0.json" tbs0 250000 500000
"$TBSCTL" reload || fail "tbsctl reload"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 250000 "Reload() applied the new delta"

# Invalid files: tbs0's cut short (kept as it is), one whose interface
# cannot be read, one for a new interface (a failed link); then all fixed.
cp "$conf/tbs0.json" "$TMPDIR/tbs0.good"
head -c 100 "$TMPDIR/tbs0.good" > "$conf/tbs0.json"
: > "$conf/empty.json"
echo '{"interface": "tbs1", "root": 5}' > "$conf/tbs1.json"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "Reload() with invalid files fails"
assert_eq "$(grep -c "$conf/" <<<"$out")" 3 "a line per invalid file"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 250000 "tbs0 kept as it was"
assert_contains "$("$TBSCTL" --json status tbs0 | jq -r .state_reason)" "the previous version stays in force" \
        "tbs0's StateReason"
cp "$TMPDIR/tbs0.good" "$conf/tbs0.json"
rm "$conf/empty.json" "$conf/tbs1.json"
"$TBSCTL" reload || fail "tbsctl reload after the fix"
assert_eq "$(link_state tbs0)" configured "tbs0 configured after the fix"

kill -TERM "$vg_pid"
set +e
wait "$vg_pid"; rc=$?
set -e
if [ "$rc" != 0 ] || [ -s "$VG_LOG" ]; then
        show_logs
        fail "tbsd under valgrind exited with $rc (99: valgrind found errors)"
fi
pass "tbsd start/apply/stop cycle is valgrind clean"

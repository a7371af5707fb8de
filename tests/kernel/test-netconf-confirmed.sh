# issue 48 point 4: two-phase commits a controller can rely on. <validate>
# of the candidate asks tbsd (Manager.ValidateSchedules: parser, verifier,
# device check, nothing kept): a cycle shorter than its gate list comes
# back with tbsd's line and tc, the running datastore and tbsd's kept
# document are unchanged; a valid candidate validates, still nothing
# applied. A confirmed commit (<confirmed/>, confirm-timeout 5 s) left
# unconfirmed: netconfd rolls it back, and tc's tree and the running
# datastore are the previous ones within the timeout plus 2 s;
# <cancel-commit> likewise; a confirmed commit then confirmed keeps its
# tree past its timeout. tc -j is the oracle.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

cycle() { qdisc_at vt0 root | jq -r '.options.cycle_time // .options.admin.cycle_time'; }
cycle_is() { [ "$(cycle)" = "$1" ]; }
# said LINE FILE: FILE has a line LINE (a background client's output).
# shape: vt0's tree (tc) but the base time, which a change of a running
# taprio moves to a cycle boundary ahead.
shape() { qdisc_shape vt0 | jq -c 'walk(if type == "object" then del(.base_time) else . end)'; }
said() { [ "$(grep -c -x "$1" "$2")" -ge "${3:-1}" ]; }

nc_gates vt0 1 1000 > "$NC/1ms.xml"
nc_gates vt0 1 500 > "$NC/2ms.xml"
nc_gates vt0 1 2000 > "$NC/bad-cycle.xml"
assert_eq "$(client edit "$NC/1ms.xml")" ok "commit of vt0's 1 ms cycle"
assert_eq "$(cycle)" 1000000 "vt0's cycle time (tc)"
tree=$(shape)
full=$(qdisc_shape vt0)
running=$(client running)
kept=$(cat "$state/schedules.d/vt0.json")

# <validate> asks tbsd; nothing is kept or applied.
out=$(client validate "$NC/bad-cycle.xml")
echo "$out"
assert_contains "$out" "rpc-error: ValidateSchedules(vt0) by uid 64999: " "validate of a cycle shorter than its gates: tbsd's line"
assert_contains "$out" "root.cycle_time_ns: must be at least the sum of the entries' intervals (1000000), got 500000" \
        "the line names the field and why"
assert_eq "$(qdisc_shape vt0)" "$full" "vt0's tree after the refused validate (tc)"
assert_eq "$(client running)" "$running" "the running datastore after the refused validate"
assert_eq "$(cat "$state/schedules.d/vt0.json")" "$kept" "tbsd's kept document after the refused validate"
assert_eq "$(client validate "$NC/2ms.xml")" ok "validate of a valid candidate (2 ms cycle)"
assert_eq "$(qdisc_shape vt0)" "$full" "vt0's tree after the validate: nothing applied (tc)"
assert_eq "$(cat "$state/schedules.d/vt0.json")" "$kept" "tbsd's kept document after the validate"

# A confirmed commit left unconfirmed: the session stays, netconfd's
# timeout (5 s) rolls it back and tbsd is given the running datastore.
hold=$(awk -v f="${TBS_TEST_TIMEOUT_FACTOR:-1}" 'BEGIN { printf "%d", 7 * f + 30 }')
client confirmed "$NC/2ms.xml" 5 hold "$hold" > "$NC/timeout.out" 2>&1 &
holder=$!
wait_until 60 said ok "$NC/timeout.out" || fail "the confirmed commit was not answered: $(cat "$NC/timeout.out")"
committed=$(date +%s%N)
assert_eq "$(cycle)" 2000000 "the confirmed commit's 2 ms cycle is in force (tc)"
wait_until 7 cycle_is 1000000 || fail "the tree did not come back within 5 + 2 s (times the factor) of the commit"
taken=$(( ($(date +%s%N) - committed) / 1000000 ))
pass "tc's tree is the previous one again ${taken} ms after the confirmed commit's answer (timeout 5 s)"
assert_eq "$(shape)" "$tree" "vt0's tree after the timeout (tc, but the base time)"
assert_eq "$(client running)" "$running" "the running datastore after the timeout"
assert_eq "$(cat "$state/schedules.d/vt0.json")" "$kept" "tbsd's kept document after the timeout"
grep -q "netconfd rolled a confirmed commit back" /run/nchome/netconfd.log || fail "netconfd's log does not say the rollback"
pass "netconfd's log says the rollback"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true

# <cancel-commit>: the same at once.
client confirmed "$NC/2ms.xml" 600 cancel "$NC/go-cancel" > "$NC/cancel.out" 2>&1 &
holder=$!
wait_until 60 said ok "$NC/cancel.out" || fail "the confirmed commit was not answered: $(cat "$NC/cancel.out")"
assert_eq "$(cycle)" 2000000 "the confirmed commit's 2 ms cycle is in force (tc)"
touch "$NC/go-cancel"
wait_until 60 said ok "$NC/cancel.out" 2 || fail "cancel-commit was not answered ok: $(cat "$NC/cancel.out")"
wait "$holder" || fail "the client of cancel-commit failed: $(cat "$NC/cancel.out")"
wait_until 2 cycle_is 1000000 || fail "the tree did not come back within 2 s of cancel-commit's answer"
assert_eq "$(shape)" "$tree" "vt0's tree after cancel-commit (tc, but the base time)"
assert_eq "$(client running)" "$running" "the running datastore after cancel-commit"
assert_eq "$(cat "$state/schedules.d/vt0.json")" "$kept" "tbsd's kept document after cancel-commit"

# A confirmed commit confirmed in time keeps its tree past the timeout.
timeout=$(awk -v f="${TBS_TEST_TIMEOUT_FACTOR:-1}" 'BEGIN { printf "%d", 10 * f }')
client confirmed "$NC/2ms.xml" "$timeout" confirm "$NC/go-confirm" > "$NC/confirm.out" 2>&1 &
holder=$!
wait_until 60 said ok "$NC/confirm.out" || fail "the confirmed commit was not answered: $(cat "$NC/confirm.out")"
started=$(date +%s)
touch "$NC/go-confirm"
wait_until 60 said ok "$NC/confirm.out" 2 || fail "the confirming commit was not answered ok: $(cat "$NC/confirm.out")"
wait "$holder" || fail "the client of the confirming commit failed: $(cat "$NC/confirm.out")"
# Past the timeout (and a heartbeat's reconcile): nothing rolled back.
while [ $(( $(date +%s) - started )) -le $(( timeout + 3 )) ]; do sleep 1; done
assert_eq "$(cycle)" 2000000 "the confirmed and confirmed commit's cycle past its timeout (tc)"
assert_contains "$(client running)" "<denominator>500</denominator>" "the running datastore keeps the confirmed commit"
[ "$(cat "$state/schedules.d/vt0.json")" != "$kept" ] || fail "tbsd's kept document is still the previous one"
pass "tbsd keeps the confirmed commit's document"
kill "$(cat "$NC/sshd.pid")"

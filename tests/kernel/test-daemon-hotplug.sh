# Interfaces that come and go: a configured veth that appears after tbsd
# started, is deleted (absent) and re-created (configured again within 1 s),
# and one renamed to a configured name.
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/hp0.json" hp0 200000 500000
write_mqprio_schedule "$conf/hp1.json" hp1 300000 600000
start_system_bus
start_tbsd "$conf"
start_monitor

assert_eq "$(link_state hp0)" absent "hp0 before it exists"
make_veth hp0 hp0p 4
wait_until 1 sh -c "[ \"\$(tc -j qdisc show dev hp0 | jq -r '.[] | select(.root) | .kind')\" = mqprio ]" ||
        fail "hp0 not configured within 1 s of appearing"
pass "hp0 configured within 1 s of appearing"
assert_eq "$(etf_delta hp0 100:1)" 200000 "hp0 queue 0 delta"
wait_configured hp0
expect_event hp0 appeared
expect_event hp0 applied

ip link del hp0
wait_until 1 sh -c "[ \"\$(\"$TBSCTL\" --json status hp0 | jq -r .state)\" = absent ]" || fail "hp0 not absent after deletion"
pass "hp0 absent after deletion"
# An unplugged link shows "absent" and nothing stale of the device it was.
out=$("$TBSCTL" status hp0)
assert_contains "$out" "State: absent" "tbsctl status of the unplugged hp0"
for stale in Driver Carrier Root "Queue 0" "TX queues"; do
        case "$out" in *"$stale:"*) fail "tbsctl status of an absent link shows '$stale': $out" ;; esac
done
pass "tbsctl status of an absent link shows no driver, carrier or queue details"
expect_event hp0 vanished

make_veth hp0 hp0p 4
wait_until 1 sh -c "[ \"\$(tc -j qdisc show dev hp0 | jq -r '.[] | select(.root) | .kind')\" = mqprio ]" ||
        fail "hp0 not configured again within 1 s"
assert_eq "$(etf_delta hp0 100:2)" 500000 "hp0 queue 1 delta after re-creation"
pass "hp0 configured again within 1 s of re-creation"

# An interface renamed to a configured name is configured.
make_veth other0 other0p 4
ip link set other0 down
ip link set other0 name hp1
ip link set hp1 up
wait_until 1 sh -c "[ \"\$(tc -j qdisc show dev hp1 | jq -r '.[] | select(.root) | .kind')\" = mqprio ]" ||
        fail "hp1 (renamed) not configured within 1 s"
assert_eq "$(etf_delta hp1 100:1)" 300000 "hp1 queue 0 delta"
pass "renamed interface configured"

# A rename and a reload arriving together (SIGSTOP keeps the notification
# and the Reload() call waiting): the load takes a link's index from the
# capability cache, and the rename must have dropped hp1's entry there, so
# the changed schedule of hp1 does not go to the interface called hp9 now.
# (The load also reads notifications still waiting first, for a rename
# that lands between the loop's wakeup and the call; no test can time that.)
write_mqprio_schedule "$conf/hp1.json" hp1 310000 600000
kill -STOP "$TBSD_PID"
ip link set hp1 down
ip link set hp1 name hp9
ip link set hp9 up
"$TBSCTL" reload > "$TBS_OUT/reload-rename.log" 2>&1 &
reload_pid=$!
sleep 0.5
kill -CONT "$TBSD_PID"
wait "$reload_pid" || true
assert_eq "$(etf_delta hp9 100:1)" 300000 "queue 0 delta of hp9 (was hp1) after the reload"
wait_until 2 sh -c "[ \"\$(\"$TBSCTL\" --json status hp1 | jq -r .state)\" = absent ]" ||
        fail "hp1 not absent after its rename: $(link_state hp1)"
pass "a reload right after a rename leaves the renamed interface alone"

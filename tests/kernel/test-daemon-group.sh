# The admin group: members (by the groups the bus reports for the caller)
# may call the privileged methods; other users may not.
make_veth gp0 gp0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/gp0.json" gp0 200000 500000
start_system_bus
start_tbsd "$conf" --admin-group nogroup
wait_configured gp0

# uid 65534 with primary group users (100) and nogroup (65534) as a supplementary group.
setpriv --reuid=65534 --regid=100 --groups 65534 "$TBSCTL" apply gp0 || fail "a member of the admin group was refused"
pass "a member of the admin group may Apply"
setpriv --reuid=65534 --regid=100 --groups 65534 "$TBSCTL" reload || fail "a member of the admin group may not Reload"
pass "a member of the admin group may Reload"

set +e
out=$(setpriv --reuid=65534 --regid=100 --clear-groups "$TBSCTL" apply gp0 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "a user outside the admin group"
assert_contains "$out" "privileged" "refusal message"
grep -q "denied Apply to uid 65534 (not in the admin group)" "$TBS_OUT/tbsd.log" || fail "the refusal is not logged"
pass "the refusal is logged"

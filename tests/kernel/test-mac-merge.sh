# The MAC merge layer ("mac_merge", issue 39 point 3) on a device that has
# none: tbsd reads it over ethtool netlink (ETHTOOL_MSG_MM_GET) before it
# changes anything, and a veth has no MAC merge layer. What each kernel
# answers, asserted here:
# - Linux 6.12 (kernel612-mac-merge): the ethtool family has MM_GET, veth
#   has no get_mm: -EOPNOTSUPP.
# - Linux 6.1 (kernel-mac-merge): the ethtool family has no command 42
#   (MM_GET came with 6.3): generic netlink answers -EOPNOTSUPP too.
# Either way `tbsd --once` prints one line naming the interface and the
# tree stays as it was (`tc -j qdisc show` before and after), both over a
# tree tbsd installed and over the device's default; the same file without
# "mac_merge" applies as before, without a generic netlink socket. The
# capability probe (tests/tools/caps-probe) says "mac_merge": false for
# the veth, and so does the daemon's Describe() once it has asked.
# `tbsd --check` and `tbsctl validate --device` refuse the file against
# the veth before anything is applied (FILE: mac_merge: the device va has
# no MAC merge layer ...), and ask nothing for a file without the key.
make_veth va vb 4
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

write_schedule() { # EXTRA_TOP_LEVEL_MEMBERS
        printf '{"interface": "va", "root": {"qdisc": "mqprio", "handle": "100:", "num_tc": 3,
 "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
 "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}]},
 "txqueues": [{"queue": 0, "qdisc": "etf", "delta_ns": 300000}]%s}\n' "$1" > "$conf/va.json"
}

tree() { tc -j qdisc show dev va | jq -c 'sort_by(.parent)'; }
line='va: failed: mac_merge: the device has no MAC merge layer (ethtool netlink MM_GET: Operation not supported); nothing changed'
echo "kernel $(uname -r)"

# 0. the capability probe: no MAC merge layer on a veth
assert_eq "$("$TBS_BUILD_DIR/tests/tools/caps-probe" va | jq -c .mac_merge)" false "caps-probe va: mac_merge"

# 1. over the device's default root
before=$(tree)
write_schedule ', "mac_merge": {"tx_enabled": true, "verify_enabled": true, "verify_time_ms": 10}'
"$TBSD" --check --no-probe --config-dir "$conf" || fail "the file is valid"
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr") && fail "tbsd --once succeeded: $out"
echo "answer: $out"; echo "stderr: $(cat "$TMPDIR/stderr")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "more than one line: $out"
assert_eq "$out" "$line" "the refusal: one line naming the interface and the kernel's answer"
assert_eq "$(tree)" "$before" "the default tree untouched"

# 1b. tbsd --check and tbsctl validate --device judge it against the veth
# with the same line (the shared device check, daemon/probe/device-check.c),
# and change nothing; the file alone (validate without --device) is valid.
check_line="$conf/va.json: mac_merge: the device va has no MAC merge layer (ethtool netlink MM_GET: not supported by its driver, or a kernel before 6.3), so its frames cannot be preempted; leave \"mac_merge\" out on this device"
set +e
"$TBSD" --check --config-dir "$conf" >"$TMPDIR/out" 2>"$TMPDIR/err"; rc=$?
set -e
assert_eq "$rc" 1 "tbsd --check: exit code"
assert_eq "$(cat "$TMPDIR/err")" "$check_line" "tbsd --check: the line"
for dev in va .; do
        set +e
        "$TBSCTL" validate --device "$dev" "$conf/va.json" >"$TMPDIR/out" 2>"$TMPDIR/err"; rc=$?
        set -e
        assert_eq "$rc" 1 "validate --device $dev: exit code"
        assert_eq "$(cat "$TMPDIR/err")" "$check_line" "validate --device $dev: the line"
done
set +e
"$TBSCTL" --json validate --device va "$conf/va.json" >"$TMPDIR/out" 2>/dev/null
set -e
assert_eq "$(jq -c '.[0].capabilities.mac_merge' "$TMPDIR/out")" false "validate --json: capabilities.mac_merge, asked for the file"
"$TBSCTL" validate "$conf/va.json" >/dev/null || fail "validate without --device: the file alone is valid"
assert_eq "$(tree)" "$before" "the checks changed nothing"

# 2. the same schedule without mac_merge: applied as before the key existed
write_schedule ''
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr" || true)
assert_eq "$out" "va: applied" "without mac_merge"
installed=$(tree)
assert_eq "$(jq -r '.[] | select(.root == true) | .kind' <<<"$installed")" mqprio "mqprio installed"

# 3. mac_merge added over tbsd's running tree: refused, the tree kept
write_schedule ', "mac_merge": {"tx_min_frag_bytes": 124}'
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr") && fail "tbsd --once succeeded: $out"
echo "answer: $out"; echo "stderr: $(cat "$TMPDIR/stderr")"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "more than one line: $out"
assert_eq "$out" "$line" "over a running tree"
assert_eq "$(tree)" "$installed" "the running tree untouched"

# 4. a file without mac_merge costs no ethtool netlink message: tbsd opens
# no generic netlink socket (the requests are the same as before the key)
if command -v strace >/dev/null; then
        write_schedule ''
        strace -f -e trace=socket -o "$TMPDIR/strace" "$TBSD" --once --config-dir "$conf" >/dev/null 2>&1 || true
        if grep -q NETLINK_GENERIC "$TMPDIR/strace"; then
                fail "a generic netlink socket without mac_merge: $(grep NETLINK_GENERIC "$TMPDIR/strace")"
        fi
        pass "no generic netlink socket without mac_merge"
fi
# 4b. nor at tbsctl validate --device: the device is asked only for a file
# with "mac_merge"
if command -v strace >/dev/null; then
        strace -f -e trace=socket -o "$TMPDIR/strace" "$TBSCTL" validate --device va "$conf/va.json" >/dev/null 2>&1 ||
                fail "validate --device without mac_merge"
        if grep -q NETLINK_GENERIC "$TMPDIR/strace"; then
                fail "validate --device: a generic netlink socket without mac_merge"
        fi
        pass "validate --device: no generic netlink socket without mac_merge"
fi
# 5. the daemon: the same line as StateReason, the tree kept, no MAC merge
# state in Describe() nor samples in the metrics (the device has none); a
# reload with the file fixed applies it.
write_schedule ', "mac_merge": {"tx_enabled": true}'
start_system_bus
start_tbsd "$conf" --stats-interval 0.2 --metrics-file /run/tbs-mm.prom
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status va | jq -r .state)\" = failed ]" ||
        fail "va did not fail: $("$TBSCTL" status va 2>&1)"
assert_eq "va: $("$TBSCTL" --json status va | jq -r .state_reason)" "${line/failed: /}" "the daemon's StateReason"
assert_eq "$(tree)" "$installed" "the tree after the daemon refused"
doc=$("$TBSCTL" --json status va)
assert_eq "$(jq -c .mac_merge <<<"$doc")" null "Describe(): no mac_merge state"
assert_eq "$(jq -c .capabilities.mac_merge <<<"$doc")" false "Describe(): capabilities.mac_merge"
status=$("$TBSCTL" status va)
echo "$status"
grep -qE "MAC merge: +none" <<<"$status" || fail "tbsctl status: no 'MAC merge: none' line"
grep -q "MAC merge counters" <<<"$status" && fail "tbsctl status shows MAC merge counters for a veth"
pass "tbsctl status: MAC merge none, no counters"
wait_until 5 test -s /run/tbs-mm.prom || fail "no metrics file"
grep -q '^# TYPE tbs_mac_merge_tx_active gauge' /run/tbs-mm.prom || fail "no tbs_mac_merge_tx_active family"
grep -q '^tbs_mac_merge_' /run/tbs-mm.prom && fail "tbs_mac_merge samples for a veth: $(grep '^tbs_mac_merge_' /run/tbs-mm.prom)"
pass "metrics: the MAC merge families without samples"
write_schedule ''
"$TBSCTL" reload >/dev/null 2>&1 || true
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status va | jq -r .state)\" = configured ]" ||
        fail "va not configured after the reload: $("$TBSCTL" status va 2>&1)"
pass "the file without mac_merge applied by a reload"

pass "mac_merge refused on a device without a MAC merge layer"

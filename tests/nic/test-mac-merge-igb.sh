# The MAC merge layer refused on the 82576 (igb) under Linux 6.12 (issue 39
# point 3): the ethtool netlink family there has ETHTOOL_MSG_MM_GET, and
# igb has no get_mm, so the kernel answers -EOPNOTSUPP. A schedule with
# "mac_merge" (and a preemptible class, as a TSN gateway's would be) is
# refused by `tbsd --once` in one line naming the port, and the port's
# tree does not change (`tc -j qdisc show` before and after), over the
# driver's default root and over a tree tbsd installed. Run with
# `qemu-run --kernel 6.12` (nic-mac-merge-igb-612).
dev=$NIC0
conf=$TMPDIR/schedules.d
mkdir -p "$conf"
echo "kernel $(uname -r)"
assert_eq "$(ethtool_field "$dev" driver)" igb "ethtool -i $dev driver"
ethtool -L "$dev" combined 4
ip link set "$dev" up

write_schedule() { # EXTRA_TOP_LEVEL_MEMBERS
        printf '{"interface": "%s", "root": {"qdisc": "mqprio", "handle": "100:", "num_tc": 3,
 "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
 "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}]},
 "txqueues": [{"queue": 0, "qdisc": "etf", "delta_ns": 300000}]%s}\n' "$dev" "$1" > "$conf/$dev.json"
}

tree() { tc -j qdisc show dev "$dev" | jq -c 'sort_by(.parent)'; }
line="$dev: failed: mac_merge: the device has no MAC merge layer (ethtool netlink MM_GET: Operation not supported); nothing changed"

assert_eq "$("$TBS_BUILD_DIR/tests/tools/caps-probe" "$dev" | jq -c .mac_merge)" false "caps-probe $dev: mac_merge"
before=$(tree)
echo "before: $before"
write_schedule ', "mac_merge": {"tx_enabled": true, "verify_enabled": true, "verify_time_ms": 10, "tx_min_frag_bytes": 60}'
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr") && fail "tbsd --once succeeded: $out"
echo "answer: $out"
cat "$TMPDIR/stderr"
assert_eq "$out" "$line" "one line naming $dev"
assert_eq "$(tree)" "$before" "the driver's default tree untouched"

write_schedule ''
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr" || true)
assert_eq "$out" "$dev: applied" "the same schedule without mac_merge"
installed=$(tree)

write_schedule ', "mac_merge": {"tx_enabled": true}'
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/stderr") && fail "tbsd --once succeeded: $out"
echo "answer: $out"
assert_eq "$out" "$line" "over tbsd's tree"
assert_eq "$(tree)" "$installed" "the installed tree untouched"
pass "igb on $(uname -r): mac_merge refused in one line, tree unchanged"

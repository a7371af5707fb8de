# issue 47 point 1: scripts/demo --netconf's story, from a run of its own
# guest script (scripts/demo-netconf-guest.sh, which leaves what it showed in
# $TBS_OUT/demo-netconf/): each claim of tests/kernel/demo-claims.txt for it.
claim() { demo_claim "scripts/demo --netconf" "$1"; }

( . "$TBS_SOURCE_DIR/scripts/demo-netconf-guest.sh" ) > "$TBS_OUT/demo.log" 2>&1 ||
        { cat "$TBS_OUT/demo.log"; fail "scripts/demo-netconf-guest.sh failed"; }
demo=$TBS_OUT/demo-netconf
for f in tree-committed.json status.json refused.txt tree-after-refusal.json; do
        [ -s "$demo/$f" ] || fail "the demo left no $f: $(tail -20 "$TBS_OUT/demo.log")"
done

# The commit: the kernel has the gate schedule the controller sent (two
# entries, 0.3 and 0.7 ms, gates 0x1 and 0x6), and tbsd holds it as NETCONF's.
assert_eq "$(jq -c '[.[] | select(.kind == "taprio" and .root) |
        [.options.cycle_time, [.options.schedule[] | [.gatemask, .interval]]]]' "$demo/tree-committed.json")" \
        '[[1000000,[["0x1",300000],["0x6",700000]]]]' "gw0's taprio root after the commit (tc)"
assert_eq "$(jq -r '"\(.state) \(.origin)"' "$demo/status.json")" "configured netconf" "gw0 in tbsctl status"
grep -qx -- "-> ok" "$TBS_OUT/demo.log" || fail "the demo does not show the commit's ok"
claim committed

# The refused edit: the controller got an rpc-error with tbsd's reason, and
# the kernel's tree is the committed one.
assert_contains "$(cat "$demo/refused.txt")" "rpc-error: ApplySchedules(gw0)" "the refused edit's answer"
assert_contains "$(cat "$demo/refused.txt")" "root.cycle_time_ns: must be at least the sum of the entries' intervals" \
        "the refused edit's answer"
assert_eq "$(jq -c . "$demo/tree-after-refusal.json")" "$(jq -c . "$demo/tree-committed.json")" \
        "gw0's tree after the refused edit"
grep -qx "tc qdisc show dev gw0 root: unchanged" "$TBS_OUT/demo.log" || fail "the demo does not say the tree is unchanged"
claim refused-unchanged

demo_claims_all "scripts/demo --netconf"

# issue 46 (finding 5): netconfd 2.13 does not check a uint32's upper
# bound and stored 2^32 + N as N, so a commit installed another schedule
# than the one sent. The modules' 32-bit leaves are ranges of uint64 now
# (typedef uint32-checked): each such value is refused by netconfd's edit
# with a range error naming the leaf, nothing reaches tbsd (no tree, no
# kept document) and the running datastore stays empty. Cases: an entry's
# time-interval-value 2^32 + 200000, a cycle numerator 2^32 + 1000 (of
# 1000/1000000), base-time nanoseconds 2^32 + 5, a numerator of 2^32; each
# also in a merge onto a schedule in force, which stays. The largest uint32,
# 4294967295, is still a value (refused by tbsd's own check, with its line).
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
start_tbsd_netconf

nc_gates vt0 1 1000 > "$NC/good.xml"
refused() { # NAME FILE LEAF
        local out
        out=$(client edit "$2")
        echo "$1: $out"
        assert_contains "$out" "rpc-error:" "$1: refused"
        assert_contains "$out" "$3" "$1: the error names $3"
        case $out in *"not in range"* | *"out of range"* | *"range"*) pass "$1: a range error" ;;
        *) fail "$1: not a range error: $out" ;; esac
}
nothing_installed() {
        assert_eq "$(qdisc_at vt0 root | jq -r 'select(.kind == "taprio") | .kind')" "" "$1: no taprio on vt0 (tc)"
        [ ! -e "$state/schedules.d/vt0.json" ] || fail "$1: a document was kept"
        assert_eq "$(client running | grep -c '<name>vt0</name>' || true)" 0 "$1: the running datastore has no vt0"
}
sed 's|<time-interval-value>300000<|<time-interval-value>4295267296<|' "$NC/good.xml" > "$NC/interval.xml"
refused "time-interval-value 2^32+300000" "$NC/interval.xml" time-interval-value
nothing_installed "time-interval-value 2^32+300000"
nc_gates vt0 4294968296 1000000 > "$NC/cycle.xml"
refused "cycle numerator 2^32+1000" "$NC/cycle.xml" numerator
nothing_installed "cycle numerator 2^32+1000"
sed 's|<nanoseconds>0<|<nanoseconds>4294967301<|' "$NC/good.xml" > "$NC/base.xml"
refused "base-time nanoseconds 2^32+5" "$NC/base.xml" nanoseconds
nothing_installed "base-time nanoseconds 2^32+5"
nc_gates vt0 4294967296 1000000 > "$NC/num.xml"
refused "cycle numerator 2^32" "$NC/num.xml" numerator
nothing_installed "cycle numerator 2^32"

# A schedule in force; each wrapped value merged onto it is refused and it stays.
assert_eq "$(client edit "$NC/good.xml")" ok "vt0's gate schedule (1 ms cycle)"
tree=$(handles vt0)
entries=$(qdisc_at vt0 root | jq -c '[.options.schedule[]?.interval // empty]')
echo "vt0's intervals: $entries"
kept=$(cat "$state/schedules.d/vt0.json")
for f in interval cycle base num; do
        out=$(client edit "$NC/$f.xml")
        echo "$f onto vt0's schedule: $out"
        assert_contains "$out" "rpc-error:" "$f onto the schedule in force: refused"
done
assert_eq "$(handles vt0)" "$tree" "vt0's tree after the refusals (tc)"
assert_eq "$(qdisc_at vt0 root | jq -c '[.options.schedule[]?.interval // empty]')" "$entries" "vt0's intervals after the refusals (tc)"
[ "$(cat "$state/schedules.d/vt0.json")" = "$kept" ] || fail "vt0's kept document changed"
pass "vt0's kept document unchanged"

# 4294967295 is a uint32: netconfd takes it, tbsd refuses the interval with its line.
sed 's|<time-interval-value>300000<|<time-interval-value>4294967295<|' "$NC/good.xml" > "$NC/max.xml"
out=$(client edit "$NC/max.xml")
echo "time-interval-value 4294967295: $out"
assert_contains "$out" "ApplySchedules(vt0) by uid 64999: root.entries[0].interval_ns: must be between 1 and 2147483647, got 4294967295" \
        "time-interval-value 4294967295 reaches tbsd, which refuses it with its line"
assert_eq "$(handles vt0)" "$tree" "vt0's tree after it (tc)"
stop_netconf

# Hostile bus input: odd names, unknown objects, huge and malformed
# schedules, and a flood of 10 000 calls from an unprivileged client while
# root applies. Every call gets a result or a named error, tbsd keeps
# serving, and its memory stays bounded.
make_veth ho0 ho0p 4
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/ho0.json" ho0 200000 500000
start_system_bus
start_tbsd "$conf"
wait_configured ho0
call() { busctl --system call org.tsn.Tbs "$@" 2>&1 || true; }

for name in "a/b" ".." "0123456789abcdefXYZ" "" "ho0/../ho0" "$(head -c 100000 /dev/zero | tr '\0' x)"; do
        out=$(call /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s "$name")
        assert_contains "$out" "no link named" "GetLink of a hostile name (${#name} bytes)"
done
out=$(call /org/tsn/Tbs/link/nope org.tsn.Tbs.Link Describe)
assert_contains "$out" "no link named 'nope'" "Describe on an unknown link"
out=$(call /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link GetTxtimeParams u 4000000000)
assert_contains "$out" "TX queue 4000000000 does not exist: the device has 4 TX queues (0-3)" "GetTxtimeParams on a queue that does not exist"

# Every method answers with an org.tsn.Tbs.Error.* name. busctl prints only
# the message: dbus-send (another client library) prints the error's name.
err() {
        dbus-send --system --print-reply --dest=org.tsn.Tbs "$@" 2>&1 | sed -n 's/^Error \([^:]*\):.*/\1/p'
}
M="/org/tsn/Tbs org.tsn.Tbs.Manager"
L="/org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link"
N="/org/tsn/Tbs/link/nope org.tsn.Tbs.Link"
check_err() {
        local want=$1 path=$2 method=$3
        shift 3
        assert_eq "$(err "$path" "$method" "$@")" "$want" "error of $method $*"
}
check_err org.tsn.Tbs.Error.InvalidQueue /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.GetTxtimeParams uint32:4000000000
check_err org.tsn.Tbs.Error.InvalidQueue /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.GetTxtimeParams uint32:2
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.GetTxtimeParams string:0
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.GetTxtimeParams
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.Describe int32:1
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.Apply string:x
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.Remove uint32:1
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs org.tsn.Tbs.Manager.GetLink int32:5
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs org.tsn.Tbs.Manager.GetLink string:a string:b
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs org.tsn.Tbs.Manager.Validate
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs org.tsn.Tbs.Manager.ListLinks string:x
check_err org.tsn.Tbs.Error.InvalidArguments /org/tsn/Tbs org.tsn.Tbs.Manager.Reload boolean:true
check_err org.tsn.Tbs.Error.NoSuchLink /org/tsn/Tbs org.tsn.Tbs.Manager.GetLink string:nope
for method in Describe Apply Remove; do
        check_err org.tsn.Tbs.Error.NoSuchLink /org/tsn/Tbs/link/nope "org.tsn.Tbs.Link.$method"
done
check_err org.tsn.Tbs.Error.NoSuchLink /org/tsn/Tbs/link/nope org.tsn.Tbs.Link.GetTxtimeParams uint32:0
for method in org.tsn.Tbs.Manager.Reload; do
        assert_eq "$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send --system --print-reply \
                --dest=org.tsn.Tbs /org/tsn/Tbs "$method" 2>&1 | sed -n 's/^Error \([^:]*\):.*/\1/p')" \
                org.tsn.Tbs.Error.AccessDenied "error of $method called by nobody"
done
for method in Apply Remove; do
        assert_eq "$(setpriv --reuid=65534 --regid=65534 --clear-groups dbus-send --system --print-reply \
                --dest=org.tsn.Tbs /org/tsn/Tbs/link/ho0 "org.tsn.Tbs.Link.$method" 2>&1 |
                sed -n 's/^Error \([^:]*\):.*/\1/p')" org.tsn.Tbs.Error.AccessDenied "error of $method called by nobody"
done
# Not tbsd's own: an unknown method and the standard interfaces keep the standard names.
check_err org.freedesktop.DBus.Error.UnknownMethod /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link.Explode
check_err org.freedesktop.DBus.Error.UnknownObject /org/tsn/Tbs/link/nope org.freedesktop.DBus.Properties.Get \
        string:org.tsn.Tbs.Link string:State
wait_configured ho0

# Not UTF-8: refused before it reaches tbsd (sd-bus and the bus check it).
out=$(call /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s "$(printf 'ho\377\376')")
[ -n "$out" ] || fail "invalid UTF-8 got no answer at all"
pass "invalid UTF-8 refused: $(head -c 80 <<<"$out")"

# Schedules of megabytes: over the limit is a named error, under it junk is ok=false.
FLOOD=$TBS_BUILD_DIR/tests/tools/bus-flood
{ printf '{'; head -c 2200000 /dev/zero | tr '\0' ' '; printf '}'; } > "$TMPDIR/big"
out=$("$FLOOD" --validate "$TMPDIR/big")
assert_contains "$out" "org.tsn.Tbs.Error.InvalidSchedule: schedule is larger than" "Validate of a 2 MB schedule"
printf '{"interface": "ho0", "root": {"qdisc": "mqprio", "num_tc": 1, "x": "%s"}}' \
        "$(head -c 900000 /dev/zero | tr '\0' y)" > "$TMPDIR/junk"
out=$("$FLOOD" --validate "$TMPDIR/junk")
assert_contains "$out" "false" "Validate of a 900 kB bad schedule"
assert_contains "$out" "root.x: unknown key" "Validate names the bad key"

kill -0 "$TBSD_PID" || fail "tbsd died on hostile input"
rss0=$(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)
before=$(handles ho0)

# 10 000 calls from nobody while root applies.
flood_start=$(date +%s)
setpriv --reuid=65534 --regid=65534 --clear-groups "$FLOOD" \
        --calls 10000 --window 64 --link ho0 > "$TBS_OUT/flood.json" &
flood=$!
applies=0
while kill -0 "$flood" 2>/dev/null; do
        "$TBSCTL" apply ho0 || fail "a privileged apply failed during the flood"
        applies=$((applies + 1))
        sleep 0.2
done
wait "$flood" || fail "the flood did not get an answer for every call: $(cat "$TBS_OUT/flood.json")"
cat "$TBS_OUT/flood.json"
assert_eq "$(jq .replies "$TBS_OUT/flood.json")" 10000 "answers to 10 000 calls"
assert_eq "$(jq '.error_names["org.tsn.Tbs.Error.AccessDenied"]' "$TBS_OUT/flood.json")" 2500 "Apply refused to nobody every time"
assert_eq "$(jq '.error_names["org.tsn.Tbs.Error.NoSuchLink"]' "$TBS_OUT/flood.json")" 2500 "hostile GetLink names"
[ "$applies" -ge 1 ] || fail "no privileged apply ran during the flood"

# The 2500 refusals (and the 3 of the error-name checks) are logged one
# line each for the first 5 of every 10 s
# window, the rest summed up in one line when the window ends: bounded by
# the flood's duration, not by the number of calls, and nothing is lost.
flood_s=$(( $(date +%s) - flood_start + 1 ))
summed() {
        local denied sum
        denied=$(grep -c "denied [A-Za-z]* to uid 65534 (admin group 'tbs' does not exist)" "$TBS_OUT/tbsd.log" || true)
        sum=$(sed -n 's/.*suppressed \([0-9]*\) more refusals\{0,1\} from uid 65534 in the last 10 s.*/\1/p' \
                "$TBS_OUT/tbsd.log" | awk '{ s += $1 } END { print s + 0 }')
        [ $((denied + sum)) -eq 2503 ]
}
wait_until 30 summed || fail "refusals logged plus suppressed is not 2503: $(grep -E 'denied|suppressed' "$TBS_OUT/tbsd.log" | tail -5)"
lines=$(grep -cE "denied [A-Za-z]+ to uid 65534|suppressed [0-9]+ more refusal" "$TBS_OUT/tbsd.log")
windows=$(( flood_s / 10 + 2 ))
echo "refusal log lines: $lines for 2500 refused calls in $flood_s s"
[ "$lines" -le $((windows * 6)) ] || fail "$lines refusal log lines for a $flood_s s flood (at most $((windows * 6)))"
pass "2500 refusals logged in $lines lines, every one counted"
[ "$(grep -c "privileged methods are for root only" "$TBS_OUT/tbsd.log" || true)" = 0 ] ||
        fail "the missing admin group is still logged apart from the refusal"
pass "$applies privileged applies succeeded during the flood"
assert_eq "$(handles ho0)" "$before" "the tree is unchanged (applies of an unchanged schedule send nothing)"

rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)
echo "tbsd VmRSS: $rss0 kB before the flood, $rss1 kB after"
[ "$rss1" -le $((rss0 + 2048)) ] || fail "VmRSS grew from $rss0 kB to $rss1 kB"
pass "memory bounded (VmRSS $rss0 -> $rss1 kB)"
"$TBSCTL" status ho0 >/dev/null || fail "tbsd stopped serving"
pass "tbsd still serving"

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
assert_contains "$out" "Unknown object" "Describe on an unknown object"
out=$(call /org/tsn/Tbs/link/ho0 org.tsn.Tbs.Link GetTxtimeParams u 4000000000)
assert_contains "$out" "no etf qdisc is declared on TX queue 4000000000" "GetTxtimeParams on a queue that does not exist"

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
pass "$applies privileged applies succeeded during the flood"
assert_eq "$(handles ho0)" "$before" "the tree is unchanged (applies of an unchanged schedule send nothing)"

rss1=$(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)
echo "tbsd VmRSS: $rss0 kB before the flood, $rss1 kB after"
[ "$rss1" -le $((rss0 + 2048)) ] || fail "VmRSS grew from $rss0 kB to $rss1 kB"
pass "memory bounded (VmRSS $rss0 -> $rss1 kB)"
"$TBSCTL" status ho0 >/dev/null || fail "tbsd stopped serving"
pass "tbsd still serving"

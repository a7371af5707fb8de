# Text from outside on the bus and on the terminal (issue 21, bug 5 and the
# escaping items): a schedule file whose name is not UTF-8 and holds a
# newline, an interface whose kernel name holds an escape sequence, and a
# file naming an interface in overlong UTF-8. The daemon keeps answering
# ListLinks and Describe() for every caller (D-Bus refuses invalid UTF-8
# strings), tbsctl shows every such name escaped on one line, its JSON
# carries them as they are, and an error names the link once.
esc=$'e\e[1m'                                   # ESC [ 1 m: bold, if printed raw
make_veth ot0 ot0p 4
make_veth "$esc" ep 4
conf=$TMPDIR/conf
mkdir -p "$conf"
odd="$conf/ot"$'\xff\n'"0.json"
write_mqprio_schedule "$odd" ot0 200000 500000
# JSON takes the control character only as an escape
write_mqprio_schedule "$conf/esc.json" 'e\u001b[1m' 200000 500000
printf '{"interface": "k\xc0\xaf", "root": {"qdisc": "mqprio", "num_tc": 1, "priority_map": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0], "queues": [{"count": 1, "offset": 0}]}}\n' \
        > "$conf/k.json"
start_system_bus
start_tbsd "$conf"
wait_configured ot0
wait_until 2 sh -c "[ \"\$(\"$TBSCTL\" --json list | jq -r '.[] | select(.interface == \"$esc\") | .state')\" = configured ]" ||
        fail "the link with an escape in its name is not configured: $("$TBSCTL" list 2>&1)"
pass "both links configured"

# ListLinks and Describe() answer every caller (bug 5: tbsctl list exited 1)
out=$("$TBSCTL" list) || fail "tbsctl list failed"
assert_contains "$out" 'e\x1b[1m' "tbsctl list shows the escape sequence escaped"
[ "$(printf '%s' "$out" | tr -cd '\033' | wc -c)" = 0 ] || fail "tbsctl list printed a raw ESC"
pass "no raw ESC in tbsctl list"
[ "$("$TBSCTL" list | grep -c .)" = 4 ] || fail "tbsctl list is not header, 2 links, summary: $out"
assert_eq "$(printf '%s\n' "$out" | tail -1)" "2 links listed." "tbsctl list's summary line"
busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ListLinks >/dev/null ||
        fail "ListLinks fails on the bus"
pass "ListLinks answers"
assert_eq "$("$TBSCTL" --json list | jq -r --arg e "$esc" '[.[] | select(.interface == $e)] | length')" 1 \
        "tbsctl --json list carries the name as it is"
for l in ot0 "$esc"; do
        path=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s "$l" | awk '{ print $2 }' | tr -d '"')
        busctl --system call org.tsn.Tbs "$path" org.tsn.Tbs.Link Describe >/dev/null || fail "Describe of $path fails"
        busctl --system get-property org.tsn.Tbs "$path" org.tsn.Tbs.Link StateReason >/dev/null ||
                fail "StateReason of $path fails"
done
pass "Describe() and StateReason answer for both links"

# An unknown name whose 64th byte is inside a character: the error quoting
# it is cut at a character boundary (else sd-bus refuses to send it)
long="a$(printf '\xc3\xa9%.0s' {1..40})"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s "$long" 2>&1 || true)
assert_contains "$out" "no link named 'a$(printf '\xc3\xa9%.0s' {1..31})'" "GetLink of a long unknown name answers"

# The file name that is not UTF-8: escaped in Describe() (a bus string) and
# on one line of tbsctl status
assert_eq "$("$TBSCTL" --json status ot0 | jq -r .schedule_file)" "$conf/ot\\xff\\n0.json" "schedule_file escaped in Describe()"
out=$("$TBSCTL" status ot0) || fail "tbsctl status ot0 failed"
assert_contains "$out" "Schedule: $conf/ot\\xff\\n0.json" "tbsctl status shows the file name on one line"
out=$("$TBSCTL" status "$esc") || fail "tbsctl status of the escape link failed"
[ "$(printf '%s' "$out" | tr -cd '\033' | wc -c)" = 0 ] || fail "tbsctl status printed a raw ESC"
assert_contains "$out" 'e\x1b[1m (index' "tbsctl status shows the name escaped"

# The overlong name is refused at validation, with the usual one line
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
[ "$rc" != 0 ] || fail "reload with k.json succeeded"
assert_contains "$(cat "$TBS_OUT/tbsd.log")" "k.json: line 1, column 17: syntax error: invalid UTF-8 in a string" \
        "tbsd's log names k.json"
out=$("$TBSCTL" validate "$conf/k.json" 2>&1) && fail "validate accepted k.json"
assert_eq "$out" "$conf/k.json: line 1, column 17: syntax error: invalid UTF-8 in a string" "validate refuses k.json"
# A Reload() error quoting the file name that is not UTF-8 is a bus string
echo '{"interface": "ot0", "root": {"qdisc": "mqprio", "num_tc": 99}}' > "$odd"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "reload with a broken ot0 file fails"
assert_contains "$out" "$conf/ot\\xff\\n0.json: root.num_tc: must be between 1 and 16, got 99" \
        "the Reload() error names the file escaped"
[ "$(LC_ALL=C grep -c $'\xff' "$TBS_OUT/tbsd.log" || true)" = 0 ] || fail "tbsd's log holds a raw 0xff byte"
[ "$(LC_ALL=C grep -c $'\e' "$TBS_OUT/tbsd.log" || true)" = 0 ] || fail "tbsd's log holds a raw ESC"
pass "tbsd's log escapes the names"

# Events and an error about the link: escaped, the name once
start_monitor
ip link del "$esc"
wait_until 5 grep -q 'e\\x1b\[1m' "$TBS_OUT/monitor.log" || fail "no event for the escape link: $(cat "$TBS_OUT/monitor.log")"
[ "$(tr -cd '\033' < "$TBS_OUT/monitor.log" | wc -c)" = 0 ] || fail "tbsctl monitor printed a raw ESC"
pass "tbsctl monitor shows the name escaped"
set +e
out=$("$TBSCTL" apply "$esc" 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "apply on the vanished interface fails"
assert_contains "$out" 'tbsctl: e\x1b[1m: ' "the error names the link"
case "$out" in
*'e\x1b[1m: e\x1b[1m'*) fail "the link name is doubled: $out" ;;
esac
pass "the link name appears once: $out"
kill -0 "$TBSD_PID" || fail "tbsd died"
"$TBSCTL" list >/dev/null || fail "tbsd stopped serving"
pass "tbsd still serving"

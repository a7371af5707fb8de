# The metrics file on a full file system: tbsd reports the real errno (No
# space left on device, not "Input/output error"), says it once however
# many samples fail in a row, says once that writing works again, and keeps
# serving throughout.
make_veth mf0 mf0p 4
conf=$TMPDIR/conf
mkdir -p "$conf" /run/mfull
write_mqprio_schedule "$conf/mf0.json" mf0 200000 500000
# A 64 KiB tmpfs, filled up before tbsd starts.
mount -t tmpfs -o size=64k tmpfs /run/mfull
dd if=/dev/zero of=/run/mfull/fill bs=4k 2>/dev/null || true
[ "$(df --output=avail /run/mfull | tail -1 | tr -d ' ')" = 0 ] || fail "the tmpfs is not full: $(df /run/mfull)"
start_system_bus
start_tbsd "$conf" --stats-interval 0.1 --metrics-file /run/mfull/tbs.prom
wait_configured mf0

# count PATTERN: lines of tbsd's log with PATTERN.
count() {
        grep -c -- "$1" "$TBS_OUT/tbsd.log" || true
}
enospc="cannot write the metrics file /run/mfull/tbs.prom: No space left on device"
wait_until 10 grep -q -- "$enospc" "$TBS_OUT/tbsd.log" ||
        fail "no ENOSPC line for the metrics file: $(tail -5 "$TBS_OUT/tbsd.log")"
pass "the write failure names the real errno"

# At least 20 more samples fail (2 s at 0.1 s): still one line.
sleep 2
"$TBSCTL" status mf0 >/dev/null || fail "tbsd stopped serving"
assert_eq "$(count "$enospc")" 1 "lines for 20 failed writes in a row"
assert_eq "$(count "Input/output error")" 0 "lines saying Input/output error"
[ ! -e /run/mfull/tbs.prom ] || fail "a metrics file appeared on a full file system"
[ "$(find /run/mfull -name 'tbs.prom.*' | wc -l)" = 0 ] || fail "temporary files left behind: $(ls /run/mfull)"
pass "no file and no temporary file left on the full file system"

# Room again: the file appears, and the recovery is logged once.
rm /run/mfull/fill
wait_until 10 test -s /run/mfull/tbs.prom || fail "no metrics file once there is room"
grep -q '^tbs_link_state{interface="mf0",device="mf0",state="configured"} 1' /run/mfull/tbs.prom ||
        fail "the metrics file lacks mf0's state: $(head -20 /run/mfull/tbs.prom)"
wait_until 5 grep -q "metrics file /run/mfull/tbs.prom written again" "$TBS_OUT/tbsd.log" ||
        fail "the recovery was not logged"
sleep 1
assert_eq "$(count "written again")" 1 "recovery lines after 10 good writes"

# Full again: a second failure spell gets its own single line.
dd if=/dev/zero of=/run/mfull/fill bs=4k 2>/dev/null || true
wait_until 10 sh -c "[ \$(grep -c -- '$enospc' '$TBS_OUT/tbsd.log') -ge 2 ]" ||
        fail "the second spell of failures was not logged"
sleep 1
assert_eq "$(count "$enospc")" 2 "lines after two spells of failures"
kill -0 "$TBSD_PID" || fail "tbsd died"
pass "tbsd still running"

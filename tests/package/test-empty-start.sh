# Guest script (tests/kernel/uml-run): tbsd as the unit runs it, on a freshly
# installed system with an empty schedules folder, does not fail. It tells
# its service manager READY=1 and a STATUS=, sends watchdog pings, serves
# the bus, and when a schedule appears and it gets SIGHUP it sends
# RELOADING=1 then READY=1 and configures it; tbsctl's bash completion then
# offers tbsd's links. SIGTERM ends it with status 0. Log lines carry syslog
# priority prefixes (--log-prefix, as in the unit).
notify=$TMPDIR/notify.log
# (Background processes must not hold the guest's output pipe open.)
python3 "$TBS_SOURCE_DIR/tests/package/notify-listen.py" "$TMPDIR/notify.sock" "$notify" >/dev/null 2>&1 &
wait_until 5 grep -q listening "$notify" || fail "notification listener did not start"

conf=$TMPDIR/schedules.d
mkdir -p "$conf"
start_system_bus
export NOTIFY_SOCKET=$TMPDIR/notify.sock WATCHDOG_USEC=400000
start_tbsd "$conf" --log-prefix
unset NOTIFY_SOCKET WATCHDOG_USEC
kill -0 "$TBSD_PID" || fail "tbsd exited with an empty folder"

wait_until 5 grep -qx READY=1 "$notify" || { cat "$notify"; fail "no READY=1"; }
pass "READY=1 with an empty schedules folder"
status=$(grep '^STATUS=' "$notify" | tail -1)
assert_eq "$status" "STATUS=0 links configured, 0 degraded, 0 failed, 0 absent" "status line"
wait_until 5 sh -c "[ \$(grep -cx WATCHDOG=1 '$notify') -ge 2 ]" || true
n=$(grep -cx WATCHDOG=1 "$notify" || true)
[ "$n" -ge 2 ] || { cat "$notify"; fail "only $n watchdog pings in over a second with WatchdogSec 0.4 s"; }
pass "$n watchdog pings"
list=$("$TBSCTL" list) || fail "tbsctl list failed with an empty folder"
assert_eq "$(echo "$list" | grep -c .)" 2 "tbsctl list lines (the header and the summary)"
assert_eq "$(echo "$list" | tail -1)" "0 links listed." "tbsctl list's summary with no link"

# A schedule appears; systemctl reload sends SIGHUP.
make_veth pk0 pk0p 4
write_mqprio_schedule "$conf/pk0.json" pk0 200000 500000
cp "$notify" "$notify.before"
kill -HUP "$TBSD_PID"
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status pk0 | jq -r .state)\" = configured ]" ||
        { cat "$TBS_OUT/tbsd.log"; fail "pk0 not configured after SIGHUP"; }
new=$(tail -n +$(( $(wc -l < "$notify.before") + 1 )) "$notify" | grep -x 'RELOADING=1\|READY=1' | tr '\n' ' ')
assert_eq "$new" "RELOADING=1 READY=1 " "notifications after SIGHUP"
wait_until 2 sh -c "grep -q '^STATUS=1 links configured' '$notify'" || { cat "$notify"; fail "no STATUS= for one link"; }
pass "$(grep '^STATUS=' "$notify" | tail -1)"
[ "$(tc -j qdisc show dev pk0 | jq -r '.[] | select(.root) | .kind')" = mqprio ] || fail "no mqprio root on pk0"
pass "mqprio root on pk0"

# Completion: the links come from the running tbsd, not from /sys/class/net.
export PATH=$TBS_BUILD_DIR/cli:$PATH
. "$TBS_SOURCE_DIR/shell-completion/bash/tbsctl"
COMP_WORDS=(tbsctl status "")
COMP_CWORD=2
_tbsctl
assert_eq "${COMPREPLY[*]}" "pk0" "completion of 'tbsctl status '"

# Every log line has a syslog priority prefix.
bad=$(grep -v '^<[0-7]>' "$TBS_OUT/tbsd.log" || true)
[ -z "$bad" ] || fail "log lines without a priority prefix: $bad"
pass "$(wc -l < "$TBS_OUT/tbsd.log") log lines, each with a <N> prefix"

kill -TERM "$TBSD_PID"
rc=0
wait "$TBSD_PID" || rc=$?
assert_eq "$rc" 0 "tbsd's exit status after SIGTERM"
grep -qx STOPPING=1 "$notify" || fail "no STOPPING=1"
pass "STOPPING=1"

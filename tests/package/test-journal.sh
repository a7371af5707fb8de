# Guest script (tests/kernel/uml-run): tbsd's log reaches a real
# systemd-journald as structured entries. systemd-cat connects tbsd's stderr
# to journald's stream socket the way systemd does for a unit and
# $JOURNAL_STREAM names it; tbsd then sends each message over the native
# protocol: _TRANSPORT=journal, PRIORITY=, SYSLOG_IDENTIFIER=tbsd, ERRNO=,
# and TBS_LINK= on messages about an interface (the daemon logs them with
# log_link_*()); a socket handed out by OpenTxtimeSocket() carries the
# queue, kind, priority and caller as fields of their own. journalctl is
# the oracle.
mount -t cgroup2 cgroup2 /sys/fs/cgroup      # journald wants its cgroup
mkdir -p /run/systemd/journal /run/log/journal
/lib/systemd/systemd-journald >"$TBS_OUT/journald.log" 2>&1 &
wait_until 10 systemd-cat true || { cat "$TBS_OUT/journald.log"; fail "systemd-journald did not start"; }

# run_under_journal ARGS...: tbsd ARGS with stderr on a journald stream.
run_under_journal() {
        systemd-cat -t tbsd-stream bash -c \
                'export JOURNAL_STREAM=$(stat -L -c "%d:%i" /proc/self/fd/2); exec "$0" "$@"' "$TBSD" "$@"
}
entries() {
        journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=tbsd "$@" |
                jq -c '{m: .MESSAGE, p: .PRIORITY, t: ._TRANSPORT, l: .TBS_LINK, e: .ERRNO}'
}

set +e
run_under_journal --check --config-dir /nonexistent --log-prefix
rc=$?
set -e
assert_eq "$rc" 1 "tbsd --check of a missing folder"
wait_until 5 sh -c 'journalctl -D /run/log/journal -o json SYSLOG_IDENTIFIER=tbsd | grep -q nonexistent' ||
        fail "tbsd's error did not reach the journal"
assert_eq "$(entries | head -1)" \
        '{"m":"/nonexistent: cannot read the schedules folder: No such file or directory","p":"3","t":"journal","l":null,"e":"2"}' \
        "journal entry of the error"
stream=$(journalctl -D /run/log/journal -o json --no-pager _TRANSPORT=stdout SYSLOG_IDENTIFIER=tbsd-stream | grep -c schedules || true)
assert_eq "$stream" 0 "copies of it on the stream (as plain text)"

# The daemon with one schedule.
conf=$TMPDIR/schedules.d
mkdir -p "$conf"
make_veth jl0 jl0p 4
write_mqprio_schedule "$conf/jl0.json" jl0 200000 500000
start_system_bus
run_under_journal --config-dir "$conf" --log-prefix &
tbsd_pid=$!   # systemd-cat execs tbsd
wait_until 10 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version ||
        fail "tbsd did not appear on the bus"
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status jl0 | jq -r .state)\" = configured ]" || fail "jl0 not configured"
wait_until 5 sh -c "[ \$(journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=tbsd | wc -l) -ge 2 ]" || true
entries
n=$(entries | wc -l)
[ "$n" -ge 2 ] || fail "only $n journal entries from the daemon"
bad=$(entries | jq -c 'select(.t != "journal" or (.p | test("^[0-7]$") | not))')
[ -z "$bad" ] || fail "entries not sent natively with a priority: $bad"
pass "$n daemon entries, all native with PRIORITY"
linked=$(entries TBS_LINK=jl0 | wc -l)
[ "$linked" -ge 2 ] || fail "$linked entries with TBS_LINK=jl0, expected the apply and the state change"
repeated=$(entries TBS_LINK=jl0 | jq -r .m | grep -c '^jl0' || true)
assert_eq "$repeated" 0 "TBS_LINK=jl0 messages that repeat the interface name"
pass "$linked entries with TBS_LINK=jl0 (journalctl TBS_LINK=jl0)"

# A socket for an application (asked for by root).
out=$("$TBS_BUILD_DIR/tests/tools/txtime-client" open jl0 1 packet --protocol 0x88b5) || fail "OpenTxtimeSocket: $out"
wait_until 5 sh -c 'journalctl -D /run/log/journal -o json --no-pager TBS_SOCKET_KIND=packet | grep -q TBS_CALLER_UID' ||
        fail "no journal entry for the socket handed out"
sock=$(journalctl -D /run/log/journal -o json --no-pager SYSLOG_IDENTIFIER=tbsd TBS_SOCKET_KIND=packet | tail -1 |
        jq -c '{l: .TBS_LINK, q: .TBS_QUEUE, c: .TBS_TRAFFIC_CLASS, k: .TBS_SOCKET_KIND, p: .TBS_SOCKET_PRIORITY, u: .TBS_CALLER_UID, pid: (.TBS_CALLER_PID | test("^[1-9][0-9]*$"))}')
assert_eq "$sock" '{"l":"jl0","q":"1","c":"1","k":"packet","p":"2","u":"0","pid":true}' "journal fields of the socket handed out"
kill -TERM "$tbsd_pid" 2>/dev/null || true

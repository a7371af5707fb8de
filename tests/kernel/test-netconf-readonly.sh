# issue 46 (finding 3): netconfd with the package's configuration, as
# tbsd-netconf.service runs it (its startup file seeded with the package's
# NACM rules, netconf/startup-cfg.xml; no --superuser). root, in the
# package's group cnc, commits a schedule, keeps a session open and leaves
# an edit pending in the candidate. ncop, a user in no NACM group, reads
# (get-config, get, get-schema) and is refused (access-denied) every
# operation that would disturb the server or others: kill-session of
# root's session, restart, shutdown, lock of running and candidate,
# discard-changes of root's pending edit, load, set-log-level,
# edit-config, copy-config, delete-config. Afterwards root's session is
# alive, its pending edit is there, tc and the kept document are as they
# were, netconfd is the same process, and root (group cnc) may lock.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
NC_STARTUP=package
NC_SUPERUSER=
start_tbsd_netconf
pid=$NETCONFD_PID

nc_config "$(nc_mq_iface vt0 200000)" > "$NC/vt0.xml"
nc_config "$(nc_mq_iface vt0 300000)" > "$NC/vt0-b.xml"
assert_eq "$(client edit "$NC/vt0.xml")" ok "root (group cnc of the package's rules): edit-config + commit"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf (tc)"
kept=$(cat "$state/schedules.d/vt0.json")
tree=$(handles vt0)

# root's open session and pending edit.
client hold 600 > "$NC/hold.out" &
hold_pid=$!
wait_until 30 grep -q '^[0-9]' "$NC/hold.out" || fail "root's session did not open"
sid=$(head -n 1 "$NC/hold.out")
assert_eq "$(client editconfig "$NC/vt0-b.xml")" ok "root leaves an edit pending in the candidate"
assert_contains "$(client candidate)" "<delta-ns>300000</delta-ns>" "root's pending edit"

# ncop reads.
assert_contains "$(NC_USER=ncop client running)" "<name>vt0</name>" "ncop: get-config"
assert_contains "$(NC_USER=ncop client state vt0)" "link-state configured" "ncop: get of tbsd:state"
assert_eq "$(NC_USER=ncop client rpc '<get-schema xmlns="urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring"><identifier>tbsd</identifier></get-schema>')" \
        ok "ncop: get-schema"

# ncop may not disturb anything.
SYS='xmlns="http://yuma123.org/ns/yuma123-system"'
denied() {
        local out
        out=$(NC_USER=ncop client rpc "$2")
        echo "ncop $1: $out"
        assert_contains "$out" "rpc-error: access-denied" "ncop's $1: access-denied"
}
denied kill-session "<kill-session><session-id>$sid</session-id></kill-session>"
denied restart "<restart $SYS/>"
denied shutdown "<shutdown $SYS/>"
denied "lock of running" '<lock><target><running/></target></lock>'
denied "lock of candidate" '<lock><target><candidate/></target></lock>'
denied "discard-changes" '<discard-changes/>'
denied load "<load $SYS><module>toaster</module></load>"
denied set-log-level "<set-log-level $SYS><log-level>debug4</log-level></set-log-level>"
denied copy-config '<copy-config><target><startup/></target><source><running/></source></copy-config>'
denied delete-config '<delete-config><target><startup/></target></delete-config>'
out=$(NC_USER=ncop client editconfig "$NC/vt0-b.xml")
echo "ncop edit-config: $out"
assert_contains "$out" "rpc-error: access-denied" "ncop's edit-config: access-denied"

# Nothing was disturbed.
kill -0 "$hold_pid" 2>/dev/null || fail "root's session (id $sid) was ended"
pass "root's session $sid is still open"
assert_contains "$(client candidate)" "<delta-ns>300000</delta-ns>" "root's pending edit is still in the candidate"
assert_eq "$(ps -o pid= -p "$pid" | tr -d ' ')" "$pid" "netconfd is the same process (no restart, no shutdown)"
assert_eq "$(handles vt0)" "$tree" "vt0's tree (tc)"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf delta (tc)"
[ "$(cat "$state/schedules.d/vt0.json")" = "$kept" ] || fail "vt0's kept document changed"
pass "vt0's kept document unchanged"
if grep -q "debug4\|toaster" /run/nchome/netconfd.log; then
        fail "netconfd's log shows the log level or the module ncop asked for"
fi
pass "no module loaded, no log level changed"

# The controller group may.
assert_eq "$(client rpc '<lock><target><running/></target></lock>')" ok "root (group cnc): lock of running"
assert_eq "$(client rpc '<discard-changes/>')" ok "root (group cnc): discard-changes"
# (the function's subshell and the python under it: a client left
# sleeping would keep the guest from ending)
kill "$hold_pid" 2>/dev/null || true
pkill -f 'nc-client.py .* hold ' 2>/dev/null || true
stop_netconf

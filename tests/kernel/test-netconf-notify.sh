# issue 40: notifications (RFC 5277). A link whose schedule checks a
# ptp4l is configured over NETCONF while ptp4l runs; ncclient and yangcli
# (interactive, on a pty) subscribe
# (create-subscription) and ptp4l is stopped: the client receives tbsd's
# link-event (kind clock) and link-state-change (degraded, with the
# reason), sent by the server module from tbsd's Event signal and the
# Link's State property; a <get> of tbsd:state (ncclient, yangcli sget)
# says degraded and why; ptp4l started again, link-state-change
# configured.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null || fail "cannot set the kernel TAI offset"
make_veth ck0 ck0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
mkdir -p "$conf"
start_system_bus
start_tbsd "$conf" --state-dir "$state" --schedule-group nogroup --clock-interval 0.2
state_is() { [ "$("$TBSCTL" --json status ck0 | jq -r .state)" = "$1" ]; }
start_ptp4l() {
        ptp4l -i ck0 -S -2 --uds_address=/run/ptp4l-ck0 -m >>"$TBS_OUT/ptp4l.log" 2>&1 &
        PTP4L_PID=$!
}
start_ptp4l

# ck0's schedule comes over NETCONF (so that it is in the running
# datastore, and its tbsd:state there): mqprio, etf on queue 2, the
# clock checks against that ptp4l.
start_netconf 65534
nc_config "$(nc_mq_iface ck0 200000 | sed 's|</schedule>|<clock><ptp4l-socket>/run/ptp4l-ck0</ptp4l-socket><max-master-offset-ns>1000000000</max-master-offset-ns></clock></schedule>|')" \
        > "$NC/ck0.xml"
assert_eq "$(client edit "$NC/ck0.xml")" ok "ncclient: ck0's schedule with clock checks"
wait_until 30 state_is configured || fail "not configured with ptp4l: $("$TBSCTL" --json clock ck0)"
pass "ck0 configured with ptp4l"

notes=$TMPDIR/notes
HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" notify 120 \
        > "$notes" 2>"$TBS_OUT/notify.err" &
CLIENT_PID=$!
wait_until 30 grep -q subscribed "$notes" || fail "ncclient did not subscribe: $(cat "$TBS_OUT/notify.err")"
pass "ncclient subscribed"
# yangcli too, interactive (its batch scripts have no sleep, and a loop
# of requests keeps netconfd from sending notifications): on a pty
# (script), its commands from a fifo the test writes when it wants.
mkfifo "$NC/ycin"
ynotes=$TMPDIR/ynotes
cp "$NC/userkey" "$NC/userkey.pub" /run/nchome/
chown 64999 /run/nchome/userkey /run/nchome/userkey.pub
(cd /run/nchome && setpriv --reuid=64999 --regid=65534 --groups 65534 env HOME=/run/nchome TERM=dumb \
        timeout 150 script -qfec "yangcli --server=127.0.0.1 --ncport=8830 --user=root \
        --private-key=/run/nchome/userkey --public-key=/run/nchome/userkey.pub" /dev/null \
        < "$NC/ycin" > "$ynotes" 2>&1) &
YANGCLI_PID=$!
exec 7>"$NC/ycin"
wait_until 60 grep -q "NETCONF session established" "$ynotes" || fail "yangcli did not connect: $(cat "$ynotes")"
echo create-subscription >&7
wait_until 30 grep -q "RPC OK Reply" "$ynotes" || fail "yangcli did not subscribe: $(tail -30 "$ynotes")"
pass "yangcli subscribed"

kill "$PTP4L_PID"
wait "$PTP4L_PID" 2>/dev/null || true
wait_until 10 state_is degraded || fail "ck0 not degraded without ptp4l"
wait_until 10 grep -q "^link-state-change interface=ck0 state=degraded" "$notes" ||
        fail "no link-state-change degraded: $(cat "$notes")"
cat "$notes"
assert_contains "$(grep "^link-state-change interface=ck0 state=degraded" "$notes")" "reason=clock no-ptp4l" \
        "the notification's reason names the clock"
wait_until 10 grep -q "^link-event interface=ck0 kind=clock message=.* -> no-ptp4l" "$notes" ||
        fail "no link-event of kind clock: $(cat "$notes")"
pass "link-event: $(grep '^link-event interface=ck0 kind=clock' "$notes" | tail -1)"
st=$(client state ck0)
echo "$st"
assert_contains "$st" "link-state degraded" "get: ck0's link-state while ptp4l is stopped"
assert_contains "$st" "clock-state no-ptp4l" "get: ck0's clock-state"
grep -q "^link-state-reason clock no-ptp4l" <<<"$st" || fail "get: ck0's link-state-reason: $st"
pass "get: ck0's link-state-reason names the clock"

# yangcli prints a notification as it comes, at its prompt.
wait_until 60 grep -q "link-state-change" "$ynotes" || fail "yangcli printed no link-state-change: $(tail -60 "$ynotes")"
grep -n -B2 -A12 "Incoming notification" "$ynotes" | head -80
grep -A8 "link-state-change" "$ynotes" | grep -q "degraded" || fail "yangcli: no degraded in the notification"
pass "yangcli: link-state-change degraded received"
echo "sget /interfaces/interface[name='ck0']/state" >&7
wait_until 30 grep -q "link-state degraded" "$ynotes" || fail "yangcli sget: ck0 not degraded: $(tail -40 "$ynotes")"
pass "yangcli sget: ck0's link-state degraded"
echo quit >&7
exec 7>&-
wait "$YANGCLI_PID" || echo "yangcli (script) exited with $?"
start_ptp4l
wait_until 30 state_is configured || fail "not configured again with ptp4l"
wait_until 10 grep -q "^link-state-change interface=ck0 state=configured" "$notes" ||
        fail "no link-state-change configured: $(cat "$notes")"
pass "link-state-change configured after ptp4l's restart"
kill "$CLIENT_PID" "$PTP4L_PID" 2>/dev/null || true
stop_netconf

# issue 46 (finding 4): one client that does not read its replies froze
# netconfd 2.13 for everyone: it writes to its sessions blocking, and
# yuma123's netconf-subsystem passes replies to sshd blocking. A raw SSH
# client (ssh -s netconf) sends a hello and 1000 pipelined <get-schema>
# and never reads (its stdout a fifo nobody reads).
# First through yuma123's netconf-subsystem (a second sshd, port 8831):
# while that client stays, another client (ncclient through port 8830)
# gets no answer in 20 s: the fault. netconfd is then killed and started again.
# Then through the package's tbsd-netconf-subsystem (port 8830): while the
# same client stays connected, the other client is answered, twice, and a
# commit reaches tbsd.
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
make_veth vt0 vt0p 4
conf=$TMPDIR/conf
state=$TMPDIR/state
NC_ARGS=--port=8831
start_tbsd_netconf
sed -e 's/^Port 8830/Port 8831/' -e "s|^PidFile .*|PidFile $NC/sshd2.pid|" \
    -e "s|^Subsystem netconf .*|Subsystem netconf \"/usr/sbin/netconf-subsystem --ncxserver-sockname=8831@$NC/ncxserver.sock\"|" \
    "$NC/sshd_config" > "$NC/sshd2_config"
/usr/sbin/sshd -f "$NC/sshd2_config" -E "$TBS_OUT/sshd2.log" || fail "the second sshd did not start"

{
        echo '<?xml version="1.0" encoding="UTF-8"?><hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>urn:ietf:params:netconf:base:1.0</capability></capabilities></hello>]]>]]>'
        for i in $(seq 1 1000); do
                echo "<rpc message-id=\"$i\" xmlns=\"urn:ietf:params:xml:ns:netconf:base:1.0\"><get-schema xmlns=\"urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring\"><identifier>tbsd</identifier></get-schema></rpc>]]>]]>"
        done
} > "$NC/flood.xml"
mkfifo "$NC/unread" "$NC/feed"
# flood PORT: the client that does not read (FLOOD_PID), its input kept
# open (FEED_PID), its output held by a reader that never reads (HOLDER_PID).
flood() {
        sleep 600 < "$NC/unread" > /dev/null 2>&1 &
        HOLDER_PID=$!
        (cat "$NC/flood.xml"; exec sleep 600) > "$NC/feed" 2>/dev/null &
        FEED_PID=$!
        HOME=/run/home ssh -F /dev/null -i "$NC/userkey" -p "$1" \
                -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes \
                root@127.0.0.1 -s netconf < "$NC/feed" > "$NC/unread" 2>"$TBS_OUT/flood-$1.err" &
        FLOOD_PID=$!
}
mkdir -p /run/home
answered() { timeout "$1" env HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" running | grep -q "<data"; }

# The fault, through yuma123's subsystem.
flood 8831
wait_until 30 grep -q "now active" /run/nchome/netconfd.log || fail "the flooding client got no session"
sleep 5 # let its replies fill every buffer between netconfd and the client
kill -0 "$FLOOD_PID" || fail "the flooding client ended: $(cat "$TBS_OUT/flood-8831.err")"
if answered 20; then
        fail "netconfd answered another client while one did not read (through netconf-subsystem): the fault did not reproduce"
fi
kill -0 "$FLOOD_PID" || fail "the flooding client ended"
pass "through yuma123's netconf-subsystem: another client got no answer in 20 s while one client did not read (the fault)"
kill "$FLOOD_PID" "$HOLDER_PID" "$FEED_PID" 2>/dev/null || true
# netconfd stuck in write() is not waited for: a new one.
kill -9 "$NETCONFD_PID"
wait "$NETCONFD_PID" 2>/dev/null || true
rm -f "$NC/ncxserver.sock"
run_netconfd
wait_netconfd

# Contained, through tbsd-netconf-subsystem.
flood 8830
sleep 5
kill -0 "$FLOOD_PID" || fail "the flooding client ended: $(cat "$TBS_OUT/flood-8830.err")"
answered 60 || fail "netconfd did not answer another client while one did not read (tbsd-netconf-subsystem)"
answered 60 || fail "netconfd did not answer a second time"
kill -0 "$FLOOD_PID" || fail "the flooding client ended meanwhile"
pass "through tbsd-netconf-subsystem: another client is answered while the one that does not read stays connected"
nc_config "$(nc_mq_iface vt0 200000)" > "$NC/vt0.xml"
assert_eq "$(timeout 120 env HOME=/run/home /usr/bin/python3 "$TBS_SOURCE_DIR/tests/kernel/nc-client.py" "$NC/userkey" edit "$NC/vt0.xml")" ok \
        "a commit meanwhile"
assert_eq "$(etf_delta vt0 100:3)" 200000 "vt0 queue 2's etf (tc)"
relay=$(pgrep -f "tbsd-netconf-subsystem --ncxserver-sockname=8830" | head -n 1 || true)
[ -n "$relay" ] && echo "the relay of the client that does not read: $(grep VmRSS "/proc/$relay/status")"
kill "$FLOOD_PID" "$HOLDER_PID" "$FEED_PID" 2>/dev/null || true
kill "$(cat "$NC/sshd2.pid")" 2>/dev/null || true
stop_netconf

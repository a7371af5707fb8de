# Link.OpenTxtimeSocket() of kind udp6 on the real igb driver (the UML
# test kernel has no IPv6; Debian's 6.1 kernel here has). An unprivileged
# application (uid 65534) in the schedule's sockets.group gets, through
# libtbs, a UDP socket for IPv6 bound to the port with SO_PRIORITY,
# SO_TXTIME (CLOCK_TAI, REPORT_ERRORS) and IPV6_RECVERR set, and sends
# datagrams with launch times through tbsd's software etf to the other port
# (in a network namespace, over QEMU's hub): the on-time ones arrive,
# those whose launch time had passed come back as invalid on its error
# queue (and as ENOBUFS), as many as etf counted as drops.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client
dev=$NIC0
ethtool -L "$dev" combined 4
peer_mac=$(cat "/sys/class/net/$NIC1/address")
ip netns add peer
ip link set "$NIC1" netns peer
ip -n peer link set lo up
ip -n peer link set "$NIC1" up
ip -n peer -6 addr add fd00:7b5::2/64 dev "$NIC1" nodad
ip link set "$dev" up
ip -6 addr add fd00:7b5::1/64 dev "$dev" nodad
wait_until 30 bash -c "ip -j link show dev '$dev' | jq -e '.[0].operstate == \"UP\"' >/dev/null" ||
        fail "$dev did not come up"

conf=$TMPDIR/schedules.d
mkdir -p "$conf"
# Priority 3 -> class 0 (queue 0, etf; delta 200 ms, lead 600 ms: an
# emulated guest on a loaded machine wakes late, and an on-time datagram
# must not miss its launch time there), everything else -> class 1 (queues
# 1-3, no etf: neighbour discovery and the rest pass there).
cat > "$conf/$dev.json" <<EOS
{
  "interface": "$dev",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 2,
    "priority_map": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [{"count": 1, "offset": 0}, {"count": 3, "offset": 1}]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "clockid": "CLOCK_TAI", "delta_ns": 200000000, "offload": false}
  ],
  "sockets": {"group": "users"}
}
EOS
start_system_bus
start_tbsd "$conf"
wait_until 60 bash -c "[ \"\$('$TBSCTL' --json status '$dev' | jq -r .state)\" = configured ] ||
        [ \"\$('$TBSCTL' --json status '$dev' | jq -r .state)\" = degraded ]" ||
        fail "$dev not configured: $("$TBSCTL" --json status "$dev" | jq -c '{state, state_reason}')"
member() { setpriv --reuid=65534 --regid=65534 --groups 100 "$@"; }

# The peer's address resolved beforehand (the guest has no ping, and a
# datagram should not wait on neighbour discovery).
ip -6 neigh replace fd00:7b5::2 lladdr "$peer_mac" dev "$dev" nud permanent

# The socket as the application reads it back.
out=$(member "$CLIENT" open "$dev" 0 udp6) || fail "member could not open a udp6 socket: $out"
echo "$out"
assert_eq "$(jq -r .domain <<<"$out")" AF_INET6 "socket family"
assert_eq "$(jq -r '[.priority, .so_priority] | join(",")' <<<"$out")" "3,3" "SO_PRIORITY (class 0)"
assert_eq "$(jq -r '[.clockid, .so_txtime_clockid] | join(",")' <<<"$out")" "11,11" "SO_TXTIME clock (CLOCK_TAI)"
assert_eq "$(jq -r '[.txtime_flags, .so_txtime_flags] | join(",")' <<<"$out")" "2,2" "SO_TXTIME flags (REPORT_ERRORS)"
assert_eq "$(jq -r .bound_device <<<"$out")" "$dev" "bound to the port"
assert_eq "$(jq -r .recverr <<<"$out")" 1 "IPV6_RECVERR"

# A receiver on the other port counts the datagrams (port 9).
ip netns exec peer python3 - >"$TMPDIR/recv.txt" 2>"$TMPDIR/recv.err" <<'EOP' &
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", 9))
s.settimeout(20)
print("listening", file=sys.stderr, flush=True)
n = 0
try:
    while True:
        s.recv(2048)
        n += 1
        s.settimeout(3)
except socket.timeout:
    pass
print(n)
EOP
recv_pid=$!
wait_until 10 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start: $(cat "$TMPDIR/recv.err")"

drops_before=$(tc -s -j qdisc show dev "$dev" | jq '.[] | select(.parent == "100:1") | .drops')
s=$(member "$CLIENT" send "$dev" 0 udp6 --count 20 --invalid 5 --dest fd00:7b5::2 --lead-ns 600000000) ||
        fail "send failed: $s"
echo "$s"
wait "$recv_pid" || fail "receiver failed: $(cat "$TMPDIR/recv.err")"
received=$(cat "$TMPDIR/recv.txt")
drops_after=$(tc -s -j qdisc show dev "$dev" | jq '.[] | select(.parent == "100:1") | .drops')
assert_eq "$(jq -r .sent <<<"$s")" 20 "datagrams sent"
assert_eq "$(jq -r .invalid <<<"$s")" 5 "past launch times reported invalid on the error queue"
assert_eq "$(jq -r .enobufs <<<"$s")" 5 "past launch times refused at send (IPV6_RECVERR)"
assert_eq "$(jq -r .missed <<<"$s")" 0 "none missed"
assert_eq "$received" 15 "on-time datagrams received by the other port"
assert_eq "$((drops_after - drops_before))" 5 "etf's drops (tc)"
echo "ok: udp6 through tbsd's etf on $dev"

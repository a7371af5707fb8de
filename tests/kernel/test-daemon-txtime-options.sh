# Link.OpenTxtimeSocket()'s kinds, options and errors, with getsockopt()
# (tests/tools/txtime-client) and busctl/gdbus as the oracles: a udp4
# socket bound to the device with IP_RECVERR, whose frames reach the peer
# in launch-time order and whose past launch times fail the send (ENOBUFS)
# and are reported on the error queue; a class of two queues with etf on
# both (the largest delta); each error a named org.tsn.Tbs.Error.* with a
# one-line message: unknown kind, protocol missing or ETH_P_ALL, unknown
# option, wrong option type, queue/class/priority out of range, queue
# without etf (and allow_no_etf), a class whose queues differ, a link that
# is not configured. GetTxtimeWindow() of an mqprio root has no windows.
# The user-mode-linux test kernel has no IPv6: udp6 can only be shown to
# fail with a clear error (NotSupported) here; nic-txtime-udp6 (QEMU, Debian's
# kernel) sends udp6 end to end.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client

make_veth_to_peer to0 to0p 10
# No ARP on the way: the first datagram would wait for the answer.
ip neigh replace 192.0.2.2 lladdr "$(ip netns exec peer cat /sys/class/net/to0p/address)" dev to0 nud permanent

conf=$TMPDIR/conf
mkdir -p "$conf"
# class 0: queue 0 (etf); 1: queue 1 (etf, deadline mode); 2: queues 2-3
# (etf on both, deltas differ); 3: queues 4-5 (etf on 4 only); 4: queues
# 6-7 (etf on both, deadline mode on 7 only); 5: queues 8-9 (no etf).
# Priority 0 -> class 5, 1 -> 2, 2 -> 1, 3 -> 0, 4 -> 3, 5 -> 4, the rest -> 5.
cat > "$conf/to0.json" <<EOJ
{
  "interface": "to0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 6,
    "priority_map": [5, 2, 1, 0, 3, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2},
                {"count": 2, "offset": 4}, {"count": 2, "offset": 6}, {"count": 2, "offset": 8} ]
  },
  "txqueues": [
    {"queue": 0, "delta_ns": 200000000, "offload": false},
    {"queue": 1, "delta_ns": 1000000, "offload": false, "deadline_mode": true},
    {"queue": 2, "delta_ns": 300000, "offload": false},
    {"queue": 3, "delta_ns": 400000, "offload": false},
    {"queue": 4, "delta_ns": 300000, "offload": false},
    {"queue": 6, "delta_ns": 300000, "offload": false},
    {"queue": 7, "delta_ns": 300000, "offload": false, "deadline_mode": true}
  ]
}
EOJ
write_mqprio_schedule "$conf/ghost0.json" ghost0 200000 500000
start_system_bus
start_tbsd "$conf"
wait_configured to0

# expect_error WHAT NAME MESSAGE CLIENT-ARGS...: txtime-client (as root)
# prints exactly "ERROR NAME: MESSAGE" and exits 1.
expect_error() {
        local what=$1 name=$2 msg=$3 out rc
        shift 3
        set +e
        out=$("$CLIENT" "$@"); rc=$?
        set -e
        assert_eq "$rc" 1 "$what: exit status"
        assert_eq "$out" "ERROR $name: $msg" "$what"
}
E=org.tsn.Tbs.Error

expect_error "unknown kind" $E.UnknownKind \
        "to0: unknown socket kind 'raw'; expected \"packet\", \"udp4\" or \"udp6\"" open to0 0 raw
expect_error "packet without protocol" $E.ProtocolMissing \
        "to0: a packet socket needs option 'protocol' (q): the EtherType the application sends and receives" \
        open to0 0 packet
expect_error "ETH_P_ALL" $E.ProtocolMissing \
        "to0: protocol 0x0003 would take in every frame of the interface (ETH_P_ALL): name the application's EtherType" \
        open to0 0 packet --protocol 3
expect_error "protocol 0" $E.ProtocolMissing "to0: protocol 0x0000 would name none: name the application's EtherType" \
        open to0 0 packet --protocol 0
expect_error "protocol below 0x0600" $E.InvalidOption "to0: protocol 0x0100 is not an EtherType (0x0600 or more)" \
        open to0 0 packet --protocol 0x100
expect_error "protocol on udp4" $E.InvalidOption "to0: option 'protocol' is for kind \"packet\" only" \
        open to0 0 udp4 --protocol 0x88b5
expect_error "unknown option" $E.InvalidOption \
        "to0: unknown option 'colour'; known options: protocol, traffic_class, priority, tx_timestamps, allow_no_etf" \
        open to0 0 udp4 --option colour:s:red
expect_error "option of the wrong type" $E.InvalidOption \
        "to0: option 'protocol' must be an EtherType of D-Bus type 'q', got 'u'" \
        open to0 0 packet --option protocol:u:34997
expect_error "option given twice" $E.InvalidOption "to0: option 'protocol' is given twice" \
        open to0 0 packet --protocol 0x88b5 --protocol 0x88b6
expect_error "queue and option" $E.InvalidOption \
        "to0: queue 0 and option 'traffic_class' both name the queue; pass queue 0xffffffff to use the option" \
        open to0 0 udp4 --class 1
expect_error "neither queue nor option" $E.InvalidOption \
        "to0: queue 0xffffffff takes the queue from option 'traffic_class' or 'priority', and neither is given" \
        open to0 options udp4
expect_error "class and priority" $E.InvalidOption \
        "to0: options 'traffic_class' and 'priority' exclude each other" open to0 options udp4 --class 1 --priority 1
expect_error "queue out of range" $E.InvalidQueue "to0: TX queue 10 is in none of the root's traffic classes" \
        open to0 10 udp4
expect_error "class out of range" $E.InvalidQueue "to0: traffic class 6 does not exist (the root has 6)" \
        open to0 options udp4 --class 6
expect_error "priority out of range" $E.InvalidQueue \
        "to0: priority 16 is out of range: the root maps priorities 0 to 15" open to0 options udp4 --priority 16
expect_error "queue without etf" $E.NoEtf \
        "to0: TX queues 8-9 (traffic class 5) have no etf qdisc; option 'allow_no_etf' takes a socket all the same" \
        open to0 9 udp4
expect_error "class with etf on some queues" $E.InvalidQueue \
        "to0: only some of TX queues 4-5 (traffic class 3) have an etf qdisc; the kernel picks one of the queues per flow, so launch times would be kept on some and ignored on others" \
        open to0 4 udp4
expect_error "class whose etfs differ" $E.InvalidQueue \
        "to0: the etf qdiscs of TX queues 6-7 (traffic class 4) differ in clock or deadline mode; the kernel picks one of the queues per flow, so no one socket setting fits them all" \
        open to0 options udp4 --priority 5
expect_error "link without its interface" $E.NotConfigured "ghost0: not configured: the interface does not exist" \
        open ghost0 0 udp4
expect_error "no such link" $E.NoSuchLink "no link named 'nosuch'" open nosuch 0 udp4
# The test kernel has no IPv6: udp6 fails clearly (on a kernel with IPv6 it
# is set up like udp4, with IPV6_RECVERR: tests/nic/test-txtime-udp6.sh).
expect_error "udp6 without IPv6" $E.NotSupported \
        "to0: the kernel has no udp6 sockets: socket(AF_INET6): Address family not supported by protocol" \
        open to0 0 udp6
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/to0 org.tsn.Tbs.Link OpenTxtimeSocket us 0 udp4 2>&1 || true)
assert_contains "$out" "OpenTxtimeSocket takes arguments of type 'usa{sv}', not 'us'" "busctl: wrong signature"
out=$(gdbus call --system --dest org.tsn.Tbs --object-path /org/tsn/Tbs/link/to0 \
        --method org.tsn.Tbs.Link.OpenTxtimeSocket 0 packet "{'protocol': <uint32 34997>}" 2>&1 || true)
assert_contains "$out" "$E.InvalidOption: to0: option 'protocol' must be an EtherType of D-Bus type 'q', got 'u'" \
        "gdbus: wrong option type"

# allow_no_etf: the socket all the same, CLOCK_TAI, delta 0.
out=$("$CLIENT" open to0 9 udp4 --allow-no-etf)
assert_eq "$(jq -r '[.so_priority, .so_txtime_clockid, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" \
        "0,11,2,0" "allow_no_etf: priority 0 (class 5), CLOCK_TAI, REPORT_ERRORS, delta 0"
# A class of two queues, both with etf: the largest delta.
out=$("$CLIENT" open to0 3 udp4)
assert_eq "$(jq -r '[.so_priority, .delta_ns] | join(",")' <<<"$out")" "1,400000" "class 2 (queues 2-3): priority 1, delta 400000"

# udp4: bound to the device, IP_RECVERR on.
out=$("$CLIENT" open to0 0 udp4)
echo "$out"
assert_eq "$(jq -r '[.domain, .type, .bound_device, .recverr, .so_priority, .so_txtime_clockid, .so_txtime_flags] | join(",")' <<<"$out")" \
        "AF_INET,SOCK_DGRAM,to0,1,3,11,2" "udp4 socket as the kernel holds it"

# udp4 traffic: 20 datagrams, 5 already past, shuffled. Nobody listens on
# port 9 at the peer: its ICMP port-unreachable answers (rate-limited) come
# back on the error queue too, as reports of kind "other", not counted here.
ON=15 BAD=5
ip netns exec peer "$CLIENT" recv to0p 0x0800 "$ON" 15000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
recv_pid=$!
wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start"
"$CLIENT" send to0 0 udp4 --count $((ON + BAD)) --invalid $BAD --dest 192.0.2.2 --seed 11 --lead-ns 600000000 > "$TMPDIR/send.json" ||
        fail "udp4 send failed"
wait "$recv_pid" || fail "receiver failed"
cat "$TMPDIR/send.json" "$TMPDIR/recv.json"
s=$(cat "$TMPDIR/send.json")
assert_eq "$(jq -r '[.sent, .enobufs, .invalid, .missed] | join(",")' <<<"$s")" "20,$BAD,$BAD,0" \
        "udp4: sends refused with ENOBUFS, invalid and missed reports"
assert_eq "$(jq -c .seqs "$TMPDIR/recv.json")" "$(jq -c .on_time_seqs <<<"$s")" \
        "udp4: the peer got every on-time datagram, in launch-time order"
tcj=$(tc -j -s qdisc show dev to0)
assert_eq "$(jq -r '.[] | select(.parent == "100:1") | "\(.drops)/\(.overlimits)/\(.packets)"' <<<"$tcj")" "$BAD/0/$ON" \
        "tc: queue 0 drops/overlimits/packets"

# GetTxtimeWindow() of an mqprio root: no gates, no windows.
assert_eq "$("$CLIENT" window to0 0)" '{"base_time_ns": 0, "cycle_time_ns": 0, "windows": []}' "mqprio window"
expect_error "window of a class out of range" $E.InvalidQueue "to0: traffic class 6 does not exist (the root has 6)" \
        window to0 6
expect_error "window of a link without its interface" $E.NotConfigured \
        "ghost0: not configured: the interface does not exist" window ghost0 0

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

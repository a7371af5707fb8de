# Link.OpenTxtimeSocket() and GetTxtimeParams() on a root without traffic
# classes (single-queue NICs): a single etf as the root, as the kernel's
# so_txtime selftest sets it up, and a cbs root with and without an etf
# under it, each on a one-queue veth. Every frame passes the root etf, so
# queue 0 and any priority 0-15 reach it; a traffic class is refused (there
# are none). A member of the schedule's sockets.group (uid 65534) gets a
# UDP socket through tests/tools/txtime-client (libtbs), sends 12 datagrams
# with SCM_TXTIME, 4 of them with launch times already past: the 8 on time
# reach a listener in the peer's namespace, the past ones come back as
# invalid, and the root etf's counters (tc -s) count exactly those. The
# same confinement as under mqprio/taprio: no packet socket for the member,
# none for a network-control EtherType for an admin, nothing for an
# outsider. GetTxtimeParams (busctl) gives the root etf's values and the
# offload the kernel holds (Describe()), and GetTxtimeWindow class 0 no
# gates. A cbs root without an etf is refused with the reason a cbs queue
# without one gets.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client
E=org.tsn.Tbs.Error

# lf0: the root etf, peer lf0p (192.0.2.2) in namespace peer; lc0: a cbs
# root alone; lk0: a cbs root with an etf under it.
make_veth_to_peer lf0 lf0p 1
make_veth lc0 lc0p 1
make_veth lk0 lk0p 1
# No ARP either way: an ARP frame has no launch time, and the root etf,
# which every frame of lf0 passes, would drop it.
ip neigh replace 192.0.2.2 lladdr "$(ip -n peer -j link show lf0p | jq -r '.[0].address')" dev lf0 nud permanent
ip -n peer neigh replace 192.0.2.1 lladdr "$(cat /sys/class/net/lf0/address)" dev lf0p nud permanent

conf=$TMPDIR/conf
mkdir -p "$conf"
# The etf's delta is 200 ms: the guest of a loaded machine wakes late, and
# an on-time datagram must not miss its launch time there.
cat > "$conf/lf0.json" <<EOJ
{
  "interface": "lf0",
  "root": {"qdisc": "etf", "handle": "100:", "clockid": "CLOCK_TAI", "delta_ns": 200000000, "offload": "auto"},
  "sockets": {"group": "users"},
  "allow": ["ptp-etf"]
}
EOJ
cat > "$conf/lc0.json" <<EOJ
{
  "interface": "lc0",
  "root": {"qdisc": "cbs", "handle": "100:", "idle_slope_kbps": 20000, "send_slope_kbps": -980000,
           "hi_credit_bytes": 30, "lo_credit_bytes": -1470},
  "sockets": {"group": "users"}
}
EOJ
cat > "$conf/lk0.json" <<EOJ
{
  "interface": "lk0",
  "root": {"qdisc": "cbs", "handle": "100:", "idle_slope_kbps": 20000, "send_slope_kbps": -980000,
           "hi_credit_bytes": 30, "lo_credit_bytes": -1470,
           "child": {"qdisc": "etf", "delta_ns": 1000000, "deadline_mode": true, "offload": false}},
  "sockets": {"group": "users"},
  "allow": ["ptp-etf"]
}
EOJ
start_system_bus
start_tbsd "$conf" --admin-group nogroup
wait_configured lf0
wait_configured lc0
wait_configured lk0
assert_eq "$(tc_j qdisc show dev lf0 | jq -r '.[] | select(.root) | [.kind, .handle] | join(" ")')" "etf 100:" \
        "lf0: the root is tbsd's etf"

# uid 65534 with the schedule's group (users, 100); with the admin group
# (nogroup, 65534) instead; with neither (gid 4242 has no name).
member() { setpriv --reuid=65534 --regid=100 --groups 100 "$@"; }
admin() { setpriv --reuid=65534 --regid=65534 --groups 65534 "$@"; }
outsider() { setpriv --reuid=65534 --regid=4242 --clear-groups "$@"; }
# params LINK QUEUE [RUNNER...]: GetTxtimeParams through busctl, or its error.
params() {
        local link=$1 queue=$2
        shift 2
        "$@" busctl --system call org.tsn.Tbs "/org/tsn/Tbs/link/$link" org.tsn.Tbs.Link GetTxtimeParams u "$queue" \
                2>&1 || true
}

# 1. GetTxtimeParams: the root etf's values, the offload as installed.
offload=$("$TBSCTL" --json status lf0 | jq -r .root.offload)
assert_eq "$offload" false "Describe: the root etf's offload (auto, none on veth)"
assert_eq "$(params lf0 0 setpriv --reuid=65534 --regid=100 --groups 100)" "uibub 0 11 false 200000000 $offload" "GetTxtimeParams lf0 queue 0"
assert_contains "$(params lf0 1)" "TX queue 1 does not exist" "GetTxtimeParams lf0 queue 1"
assert_eq "$(params lk0 0)" "uibub 0 11 true 1000000 false" "GetTxtimeParams lk0 (the etf under the root cbs)"
assert_contains "$(params lc0 0)" "lc0: no etf qdisc is declared on TX queue 0" \
        "GetTxtimeParams lc0 (a cbs root without etf)"

# 2. The member's UDP socket, by queue and by priority.
out=$(member "$CLIENT" open lf0 0 udp4) || fail "member could not open a udp4 socket on lf0: $out"
echo "$out"
assert_eq "$(jq -r '[.priority, .clockid, .txtime_flags, .delta_ns] | join(",")' <<<"$out")" "0,11,2,200000000" \
        "tbsd's answer for queue 0"
assert_eq "$(jq -r '[.domain, .bound_device, .so_priority, .so_txtime_clockid, .so_txtime_flags] | join(",")' <<<"$out")" \
        "AF_INET,lf0,0,11,2" "the member's udp4 socket as the kernel holds it"
assert_eq "$(tc_j qdisc show dev lf0 | jq -r '.[] | select(.root) | .options.delta')" 200000000 "delta_ns against tc"
grep -q "lf0: udp4 socket for TX queue 0 (the root etf, priority 0, txtime flags 0x2) handed to uid 65534 pid [0-9]" \
        "$TBS_OUT/tbsd.log" || fail "the socket handed out is not logged: $(tail -3 "$TBS_OUT/tbsd.log")"
pass "the socket handed out is logged"
out=$(member "$CLIENT" open lf0 options udp4 --priority 5) || fail "member, priority 5: $out"
assert_eq "$(jq -r '[.priority, .so_priority, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" "5,5,2,200000000" \
        "option priority 5 reaches the root etf"
out=$(member "$CLIENT" open lk0 0 udp4) || fail "member could not open a udp4 socket on lk0: $out"
assert_eq "$(jq -r '[.so_priority, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" "0,3,1000000" \
        "lk0: the etf under the root cbs, deadline mode"

# 3. Refusals, each one line.
assert_eq "$(member "$CLIENT" open lf0 options udp4 --class 0 || true)" \
        "ERROR $E.InvalidQueue: lf0: the root is a single etf qdisc and has no traffic classes; name queue 0 or a priority" \
        "option traffic_class on a root etf"
assert_eq "$(member "$CLIENT" open lf0 1 udp4 || true)" \
        "ERROR $E.InvalidQueue: lf0: TX queue 1 is not the root's: the root is a single etf qdisc, which every frame passes; name queue 0" \
        "queue 1 on a root etf"
assert_eq "$(member "$CLIENT" open lf0 options udp4 --priority 16 || true)" \
        "ERROR $E.InvalidQueue: lf0: priority 16 is out of range: the root takes priorities 0 to 15" "priority 16"
assert_eq "$(member "$CLIENT" open lc0 0 udp4 || true)" \
        "ERROR $E.NoEtf: lc0: TX queue 0 (the root cbs) has no etf qdisc; option 'allow_no_etf' takes a socket all the same" \
        "a cbs root without etf"
out=$(member "$CLIENT" open lc0 0 udp4 --allow-no-etf) || fail "lc0 with allow_no_etf: $out"
assert_eq "$(jq -r '[.so_priority, .so_txtime_clockid, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" "0,11,2,0" \
        "a cbs root without etf, allow_no_etf: as a cbs queue without etf"

# 4. The confinement rules hold on a root etf.
assert_eq "$(member "$CLIENT" open lf0 0 packet --protocol 0x88b5 || true)" \
        "ERROR $E.AccessDenied: lf0: packet sockets are for uid 0 and the tbsd admin group only (their holder can bind them to any interface and send any frame); ask for kind \"udp4\" or \"udp6\"" \
        "member: no packet socket"
assert_eq "$(admin "$CLIENT" open lf0 0 packet --protocol 0x88f7 || true)" \
        "ERROR $E.AccessDenied: lf0: EtherType 0x88f7 (PTP) is network control: tbsd opens packet sockets for it only where the schedule lists it in sockets.ethertypes" \
        "admin: no packet socket for PTP"
out=$(admin "$CLIENT" open lf0 0 packet --protocol 0x88b5) || fail "admin could not open a packet socket: $out"
assert_eq "$(jq -r '[.domain, .bound_ifindex, .bound_protocol, .so_priority] | join(",")' <<<"$out")" \
        "AF_PACKET,$(cat /sys/class/net/lf0/ifindex),$((0x88b5)),0" "admin's packet socket"
assert_contains "$(outsider "$CLIENT" open lf0 0 udp4 || true)" \
        "ERROR $E.AccessDenied: OpenTxtimeSocket on lf0 is for uid 0, the tbsd admin group and group 'users' only" \
        "outsider refused"

# 5. GetTxtimeWindow: no gates.
assert_eq "$(member "$CLIENT" window lf0 0)" '{"base_time_ns": 0, "cycle_time_ns": 0, "windows": []}' \
        "GetTxtimeWindow lf0 class 0"
assert_contains "$(member "$CLIENT" window lf0 1 || true)" \
        "lf0: traffic class 1 does not exist: the root is a single etf qdisc without traffic classes or gates" \
        "GetTxtimeWindow lf0 class 1"

# 6. Datagrams with launch times through the root etf.
ON=8 BAD=4
tc_lf0() { tc_j -s qdisc show dev lf0 | jq -r ".[] | select(.root) | .$1"; }
packets0=$(tc_lf0 packets) drops0=$(tc_lf0 drops)
# The peer counts the datagrams to port 9 (and refuses none: no ICMP back).
ip netns exec peer "$CLIENT" recv udp4 9 "$ON" 15000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
recv_pid=$!
wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start: $(cat "$TMPDIR/recv.err")"
member "$CLIENT" send lf0 0 udp4 --count $((ON + BAD)) --invalid $BAD --seed 5 --lead-ns 600000000 \
        --spacing-ns 5000000 > "$TMPDIR/send.json" || fail "member's send on lf0 failed"
wait "$recv_pid" || fail "receiver failed: $(cat "$TMPDIR/recv.err")"
s=$(cat "$TMPDIR/send.json")
echo "$s"
assert_eq "$(jq -r '[.sent, .invalid, .missed, .other, .enobufs] | join(",")' <<<"$s")" "$((ON + BAD)),$BAD,0,0,$BAD" \
        "sent, invalid, missed, other reports, sends refused with ENOBUFS"
assert_eq "$(jq -c '.invalid_seqs | sort' <<<"$s")" "$(jq -c "[range(0; $BAD)]" <<<null)" "the past datagrams are the invalid ones"
cat "$TMPDIR/recv.json"
assert_eq "$(jq -c .seqs "$TMPDIR/recv.json")" "$(jq -c .on_time_seqs <<<"$s")" \
        "the peer received every on-time datagram, in launch-time order"
assert_eq "$(jq -c '.txtimes == (.txtimes | sort)' "$TMPDIR/recv.json")" true "arrival in launch-time order"
assert_eq "$(( $(tc_lf0 packets) - packets0 ))/$(( $(tc_lf0 drops) - drops0 ))" "$ON/$BAD" \
        "tc: the root etf's packets sent/dropped"
assert_eq "$("$TBSCTL" --json status lf0 | jq -r .root.stats.drops)" "$(tc_lf0 drops)" "tbsd's root drops = tc's"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

# Link.OpenTxtimeSocket(): an unprivileged application (uid 65534) in tbsd's
# admin group gets a packet socket for an etf queue from tbsd over the bus
# (packet sockets are for admins; a member of the schedule's sockets.group
# gets UDP ones: kernel-daemon-txtime-confine), and with it sends 40 frames whose launch times are in a
# shuffled order, 10 of them already past (tests/tools/txtime-client, which
# sends with libtbs's tbs_send_at() and reads the error queue with
# tbs_tx_report_read()). The receiver in another network namespace gets
# every on-time frame, in launch-time order; the error queue reports exactly
# the past ones as invalid, and they equal tc's and tbsd's counters. On a
# queue whose etf has delta 0 every frame is missed, and those equal the
# counters too. The socket is what tbsd said (getsockopt() reads it back).
# The same user without the group is refused (AccessDenied, logged), and
# creating the socket itself fails: EPERM on SO_TXTIME with CLOCK_TAI, and
# on an AF_PACKET socket at all. Every socket handed out is logged.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client

make_veth_to_peer ts0 ts0p

conf=$TMPDIR/conf
mkdir -p "$conf"
# Priority 3 -> class 0 (queue 0, etf delta 200 ms: the guest of a loaded
# machine wakes late, and an on-time frame must not miss its launch time
# there), 2 -> class 1 (queue 1, etf delta 0: every frame misses), 1 ->
# class 2 (queue 2, etf in deadline mode), the rest -> class 3 (queue 3,
# no etf).
cat > "$conf/ts0.json" <<EOJ
{
  "interface": "ts0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 200000000, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 0, "offload": false},
    {"queue": 2, "qdisc": "etf", "delta_ns": 1000000, "offload": false, "deadline_mode": true}
  ],
  "sockets": {"group": "users"}
}
EOJ
start_system_bus
start_tbsd "$conf" --admin-group nogroup
wait_configured ts0

# uid 65534 with the schedule's group (users, 100); with the admin group
# (nogroup, 65534) instead; with neither (gid 4242 has no name).
member() { setpriv --reuid=65534 --regid=100 --groups 100 "$@"; }
admin() { setpriv --reuid=65534 --regid=65534 --groups 65534 "$@"; }
outsider() { setpriv --reuid=65534 --regid=4242 --clear-groups "$@"; }

# What the socket holds, read back by the application.
out=$(admin "$CLIENT" open ts0 0 packet --protocol 0x88b5) || fail "admin could not open a socket: $out"
echo "$out"
assert_eq "$(jq -r '[.priority, .so_priority] | join(",")' <<<"$out")" "3,3" "SO_PRIORITY (lowest priority of class 0)"
assert_eq "$(jq -r '[.clockid, .so_txtime_clockid] | join(",")' <<<"$out")" "11,11" "SO_TXTIME clock (CLOCK_TAI)"
assert_eq "$(jq -r '[.txtime_flags, .so_txtime_flags] | join(",")' <<<"$out")" "2,2" "SO_TXTIME flags (REPORT_ERRORS)"
assert_eq "$(jq -r .delta_ns <<<"$out")" "$(tc -j qdisc show dev ts0 | jq -r '.[] | select(.parent == "100:1") | .options.delta')" \
        "delta_ns against tc"
assert_eq "$(jq -r '[.domain, .type] | join(",")' <<<"$out")" "AF_PACKET,SOCK_RAW" "socket kind"
assert_eq "$(jq -r '[.bound_ifindex, .bound_protocol] | join(",")' <<<"$out")" \
        "$(cat /sys/class/net/ts0/ifindex),$((0x88b5))" "bound to ts0 and EtherType 0x88b5"
assert_eq "$(jq -r .so_timestamping <<<"$out")" 0 "no SO_TIMESTAMPING unless asked"
grep -q "ts0: packet socket (EtherType 0x88b5) for TX queue 0 (traffic class 0, priority 3, txtime flags 0x2) handed to uid 65534 pid [0-9]" \
        "$TBS_OUT/tbsd.log" || fail "the socket handed out is not logged: $(tail -3 "$TBS_OUT/tbsd.log")"
pass "the socket handed out is logged with the caller"

# A member of sockets.group gets a UDP socket, set up the same way.
out=$(member "$CLIENT" open ts0 0 udp4) || fail "member could not open a udp4 socket: $out"
assert_eq "$(jq -r '[.domain, .bound_device, .so_priority, .so_txtime_clockid, .so_txtime_flags] | join(",")' <<<"$out")" \
        "AF_INET,ts0,3,11,2" "member's udp4 socket"

# Deadline mode exactly when the etf has it; transmit stamps in software on veth.
out=$(admin "$CLIENT" open ts0 2 packet --protocol 0x88b5 --timestamps)
assert_eq "$(jq -r '[.priority, .so_priority, .txtime_flags, .so_txtime_flags] | join(",")' <<<"$out")" "1,1,3,3" \
        "queue 2: priority 1, DEADLINE_MODE|REPORT_ERRORS"
# SOF_TIMESTAMPING_TX_SOFTWARE (0x2) | SOFTWARE (0x10) | OPT_ID (0x80)
assert_eq "$(jq -r .so_timestamping <<<"$out")" $((0x2 | 0x10 | 0x80)) "software transmit stamps on veth"
# busctl as an independent client: the same answer.
read -r sig _ prio clk flags delta < <(admin busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/ts0 \
        org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} 2 packet 1 protocol q 34997)
assert_eq "$sig $prio $clk $flags $delta" "huiuu 1 11 3 1000000" "busctl's answer for queue 2"

# The priority and traffic_class options instead of the queue.
out=$(admin "$CLIENT" open ts0 options packet --protocol 0x88b5 --priority 2)
assert_eq "$(jq -r '[.so_priority, .delta_ns] | join(",")' <<<"$out")" "2,0" "option priority 2: class 1, delta 0"
out=$(admin "$CLIENT" open ts0 options packet --protocol 0x88b5 --class 2)
assert_eq "$(jq -r '[.so_priority, .so_txtime_flags, .delta_ns] | join(",")' <<<"$out")" "1,3,1000000" \
        "option traffic_class 2: priority 1, deadline mode"

# 40 frames, 10 of them already past, in a shuffled order, on queue 0.
ON=30 BAD=10
ip netns exec peer "$CLIENT" recv ts0p 0x88b5 "$ON" 15000 > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
recv_pid=$!
wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "receiver did not start"
admin "$CLIENT" send ts0 0 packet --protocol 0x88b5 --count $((ON + BAD)) --invalid $BAD --seed 7 --lead-ns 600000000 \
        > "$TMPDIR/send0.json" || fail "send on queue 0 failed"
wait "$recv_pid" || fail "receiver failed"
cat "$TMPDIR/send0.json" "$TMPDIR/recv.json"
s0=$(cat "$TMPDIR/send0.json")
assert_eq "$(jq -r '[.sent, .invalid, .missed, .other, .enobufs] | join(",")' <<<"$s0")" "40,$BAD,0,0,$BAD" \
        "sent, invalid, missed, other reports, sends refused with ENOBUFS"
assert_eq "$(jq -c ".invalid_seqs | sort" <<<"$s0")" "$(jq -c '[range(0; 10)]' <<<null)" "the past frames are the invalid ones"
assert_eq "$(jq -c .seqs "$TMPDIR/recv.json")" "$(jq -c .on_time_seqs <<<"$s0")" \
        "the receiver got every on-time frame, in launch-time order"
assert_eq "$(jq -r .received "$TMPDIR/recv.json")" "$ON" "frames received"
assert_eq "$(jq -c '.txtimes == (.txtimes | sort)' "$TMPDIR/recv.json")" true "arrival in launch-time order"

# Queue 1 (delta 0): every frame misses its launch time in the queue.
MISS=6
admin "$CLIENT" send ts0 1 packet --protocol 0x88b5 --count $MISS --seed 3 > "$TMPDIR/send1.json" ||
        fail "send on queue 1 failed"
s1=$(cat "$TMPDIR/send1.json")
echo "$s1"
assert_eq "$(jq -r '[.invalid, .missed, (.on_time_seqs | length)] | join(",")' <<<"$s1")" "0,$MISS,0" \
        "queue 1: every frame missed"

# The error queues against tc -s and tbsd's counters.
tcj=$(tc -j -s qdisc show dev ts0)
st=$("$TBSCTL" --json stats ts0)
tc_q() { jq -r --arg p "100:$(($1 + 1))" ".[] | select(.parent == \$p) | .$2" <<<"$tcj"; }
tbs_q() { jq -r --argjson q "$1" ".txqueues[] | select(.queue == \$q) | .stats.$2" <<<"$st"; }
assert_eq "$(tc_q 0 drops)/$(tc_q 0 overlimits)" "$BAD/0" "tc: queue 0 drops/overlimits"
assert_eq "$(tbs_q 0 invalid)/$(tbs_q 0 deadline_misses)" "$BAD/0" "tbsd: queue 0 invalid/deadline misses"
assert_eq "$(tc_q 0 packets)" "$ON" "tc: queue 0 packets sent"
assert_eq "$(tc_q 1 overlimits)/$(tc_q 1 drops)" "$MISS/$MISS" "tc: queue 1 overlimits/drops"
assert_eq "$(tbs_q 1 deadline_misses)/$(tbs_q 1 invalid)" "$MISS/0" "tbsd: queue 1 deadline misses/invalid"

# Without the group: refused, and the refusal logged.
set +e
out=$(outsider "$CLIENT" open ts0 0 packet --protocol 0x88b5); rc=$?
set -e
assert_eq "$rc" 1 "outsider exit status"
assert_contains "$out" "ERROR org.tsn.Tbs.Error.AccessDenied: OpenTxtimeSocket on ts0 is for uid 0, the tbsd admin group and group 'users' only" \
        "outsider refused"
out=$(outsider gdbus call --system --dest org.tsn.Tbs --object-path /org/tsn/Tbs/link/ts0 \
        --method org.tsn.Tbs.Link.OpenTxtimeSocket 0 packet "{'protocol': <uint16 34997>}" 2>&1 || true)
assert_contains "$out" "org.tsn.Tbs.Error.AccessDenied" "gdbus: outsider refused"
grep -q "denied OpenTxtimeSocket on ts0 to uid 65534 (in neither the admin group nor group 'users')" "$TBS_OUT/tbsd.log" ||
        fail "the refusal is not logged"
pass "the refusal is logged"

# Why the broker exists: the same user on its own.
assert_eq "$(outsider "$CLIENT" self udp4)" '{"socket": "ok", "so_txtime": "EPERM"}' \
        "own UDP socket: SO_TXTIME with CLOCK_TAI"
assert_eq "$(member "$CLIENT" self udp4)" '{"socket": "ok", "so_txtime": "EPERM"}' \
        "own UDP socket of a member: SO_TXTIME with CLOCK_TAI"
assert_eq "$(member "$CLIENT" self packet)" '{"socket": "EPERM", "so_txtime": null}' "own packet socket"

# Root may open one without any group.
"$CLIENT" open ts0 0 packet --protocol 0x88b5 >/dev/null || fail "root was refused"
pass "root may open a socket"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

# What the holder of a socket from Link.OpenTxtimeSocket() can do beyond
# its purpose (issue 37, point 1; issue 46, point 7), each abuse tried as an
# unprivileged user (uid 65534) with tests/tools/txtime-confine:
# - a member of the schedule's sockets.group gets no packet socket
#   (AccessDenied, one line saying what to ask for instead), and its udp4
#   socket stays bound to the interface: re-binding it by index or name,
#   or unbinding it fails; a launch-timed datagram with IP_PKTINFO naming
#   the other interface is dropped by that interface's socket guard (the
#   clsact filters on the socket's mark): the other interface's etf
#   counters stay as they were;
# - the socket's priority lowered to 0-6 (SO_PRIORITY) still reaches only
#   its own queue's etf: the guard sets the handed-out priority back, and
#   the other class's etf counters stay as they were;
# - the guard follows the schedule: installed with it, put back when a
#   filter or the clsact is deleted by hand (drift), removed with it, and
#   off every interface once no schedule hands sockets to a group;
# - packet sockets for network-control EtherTypes (PTP, ARP, IPv4) are
#   refused unless the schedule lists them in sockets.ethertypes, where
#   they are handed out;
# - a packet socket of a member of the admin group, bound again to another
#   interface, to ETH_P_ALL on lo, or to ETH_P_ALL on every interface
#   (ifindex 0), receives no frame but its own interface's of its
#   EtherType, while a witness of its own (root) sees every frame sent
#   meanwhile arrive; its filter can be neither detached, replaced nor
#   unlocked.
CLIENT=$TBS_BUILD_DIR/tests/tools/txtime-client
CONFINE=$TBS_BUILD_DIR/tests/tools/txtime-confine

# cf0 (the schedule's interface, peer cf0p in namespace peer) and cx0 (an
# interface of the same host, peer cx0p in namespace other).
make_veth_to_peer cf0 cf0p
make_veth cx0 cx0p
ip netns add other
ip link set cx0p netns other
ip -n other link set cx0p up
ip -n other addr add 198.51.100.2/24 dev cx0p
ip addr add 198.51.100.1/24 dev cx0
ip link set lo up
# No ARP on the way: a datagram that left through cx0 would go at once.
ip neigh replace 198.51.100.2 lladdr "$(ip netns exec other cat /sys/class/net/cx0p/address)" dev cx0 nud permanent
ip neigh replace 192.0.2.2 lladdr "$(ip netns exec peer cat /sys/class/net/cf0p/address)" dev cf0 nud permanent

conf=$TMPDIR/conf
mkdir -p "$conf"
# $1: interface, $2: the "sockets" object, $3: more keys (each followed by a comma).
# Priority 3 (the sockets' for queue 0) is class 0 on queue 0, priority 2
# class 1 on queue 1, both with an etf; the rest class 2 (queues 2-3).
write_schedule() {
        cat > "$conf/$1.json" <<EOJ
{
  "interface": "$1", ${3:-}
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 200000000, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 200000000, "offload": false}
  ],
  "sockets": $2
}
EOJ
}
write_schedule cf0 '{"group": "users"}'
write_schedule cx0 '{"group": "users", "ethertypes": ["0x88f7", 2048]}' '"drift": "report",'
start_system_bus
start_tbsd "$conf" --admin-group nogroup
wait_configured cf0
wait_configured cx0

# uid 65534 in the schedule's sockets.group (users, 100); the same user in
# the admin group (nogroup, 65534) instead.
member() { setpriv --reuid=65534 --regid=100 --groups 100 "$@"; }
admin() { setpriv --reuid=65534 --regid=65534 --groups 65534 "$@"; }
E=org.tsn.Tbs.Error

# 1. A member asks for a packet socket: refused, in one line that says why
# and what to ask for instead; logged.
set +e
out=$(member "$CLIENT" open cf0 0 packet --protocol 0x88b5); rc=$?
set -e
assert_eq "$rc" 1 "member's packet socket: exit status"
assert_eq "$out" "ERROR $E.AccessDenied: cf0: packet sockets are for uid 0 and the tbsd admin group only (their holder can bind them to any interface and send any frame); ask for kind \"udp4\" or \"udp6\"" \
        "member's packet socket refused"
grep -q "denied packet socket on cf0 to uid 65534 (a member of group 'users' only, not of the admin group)" \
        "$TBS_OUT/tbsd.log" || fail "the refusal is not logged: $(tail -3 "$TBS_OUT/tbsd.log")"
pass "the refusal is logged"
out=$(member busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/cf0 org.tsn.Tbs.Link OpenTxtimeSocket 'usa{sv}' \
        0 packet 1 protocol q 34997 2>&1 || true)
assert_contains "$out" "packet sockets are for uid 0 and the tbsd admin group only" "busctl: member's packet socket refused"

# 2. A member's udp4 socket stays on cf0. The witness sees the frames of
# cx0 (and of every other interface) until the marker sent after the
# member's datagram.
"$CONFINE" watch udp-mark > "$TMPDIR/w-udp.json" 2> "$TMPDIR/w-udp.err" &
watch_pid=$!
wait_until 5 grep -q listening "$TMPDIR/w-udp.err" || fail "witness did not start"
# etf_count DEV PARENT: packets sent plus dropped by the etf on PARENT.
etf_count() { tc -s -j qdisc show dev "$1" | jq -r --arg p "$2" '.[] | select(.kind == "etf" and .parent == $p) | .packets + .drops'; }
etfs() { echo "$(etf_count "$1" 100:1)/$(etf_count "$1" 100:2)"; }
cx0_etfs=$(etfs cx0)
out=$(member "$CONFINE" hold cf0 0 udp4 --bind cx0 --dest 198.51.100.2) || fail "member's udp4 socket: $out"
echo "$out"
"$CONFINE" frame cx0 0x88b5 udp-mark
wait "$watch_pid" || fail "the witness missed the marker: $(cat "$TMPDIR/w-udp.json")"
assert_eq "$(jq -r '[.bindtoifindex, .bindtodevice, .unbind] | join(",")' <<<"$out")" "EPERM,EPERM,EPERM" \
        "udp4: re-binding to cx0 by index or name, or unbinding"
assert_eq "$(jq -r .bound_device <<<"$out")" cf0 "udp4: still bound to cf0"
# What the binding does not stop: Linux 6.1 lets IP_PKTINFO name another
# interface than the bound one for IPv4, so the launch-timed datagram is
# routed to cx0; cx0's socket guard drops it (cf0's mark) before cx0's
# queues: no etf of cx0 saw it, nothing left through cx0.
assert_eq "$(jq -r .pktinfo_send <<<"$out")" ENOBUFS "udp4 with IP_PKTINFO naming cx0: dropped"
assert_eq "$(etfs cx0)" "$cx0_etfs" "udp4 with IP_PKTINFO naming cx0: cx0's etf counters unchanged"
assert_eq "$(jq -r '.frames | map(select(startswith("cx0/"))) | join(" ")' "$TMPDIR/w-udp.json")" \
        "cx0/0x88b5/outgoing/udp-mark" "udp4: no frame of the member's left through cx0"

# 2b. The socket's priority lowered (SO_PRIORITY 0-6, which Linux lets any
# holder set): every datagram still reaches queue 0's etf (class 0, the
# socket's), none queue 1's (class 1, priority 2) or the class without etf.
# The legit send first: the same socket use without the abuse.
cf0_etfs=$(etfs cf0)
q0=${cf0_etfs%/*} q1=${cf0_etfs#*/}
for prio in none 0 1 2 4 5 6; do
        if [ "$prio" = none ]; then
                out=$(member "$CONFINE" send cf0 0 --dest 192.0.2.2) || fail "member's send: $out"
        else
                out=$(member "$CONFINE" send cf0 0 --dest 192.0.2.2 --priority "$prio") || fail "member's send: $out"
        fi
        assert_eq "$(jq -r '[.priority, .send] | join(",")' <<<"$out")" "ok,ok" "udp4 with priority $prio: set and sent"
        q0=$((q0 + 1))
        wait_until 5 sh -c "[ \"\$(tc -s -j qdisc show dev cf0 | jq -r '.[] | select(.kind == \"etf\" and .parent == \"100:1\") | .packets + .drops')\" = $q0 ]" ||
                fail "udp4 with priority $prio: queue 0's etf did not get it ($(etfs cf0), expected $q0/$q1)"
        assert_eq "$(etfs cf0)" "$q0/$q1" "udp4 with priority $prio: queue 0's etf got it, queue 1's counters unchanged"
done
assert_eq "$(etfs cx0)" "$cx0_etfs" "cx0's etf counters unchanged by cf0's sockets"

# 2c. The guard follows the schedule. guard_prefs DEV: the preferences of
# tbsd's filters (kind basic) on DEV's clsact egress, space-separated.
# (Text, not -j: iproute2 prints a basic filter's ematch into its JSON
# unquoted.)
guard_prefs() { tc filter show dev "$1" egress | grep -o 'pref [0-9]* basic' | awk '{print $2}' | sort -nu | paste -sd ' '; }
all_prefs=$(seq -s ' ' 1 17)
assert_eq "$(guard_prefs cf0)" "$all_prefs" "cf0: the guard's 17 egress filters"
assert_eq "$(guard_prefs cx0)" "$all_prefs" "cx0: the guard's 17 egress filters"
tc filter del dev cf0 egress pref 17
wait_until 5 sh -c "[ \"\$(tc filter show dev cf0 egress | grep -o 'pref [0-9]* basic' | sort -u | wc -l)\" = 17 ]" ||
        fail "a deleted guard filter was not put back: $(guard_prefs cf0)"
pass "a guard filter deleted by hand is put back (drift)"
grep -q "drift.*socket guard: 1 of 17 clsact egress filters missing" "$TBS_OUT/tbsd.log" ||
        fail "the drift is not reported: $(grep -i drift "$TBS_OUT/tbsd.log" | tail -3)"
pass "the guard's drift is reported"
tc qdisc del dev cf0 clsact
wait_until 5 sh -c "[ \"\$(tc filter show dev cf0 egress | grep -o 'pref [0-9]* basic' | sort -u | wc -l)\" = 17 ]" ||
        fail "a deleted clsact was not put back: $(guard_prefs cf0)"
pass "a clsact deleted by hand is put back with its filters (drift)"
# Drift policy report (cx0): the missing filter is reported, the link
# degraded, nothing put back until an apply.
tc filter del dev cx0 egress pref 5
wait_until 5 sh -c "[ \"\$(\"$TBSCTL\" --json status cx0 | jq -r .state)\" = degraded ]" ||
        fail "cx0 not degraded by a missing guard filter: $("$TBSCTL" status cx0 2>&1)"
assert_eq "$("$TBSCTL" --json status cx0 | jq -r .state_reason)" "drift: socket guard: 1 of 17 clsact egress filters missing" \
        "cx0 (drift report): the missing guard filter is its state reason"
assert_eq "$(guard_prefs cx0)" "$(seq -s ' ' 1 17 | sed 's/ 5 / /')" "cx0 (drift report): the filter is not put back"
"$TBSCTL" apply cx0 >/dev/null
assert_eq "$(guard_prefs cx0)/$("$TBSCTL" --json status cx0 | jq -r .state)" "$all_prefs/configured" \
        "cx0: an apply puts the guard filter back"
# Still confining after the repair.
out=$(member "$CONFINE" send cf0 0 --dest 192.0.2.2 --priority 2) || fail "member's send: $out"
q0=$((q0 + 1))
wait_until 5 sh -c "[ \"\$(tc -s -j qdisc show dev cf0 | jq -r '.[] | select(.kind == \"etf\" and .parent == \"100:1\") | .packets + .drops')\" = $q0 ]" ||
        fail "after the repair, priority 2: queue 0's etf did not get it ($(etfs cf0))"
assert_eq "$(etfs cf0)" "$q0/$q1" "after the repair, priority 2: queue 1's counters unchanged"

# 3. Network-control EtherTypes: refused where the schedule does not list
# them, whoever asks; handed out where it does.
for t in 0x88f7:PTP 0x0806:ARP 0x0800:IPv4; do
        set +e
        out=$(admin "$CLIENT" open cf0 0 packet --protocol "${t%%:*}"); rc=$?
        set -e
        assert_eq "$rc" 1 "EtherType ${t%%:*} on cf0: exit status"
        assert_eq "$out" "ERROR $E.AccessDenied: cf0: EtherType ${t%%:*} (${t#*:}) is network control: tbsd opens packet sockets for it only where the schedule lists it in sockets.ethertypes" \
                "EtherType ${t%%:*} on cf0 refused"
done
out=$("$CLIENT" open cf0 0 packet --protocol 0x88cc || true)
assert_contains "$out" "$E.AccessDenied: cf0: EtherType 0x88cc (LLDP) is network control" "root: LLDP on cf0 refused"
out=$(admin "$CLIENT" open cx0 0 packet --protocol 0x88f7) || fail "PTP on cx0, which lists it: $out"
assert_eq "$(jq -r '[.domain, .bound_ifindex, .bound_protocol] | join(",")' <<<"$out")" \
        "AF_PACKET,$(cat /sys/class/net/cx0/ifindex),$((0x88f7))" "PTP on cx0, which lists it"
out=$(admin "$CLIENT" open cx0 0 packet --protocol 0x0800) || fail "IPv4 on cx0, which lists it: $out"
out=$(admin "$CLIENT" open cx0 0 packet --protocol 0x0806 || true)
assert_contains "$out" "$E.AccessDenied: cx0: EtherType 0x0806 (ARP) is network control" "ARP on cx0, which lists only PTP and IPv4"

# 4. An admin's packet socket on cf0 for 0x88b5, bound again elsewhere.
# try_rebind NAME BIND-ARGS -- EXPECTED-FRAMES: the socket re-bound as
# BIND-ARGS say receives exactly EXPECTED-FRAMES (space-separated) while
# frames go on cx0, lo and cf0 (of other EtherTypes, and this host's own
# 0x88b5 frames out of cf0), and a last one of cf0's EtherType comes in on
# cf0; the witness sees all of them arrive.
try_rebind() {
        local name=$1 expected out
        shift
        local args=()
        while [ "$1" != -- ]; do args+=("$1"); shift; done
        shift
        expected=$*
        mkfifo "$TMPDIR/go-$name"
        exec 3<>"$TMPDIR/go-$name"
        admin "$CONFINE" hold cf0 0 packet 0x88b5 "${args[@]}" <&3 > "$TMPDIR/hold-$name.json" 2> "$TMPDIR/hold-$name.err" &
        local hold_pid=$!
        wait_until 5 grep -q bound "$TMPDIR/hold-$name.err" || fail "$name: the holder did not start: $(cat "$TMPDIR/hold-$name.json")"
        "$CONFINE" watch cx0-own lo-own cf0-ptp cf0-out cf0-own > "$TMPDIR/w-$name.json" 2> "$TMPDIR/w-$name.err" &
        local watch_pid=$!
        wait_until 5 grep -q listening "$TMPDIR/w-$name.err" || fail "$name: witness did not start"
        ip netns exec other "$CONFINE" frame cx0p 0x88b5 cx0-own
        "$CONFINE" frame lo 0x88b5 lo-own
        ip netns exec peer "$CONFINE" frame cf0p 0x88f7 cf0-ptp
        "$CONFINE" frame cf0 0x88b5 cf0-out
        ip netns exec peer "$CONFINE" frame cf0p 0x88b5 cf0-own
        wait "$watch_pid" || fail "$name: the witness did not see every frame: $(cat "$TMPDIR/w-$name.json")"
        echo go >&3
        wait "$hold_pid" || fail "$name: the holder failed: $(cat "$TMPDIR/hold-$name.json")"
        exec 3>&-
        out=$(cat "$TMPDIR/hold-$name.json")
        echo "$name: $out"
        echo "$name: witness $(cat "$TMPDIR/w-$name.json")"
        assert_eq "$(jq -r '.frames | join(" ")' <<<"$out")" "$expected" "$name: frames received"
        assert_eq "$(jq -r '[.detach, .attach, .unlock, .bind] | join(",")' <<<"$out")" "EPERM,EPERM,EPERM,ok" \
                "$name: filter detach, replace, unlock; bind"
}
try_rebind other-interface --bind cx0 --bind-protocol 0x88b5 --
try_rebind all-on-lo --bind lo --
try_rebind all-everywhere --bind any -- cf0/0x88b5/broadcast/cf0-own
try_rebind all-on-cf0 --bind cf0 -- cf0/0x88b5/broadcast/cf0-own

# 5. Removed with the tree: no clsact left on cf0; cx0 keeps its guard.
"$TBSCTL" remove cf0
assert_eq "$(tc -j qdisc show dev cf0 | jq -r '[.[] | .kind] | map(select(. == "clsact" or . == "mqprio")) | length')" 0 \
        "cf0 removed: neither its root nor the guard's clsact left"
assert_eq "$(guard_prefs cx0)" "$all_prefs" "cx0 keeps its guard"

# 6. The guard goes where no schedule hands sockets to a group any more:
# cx0's and cf0's files without "sockets", a reload: cx0's tree stays,
# its guard (and clsact) goes.
for i in cf0 cx0; do
        jq 'del(.sockets)' "$conf/$i.json" > "$TMPDIR/$i.json" && cat "$TMPDIR/$i.json" > "$conf/$i.json"
done
"$TBSCTL" reload >/dev/null || fail "tbsctl reload failed"
no_guard() { [ -z "$(guard_prefs "$1")" ]; }
wait_until 10 no_guard cx0 || fail "cx0's guard stayed without sockets: $(guard_prefs cx0)"
assert_eq "$(tc -j qdisc show dev cx0 | jq -r '[.[] | .kind] | map(select(. == "clsact")) | length')/$(qdisc_at cx0 root | jq -r .kind)" \
        "0/mqprio" "no schedule gives sockets: cx0 without clsact, its tree in place"

kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
pass "tbsd exited cleanly"

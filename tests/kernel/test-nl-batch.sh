# tbsd --once over many interfaces: the requests of all of them go out
# together (few netlink sends, one ACK wait each), and each interface is
# still judged and rolled back on its own. `tc -j` is the oracle for the
# trees, strace for the number of netlink sends.
n=40
for ((i = 0; i < n; i++)); do
        echo "link add m$i numtxqueues 4 numrxqueues 4 type veth peer name mp$i numtxqueues 4 numrxqueues 4"
        echo "link set m$i up"
        echo "link set mp$i up"
done > "$TMPDIR/links"
ip -batch "$TMPDIR/links"
modprobe -d /run/modroot ifb
ip link add ifb0 numtxqueues 4 numrxqueues 4 type ifb
ip link set ifb0 up

conf=$TMPDIR/schedules.d
mkdir -p "$conf"
schedule() { # IFACE DELTA0 OFFLOAD1
        cat <<EOS
{ "interface": "$1",
  "root": { "qdisc": "mqprio", "num_tc": 4,
    "priority_map": [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1},
               {"count": 1, "offset": 2}, {"count": 1, "offset": 3}] },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": $2, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 300000, "offload": ${3:-false}},
    {"queue": 2, "qdisc": "etf", "delta_ns": 400000, "offload": false},
    {"queue": 3, "qdisc": "etf", "delta_ns": 500000, "offload": false}
  ],
  "allow": ["ptp-etf"] }
EOS
}
for ((i = 0; i < n; i++)); do
        schedule "m$i" 200000 > "$conf/m$i.json"
done

# netlink_sends CMD...: run CMD under strace, print how many sends it made
# on netlink sockets (sendto/sendmsg; the only sockets --once sends on),
# apart from the interface name lookups (one RTM_GETLINK by name each,
# issue 46: never an ioctl, which would load modules for unknown names),
# which are counted into $TMPDIR/lookups.
netlink_sends() {
        strace -f -qq -e trace=sendto,sendmsg -o "$TMPDIR/sends" "$@" >"$TMPDIR/out" 2>"$TMPDIR/err" || true
        # (strace may not know the socket's family: RTM_GETLINK is 0x12)
        grep -c 'nlmsg_type=\(RTM_GETLINK\|0x12\)[ ,]' "$TMPDIR/sends" > "$TMPDIR/lookups" || true
        grep 'sa_family=AF_NETLINK\|nlmsg_len' "$TMPDIR/sends" | grep -vc 'nlmsg_type=\(RTM_GETLINK\|0x12\)[ ,]'
}

# 40 interfaces, 5 qdiscs each: one dump request, then 200 requests in
# sends of at most 128 requests: 2. The tc -batch baseline sends 200.
sends=$(netlink_sends "$TBSD" --once --config-dir "$conf")
assert_eq "$(grep -c ': applied$' "$TMPDIR/out")" "$n" "interfaces applied"
assert_eq "$sends" 3 "netlink sends of a full apply of $n interfaces (dump + 2 batches)"
[ "$(cat "$TMPDIR/lookups")" -le $((3 * n)) ] || fail "more than 3 name lookups an interface: $(cat "$TMPDIR/lookups")"
pass "name lookups of the full apply: $(cat "$TMPDIR/lookups") (RTM_GETLINK by name, at most 3 an interface)"
for i in 0 17 39; do
        got=$(qdisc_json "m$i" | jq -c '[.[] | select(.kind == "etf") | {parent, delta: .options.delta}] | sort_by(.parent)')
        assert_eq "$got" '[{"parent":"100:1","delta":200000},{"parent":"100:2","delta":300000},{"parent":"100:3","delta":400000},{"parent":"100:4","delta":500000}]' "m$i etf children"
        assert_eq "$(qdisc_at "m$i" root | jq -r .kind)" mqprio "m$i root"
done

# Unchanged: the dump and nothing else.
sends=$(netlink_sends "$TBSD" --once --config-dir "$conf")
assert_eq "$(grep -c ': unchanged$' "$TMPDIR/out")" "$n" "interfaces unchanged"
assert_eq "$sends" 1 "netlink sends of an unchanged re-apply (the dump)"

# One interface in the middle fails inside the shared batch (ifb0: queue
# 1's offload is refused by the kernel, after its queue 0 was already
# replaced); every other interface's change (queue 0's delta) goes in, and
# ifb0 comes back exactly as it was.
# m1a.json sorts between m19.json and m2.json: ifb0 sits in the middle of the batch.
schedule ifb0 200000 > "$conf/m1a.json"
"$TBSD" --once --config-dir "$conf" >/dev/null 2>&1 || fail "ifb0 first apply: $(cat "$TMPDIR/err")"
before=$(qdisc_json ifb0 | jq -c '[.[] | {kind, handle, parent, options}] | sort_by(.parent)')
for ((i = 0; i < n; i++)); do
        schedule "m$i" 210000 > "$conf/m$i.json"
done
schedule ifb0 210000 true > "$conf/m1a.json"
rc=0
out=$("$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/err") || rc=$?
assert_eq "$rc" 1 "--once exit status with one refused interface"
assert_contains "$out" "ifb0: failed: txqueue 1 (etf on 100:2): Specified device does not support ETF offload" "ifb0 message"
assert_eq "$(grep -c ': applied$' <<<"$out")" "$n" "the other interfaces applied"
after=$(qdisc_json ifb0 | jq -c '[.[] | {kind, handle, parent, options}] | sort_by(.parent)')
assert_eq "$after" "$before" "ifb0 tree (kinds, handles, options) after its refused request"
for i in 0 39; do
        assert_eq "$(qdisc_at "m$i" 100:1 | jq -r .options.delta)" 210000 "m$i queue 0 delta changed"
done
pass "one batch for many interfaces, each judged alone"

# Work a caller can cause is bounded (issue 37 point 5; the figures are
# bench/bounds.sh's, BENCHMARKS.md "Bounds"):
#  - Validate() of a costly streams document (bench/streams-doc.py, 80
#    streams of 3951 windows) sent again and again by uid 65534 is refused
#    with org.tsn.Tbs.Error.LimitExceeded once its CPU budget is used, in
#    one line saying when to try again; tbsd logs the refusal; root is
#    not limited; the daemon keeps answering status;
#  - a streams document whose placement passes the computation's bound
#    is refused with that line (not computed for seconds);
#  - monitors: three files monitoring one queue each at 640, 320 and 80
#    probe frames a second; the third by name (1040 > 1000 a second) is
#    refused at txqueues[0].monitor: its link is failed with that line,
#    tbsd --check prints it, and it has no probe socket (/proc/net/packet)
#    while the other two do; with 40 a second it fits and its monitor starts;
#  - tbsctl selftest --count above its bound is a usage error.
conf=$TMPDIR/conf
mkdir -p "$conf"
for i in 0 1 2; do make_veth "mb$i" "mbp$i" 4; done

# Queue 2 alone in class 1 (priority 1), monitored FRAMES every 100 ms.
write_monitored() { # FILE IFACE FRAMES
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 2,
    "priority_map": [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    "queues": [ {"count": 2, "offset": 0}, {"count": 1, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 2, "qdisc": "etf", "delta_ns": 5000000, "offload": false,
     "monitor": {"interval_ms": 100, "frames": $3}}
  ]
}
EOJ
}
write_monitored "$conf/a-mb0.json" mb0 64
write_monitored "$conf/b-mb1.json" mb1 32
write_monitored "$conf/c-mb2.json" mb2 8

start_system_bus
start_tbsd "$conf"
for i in 0 1; do wait_configured "mb$i"; done

# ---- monitors: the budget over all files ----
line="$conf/c-mb2.json: txqueues[0].monitor: the file's monitors send 80 probe frames a second; with the 960 of the other files' that is above tbsd's budget of 1000 for all monitors"
assert_eq "$(link_state mb2)" failed "mb2, whose file passes the monitor budget"
assert_contains "$("$TBSCTL" status mb2)" "$line" "tbsctl status mb2"
assert_contains "$("$TBSD" --check --no-probe --config-dir "$conf" 2>&1 || true)" "$line" "tbsd --check"
# The monitors' sockets: AF_PACKET, SOCK_DGRAM (type 2), protocol 0, per interface.
probe_sockets() {
        awk -v i="$(cat "/sys/class/net/$1/ifindex")" 'NR > 1 && $3 == 2 && $4 == "0000" && $5 == i' /proc/net/packet | wc -l
}
for i in 0 1; do
        wait_until 5 test "$(probe_sockets "mb$i")" = 1 || fail "mb$i: no monitor socket: $(cat /proc/net/packet)"
done
assert_eq "$(probe_sockets mb2)" 0 "monitor sockets on mb2"
write_monitored "$conf/c-mb2.json" mb2 4
"$TBSCTL" reload || fail "reload with mb2 within the budget: $?"
wait_configured mb2
wait_until 5 test "$(probe_sockets mb2)" = 1 || fail "mb2: no monitor socket within the budget"
pass "mb2 monitored at 40 a second (1000 in all)"

# ---- Validate(): the CPU budget of untrusted callers ----
python3 "$TBS_SOURCE_DIR/bench/streams-doc.py" > "$TMPDIR/streams.json"
cat > "$TMPDIR/validate.py" <<'EOPY'
import sys, dbus
doc = open(sys.argv[1]).read()
m = dbus.Interface(dbus.SystemBus().get_object("org.tsn.Tbs", "/org/tsn/Tbs"), "org.tsn.Tbs.Manager")
for i in range(int(sys.argv[2])):
    try:
        ok, errors = m.Validate(doc)
    except dbus.exceptions.DBusException as e:
        print("refused", i, e.get_dbus_name(), e.get_dbus_message())
        sys.exit(0)
print("answered", sys.argv[2], "|".join(errors)[:200])
EOPY
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups python3 "$TMPDIR/validate.py" "$TMPDIR/streams.json" 300)
echo "uid 65534: $out"
assert_contains "$out" "refused" "uid 65534 sending Validate() 300 times"
assert_contains "$out" "org.tsn.Tbs.Error.LimitExceeded Validate: this user's budget of CPU time for Validate() (50 ms a second) is used up; try again in" "the refusal"
wait_until 5 grep -q "denied Validate to uid 65534: its CPU budget for it is used up" "$TBS_OUT/tbsd.log" ||
        fail "no refusal in tbsd's log: $(tail -5 "$TBS_OUT/tbsd.log")"
pass "the refusal is logged"
# root is not counted (the same document, as often as uid 65534 was admitted and more)
out=$(python3 "$TMPDIR/validate.py" "$TMPDIR/streams.json" 30)
assert_contains "$out" "answered 30" "root's Validate() calls"
assert_contains "$out" "root.entries: must have at most 80 entries" "root's answer"
"$TBSCTL" status mb0 > /dev/null || fail "status after the Validate() calls"

# ---- the streams computation's own bound ----
python3 - > "$TMPDIR/slow.json" <<'EOPY'
import json
streams = [{"name": f"b{i}", "traffic_class": 1, "period_ns": 20000, "offset_ns": 19300 + 150 * i,
            "max_frame_bytes": 60} for i in range(4)]
streams.append({"name": "victim", "traffic_class": 2, "period_ns": 20025, "max_frame_bytes": 60})
print(json.dumps({"interface": "mb0", "root": {"qdisc": "taprio", "num_tc": 3, "priority_map": [0] * 16,
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2}],
    "base_time_ns": 0, "mode": "full-offload", "link_speed_mbps": 10000, "guard_frame_bytes": 60,
    "streams": streams}, "txqueues": []}))
EOPY
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s "$(cat "$TMPDIR/slow.json")")
assert_contains "$out" 'placing stream \"victim\" took more than 262144 checks of the windows already placed, the bound of the computation' "Validate() of a document past the placement bound"

# ---- selftest --count ----
out=$("$TBSCTL" selftest mb0 2 --count=1001 2>&1) && fail "selftest --count=1001 succeeded: $out"
assert_contains "$out" "tbsctl: --count: must be an integer between 1 and 1000, got '1001'" "selftest --count=1001"
pass "bounds"

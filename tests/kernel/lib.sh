# Helpers for kernel test scripts (sourced by guest-init before the test).
# Tests run as root inside the user-mode-linux guest with bash.
set -euo pipefail

TBSD=$TBS_BUILD_DIR/daemon/tbsd
TBSCTL=$TBS_BUILD_DIR/cli/tbsctl

# fail MESSAGE...: stop the test with a message.
fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# pass MESSAGE...: a step that held.
pass() {
        echo "ok: $*"
}

# assert_eq ACTUAL EXPECTED WHAT
assert_eq() {
        if [ "$1" != "$2" ]; then
                fail "$3: expected '$2', got '$1'"
        fi
        pass "$3 = $2"
}

# assert_contains HAYSTACK NEEDLE WHAT
assert_contains() {
        case "$1" in
        *"$2"*) pass "$3 contains '$2'" ;;
        *) fail "$3: '$2' not found in: $1" ;;
        esac
}

# make_veth NAME PEER [QUEUES]: a veth pair with QUEUES (default 4) TX/RX
# queues on each end, both up.
make_veth() {
        local q=${3:-4}
        ip link add "$1" numtxqueues "$q" numrxqueues "$q" type veth \
                peer name "$2" numtxqueues "$q" numrxqueues "$q"
        ip link set "$1" up
        ip link set "$2" up
}

# tc_j ARGS...: tc -j ARGS, with iproute2 6.1's one JSON mistake mended:
# a taprio's pending (admin) schedule comes out as an object without a key
# (",{"base_time":...}"); it gets the key "admin".
tc_j() {
        tc -j "$@" | sed 's/,{"base_time":/,"admin":{"base_time":/g'
}

# qdisc_json DEV: the device's qdiscs as tc -j -s reports them.
qdisc_json() {
        tc_j -s qdisc show dev "$1"
}

# qdisc_at DEV PARENT: the JSON object of the qdisc under PARENT ("root" for the root).
qdisc_at() {
        if [ "$2" = root ]; then
                qdisc_json "$1" | jq -c '.[] | select(.root == true)'
        else
                qdisc_json "$1" | jq -c --arg p "$2" '.[] | select(.parent == $p)'
        fi
}

# taprio_windows DEV TC: the gate windows of traffic class TC in the
# schedule DEV's taprio root runs, from tc's own dump (an independent
# oracle for the daemon's view): {"base_time_ns", "cycle_time_ns",
# "windows": [[offset, length], ...]} with offsets in ns into the cycle.
taprio_windows() {
        tc_j qdisc show dev "$1" | python3 -c '
import json, sys
root = [q for q in json.load(sys.stdin) if q.get("root")][0]["options"]
tc, cycle, start, wins = int(sys.argv[1]), root["cycle_time"], 0, []
for e in root["schedule"]:
    if start >= cycle:
        break
    end = min(start + e["interval"], cycle)
    if int(e["gatemask"], 16) >> tc & 1 and end > start:
        wins.append([start, end - start])
    start = end
print(json.dumps({"base_time_ns": root["base_time"], "cycle_time_ns": cycle, "windows": wins}))
' "$2"
}

# wait_until SECONDS COMMAND...: poll every 0.05 s until COMMAND succeeds;
# 1 when it still fails after SECONDS (decimals allowed) times the runner's
# TBS_TEST_TIMEOUT_FACTOR (a loaded machine is slower, not broken).
wait_until() {
        local ms deadline
        ms=$(awk -v s="$1" -v f="${TBS_TEST_TIMEOUT_FACTOR:-1}" 'BEGIN { printf "%d", s * f * 1000 }')
        deadline=$(( $(date +%s%N) / 1000000 + ms ))
        shift
        while ! "$@" >/dev/null 2>&1; do
                [ "$(( $(date +%s%N) / 1000000 ))" -lt "$deadline" ] || return 1
                sleep 0.05
        done
}

# start_system_bus: a private system bus whose policy includes the project's.
# Sets DBUS_SYSTEM_BUS_ADDRESS.
start_system_bus() {
        mkdir -p /run/dbus /run/tbs-dbus
        cat > /run/tbs-dbus/system.conf <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=/run/dbus/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_destination="org.freedesktop.DBus"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
  <policy user="root">
    <allow send_destination="*"/>
  </policy>
  <include ignore_missing="yes">$TBS_SOURCE_DIR/dbus/org.tsn.Tbs.conf</include>
</busconfig>
EOC
        dbus-daemon --config-file=/run/tbs-dbus/system.conf --fork --nopidfile
        export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
}

# write_mqprio_schedule FILE IFACE DELTA0 DELTA1: a 3-class mqprio schedule
# with software etf on queues 0 and 1.
write_mqprio_schedule() {
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": $3, "offload": "auto"},
    {"queue": 1, "qdisc": "tbs", "delta_ns": $4, "offload": false, "deadline_mode": true}
  ]
}
EOJ
}

# write_streams_schedule FILE IFACE STREAMS: a txtime-assist taprio root of
# 3 classes given by streams (STREAMS: the JSON objects of its "streams"
# array, comma-separated), software etf on queues 0 and 1, sockets for
# group "users" (docs/streams.md).
write_streams_schedule() {
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 2, 2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}],
    "clockid": "CLOCK_TAI", "base_time_ns": 1000,
    "mode": "txtime-assist", "txtime_delay_ns": 300000,
    "streams": [$3]
  },
  "txqueues": [
    {"queue": 0, "delta_ns": 300000, "offload": false, "skip_sock_check": true},
    {"queue": 1, "delta_ns": 300000, "offload": false, "skip_sock_check": true}
  ],
  "sockets": {"group": "users"}
}
EOJ
}

# start_tbsd CONFIG_DIR [ARGS...]: run tbsd in the background (log in
# $TBS_OUT/tbsd.log) and wait until it answers on the bus.
start_tbsd() {
        local dir=$1
        shift
        "$TBSD" --config-dir "$dir" "$@" >>"$TBS_OUT/tbsd.log" 2>&1 &
        TBSD_PID=$!
        wait_until 10 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version ||
                { cat "$TBS_OUT/tbsd.log"; fail "tbsd did not appear on the bus"; }
}

# handles DEV: "parent=handle" of every qdisc of the egress tree, sorted
# (to compare trees; the socket guard's clsact, issue 46, is no part of it).
handles() {
        tc_j qdisc show dev "$1" | jq -r '.[] | select(.kind != "clsact") | "\(.parent // "root")=\(.handle)=\(.kind)"' |
                sort | tr '\n' ' '
}

# start_monitor: tbsctl monitor in the background, into $TBS_OUT/monitor.log.
start_monitor() {
        "$TBSCTL" monitor > "$TBS_OUT/monitor.log" 2>&1 &
        MONITOR_PID=$!
        wait_until 5 grep -q Watching "$TBS_OUT/monitor.log" || fail "tbsctl monitor did not start"
}

# expect_event LINK KIND: the event was printed by tbsctl monitor and logged by tbsd.
expect_event() {
        wait_until 5 grep -qE "^[0-9:]+ +$1 +$2 " "$TBS_OUT/monitor.log" ||
                fail "no '$2' event for $1 in tbsctl monitor: $(cat "$TBS_OUT/monitor.log")"
        grep -q "$1: $2: " "$TBS_OUT/tbsd.log" || fail "no '$2' event for $1 in tbsd's log"
        pass "event $2 for $1 in monitor and log"
}

# link_state LINK: the State property of a link.
link_state() {
        "$TBSCTL" --json status "$1" | jq -r .state
}

# etf_delta DEV PARENT: the delta of the etf under PARENT, or "none".
etf_delta() {
        tc_j qdisc show dev "$1" | jq -r --arg p "$2" '[.[] | select(.parent == $p and .kind == "etf") | .options.delta][0] // "none"'
}

# make_veth_to_peer NAME PEER [QUEUES]: make_veth (4 queues by default)
# with the peer moved into a network namespace "peer" (its loopback up) so
# traffic really crosses NAME: 192.0.2.1 here, 192.0.2.2 on the peer.
make_veth_to_peer() {
        make_veth "$1" "$2" "${3:-4}"
        ip netns add peer
        ip link set "$2" netns peer
        ip -n peer addr add 192.0.2.2/24 dev "$2"
        ip -n peer link set "$2" up
        ip -n peer link set lo up
        ip addr add 192.0.2.1/24 dev "$1"
}

# wait_configured LINK: the link's state becomes configured within 2 s.
wait_configured() {
        wait_until 2 sh -c "[ \"\$(\"$TBSCTL\" --json status $1 | jq -r .state)\" = configured ]" ||
                fail "$1 not configured: $("$TBSCTL" status "$1" 2>&1)"
}

# make_ptp_netns_pair: a veth pair p0 (namespace m) -- p1 (namespace s), both
# up, for a ptp4l master and slave with software time stamps.
make_ptp_netns_pair() {
        ip netns add m
        ip netns add s
        ip link add p0 type veth peer name p1
        ip link set p0 netns m
        ip link set p1 netns s
        for ns in m s; do ip -n "$ns" link set lo up; done
        ip -n m link set p0 up
        ip -n s link set p1 up
}

# qdisc_shape DEV: tc's own tree of DEV (tc -j -d) with every qdisc named
# by where it sits instead of by its handle: "root", "root/1" (on the
# root's class 1, TX queue 0), "root/1/1" (under that qdisc's class 1),
# each with its kind and options, sorted: two trees built with other
# child handles compare equal. The socket guard's clsact (issue 46) is no
# part of the egress tree.
qdisc_shape() {
        tc -j -d qdisc show dev "$1" | jq -c '
                (map({key: .handle, value: .}) | from_entries) as $by
                | def at($q): if $q.root then "root"
                              elif $q.parent == "ffff:fff1" then $q.kind    # clsact (the socket guard), ingress
                              else ($q.parent | split(":")) as $p
                                   | ($by[$p[0] + ":"]) as $up
                                   | if $up == null then "?" + $q.parent else at($up) + "/" + $p[1] end
                              end;
                [.[] | select(.kind != "clsact") | {at: at(.), kind, options}] | sort_by(.at)'
}

# demo_claim COMMAND ID: the claim ID of COMMAND (scripts/demo, or
# scripts/demo --netconf) in tests/kernel/demo-claims.txt held; the test
# ends with demo_claims_all COMMAND.
DEMO_CLAIMS_CHECKED=()
demo_claim() {
        local words
        words=$(awk -F'\t' -v c="$1" -v id="$2" '$1 == c && $2 == id { print $3 }' \
                "$TBS_SOURCE_DIR/tests/kernel/demo-claims.txt")
        [ -n "$words" ] || fail "claim $2 of $1 is not in tests/kernel/demo-claims.txt"
        DEMO_CLAIMS_CHECKED+=("$2")
        pass "claim $2: $words"
}

# demo_claims_all COMMAND: every claim of COMMAND in demo-claims.txt was checked.
demo_claims_all() {
        local id
        for id in $(awk -F'\t' -v c="$1" '!/^#/ && $1 == c { print $2 }' \
                        "$TBS_SOURCE_DIR/tests/kernel/demo-claims.txt"); do
                # (no grep -q in a pipe: with pipefail its early exit may fail the pipe)
                [[ " ${DEMO_CLAIMS_CHECKED[*]} " == *" $id "* ]] || fail "claim $id of $1 is not checked"
        done
        pass "the story of $1 holds: ${#DEMO_CLAIMS_CHECKED[@]} claims"
}

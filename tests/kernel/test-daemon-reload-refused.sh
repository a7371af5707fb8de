# A file that parses but is refused on reload (against the device, the
# link's rate, the streams added over the bus, or by the kernel) is
# reported like a syntax error, and the schedule in force stays in force
# and served (issue 37, point 2). For each example below, `tbsctl reload`
# (Reload()) exits 1 naming the file, the JSON path and the reason;
# tbsctl monitor prints "reloaded ... (with errors)"; the metrics file says
# tbs_config_last_reload_successful 0; the link stays configured with the
# previous tree (tc -j: same handles, same values), its StateReason says
# the previous version stays in force, status shows the schedule in force
# (not the refused file's values), and the broker keeps serving it
# (OpenTxtimeSocket, GetTxtimeWindow, GetTxtimeParams, Statistics, the
# launch monitor's figures running on). A valid version then applies.
#   queues   root.queues[1].count 5 on a 4-queue veth (rr0; also: the same
#            line as `tbsd --check`, a second reload still refuses it,
#            SIGHUP the same)
#   idle     a cbs idle slope above the link's rate (rc0)
#   sum      cbs reservations summing above the link's rate (rc0)
#   bw       a cbs bandwidth equal to the link's rate (rc0)
#   offload  cbs "offload": true on a veth (rc0)
#   streams  a file whose streams no longer fit beside the streams added
#            with AddStream (rs0): the answer says the bus streams are the
#            cause
#   kernel   an etf with offload true on ifb, which the probe does not know
#            and the kernel refuses (ifb0): rolled back, the previous
#            schedule stays in force and served
#   new      a new interface's refused file (rn0): no tree in force, the
#            link is failed, and the answer names the file
# Each example runs on its own; the test fails naming every example that
# did not hold.
modprobe -d /run/modroot ifb
for i in rr0 rc0 rs0 rn0; do
        make_veth "$i" "${i}p" 4
done
ip link add ifb0 numtxqueues 4 numrxqueues 4 type ifb
ip link set ifb0 up
conf=$TMPDIR/conf
mkdir -p "$conf"

write_rr0() { # DELTA0 QUEUES_1: mqprio, etf on queue 0 (monitored)
        cat > "$conf/rr0.json" <<EOJ
{
  "interface": "rr0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 2,
    "priority_map": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [ {"count": 1, "offset": 0}, $2 ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": $1, "offload": false,
     "monitor": {"interval_ms": 100, "frames": 2}}
  ]
}
EOJ
}
write_cbs() { # FILE IFACE QUEUE0 QUEUE1: cbs on queues 0 and 1, etf on 2
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "cbs", $3, "max_frame_bytes": 1500, "max_interference_bytes": 1500},
    {"queue": 1, "qdisc": "cbs", $4, "hi_credit_bytes": 153, "lo_credit_bytes": -1390},
    {"queue": 2, "qdisc": "etf", "delta_ns": 400000, "offload": false}
  ]
}
EOJ
}
cbs0='"bandwidth_kbps": 20000, "offload": false'
cbs1='"idle_slope_kbps": 98688, "send_slope_kbps": -9901312, "offload": false'
write_streams() { # EXTRA_STREAMS: taprio from streams, txtime-assist (lib.sh)
        write_streams_schedule "$conf/rs0.json" rs0 \
                '{"name": "ctrl", "traffic_class": 0, "period_ns": 1000000, "offset_ns": 0, "max_frame_bytes": 128},
                 {"name": "bulk", "traffic_class": 1, "period_ns": 1000000, "max_frame_bytes": 1500,
                  "frames_per_period": 4}'"$1"
}
write_ifb() { # DELTA0 OFFLOAD1
        write_mqprio_schedule "$TMPDIR/ifb0.json" ifb0 "$1" 500000
        jq ".txqueues[0].offload = false | .txqueues[1].offload = $2" "$TMPDIR/ifb0.json" > "$conf/ifb0.json"
}
good_files() {
        write_rr0 200000 '{"count": 3, "offset": 1}'
        write_cbs "$conf/rc0.json" rc0 "$cbs0" "$cbs1"
        write_streams ""
        write_ifb 200000 false
}
good_files
start_system_bus
start_tbsd "$conf" --state-dir "$TMPDIR/state" --stats-interval 0.2 --metrics-file /run/tbs.prom
start_monitor
for i in rr0 rc0 rs0 ifb0; do
        wait_configured "$i"
done

# Three streams over the bus on rs0, each 100 us of its 1 ms cycle.
for x in x1 x2 x3; do
        busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/rs0 org.tsn.Tbs.Link AddStream 'a{sv}' 4 \
                name s "$x" traffic_class u 1 period_ns u 1000000 max_frame_bytes u 128 >/dev/null ||
                fail "AddStream $x"
done
wait_configured rs0

prop() { # LINK PROPERTY: the property's value
        busctl --system get-property org.tsn.Tbs "/org/tsn/Tbs/link/$1" org.tsn.Tbs.Link "$2"
}
reloads() { grep -c ' reloaded ' "$TBS_OUT/monitor.log" || true; }
reloaded_since() { [ "$(reloads)" -gt "$1" ]; }
last_reload_ok() { grep -qx "tbs_config_last_reload_successful $1" /run/tbs.prom; }

# refused_reload LINE...: Reload() fails, naming each LINE (substrings of
# the answer); the monitor's event and the metric say so.
refused_reload() {
        local r0 rc line
        r0=$(reloads)
        set +e
        out=$("$TBSCTL" reload 2>&1); rc=$?
        set -e
        echo "$out"
        assert_eq "$rc" 1 "tbsctl reload's exit status"
        for line in "$@"; do
                assert_contains "$out" "$line" "tbsctl reload's answer"
        done
        wait_until 5 reloaded_since "$r0" || fail "no reloaded event: $(cat "$TBS_OUT/monitor.log")"
        assert_contains "$(grep ' reloaded ' "$TBS_OUT/monitor.log" | tail -n 1)" "(with errors)" "the monitor's event"
        wait_until 5 last_reload_ok 0 ||
                fail "metrics: $(grep tbs_config_last_reload_successful /run/tbs.prom)"
        pass "tbs_config_last_reload_successful 0"
}

# kept LINK FILE REFUSAL: the link keeps serving its schedule in force.
kept() {
        local reason
        assert_eq "$(prop "$1" State)" 's "configured"' "$1's State"
        reason=$(prop "$1" StateReason)
        assert_contains "$reason" "the new version of $conf/$2 $3 (" "$1's StateReason"
        assert_contains "$reason" "the previous version stays in force" "$1's StateReason"
        busctl --system call org.tsn.Tbs "/org/tsn/Tbs/link/$1" org.tsn.Tbs.Link GetTxtimeWindow u 0 >/dev/null ||
                fail "GetTxtimeWindow on $1 refused"
        pass "GetTxtimeWindow on $1 answers"
        prop "$1" Statistics >/dev/null || fail "Statistics of $1"
        assert_eq "$("$TBSCTL" --json status "$1" | jq -r .schedule_file)" "$conf/$2" "$1's schedule file"
}

# socket_ok LINK QUEUE: OpenTxtimeSocket hands out a udp4 socket.
socket_ok() {
        local out
        out=$(busctl --system call org.tsn.Tbs "/org/tsn/Tbs/link/$1" org.tsn.Tbs.Link OpenTxtimeSocket \
                'usa{sv}' "$2" udp4 0 2>&1) || fail "OpenTxtimeSocket on $1 queue $2: $out"
        pass "OpenTxtimeSocket on $1 queue $2: $out"
}

# restore LINK: the valid files again; the reload succeeds, the note goes.
restore() {
        good_files
        rm -f "$conf/rn0.json"
        "$TBSCTL" reload || true
        wait_configured "$1"
        wait_until 5 last_reload_ok 1 || fail "a good reload: $(grep tbs_config_last_reload_successful /run/tbs.prom)"
        case "$(prop "$1" StateReason)" in
        *"stays in force"*) fail "$1's StateReason still speaks of the refused version" ;;
        esac
}

lte_sent() { # the launch monitor's probes sent on rr0's queue 0
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/rr0 org.tsn.Tbs.Link \
                LaunchTimeError | jq '[.data[] | select(.[0] == 0) | .[2]][0] // 0'
}
sent_at_least() { [ "$(lte_sent)" -ge "$1" ]; }

example_queues() {
        local before sent
        before=$(handles rr0)
        wait_until 10 sent_at_least 20 || fail "the monitor sent $(lte_sent) probes"
        sent=$(lte_sent)
        write_rr0 300000 '{"count": 5, "offset": 1}'
        # tbsd --check says the same line of the same file.
        mkdir -p "$TMPDIR/check"
        cp "$conf/rr0.json" "$TMPDIR/check/rr0.json"
        line=$("$TBSD" --check --config-dir "$TMPDIR/check" 2>&1 | grep -F 'root.queues[1]: ' |
                sed "s|$TMPDIR/check/|$conf/|") || true
        assert_contains "$line" "but the device has 4 TX queues" "tbsd --check's line"
        refused_reload "$line"
        kept rr0 rr0.json "is refused"
        assert_contains "$(prop rr0 StateReason)" "root.queues[1]: uses" "rr0's StateReason names the path"
        assert_eq "$(handles rr0)" "$before" "rr0's tree unchanged"
        assert_eq "$(etf_delta rr0 100:1)" 200000 "rr0's etf delta (tc)"
        assert_contains "$("$TBSCTL" txtime-params rr0 0)" "200000" "GetTxtimeParams: the delta in force"
        assert_eq "$("$TBSCTL" --json status rr0 | jq -c '[.declared.root.queues[1].count, .declared.txqueues[0].delta_ns]')" \
                '[3,200000]' "status: the schedule in force"
        socket_ok rr0 0
        [ "$(lte_sent)" -ge "$sent" ] || fail "the launch monitor restarted: $(lte_sent) probes sent, $sent before"
        wait_until 5 sent_at_least $((sent + 4)) || fail "the launch monitor stopped at $(lte_sent) probes"
        pass "the launch monitor runs on"
        # Not read again (unchanged since), still refused.
        refused_reload "$line"
        kept rr0 rr0.json "is refused"
        # SIGHUP: the same, and the refusal is logged.
        logged="rr0: failed: the new version of $conf/rr0.json is refused (root.queues[1]: uses queues 1-5"
        n0=$(grep -cF "$logged" "$TBS_OUT/tbsd.log" || true)
        r0=$(reloads)
        kill -HUP "$TBSD_PID"
        wait_until 10 reloaded_since "$r0" || fail "no reload after SIGHUP"
        assert_contains "$(grep ' reloaded ' "$TBS_OUT/monitor.log" | tail -n 1)" "(with errors)" "SIGHUP's event"
        [ "$(grep -cF "$logged" "$TBS_OUT/tbsd.log")" -gt "$n0" ] || fail "SIGHUP did not log the refusal"
        kept rr0 rr0.json "is refused"
        assert_eq "$(handles rr0)" "$before" "rr0's tree unchanged after SIGHUP"
}

cbs_example() { # QUEUE0 QUEUE1 LINE...
        local before q0=$1 q1=$2
        shift 2
        before=$(handles rc0)
        write_cbs "$conf/rc0.json" rc0 "$q0" "$q1"
        refused_reload "$@"
        kept rc0 rc0.json "is refused"
        assert_eq "$(handles rc0)" "$before" "rc0's tree unchanged"
        assert_eq "$(qdisc_at rc0 100:2 | jq -c '[.options.idleslope, .options.offload]')" '[98688,0]' "rc0's queue 1 (tc)"
        assert_eq "$("$TBSCTL" --json status rc0 | jq -c '[.declared.txqueues[0].bandwidth_kbps, .declared.txqueues[0].offload, .declared.txqueues[1].idle_slope_kbps]')" \
                '[20000,false,98688]' "status: the cbs values in force"
        case "$("$TBSCTL" status rc0)" in
        *"requested on"*) fail "tbsctl status shows the refused offload: $("$TBSCTL" status rc0)" ;;
        esac
        socket_ok rc0 2
}
example_idle() {
        cbs_example "$cbs0" '"idle_slope_kbps": 20000000, "send_slope_kbps": -1, "offload": false' \
                "$conf/rc0.json: txqueues[1].idle_slope_kbps: must be at most the link's rate of 10000000 kbit/s, got 20000000"
}
example_sum() {
        cbs_example '"bandwidth_kbps": 6000000, "offload": false' \
                '"idle_slope_kbps": 5000000, "send_slope_kbps": -5000000, "offload": false' \
                "$conf/rc0.json: txqueues: the cbs queues reserve 11000000 kbit/s in all"
}
example_bw() {
        cbs_example '"bandwidth_kbps": 10000000, "offload": false' "$cbs1" \
                "$conf/rc0.json: txqueues[0].bandwidth_kbps: must be below the link's rate of 10000000 kbit/s"
}
example_offload() {
        cbs_example '"bandwidth_kbps": 20000, "offload": true' "$cbs1" \
                "$conf/rc0.json: txqueues[0].offload: cbs offload is not available on queue 0 of this device"
}

example_streams() {
        local before gates
        before=$(handles rs0)
        gates=$(tc_j qdisc show dev rs0 | jq -c '[.[] | select(.root) | .options.schedule]')
        write_streams ', {"name": "big", "traffic_class": 1, "period_ns": 1000000, "max_frame_bytes": 1500, "frames_per_period": 400}'
        refused_reload "$conf/rs0.json: root.streams: " \
                "; the cause is the 3 streams added over the bus (AddStream: x1, x2, x3): the file's own streams fit"
        kept rs0 rs0.json "is refused"
        assert_contains "$(prop rs0 StateReason)" "the cause is the 3 streams added over the bus" "rs0's StateReason"
        assert_eq "$(handles rs0)" "$before" "rs0's tree unchanged"
        assert_eq "$(tc_j qdisc show dev rs0 | jq -c '[.[] | select(.root) | .options.schedule]')" "$gates" \
                "rs0's gate list unchanged"
        assert_eq "$("$TBSCTL" --json status rs0 | jq -c '[.declared.root.streams[].name]')" \
                '["ctrl","bulk","x1","x2","x3"]' "status: the streams in force"
        socket_ok rs0 1
}

example_kernel() {
        local before
        before=$(handles ifb0)
        # Queue 0's new etf is taken, queue 1's refused: rolled back.
        write_ifb 300000 true
        refused_reload "$conf/ifb0.json: txqueue 1 (etf on 100:2): Specified device does not support ETF offload"
        kept ifb0 ifb0.json "was refused by the kernel"
        assert_contains "$(prop ifb0 StateReason)" "previous qdiscs restored" "ifb0's StateReason"
        assert_eq "$(handles ifb0)" "$before" "ifb0's tree as before (rolled back)"
        assert_eq "$(etf_delta ifb0 100:1)" 200000 "ifb0's queue 0 etf (tc)"
        assert_eq "$(etf_delta ifb0 100:2)" 500000 "ifb0's queue 1 etf (tc)"
        assert_eq "$("$TBSCTL" --json status ifb0 | jq -r '.declared.txqueues[1].offload')" false \
                "status: the offload in force"
        socket_ok ifb0 1
}

example_new() {
        cat > "$conf/rn0.json" <<EOJ
{
  "interface": "rn0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 2,
    "priority_map": [1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "queues": [ {"count": 1, "offset": 0}, {"count": 7, "offset": 1} ]
  },
  "txqueues": [ {"queue": 0, "qdisc": "etf", "delta_ns": 200000, "offload": false} ]
}
EOJ
        refused_reload "$conf/rn0.json: root.queues[1]: uses"
        assert_eq "$(prop rn0 State)" 's "failed"' "rn0's State"
        assert_eq "$(tc -j qdisc show dev rn0 | jq -r '.[] | select(.root) | .kind')" noqueue "rn0 untouched"
}

failed=""
for e in queues idle sum bw offload streams kernel new; do
        echo "--- example $e"
        set +e
        ( set -e; "example_$e" )
        rc=$?
        set -e
        if [ "$rc" != 0 ]; then
                failed="$failed $e"
                echo "example $e FAILED"
        fi
        case $e in
        queues) restore rr0 ;;
        streams) restore rs0 ;;
        kernel) restore ifb0 ;;
        new) restore rr0 ;;
        *) restore rc0 ;;
        esac
done
kill -0 "$TBSD_PID" || fail "tbsd died"
[ -z "$failed" ] || fail "examples that did not hold:$failed"
pass "every example held"

# The shipped alert rules (contrib/prometheus/tbsd.rules.yml) over series
# recorded from tbsd itself: one daemon with --metrics-file holds a link in
# each link and clock state at once; the file is copied twice in each
# phase (running; with a refused file and a ptp4l stopped; tbsd stopped),
# tests/unit/recorded-alert-tests.py turns the copies into promtool input
# series, and `promtool test rules` checks that exactly the alerts listed
# for the phase fire: an operator must act on those and on nothing else.
#
#   al0 configured, no clock section (not-configured)    nothing
#   al1 configured, ptp4l grandmaster on a veth (no-phc)  nothing; after ptp4l
#                                                          stops: degraded, no-ptp4l
#   al2 degraded, ptp4l slave-only, port LISTENING (unsynced)
#   al3 degraded, no ptp4l at its socket (no-ptp4l)
#   al4 degraded, drift policy report and an etf deleted by hand
#   al5 absent (the veth deleted), clock section (unsynced: not checked)
#   al6 pending after tbsctl remove, clock section (unsynced: not checked)
#   al7 failed: offload on a veth (device refuses), clock section
#   al8 configured, a monitored etf queue with delta 0: every probe misses
#   al9 failed: an invalid file (the load is unsuccessful)
# The counter alerts (deadline misses, probes dropped) must fire exactly for
# the series whose counter grew between the two copies: al8's queue 1 in
# the running phases (checked), plus whatever else the loaded guest dropped
# (a probe the monitor sent too late is "invalid"). The recorded files are
# kept in $TBS_OUT/alerts (uml-run --keep).
"$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null || fail "cannot set the kernel TAI offset"
conf=$TMPDIR/conf
rec=$TBS_OUT/alerts
mfile=/run/alerts/tbsd.prom
mkdir -p "$conf" "$rec" /run/alerts
for i in 0 1 2 3 4 5 6 7 8 9; do make_veth al$i al${i}p 4; done

with_clock() { # FILE SOCKET
        jq --arg s "$2" '. + {"clock": {"ptp4l_socket": $s, "max_master_offset_ns": 1000000000}}' "$1" > "$1.tmp" &&
                mv "$1.tmp" "$1"
}
for i in 0 1 2 3 4 5 6; do write_mqprio_schedule "$conf/al$i.json" al$i 200000 500000; done
with_clock "$conf/al1.json" /run/ptp4l-al1
with_clock "$conf/al2.json" /run/ptp4l-al2
with_clock "$conf/al3.json" /run/ptp4l-al3
jq '. + {"drift": "report"}' "$conf/al4.json" > "$conf/al4.tmp" && mv "$conf/al4.tmp" "$conf/al4.json"
with_clock "$conf/al5.json" /run/ptp4l-al1
with_clock "$conf/al6.json" /run/ptp4l-al1
cat > "$conf/al8.json" <<EOJ
{
  "interface": "al8",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 5000000, "offload": false},
    {"queue": 1, "qdisc": "etf", "delta_ns": 0, "offload": false,
     "monitor": {"interval_ms": 100, "frames": 2}}
  ]
}
EOJ

ptp4l -i al1 -S -2 --uds_address=/run/ptp4l-al1 >>"$TBS_OUT/ptp4l-al1.log" 2>&1 &
PTP4L1=$!
ptp4l -i al2 -S -2 -s --uds_address=/run/ptp4l-al2 >>"$TBS_OUT/ptp4l-al2.log" 2>&1 &
PTP4L2=$!
start_system_bus
# Checks every second, ptp4l given 0.5 s to answer (0.1 s at 0.2 s made a
# loaded guest flap to no-ptp4l).
start_tbsd "$conf" --clock-interval 1 --stats-interval 0.3 --metrics-file "$mfile"

# file_shows IFACE LINK_STATE CLOCK_STATE: the metrics file says so.
file_shows() {
        grep -qx "tbs_link_state{interface=\"$1\",device=\"$1\",state=\"$2\"} 1" "$mfile" &&
                grep -qx "tbs_clock_state{interface=\"$1\",device=\"$1\",state=\"$3\"} 1" "$mfile"
}
# expect_states IFACE=LINK/CLOCK...: tbsctl status and the metrics file agree on each.
expect_states() {
        local a i l c
        for a in "$@"; do
                i=${a%%=*} l=${a#*=} c=${l#*/} l=${l%/*}
                wait_until 40 file_shows "$i" "$l" "$c" ||
                        fail "$i: expected $l/$c, status: $("$TBSCTL" --json status "$i" | jq -c '[.state, .clock.state, .state_reason]')"
                assert_eq "$("$TBSCTL" --json status "$i" | jq -r '"\(.state)/\(.clock.state)"')" "$l/$c" "$i state/clock"
        done
}
misses() { awk '$1 == "tbs_queue_deadline_misses_total{interface=\"al8\",device=\"al8\",queue=\"1\",qdisc=\"etf\"}" { print $2 }' "$1"; }
grown() { [ "$(misses "$mfile")" -gt "$(misses "$1")" ] 2>/dev/null && [ "$mfile" -nt "$1" ]; }
# record PHASE [stopped]: two copies of the metrics file into $rec/PHASE,
# the second once the file was rewritten and al8's misses grew (with
# "stopped": 2 s later, a span in which nothing may rewrite it), and the
# expectation from stdin.
record() {
        local d=$rec/$1
        mkdir -p "$d"
        copy_file "$d/0.prom" /run/alerts/0.prom
        if [ "${2:-}" = stopped ]; then
                sleep 2
        else
                wait_until 10 grown /run/alerts/0.prom || fail "$1: the metrics file was not rewritten with more misses"
        fi
        copy_file "$d/1.prom" /run/alerts/1.prom
        date -r /run/alerts/0.prom +%s.%N > "$d/mtimes"
        date -r /run/alerts/1.prom +%s.%N >> "$d/mtimes"
        { cat; counter_alerts "$d"; } > "$d/expect"
        if [ "${2:-}" != stopped ]; then
                grep -qx "TbsDeadlineMissesRising device=al8 queue=1" "$d/expect" &&
                        grep -qx "TbsLaunchProbesDropped device=al8 queue=1 reason=missed" "$d/expect" ||
                        fail "$1: al8's queue 1 did not miss: $(cat "$d/expect")"
        fi
        pass "$1 recorded"
}
# copy_file DEST KEEP: the metrics file into KEEP with its modification time
# (cp gives up on a file renamed over while it copies: again then), and
# into DEST. KEEP is on the guest's tmpfs: hostfs ($rec) keeps a set
# modification time in whole seconds only, so two copies of a file
# rewritten within one second would look unchanged.
copy_file() {
        wait_until 5 cp -p "$mfile" "$2" || fail "cannot copy $mfile"
        cp "$2" "$1" || fail "cannot copy $2 to $1"
}
# counter_alerts DIR: the counter alerts due for what grew from 0.prom to 1.prom.
counter_alerts() {
        awk 'FNR == NR { v[$1] = $2; next } ($1 in v) && $2 > v[$1] { print $1 }' "$1/0.prom" "$1/1.prom" |
                sed -nE 's/^tbs_queue_deadline_misses_total\{.*device="([^"]*)",queue="([^"]*)".*/TbsDeadlineMissesRising device=\1 queue=\2/p
s/^tbs_launch_probes_dropped_total\{device="([^"]*)",queue="([^"]*)",reason="([^"]*)"\}$/TbsLaunchProbesDropped device=\1 queue=\2 reason=\3/p'
}

# Phase 1: every file taken.
tc qdisc del dev al4 parent 100:1
ip link del al5
"$TBSCTL" remove al6
expect_states al0=configured/not-configured al1=configured/no-phc al2=degraded/unsynced \
        al3=degraded/no-ptp4l al4=degraded/not-configured al5=absent/unsynced al6=pending/unsynced \
        al8=configured/not-configured
grep -qx 'tbs_config_last_reload_successful 1' "$mfile" || fail "phase 1: the load was not successful"
record 1-running <<EOE
TbsLinkDegraded device=al2
TbsLinkDegraded device=al3
TbsLinkDegraded device=al4
TbsClockNotSynced device=al2
TbsClockNotSynced device=al3
EOE

# Phase 2: a file the device refuses, an invalid file, ptp4l of al1 stopped.
write_mqprio_schedule "$conf/al7.json" al7 200000 500000
jq '.txqueues[0].offload = true' "$conf/al7.json" > "$conf/al7.tmp" && mv "$conf/al7.tmp" "$conf/al7.json"
with_clock "$conf/al7.json" /run/ptp4l-al1
echo '{"interface": "al9", "root": {"qdisc": "mqprio", "num_tc": 99}}' > "$conf/al9.json"
"$TBSCTL" reload >/dev/null 2>&1 || true
"$TBSCTL" remove al6    # the reload installed it again: Remove() lasts until then
kill "$PTP4L1"
wait "$PTP4L1" 2>/dev/null || true
expect_states al1=degraded/no-ptp4l al7=failed/unsynced al9=failed/not-configured al0=configured/not-configured \
        al2=degraded/unsynced al6=pending/unsynced
grep -qx 'tbs_config_last_reload_successful 0' "$mfile" || fail "phase 2: the load was successful"
# The state alerts of phase 2; they stay in phase 3 (node_exporter
# serves the last file).
state_alerts="TbsLinkDegraded device=al1
TbsLinkDegraded device=al2
TbsLinkDegraded device=al3
TbsLinkDegraded device=al4
TbsClockNotSynced device=al1
TbsClockNotSynced device=al2
TbsClockNotSynced device=al3
TbsLinkFailed device=al7
TbsLinkFailed device=al9
TbsConfigReloadFailed"
record 2-refused <<<"$state_alerts"

# Phase 3: tbsd stopped. node_exporter keeps serving the last file: its
# alerts stay (nothing grows any more) and the file is stale.
kill -TERM "$TBSD_PID"
wait "$TBSD_PID" || fail "tbsd exited with $? on SIGTERM"
record 3-stopped stopped <<<"$state_alerts
TbsMetricsFileStale"
kill "$PTP4L2"

rules=$TBS_SOURCE_DIR/contrib/prometheus/tbsd.rules.yml
"$TBS_SOURCE_DIR/tests/unit/recorded-alert-tests.py" "$rules" "$TBS_OUT/recorded.rules.test.yml" "$rec"/*/ ||
        fail "cannot turn the recordings into promtool tests"
promtool test rules "$TBS_OUT/recorded.rules.test.yml" || fail "promtool test rules over the recorded series"
pass "the shipped alert rules fire exactly as expected in every recorded state"

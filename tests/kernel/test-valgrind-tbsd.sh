# tbsd under valgrind for a whole daemon cycle: start on a private system
# bus with one veth schedule, apply it (tc shows the tree), answer status,
# Validate() (good and bad), launch-time monitors (under mqprio and taprio), Apply, Reload (also with
# invalid files), Remove, ApplySchedule/GetSchedule/RemoveSchedule,
# OpenTxtimeSocket (handed out and refused), GetTxtimeWindow and unknown-link
# calls, then SIGTERM. valgrind must report nothing (no
# invalid access, no use of uninitialised memory, no definite or indirect
# leak) and tbsd must exit 0.
VG_LOG=$TBS_OUT/valgrind-tbsd.log

make_veth tbs0 tbs0p 4
make_veth fh0 fh0p 2
modprobe -d /run/modroot sch_htb
tc qdisc add dev fh0 root handle 1: htb    # not tbsd's; fh0's schedule does not fit the device
conf=$TMPDIR/conf
mkdir -p "$conf"
write_mqprio_schedule "$conf/tbs0.json" tbs0 200000 500000
write_mqprio_schedule "$conf/fh0.json" fh0 200000 500000
# reload_with_fh0 WHAT: tbsctl reload, whose answer names fh0's file, which
# the device check refuses at every reload (4 queues on 2), and no other.
reload_with_fh0() {
        local out rc=0
        out=$("$TBSCTL" reload 2>&1) || rc=$?
        [ "$rc" = 1 ] && [ "$(grep -c . <<<"$out")" = 1 ] && grep -q "/fh0.json: root.queues" <<<"$out" ||
                fail "$1: expected exit 1 naming fh0.json alone, got exit $rc: $out"
}
# A launch-time monitor under a software taprio root all along: its probes
# aimed at class 1's gate window, from the link's view of the kernel's root.
make_veth tq1 tq1p 4
cat > "$conf/tq1.json" <<EOJ
{
  "interface": "tq1",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 2, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 1, "offset": 2},
                {"count": 1, "offset": 3} ],
    "mode": "software", "base_time_ns": 0,
    "entries": [ {"gate_mask": "0x9", "interval_ns": 400000}, {"gate_mask": "0xa", "interval_ns": 300000},
                 {"gate_mask": "0xc", "interval_ns": 300000} ]
  },
  "txqueues": [ {"queue": 1, "delta_ns": 50000000, "offload": false, "monitor": {"interval_ms": 100, "frames": 4}} ],
  "allow": ["delta-cycle"]
}
EOJ
start_system_bus

valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
        --errors-for-leak-kinds=definite,indirect --track-origins=yes --log-file="$VG_LOG" \
        "$TBSD" --config-dir "$conf" --state-dir "$TMPDIR/state" >>"$TBS_OUT/tbsd.log" 2>&1 &
vg_pid=$!
show_logs() {
        echo "---- tbsd.log"; cat "$TBS_OUT/tbsd.log"
        echo "---- valgrind log"; cat "$VG_LOG"
}
wait_until 90 busctl --system get-property org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Version ||
        { show_logs; fail "tbsd under valgrind did not appear on the bus"; }
pass "tbsd under valgrind answers on the bus"

wait_until 60 sh -c "\"$TBSCTL\" --json status tbs0 | jq -e '.state == \"configured\"'" ||
        { show_logs; fail "tbs0 not configured: $("$TBSCTL" status tbs0 2>&1)"; }
assert_eq "$(qdisc_at tbs0 root | jq -r .kind)" mqprio "root qdisc installed by tbsd under valgrind"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 200000 "etf on queue 0"

out=$("$TBSCTL" status tbs0)
assert_contains "$out" "tbs0" "tbsctl status"
"$TBSCTL" --json status >/dev/null || fail "tbsctl --json status"
"$TBSCTL" clock tbs0 >/dev/null || true      # no ptp4l here: only the call path matters
"$TBSCTL" stats tbs0 >/dev/null || fail "tbsctl stats"
# The launch-time monitor on queue 0: probe rounds, error queue reports,
# LaunchTimeError and Describe(); the reload further down stops it.
jq '.txqueues[0].monitor = {"interval_ms": 100, "frames": 8}' "$conf/tbs0.json" > "$conf/tbs0.tmp" &&
        mv "$conf/tbs0.tmp" "$conf/tbs0.json"
reload_with_fh0 "tbsctl reload with a monitor"
stamped() {
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link \
                LaunchTimeError | jq -e '.data[0][6] >= 16'
}
wait_until 60 stamped || { show_logs; fail "the monitor stamped no 16 probes under valgrind"; }
gated() {
        busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/tq1 org.tsn.Tbs.Link \
                LaunchTimeError | jq -e '.data[0][6] >= 16'
}
wait_until 60 gated || { show_logs; fail "the monitor under taprio stamped no 16 probes under valgrind"; }
assert_eq "$(busctl --system --json=short get-property org.tsn.Tbs /org/tsn/Tbs/link/tq1 org.tsn.Tbs.Link \
        LaunchTimeError | jq -c '.data[0] | [.[0], .[4]]')" "[1,0]" "the monitor under taprio: queue 1, none invalid"
assert_eq "$("$TBSCTL" --json status tbs0 | jq -r '.txqueues[0].monitor.source')" software "monitor under valgrind"
"$TBSCTL" apply tbs0 || fail "tbsctl apply"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s \
        "$(cat "$conf/tbs0.json")")
assert_contains "$out" "true" "Validate() of the schedule"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s \
        '{"interface": "a/b", "root": {"qdisc": "cbs"}, "txqueues": [{"queue": 99}]')
assert_contains "$out" "false" "Validate() of a bad schedule"
set +e
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager GetLink s nope 2>&1)
set -e
assert_contains "$out" "nope" "GetLink of an unknown link is refused"
# The bus filter's answers and the refusal log (more refusals than its burst,
# so some are counted and summed up at exit).
set +e
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/nope org.tsn.Tbs.Link Describe 2>&1)
assert_contains "$out" "no link named 'nope'" "Describe of an unknown link"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link GetTxtimeParams s x 2>&1)
assert_contains "$out" "takes arguments of type 'u'" "GetTxtimeParams with a string"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link GetTxtimeParams u 3 2>&1)
assert_contains "$out" "no etf qdisc is declared on TX queue 3" "GetTxtimeParams of a queue without etf"
# Sockets for applications: handed out (packet with time stamps, udp4), refused
# for its options and its caller (one more refusal of uid 65534); a window.
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} \
        0 packet 2 protocol q 34997 tx_timestamps b true 2>&1)
assert_contains "$out" "huiuu" "OpenTxtimeSocket (packet)"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} \
        4294967295 udp4 1 priority u 3 2>&1)
assert_contains "$out" "huiuu" "OpenTxtimeSocket (udp4, by priority)"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} \
        0 udp4 1 "colour$(printf '\t')" s red 2>&1)
assert_contains "$out" "unknown option 'colour\\t'" "OpenTxtimeSocket with an unknown option"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} \
        3 raw 0 2>&1)
assert_contains "$out" "unknown socket kind 'raw'" "OpenTxtimeSocket of an unknown kind"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 \
        org.tsn.Tbs.Link OpenTxtimeSocket usa{sv} 0 udp4 0 2>&1)
assert_contains "$out" "OpenTxtimeSocket on tbs0 is privileged" "OpenTxtimeSocket of a user without a group"
out=$(busctl --system call org.tsn.Tbs /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link GetTxtimeWindow u 0 2>&1)
assert_eq "$out" "tta(tt) 0 0 0" "GetTxtimeWindow of an mqprio root"
for i in 1 2 3 4 5 6 7 8; do
        setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.tsn.Tbs \
                /org/tsn/Tbs/link/tbs0 org.tsn.Tbs.Link Apply >/dev/null 2>&1
done
set -e
write_mqprio_schedule "$conf/tbs0.json" tbs0 250000 500000
reload_with_fh0 "tbsctl reload"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 250000 "Reload() applied the new delta"

# Invalid files: tbs0's cut short (kept as it is), one whose interface
# cannot be read, one for a new interface (a failed link); then all fixed.
cp "$conf/tbs0.json" "$TMPDIR/tbs0.good"
head -c 100 "$TMPDIR/tbs0.good" > "$conf/tbs0.json"
: > "$conf/empty.json"
echo '{"interface": "tbs1", "root": 5}' > "$conf/tbs1.json"
set +e
out=$("$TBSCTL" reload 2>&1); rc=$?
set -e
assert_eq "$rc" 1 "Reload() with invalid files fails"
assert_eq "$(grep "$conf/" <<<"$out" | grep -vc /fh0.json)" 3 "a line per invalid file"
assert_eq "$(qdisc_at tbs0 100:1 | jq -r .options.delta)" 250000 "tbs0 kept as it was"
assert_contains "$("$TBSCTL" --json status tbs0 | jq -r .state_reason)" "the previous version stays in force" \
        "tbs0's StateReason"
cp "$TMPDIR/tbs0.good" "$conf/tbs0.json"
rm "$conf/empty.json" "$conf/tbs1.json"
reload_with_fh0 "tbsctl reload after the fix"
assert_eq "$(link_state tbs0)" configured "tbs0 configured after the fix"

# Remove() of a foreign root, and of the tree of a schedule replaced by one
# that did not fit the device (offload on a veth), through tbsd --remove.
"$TBSCTL" remove fh0 >/dev/null 2>&1 && fail "tbsctl remove of a foreign root succeeded"
assert_eq "$(qdisc_at fh0 root | jq -r .kind)" htb "foreign root left in place"
jq '.txqueues[0].offload = true' "$conf/tbs0.json" > "$conf/tbs0.tmp" && mv "$conf/tbs0.tmp" "$conf/tbs0.json"
"$TBSCTL" reload >/dev/null 2>&1 || true
assert_eq "$("$TBSD" --remove tbs0 --config-dir "$conf")" "tbs0: removed by the running tbsd" "tbsd --remove"
assert_eq "$(qdisc_at tbs0 root | jq -r .kind)" noqueue "tree removed"
# Installed again with a monitor running when tbsd stops.
jq '.txqueues[0].monitor = {"interval_ms": 100, "frames": 2}' "$TMPDIR/tbs0.good" > "$conf/tbs0.json"
reload_with_fh0 "tbsctl reload with the monitor again"
wait_until 60 stamped || { show_logs; fail "the monitor did not run again under valgrind"; }

# Schedules over the bus (issue 40): applied, read back, refused, removed.
make_veth vs0 vs0p 4
write_mqprio_schedule "$TMPDIR/vs0.json" vs0 200000 500000
mgr() { busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager "$@"; }
assert_eq "$(mgr ApplySchedule sss vs0 "$(cat "$TMPDIR/vs0.json")" netconf)" "bas true 0" "ApplySchedule(vs0)"
assert_eq "$(etf_delta vs0 100:1)" 200000 "vs0's etf (tc)"
assert_contains "$(mgr GetSchedule s vs0)" "netconf" "GetSchedule(vs0)"
assert_contains "$("$TBSCTL" status vs0)" "Origin: netconf" "tbsctl status vs0"
mgr ApplySchedule sss vs0 "$(sed 's/"delta_ns": 200000/"delta_ns": -1/' "$TMPDIR/vs0.json")" netconf >/dev/null 2>&1 &&
        fail "a bad document was applied"
mgr RemoveSchedule ss vs0 netconf
assert_eq "$(qdisc_at vs0 root | jq -r .kind)" noqueue "vs0's tree removed"

kill -TERM "$vg_pid"
set +e
wait "$vg_pid"; rc=$?
set -e
# valgrind 3.19 has no wrapper for SIOCGHWTSTAMP (0x89b1, the launch
# monitor asks it before each round) and says so; it fills a zeroed
# struct, so nothing else can come of it. Everything else counts.
vg_findings=$(grep -v -e 'noted but unhandled ioctl 0x89b1 with no size/direction hints' \
        -e 'This could cause spurious value errors to appear' \
        -e 'See README_MISSING_SYSCALL_OR_IOCTL for guidance' "$VG_LOG" || true)
if [ "$rc" != 0 ] || [ -n "$vg_findings" ]; then
        show_logs
        fail "tbsd under valgrind exited with $rc (99: valgrind found errors)"
fi
pass "tbsd start/apply/stop cycle is valgrind clean"
# 9 refusals of uid 65534 (OpenTxtimeSocket, then 8 Apply): 5 logged, 4
# summed up (at the window's end or at exit); a slow valgrind run may span
# two 10 s windows, so count rather than expect the split.
denied=$(grep -c "denied \(Apply\|OpenTxtimeSocket on tbs0\) to uid 65534" "$TBS_OUT/tbsd.log" || true)
summed=$(sed -n 's/.*suppressed \([0-9]*\) more refusals\{0,1\} from uid 65534.*/\1/p' "$TBS_OUT/tbsd.log" |
        awk '{ s += $1 } END { print s + 0 }')
[ "$denied" -ge 5 ] && [ $((denied + summed)) = 9 ] ||
        { show_logs; fail "9 refusals: $denied logged, $summed summed up"; }
pass "9 refusals: $denied logged, $summed summed up"

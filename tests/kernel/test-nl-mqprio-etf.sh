# The netlink engine through `tbsd --once`, with `tc -j -s qdisc show` as the
# oracle: an mqprio root with etf children installs field for field; a
# second run changes nothing (same handles); changing one delta replaces
# only that child; dropping an etf queue puts the default child back;
# `tbsd --remove` restores the default root.
make_veth va vb 4
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

write_schedule() { # DELTA0 DELTA1 [WITH_QUEUE1=1]
        local q1=''
        if [ "${3:-1}" = 1 ]; then
                q1=', {"queue": 1, "qdisc": "tbs", "delta_ns": '"$2"', "offload": false,
                       "deadline_mode": true, "skip_sock_check": true}'
        fi
        cat > "$conf/va.json" <<EOS
{
  "interface": "va",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2}],
    "hw_offload": false
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "clockid": "CLOCK_TAI", "delta_ns": $1, "offload": "auto",
     "deadline_mode": false, "skip_sock_check": false}$q1
  ]
}
EOS
}

handles() { qdisc_json va | jq -c '[.[] | {kind, handle, parent}] | sort_by(.parent)'; }

write_schedule 300000 500000
out=$("$TBSD" --once --config-dir "$conf" || true)
assert_eq "$out" "va: applied" "first --once"

root=$(qdisc_at va root)
assert_eq "$(jq -r .kind <<<"$root")" mqprio "root kind"
assert_eq "$(jq -r .handle <<<"$root")" "100:" "root handle"
assert_eq "$(jq -c .options.tc <<<"$root")" 3 "num_tc"
assert_eq "$(jq -c .options.map <<<"$root")" "[2,2,1,0,2,2,2,2,2,2,2,2,2,2,2,2]" "priority map"
assert_eq "$(jq -c .options.queues <<<"$root")" "[[0,0],[1,1],[2,3]]" "queues"

q0=$(qdisc_at va 100:1)
assert_eq "$(jq -r .kind <<<"$q0")" etf "queue 0 kind"
assert_eq "$(jq -r .options.clockid <<<"$q0")" TAI "queue 0 clockid"
assert_eq "$(jq -r .options.delta <<<"$q0")" 300000 "queue 0 delta"
# auto on veth: the probe knows veth has no launch time, so software.
assert_eq "$(jq -r .options.offload <<<"$q0")" off "queue 0 offload"
assert_eq "$(jq -r .options.deadline_mode <<<"$q0")" off "queue 0 deadline_mode"
assert_eq "$(jq -r .options.skip_sock_check <<<"$q0")" off "queue 0 skip_sock_check"

q1=$(qdisc_at va 100:2)
assert_eq "$(jq -r .kind <<<"$q1")" etf "queue 1 kind (tbs alias)"
assert_eq "$(jq -r .options.delta <<<"$q1")" 500000 "queue 1 delta"
assert_eq "$(jq -r .options.offload <<<"$q1")" off "queue 1 offload"
assert_eq "$(jq -r .options.deadline_mode <<<"$q1")" on "queue 1 deadline_mode"
assert_eq "$(jq -r .options.skip_sock_check <<<"$q1")" on "queue 1 skip_sock_check"
# The kernel's default for a queue (net.core.default_qdisc): pfifo_fast in
# the user-mode-linux 6.1, fq_codel in Debian's amd64 kernels (6.1 and 6.12).
dflt=$(cat /proc/sys/net/core/default_qdisc)
assert_eq "$(qdisc_at va 100:3 | jq -r .kind)" "$dflt" "queue 2 keeps the default"

# Second run: nothing is sent, nothing re-created.
before=$(handles)
out=$("$TBSD" --once --config-dir "$conf" || true)
assert_eq "$out" "va: unchanged" "second --once"
assert_eq "$(handles)" "$before" "handles after the second run"

# One delta changes: only that child is replaced.
h_root=$(qdisc_at va root | jq -r .handle)
h0=$(qdisc_at va 100:1 | jq -r .handle)
h1=$(qdisc_at va 100:2 | jq -r .handle)
write_schedule 300000 600000
out=$("$TBSD" --once --config-dir "$conf" || true)
assert_eq "$out" "va: applied" "--once after changing queue 1's delta"
assert_eq "$(qdisc_at va root | jq -r .handle)" "$h_root" "root handle unchanged"
assert_eq "$(qdisc_at va 100:1 | jq -r .handle)" "$h0" "queue 0 handle unchanged"
new_h1=$(qdisc_at va 100:2 | jq -r .handle)
[ "$new_h1" != "$h1" ] || fail "queue 1 was not replaced (handle $h1)"
pass "queue 1 replaced ($h1 -> $new_h1)"
assert_eq "$(qdisc_at va 100:2 | jq -r .options.delta)" 600000 "queue 1 new delta"
assert_eq "$(qdisc_at va 100:2 | jq -r .options.deadline_mode)" on "queue 1 deadline_mode kept"

# Queue 1 no longer declared: it gets the default child back.
write_schedule 300000 600000 0
out=$("$TBSD" --once --config-dir "$conf" || true)
assert_eq "$out" "va: applied" "--once after dropping queue 1"
assert_eq "$(qdisc_at va 100:2 | jq -r .kind)" "$dflt" "queue 1 default child"
assert_eq "$(qdisc_at va 100:1 | jq -r .handle)" "$h0" "queue 0 still untouched"
out=$("$TBSD" --once --config-dir "$conf" || true)
assert_eq "$out" "va: unchanged" "--once again"

# Remove: the default root comes back.
out=$("$TBSD" --remove va --config-dir "$conf")
assert_eq "$out" "va: removed" "--remove"
assert_eq "$(qdisc_at va root | jq -r .kind)" noqueue "default root kind"
assert_eq "$(qdisc_at va root | jq -r .handle)" "0:" "default root handle"
assert_eq "$(qdisc_json va | jq length)" 1 "nothing but the default root"
out=$("$TBSD" --remove va --config-dir "$conf")
assert_eq "$out" "va: unchanged" "--remove again"

# The scenarios of the kernel's SO_TXTIME selftest
# (tools/testing/selftests/net/so_txtime.{c,sh}) through etf qdiscs that
# tbsd installed, with tests/tools/txtime-scenario at both ends: one-byte
# UDP datagrams with launch times from so0 to a peer namespace.
#
# The selftest puts a root etf (clockid CLOCK_TAI, delta 400 us) on its
# device. The test runs twice in one guest: first through etf qdiscs on TX
# queues under an mqprio root (MODE mqprio: socket priorities 1, 2 and 3
# reach them), then through a root etf on a one-queue veth as the selftest
# has it (MODE root-etf), which tbsd re-installs for each phase.
#
# Times are the selftest's stretched by SCALE (2 x the timeout factor,
# rounded up): its "a,10" (10 ms) is 20 ms on an idle machine, 60 ms at
# factor 3; delta is 5 ms x the factor (the selftest's 400 us), the
# arrival bound 4 ms x the factor. The guest's timers fire late on a loaded
# machine: with the selftest's times and a delta of 400 us or 2 ms, etf
# dequeued a datagram after its launch time and dropped it (missed) in two
# runs of three at load 6 on 2 cores.
#
# The phases: plain (delta DELTA_US), deadline (the same in deadline
# mode), late (delta 0: every datagram misses its launch time there, as
# etf may dequeue it only when now > txtime - delta and drops it when
# txtime < now). Under mqprio they are queues 0, 1 and 2; queue 3
# (priority 0, ARP) has none.
#
# What is asserted is what the selftest asserts: which datagrams arrive,
# in which order, and when (within the selftest's 4 ms of the launch time,
# times the test's timeout factor, and never earlier than etf may send:
# launch time - delta), and, from the sender's error queue, which were
# dropped and why (SO_EE_CODE_TXTIME_INVALID_PARAM at enqueue, _MISSED at
# dequeue). Arrival times are the kernel's receive stamps, against the
# sender's own start carried in each datagram. IPv4 only: the test kernel
# has no IPv6. The selftest's CLOCK_MONOTONIC scenarios run through fq, a
# qdisc tbsd does not install; here a CLOCK_MONOTONIC socket meets the etf
# and is refused, as etf refuses any clock but its own.
SCEN=$TBS_BUILD_DIR/tests/tools/txtime-scenario
FACTOR=${TBS_TEST_TIMEOUT_FACTOR:-1}
VARIANCE_US=$(awk -v f="$FACTOR" 'BEGIN { printf "%d", 4000 * f }')
DELTA_US=$(awk -v f="$FACTOR" 'BEGIN { printf "%d", 5000 * f }')
SCALE=$(awk -v f="$FACTOR" 'BEGIN { s = 2 * f; printf "%d", (s == int(s)) ? s : int(s) + 1 }')

# scaled SPEC: the launch times of SPEC ("a,10,b,20", ms) times SCALE (-1 stays).
scaled() {
        tr ',' '\n' <<<"$1" | awk -v s="$SCALE" 'NR % 2 == 0 && $1 >= 0 { $1 = $1 * s } { print }' | paste -sd,
}

conf=$TMPDIR/so-conf

# setup: so0 (4 TX queues, or 1 for a root etf) to so1 in the namespace
# peer, no schedule yet.
setup() {
        ip link del so0 2>/dev/null || true
        ip netns del peer 2>/dev/null || true
        rm -rf "$conf"
        mkdir -p "$conf"
        make_veth_to_peer so0 so1 "$([ "$MODE" = root-etf ] && echo 1 || echo 4)"
        ip neigh replace 192.0.2.2 lladdr "$(ip -n peer -j link show so1 | jq -r '.[0].address')" dev so0 nud permanent
}

# install PHASE: the etf of PHASE (plain: delta DELTA_US; deadline: the
# same in deadline mode; late: delta 0) in place through tbsd --once, as
# tc sees it; sets PRIO (the socket priority that reaches it) and PARENT
# (its place in tc's dump).
install() {
        local delta=$((DELTA_US * 1000)) deadline=false
        case $1 in
        deadline) deadline=true ;;
        late) delta=0 ;;
        esac
        if [ "$MODE" = root-etf ]; then
                PRIO=0 PARENT=root
                cat > "$conf/so0.json" <<EOJ
{"interface": "so0", "allow": ["ptp-etf"],
 "root": {"qdisc": "etf", "handle": "100:", "delta_ns": $delta, "offload": false, "deadline_mode": $deadline}}
EOJ
                assert_eq "$(once)" "so0: applied" "$1: tbsd --once installs the root etf"
        else
                case $1 in
                plain) PRIO=1 PARENT=100:1 ;;
                deadline) PRIO=2 PARENT=100:2 ;;
                late) PRIO=3 PARENT=100:3 ;;
                esac
                if [ ! -e "$conf/so0.json" ]; then
                        cat > "$conf/so0.json" <<EOJ
{
  "interface": "so0",
  "root": {
    "qdisc": "mqprio", "handle": "100:", "num_tc": 4,
    "priority_map": [3, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1},
               {"count": 1, "offset": 2}, {"count": 1, "offset": 3}]
  },
  "txqueues": [
    {"queue": 0, "delta_ns": $((DELTA_US * 1000)), "offload": false},
    {"queue": 1, "delta_ns": $((DELTA_US * 1000)), "offload": false, "deadline_mode": true},
    {"queue": 2, "delta_ns": 0, "offload": false}
  ]
}
EOJ
                        assert_eq "$(once)" "so0: applied" "tbsd --once installs the etf queues"
                fi
        fi
        # tc is the oracle for what tbsd installed.
        assert_eq "$(etf_at | jq -c '[.kind, .options.clockid, .options.delta, .options.deadline_mode]')" \
                "[\"etf\",\"TAI\",$delta,\"$([ "$deadline" = true ] && echo on || echo off)\"]" \
                "$1: the etf at $PARENT as tc sees it"
}

# once: tbsd --once on the schedule; its line (what it logs goes to once.err).
once() {
        "$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/once.err" || true
}

# etf_at: the etf at PARENT, with its statistics (tc -s).
etf_at() {
        if [ "$PARENT" = root ]; then
                tc -j -s qdisc show dev so0 | jq -c '.[] | select(.root == true)'
        else
                tc -j -s qdisc show dev so0 | jq -c --arg p "$PARENT" '.[] | select(.parent == $p)'
        fi
}

# drops WANT WHAT: tc -s agrees with the error queue: etf counts every
# refused or missed datagram in drops, the missed ones in overlimits too
# (WANT: "drops/overlimits").
drops() {
        assert_eq "$(etf_at | jq -r '"\(.drops)/\(.overlimits)"')" "$1" "$2: the etf's drops/overlimits"
}

# scenario NAME SPEC EXPECT_COUNT CLOCK [SEND OPTIONS...]: runs one
# scenario at priority PRIO; leaves the receiver's JSON in RECV and the
# sender's in SENT.
scenario() {
        local name=$1 spec count=$3 clock=$4 last_ms timeout_ms
        spec=$(scaled "$2")
        shift 4
        last_ms=$(tr ',' '\n' <<<"$spec" | awk 'NR % 2 == 0 && $1 > m { m = $1 } END { print m + 0 }')
        # The receiver stops at the sender's end mark (sent after the last
        # launch time); the timeout only keeps a broken run from hanging.
        timeout_ms=$(awk -v l="$last_ms" -v f="$FACTOR" 'BEGIN { printf "%d", l + 10000 * f }')
        rm -f "$TMPDIR/recv.err"
        ip netns exec peer "$SCEN" recv --clock "$clock" 192.0.2.2 8000 "$count" "$timeout_ms" \
                > "$TMPDIR/recv.json" 2> "$TMPDIR/recv.err" &
        local rpid=$!
        wait_until 5 grep -q listening "$TMPDIR/recv.err" || fail "$name: the receiver did not start"
        SENT=$("$SCEN" send --priority "$PRIO" --clock "$clock" "$@" 192.0.2.2 8000 "$spec") || fail "$name: the sender failed"
        # The sender returns after the last launch time: the end mark, sent
        # inside the peer, tells the receiver nothing more is coming.
        ip netns exec peer "$SCEN" mark 192.0.2.2 8000 || fail "$name: the end mark"
        wait "$rpid" || fail "$name: the receiver failed: $(cat "$TMPDIR/recv.err")"
        RECV=$(cat "$TMPDIR/recv.json")
        echo "$name: sent $spec, received $RECV, sender's reports $SENT"
}

# arrived WHAT SPEC: the datagrams arrived in the order of SPEC
# ("b,10,a,20": letter, launch time in ms), each within the variance of its
# launch time and not before launch time - delta.
arrived() {
        local what=$1 want_order got_order n i p want_us got_us
        local spec
        spec=$(scaled "$2")
        want_order=$(tr ',' '\n' <<<"$spec" | awk 'NR % 2 == 1' | tr -d '\n')
        got_order=$(jq -r '[.received[].payload] | join("")' <<<"$RECV")
        assert_eq "$got_order" "$want_order" "$what: payloads in arrival order"
        n=${#want_order}
        for ((i = 0; i < n; i++)); do
                p=${want_order:i:1}
                want_us=$(( $(tr ',' '\n' <<<"$spec" | sed -n "$((2 * i + 2))p") * 1000 ))
                got_us=$(jq -r --argjson i "$i" '.received[$i].delay_us' <<<"$RECV")
                [ "$got_us" -ge $((want_us - DELTA_US - 100)) ] ||
                        fail "$what: $p arrived at $got_us us, before its launch time $want_us us - delta"
                [ "$got_us" -le $((want_us + VARIANCE_US)) ] ||
                        fail "$what: $p arrived at $got_us us, more than $VARIANCE_US us after $want_us us"
                pass "$what: $p arrived at $got_us us (launch time $want_us us)"
        done
}

# reports WHAT JSON: the sender's error queue reports, [[payload, reason]...].
reports() {
        assert_eq "$(jq -c '[.errors[] | [.payload, .reason]]' <<<"$SENT")" "$2" "$1: the sender's error queue"
}

# phases: every scenario, phase by phase, through the etf of MODE.
phases() {
        # --- CLOCK_TAI through the plain etf (the selftest's etf scenarios) ---
        install plain
        # a,-1: no launch time. etf takes only datagrams with one (the selftest
        # expects the receiver to see nothing).
        scenario "tai a,-1" "a,-1" 1 tai
        assert_eq "$(jq -c .received <<<"$RECV")" "[]" "tai a,-1: nothing arrives"
        reports "tai a,-1" '[["a","invalid"]]'
        # a,0: launch time = the start, already past when etf sees it.
        scenario "tai a,0" "a,0" 1 tai
        assert_eq "$(jq -c .received <<<"$RECV")" "[]" "tai a,0: nothing arrives"
        reports "tai a,0" '[["a","invalid"]]'
        assert_eq "$(jq -c '[.errors[].txtime_ms]' <<<"$SENT")" "[0]" "tai a,0: the report carries the launch time"
        scenario "tai a,10" "a,10" 1 tai
        arrived "tai a,10" "a,10"
        reports "tai a,10" '[]'
        scenario "tai a,10,b,20" "a,10,b,20" 2 tai
        arrived "tai a,10,b,20" "a,10,b,20"
        reports "tai a,10,b,20" '[]'
        # Out of order: etf sends in launch time order.
        scenario "tai a,20,b,10" "a,20,b,10" 2 tai
        arrived "tai a,20,b,10" "b,10,a,20"
        reports "tai a,20,b,10" '[]'

        # --- CLOCK_MONOTONIC at the etf: refused, etf takes only its own clock ---
        scenario "mono a,10" "a,10" 1 mono
        assert_eq "$(jq -c .received <<<"$RECV")" "[]" "mono a,10: nothing arrives"
        reports "mono a,10" '[["a","invalid"]]'
        drops 3/0 "plain"

        # --- deadline mode: sent as soon as possible, before the deadline ---
        install deadline
        # before_deadlines WHAT: every datagram of RECV arrived before its deadline
        # (scaled spec in $2).
        before_deadlines() {
                local spec n i got_us deadline_us
                spec=$(scaled "$2")
                n=$(jq '.received | length' <<<"$RECV")
                for ((i = 0; i < n; i++)); do
                        got_us=$(jq -r --argjson i "$i" '.received[$i].delay_us' <<<"$RECV")
                        deadline_us=$(( $(tr ',' '\n' <<<"$spec" | sed -n "$((2 * i + 2))p") * 1000 ))
                        [ "$got_us" -lt "$deadline_us" ] || fail "$1: datagram $i arrived at $got_us us, after its deadline $deadline_us us"
                        pass "$1: datagram $i arrived at $got_us us, before its deadline $deadline_us us"
                done
        }
        scenario "deadline a,10,b,20" "a,10,b,20" 2 tai --deadline
        assert_eq "$(jq -r '[.received[].payload] | join("")' <<<"$RECV")" "ab" "deadline a,10,b,20: both arrive"
        before_deadlines "deadline a,10,b,20" "a,10,b,20"
        reports "deadline a,10,b,20" '[]'
        # Out of order: etf sends a at once (it holds nothing back in deadline
        # mode), and then refuses b, whose deadline lies before one already sent.
        scenario "deadline a,20,b,10" "a,20,b,10" 1 tai --deadline
        assert_eq "$(jq -r '[.received[].payload] | join("")' <<<"$RECV")" "a" "deadline a,20,b,10: a arrives"
        before_deadlines "deadline a,20,b,10" "a,20"
        reports "deadline a,20,b,10" '[["b","invalid"]]'
        # A socket without deadline mode at a deadline-mode etf: refused.
        scenario "deadline mismatch a,10" "a,10" 1 tai
        assert_eq "$(jq -c .received <<<"$RECV")" "[]" "deadline mismatch a,10: nothing arrives"
        reports "deadline mismatch a,10" '[["a","invalid"]]'
        drops 2/0 "deadline"

        # --- late datagrams (delta 0): dropped at dequeue, reported missed ---
        install late
        scenario "late a,10,b,20" "a,10,b,20" 2 tai
        assert_eq "$(jq -c .received <<<"$RECV")" "[]" "late a,10,b,20: nothing arrives"
        reports "late a,10,b,20" '[["a","missed"],["b","missed"]]'
        assert_eq "$(jq -c '[.errors[].txtime_ms]' <<<"$SENT")" "[$((10 * SCALE)),$((20 * SCALE))]" "late a,10,b,20: the reports carry the launch times"

        drops 2/2 "late"
        assert_eq "$(once)" "so0: unchanged" "the tree is still tbsd's"
}

# A guest that stalls longer than delta drops a datagram as missed, one
# that stalls past the arrival bound fails it late: on a loaded machine a
# mode gets three attempts, each from a fresh device (its counters from
# zero). A fault that does not depend on timing fails all three.
for MODE in mqprio root-etf; do
        for attempt in 1 2 3; do
                echo "=== through $([ "$MODE" = root-etf ] && echo "a root etf" || echo "etf queues under mqprio"), attempt $attempt"
                setup
                set +e
                (set -e; phases)
                rc=$?
                set -e
                [ "$rc" -ne 0 ] || break
                [ "$attempt" -lt 3 ] || fail "$MODE: failed in 3 attempts (the last failure is above)"
                echo "--- $MODE: attempt $attempt failed; once more from a fresh device"
        done
done

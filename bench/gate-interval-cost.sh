#!/bin/bash
# What a software taprio's gate intervals cost the CPU (issue 38 point 2d:
# the "software-gate-interval" safety check's floor of 100 us), measured in
# the test kernel (Linux 6.1, user-mode-linux, veth). Not a test; a
# measurement for BENCHMARKS.md ("Software gate intervals").
#
#   bench/gate-interval-cost.sh [--runs N] [--timeout S] [CELL...]
#
# CELL: none (veth's default qdisc), or the length in ns of every entry of
# a two-entry software taprio (gate masks 0x1 and 0x2, installed by
# `tbsd --once` from a file that allows "software-gate-interval"), or detd
# (detd's 20 ms software gate list: 250000, 12176 and 19737824 ns). Default:
# none 1000000 100000 50000 12176 detd; N runs of each (default 3), in
# turns. Each run boots its own guest (tests/kernel/uml-run --timeout S,
# default 120, scaled by TBS_TEST_TIMEOUT_FACTOR), so that a guest the
# timers stall is cut off and counted as such without losing the others.
# In the guest, with the schedule installed on va (4 TX queues; its peer
# in a network namespace):
#   idle   the share of the CPU the guest spends outside its idle task over
#          2 s without traffic (/proc/stat), and how long those 2 s of
#          `sleep 2` really took;
#   work   the time of a fixed piece of work (20 `ip link show lo`) while
#          UDP datagrams of 1000 bytes (priority 0: traffic class 0, at
#          most one a millisecond, from a bash loop) cross the taprio to a
#          sink on the peer (tests/tools/udp-stream recv), and how many of
#          those sent left va (its tx_packets). Each part is bounded by
#          `timeout` (30 s); a part cut off is printed as such.
# Needs a build (TBS_BUILD_DIR, default ./build) with tbsd and
# tests/tools/udp-stream.
set -u

guest() {
        local cell=$1 conf=$TMPDIR/gates.d entries s0 s1 t0 t1 rc tx0 tx1 sink
        make_veth_to_peer va vb 4
        # A sink for the datagrams (no ICMP "port unreachable" back), bound
        # before the schedule slows the guest down; port 9000 = 0x2328.
        ip netns exec peer "$TBS_BUILD_DIR/tests/tools/udp-stream" recv 9000 1000000 3600000 >/dev/null &
        sink=$!
        wait_until 10 ip netns exec peer grep -q ':2328 ' /proc/net/udp || fail "the sink did not bind"
        case "$cell" in
        none) entries= ;;
        detd) entries='{"gate_mask": "0x1", "interval_ns": 250000}, {"gate_mask": "0x2", "interval_ns": 12176},
                       {"gate_mask": "0x1", "interval_ns": 19737824}' ;;
        *) entries="{\"gate_mask\": \"0x1\", \"interval_ns\": $cell}, {\"gate_mask\": \"0x2\", \"interval_ns\": $cell}" ;;
        esac
        if [ -n "$entries" ]; then
                mkdir -p "$conf"
                cat > "$conf/va.json" <<EOJ
{ "interface": "va",
  "root": { "qdisc": "taprio", "handle": "100:", "num_tc": 2, "mode": "software", "clockid": "CLOCK_TAI",
            "priority_map": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
            "entries": [$entries] },
  "allow": ["software-gate-interval"] }
EOJ
                timeout 30 "$TBSD" --once --config-dir "$conf" || fail "tbsd --once did not install the schedule"
                echo "installed: $(tc -j qdisc show dev va | jq -c '[.[] | select(.root) | .options.schedule[]?.interval]')"
        fi

        # idle: /proc/stat's cpu line, busy = all but idle and iowait.
        read -r _ a1 a2 a3 a4 a5 a6 a7 a8 _ < /proc/stat
        t0=$(date +%s%N)
        if timeout 30 sleep 2; then
                t1=$(date +%s%N)
                read -r _ b1 b2 b3 b4 b5 b6 b7 b8 _ < /proc/stat
                s0=$(( (b1 + b2 + b3 + b4 + b5 + b6 + b7 + b8) - (a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8) ))
                s1=$(( s0 - (b4 - a4) - (b5 - a5) ))
                echo "RESULT $cell idle busy_pct $(( s0 > 0 ? s1 * 1000 / s0 : 0 )) sleep2_ms $(( (t1 - t0) / 1000000 ))"
        else
                echo "RESULT $cell idle cut_off 30"
        fi

        # work alone.
        t0=$(date +%s%N)
        if timeout 30 bash -c 'for _ in $(seq 20); do ip link show lo >/dev/null; done'; then
                t1=$(date +%s%N)
                echo "RESULT $cell alone ms $(( (t1 - t0) / 1000000 ))"
        else
                echo "RESULT $cell alone cut_off 30"
        fi

        # work with traffic: a bash loop sends until the work is done; what
        # left va is its TX packet counter (the veth's peer receives those).
        rm -f "$TMPDIR/stop" "$TMPDIR/sent"
        read -r tx0 < /sys/class/net/va/statistics/tx_packets
        timeout 60 bash -c "$(declare -f sender); sender" &
        local spid=$!
        t0=$(date +%s%N)
        rc=0
        timeout 30 bash -c 'for _ in $(seq 20); do ip link show lo >/dev/null; done' || rc=$?
        t1=$(date +%s%N)
        touch "$TMPDIR/stop"
        wait "$spid" || true
        # the queues drain: taprio opens class 0 within a cycle
        timeout 10 sleep 0.5 || true
        read -r tx1 < /sys/class/net/va/statistics/tx_packets
        if [ "$rc" = 0 ]; then
                echo "RESULT $cell work ms $(( (t1 - t0) / 1000000 )) sent $(cat "$TMPDIR/sent" 2>/dev/null || echo none) left $((tx1 - tx0))"
        else
                echo "RESULT $cell work cut_off 30 sent $(cat "$TMPDIR/sent" 2>/dev/null || echo none) left $((tx1 - tx0))"
        fi
        kill "$sink" 2>/dev/null || true
}

# sender: until $TMPDIR/stop exists, a datagram of 1000 bytes to the peer's
# port 9000 (priority 0: traffic class 0) at most every 1 ms (a read that
# times out on a FIFO nobody writes: no process per datagram). Writes
# "SENT+ERRORSerr" to $TMPDIR/sent.
sender() {
        local n=0 e=0 payload
        payload=$(printf '%01000d' 0)
        mkfifo "$TMPDIR/never"
        exec 3>/dev/udp/192.0.2.2/9000 4<>"$TMPDIR/never"
        while [ ! -e "$TMPDIR/stop" ]; do
                if printf '%s' "$payload" >&3 2>/dev/null; then n=$((n + 1)); else e=$((e + 1)); fi
                read -r -t 0.001 -u 4 _ || true
        done
        echo "$n+${e}err" > "$TMPDIR/sent"
}

if [ "${1:-}" = --guest ]; then
        guest "$2"
        exit 0
fi

runs=3 timeout=120
while [ $# -gt 0 ]; do
        case "$1" in
        --runs) runs=$2; shift 2 ;;
        --timeout) timeout=$2; shift 2 ;;
        -*) echo "usage: bench/gate-interval-cost.sh [--runs N] [--timeout S] [CELL...]" >&2; exit 2 ;;
        *) break ;;
        esac
done
cells=("$@")
[ ${#cells[@]} -gt 0 ] || cells=(none 1000000 100000 50000 12176 detd)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
export TBS_SOURCE_DIR=${TBS_SOURCE_DIR:-$src}
export TBS_BUILD_DIR=${TBS_BUILD_DIR:-$src/build}
log=$(mktemp "${TMPDIR:-/tmp}/gate-interval-cost.XXXXXX")
TIMEFORMAT='%U %S'

echo "# $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), timeout $timeout s x ${TBS_TEST_TIMEOUT_FACTOR:-1}"
for ((r = 1; r <= runs; r++)); do
        for c in "${cells[@]}"; do
                t0=$(date +%s)
                # The host's CPU time of the whole guest (boot included): bash's time.
                ok=0
                { time "$src/tests/kernel/uml-run" --timeout "$timeout" "$here/gate-interval-cost.sh" --guest "$c" \
                        > "$log.run" 2>&1 && ok=1; } 2> "$log.time"
                if [ "$ok" = 1 ]; then
                        grep '^RESULT ' "$log.run" | tee -a "$log"
                else
                        if grep -q '^uml-run: TIMEOUT' "$log.run"; then
                                echo "RESULT $c guest stalled $(( $(date +%s) - t0 ))" | tee -a "$log"
                                # how far it got (the console's last lines)
                                grep -a '^installed: \|^RESULT ' "$log.run" | sed "s/^/($c, before the stall) /" || true
                        else
                                echo "RESULT $c guest failed" | tee -a "$log"
                                grep -m1 '^FAIL' "$log.run" || tail -n 5 "$log.run"
                        fi
                fi
                echo "RESULT $c host cpu_ms $(awk '{ printf "%d", ($1 + $2) * 1000 }' "$log.time")" | tee -a "$log"
        done
done
rm -f "$log.run" "$log.time"

# The medians per cell (a part cut off counts as longer than any figure).
python3 - "$log" "${cells[@]}" <<'EOF'
import statistics, sys
lines = [l.split() for l in open(sys.argv[1])]
def med(xs):
    return statistics.median(xs) if xs else None
def f(v, u):
    return "-" if v is None else f"{v:g} {u}"
def part(mine, what, key):
    return [int(l[4]) for l in mine if l[2] == what and l[3] == key]
print("| entries | idle: CPU busy | idle: `sleep 2` took | work alone | work with traffic | datagrams left va/sent | host CPU per guest | parts cut off (30 s), guests stalled |")
print("|---|---|---|---|---|---|---|---|")
for c in sys.argv[2:]:
    mine = [l for l in lines if l[1] == c]
    busy = [v / 10 for v in part(mine, "idle", "busy_pct")]
    sl = [int(l[6]) for l in mine if l[2] == "idle" and l[3] == "busy_pct"]
    recv = [f"{l[-1]}/{l[-3].split('+')[0]}" for l in mine if l[2] == "work"]
    cut = sum(1 for l in mine if "cut_off" in l)
    stalled = sum(1 for l in mine if l[2] == "guest" and l[3] == "stalled")
    runs = sum(1 for l in mine if l[2] == "host")
    name = {"none": "none (no taprio)", "detd": "detd's 250000, 12176, 19737824"}.get(c, f"2 x {c} ns")
    print(f"| {name} | {f(med(busy), '%')} | {f(med(sl), 'ms')} | {f(med(part(mine, 'alone', 'ms')), 'ms')} | "
          f"{f(med(part(mine, 'work', 'ms')), 'ms')} | {', '.join(recv) or '-'} | "
          f"{f(med([v / 1000 for v in part(mine, 'host', 'cpu_ms')]), 's')} | {cut}, {stalled} of {runs} |")
EOF
echo "raw lines: $log"

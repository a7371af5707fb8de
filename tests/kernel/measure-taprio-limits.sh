# Measure the kernel's limits on software taprio schedules (not part of the
# suite: the figures go into docs/schedule-format.md, "Limits"). Run:
#
#   meson compile -C build && tests/kernel/uml-run --timeout 900 tests/kernel/measure-taprio-limits.sh
#
# taprio-install sends a root request built by tbsd's own encoder without
# the schedule validation; `tc -j qdisc show` (a dump of every interface) is
# the oracle for what the kernel can report back.
TI=$TBS_BUILD_DIR/tests/tools/taprio-install
make_veth va vb 4
make_veth vc vd 4     # created after va: dumped after it

# vc_dumped: whether a full qdisc dump still reaches vc (and va's root).
# Text output: tc's JSON output breaks on gate lists of some 700 entries.
vc_dumped() {
        local t
        t=$(tc qdisc show) || return 1
        grep -q "^qdisc taprio 100: dev va root" <<<"$t" && grep -q " dev vc " <<<"$t"
}

fresh() { tc qdisc del dev va root 2>/dev/null || true; }

# bsearch LO HI PRED: the largest N in [LO, HI] with PRED N true (PRED LO must hold).
bsearch() {
        local lo=$1 hi=$2 pred=$3 mid
        while [ "$lo" -lt "$hi" ]; do
                mid=$(( (lo + hi + 1) / 2 ))
                if "$pred" "$mid"; then lo=$mid; else hi=$((mid - 1)); fi
        done
        echo "$lo"
}

installs() { fresh; "$TI" va "$1" 100000 >/dev/null; }
dumps() { fresh; "$TI" va "$1" 100000 >/dev/null && vc_dumped; }
dumps_ext() { fresh; "$TI" va "$1" 100000 0 $(( $1 * 100000 )) 50000 >/dev/null && vc_dumped; }
# A running schedule changed in place (same handle) with a base time far
# ahead: the kernel dumps the running and the pending schedule together.
dumps_twice() {
        fresh
        "$TI" va "$1" 100000 >/dev/null || return 1
        "$TI" va "$1" 100000 4000000000000000000 >/dev/null || return 1
        vc_dumped && [ "$(tc qdisc show dev va | grep -o gatemask | wc -l)" = $(( 2 * $1 )) ]

}

# notified N: whether deleting an N-entry taprio root reaches RTNLGRP_TC
# listeners (tc monitor), judged by a change on vc made right after it.
mon=$TMPDIR/tc-monitor.log
tc monitor > "$mon" 2>&1 &
mon_pid=$!
sentinel=0
sentinel() { # the mark of the sentinel's notification, once seen
        sentinel=$((sentinel + 1))
        tc qdisc replace dev vc root handle "$((sentinel % 2 + 5)):" pfifo limit "$((1000 + sentinel))"
        wait_until 20 grep -q "limit $((1000 + sentinel))p" "$mon"
}
wait_until 20 sentinel || fail "tc monitor does not start"
notified() {
        fresh
        "$TI" va "$1" 100000 >/dev/null || return 1
        : > "$mon"
        tc qdisc del dev va root
        sentinel || fail "sentinel notification lost"
        grep -q "dev va" "$mon"
}
n=$(bsearch 1 3000 notified)
echo "MEASURED notification: largest gate list whose root deletion is notified: $n entries"
notified $((n + 1)) && echo "MEASURED notification: $((n + 1)) entries notified this time (the boundary moves by a few bytes)"
kill "$mon_pid"
tc qdisc del dev vc root

n=$(bsearch 1 20000 installs)
echo "MEASURED install: largest gate list the kernel accepts: $n entries"
"$TI" va $((n + 1)) 100000 || true
n=$(bsearch 1 3000 dumps)
echo "MEASURED dump: largest gate list a qdisc dump still reports (and goes on past): $n entries"
fresh; "$TI" va $((n + 1)) 100000
vc_dumped && echo "MEASURED dump with $((n + 1)) entries: still whole this time (the boundary moves by a few bytes)" ||
        echo "MEASURED dump with $((n + 1)) entries: vc missing, va missing"
n=$(bsearch 1 3000 dumps_ext)
echo "MEASURED dump with a cycle time extension: $n entries"
n=$(bsearch 1 3000 dumps_twice)
echo "MEASURED dump of a running schedule changed in place (two lists dumped): $n entries"
fresh

# Numeric limits, two entries of 100 us unless the line says otherwise.
try() { # LABEL ARGS...
        local label=$1 out
        shift
        fresh
        out=$("$TI" va "$@" 2>&1) || true
        echo "MEASURED $label: $out"
}
try "cycle_time 2147483647" 2 100000 0 2147483647
try "cycle_time 2147483648" 2 100000 0 2147483648
try "base_time -1" 2 100000 -1
try "base_time INT64_MAX" 2 100000 9223372036854775807
try "cycle_time_extension -1" 2 100000 0 0 -1
try "cycle_time_extension 2147483648" 2 100000 0 0 2147483648
try "cycle_time_extension INT64_MAX" 2 100000 0 0 9223372036854775807
try "interval 1" 2 1
try "interval 47" 2 47
try "interval 48" 2 48
try "interval 4294967295" 2 4294967295

# What short intervals cost the guest: the time of a fixed piece of work
# (50 `ip link show lo`) with software taprio running on va.
work_ms() {
        local t0 t1
        t0=$(date +%s%N)
        for _ in $(seq 50); do ip link show lo >/dev/null; done
        t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000000 ))
}
fresh
echo "MEASURED stall: no taprio: $(work_ms) ms"
for iv in 1000000 100000 50000 20000; do
        fresh
        "$TI" va 2 "$iv" >/dev/null
        echo "MEASURED stall: software taprio, 2 entries of $iv ns: $(work_ms) ms"
done
fresh

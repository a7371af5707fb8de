# issue 40: one NETCONF edit-config of N interfaces' schedules (bench/
# schedule.sh's tree: mqprio, four classes, an etf per queue), applied,
# against the same through D-Bus (ApplySchedule x N; one ApplySchedules of
# N; Reload of N files) and
# through files + tbsd --once. Runs in the test kernel's guest, not part of
# bench/run:
#
#   TBS_BUILD_DIR=$PWD/build tests/kernel/uml-run --mem 1G --timeout 1800 bench/netconf-64.sh 64 5
#
# (the build with -Dnetconf=enabled). N veth pairs bI/pI with 4 TX queues.
# Each way gives all N their trees and then takes them away, ROUNDS times
# in turn; each time is from the request to its answer (tbsd answers once
# the trees are in place). Lines: "R WAY apply|remove N ROUND US", then
# "M WAY apply|remove N median MS min MS".
set +e +o pipefail
n=${1:-64} rounds=${2:-5}
. "$TBS_SOURCE_DIR/bench/schedule.sh"
. "$TBS_SOURCE_DIR/tests/kernel/netconf-lib.sh"
work=$TMPDIR/nc-bench
mkdir -p "$work/conf" "$work/files" "$work/state" "$work/once-state"
for ((i = 0; i < n; i++)); do
        echo "link add b$i numtxqueues 4 numrxqueues 4 type veth peer name p$i numtxqueues 4 numrxqueues 4"
done > "$work/links"
for ((i = 0; i < n; i++)); do echo "link set b$i up"; echo "link set p$i up"; done >> "$work/links"
ip -batch "$work/links" || fail "cannot create $n veth pairs"
for ((i = 0; i < n; i++)); do bench_schedule "b$i" > "$work/files/b$i.json"; done
out=$TBS_OUT/netconf-bench.txt
: > "$out"

start_system_bus
# The documents put an etf on PTP's class ("allow": ["ptp-etf"]), which the
# schedule group (netconfd's) may set only when tbsd is told so (issue 46).
start_tbsd "$work/conf" --state-dir "$work/state" --schedule-group nogroup --schedule-group-may=allow \
        --log-level notice
start_netconf 65534
roots() { tc -j qdisc show | jq -r '[.[] | select(.root == true and .kind == "mqprio" and (.dev | startswith("b")))] | length'; }
check() { # WAY WHAT: every tree there (apply) or none (remove)
        local want=$n
        [ "$2" = remove ] && want=0
        [ "$(roots)" = "$want" ] || fail "$1 $2: $(roots) mqprio roots, not $want"
}
reload() { busctl call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload >/dev/null || fail "Reload failed"; }
us() { echo $(( ($(date +%s%N) - $1) / 1000 )); }
for ((r = 0; r < rounds; r++)); do
        HOME=/run/home python3 "$TBS_SOURCE_DIR/bench/netconf-apply.py" netconf "$NC/userkey" "$n" 1 | \
                sed "s/ 0 \([0-9]*\)$/ $r \1/" | tee -a "$out"
        check netconf remove
        python3 "$TBS_SOURCE_DIR/bench/netconf-apply.py" dbus "$work/files" "$n" 1 | \
                sed "s/ 0 \([0-9]*\)$/ $r \1/" | tee -a "$out"
        check dbus remove
        python3 "$TBS_SOURCE_DIR/bench/netconf-apply.py" batch "$work/files" "$n" 1 | \
                sed "s/ 0 \([0-9]*\)$/ $r \1/" | tee -a "$out"
        check batch remove
        cp "$work/files"/*.json "$work/conf/"
        t0=$(date +%s%N); reload; echo "R reload apply $n $r $(us "$t0")" | tee -a "$out"
        check reload apply
        rm -f "$work/conf"/*.json
        t0=$(date +%s%N); reload; echo "R reload remove $n $r $(us "$t0")" | tee -a "$out"
        check reload remove
done
stop_netconf
kill "$TBSD_PID"; wait "$TBSD_PID" 2>/dev/null
# The daemon is gone: tbsd --once on the folder of N files (its own state
# folder, empty), then the roots removed with tc between rounds.
cp "$work/files"/*.json "$work/conf/"
for ((r = 0; r < rounds; r++)); do
        t0=$(date +%s%N)
        "$TBS_BUILD_DIR/daemon/tbsd" --once --config-dir "$work/conf" --state-dir "$work/once-state" \
                --log-level warning >>"$TBS_OUT/once.log" 2>&1 || fail "tbsd --once failed"
        echo "R once apply $n $r $(us "$t0")" | tee -a "$out"
        check once apply
        for ((i = 0; i < n; i++)); do echo "qdisc del dev b$i root"; done > "$work/del"
        t0=$(date +%s%N); tc -batch "$work/del"; echo "R tc-batch remove $n $r $(us "$t0")" | tee -a "$out"
        check once remove
done
python3 - "$out" <<'EOP'
import collections, statistics, sys
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "R":
        t[(f[1], f[2], f[3])].append(int(f[5]) / 1000)
for (way, what, n), v in sorted(t.items()):
    print("M %s %s %s median %.1f min %.1f (%d runs)" % (way, what, n, statistics.median(v), min(v), len(v)))
EOP
pass "benchmark done: $out"

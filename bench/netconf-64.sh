# issue 40: one NETCONF edit-config of N interfaces' schedules (bench/
# schedule.sh's tree: mqprio, four classes, an etf per queue), applied,
# against the same through D-Bus (ApplySchedule x N; one ApplySchedules of
# N; Reload of N files) and
# through files + tbsd --once. Runs in the test kernel's guest, not part of
# bench/run:
#
#   TBS_BUILD_DIR=$PWD/build tests/kernel/uml-run --mem 1G --timeout 1800 bench/netconf-64.sh 64 5
#
# With a third argument "standard" (issue 48) only the NETCONF way runs, with
# standard-only documents (802.1DC's gate-parameter-table, no tbsd node:
# tbsd derives a taprio root), and where each commit's time goes is printed
# from the server module's and tbsd's log lines of each commit (tbsd at
# --log-level debug): "B apply|remove N ROUND PART MS" and "M ..." lines;
# then "L listed-quiet N K MS": tbsd's time for the K-th ListSchedules (0:
# the first) of N kept documents quiet for more than 2 s.
#
# (the build with -Dnetconf=enabled). N veth pairs bI/pI with 4 TX queues.
# Each way gives all N their trees and then takes them away, ROUNDS times
# in turn; each time is from the request to its answer (tbsd answers once
# the trees are in place). Lines: "R WAY apply|remove N ROUND US", then
# "M WAY apply|remove N median MS min MS".
set +e +o pipefail
n=${1:-64} rounds=${2:-5} mode=${3:-tbsd}
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
level=notice kind=mqprio
[ "$mode" = standard ] && level=debug kind=taprio
start_tbsd "$work/conf" --state-dir "$work/state" --schedule-group nogroup --schedule-group-may=allow \
        --log-level $level
start_netconf 65534
roots() { tc_j qdisc show | jq -r --arg k $kind '[.[] | select(.root == true and .kind == $k and (.dev | startswith("b")))] | length'; }
check() { # WAY WHAT: every tree there (apply) or none (remove)
        local want=$n
        [ "$2" = remove ] && want=0
        [ "$(roots)" = "$want" ] || fail "$1 $2: $(roots) mqprio roots, not $want"
}
reload() { busctl call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Reload >/dev/null || fail "Reload failed"; }
us() { echo $(( ($(date +%s%N) - $1) / 1000 )); }
if [ "$mode" = standard ]; then
        : > "$TBS_OUT/tbsd.log"
        : > /run/nchome/netconfd.log
        for ((r = 0; r < rounds; r++)); do
                HOME=/run/home python3 "$TBS_SOURCE_DIR/bench/netconf-apply.py" netconf-std "$NC/userkey" "$n" 1 | \
                        sed -E "s/^([RPC] [a-z-]+ [a-z]+ [0-9]+) 0 /\1 $r /" | tee -a "$out"
                check netconf-std remove
        done
        stop_netconf
        # ListSchedules of N kept documents that were quiet for the reload
        # stamps' 2 s (a controller's commits further apart, or the
        # module's reconcile): the first answer reads them and keeps copies,
        # the next ones answer from the copies (two stat()s a document). The
        # N documents given by root in one ApplySchedules (bench_schedule's).
        args=()
        for ((i = 0; i < n; i++)); do args+=("b$i" "$(cat "$work/files/b$i.json")"); done
        busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ApplySchedules 'a(ss)ass' "$n" \
                "${args[@]}" 0 bench >/dev/null || fail "ApplySchedules of $n failed"
        sleep 4.5   # the rule counts whole seconds: mtime + 2 < now
        for k in 1 2 3 4 5 6 7 8; do
                busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager ListSchedules s "" >/dev/null ||
                        fail "ListSchedules failed"
        done
        grep -o "ListSchedules by uid 0: $n documents, [0-9.]* ms" "$TBS_OUT/tbsd.log" | tail -8 |
                awk -v n="$n" '{ print "L listed-quiet " n " " NR - 1 " " $(NF - 1) }' | tee -a "$out"
        # Each commit's lines, in order (apply, change, remove, apply, ...): the
        # module's (netconfd's log) and tbsd's (its log, debug).
        python3 - "$out" /run/nchome/netconfd.log "$TBS_OUT/tbsd.log" "$n" <<'EOP'
import collections, re, statistics, sys
out, nclog, tlog, n = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
num = r"([0-9.]+)"
mod = [tuple(map(float, m.groups())) for m in re.finditer(
    r"tbsd: commit of \d+ interfaces: translation %s ms, ListSchedules %s ms, Ping %s ms, "
    r"ApplySchedulesIfGeneration %s ms, commit check %s ms in all; operational leaves %s ms; CPU %s ms"
    % ((num,) * 7), open(nclog).read())]
# tbsd's lines of each commit's apply (one of at least one interface: the
# heartbeat's reconcile applies none), each with the listing made for it
# since the apply before (0: none, the module's copy was used).
lst, app, last = [], [], 0.0
for line in open(tlog):
    m = re.search(r"ListSchedulesGeneration by uid \d+: \d+ documents, %s ms" % num, line)
    if m:
        last += float(m.group(1))
    m = re.search(r"ApplySchedulesIfGeneration by uid \d+: ([1-9]\d*) interfaces, \d+ changed: checked %s ms, "
                  r"kept %s ms, loaded %s ms, %s ms in all, CPU %s ms" % ((num,) * 5), line)
    if m:
        lst.append(last)
        last = 0.0
        app.append(tuple(map(float, m.groups()[1:])))
t = collections.defaultdict(list)
for line in open(out):
    f = line.split()
    if f and f[0] == "R":
        t[(f[2], "client: edit-config + commit")].append(int(f[5]) / 1000)
    elif f and f[0] == "P":
        t[(f[2], "client: " + f[5])].append(int(f[6]) / 1000)
    elif f and f[0] == "C":
        t[(f[2], "CPU " + f[5])].append(float(f[6]))
if not (len(mod) == len(lst) == len(app)):
    sys.exit("the logs do not match: %d module lines, %d listings, %d ApplySchedulesIfGeneration"
             % (len(mod), len(lst), len(app)))
with open(out, "a") as o:
    for i, (m, l, a) in enumerate(zip(mod, lst, app)):
        what, r = ("apply", "change", "remove")[i % 3], i // 3
        parts = {"module: translation": m[0], "module: ListSchedules call": m[1],
                 "tbsd: ListSchedules": l, "module: Ping call": m[2],
                 "module: ApplySchedulesIfGeneration call": m[3],
                 "tbsd: ApplySchedulesIfGeneration": a[3], "tbsd: checks": a[0], "tbsd: store": a[1],
                 "tbsd: load": a[2], "tbsd: CPU": a[4], "module: commit check": m[4],
                 "module: operational leaves": m[5], "module: CPU check to complete": m[6],
                 "bus: round trips": (m[1] - l) + m[2] + (m[3] - a[3]),
                 "module: own (check - calls)": m[4] - m[1] - m[2] - m[3]}
        for k, v in parts.items():
            t[(what, k)].append(v)
            print("B %s %s %d %s %.1f" % (what, n, r, k.replace(" ", "_"), v), file=o)
            print("B %s %s %d %s %.1f" % (what, n, r, k.replace(" ", "_"), v))
for (what, k), v in sorted(t.items()):
    print("M netconf-std %s %s %-34s median %7.1f min %7.1f (%d)" % (what, n, k, statistics.median(v), min(v), len(v)))
EOP
        [ $? = 0 ] || fail "the breakdown could not be read"
        pass "benchmark done: $out"
        exit 0
fi
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

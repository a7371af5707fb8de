# The bounds of the work a caller can cause (issue 37 point 5), measured
# inside the user-mode-linux test kernel (not a test: it asserts only that
# each tool did its job, never a time). Run from the source tree:
#
#   TBS_BUILD_DIR=$PWD/build-bench tests/kernel/uml-run --mem 1G --timeout 900 \
#           bench/bounds.sh [FRAMES INTERVAL_MS [COUNTS [PHASES]]]
#
# 16 veth links of 4 queues, each with bench/schedule.sh's file (mqprio,
# four software etf queues), tbsd on a private system bus. Measured:
#  - base: `tbsctl status` (all links) and `tbsctl metrics`, no monitors,
#    as programs and as the calls they make from one connection
#    (bench/bus-latency.py: a program start alone costs 0.1-2 s here);
#  - cost (not by default): what this guest's emulation costs: a program
#    start, `tbsctl validate` of bench/streams-doc.py's document (pure
#    user-space work, bench/emulation-cost.sh times both on the host),
#    tbsctl's and the daemon's CPU per `tbsctl status`, and a CPU-clock
#    profile of the daemon answering ten (P lines, perf);
#  - validate: the daemon's CPU time for one Validate() of a 10 kB streams
#    document (bench/streams-doc.py: 80 streams, the most a file takes),
#    as root; then four uid-65534 clients sending five each at once while
#    root times `tbsctl status` (and how many calls the daemon refused);
#  - monitor: queue 0 of every link monitored with FRAMES probes every
#    INTERVAL_MS (default 64 and 100: the largest the format allows), the
#    daemon's CPU share over 5 s, its wake-ups a second (voluntary
#    context switches over 5 s), status and metrics again (and what a
#    reload said of the files);
#  - selftest: `tbsctl selftest b0 0 --count=N` for each N of COUNTS
#    (default "1000"), its time and its probes without an answer.
# Each figure is one line: "R NAME VALUE" (times in ms).
frames=${1:-64}
interval=${2:-100}
counts=${3:-1000}
phases=" ${4:-validate monitor selftest} "   # base always runs
has() { [[ $phases == *" $1 "* ]]; }
n=16
work=$TMPDIR/bounds
conf=$work/conf
mkdir -p "$conf"
. "$TBS_SOURCE_DIR/bench/schedule.sh"

now_ms() { local t=$EPOCHREALTIME; echo $(( ${t/./} / 1000 )); }
# timed NAME CMD...: run CMD once, print its wall time in ms.
timed() {
        local name=$1 s e
        shift
        s=$(now_ms)
        "$@" >/dev/null 2>>"$work/tools.log" || echo "I $name: '$*' failed: $(tail -1 "$work/tools.log")"
        e=$(now_ms)
        echo "R $name $(( e - s ))"
}
# cpu_ticks: the daemon's user + system time in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$TBSD_PID/stat"; }
hz=$(getconf CLK_TCK)

for ((i = 0; i < n; i++)); do
        make_veth "b$i" "p$i" 4
        bench_schedule "b$i" > "$conf/b$i.json"
done
start_system_bus
start_tbsd "$conf"
for ((i = 0; i < n; i++)); do wait_configured "b$i"; done
echo "I links $n load $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- base: no monitors ----
latency="python3 $TBS_SOURCE_DIR/bench/bus-latency.py"
for r in 1 2 3; do timed base_status "$TBSCTL" status; done
for r in 1 2 3; do timed base_metrics "$TBSCTL" metrics; done
{ $latency 5 || true; } | sed 's/ bus_/ base_bus_/'
{ $latency 5 metrics || true; } | sed 's/ bus_/ base_bus_/'

# ---- cost: what this guest's emulation costs (no monitors) ----
# The same code on the host: bench/emulation-cost.sh (program start and
# tbsctl validate of the same document).
if has cost; then
python3 "$TBS_SOURCE_DIR/bench/streams-doc.py" > "$work/cost-streams.json"
ten() { for k in 1 2 3 4 5 6 7 8 9 10; do "$@" >/dev/null 2>&1 || true; done; }  # validate: refused after the work
for r in 1 2 3; do timed cost_start_x10 ten "$TBSCTL" --version; done
for r in 1 2 3; do timed cost_validate_x10 ten "$TBSCTL" validate "$work/cost-streams.json"; done
# tbsctl's own CPU and the daemon's, per `tbsctl status` of the 16 links
for r in 1 2 3; do
        /usr/bin/time -f "R cost_status_client_cpu %U %S" -o "$work/time.txt" "$TBSCTL" status >/dev/null
        awk '{ printf "R cost_status_client_cpu_ms %d\n", ($3 + $4) * 1000 }' "$work/time.txt"
done
c0=$(cpu_ticks)
for r in 1 2 3 4 5 6 7 8 9 10; do "$TBSCTL" status >/dev/null; done
c1=$(cpu_ticks)
echo "R cost_status_daemon_cpu_ms $(( (c1 - c0) * 1000 / hz / 10 ))"
# where the daemon's time goes while it answers: a CPU-clock profile
if command -v perf >/dev/null; then
        perf record -q -e cpu-clock -F 2000 -g -p "$TBSD_PID" -o "$work/perf.data" -- \
                sh -c "for r in 1 2 3 4 5 6 7 8 9 10; do \"$TBSCTL\" status >/dev/null; done" 2>/dev/null || true
        # (read whole, then cut: a pipe closed early would end this script)
        perf report -q -i "$work/perf.data" --stdio --no-children -g none --sort dso > "$work/perf-dso.txt" 2>/dev/null || true
        perf report -q -i "$work/perf.data" --stdio --no-children -g none --sort sym > "$work/perf-sym.txt" 2>/dev/null || true
        sed -n '/%/{s/^ */P dso /;p}' "$work/perf-dso.txt" | sed -n 1,8p
        sed -n '/%/{s/^ */P sym /;p}' "$work/perf-sym.txt" | sed -n 1,25p
fi
fi

# ---- validate ----
if has validate; then
python3 "$TBS_SOURCE_DIR/bench/streams-doc.py" > "$work/streams.json"
echo "I validate_doc_bytes $(wc -c < "$work/streams.json")"
doc=$(cat "$work/streams.json")
validate() { busctl --system call org.tsn.Tbs /org/tsn/Tbs org.tsn.Tbs.Manager Validate s "$doc"; }
for r in 1 2 3 4 5; do
        c0=$(cpu_ticks)
        timed validate_call validate
        c1=$(cpu_ticks)
        echo "R validate_cpu $(( (c1 - c0) * 1000 / hz ))"
done
asuser() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# The clients: one connection each, five calls each, all at once.
cat > "$work/client.py" <<'EOPY'
import sys, dbus
doc = open(sys.argv[1]).read()
m = dbus.Interface(dbus.SystemBus().get_object("org.tsn.Tbs", "/org/tsn/Tbs"), "org.tsn.Tbs.Manager")
for i in range(5):
    try:
        ok, errors = m.Validate(doc, timeout=120)
        print("b answered")
    except dbus.exceptions.DBusException as e:
        print("Error", e.get_dbus_name(), e.get_dbus_message()[:100])
EOPY
c0=$(cpu_ticks)
pids=()
for k in 1 2 3 4; do
        asuser python3 "$work/client.py" "$work/streams.json" > "$work/client$k.log" 2>&1 &
        pids+=($!)
done
{ $latency 8 || true; } | sed 's/ bus_/ load_bus_/'
wait "${pids[@]}"
c1=$(cpu_ticks)
timed load_status "$TBSCTL" status
echo "R load_cpu $(( (c1 - c0) * 1000 / hz ))"
echo "I load_answers $(cat "$work"/client*.log | grep -c '^b ') of 20, refused $(cat "$work"/client*.log | grep -c 'Error')"
{ grep -h Error "$work"/client*.log || true; } | sort | uniq -c | head -3 | sed 's/^/I load_refusal /'

fi

# ---- monitor ----
if has monitor; then
for ((i = 0; i < n; i++)); do
        bench_schedule "b$i" | sed "0,/\"offload\": false}/s//\"offload\": false, \"monitor\": {\"interval_ms\": $interval, \"frames\": $frames}}/" \
                > "$conf/b$i.json"
done
out=$("$TBSCTL" reload 2>&1) || true
echo "I monitor_reload $(head -c 300 <<<"$out" | tr '\n' ' ')"
monitored() { "$TBSCTL" --json status | jq -e '[.[] | .txqueues[]? | select(.monitor != null)] | length > 0'; }
wait_until 10 monitored || echo "I no monitor runs"
echo "I monitored_queues $("$TBSCTL" --json status | jq '[.[] | .txqueues[]? | select(.monitor != null)] | length')"
sleep 2     # the monitors' first rounds
c0=$(cpu_ticks)
s=$(now_ms)
sleep 5     # the span the CPU share is measured over
c1=$(cpu_ticks)
e=$(now_ms)
echo "R monitor_cpu_percent $(( (c1 - c0) * 1000 * 100 / hz / (e - s) ))"
# the daemon's wake-ups a second: its voluntary context switches (each
# sleep in epoll_wait ended by an event) over 5 s; a count, which the
# machine's load does not change the way it changes times
vcs() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$TBSD_PID/status"; }
v0=$(vcs)
sleep 5
v1=$(vcs)
echo "R monitor_wakeups_per_s $(( (v1 - v0) / 5 ))"
for r in 1 2 3; do timed monitor_status "$TBSCTL" status; done
for r in 1 2 3; do timed monitor_metrics timeout 120 "$TBSCTL" metrics; done
{ $latency 5 || true; } | sed 's/ bus_/ monitor_bus_/'
{ $latency 5 metrics || true; } | sed 's/ bus_/ monitor_bus_/'

fi

# ---- selftest ----
if has selftest; then
for ((i = 0; i < n; i++)); do bench_schedule "b$i" > "$conf/b$i.json"; done
"$TBSCTL" reload || true
for c in $counts; do
        s=$(now_ms)
        out=$("$TBSCTL" --json selftest b0 0 --count="$c" 2>&1) || true
        e=$(now_ms)
        echo "R selftest_ms_$c $(( e - s ))"
        echo "I selftest_$c $(jq -c '.[0] // . | {sent, unstamped, missed, invalid}' <<<"$out" 2>/dev/null || head -c 200 <<<"$out")"
done
echo "I load_end $(cut -d' ' -f1-3 /proc/loadavg)"
fi

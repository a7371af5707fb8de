# The benchmark's guest half (bench/run boots it with tests/kernel/uml-run;
# tests/kernel/lib.sh is sourced). Not a test: it asserts only that every
# tool did its job (exit status, tbsd's "applied"/"unchanged" lines), never
# a time.
#
#   guest.sh RUNS IDLE_SECONDS DESCRIBE_SECONDS STATUS_CALLS BUS_BENCH QUICK
#
# The tc-per-qdisc script starts one tc process per qdisc; in the
# user-mode-linux guest a process start costs 0.1-0.3 s, so at N >= 64 the
# script is measured once per cell (its full apply at N = 256 alone starts
# 1280 processes), and with QUICK=1 not at all at N = 256; at N = 1024 it
# is not run (5120 processes, several minutes per run).
#
# Every measurement is one line on stdout, for bench/report.py:
#   R METRIC N TOOL RUN VALUE      (VALUE in microseconds unless the metric says)
#   I KEY VALUE...                 (facts about the run)
#   P self|incl N COUNT WHERE      (callgrind_annotate's functions of tbsd at N:
#                                   instructions, "file:function [object]")
runs=$1 idle_s=$2 describe_s=$3 status_calls=$4 bus_bench=$5 quick=$6
sizes=(1 16 64 256 1024)
nlinks=1024     # veth pairs in the guest: the largest size
nmax=256        # the daemon's interfaces
profiled=" 1 256 1024 "   # the sizes of the profiles of tbsd's instructions by function
floor=$(dirname "$bus_bench")/floor
work=$TMPDIR/bench
# The tools' output goes to tmpfs (hostfs writes are slow in the guest);
# it is copied to the host at the end.
log=$TMPDIR/bench-tools.log
trap 'cp "$log" "$TBS_OUT/bench-tools.log" 2>/dev/null || true' EXIT
mkdir -p "$work"

echo "I kernel $(uname -r)"
echo "I guest_nproc $(nproc)"
echo "I guest_mem_kib $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
echo "I tc_version $(tc -V 2>&1 | head -1)"
echo "I runs $runs"

now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# In this guest a program started right after another one exited takes
# two to three times as long as one started after a short pause (measured:
# /bin/true 50-110 ms back to back, 20-25 ms after 0.1 s). Every timed
# command starts after the same pause, so no tool gains or loses by what
# ran just before it.
settle() { sleep 0.2; }

# timed METRIC N TOOL RUN CMD...: run CMD (stdout to $work/out, stderr to
# the log), print its time. Only CMD's own process is inside the clock.
timed() {
        local metric=$1 n=$2 tool=$3 run=$4 s e
        shift 4
        settle
        s=$EPOCHREALTIME
        "$@" >"$work/out" 2>>"$log" || fail "$metric $tool N=$n run $run: '$*' failed (see bench-tools.log): $(tail -3 "$log")"
        e=$EPOCHREALTIME
        cat "$work/out" >>"$log"
        echo "R $metric $n $tool $run $(( ${e/./} - ${s/./} ))"
}

# once_timed METRIC N RUN DIR WORD: tbsd --once on DIR, timed; afterwards
# every line of its output must end in WORD.
once_timed() {
        timed "$1" "$2" tbsd "$3" "$TBSD" --once --config-dir "$4"
        if grep -qv ": $5\$" "$work/out"; then
                fail "$1 tbsd N=$2 run $3: not '$5': $(grep -v ": $5\$" "$work/out" | head -3)"
        fi
}

# floor_timed N RUN: the floor program (bench/floor.c) on b0..b(N-1), timed
# like the tools; its own clock from its first send to its last answer
# gives floor_send.
floor_timed() {
        local n=$1 r=$2 reqs us
        timed full "$n" floor "$r" "$floor" "${ifindex[@]:0:n}"
        read -r _ reqs _ _ _ _ _ us < "$work/out" || true
        [ "${reqs:-}" = $((5 * n)) ] || fail "floor N=$n run $r: '$(cat "$work/out")', not $((5 * n)) requests"
        echo "R floor_send $n floor $r $us"
}

# tree_of N: the qdiscs of b0..b(N-1) as tc -j shows them, sorted, for
# comparing two tools' results.
tree_of() {
        tc -j qdisc show | jq -c --argjson n "$1" '[.[] | select(.dev | test("^b[0-9]+$"))
                | select((.dev[1:] | tonumber) < $n) | del(.refcnt)] | sort_by(.dev, .handle)'
}

# ---- the interfaces: nlinks veth pairs of 4 queues, bN carries the tree ----
for ((i = 0; i < nlinks; i++)); do
        echo "link add b$i numtxqueues 4 numrxqueues 4 type veth peer name p$i numtxqueues 4 numrxqueues 4"
done > "$work/links"
for ((i = 0; i < nlinks; i++)); do
        echo "link set b$i up"
        echo "link set p$i up"
done >> "$work/links"
ip -batch "$work/links" || fail "cannot create $nlinks veth pairs"
echo "I interfaces $nlinks veth pairs, 4 TX queues each"
# The floor program takes interface indexes (it looks up nothing itself).
ifindex=()
for ((i = 0; i < nlinks; i++)); do
        read -r "ifindex[i]" < "/sys/class/net/b$i/ifindex" || fail "no ifindex of b$i"
done

map="0 1 2 3 3 3 3 3 3 3 3 3 3 3 3 3"
. "$TBS_SOURCE_DIR/bench/schedule.sh"

# Per size: tbsd's folders (base and queue 0's delta changed), the tc script,
# the same as a tc -batch file, their re-apply and delta variants.
for n in "${sizes[@]}"; do
        d=$work/n$n
        mkdir -p "$d/base" "$d/delta"
        : > "$d/script.sh"; : > "$d/batch"; : > "$d/reset"
        : > "$d/rescript.sh"; : > "$d/rebatch"; : > "$d/replace.sh"
        : > "$d/delta.sh"; : > "$d/delta.batch"
        for ((i = 0; i < n; i++)); do
                bench_schedule "b$i" 200000 > "$d/base/b$i.json"
                bench_schedule "b$i" 210000 > "$d/delta/b$i.json"
                root="qdisc add dev b$i root handle 100: mqprio num_tc 4 map $map queues 1@0 1@1 1@2 1@3 hw 0"
                kids=("qdisc add dev b$i parent 100:1 etf clockid CLOCK_TAI delta 200000"
                      "qdisc add dev b$i parent 100:2 etf clockid CLOCK_TAI delta 300000"
                      "qdisc add dev b$i parent 100:3 etf clockid CLOCK_TAI delta 400000"
                      "qdisc add dev b$i parent 100:4 etf clockid CLOCK_TAI delta 500000")
                printf 'tc %s\n' "$root" "${kids[@]}" >> "$d/script.sh"
                printf '%s\n' "$root" "${kids[@]}" >> "$d/batch"
                echo "qdisc del dev b$i root" >> "$d/reset"
                # Re-apply: what works on Linux 6.1 (below: replace does not).
                printf 'tc %s\n' "qdisc del dev b$i root" "$root" "${kids[@]}" >> "$d/rescript.sh"
                printf '%s\n' "qdisc del dev b$i root" "$root" "${kids[@]}" >> "$d/rebatch"
                printf 'tc %s\n' "${root/qdisc add/qdisc replace}" "${kids[@]/qdisc add/qdisc replace}" >> "$d/replace.sh"
                # One delta: graft a new etf (a fresh handle: etf cannot change in place).
                echo "tc qdisc replace dev b$i parent 100:1 handle 300: etf clockid CLOCK_TAI delta 210000" >> "$d/delta.sh"
                echo "qdisc replace dev b$i parent 100:1 handle 300: etf clockid CLOCK_TAI delta 210000" >> "$d/delta.batch"
        done
        sed -i '1i set -e' "$d/script.sh" "$d/rescript.sh" "$d/delta.sh"
done

reset_trees() { # N: the default root on b0..b(N-1), then a pause for the
        # kernel's deferred freeing of the old qdiscs (not measured)
        tc -force -batch "$work/n$1/reset" >/dev/null 2>&1 || true
        sleep 1
}

# How long starting a program takes here (median of 5, microseconds),
# after the same pause as every timed command.
startup() {
        local v=() s e
        for _ in 1 2 3 4 5; do
                settle
                s=$EPOCHREALTIME; "$@" >/dev/null 2>&1 || true; e=$EPOCHREALTIME
                v+=($(( ${e/./} - ${s/./} )))
        done
        printf '%s\n' "${v[@]}" | sort -n | sed -n 3p
}
# The cost of one system call as more interfaces are visited in turn: a
# path lookup in sysfs (tbsd's probe makes one per interface) and an ioctl.
echo "I path_cost $("$(dirname "$bus_bench")/path-cost" 16 64 256 1024 | tr '\n' ' ')"
echo "I startup_us tbsd_help $(startup "$TBSD" --help) tc_V $(startup tc -V) true $(startup /bin/true)"

# How many qdiscs one dump returns, with and without NETLINK_GET_STRICT_CHK
# and tcm_ifindex set (the kernel's answer decides how tbsd must dump).
tc -force -batch "$work/n256/batch" >>"$log" 2>&1 || fail "installing 256 trees for the dump count"
echo "I dump_count $(/usr/bin/python3 "$TBS_SOURCE_DIR/bench/dump-count.py" b7)"
reset_trees 256

# The floor program must install what tbsd installs, at every size (checked
# once, not timed): the same 5 N qdiscs with the same handles and options.
if [ "$quick" != daemon ]; then
        for n in "${sizes[@]}"; do
                reset_trees "$nlinks"
                "$floor" "${ifindex[@]:0:n}" > "$work/out" 2>>"$log" || fail "floor N=$n: $(tail -3 "$log")"
                echo "I floor_run_$n $(cat "$work/out")"
                tree_of "$n" > "$work/floor-tree.json"
                reset_trees "$n"
                "$TBSD" --once --config-dir "$work/n$n/base" >>"$log" 2>&1 || fail "tbsd N=$n for the floor check"
                tree_of "$n" > "$work/tbsd-tree.json"
                cmp -s "$work/floor-tree.json" "$work/tbsd-tree.json" ||
                        fail "N=$n: the floor program's trees differ from tbsd's: $(diff "$work/floor-tree.json" "$work/tbsd-tree.json" | head -c 600)"
                [ "$(jq length "$work/floor-tree.json")" = $((5 * n)) ] || fail "N=$n: not $((5 * n)) qdiscs after the floor"
        done
        echo "I floor_checked ${sizes[*]}"
fi

# cell N R: run R of every tool at N interfaces. Each tool starts from the
# same state: the default root on all nlinks interfaces, whatever the cell
# before it left.
cell() {
        local n=$1 r=$2 d=$work/n$1
        reset_trees "$nlinks"
        once_timed full "$n" "$r" "$d/base" applied
        once_timed reapply "$n" "$r" "$d/base" unchanged
        once_timed delta "$n" "$r" "$d/delta" applied

        if { [ "$n" -lt 64 ] && [ "$r" -le "$runs" ]; } ||
           { [ "$r" = 1 ] && { [ "$n" -lt 256 ] || { [ "$n" = 256 ] && [ "$quick" = 0 ]; }; }; }; then
                reset_trees "$n"
                timed full "$n" tc-script "$r" bash "$d/script.sh"
                # 1536 processes at 256: left out, the full apply shows the cost
                [ "$n" -lt 256 ] && timed reapply "$n" tc-script "$r" bash "$d/rescript.sh"
                timed delta "$n" tc-script "$r" bash "$d/delta.sh"
        fi

        reset_trees "$n"
        timed full "$n" tc-batch "$r" tc -batch "$d/batch"
        timed reapply "$n" tc-batch "$r" tc -batch "$d/rebatch"
        timed delta "$n" tc-batch "$r" tc -batch "$d/delta.batch"

        reset_trees "$n"
        floor_timed "$n" "$r"
}

# The sizes take turns, round after round, so that a change in how busy
# the host is falls on all of them alike: the cost per added interface is
# a difference of two sizes' medians, and measured one size after the
# other (minutes apart) a slower spell of the host went into it whole.
# More runs for tbsd and tc -batch (not for the slow script) steady those
# medians: three per round at 1 and 16, whose difference (about 20 ms) is
# within the guest's noise of a single run, one at 64 and 256, one every
# other round at 1024.
[ "$quick" = daemon ] && sizes=()     # bench/run --daemon-only (development)
rounds=$((runs * 3))
[ "${#sizes[@]}" -eq 0 ] && rounds=0
for ((round = 1; round <= rounds; round++)); do
        for n in "${sizes[@]}"; do
                per=1
                [ "$n" -le 16 ] && per=3
                # 1024 in every other round (from the first): its cell takes
                # as long as all the others together.
                if [ "$n" -ge 1024 ]; then
                        [ $((round % 2)) = 1 ] || continue
                        cell "$n" $(( (round + 1) / 2 ))
                        continue
                fi
                for ((k = 1; k <= per; k++)); do
                        cell "$n" $(( (round - 1) * per + k ))
                done
        done
        echo "bench: round $round of $rounds done" >&2
done

# Counts that do not depend on how busy the machine is: system calls,
# netlink sends and processes of each tool at N = 16, from strace -c.
syscalls() { # CMD...: system calls of CMD and its children (strace -c)
        local f=$work/strace.txt n
        strace -f -c -o "$f" "$@" >"$work/out" 2>>"$log" || fail "under strace: '$*' failed"
        n=$(awk '$NF == "total" { print $4 }' "$f")
        [ -n "$n" ] || fail "no system call count from strace for '$*'"
        echo "$n"
}
counted() { # METRIC TOOL CMD...: also netlink sends and processes started
        local metric=$1 tool=$2 f=$work/strace.txt v
        shift 2
        v=$(syscalls "$@")
        echo "R ${metric}_syscalls 16 $tool 1 $v"
        echo "R ${metric}_nlsends 16 $tool 1 $(awk '$NF == "sendto" || $NF == "sendmsg" { n += $4 } END { print n + 0 }' "$f")"
        echo "R ${metric}_execs 16 $tool 1 $(awk '$NF == "execve" { n += $4 } END { print n + 0 }' "$f")"
}
if [ "$quick" != daemon ] && command -v strace >/dev/null; then
        reset_trees 16
        counted full tbsd "$TBSD" --once --config-dir "$work/n16/base"
        counted reapply tbsd "$TBSD" --once --config-dir "$work/n16/base"
        counted delta tbsd "$TBSD" --once --config-dir "$work/n16/delta"
        reset_trees 16
        counted full tc-script bash "$work/n16/script.sh"
        counted reapply tc-script bash "$work/n16/rescript.sh"
        counted delta tc-script bash "$work/n16/delta.sh"
        reset_trees 16
        counted full tc-batch tc -batch "$work/n16/batch"
        counted reapply tc-batch tc -batch "$work/n16/rebatch"
        counted delta tc-batch tc -batch "$work/n16/delta.batch"
fi

# tbsd's own work at every size, counted rather than timed: the
# instructions it executes in user space (callgrind) and its system calls
# (strace), tc -batch's beside them. The guest's clock also measures how
# busy the host was and how the guest's kernel fares as more interfaces are
# visited (bench/path-cost); these counts say whether tbsd's own work grows
# faster than the number of interfaces.
work_out_ok() { # WHAT WORD: every line tbsd printed ends in WORD
        if grep -qv ": $2\$" "$work/out" || [ ! -s "$work/out" ]; then
                fail "$1: not '$2': $(grep -v ": $2\$" "$work/out" | head -3)"
        fi
}
instructions() { # CMD...: user-space instructions executed (callgrind's Ir);
        # the profile goes to $cg_out (none unless set)
        local f=$work/callgrind.txt n
        valgrind --tool=callgrind --callgrind-out-file="${cg_out:-/dev/null}" "$@" >"$work/out" 2>"$f" ||
                fail "under callgrind: '$*' failed: $(tail -3 "$f")"
        n=$(awk '/Collected :/ { print $NF }' "$f")
        [ -n "$n" ] || fail "no instruction count from callgrind for '$*'"
        echo "$n"
}
# profile N FILE: where tbsd's instructions went in a callgrind profile, by
# function, as P lines: self (the function's own instructions) and
# inclusive (with those of the functions it called).
profile() {
        local mode opt
        for mode in self incl; do
                opt=--inclusive=no
                [ "$mode" = incl ] && opt=--inclusive=yes
                callgrind_annotate --threshold=100 "$opt" "$2" |
                        awk -v m="$mode" -v n="$1" '
                        /PROGRAM TOTALS/ { next }
                        /^ *[0-9,]+ \([ 0-9.]+%\)  / {
                                c = $1; gsub(",", "", c)
                                sub(/^ *[0-9,]+ \([ 0-9.]+%\)  /, "")
                                print "P " m " " n " " c " " $0
                        }' || fail "callgrind_annotate $opt $2"
        done
}
if [ "$quick" != daemon ] && command -v strace >/dev/null && command -v valgrind >/dev/null; then
        for n in "${sizes[@]}"; do
                d=$work/n$n
                reset_trees "$nlinks"
                cg_out=
                if [[ $profiled == *" $n "* ]]; then
                        cg_out=$work/callgrind-$n.out
                fi
                v=$(instructions "$TBSD" --once --config-dir "$d/base"); work_out_ok "callgrind full N=$n" applied
                echo "R work_instr_full $n tbsd 1 $v"
                if [ -n "$cg_out" ] && command -v callgrind_annotate >/dev/null; then
                        profile "$n" "$cg_out"
                fi
                cg_out=
                v=$(instructions "$TBSD" --once --config-dir "$d/base"); work_out_ok "callgrind re-apply N=$n" unchanged
                echo "R work_instr_reapply $n tbsd 1 $v"
                reset_trees "$nlinks"
                v=$(syscalls "$TBSD" --once --config-dir "$d/base"); work_out_ok "strace full N=$n" applied
                echo "R work_syscalls_full $n tbsd 1 $v"
                v=$(syscalls "$TBSD" --once --config-dir "$d/base"); work_out_ok "strace re-apply N=$n" unchanged
                echo "R work_syscalls_reapply $n tbsd 1 $v"
                reset_trees "$nlinks"
                v=$(instructions tc -batch "$d/batch")
                echo "R work_instr_full $n tc-batch 1 $v"
                reset_trees "$nlinks"
                v=$(syscalls tc -batch "$d/batch")
                echo "R work_syscalls_full $n tc-batch 1 $v"
                reset_trees "$nlinks"
                v=$(instructions "$floor" "${ifindex[@]:0:n}")
                echo "R work_instr_full $n floor 1 $v"
                reset_trees "$nlinks"
                v=$(syscalls "$floor" "${ifindex[@]:0:n}")
                echo "R work_syscalls_full $n floor 1 $v"
        done
        echo "bench: counted instructions and system calls" >&2
fi

# What `replace` does when the script is simply run again (Linux 6.1).
reset_trees "$nlinks"
bash "$work/n1/replace.sh" >>"$log" 2>&1 || fail "replace script on a fresh interface"
rc=0; out=$(bash -c "set -e; $(cat "$work/n1/replace.sh")" 2>&1) || rc=$?
echo "I replace_rerun_exit $rc $(head -1 <<<"$out")"
reset_trees 256

# ---- the daemon with 256 configured interfaces ----
[ -x "$TBS_BUILD_DIR/tests/nic/tai-offset" ] && "$TBS_BUILD_DIR/tests/nic/tai-offset" 37 >/dev/null 2>&1 || true
conf=$work/daemon
mkdir -p "$conf"
# b0 runs ptp4l: its messages (priority 0) must reach a queue without etf
# (etf drops packets without SO_TXTIME), so priority 0 goes to queue 3.
jq '.root.priority_map[0] = 3 | .txqueues |= .[0:3] | del(.allow) |
    . + {"clock": {"ptp4l_socket": "/run/ptp4l-b0", "max_master_offset_ns": 1000000000}}' \
        "$work/n256/base/b0.json" > "$conf/b0.json"
ptp4l -i b0 -S -2 --uds_address=/run/ptp4l-b0 -m >>"$TBS_OUT/ptp4l.log" 2>&1 &
PTP4L_PID=$!
start_system_bus
# The daemon runs with the environment its unit gives it.
unit_tunables=$(sed -n 's/^Environment=GLIBC_TUNABLES=//p' "$TBS_BUILD_DIR/units/tbsd.service")
[ -n "$unit_tunables" ] || fail "no GLIBC_TUNABLES in $TBS_BUILD_DIR/units/tbsd.service"
echo "I daemon_env GLIBC_TUNABLES=$unit_tunables"
# The daemon starts with b0 only; the other 255 schedules arrive in the
# folder and one Reload() applies them: the daemon's full apply, timed in a
# bus client like its unchanged re-apply below.
GLIBC_TUNABLES=$unit_tunables start_tbsd "$conf"
grep -qz "^GLIBC_TUNABLES=$unit_tunables\$" "/proc/$TBSD_PID/environ" || fail "the daemon runs without the unit's GLIBC_TUNABLES"
wait_until 60 bash -c "[ \"\$('$TBSCTL' --json status b0 | jq -r .state)\" = configured ]" ||
        fail "b0 not configured with ptp4l: $("$TBSCTL" --json status b0 | jq -c '{state, state_reason}')"
all_up() {
        [ "$("$TBSCTL" --json list | jq '[.[] | select(.state == "configured" or .state == "degraded")] | length')" = "$nmax" ]
}
for ((r = 1; r <= runs; r++)); do
        if [ "$r" -gt 1 ]; then   # back to b0 only (not timed)
                rm -f "$conf"/b[1-9]*.json
                "$bus_bench" reload >/dev/null || fail "Reload() removing $((nmax - 1)) schedules failed"
        fi
        for ((i = 1; i < nmax; i++)); do cp "$work/n256/base/b$i.json" "$conf/"; done
        out=$("$bus_bench" reload) || fail "Reload() with $((nmax - 1)) new schedules failed"
        echo "R daemon_reload_full $nmax tbsd $r $(awk '{ print $2 }' <<<"$out")"
        all_up || fail "the daemon did not apply $nmax links: $("$TBSCTL" list | grep -v configured | head -3)"
done

# What the daemon sends on the bus for its full apply: every signal of one
# more (untimed) Reload() of the 255 new schedules, counted by member
# (busctl is the oracle), each link's last PropertiesChanged with it.
rm -f "$conf"/b[1-9]*.json
"$bus_bench" reload >/dev/null || fail "Reload() removing $((nmax - 1)) schedules failed"
busctl --system monitor --json=short --match "type='signal',sender='org.tsn.Tbs'" \
        > "$work/signals.json" 2>/dev/null &
busmon=$!
sleep 1
for ((i = 1; i < nmax; i++)); do cp "$work/n256/base/b$i.json" "$conf/"; done
"$bus_bench" reload >/dev/null || fail "Reload() with $((nmax - 1)) new schedules failed (signal count)"
all_up || fail "the daemon did not apply $nmax links (signal count)"
sleep 2
kill "$busmon" 2>/dev/null || true
wait "$busmon" 2>/dev/null || true
echo "I daemon_signals_full $(jq -r 'select(.type == "signal") | .member' "$work/signals.json" | sort | uniq -c |
        awk '{ printf "%s=%s ", $2, $1 }')"

manual_status() {
        tc -s qdisc show dev b0 && pmc -u -b 0 -s /run/ptp4l-b0 'GET TIME_STATUS_NP'
}
manual_status >"$work/out" 2>&1 && grep -q gmPresent "$work/out" || fail "pmc does not answer: $(cat "$work/out")"
for ((r = 1; r <= runs; r++)); do
        for ((c = 1; c <= status_calls; c++)); do
                timed status "$nmax" tbsctl "$r.$c" "$TBSCTL" status b0
                timed status "$nmax" tc+pmc "$r.$c" manual_status
        done
        out=$("$bus_bench" describe b0 "$describe_s") || fail "bus-bench describe failed"
        echo "R describe_per_s $nmax tbsd $r $(awk '{ print $6 }' <<<"$out")"
done

# The daemon's own re-apply of an unchanged configuration: Reload() of all
# links and Apply() of one, timed inside one bus client. The files have been
# quiet for more than 2 s, so a reload only compares their stat.
sleep 3
for ((r = 1; r <= runs; r++)); do
        out=$("$bus_bench" reload) || fail "Reload() failed"
        echo "R daemon_reload $nmax tbsd $r $(awk '{ print $2 }' <<<"$out")"
        out=$("$bus_bench" apply b1) || fail "Apply() failed"
        echo "R daemon_apply_one $nmax tbsd $r $(awk '{ print $2 }' <<<"$out")"
done
all_up || fail "links not applied after Reload(): $("$TBSCTL" list | grep -v configured | head -3)"

echo "R vmrss_kib $nmax tbsd 1 $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"
echo "R vmhwm_kib $nmax tbsd 1 $(awk '/^VmHWM/ { print $2 }' /proc/$TBSD_PID/status)"
# Where the resident memory is, per mapping (S lines: for the log, not the
# table): resident KiB, anonymous (written) KiB, the mapping.
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 == "" ? "[anon]" : $6 }
     /^Rss:/ { rss[name] += $2 } /^Anonymous:/ { anon[name] += $2 }
     END { for (n in rss) if (rss[n] >= 8) printf "S smaps %6d %6d %s\n", rss[n], anon[n], n }' \
        "/proc/$TBSD_PID/smaps" | sort -k3 -n -r

# Idle: nothing asks, so with the defaults the daemon takes no statistics
# samples (it samples only while someone reads them, for 3 intervals after
# the last read) and checks b0's clock every 2 s.
ticks() { awk '{ print $14 + $15 }' "/proc/$TBSD_PID/stat"; }
# How often the daemon went to sleep waiting for something: its wakeups.
wakeups() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$TBSD_PID/status"; }
# idle_window PREFIX: after 5 s of calm, the daemon's CPU ticks and the wall
# clock over idle_s seconds, as PREFIX_cpu_ticks and PREFIX_wall_us: three
# windows of a third each, so that one stray event (a tick charged late by
# the guest's clock, a notification) moves one window, not the median.
idle_window() {
        local t0 t1 s e w v0 v1
        sleep 5
        for w in 1 2 3; do
                t0=$(ticks); v0=$(wakeups); s=$(now_us)
                sleep "$((idle_s / 3))"
                t1=$(ticks); v1=$(wakeups); e=$(now_us)
                echo "R ${1}_cpu_ticks $nmax tbsd $w $(( t1 - t0 ))"
                echo "R ${1}_wakeups $nmax tbsd $w $(( v1 - v0 ))"
                echo "R ${1}_wall_us $nmax tbsd $w $(( e - s ))"
        done
}
idle_window idle
echo "I clk_tck $(getconf CLK_TCK)"
echo "R vmrss_after_idle_kib $nmax tbsd 1 $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"

echo "R rssanon_kib $nmax tbsd 1 $(awk '/^RssAnon/ { print $2 }' /proc/$TBSD_PID/status)"
echo "R rssfile_kib $nmax tbsd 1 $(awk '/^RssFile/ { print $2 }' /proc/$TBSD_PID/status)"
# What the daemon alone holds (pages no other process maps) and its share
# of the shared ones.
echo "R uss_kib $nmax tbsd 1 $(awk '/^Private_(Clean|Dirty):/ { n += $2 } END { print n }' /proc/$TBSD_PID/smaps_rollup)"
echo "R pss_kib $nmax tbsd 1 $(awk '/^Pss:/ { print $2 }' /proc/$TBSD_PID/smaps_rollup)"

# One etf delta changed in N files, through the daemon (after the memory
# figures above, so that they stay those of the calls before): the N files get
# queue 0's new delta, then one Reload() (timed in the bus client) re-reads
# those N (the others only by their stat), plans each against one dump of
# every tree and sends one request per interface; tc -batch's N `qdisc
# replace ... etf` lines are the cells' "delta" of this boot. The files
# change back (untimed) before the next size. Every file has been quiet for
# more than 2 s before a change, so only the changed ones are read.
jq '.txqueues[0].delta_ns = 210000' "$conf/b0.json" > "$work/daemon-b0-delta.json"
cp "$conf/b0.json" "$work/daemon-b0-base.json"
for ((r = 1; r <= runs; r++)); do
        for n in 1 16 64 256; do
                for v in delta base; do
                        sleep 2.5
                        for ((i = 0; i < n; i++)); do
                                if [ "$i" = 0 ] && [ "$v" = delta ]; then
                                        cp "$work/daemon-b0-delta.json" "$conf/b0.json.new"
                                elif [ "$i" = 0 ]; then
                                        cp "$work/daemon-b0-base.json" "$conf/b0.json.new"
                                else
                                        cp "$work/n256/$v/b$i.json" "$conf/b$i.json.new"
                                fi
                                mv "$conf/b$i.json.new" "$conf/b$i.json"
                        done
                        out=$("$bus_bench" reload) || fail "Reload() with $n changed deltas failed"
                        [ "$v" = delta ] && echo "R daemon_delta $n tbsd $r $(awk '{ print $2 }' <<<"$out")"
                        want=$([ "$v" = delta ] && echo 210000 || echo 200000)
                        got=$(etf_delta "b$((n - 1))" 100:1)
                        [ "$got" = "$want" ] || fail "Reload() with $n changed deltas: b$((n - 1))'s etf delta $got, not $want"
                done
        done
done
all_up || fail "links not configured after the delta reloads: $("$TBSCTL" list | grep -v configured | head -3)"

# The launch-time monitor's cost (docs/fidelity.md): the daemon's CPU over
# 20 s (two windows of 10 s) with queue 0 of b1..b16 monitored at the
# default setting (every 1 s, 4 frames), against the same windows just
# before without monitors; the daemon idle as above (no statistics
# sampled, no metrics file), so that what it spends is the monitors'.
# Then the schedules are put back.
monitor_cost() {
        local i w t0 t1 v0 v1 s e s0 e0 sent0 sent1
        monitor_sent() {
                local n=0 i
                for ((i = 1; i <= 16; i++)); do
                        n=$((n + $("$TBSCTL" --json status "b$i" | jq '.txqueues[0].monitor.sent // 0')))
                done
                echo "$n"
        }
        monitor_windows() { # PREFIX
                sleep 5
                for w in 1 2; do
                        t0=$(ticks); v0=$(wakeups); s=$(now_us)
                        sleep 10
                        t1=$(ticks); v1=$(wakeups); e=$(now_us)
                        echo "R ${1}_cpu_ticks 16 tbsd $w $(( t1 - t0 ))"
                        echo "R ${1}_wakeups 16 tbsd $w $(( v1 - v0 ))"
                        echo "R ${1}_wall_us 16 tbsd $w $(( e - s ))"
                done
        }
        monitor_windows monitor_none
        for ((i = 1; i <= 16; i++)); do
                jq '.txqueues[0].monitor = {"interval_ms": 1000, "frames": 4}' "$work/n256/base/b$i.json" > "$conf/b$i.json"
        done
        "$bus_bench" reload >/dev/null || fail "Reload() with 16 monitored queues failed"
        wait_until 30 bash -c "[ \$('$TBSCTL' --json status b16 | jq '.txqueues[0].monitor.sent // 0') -ge 4 ]" ||
                fail "the monitor of b16 sends nothing: $("$TBSCTL" --json status b16 | jq -c '.txqueues[0].monitor')"
        sent0=$(monitor_sent); s0=$(now_us)
        monitor_windows monitor_16
        sent1=$(monitor_sent); e0=$(now_us)
        echo "R monitor_probes_per_s 16 tbsd 1 $(( (sent1 - sent0) * 1000000 / (e0 - s0) ))"
        echo "R vmrss_monitor_kib 16 tbsd 1 $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"
        for ((i = 1; i <= 16; i++)); do cp "$work/n256/base/b$i.json" "$conf/"; done
        "$bus_bench" reload >/dev/null || fail "Reload() without the monitors failed"
        echo "bench: measured the launch-time monitor" >&2
}
monitor_cost

# The same idle window with a metrics file (for node_exporter): then the
# daemon samples every second, whoever reads: what that sampling costs.
kill "$TBSD_PID"
wait "$TBSD_PID" 2>/dev/null || true
GLIBC_TUNABLES=$unit_tunables start_tbsd "$conf" --metrics-file "$TMPDIR/tbsd.prom"
for ((t = 0; t < 1200; t++)); do all_up && break; sleep 0.5; done
idle_window idle_metrics
echo "R vmrss_metrics_kib $nmax tbsd 1 $(awk '/^VmRSS/ { print $2 }' /proc/$TBSD_PID/status)"


kill "$TBSD_PID" "$PTP4L_PID" 2>/dev/null || true
wait 2>/dev/null || true

# ---- memory at scale: the daemon with nmax, then more configured links ----
# A fresh daemon starts with the schedules of b0..b(nmax-1) (no clock
# check); Reload()s add the rest in steps (to 2 nmax, then to nlinks).
# VmRSS after each step, once all links are configured and the daemon has
# been quiet for 5 s (longer than it keeps sampling statistics after the
# last read, 3 intervals of 1 s, before it drops the samples and trims):
# three points, to see whether memory grows linearly.
# VmRSS also moves with when glibc hands free pages back; the heap in use
# (mallinfo2(), which the daemon logs at debug level when it trims after a
# load) does not. Debug logging slows it down: nothing here is timed.
configured() { # how many links are configured
        "$TBSCTL" --json list | jq '[.[] | select(.state == "configured")] | length'
}
all_configured() { [ "$(configured)" = "$1" ]; }
rss_quiet() { # N: VmRSS, RssAnon and heap in use of the daemon with N links, as R lines
        local heap
        sleep 5
        echo "R vmrss_scale_kib $1 tbsd 1 $(awk '/^VmRSS/ { print $2 }' "/proc/$TBSD_PID/status")"
        echo "R rssanon_scale_kib $1 tbsd 1 $(awk '/^RssAnon/ { print $2 }' "/proc/$TBSD_PID/status")"
        heap=$(sed -n 's/.*heap: \([0-9]*\) KiB in use.*/\1/p' "$TMPDIR/tbsd-scale.log" | tail -1)
        [ -z "$heap" ] || echo "R heap_scale_kib $1 tbsd 1 $heap"
}
add_schedules() { # FROM TO: copy the schedules of bFROM..b(TO-1) into the folder
        local i files=()
        for ((i = $1; i < $2; i++)); do files+=("$work/n$nlinks/base/b$i.json"); done
        cp "${files[@]}" "$scale/"
}
if [ "$nlinks" -gt "$nmax" ]; then
        reset_trees "$nlinks"
        scale=$work/daemon-scale
        mkdir -p "$scale"
        add_schedules 0 "$nmax"
        GLIBC_TUNABLES=$unit_tunables "$TBSD" --config-dir "$scale" --log-level debug \
                >"$TMPDIR/tbsd-scale.log" 2>&1 &
        TBSD_PID=$!
        wait_until 120 all_configured "$nmax" || fail "the daemon did not configure $nmax links: $(configured)"
        rss_quiet "$nmax"
        have=$nmax
        for step in $((2 * nmax)) "$nlinks"; do
                if [ "$step" -le "$have" ] || [ "$step" -gt "$nlinks" ]; then
                        continue
                fi
                add_schedules "$have" "$step"
                "$bus_bench" reload >/dev/null || fail "Reload() with $((step - have)) new schedules failed"
                [ "$(configured)" = "$step" ] || fail "the daemon did not configure $step links: $(configured)"
                rss_quiet "$step"
                have=$step
        done
        kill "$TBSD_PID"
        wait "$TBSD_PID" 2>/dev/null || true
fi
echo "bench: done" >&2

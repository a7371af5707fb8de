# tbsd --once against the floor program (bench/floor.c) in one guest boot,
# alternately, for comparing builds of tbsd by their whole-process time and
# their counted costs. Not part of bench/run; a development tool:
#
#   TBS_BUILD_DIR=$PWD/build-bench tests/kernel/uml-run --mem 1G --timeout 2400 \
#           bench/once-vs-floor.sh PAIRS ROUNDS "SIZES" TBSD...
#
# PAIRS veth pairs (4 TX queues each; the benchmark has 1024), bN carrying
# the benchmark's tree (an mqprio root, four etf children); SIZES: the N
# interfaces each tool configures (b0..b(N-1)); TBSD: one or more tbsd
# binaries with distinct file names (e.g. copies of two commits'
# build-bench/daemon/tbsd as /tmp/tbsd-old, /tmp/tbsd-new). For each
# size and tool, once: page faults (minor, major; /usr/bin/time) and system
# calls (strace -c), and each tbsd's own phases (--log-level debug, three
# runs); then ROUNDS rounds of every tool in turn, each after the default
# roots are back and a 0.2 s pause, and the medians. Output lines:
#   COUNT N TOOL faults MINOR MAJOR syscalls S
#   DEBUG N TOOL <tbsd's debug line>
#   TIME N TOOL median MS /floor RATIO lower-quartile MS /floor RATIO [each run, µs]
set +e +o pipefail
np=$1 rounds=$2
read -r -a sizes <<< "$3"
shift 3
tools=("$@" floor)
floor=$TBS_BUILD_DIR/bench/floor
work=$TMPDIR/once-vs-floor
mkdir -p "$work"
max=0
for n in "${sizes[@]}"; do [ "$n" -gt "$max" ] && max=$n; done
[ "$max" -le "$np" ] || fail "a size is larger than the $np pairs"

for ((i = 0; i < np; i++)); do
        echo "link add b$i numtxqueues 4 numrxqueues 4 type veth peer name p$i numtxqueues 4 numrxqueues 4"
done > "$work/links"
for ((i = 0; i < np; i++)); do echo "link set b$i up"; echo "link set p$i up"; done >> "$work/links"
ip -batch "$work/links" || fail "cannot create $np veth pairs"
ifindex=()
for ((i = 0; i < max; i++)); do read -r "ifindex[i]" < "/sys/class/net/b$i/ifindex"; done
. "$TBS_SOURCE_DIR/bench/schedule.sh"
for n in "${sizes[@]}"; do
        mkdir -p "$work/cfg$n"
        for ((i = 0; i < n; i++)); do
                bench_schedule "b$i" > "$work/cfg$n/b$i.json"
        done
done
for ((i = 0; i < max; i++)); do echo "qdisc del dev b$i root"; done > "$work/reset"

reset() { tc -force -batch "$work/reset" >/dev/null 2>&1; sleep 0.5; }
med() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) / 1000 }'; }
# The lower quartile: on a busy host the slow runs are the host's, not the tool's.
q1() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 3) / 4)] / 1000 }'; }
cmd() { # TOOL N: the command line
        if [ "$1" = floor ]; then echo "$floor ${ifindex[*]:0:$2}"; else echo "$1 --once --config-dir $work/cfg$2"; fi
}

for n in "${sizes[@]}"; do
        declare -A T=()
        for t in "${tools[@]}"; do
                # shellcheck disable=SC2046
                reset; strace -f -c -o "$work/sc" $(cmd "$t" "$n") >/dev/null 2>&1
                # shellcheck disable=SC2046
                reset; /usr/bin/time -f "%R %F" -o "$work/tm" $(cmd "$t" "$n") >/dev/null 2>&1
                echo "COUNT $n $(basename "$t") faults $(cat "$work/tm") syscalls $(awk '$NF == "total" { print $4 }' "$work/sc")"
                [ "$t" = floor ] && continue
                for _ in 1 2 3; do
                        # shellcheck disable=SC2046
                        reset; $(cmd "$t" "$n") --log-level debug 2>&1 >/dev/null |
                                grep -E "read and checked|trees read|link\(s\) applied|dumped and" | sed "s|^|DEBUG $n $(basename "$t") |"
                done
        done
        for ((r = 0; r < rounds; r++)); do
                for t in "${tools[@]}"; do
                        reset; sleep 0.2
                        s=$EPOCHREALTIME
                        # shellcheck disable=SC2046
                        $(cmd "$t" "$n") > "$work/out" 2>/dev/null || echo "FAILED: $t at N=$n"
                        e=$EPOCHREALTIME
                        T[$t]+="$(( ${e/./} - ${s/./} )) "
                done
        done
        fm=$(printf '%s\n' ${T[floor]} | med)
        fq=$(printf '%s\n' ${T[floor]} | q1)
        for t in "${tools[@]}"; do
                m=$(printf '%s\n' ${T[$t]} | med)
                q=$(printf '%s\n' ${T[$t]} | q1)
                echo "TIME $n $(basename "$t") median $m /floor $(awk -v a="$m" -v b="$fm" 'BEGIN { printf "%.2f", a / b }')" \
                        "lower-quartile $q /floor $(awk -v a="$q" -v b="$fq" 'BEGIN { printf "%.2f", a / b }') [${T[$t]}]"
        done
        unset T
done

# Not a test: tbsd --once's user-space instructions (callgrind) for a full
# apply at N = 1 and N = 64, for each tbsd binary given, in the UML guest
# with bench/guest.sh's schedule files; what bench/guest.sh counts, without
# the rest of the benchmark. Per added interface: (I(64) - I(1)) / 63.
#   tests/kernel/uml-run --timeout 1200 --keep bench/count-once.sh \
#       OLD/build-rel/daemon/tbsd build-rel/daemon/tbsd
# (release builds: meson setup build-rel -Dbuildtype=release). The lines
# "BINARY N INSTRUCTIONS" are printed and kept in the results folder with
# the profiles (cg.NAME.N, NAME the folder holding the build).
N=64
for ((i = 0; i < N; i++)); do make_veth "b$i" "p$i" 4; done
. "$TBS_SOURCE_DIR/bench/schedule.sh"
for n in 1 $N; do
        mkdir -p "$TMPDIR/n$n"
        for ((i = 0; i < n; i++)); do bench_schedule "b$i" > "$TMPDIR/n$n/b$i.json"; done
done
reset() { for ((i = 0; i < N; i++)); do tc qdisc del dev "b$i" root 2>/dev/null || true; done; }
for bin in "$@"; do
        name=$(basename "$(dirname "$(dirname "$(dirname "$bin")")")")
        for n in 1 $N; do
                reset
                valgrind --tool=callgrind --callgrind-out-file="$TBS_OUT/cg.$name.$n" \
                        "$bin" --once --config-dir "$TMPDIR/n$n" > "$TBS_OUT/out" 2> "$TBS_OUT/cg.txt" ||
                        fail "callgrind $bin N=$n: $(tail -3 "$TBS_OUT/cg.txt")"
                if grep -qv ": applied$" "$TBS_OUT/out"; then
                        fail "$bin N=$n: not applied: $(head -3 "$TBS_OUT/out")"
                fi
                echo "$bin $n $(awk '/Collected :/ { print $NF }' "$TBS_OUT/cg.txt")" >> "$TBS_OUT/result.txt"
        done
done
cat "$TBS_OUT/result.txt"

# The kernel's tc-testing cases for etf, taprio, mqprio and cbs, as
# translated in tests/kernel/peer-cases.json, against tc in one guest.
# Each case gets a fresh veth (pc0, its queue count) and runs twice:
#   tc:   the case's commands, each with the exit status the kernel gives
#         (Linux 6.1's, or the step's exit_by_kernel for this kernel);
#         the tree left is read with tc -j -d (child handles aside);
#   tbsd: the case's schedule on a fresh pc0.
# status "tree":    tbsd --once applies the schedule and builds exactly tc's
#                   tree, re-applies it unchanged, tbsctl import writes a
#                   file that validates and applies unchanged; with
#                   "classes", tc class show agrees too; with "remove",
#                   tbsd --remove says what each step says and leaves the
#                   tree tc's deletes leave.
# status "refused": the kernel refuses the last command, and tbsd refuses
#                   the schedule before installing anything, with a line
#                   naming the file and matching "refusal" (an extended
#                   regular expression: the path and reason).
# status "out" with a schedule: tc takes it, tbsd refuses it (the format's
#                   rule named in "refusal"); without, only listed.
# status "pending": a shape being added; listed (with the schedule it will
#                   have), not run (docs/testing.md counts them).
CASES=$TBS_SOURCE_DIR/tests/kernel/peer-cases.json
DEV=pc0
conf=$TMPDIR/peer-conf
imp=$TMPDIR/peer-import
mkdir -p "$conf" "$imp"

# fresh_dev QUEUES: pc0/pc1 anew with QUEUES TX queues.
fresh_dev() {
        ip link del "$DEV" 2>/dev/null || true
        make_veth "$DEV" pc1 "$1"
}

# tree: pc0's qdiscs as tc -j -d shows them, without the handles of
# non-root qdiscs (tbsd picks its own): a qdisc inside one of them (cbs's
# pfifo) names its parent by where that one hangs ("in 8001:8"); sorted.
tree() {
        tc -j -d qdisc show dev "$DEV" | jq -S -c '
                (map(select(.root != true and .handle != "0:") | {key: .handle, value: .parent}) | from_entries) as $inner
                | map(if .root then . else del(.handle) end
                      | if (.parent // "") as $p | $inner | has($p) then .parent = "in " + $inner[.parent] else . end)
                | sort_by(.parent // "")'
}

# same_tree WANT WHAT: pc0's tree is WANT (printed only when it is not).
same_tree() {
        local got
        got=$(tree)
        [ "$got" = "$1" ] || fail "$2: expected $1, got $got"
        pass "$2"
}

# classes: pc0's classes as tc class show lists them (iproute2 6.1 has no
# JSON for classes), without the leaf qdisc handles, sorted.
classes() {
        tc class show dev "$DEV" | sed 's/ leaf [0-9a-f]*://; s/ *$//' | sort | tr '\n' ';'
}

# The running kernel's version (6.1, 6.12), the key of exit_by_kernel.
KVER=$(uname -r | cut -d. -f1,2)

# run_tc CASE KEY: run the case's tc commands under KEY (tc or remove_tc),
# each must exit as the case says for this kernel.
run_tc() {
        local n i cmd want rc
        n=$(jq --arg k "$2" '.[$k] // [] | length' <<<"$1")
        for ((i = 0; i < n; i++)); do
                cmd=$(jq -r --arg k "$2" --argjson i "$i" '.[$k][$i].run' <<<"$1")
                want=$(jq -r --arg k "$2" --argjson i "$i" --arg v "$KVER" \
                        '.[$k][$i] | .exit_by_kernel[$v] // .exit' <<<"$1")
                set +e
                ${cmd//\$DEV/$DEV} 2>"$TMPDIR/tc.err"
                rc=$?
                set -e
                [ "$rc" = "$want" ] || fail "$id: '${cmd//\$DEV/$DEV}' exited $rc, the case expects $want: $(cat "$TMPDIR/tc.err")"
        done
}

# write_schedule CASE: the case's schedule as $conf/pc0.json (no other file).
write_schedule() {
        rm -f "$conf"/*.json
        jq --arg dev "$DEV" '.schedule | .interface = $dev' <<<"$1" > "$conf/$DEV.json"
}

# once DIR: tbsd --once on DIR's files; its line on stdout (what it logs
# on the way goes to $TMPDIR/once.err).
once() {
        "$TBSD" --once --config-dir "$1" 2>"$TMPDIR/once.err" || true
}

declare -A seen
for id in $(jq -r '.cases[].id' "$CASES"); do
        c=$(jq -c --arg id "$id" '.cases[] | select(.id == $id)' "$CASES")
        status=$(jq -r .status <<<"$c")
        seen[$status]=$(( ${seen[$status]:-0} + 1 ))
        queues=$(jq -r .queues <<<"$c")
        case $status in
        tree)
                fresh_dev "$queues"
                run_tc "$c" tc
                want=$(tree)
                want_classes=$(classes)
                run_tc "$c" remove_tc
                want_removed=$(tree)
                fresh_dev "$queues"
                rm -f "$conf"/*.json
                if jq -e 'has("schedule")' <<<"$c" >/dev/null; then
                        write_schedule "$c"
                        assert_eq "$(once "$conf")" "$DEV: applied" "$id: tbsd --once"
                        same_tree "$want" "$id: tbsd's tree is tc's"
                        if jq -e '.classes' <<<"$c" >/dev/null; then
                                assert_eq "$(classes)" "$want_classes" "$id: tbsd's classes are tc's"
                        fi
                        assert_eq "$(once "$conf")" "$DEV: unchanged" "$id: tbsd --once again"
                        rm -f "$imp"/*.json
                        "$TBSCTL" import "$DEV" -o "$imp/$DEV.json" || fail "$id: tbsctl import failed"
                        "$TBSCTL" validate "$imp/$DEV.json" >/dev/null || fail "$id: tbsctl validate refused the import"
                        assert_eq "$(once "$imp")" "$DEV: unchanged" "$id: the imported file applies unchanged"
                        same_tree "$want" "$id: tree after the import's apply"
                fi
                n=$(jq '.remove // [] | length' <<<"$c")
                for ((i = 0; i < n; i++)); do
                        says=$(jq -r --argjson i "$i" '.remove[$i]' <<<"$c")
                        assert_eq "$("$TBSD" --remove "$DEV" --config-dir "$conf" 2>&1)" "$DEV: $says" \
                                "$id: tbsd --remove, step $((i + 1))"
                done
                if [ "$n" -gt 0 ]; then
                        same_tree "$want_removed" "$id: the tree after removal is tc's after its deletes"
                fi
                ;;
        refused | out)
                jq -e 'has("schedule")' <<<"$c" >/dev/null || continue
                fresh_dev "$queues"
                run_tc "$c" tc
                fresh_dev "$queues"
                want=$(tree)
                write_schedule "$c"
                refusal=$(jq -r .refusal <<<"$c")
                set +e
                out=$("$TBSD" --once --config-dir "$conf" 2>&1)
                rc=$?
                set -e
                [ "$rc" != 0 ] || fail "$id: tbsd --once took the schedule: $out"
                pass "$id: tbsd --once refuses: $out"
                # tbsd --check lists every problem of the file, --once the first.
                set +e
                out=$("$TBSD" --check --config-dir "$conf" 2>&1)
                rc=$?
                set -e
                [ "$rc" != 0 ] || fail "$id: tbsd --check took the schedule: $out"
                assert_contains "$out" "$conf/$DEV.json: " "$id: tbsd's refusal names the file"
                grep -qE -- "$refusal" <<<"$out" || fail "$id: tbsd's refusal does not match '$refusal': $out"
                pass "$id: tbsd --check's lines match '$refusal'"
                same_tree "$want" "$id: nothing installed"
                ;;
        pending) ;;
        *) fail "$id: unknown status $status" ;;
        esac
done
echo "cases: tree ${seen[tree]:-0}, refused ${seen[refused]:-0}, pending ${seen[pending]:-0}, out ${seen[out]:-0}"

# Software taprio entries under 100 us (issue 38 point 2d), detd's software
# schedule (20 ms: 250000, 12176 and 19737824 ns): refused by the
# "software-gate-interval" safety check without "allow", with one line
# naming file, field, check and how to accept it, and nothing installed;
# with "allow": the tree tbsd installs equals the one tc builds from the
# same schedule (tc -j -d, child handles aside), a second apply finds it
# unchanged, and tbsctl import of either tree writes the allow, validates
# and applies unchanged.
make_veth va vb 4       # tbsd's
make_veth vc vd 4       # tc's
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

# schedule_file IFACE [ALLOW_JSON]
schedule_file() {
        local allow=""
        [ -z "${2:-}" ] || allow=", \"allow\": $2"
        cat > "$conf/$1.json" <<EOJ
{
  "interface": "$1",
  "root": {
    "qdisc": "taprio", "handle": "100:", "num_tc": 2, "mode": "software", "clockid": "CLOCK_TAI",
    "priority_map": [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
    "base_time_ns": 1000,
    "entries": [{"gate_mask": "0x1", "interval_ns": 250000},
                {"gate_mask": "0x2", "interval_ns": 12176},
                {"gate_mask": "0x1", "interval_ns": 19737824}]
  }$allow
}
EOJ
}

# tree DEV: the device's qdiscs as tc -j -d shows them, the handles of
# children (which the kernel or tbsd picks) left out.
tree() {
        tc_j -d qdisc show dev "$1" | jq -S -c '[.[] | if .root then . else del(.handle) end] | sort_by(.parent)'
}

# run NAME CMD...: CMD's exit status in $rc, standard output in $out, error in $err.
run() {
        set +e
        out=$("${@:2}" 2>"$TMPDIR/$1.err")
        rc=$?
        set -e
        err=$(cat "$TMPDIR/$1.err")
}

# 1. Without "allow": refused before anything is sent.
schedule_file va
line="$conf/va.json: root.entries[1].interval_ns: software-gate-interval: is 12176 ns, shorter than 100000 ns in \
software mode: the kernel runs a timer at the end of every entry, and entries this short take a large share of \
the CPU (docs/schedule-format.md, \"Software intervals\"); use longer entries or \"full-offload\" on a NIC that \
runs gate schedules; to accept it, add \"software-gate-interval\" to \"allow\""
run check "$TBSD" --check --config-dir "$conf"
assert_eq "$rc" 1 "tbsd --check without allow: exit status"
assert_eq "$err" "$line" "tbsd --check without allow: the line"
run validate "$TBSCTL" validate "$conf/va.json"
assert_eq "$rc" 1 "tbsctl validate without allow: exit status"
assert_contains "$err" "$line" "tbsctl validate without allow"
run once "$TBSD" --once --config-dir "$conf"
assert_eq "$rc" 1 "tbsd --once without allow: exit status"
assert_contains "$out$err" "software-gate-interval: is 12176 ns" "tbsd --once without allow"
assert_eq "$(tc_j qdisc show dev va | jq '[.[] | select(.kind == "taprio")] | length')" 0 \
        "taprio qdiscs on va after the refusal"

# 2. With "allow": installed, exactly as tc installs the same schedule.
schedule_file va '["software-gate-interval"]'
run check "$TBSD" --check --config-dir "$conf"
assert_eq "$rc:$err" "0:" "tbsd --check with allow"
run once "$TBSD" --once --config-dir "$conf"
assert_eq "$out" "va: applied" "tbsd --once with allow"
tc qdisc add dev vc root handle 100: taprio num_tc 2 map 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 queues 1@0 1@1 \
        base-time 1000 sched-entry S 01 250000 sched-entry S 02 12176 sched-entry S 01 19737824 clockid CLOCK_TAI
assert_eq "$(qdisc_at va root | jq -c '[.options.schedule[].interval]')" "[250000,12176,19737824]" \
        "tc: va's gate intervals"
want=$(tree vc)
echo "tc's tree: $want"
assert_eq "$(tree va)" "$want" "tbsd's tree (tc -j -d) against tc's"

# 3. Applied again: nothing to do.
before=$(handles va)
run once "$TBSD" --once --config-dir "$conf"
assert_eq "$out" "va: unchanged" "tbsd --once again"
assert_eq "$(handles va)" "$before" "va's handles after the second apply"

# 3b. The daemon: its reconcile and drift check take the tree as it is (a
# kernel that dumps the effective max SDU, Linux 6.12, shows class 1 as
# 15206, what a 12176 ns gate carries at the veth's 10 Gbit/s; 6.1 shows
# none), and a max SDU changed outside tbsd is still drift.
sdu=$(qdisc_at va root | jq -c '.options["max-sdu"]')
echo "va's max SDUs as tc shows them: $sdu"
echo "va's max SDUs as tc shows them: ${sdu:-none}"
start_system_bus
start_tbsd "$conf"
wait_until 20 sh -c "\"$TBSCTL\" --json status va | jq -e '.state == \"configured\"'" ||
        fail "va not configured: $("$TBSCTL" status va 2>&1)"
base=$(qdisc_at va root | jq -c '.options.base_time')
sleep 3
assert_eq "$(handles va)" "$before" "va's handles under the daemon"
assert_eq "$(qdisc_at va root | jq -c '.options.base_time')" "$base" "va's base time under the daemon (not applied again)"
if grep -q "va: drift: " "$TBS_OUT/tbsd.log"; then
        fail "tbsd took the kernel's max SDU for drift: $(grep 'va: drift: ' "$TBS_OUT/tbsd.log")"
fi
pass "no drift for the tree tbsd installed"
if grep -q "va: applied: " "$TBS_OUT/tbsd.log"; then
        fail "the daemon applied va again: $(grep 'va: applied: ' "$TBS_OUT/tbsd.log")"
fi
pass "the daemon found va's tree unchanged"
# tc 6.15 sets max-sdu (iproute2 6.1's tc does not know it): 9000 on class
# 1, less than both the file's none and the gate's value, is drift, and
# restored.
if tc qdisc change dev va root handle 100: taprio base-time 1000 sched-entry S 01 250000 \
        sched-entry S 02 12176 sched-entry S 01 19737824 clockid CLOCK_TAI max-sdu 0 9000; then
        wait_until 10 grep -q "va: drift: " "$TBS_OUT/tbsd.log" ||
                fail "a foreign max SDU of 9000 was not seen as drift: $(tail -5 "$TBS_OUT/tbsd.log")"
        pass "a foreign max SDU is drift: $(grep -m1 'va: drift: ' "$TBS_OUT/tbsd.log")"
        wait_until 10 sh -c "[ \"\$(tc -j qdisc show dev va | jq -c '.[] | select(.root) | .options[\"max-sdu\"]')\" = '$sdu' ]" ||
                fail "the foreign max SDU was not restored: $(tc -j qdisc show dev va)"
        pass "the schedule restored after the foreign max SDU"
else
        echo "this tc cannot set max-sdu: the foreign change is not tried"
fi
kill "$TBSD_PID"
wait "$TBSD_PID" || true
before=$(handles va)

# 4. Import, of tbsd's tree and of tc's: the file says "allow", validates,
# and applies unchanged.
for dev in va vc; do
        doc=$("$TBSCTL" import "$dev") || fail "import $dev failed"
        assert_eq "$(jq -c .allow <<<"$doc")" '["software-gate-interval"]' "import $dev: allow"
        assert_eq "$(jq -c '[.root.mode, [.root.entries[].interval_ns]]' <<<"$doc")" \
                '["software",[250000,12176,19737824]]' "import $dev: mode and intervals"
        rm -f "$conf"/*.json
        printf '%s\n' "$doc" > "$conf/$dev.json"
        "$TBSCTL" validate "$conf/$dev.json" || fail "tbsctl validate refused the import of $dev"
        before=$(handles "$dev")
        run once "$TBSD" --once --config-dir "$conf"
        assert_eq "$out" "$dev: unchanged" "tbsd --once with the import of $dev"
        assert_eq "$(handles "$dev")" "$before" "$dev's handles after applying the import"
done

# 5. The imported file without its allow is refused again (the allow is
# what makes the round trip hold, not a looser validator).
jq 'del(.allow)' <<<"$doc" > "$conf/vc.json"
run check "$TBSD" --check --config-dir "$conf"
assert_eq "$rc" 1 "tbsd --check of the import without allow: exit status"
assert_contains "$err" "root.entries[1].interval_ns: software-gate-interval: is 12176 ns" \
        "tbsd --check of the import without allow"

# 6. tbsd --remove takes va's root for tbsd's (its max SDUs judged as the
# apply judges them) and removes it.
rm -f "$conf"/*.json
schedule_file va '["software-gate-interval"]'
run remove "$TBSD" --remove va --config-dir "$conf"
assert_eq "$rc:$out" "0:va: removed" "tbsd --remove va"
assert_eq "$(tc_j qdisc show dev va | jq '[.[] | select(.kind == "taprio")] | length')" 0 "taprio qdiscs on va after removal"

# Gate lists the kernel cannot take or report (issue 21, bugs 3 and 4):
# validation refuses them with the JSON path and the limit; a gate list at
# the limit installs whole and every interface is still dumped; and a
# foreign taprio too large for a qdisc dump (the kernel then ends every dump
# early, silently) makes tbsd do nothing on the interfaces the dump left out:
# no repair, no removal, no failed state; the tree is checked and repaired
# once the dump is whole again. `tc` is the oracle.
TI=$TBS_BUILD_DIR/tests/tools/taprio-install
make_veth va vb 4       # created first: dumped before vc
make_veth vc vd 4
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

entries() { # N INTERVAL_NS: a JSON gate list
        local i out=""
        for ((i = 0; i < $1; i++)); do
                out+="${out:+,}{\"gate_mask\": $((1 << (i % 2))), \"interval_ns\": $2}"
        done
        echo "[$out]"
}
write_taprio() { # FILE IFACE N [INTERVAL_NS]
        cat > "$1" <<EOS
{ "interface": "$2",
  "root": { "qdisc": "taprio", "handle": "100:", "num_tc": 2,
            "priority_map": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
            "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
            "clockid": "CLOCK_TAI", "base_time_ns": 0, "mode": "software",
            "entries": $(entries "$3" "${4:-300000}") } }
EOS
}
# dumped DEV: whether a full qdisc dump (tc qdisc show) still shows DEV's root.
# (Not `tc | grep -q`: grep leaving early fails the pipe under pipefail.)
dumped() {
        local t
        t=$(tc qdisc show)
        grep -q "^qdisc .* dev $1 root" <<<"$t"
}

# 1. Validation: the issue's 2400 entries, one above the limit, too short
# software intervals, a cycle time of 2^31: refused before anything is sent.
write_taprio "$conf/va.json" va 2400
rc=0
out=$("$TBSD" --check --config-dir "$conf" 2>&1) || rc=$?
assert_eq "$rc" 1 "--check exit status for 2400 entries"
assert_contains "$out" "$conf/va.json: root.entries: must have at most 80 entries" "--check"
assert_contains "$out" "got 2400" "--check"
write_taprio "$conf/va.json" va 81
rc=0
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || rc=$?
assert_eq "$rc" 1 "--once exit status for 81 entries"
assert_contains "$out" "root.entries: must have at most 80 entries" "--once"
assert_eq "$(tc qdisc show dev va | grep -c taprio)" 0 "taprio qdiscs on va after the refusal"
write_taprio "$conf/va.json" va 2 99999
out=$("$TBSD" --check --config-dir "$conf" 2>&1) || true
assert_contains "$out" "root.entries[0].interval_ns: software-gate-interval: is 99999 ns, shorter than 100000 ns in software mode" "--check"
assert_contains "$out" "add \"software-gate-interval\" to \"allow\"" "--check"
write_taprio "$conf/va.json" va 2
sed -i 's/"base_time_ns": 0/"base_time_ns": 0, "cycle_time_ns": 2147483648/' "$conf/va.json"
out=$("$TBSD" --check --config-dir "$conf" 2>&1) || true
assert_contains "$out" "root.cycle_time_ns: must be between 1 and 2147483647, got 2147483648" "--check"

# 2. At the limit: installed whole, reported back, and vc (dumped after va)
# still in the dump.
write_taprio "$conf/va.json" va 80
write_mqprio_schedule "$conf/vc.json" vc 300000 400000
out=$("$TBSD" --once --config-dir "$conf")
assert_eq "$out" "va: applied
vc: applied" "--once at the limit"
assert_eq "$(qdisc_at va root | jq '.options.schedule | length')" 80 "va's gate list length"
assert_eq "$(qdisc_at va root | jq '.options.cycle_time')" 24000000 "va's cycle time"
dumped vc || fail "vc missing from the dump: $(tc qdisc show; tc -s qdisc show dev va | head -5)"
vc_tree=$(handles vc)
assert_contains "$vc_tree" "root=100:=mqprio" "vc's tree"
assert_eq "$("$TBSD" --once --config-dir "$conf")" "va: unchanged
vc: unchanged" "--once again"

# 3. A foreign taprio too large for a dump message on va (installed without
# validation): the kernel's dump now stops at va, vc is left out.
tc qdisc del dev va root
rm "$conf/va.json"
"$TI" va 1000 100000 >/dev/null || fail "the big taprio was refused"
dumped vc && fail "vc still dumped: the kernel's dump is no longer cut short by 1000 entries"
pass "a 1000-entry taprio on va cuts the dump short before vc"
write_mqprio_schedule "$conf/vc.json" vc 300000 450000       # vc's schedule changed
rc=0
out=$("$TBSD" --once --config-dir "$conf" 2>&1) || rc=$?
assert_eq "$rc" 1 "--once exit status with vc left out of the dump"
assert_contains "$out" "vc: failed: reading the qdisc tree: the kernel's qdisc dump leaves this interface out" "--once"
tc qdisc del dev va root
assert_eq "$(handles vc)" "$vc_tree" "vc's tree untouched by the failed --once"
assert_eq "$(etf_delta vc 100:2)" 400000 "vc's queue 1 delta untouched"
assert_eq "$("$TBSD" --once --config-dir "$conf")" "vc: applied" "--once with the whole dump"
assert_eq "$(etf_delta vc 100:2)" 450000 "vc's queue 1 delta applied"

# 4. The daemon: vc configured; the big taprio appears on va, then vc
# drifts (its queue 1 child replaced). tbsd cannot see vc: it must neither
# repair from the partial view nor fail the link; once the dump is whole
# again, its retry finds the drift and repairs it.
start_system_bus
start_tbsd "$conf"
wait_configured vc
vc_tree=$(handles vc)
"$TI" va 1000 100000 >/dev/null || fail "the big taprio was refused"
tc qdisc replace dev vc parent 100:2 pfifo limit 77
wait_until 10 grep -q "vc: the kernel's qdisc dump leaves this interface out" "$TBS_OUT/tbsd.log" ||
        fail "tbsd did not notice the incomplete dump: $(cat "$TBS_OUT/tbsd.log")"
pass "tbsd noticed the incomplete dump"
assert_eq "$(link_state vc)" configured "vc's state with the dump cut short"
grep -q "vc: failed" "$TBS_OUT/tbsd.log" && fail "vc failed on a partial dump"
tc qdisc del dev va root
wait_until 20 sh -c "[ \"\$(tc -j qdisc show dev vc | jq -r '.[] | select(.parent == \"100:2\") | .kind')\" = etf ]" ||
        fail "vc's drift not repaired once the dump was whole: $(tc qdisc show dev vc)"
pass "vc repaired by the retry once the dump was whole"
assert_eq "$(etf_delta vc 100:2)" 450000 "vc's queue 1 delta after the repair"
assert_eq "$(link_state vc)" configured "vc's state after the repair"
grep -q "vc: failed" "$TBS_OUT/tbsd.log" && fail "vc failed at some point: $(cat "$TBS_OUT/tbsd.log")"
kill "$TBSD_PID"
wait "$TBSD_PID" || true

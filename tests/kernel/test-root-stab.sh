# A root's size table (root.stab, issue 38 point 2e), against tc: the trees
# tc builds with "stab ..." (taprio and mqprio, with and without a table,
# the tc-testing taprio case with stab overhead 24 on handle 8001:) are
# imported, validate, and `tbsd --once` finds them unchanged (the kernel's
# whole sizespec compared, cell_log and size_log included); the same files
# applied to a bare device give tc's tree (tc -j -d, stab and options); a
# changed overhead on a running taprio is an in-place change, and a file
# without stab takes the table away; tables on the TX queues' qdiscs (cbs,
# etf) under mqprio the same way, and a root etf's; under taprio the kernel
# refuses a queue's table and so does tbsd.
make_veth va vb 8
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

# The root as tc -j -d shows it: kind, handle, options and stab (no counters).
root_of() { tc_j -d qdisc show dev va | jq -c '.[] | select(.root == true) | {kind, handle, options, stab}'; }
children_of() { tc_j -d qdisc show dev va | jq -c '[.[] | select(.root != true) | {kind, parent, options, stab}] | sort_by(.parent)'; }
# tbsd --once's lines (its log goes to a file, shown when a step fails)
once() { "$TBSD" --once --config-dir "$conf" 2>"$TMPDIR/once.log" || cat "$TMPDIR/once.log" >&2; }

# stab_case NAME TC-COMMANDS...: tc builds the tree, tbsctl import writes
# it, tbsd finds it in place; then from a bare device tbsd builds it again
# from the file, and tc shows the same root and children.
stab_case() {
        local name=$1 want_root want_children out
        shift
        tc qdisc del dev va root 2>/dev/null || true
        for c in "$@"; do eval "tc $c"; done
        want_root=$(root_of)
        want_children=$(children_of)
        assert_contains "$want_root$want_children" '"stab":{' "$name: tc's tree has a size table"
        rm -f "$conf/va.json"
        "$TBSCTL" import va -o "$conf/va.json" || fail "$name: import failed"
        jq -c .root.stab "$conf/va.json"
        "$TBSCTL" validate "$conf/va.json" || fail "$name: tbsctl validate refused the import"
        assert_eq "$(once)" "va: unchanged" "$name: tbsd --once over tc's tree"
        tc qdisc del dev va root
        out=$(once)
        assert_contains "$out" "va: applied" "$name: tbsd --once on the bare device"
        assert_eq "$(root_of)" "$want_root" "$name: tbsd's root against tc's"
        # child handles aside: tbsd picks its own
        assert_eq "$(children_of)" "$want_children" "$name: tbsd's children against tc's"
        assert_eq "$(once)" "va: unchanged" "$name: a second --once"
}

# Overhead alone: no table (tc sends mtu and tsize 0).
stab_case "taprio overhead 24" \
        "qdisc replace dev va handle 100: parent root stab overhead 24 taprio num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 base-time 0 sched-entry S 3 1000000 clockid CLOCK_TAI"
assert_eq "$(jq -c .root.stab "$conf/va.json")" '{"overhead":24}' "overhead alone in the file"

# The tc-testing case (taprio.json): stab overhead 24 on handle 8001:, eight classes.
stab_case "tc-testing taprio stab" \
        "qdisc replace dev va handle 8001: parent root stab overhead 24 taprio num_tc 8 map 0 1 2 3 4 5 6 7 queues 1@0 1@1 1@2 1@3 1@4 1@5 1@6 1@7 base-time 0 sched-entry S ff 20000000 clockid CLOCK_TAI"

# A table (mpu, ATM cells), mqprio with etf children.
stab_case "mqprio atm table" \
        "qdisc replace dev va handle 100: root stab overhead 10 mpu 64 linklayer atm mtu 1500 tsize 128 mqprio num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 hw 0" \
        "qdisc replace dev va parent 100:1 etf clockid CLOCK_TAI delta 300000"
assert_eq "$(jq -c .root.stab "$conf/va.json")" '{"overhead":10,"mpu":64,"mtu":1500,"tsize":128,"linklayer":"atm"}' \
        "a table in the file"
stab_case "mqprio ethernet mpu" \
        "qdisc replace dev va handle 100: root stab mpu 64 linklayer ethernet mqprio num_tc 1 map 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 queues 4@0 hw 0"

# In place: a running taprio's overhead changed, then its table taken away.
tc qdisc del dev va root
cat > "$conf/va.json" <<'JSON'
{"interface": "va", "root": {"qdisc": "taprio", "handle": "100:", "num_tc": 2,
 "priority_map": [0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
 "stab": {"overhead": 24}, "clockid": "CLOCK_TAI", "base_time_ns": 0,
 "entries": [{"command": "set-gates", "gate_mask": 3, "interval_ns": 1000000}]}}
JSON
assert_contains "$(once)" "va: applied" "taprio with overhead 24"
assert_eq "$(root_of | jq -c .stab)" '{"overhead":24}' "the kernel's table"
sed -i 's/"overhead": 24/"overhead": 20/' "$conf/va.json"
out=$(once)
cat "$TMPDIR/once.log"
assert_contains "$out" "va: applied" "overhead 24 -> 20"
assert_contains "$(cat "$TMPDIR/once.log")" "in place" "overhead 24 -> 20 is an in-place change"
assert_eq "$(root_of | jq -c .stab)" '{"overhead":20}' "the kernel's table after the change"
assert_eq "$(once)" "va: unchanged" "after the change"
sed -i 's/ "stab": {"overhead": 20},//' "$conf/va.json"
out=$(once)
cat "$TMPDIR/once.log"
assert_contains "$(cat "$TMPDIR/once.log")" "in place" "stab removed in place"
assert_eq "$(root_of | jq -c .stab)" 'null' "no table after a file without stab"
assert_eq "$(once)" "va: unchanged" "after the removal"

# Tables on the TX queues' qdiscs: a cbs counting 24 bytes more per frame
# (its credit), with an etf under it, and an etf with an ATM table.
stab_case "cbs and etf tables" \
        "qdisc replace dev va handle 100: root mqprio num_tc 3 map 2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2 queues 1@0 1@1 2@2 hw 0" \
        "qdisc replace dev va parent 100:1 handle 101: stab overhead 24 cbs idleslope 20000 sendslope -980000 hicredit 30 locredit -1470" \
        "qdisc replace dev va parent 101:1 etf clockid CLOCK_TAI delta 300000" \
        "qdisc replace dev va parent 100:2 handle 102: stab mpu 64 linklayer atm etf clockid CLOCK_TAI delta 500000"
assert_eq "$(jq -c '[.txqueues[] | [.queue, .qdisc, .stab]]' "$conf/va.json")" \
        '[[0,"cbs",{"overhead":24}],[1,"etf",{"mpu":64,"mtu":2047,"tsize":512,"linklayer":"atm"}]]' "the queues' tables in the file"
# a changed table on a queue is re-applied, and found in place after
sed -i 's/"overhead":24/"overhead":20/; s/"overhead": 24/"overhead": 20/' "$conf/va.json"
assert_contains "$(once)" "va: applied" "the cbs's overhead 24 -> 20"
assert_eq "$(tc_j -d qdisc show dev va | jq -c '.[] | select(.kind == "cbs") | .stab')" '{"overhead":20}' "the cbs's table after the change"
assert_eq "$(once)" "va: unchanged" "after the cbs's change"

# Under taprio the kernel takes no table on a TX queue's qdisc; neither
# does tbsd, before anything is sent.
tc qdisc del dev va root
tc qdisc replace dev va handle 100: parent root taprio num_tc 2 map 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 queues 1@0 1@1 base-time 0 sched-entry S 3 1000000 clockid CLOCK_TAI
set +e
err=$(tc qdisc replace dev va parent 100:1 stab overhead 24 etf clockid CLOCK_TAI delta 300000 2>&1)
set -e
assert_contains "$err" "STAB not supported on a non root" "the kernel: a table under taprio"
cat > "$conf/va.json" <<'JSON'
{"interface": "va", "root": {"qdisc": "taprio", "handle": "100:", "num_tc": 2,
 "priority_map": [0,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1], "queues": [{"count": 1, "offset": 0}, {"count": 1, "offset": 1}],
 "clockid": "CLOCK_TAI", "base_time_ns": 0, "entries": [{"command": "set-gates", "gate_mask": 3, "interval_ns": 1000000}]},
 "txqueues": [{"queue": 0, "delta_ns": 300000, "stab": {"overhead": 24}}]}
JSON
set +e
err=$("$TBSCTL" validate "$conf/va.json" 2>&1)
set -e
assert_contains "$err" "txqueues[0].stab: a TX queue's size table needs an mqprio root" "tbsd: a table under taprio"

# A root etf with a table (a single-queue device), as tc makes it.
stab_case "root etf table" "qdisc replace dev va root handle 100: stab overhead 24 etf clockid CLOCK_TAI delta 300000"

# A stab that says nothing, or mtu without a table, is refused by the validator.
cat > "$conf/bad.json" <<'JSON'
{"interface": "vb", "root": {"qdisc": "mqprio", "num_tc": 1, "priority_map": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],
 "queues": [{"count": 1, "offset": 0}], "stab": {"overhead": 24, "mtu": 1500}}}
JSON
set +e
err=$("$TBSCTL" validate "$conf/bad.json" 2>&1)
set -e
assert_contains "$err" "root.stab: mtu and tsize size a table" "mtu without a table refused"

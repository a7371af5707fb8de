# A root that a file moves to another handle, between mqprio and taprio in
# every direction, against tc: Linux 6.1 answers success to a one-step
# `tc qdisc replace dev X root handle 200: ...` over an mqprio or taprio
# root 100: and leaves the new root with no traffic classes ("tc 0", no
# queues; the old root's destroy clears what the new one set), so tbsd
# deletes the old root first. With etf children on queues 0 and 1: the tree
# after the change is tc's own tree built on a fresh device (tc -j -d, child
# handles aside), and applies again unchanged. An apply that fails after
# the root moved (etf offload refused by an ifb device the probe does not
# know) rolls back to the old root with its traffic classes and children.
make_veth va vb 4
make_veth ta tb 4
modprobe -d /run/modroot ifb
ip link add ifb0 numtxqueues 4 numrxqueues 4 type ifb
ip link set ifb0 up
conf=$TMPDIR/schedules.d
mkdir -p "$conf"

MAP="2 2 1 0 2 2 2 2 2 2 2 2 2 2 2 2"

# tc_root KIND HANDLE: tc's arguments for a root of KIND (mq: mqprio, tp:
# taprio in txtime-assist mode) at HANDLE, the same as write_schedule's.
tc_root() {
        case $1 in
        mq) echo "root handle $2 mqprio num_tc 3 map $MAP queues 1@0 1@1 2@2 hw 0" ;;
        tp) echo "root handle $2 taprio num_tc 3 map $MAP queues 1@0 1@1 2@2 base-time 1000000000" \
                 "sched-entry S 01 300000 sched-entry S 02 300000 sched-entry S 04 400000" \
                 "clockid CLOCK_TAI flags 0x1 txtime-delay 500000" ;;
        esac
}

# tc_tree DEV KIND HANDLE: tc builds the whole tree on DEV: the root and an
# etf on queues 0 and 1.
tc_tree() {
        tc qdisc del dev "$1" root 2>/dev/null || true
        # shellcheck disable=SC2046
        tc qdisc add dev "$1" $(tc_root "$2" "$3")
        for q in 1 2; do
                tc qdisc add dev "$1" parent "$3$q" etf clockid CLOCK_TAI delta 200000 skip_sock_check
        done
}

# write_schedule FILE IFACE KIND HANDLE [OFFLOAD1]: the schedule of tc_tree;
# OFFLOAD1 is queue 1's etf offload (default false).
write_schedule() {
        local root
        case $3 in
        mq) root='"qdisc": "mqprio"' ;;
        tp) root='"qdisc": "taprio", "clockid": "CLOCK_TAI", "base_time_ns": 1000000000,
    "mode": "txtime-assist", "txtime_delay_ns": 500000,
    "entries": [
      {"command": "set-gates", "gate_mask": "0x1", "interval_ns": 300000},
      {"command": "set-gates", "gate_mask": "0x2", "interval_ns": 300000},
      {"command": "set-gates", "gate_mask": "0x4", "interval_ns": 400000}
    ]' ;;
        esac
        cat > "$1" <<EOJ
{
  "interface": "$2",
  "root": {
    $root, "handle": "$4", "num_tc": 3,
    "priority_map": [2, 2, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    "queues": [ {"count": 1, "offset": 0}, {"count": 1, "offset": 1}, {"count": 2, "offset": 2} ]
  },
  "txqueues": [
    {"queue": 0, "qdisc": "etf", "delta_ns": 200000, "offload": false, "skip_sock_check": true},
    {"queue": 1, "qdisc": "etf", "delta_ns": 200000, "offload": ${5:-false}, "skip_sock_check": true}
  ]
}
EOJ
}

# root_of DEV: the root as tc -j -d shows it (no counters).
root_of() { tc_j -d qdisc show dev "$1" | jq -c '.[] | select(.root) | {kind, handle, options}'; }

# shape DEV: DEV's tree as `tc -j -d` shows it, the children's handles left
# out: each qdisc's kind, options and where it hangs ("root" or the root's
# queue minor).
shape() {
        tc_j -d qdisc show dev "$1" |
                jq -c '(map(select(.root))[0].handle) as $r
                       | [.[] | {kind, options, at: (if .root then "root" else (.parent | ltrimstr($r)) end)}]
                       | sort_by(.at)'
}

# tree DEV: kinds, parents (root handles included) and options, sorted.
tree() { tc_j -d qdisc show dev "$1" | jq -c '[.[] | {kind, parent, options}] | sort_by(.parent)'; }

once() { "$TBSD" --once --config-dir "$conf" 2>>"$TBS_OUT/tbsd-once.err" || true; }

# 1. The kernel's behaviour: tc itself, one step from 100: to 200:.
for a in mq tp; do
        for b in mq tp; do
                tc qdisc del dev ta root 2>/dev/null || true
                # shellcheck disable=SC2046
                tc qdisc add dev ta $(tc_root $a 100:)
                # shellcheck disable=SC2046
                tc qdisc replace dev ta $(tc_root $b 200:) || fail "tc: $a 100: -> $b 200: refused"
                r=$(root_of ta)
                echo "tc, one step $a 100: -> $b 200:: $r"
                assert_eq "$(jq -c '[.handle, (.options.tc // 0), (.options.queues | length)]' <<<"$r")" '["200:",0,0]' \
                        "Linux 6.1: tc's one-step replace $a 100: -> $b 200: leaves no traffic classes"
        done
done

# 2. tbsd: a file's root moved from 100: to 200:, every pair of kinds.
for a in mq tp; do
        for b in mq tp; do
                tc qdisc del dev va root 2>/dev/null || true
                tc_tree ta $a 100:
                ref=$(shape ta)
                write_schedule "$conf/va.json" va $a 100:
                assert_eq "$(once)" "va: applied" "$a 100: applied"
                assert_eq "$(shape va)" "$ref" "$a 100: the tree is tc's"

                tc_tree ta $b 200:
                ref=$(shape ta)
                write_schedule "$conf/va.json" va $b 200:
                assert_eq "$(once)" "va: applied" "$a 100: -> $b 200: applied"
                assert_eq "$(root_of va | jq -r .handle)" "200:" "$a 100: -> $b 200: root handle"
                assert_eq "$(root_of va | jq -c '[.options.tc, .options.queues]')" \
                        "$(root_of ta | jq -c '[.options.tc, .options.queues]')" \
                        "$a 100: -> $b 200: traffic classes and queues"
                assert_eq "$(shape va)" "$ref" "$a 100: -> $b 200: the tree is tc's (children's handles aside)"
                before=$(handles va)
                assert_eq "$(once)" "va: unchanged" "$a 100: -> $b 200: applied again"
                assert_eq "$(handles va)" "$before" "$a 100: -> $b 200: handles after applying again"
        done
done
rm "$conf/va.json"

# 3. A failed apply after the root moved: the old root comes back with its
# traffic classes and children (kinds, parents, options; the children's
# handles may be fresh ones).
for ab in "tp mq" "mq tp" "tp tp"; do
        read -r a b <<<"$ab"
        tc qdisc del dev ifb0 root 2>/dev/null || true
        write_schedule "$conf/ifb0.json" ifb0 $a 100:
        assert_eq "$(once)" "ifb0: applied" "ifb0: $a 100: applied"
        before=$(tree ifb0)
        write_schedule "$conf/ifb0.json" ifb0 $b 200: true
        assert_eq "$(once)" "ifb0: failed: txqueue 1 (etf on 200:2): Specified device does not support ETF offload" \
                "ifb0: $a 100: -> $b 200: with etf offload on queue 1 refused"
        assert_eq "$(root_of ifb0 | jq -c '[.handle, .options.tc, (.options.queues | length)]')" '["100:",3,3]' \
                "ifb0: $a 100: back with its traffic classes"
        assert_eq "$(tree ifb0)" "$before" "ifb0: $a 100: tree (kinds, parents, options) after the rollback"
        write_schedule "$conf/ifb0.json" ifb0 $a 100:
        assert_eq "$(once)" "ifb0: unchanged" "ifb0: $a 100: unchanged after the rollback"
done
